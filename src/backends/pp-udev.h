/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The udev backend: coldplug enumeration and the uevent monitor. The only
 * file that includes libudev.h. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* What the daemon keeps of a udev device. */
typedef struct {
  gint        ref_count;
  char       *syspath;       /* canonical /sys/devices/... */
  char       *subsystem;     /* "" when none */
  char       *sysname;
  char       *devtype;       /* or NULL */
  char       *driver;        /* or NULL */
  char       *devnode;       /* or NULL */
  char       *parent;        /* syspath of the nearest ancestor the manager
                              * knows, or NULL (filled in by the manager) */
  GHashTable *properties;    /* the udev properties the daemon uses */
} PpDeviceInfo;

PpDeviceInfo *pp_device_info_ref      (PpDeviceInfo *info);
void          pp_device_info_unref    (PpDeviceInfo *info);
const char   *pp_device_info_get_property (PpDeviceInfo *info,
                                           const char   *key);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpDeviceInfo, pp_device_info_unref)

#define PP_TYPE_UDEV (pp_udev_get_type ())
G_DECLARE_FINAL_TYPE (PpUdev, pp_udev, PP, UDEV, GObject)

PpUdev     *pp_udev_new            (GError  **error);

/* All devices, sorted by syspath (parents before children). */
GPtrArray  *pp_udev_enumerate      (PpUdev   *udev,
                                    GError  **error);

/* One device by syspath, or NULL with @error. */
PpDeviceInfo *pp_udev_lookup       (PpUdev      *udev,
                                    const char  *syspath,
                                    GError     **error);

/* Start listening; emits "uevent" (const char *action, PpDeviceInfo *info)
 * for every uevent from udev. */
gboolean    pp_udev_start_monitor  (PpUdev   *udev,
                                    GError  **error);

G_END_DECLS
