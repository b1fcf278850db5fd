/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pmctl-output.h"
#include "pp-util.h"

/* ---- messages ------------------------------------------------------------- */

static void
print_message (const char *format, va_list args) G_GNUC_PRINTF (1, 0);

static void
print_message (const char *format, va_list args)
{
  g_autofree char *message = g_strdup_vprintf (format, args);
  /* one line, whatever it quotes: the user's own argument, a device's
   * text, a remote error (no escape sequence reaches the terminal) */
  g_autofree char *shown = pp_escape_text (message, 0);

  fprintf (stderr, "pmctl: %s\n", shown);
}

void
pmctl_fail (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  print_message (format, args);
  va_end (args);
}

int
pmctl_usage_error (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  print_message (format, args);
  va_end (args);
  fputs ("Try 'pmctl --help'.\n", stderr);
  return PMCTL_EXIT_USAGE;
}

/* ---- values --------------------------------------------------------------- */

const char *
pmctl_dict_get_string (GVariant *dict, const char *key)
{
  const char *value = NULL;

  if (!g_variant_lookup (dict, key, "&s", &value))
    return "";
  return value;
}

char *
pmctl_format_value (GVariant *value, const char *separator)
{
  if (value == NULL)
    return g_strdup ("-");
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_VARIANT))
    {
      g_autoptr(GVariant) inner = g_variant_get_variant (value);
      return pmctl_format_value (inner, separator);
    }
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) ||
      g_variant_is_of_type (value, G_VARIANT_TYPE_OBJECT_PATH))
    {
      const char *s = g_variant_get_string (value, NULL);
      return g_strdup (*s ? s : "-");
    }
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
    return g_strdup (g_variant_get_boolean (value) ? "yes" : "no");
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT32))
    return g_strdup_printf ("%" G_GINT32_FORMAT, g_variant_get_int32 (value));
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32))
    return g_strdup_printf ("%" G_GUINT32_FORMAT, g_variant_get_uint32 (value));
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT64))
    return g_strdup_printf ("%" G_GINT64_FORMAT, g_variant_get_int64 (value));
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT64))
    return g_strdup_printf ("%" G_GUINT64_FORMAT, g_variant_get_uint64 (value));
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
    {
      g_autofree const char **strv = g_variant_get_strv (value, NULL);
      if (strv[0] == NULL)
        return g_strdup ("-");
      return g_strjoinv (separator, (char **) strv);
    }
  return g_variant_print (value, FALSE);
}

/* ---- tables --------------------------------------------------------------- */

typedef struct {
  char       *text;    /* sanitised, no escape sequences */
  const char *sgr;     /* colour, or NULL */
  gsize       from;    /* coloured from this byte on */
} Cell;

struct _PmctlTable {
  guint      n_columns;
  GPtrArray *rows;     /* of Cell[n_columns] */
};

static void
row_free (gpointer data, gpointer n_columns)
{
  Cell *row = data;

  for (guint c = 0; c < GPOINTER_TO_UINT (n_columns); c++)
    g_free (row[c].text);
  g_free (row);
}

PmctlTable *
pmctl_table_new (guint n_columns)
{
  PmctlTable *t = g_new0 (PmctlTable, 1);

  t->n_columns = n_columns;
  t->rows = g_ptr_array_new ();
  return t;
}

void
pmctl_table_free (PmctlTable *t)
{
  g_ptr_array_foreach (t->rows, row_free, GUINT_TO_POINTER (t->n_columns));
  g_ptr_array_unref (t->rows);
  g_free (t);
}

guint
pmctl_table_n_rows (PmctlTable *t)
{
  return t->rows->len;
}

/* Tabs and newlines would break the tab-separated form; other control
 * characters (escape sequences in a "why" another user chose, in a
 * device's name) must not reach the terminal: escaped as the journal
 * shows them (pp_escape_text(): "\n", "\t", "\x1b", invalid UTF-8 as
 * "\xNN"). Takes @text. */
static char *
sanitize_cell (char *text)
{
  g_autofree char *owned = text;

  return pp_escape_text (owned, 0);
}

void
pmctl_table_add_row (PmctlTable *t, ...)
{
  Cell *row = g_new0 (Cell, t->n_columns);
  va_list args;

  va_start (args, t);
  for (guint c = 0; c < t->n_columns; c++)
    row[c].text = sanitize_cell (va_arg (args, char *));
  va_end (args);
  g_ptr_array_add (t->rows, row);
}

void
pmctl_table_colour (PmctlTable *t, Pmctl *ctl, guint column, gsize from, const char *sgr)
{
  Cell *row;

  if (!ctl->color || t->rows->len == 0)
    return;
  row = g_ptr_array_index (t->rows, t->rows->len - 1);
  if (strlen (row[column].text) <= from)
    return;
  row[column].sgr = sgr;
  row[column].from = from;
}

static guint
unichar_width (gunichar c)
{
  if (g_unichar_iszerowidth (c))
    return 0;
  return g_unichar_iswide (c) ? 2 : 1;
}

/* Columns @text takes on a terminal. */
static gsize
text_width (const char *text)
{
  gsize width = 0;

  if (!g_utf8_validate (text, -1, NULL))
    return strlen (text);
  for (const char *p = text; *p; p = g_utf8_next_char (p))
    width += unichar_width (g_utf8_get_char (p));
  return width;
}

/* The byte length of the longest start of @text at most @width wide. */
static gsize
head_bytes (const char *text, gsize width)
{
  const char *p = text;
  gsize used = 0;

  while (*p)
    {
      guint w = unichar_width (g_utf8_get_char (p));
      if (used + w > width)
        break;
      used += w;
      p = g_utf8_next_char (p);
    }
  return p - text;
}

/* The byte offset of the shortest end of @text at most @width wide. */
static gsize
tail_start (const char *text, gsize width)
{
  const char *p = text + strlen (text);
  gsize used = 0;

  while (p > text)
    {
      const char *prev = g_utf8_prev_char (p);
      guint w = unichar_width (g_utf8_get_char (prev));
      if (used + w > width)
        break;
      used += w;
      p = prev;
    }
  return p - text;
}

/* Cut @cell to @width columns with an ellipsis in the middle (the start
 * and the end of a path say most), like systemd's ellipsize_mem(). */
static void
cell_ellipsize (Cell *cell, gsize width)
{
  gboolean utf8 = g_get_charset (NULL);
  const char *ellipsis = utf8 ? "…" : "...";
  gsize ellipsis_width = utf8 ? 1 : 3;
  gsize head, tail;
  char *text;

  if (!g_utf8_validate (cell->text, -1, NULL) || text_width (cell->text) <= width)
    return;
  if (width <= ellipsis_width)
    {
      text = g_strndup (ellipsis, head_bytes (ellipsis, width));
      cell->sgr = NULL;
    }
  else
    {
      gsize room = width - ellipsis_width;

      head = head_bytes (cell->text, room - room / 2);
      tail = tail_start (cell->text, room / 2);
      text = g_strdup_printf ("%.*s%s%s", (int) head, cell->text, ellipsis, cell->text + tail);
      /* the colour starts where it did, or right after the cut */
      if (cell->from > head)
        cell->from = head + strlen (ellipsis);
    }
  g_free (cell->text);
  cell->text = text;
}

guint
pmctl_terminal_columns (void)
{
  const char *env = g_getenv ("COLUMNS");
  struct winsize ws = { 0 };
  guint64 n;

  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 1, G_MAXUINT16, &n, NULL))
    return (guint) n;
  if (ioctl (STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  return 0;
}

/* Narrow the widest columns until the line fits @columns, as systemctl
 * does; a column keeps at least its header's width and a few
 * characters. */
static void
fit_widths (gsize *widths, const gsize *minimum, guint n_columns, guint columns)
{
  gsize total = 2 * (n_columns - 1);

  for (guint c = 0; c < n_columns; c++)
    total += widths[c];
  while (total > columns)
    {
      guint widest = 0;
      gsize cut;

      for (guint c = 1; c < n_columns; c++)
        {
          if (widths[c] - minimum[c] > widths[widest] - minimum[widest])
            widest = c;
        }
      if (widths[widest] <= minimum[widest])
        return;
      cut = MIN (total - columns, widths[widest] - minimum[widest]);
      widths[widest] -= cut;
      total -= cut;
    }
}

static void
append_cell (GString *line, const Cell *cell)
{
  if (cell->sgr == NULL)
    {
      g_string_append (line, cell->text);
      return;
    }
  g_string_append_len (line, cell->text, cell->from);
  g_string_append_printf (line, "\033[%sm%s\033[0m", cell->sgr, cell->text + cell->from);
}

void
pmctl_table_print (PmctlTable *t, Pmctl *ctl, const char * const *header)
{
  g_autofree gsize *widths = g_new0 (gsize, t->n_columns);
  g_autofree gsize *minimum = g_new0 (gsize, t->n_columns);
  g_autofree Cell *header_row = g_new0 (Cell, t->n_columns);
  guint columns;

  /* nothing to list: no header either */
  if (t->rows->len == 0)
    return;
  if (!ctl->tty)
    {
      for (guint r = 0; r < t->rows->len; r++)
        {
          Cell *row = g_ptr_array_index (t->rows, r);
          for (guint c = 0; c < t->n_columns; c++)
            printf ("%s%s", row[c].text, c + 1 < t->n_columns ? "\t" : "\n");
        }
      return;
    }

  for (guint c = 0; c < t->n_columns; c++)
    {
      header_row[c].text = (char *) (header ? header[c] : "");
      widths[c] = text_width (header_row[c].text);
      minimum[c] = MAX (widths[c], 8);
    }
  for (guint r = 0; r < t->rows->len; r++)
    {
      Cell *row = g_ptr_array_index (t->rows, r);
      for (guint c = 0; c < t->n_columns; c++)
        widths[c] = MAX (widths[c], text_width (row[c].text));
    }
  for (guint c = 0; c < t->n_columns; c++)
    minimum[c] = MIN (minimum[c], widths[c]);

  columns = ctl->full ? 0 : pmctl_terminal_columns ();
  if (columns > 0)
    {
      fit_widths (widths, minimum, t->n_columns, columns);
      for (guint r = 0; r < t->rows->len; r++)
        {
          Cell *row = g_ptr_array_index (t->rows, r);
          for (guint c = 0; c < t->n_columns; c++)
            cell_ellipsize (&row[c], widths[c]);
        }
    }

  for (gint r = header ? -1 : 0; r < (gint) t->rows->len; r++)
    {
      const Cell *row = r < 0 ? header_row : g_ptr_array_index (t->rows, r);
      g_autoptr(GString) line = g_string_new (NULL);
      gsize pending = 0;   /* blanks owed before the next cell */

      for (guint c = 0; c < t->n_columns; c++)
        {
          gsize width = text_width (row[c].text);

          /* empty cells at the end of a row leave no trailing blanks */
          if (width > 0)
            {
              for (gsize i = 0; i < pending; i++)
                g_string_append_c (line, ' ');
              pending = 0;
              append_cell (line, &row[c]);
            }
          pending += widths[c] - MIN (width, widths[c]) + 2;
        }
      printf ("%s\n", line->str);
    }
}

void
pmctl_fields_print (PmctlTable *t, Pmctl *ctl)
{
  gsize width = 0;

  if (!ctl->tty)
    {
      pmctl_table_print (t, ctl, NULL);
      return;
    }
  for (guint r = 0; r < t->rows->len; r++)
    width = MAX (width, strlen (((Cell *) g_ptr_array_index (t->rows, r))[0].text) + 1);
  for (guint r = 0; r < t->rows->len; r++)
    {
      Cell *row = g_ptr_array_index (t->rows, r);
      g_autofree char *label = g_strconcat (row[0].text, ":", NULL);

      if (row[1].sgr != NULL)
        printf ("%-*s %.*s\033[%sm%s\033[0m\n", (int) width, label, (int) row[1].from,
                row[1].text, row[1].sgr, row[1].text + row[1].from);
      else
        printf ("%-*s %s\n", (int) width, label, row[1].text);
    }
}

/* ---- JSON ----------------------------------------------------------------- */

static void
json_print (JsonNode *node, gboolean pretty)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_pretty (generator, pretty);
  json_generator_set_indent (generator, 2);
  json_generator_set_root (generator, node);
  text = json_generator_to_data (generator, NULL);
  printf ("%s\n", text);
}

void
pmctl_json_print (Pmctl *ctl, JsonNode *node)
{
  json_print (node, ctl->tty);
}

void
pmctl_json_print_builder (Pmctl *ctl, JsonBuilder *b)
{
  g_autoptr(JsonNode) root = json_builder_get_root (b);

  json_print (root, ctl->tty);
}

void
pmctl_json_print_line (JsonBuilder *b)
{
  g_autoptr(JsonNode) root = json_builder_get_root (b);

  json_print (root, FALSE);
  fflush (stdout);
}

int
pmctl_finish_output (int status)
{
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      pmctl_fail ("cannot write the output: %s", g_strerror (errno));
      return PMCTL_EXIT_FAILURE;
    }
  return status;
}
