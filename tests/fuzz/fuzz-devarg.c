/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure part of resolving a device argument (pp_device_arg_check).
 * Invariants: a path is under /sys/ with no "." or ".." component, a name
 * has no '/'; a refusal says why in a bounded message with no control
 * character. */
#include "config.h"

#include "fuzz-common.h"
#include "pp-devarg.h"
#include "pp-error.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *arg = g_strndup ((const char *) data, size);
  g_autoptr(GError) error = NULL;
  PpDeviceArgKind kind;

  fuzz_init_logging ();
  if (pp_device_arg_check (arg, &kind, &error))
    {
      FUZZ_ASSERT (error == NULL);
      FUZZ_ASSERT (*arg != '\0' && strlen (arg) <= PP_DEVICE_ARG_MAX);
      FUZZ_ASSERT (g_utf8_validate (arg, -1, NULL));
      if (kind == PP_DEVICE_ARG_PATH)
        {
          g_auto(GStrv) parts = g_strsplit (arg, "/", -1);

          FUZZ_ASSERT (g_str_has_prefix (arg, "/sys/"));
          for (guint i = 0; parts[i]; i++)
            FUZZ_ASSERT (!g_str_equal (parts[i], ".") && !g_str_equal (parts[i], ".."));
        }
      else
        FUZZ_ASSERT (kind == PP_DEVICE_ARG_NAME && strchr (arg, '/') == NULL);
    }
  else
    {
      FUZZ_ASSERT (error != NULL && error->domain == PP_ERROR);
      FUZZ_ASSERT (strlen (error->message) < 2048);
      for (const char *p = error->message; *p; p++)
        FUZZ_ASSERT ((guchar) *p >= 0x20 && *p != 0x7f);
    }
  return 0;
}
