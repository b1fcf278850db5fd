/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by every part of powerpolicy. The inline ones and
 * those of pp-util-pure.c are what the pure policy library links; the
 * others live in pp-util.c (the common library). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* GCompareFunc for g_ptr_array_sort() over an array of C strings. */
static inline gint
pp_compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/* (pp-util-pure.c) The keys of @table, which are C strings, sorted with
 * pp_compare_strings(). The array borrows the keys: free it before the
 * table changes. */
GPtrArray *pp_hash_table_sorted_keys (GHashTable *table);

/* The names in directory @path that end in @suffix (NULL: all), sorted;
 * NULL when the directory cannot be read. */
GPtrArray *pp_list_dir_sorted (const char *path,
                               const char *suffix);

/* A bound for pp_escape_text() where a caller has no better one. */
#define PP_ESCAPE_SHOWN_MAX 256

/* (pp-util-pure.c, in the pure policy library too.)
 * @text (caller-supplied, any bytes) made safe for one log line: every
 * newline as "\n", tab as "\t", carriage return as "\r", every other C0
 * control character, DEL, C1 control (U+0080..U+009F) and byte of invalid
 * UTF-8 as "\xNN"; other valid UTF-8 is kept. Cut at a character boundary
 * (never inside an escape) so that the result including a final "…" is at
 * most @max bytes (@max 0: no limit; @max below 3 counts as 3). NULL
 * becomes "". Idempotent: escaped text contains no character that is
 * escaped again (a backslash or quote is kept as it is). Free with
 * g_free(). */
char      *pp_escape_text     (const char *text,
                               gsize       max);
/* The same for the @length bytes at @text, which may hold NUL bytes
 * (shown as "\x00"). */
char      *pp_escape_text_len (const char *text,
                               gsize       length,
                               gsize       max);

/* (pp-util-pure.c.) A small set of strings kept as one array of interned,
 * reference-counted copies (g_ref_string_new_intern()): the same few
 * names (attributes such as "power/control") in thousands of sets cost
 * one pointer per set and one copy in all, and a set is one allocation
 * instead of a hash table. Insertion order kept; lookups are linear
 * (meant for a handful of entries). NULL is the empty set. */
typedef struct _PpStrSet PpStrSet;

/* @set with @value added (when not yet in it); @set may be reallocated:
 * use the set returned. */
PpStrSet   *pp_str_set_add           (PpStrSet       *set,
                                      const char     *value);
gboolean    pp_str_set_contains      (const PpStrSet *set,
                                      const char     *value);
guint       pp_str_set_size          (const PpStrSet *set);
/* The @i-th value (insertion order), valid while it is in @set. */
const char *pp_str_set_index         (const PpStrSet *set,
                                      guint           i);
/* The values as a set (g_hash_table_add()) whose keys are @set's: valid
 * while @set lives unchanged. */
GHashTable *pp_str_set_to_hash_table (const PpStrSet *set);
void        pp_str_set_free          (PpStrSet       *set);

G_END_DECLS
