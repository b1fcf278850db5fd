/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl's output: messages, tables, key/value fields, colours, JSON.
 *
 * Text output is for people: aligned columns on a terminal, fitted to its
 * width; tab-separated values without a header when piped (so that
 * `cut -f` works). --json is for programs. */
#pragma once

#include <stdio.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "pmctl.h"

G_BEGIN_DECLS

#define PMCTL_SGR_BOLD_RED  "1;31"
#define PMCTL_SGR_YELLOW    "33"

/* "pmctl: MESSAGE" on stderr. */
void        pmctl_fail           (const char *format,
                                  ...) G_GNUC_PRINTF (1, 2);
/* pmctl_fail() and the hint to --help; returns PMCTL_EXIT_USAGE. */
int         pmctl_usage_error    (const char *format,
                                  ...) G_GNUC_PRINTF (1, 2);

/* The text form of one value: "-" for an empty string or list, yes/no
 * for booleans, numbers as they are (-1 too), lists joined with
 * @separator; NULL (no such field) is "-". */
char       *pmctl_format_value   (GVariant   *value,
                                  const char *separator);
/* A duration for people: "850ms", "4.5s" (tenths cut, not rounded),
 * "3m05s", "2h07m". */
char       *pmctl_format_duration_ms (guint64 ms);
/* Takes @reply and keeps it until pmctl exits (reachable: neither
 * valgrind nor LeakSanitizer counts it lost). GDBus parses a reply into
 * one value per field: at 10,000 devices freeing them one by one costs as
 * much CPU as the command's own work, and pmctl ends right after. */
void        pmctl_keep_until_exit (GVariant *reply);
/* The string field @key of a{sv} @dict, "" when absent. */
const char *pmctl_dict_get_string (GVariant  *dict,
                                   const char *key);

typedef struct _PmctlTable PmctlTable;

PmctlTable *pmctl_table_new      (guint       n_columns);
void        pmctl_table_free     (PmctlTable *t);
guint       pmctl_table_n_rows   (PmctlTable *t);
/* One row of n_columns cells (char *), taken over; control characters
 * are escaped ("\t", "\x1b") so that a cell can neither break the
 * tab-separated form nor reach the terminal as an escape sequence. */
void        pmctl_table_add_row  (PmctlTable *t,
                                  ...);
/* The same with n_columns borrowed cells (copied; NULL is ""). */
void        pmctl_table_add_row_borrowed (PmctlTable         *t,
                                          const char * const *cells);
/* Colour the cell @column of the last row from byte @from on with the
 * SGR sequence @sgr, when ctl->color. */
void        pmctl_table_colour   (PmctlTable *t,
                                  Pmctl      *ctl,
                                  guint       column,
                                  gsize       from,
                                  const char *sgr);
/* Nothing for a table without rows. On a terminal: @header and aligned
 * columns, the widest ellipsized to
 * fit the terminal's width (unless --full); else tab-separated rows. */
void        pmctl_table_print    (PmctlTable         *t,
                                  Pmctl              *ctl,
                                  const char * const *header);
/* Two-column tables as "Key: value" on a terminal (the value coloured
 * as pmctl_table_colour() said), "Key<TAB>value" when piped. */
void        pmctl_fields_print   (PmctlTable *t,
                                  Pmctl      *ctl);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PmctlTable, pmctl_table_free)

/* The terminal's width: $COLUMNS when it is a number, else what the
 * terminal on stdout says; 0 when unknown. */
guint       pmctl_terminal_columns (void);

/* pmctl's one JSON writer, for output written as it goes (ten thousand
 * devices need no tree of nodes) and for trees built with JsonBuilder:
 * compact, or indented by 2 when @pretty. Each function writes one
 * value, as the member @name inside an object (NULL in an array or at
 * the top). */
typedef struct {
  FILE     *out;
  gboolean  pretty;
  guint     depth;
  gboolean  comma;      /* a value came before at this depth */
} PmctlJson;

void        pmctl_json_init      (PmctlJson  *j,
                                  FILE       *out,
                                  gboolean    pretty);
/* An object ('{') or array ('['), closed by pmctl_json_end (@close '}'
 * or ']'). */
void        pmctl_json_begin     (PmctlJson  *j,
                                  const char *name,
                                  char        open);
void        pmctl_json_end       (PmctlJson  *j,
                                  char        close);
void        pmctl_json_string    (PmctlJson  *j,
                                  const char *name,
                                  const char *value);
void        pmctl_json_bool      (PmctlJson  *j,
                                  const char *name,
                                  gboolean    value);
void        pmctl_json_null      (PmctlJson  *j,
                                  const char *name);
void        pmctl_json_int       (PmctlJson  *j,
                                  const char *name,
                                  gint64      value);
/* An unsigned counter, clamped to G_MAXINT64. */
void        pmctl_json_count     (PmctlJson  *j,
                                  const char *name,
                                  guint64     value);
/* %.17g with ".0" when it reads as an integer; null when not finite. */
void        pmctl_json_double    (PmctlJson  *j,
                                  const char *name,
                                  double      value);
/* A JsonNode tree, its object members in their order. */
void        pmctl_json_write_node (PmctlJson  *j,
                                   const char *name,
                                   JsonNode   *node);

/* @node as JSON on stdout: pretty on a terminal, one line when piped. */
void        pmctl_json_print     (Pmctl      *ctl,
                                  JsonNode   *node);
/* Explain's rows (a(sssss), org.powerpolicy1.Manager.xml) as a JSON array
 * of {attribute, current, decided, layer, origin}, added to @b. */
void        pmctl_json_add_explain_rows (JsonBuilder *b,
                                         GVariant    *rows);
/* pmctl_json_print() of @b's root. */
void        pmctl_json_print_builder (Pmctl       *ctl,
                                      JsonBuilder *b);
/* @b's root as one line of JSON on stdout, flushed (monitor). */
void        pmctl_json_print_line (JsonBuilder *b);
/* Flush stdout; a write error (full disk, closed pipe) is a failure
 * rather than silently truncated output. */
int         pmctl_finish_output  (int         status);

G_END_DECLS
