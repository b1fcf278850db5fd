/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading the power-dependency structure of sysfs: the device directories
 * of /sys/devices, the entries of /sys/class/devlink (sysfs-class-devlink)
 * and the per-device supplier:X / consumer:X links. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PP_SYSFS_CLASS_DEVLINK "/sys/class/devlink"

typedef struct {
  char     *id;              /* the devlink's canonical path, or a key made of its ends */
  char     *supplier;        /* canonical /sys/devices/... path */
  char     *consumer;
  char     *status;          /* "active", "dormant", ...; NULL when unreadable */
  gint      runtime_pm;      /* 1, 0, or -1 when unknown */
  gboolean  sync_state_only; /* not a power dependency */
} PpDevlink;

void        pp_devlink_free          (PpDevlink *link);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpDevlink, pp_devlink_free)

/* Turn a device named in a devlink name (bus or class @bus, or NULL when
 * the name carries no bus) into its canonical /sys/devices path. */
typedef char *(*PpDevlinkResolveFunc) (const char *bus,
                                       const char *name,
                                       gpointer    user_data);

/* The canonical path of bus/class device @bus/@name under /sys/devices,
 * or NULL. */
char       *pp_devlinks_resolve_bus_device (const char *bus,
                                            const char *name);

/* One devlink directory. The ends come from its supplier/consumer links
 * (realpath), else from its name; NULL (with a debug message) when an end
 * cannot be found or does not lie under /sys/devices. */
PpDevlink  *pp_devlink_read          (const char            *devlink_dir,
                                      PpDevlinkResolveFunc   resolve,
                                      gpointer               user_data);

/* Every link in @class_dir (normally PP_SYSFS_CLASS_DEVLINK), as PpDevlink. */
GPtrArray  *pp_devlinks_read_all     (const char            *class_dir,
                                      PpDevlinkResolveFunc   resolve,
                                      gpointer               user_data);

/* The links named by @syspath's supplier:X and consumer:X entries. */
GPtrArray  *pp_devlinks_read_device  (const char            *syspath,
                                      PpDevlinkResolveFunc   resolve,
                                      gpointer               user_data);

/* One device found by pp_devlinks_walk_devices(): @parent is the nearest
 * ancestor device (NULL at a root); @has_links when the device directory
 * has supplier:X or consumer:X entries. */
typedef void (*PpDeviceWalkFunc) (const char *syspath,
                                  const char *parent,
                                  gboolean    has_links,
                                  gpointer    user_data);

/* Every device under @root (normally /sys/devices): each directory with a
 * uevent file and a subsystem, parents before children, device links
 * (@root/virtual/devlink) left out. Reads directories only. */
void        pp_devlinks_walk_devices (const char        *root,
                                      PpDeviceWalkFunc   func,
                                      gpointer           user_data);

G_END_DECLS
