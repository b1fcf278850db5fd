/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One device dictionary of ListDevices and GetDevice (SPEC §5), as plain
 * fields, and its a{sv}. The daemon fills a row from what it keeps of the
 * device and what it reads now (pp-power-state); bench/stats builds the
 * same rows from memory, for the floor ListDevices is measured against. */
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

G_END_DECLS
