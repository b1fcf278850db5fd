/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The device table, owned by the manager (pp-manager.c): the tagged
 * devices by syspath and by sysname, the untagged ones a tree operation
 * looked at, and what is read from them when asked (device arguments,
 * the power supplies, the per-device status and statistics). Its state
 * is its own (pp-device-table.c); the manager's public API
 * (pp-manager.h) answers from it. */
#pragma once

#include "pp-manager.h"
#include "pp-residency.h"

G_BEGIN_DECLS

typedef struct _PpDeviceTable PpDeviceTable;

PpDeviceTable *pp_device_table_new                 (void);
void           pp_device_table_free                (PpDeviceTable *self);

/* Insert or replace (its props and facts read now); returns the device
 * now in the table. */
PpDevice      *pp_device_table_set                 (PpDeviceTable *self,
                                                    PpDeviceInfo  *info);
void           pp_device_table_remove              (PpDeviceTable *self,
                                                    const char    *syspath);
/* A device below a managed one came or went: its facts read again. */
void           pp_device_table_child_changed       (PpDeviceTable *self,
                                                    PpDeviceInfo  *child);
/* The tagged device, or NULL. */
PpDevice      *pp_device_table_lookup              (PpDeviceTable *self,
                                                    const char    *syspath);
guint          pp_device_table_size                (PpDeviceTable *self);
/* The tagged devices but links, sorted by path (the table's, valid
 * until it changes). */
GPtrArray     *pp_device_table_list                (PpDeviceTable *self);
/* pp_manager_get_tree_device(): @udev reads an untagged device. */
PpDevice      *pp_device_table_get_tree_device     (PpDeviceTable *self,
                                                    PpUdev        *udev,
                                                    const char    *syspath);
void           pp_device_table_forget_tree_devices (PpDeviceTable *self);
void           pp_device_table_forget_tree_device  (PpDeviceTable *self,
                                                    const char    *syspath);
/* @syspath is a device of the table, tagged or not. */
gboolean       pp_device_table_knows               (PpDeviceTable *self,
                                                    const char    *syspath);
/* pp_manager_resolve_device() */
PpDevice      *pp_device_table_resolve             (PpDeviceTable *self,
                                                    const char    *device,
                                                    GError       **error);

/* The power supplies of the table, read now. */
gboolean       pp_device_table_on_battery          (PpDeviceTable *self);
gint           pp_device_table_battery_percent     (PpDeviceTable *self);

/* pp_manager_get_statistics(), pp_manager_get_class_statistics(),
 * pp_manager_count_devices(): from the table and @residency's bases. */
GArray        *pp_device_table_get_statistics      (PpDeviceTable   *self,
                                                    PpResidencyBook *residency,
                                                    PpDevice        *device,
                                                    gboolean         with_state,
                                                    GError         **error);
GArray        *pp_device_table_get_class_statistics (PpDeviceTable   *self,
                                                     PpResidencyBook *residency);
GArray        *pp_device_table_count_devices       (PpDeviceTable *self);

/* One device, no table. */
gboolean       pp_device_is_usb                    (PpDeviceInfo *info);
/* Re-classify a USB device by its interfaces' drivers: TRUE when its
 * class changed. */
gboolean       pp_device_classify_usb              (PpDevice     *dev);
gboolean       pp_device_path_is_managed           (const char   *syspath);
/* A device link (an edge of the tree, never a device of its own). */
gboolean       pp_device_is_link                   (PpDevice     *dev);
/* pp_manager_read_device_status(), @held told by the caller. */
void           pp_device_read_status               (PpDevice       *dev,
                                                    gboolean        held,
                                                    PpDeviceStatus *out);

G_END_DECLS
