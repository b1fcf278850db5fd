/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <string.h>

#include "pp-devarg.h"
#include "pp-error.h"
#include "pp-util.h"

gboolean
pp_device_arg_check (const char *arg, PpDeviceArgKind *kind, GError **error)
{
  g_autofree char *shown = NULL;

  if (arg == NULL || *arg == '\0')
    {
      g_set_error_literal (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT, "empty device argument");
      return FALSE;
    }
  if (strlen (arg) > PP_DEVICE_ARG_MAX)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                   "device argument longer than %d bytes", PP_DEVICE_ARG_MAX);
      return FALSE;
    }
  if (!g_utf8_validate (arg, -1, NULL))
    {
      g_set_error_literal (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                           "device argument is not valid UTF-8");
      return FALSE;
    }
  shown = pp_escape_text (arg, 0);

  if (arg[0] == '/')
    {
      g_auto(GStrv) parts = g_strsplit (arg, "/", -1);

      for (guint i = 0; parts[i]; i++)
        {
          if (g_str_equal (parts[i], "..") || g_str_equal (parts[i], "."))
            {
              g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                           "device path '%s' contains '%s'", shown, parts[i]);
              return FALSE;
            }
        }
      if (!g_str_has_prefix (arg, "/sys/"))
        {
          g_set_error (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE,
                       "'%s' is not a sysfs device path", shown);
          return FALSE;
        }
      *kind = PP_DEVICE_ARG_PATH;
      return TRUE;
    }
  if (strchr (arg, '/') != NULL)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                   "'%s' is neither an absolute sysfs path nor a device name", shown);
      return FALSE;
    }
  *kind = PP_DEVICE_ARG_NAME;
  return TRUE;
}
