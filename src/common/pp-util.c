/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <string.h>

#include "pp-util.h"

GPtrArray *
pp_list_dir_sorted (const char *path, const char *suffix)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  GPtrArray *names;
  const char *name;

  if (dir == NULL)
    return NULL;
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      if (suffix == NULL || g_str_has_suffix (name, suffix))
        g_ptr_array_add (names, g_strdup (name));
    }
  g_ptr_array_sort (names, pp_compare_strings);
  return names;
}

char *
pp_escape_text (const char *text, gsize max_shown)
{
  GString *out;
  gsize i;

  if (text == NULL)
    return g_strdup ("(null)");
  if (max_shown == 0)
    max_shown = PP_ESCAPE_SHOWN_MAX;
  out = g_string_sized_new (MIN (strlen (text), max_shown) + 8);
  for (i = 0; text[i] != '\0' && i < max_shown; i++)
    {
      guchar c = (guchar) text[i];

      switch (c)
        {
        case '\\': g_string_append (out, "\\\\"); break;
        case '"':  g_string_append (out, "\\\""); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default:
          if (c >= 0x20 && c < 0x7f)
            g_string_append_c (out, (char) c);
          else
            g_string_append_printf (out, "\\x%02x", c);
        }
    }
  if (text[i] != '\0')
    g_string_append (out, "...");
  return g_string_free (out, FALSE);
}
