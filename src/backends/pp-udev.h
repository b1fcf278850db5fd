/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The udev backend: coldplug enumeration (of the devices udev's rules
 * tagged "powerpolicy", through sd-device's enumerator) and the uevent
 * monitor (libudev). The only file that includes libudev.h or
 * sd-device.h. */
#pragma once

#include <glib-object.h>

#include "pp-usbclass.h"

G_BEGIN_DECLS

/* The udev tag of every device the daemon manages
 * (data/udev-rules/99-powerpolicy-tag.rules). */
#define PP_UDEV_TAG "powerpolicy"
#define PP_UDEV_DEVICES_DIR "/sys/devices"

/* What the daemon keeps of a udev device. */
typedef struct {
  gint        ref_count;
  char       *syspath;       /* canonical /sys/devices/...; this and the
                              * next three are interned GRefStrings
                              * (g_ref_string_new_intern()), never changed */
  char       *subsystem;     /* "" when none */
  char       *sysname;
  char       *devtype;       /* or NULL */
  char       *driver;        /* or NULL */
  char       *devnode;       /* or NULL */
  char       *parent;        /* read it with pp_device_info_get_parent() */
  gboolean    parent_known;  /* parent looked up (it may be NULL) */
  gboolean    tagged;        /* udev's rules tagged it PP_UDEV_TAG (for a
                              * uevent: the device's current tags) */
  GHashTable *properties;    /* the udev properties the daemon uses */
} PpDeviceInfo;

PpDeviceInfo *pp_device_info_ref      (PpDeviceInfo *info);
void          pp_device_info_unref    (PpDeviceInfo *info);
const char   *pp_device_info_get_property (PpDeviceInfo *info,
                                           const char   *key);
/* The syspath of the nearest ancestor that is a device (a directory of
 * /sys/devices with a uevent file and a subsystem, what libudev would
 * enumerate), or NULL at a root; looked up in sysfs on the first call. */
const char   *pp_device_info_get_parent (PpDeviceInfo *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpDeviceInfo, pp_device_info_unref)

/* At most this many interfaces of a USB device are read (the kernel's
 * USB_MAXINTERFACES). */
#define PP_USB_MAX_INTERFACES 32

/* The usb_interface children of the USB device @syspath (its
 * directories "BUS-PORT:CONFIG.IFACE"), read from sysfs: interfaces are
 * not tagged, so they are read from the device directory rather than
 * enumerated. A GArray of PpUsbInterface, sorted by name, at most
 * PP_USB_MAX_INTERFACES; the driver names are interned strings;
 * subclass and protocol are read for HID interfaces only (0 for the
 * others: the class inference looks at them for HID alone). Empty when
 * the directory cannot be read. */
GArray       *pp_udev_read_usb_interfaces (const char *syspath);
/* The USB vendor id of @syspath (idVendor), 0 when unknown. */
guint16       pp_udev_read_usb_vendor     (const char *syspath);

#define PP_TYPE_UDEV (pp_udev_get_type ())
G_DECLARE_FINAL_TYPE (PpUdev, pp_udev, PP, UDEV, GObject)

PpUdev     *pp_udev_new            (GError  **error);

/* The devices tagged PP_UDEV_TAG, sorted by syspath (parents before
 * children). */
GPtrArray  *pp_udev_enumerate      (PpUdev   *udev,
                                    GError  **error);

/* One device by syspath, or NULL with @error (G_IO_ERROR_NOT_FOUND). */
PpDeviceInfo *pp_udev_lookup       (PpUdev      *udev,
                                    const char  *syspath,
                                    GError     **error);

/* Start listening; emits "uevent" (const char *action, PpDeviceInfo *info)
 * for every uevent from udev, tagged or not (info->tagged tells). */
gboolean    pp_udev_start_monitor  (PpUdev   *udev,
                                    GError  **error);

G_END_DECLS
