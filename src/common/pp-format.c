/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <string.h>

#include "pp-format.h"

char *
pp_format_valid_cut (const char *text, gsize max_bytes)
{
  char *valid = g_utf8_make_valid (text != NULL ? text : "", -1);
  gsize len = strlen (valid);

  if (max_bytes > 0 && len > max_bytes)
    {
      /* cut before the character that crosses the limit */
      const char *end = g_utf8_find_prev_char (valid, valid + max_bytes + 1);

      valid[end - valid] = '\0';
    }
  return valid;
}

void
pp_format_append_escaped (GString    *out,
                          const char *text,
                          gsize       max_bytes,
                          gboolean    drop_controls)
{
  g_autofree char *valid = pp_format_valid_cut (text, max_bytes);

  for (const char *p = valid; *p != '\0'; p++)
    {
      switch (*p)
        {
        case '\\':
          /* doubled: never an escape (DOT's \N, \l) nor a quote's escape */
          g_string_append (out, "\\\\");
          break;
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        default:
          /* the C1 controls (U+0080..U+009F, 0xC2 0x80..0x9F in UTF-8):
           * a terminal may read U+009B as CSI */
          if (drop_controls && (guchar) p[0] == 0xc2 && (guchar) p[1] >= 0x80 && (guchar) p[1] <= 0x9f)
            p++;
          else if (!drop_controls || ((guchar) *p >= 0x20 && *p != 0x7f))
            g_string_append_c (out, *p);
        }
    }
}
