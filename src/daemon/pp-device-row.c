/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-device-row"

#include "config.h"

#include "pp-device-row.h"
#include "pp-names.h"

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
  add_string (&b, PP_DEVICE_KEY_PATH, row->path);
  add_string (&b, PP_DEVICE_KEY_SUBSYSTEM, row->subsystem);
  add_string (&b, PP_DEVICE_KEY_CLASS, row->class);
  add_string (&b, PP_DEVICE_KEY_DRIVER, row->driver);
  add_string (&b, PP_DEVICE_KEY_PARENT, row->parent);
  g_variant_builder_add (&b, "{sv}", PP_DEVICE_KEY_SUPPLIERS,
                         g_variant_new_strv (row->suppliers, row->n_suppliers));
  g_variant_builder_add (&b, "{sv}", PP_DEVICE_KEY_CONSUMERS,
                         g_variant_new_strv (row->consumers, row->n_consumers));
  add_string (&b, PP_DEVICE_KEY_RUNTIME_STATUS, row->runtime_status);
  add_string (&b, PP_DEVICE_KEY_CONTROL, row->control);
  g_variant_builder_add (&b, "{sv}", PP_DEVICE_KEY_AUTOSUSPEND_DELAY_MS,
                         g_variant_new_int32 (row->autosuspend_delay_ms));
  add_string (&b, PP_DEVICE_KEY_WAKEUP, row->wakeup);
  g_variant_builder_add (&b, "{sv}", PP_DEVICE_KEY_HELD, g_variant_new_boolean (row->held));
  add_string (&b, PP_DEVICE_KEY_BLOCKER, row->blocker);
  g_variant_builder_add (&b, "{sv}", PP_DEVICE_KEY_IGNORED, g_variant_new_boolean (row->ignored));
  add_string (&b, PP_DEVICE_KEY_EXCLUDED, row->excluded);
  v = g_variant_builder_end (&b);
  /* serialise now: frees the row's tree of children (~50 small GVariants)
   * at once instead of keeping them until the whole reply is sent */
  g_variant_get_data (v);
  return v;
}
