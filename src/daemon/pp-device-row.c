/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-device-row"

#include "config.h"

#include "pp-device-row.h"
#include "pp-names.h"

/* A D-Bus string must be UTF-8; a device's text (sysfs names, a
 * driver's) need not be: invalid bytes become U+FFFD. */
static GVariant *
new_string (const char *value)
{
  g_autofree char *valid = NULL;

  if (g_utf8_validate (value, -1, NULL))
    return g_variant_new_string (value);
  valid = g_utf8_make_valid (value, -1);
  return g_variant_new_string (valid);
}

/* {key: <value>} made directly: the value of g_variant_builder_add (b,
 * "{sv}", key, value) without parsing a format string for each entry. */
static void
add_value (GVariantBuilder *b, const char *key, GVariant *value)
{
  g_variant_builder_add_value (b, g_variant_new_dict_entry (g_variant_new_string (key),
                                                            g_variant_new_variant (value)));
}

static void
add_string (GVariantBuilder *b, const char *key, const char *value)
{
  add_value (b, key, new_string (value));
}

static void
add_strv (GVariantBuilder *b, const char *key, const char * const *strv, guint n)
{
  GVariantBuilder list;

  g_variant_builder_init (&list, G_VARIANT_TYPE_STRING_ARRAY);
  for (guint i = 0; i < n; i++)
    g_variant_builder_add_value (&list, new_string (strv[i]));
  add_value (b, key, g_variant_builder_end (&list));
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
  add_strv (&b, PP_DEVICE_KEY_SUPPLIERS, row->suppliers, row->n_suppliers);
  add_strv (&b, PP_DEVICE_KEY_CONSUMERS, row->consumers, row->n_consumers);
  add_string (&b, PP_DEVICE_KEY_RUNTIME_STATUS, row->runtime_status);
  add_string (&b, PP_DEVICE_KEY_CONTROL, row->control);
  add_value (&b, PP_DEVICE_KEY_AUTOSUSPEND_DELAY_MS, g_variant_new_int32 (row->autosuspend_delay_ms));
  add_string (&b, PP_DEVICE_KEY_WAKEUP, row->wakeup);
  add_value (&b, PP_DEVICE_KEY_HELD, g_variant_new_boolean (row->held));
  add_string (&b, PP_DEVICE_KEY_BLOCKER, row->blocker);
  add_value (&b, PP_DEVICE_KEY_IGNORED, g_variant_new_boolean (row->ignored));
  add_string (&b, PP_DEVICE_KEY_EXCLUDED, row->excluded);
  v = g_variant_builder_end (&b);
  /* serialise now: frees the row's tree of children (~50 small GVariants)
   * at once instead of keeping them until the whole reply is sent */
  g_variant_get_data (v);
  return v;
}

/* The serialised form of an array of variable-size elements (GVariant's
 * format): each element aligned to its type's alignment (8 for a{sv},
 * which holds variants), then one framing offset per element (where it
 * ends), all of the smallest size that can address the whole. */
#define ROW_ALIGNMENT 8

struct _PpDeviceRows {
  GByteArray *body;
  GArray     *ends;   /* gsize: where each row ends in @body */
};

PpDeviceRows *
pp_device_rows_new (guint n_hint)
{
  /* ~530 bytes a row on a typical machine */
  return pp_device_rows_new_sized (n_hint, 512);
}

PpDeviceRows *
pp_device_rows_new_sized (guint n_hint, guint row_size_hint)
{
  PpDeviceRows *rows = g_new0 (PpDeviceRows, 1);

  rows->body = g_byte_array_sized_new (MIN (n_hint, 1u << 20) * MIN (row_size_hint, 4096u));
  rows->ends = g_array_sized_new (FALSE, FALSE, sizeof (gsize), n_hint);
  return rows;
}

void
pp_device_rows_add (PpDeviceRows *rows, const PpDeviceRow *row)
{
  pp_device_rows_add_value (rows, pp_device_row_to_variant (row));
}

void
pp_device_rows_add_value (PpDeviceRows *rows, GVariant *value)
{
  static const guint8 zeros[ROW_ALIGNMENT] = { 0 };
  g_autoptr(GVariant) v = g_variant_ref_sink (value);
  gsize size = g_variant_get_size (v);
  gsize end;

  if (rows->body->len % ROW_ALIGNMENT != 0)
    g_byte_array_append (rows->body, zeros, ROW_ALIGNMENT - rows->body->len % ROW_ALIGNMENT);
  g_byte_array_append (rows->body, g_variant_get_data (v), (guint) size);
  end = rows->body->len;
  g_array_append_val (rows->ends, end);
}

/* The size of one framing offset for a container of @body bytes and
 * @n offsets (gvs_calculate_total_size() in GLib). */
static guint
offset_size (gsize body, gsize n)
{
  if (body + n <= G_MAXUINT8)
    return 1;
  if (body + 2 * n <= G_MAXUINT16)
    return 2;
  if (body + 4 * n <= G_MAXUINT32)
    return 4;
  return 8;
}

GVariant *
pp_device_rows_end (PpDeviceRows *rows)
{
  return pp_device_rows_end_as (rows, G_VARIANT_TYPE ("aa{sv}"));
}

GVariant *
pp_device_rows_end_as (PpDeviceRows *rows, const GVariantType *type)
{
  guint size = offset_size (rows->body->len, rows->ends->len);
  GBytes *bytes;
  GVariant *v;

  for (guint i = 0; i < rows->ends->len; i++)
    {
      guint64 le = GUINT64_TO_LE ((guint64) g_array_index (rows->ends, gsize, i));

      /* little-endian: the first @size bytes are the low ones */
      g_byte_array_append (rows->body, (const guint8 *) &le, size);
    }
  g_array_unref (rows->ends);
  bytes = g_byte_array_free_to_bytes (rows->body);
  g_free (rows);
  /* trusted: made of serialised rows in normal form, framed as above */
  v = g_variant_new_from_bytes (type, bytes, TRUE);
  g_bytes_unref (bytes);
  return v;
}
