/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pp_escape_text(): pure, so linked into the policy library (which logs
 * and reports file contents) as well as the daemon. */
#include "config.h"

#include <string.h>

#include "pp-util.h"

char *
pp_escape_text (const char *text, gsize max_shown)
{
  GString *out;
  gsize i;

  if (text == NULL)
    return g_strdup ("(null)");
  if (max_shown == 0)
    max_shown = PP_ESCAPE_SHOWN_MAX;
  out = g_string_sized_new (strnlen (text, max_shown) + 8);
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
