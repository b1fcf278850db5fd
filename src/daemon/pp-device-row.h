/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One device dictionary of ListDevices and GetDevice
 * (org.powerpolicy1.Manager.xml), as plain fields, and its a{sv}. The daemon
 * fills a row from what it keeps of the device and what it reads now
 * (pp-power-state); bench/stats builds the same rows from memory, for the floor
 * ListDevices is measured against. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Strings are borrowed; none is NULL (use ""). */
typedef struct {
  const char         *path;
  const char         *subsystem;
  const char         *class;
  const char         *driver;
  const char         *parent;
  const char * const *suppliers;
  guint               n_suppliers;
  const char * const *consumers;
  guint               n_consumers;
  const char         *runtime_status;
  const char         *control;
  gint32              autosuspend_delay_ms;
  const char         *wakeup;
  gboolean            held;
  const char         *blocker;
  gboolean            ignored;
  const char         *excluded;
} PpDeviceRow;

/* The a{sv} of @row: a floating GVariant. Already serialised, so that an
 * array of many rows does not keep a tree of small GVariants per row. */
GVariant *pp_device_row_to_variant (const PpDeviceRow *row);

/* ListDevices' aa{sv}, row by row: each row's a{sv} is serialised and
 * copied into one buffer at once, and its GVariants freed before the
 * next row is made, so that many rows never hold thousands of small
 * GVariants at the same time (GLib's slice allocator keeps what they
 * used after they are gone). pp_device_rows_end() frees @rows. */
typedef struct _PpDeviceRows PpDeviceRows;

PpDeviceRows *pp_device_rows_new  (guint               n_hint);
void          pp_device_rows_add  (PpDeviceRows       *rows,
                                   const PpDeviceRow  *row);
/* The aa{sv} of the rows added, in order: a floating GVariant. */
GVariant     *pp_device_rows_end  (PpDeviceRows       *rows);

/* The same for other array replies (GetStatistics' a(sdtt), say), so that
 * their rows too are serialised as they come instead of kept as a tree
 * of small GVariants: room for @n_hint rows of about @row_size_hint
 * bytes, add each element (@value, floating or not, of the array's
 * element type), then end with the array's @type. Only for
 * elements of variable size whose type aligns to 8 bytes (holding a
 * string and a double, 64-bit integer or variant), as a{sv}; all rows of
 * one array of the same type. */
PpDeviceRows *pp_device_rows_new_sized (guint               n_hint,
                                        guint               row_size_hint);
void          pp_device_rows_add_value (PpDeviceRows       *rows,
                                        GVariant           *value);
GVariant     *pp_device_rows_end_as    (PpDeviceRows       *rows,
                                        const GVariantType *type);

G_END_DECLS
