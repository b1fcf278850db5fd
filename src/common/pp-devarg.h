/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure part of resolving a device argument of the D-Bus API
 * (powerpolicyd(8), D-BUS INTERFACE: an absolute sysfs path or a
 * kernel device name): what can be said of the
 * string alone, before any lookup. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A device argument longer than this is refused. */
#define PP_DEVICE_ARG_MAX 4096

typedef enum {
  PP_DEVICE_ARG_PATH,   /* "/sys/...": look it up, then its real path */
  PP_DEVICE_ARG_NAME,   /* "1-1.2": look up the kernel name */
} PpDeviceArgKind;

/* Check @arg; TRUE and its kind, or FALSE with PP_ERROR_INVALID_ARGUMENT
 * (empty, too long, not UTF-8, a "." or ".." component, a name with '/')
 * or PP_ERROR_NO_SUCH_DEVICE (an absolute path outside /sys). Messages
 * quote @arg escaped and bounded. */
gboolean  pp_device_arg_check (const char       *arg,
                               PpDeviceArgKind  *kind,
                               GError          **error);

G_END_DECLS
