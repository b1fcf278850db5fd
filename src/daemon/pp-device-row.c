/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-device-row"

#include "config.h"

#include "pp-device-row.h"

static void
add_string (GVariantBuilder *b, const char *key, const char *value)
{
  g_variant_builder_add (b, "{sv}", key, g_variant_new_string (value));
}

GVariant *
pp_device_row_to_variant (const PpDeviceRow *row)
{
  GVariantBuilder b;
  GVariant *v;

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  add_string (&b, "path", row->path);
  add_string (&b, "subsystem", row->subsystem);
  add_string (&b, "class", row->class);
  add_string (&b, "driver", row->driver);
  add_string (&b, "parent", row->parent);
  g_variant_builder_add (&b, "{sv}", "suppliers",
                         g_variant_new_strv (row->suppliers, row->n_suppliers));
  g_variant_builder_add (&b, "{sv}", "consumers",
                         g_variant_new_strv (row->consumers, row->n_consumers));
  add_string (&b, "runtime_status", row->runtime_status);
  add_string (&b, "control", row->control);
  g_variant_builder_add (&b, "{sv}", "autosuspend_delay_ms",
                         g_variant_new_int32 (row->autosuspend_delay_ms));
  add_string (&b, "wakeup", row->wakeup);
  g_variant_builder_add (&b, "{sv}", "held", g_variant_new_boolean (row->held));
  add_string (&b, "blocker", row->blocker);
  g_variant_builder_add (&b, "{sv}", "ignored", g_variant_new_boolean (row->ignored));
  add_string (&b, "excluded", row->excluded);
  v = g_variant_builder_end (&b);
  /* serialise now: frees the row's tree of children (~50 small GVariants)
   * at once instead of keeping them until the whole reply is sent */
  g_variant_get_data (v);
  return v;
}
