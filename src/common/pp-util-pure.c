/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure helpers of pp-util.h, linked into the policy library (which
 * logs and reports file contents) as well as the daemon, whose event log
 * (pp-log.c) escapes every field with pp_escape_text(). */
#include "config.h"

#include <string.h>

#include "pp-util.h"

#define ELLIPSIS "\xe2\x80\xa6"  /* U+2026, 3 bytes */

char *
pp_escape_text (const char *text, gsize max)
{
  if (text == NULL)
    return g_strdup ("");
  return pp_escape_text_len (text, strlen (text), max);
}

/* How many bytes from @p on are printable ASCII (0x20..0x7e), which the
 * escaper copies as they are. Not instrumented for coverage in a fuzzing
 * build (clang's -fsanitize=fuzzer-no-link): its two compares a byte
 * tell the fuzzer nothing and took most of the time of the config and
 * quirk-database fuzz targets (tests/fuzz/README.md). */
#if defined(__clang__)
__attribute__ ((no_sanitize ("coverage")))
#endif
static gsize
plain_ascii_run (const char *p, const char *end)
{
  static const guint8 plain[256] = {
    [0x20 ... 0x7e] = 1,
  };
  const char *q = p;

  while (q < end && plain[(guchar) *q])
    q++;
  return (gsize) (q - p);
}

char *
pp_escape_text_len (const char *text, gsize length, gsize max)
{
  const gsize ellipsis_len = strlen (ELLIPSIS);
  const char *end = text + length;
  g_autoptr(GString) out = NULL;
  gsize cut = 0;
  gboolean truncated = FALSE;

  if (max != 0 && max < ellipsis_len)
    max = ellipsis_len;

  out = g_string_sized_new (MIN (length, max != 0 ? max : length) + 1);
  for (const char *p = text; p < end;)
    {
      char unit[8];
      gsize unit_len, consumed = 1;
      guchar c = (guchar) *p;

      if (c >= 0x20 && c < 0x7f)
        {
          /* a run of printable ASCII, the common case, in one append */
          gsize run = plain_ascii_run (p, end);
          gsize room = max != 0 ? max - out->len : run;

          g_string_append_len (out, p, MIN (run, room));
          if (max != 0 && out->len - MIN (run, room) + 1 + ellipsis_len <= max)
            cut = MIN (out->len, max - ellipsis_len);
          if (run > room)
            {
              truncated = TRUE;
              break;
            }
          p += run;
          continue;
        }
      if (c == '\n')
        unit_len = g_strlcpy (unit, "\\n", sizeof unit);
      else if (c == '\t')
        unit_len = g_strlcpy (unit, "\\t", sizeof unit);
      else if (c == '\r')
        unit_len = g_strlcpy (unit, "\\r", sizeof unit);
      else if (c < 0x20 || c == 0x7f)
        unit_len = g_snprintf (unit, sizeof unit, "\\x%02x", c);
      else
        {
          gunichar ch = g_utf8_get_char_validated (p, end - p);

          /* invalid UTF-8, and the C1 controls (U+0080..U+009F, which a
           * terminal may take as escape sequences), byte by byte */
          if (ch == (gunichar) -1 || ch == (gunichar) -2 || ch < 0xa0)
            unit_len = g_snprintf (unit, sizeof unit, "\\x%02x", c);
          else
            {
              consumed = g_utf8_next_char (p) - p;
              memcpy (unit, p, consumed);
              unit_len = consumed;
            }
        }

      if (max != 0 && out->len + unit_len > max)
        {
          truncated = TRUE;
          break;
        }
      g_string_append_len (out, unit, unit_len);
      if (max != 0 && out->len + ellipsis_len <= max)
        cut = out->len;
      p += consumed;
    }

  if (truncated)
    {
      g_string_truncate (out, cut);
      g_string_append (out, ELLIPSIS);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

GPtrArray *
pp_hash_table_sorted_keys (GHashTable *table)
{
  GPtrArray *keys = g_ptr_array_sized_new (g_hash_table_size (table));
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (keys, key);
  g_ptr_array_sort (keys, pp_compare_strings);
  return keys;
}

struct _PpStrSet {
  guint  len;
  char  *values[];   /* GRefString, interned */
};

PpStrSet *
pp_str_set_add (PpStrSet *set, const char *value)
{
  guint len = set != NULL ? set->len : 0;

  g_return_val_if_fail (value != NULL, set);

  if (pp_str_set_contains (set, value))
    return set;
  set = g_realloc (set, sizeof (PpStrSet) + (len + 1) * sizeof (char *));
  set->values[len] = g_ref_string_new_intern (value);
  set->len = len + 1;
  return set;
}

gboolean
pp_str_set_contains (const PpStrSet *set, const char *value)
{
  for (guint i = 0; set != NULL && i < set->len; i++)
    if (strcmp (set->values[i], value) == 0)
      return TRUE;
  return FALSE;
}

guint
pp_str_set_size (const PpStrSet *set)
{
  return set != NULL ? set->len : 0;
}

const char *
pp_str_set_index (const PpStrSet *set, guint i)
{
  g_return_val_if_fail (set != NULL && i < set->len, NULL);

  return set->values[i];
}

GHashTable *
pp_str_set_to_hash_table (const PpStrSet *set)
{
  GHashTable *table = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; set != NULL && i < set->len; i++)
    g_hash_table_add (table, set->values[i]);
  return table;
}

void
pp_str_set_free (PpStrSet *set)
{
  if (set == NULL)
    return;
  for (guint i = 0; i < set->len; i++)
    g_ref_string_release (set->values[i]);
  g_free (set);
}
