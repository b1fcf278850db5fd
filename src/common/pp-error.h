/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Registered as D-Bus errors org.powerpolicy1.Error.<Name>
 * (powerpolicyd(8), D-BUS INTERFACE). */
typedef enum {
  PP_ERROR_NO_SUCH_DEVICE,
  PP_ERROR_INVALID_ARGUMENT,
  PP_ERROR_NOT_AUTHORIZED,
  PP_ERROR_REFUSED,
  PP_ERROR_FAILED,
  PP_ERROR_NOT_SUPPORTED,
} PpError;

#define PP_ERROR (pp_error_quark ())
GQuark        pp_error_quark          (void);

/* Set @error to PP_ERROR_FAILED (or NO_SUCH_DEVICE for ENOENT/ENODEV)
 * with "@prefix: strerror(errnum)". Always returns FALSE. */
gboolean      pp_error_set_from_errno (GError     **error,
                                       int          errnum,
                                       const char  *format,
                                       ...) G_GNUC_PRINTF (3, 4);

/* The error the bus carries for @error, which a daemon object or a
 * backend set: PP_ERROR as it is; the G_IO_ERROR codes of the backends
 * as the nearest PP_ERROR (a device or attribute that is not there
 * NoSuchDevice, a write the sysfs checks refuse or the kernel denies
 * Refused, something the device or kernel lacks NotSupported);
 * anything else Failed. The message is kept. */
GError       *pp_error_to_bus         (const GError *error);

G_END_DECLS
