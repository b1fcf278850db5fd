/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <gio/gio.h>

#include "pp-error.h"
#include "pp-names.h"

static const GDBusErrorEntry pp_error_entries[] = {
  { PP_ERROR_NO_SUCH_DEVICE,   PP_DBUS_ERROR_PREFIX ".NoSuchDevice" },
  { PP_ERROR_INVALID_ARGUMENT, PP_DBUS_ERROR_PREFIX ".InvalidArgument" },
  { PP_ERROR_NOT_AUTHORIZED,   PP_DBUS_ERROR_PREFIX ".NotAuthorized" },
  { PP_ERROR_REFUSED,          PP_DBUS_ERROR_PREFIX ".Refused" },
  { PP_ERROR_FAILED,           PP_DBUS_ERROR_PREFIX ".Failed" },
  { PP_ERROR_NOT_SUPPORTED,    PP_DBUS_ERROR_PREFIX ".NotSupported" },
};

GQuark
pp_error_quark (void)
{
  static gsize quark = 0;

  g_dbus_error_register_error_domain ("pp-error-quark",
                                      &quark,
                                      pp_error_entries,
                                      G_N_ELEMENTS (pp_error_entries));
  return (GQuark) quark;
}

gboolean
pp_error_set_from_errno (GError    **error,
                         int         errnum,
                         const char *format,
                         ...)
{
  g_autofree char *prefix = NULL;
  va_list args;
  int code = PP_ERROR_FAILED;

  va_start (args, format);
  prefix = g_strdup_vprintf (format, args);
  va_end (args);

  if (errnum == ENOENT || errnum == ENODEV || errnum == ENXIO)
    code = PP_ERROR_NO_SUCH_DEVICE;

  g_set_error (error, PP_ERROR, code, "%s: %s", prefix, g_strerror (errnum));
  return FALSE;
}

static int
bus_code_for_io_error (int code)
{
  if (code == G_IO_ERROR_NOT_FOUND || code == G_IO_ERROR_NO_SUCH_DEVICE ||
      code == G_IO_ERROR_NOT_REGULAR_FILE)     /* ENXIO: no such device or address */
    return PP_ERROR_NO_SUCH_DEVICE;
  if (code == G_IO_ERROR_PERMISSION_DENIED)
    return PP_ERROR_REFUSED;
  if (code == G_IO_ERROR_NOT_SUPPORTED)
    return PP_ERROR_NOT_SUPPORTED;
  return PP_ERROR_FAILED;
}

GError *
pp_error_to_bus (const GError *error)
{
  int code = PP_ERROR_FAILED;

  if (error->domain == PP_ERROR)
    return g_error_copy (error);
  if (error->domain == G_IO_ERROR)
    code = bus_code_for_io_error (error->code);
  return g_error_new_literal (PP_ERROR, code, error->message);
}
