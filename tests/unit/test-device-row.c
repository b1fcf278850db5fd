/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of ListDevices' aa{sv} as pp_device_rows_*() frame it by
 * hand (pp-device-row.c): byte for byte what GVariantBuilder makes of
 * the same rows, in normal form, for every size of framing offset. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-device-row.h"

typedef struct {
  const char *name;
  guint       n_rows;
} SizeRow;

/* 0 rows: an empty array; 1: 2-byte offsets in the row's own a{sv};
 * 40: the array's offsets 2 bytes (~20 kB); 300: 4 bytes (> 64 KiB) */
static const SizeRow size_rows[] = {
  { "empty", 0 },
  { "one row", 1 },
  { "2-byte offsets", 40 },
  { "4-byte offsets", 300 },
};

/* Row @i: fields of varying lengths, so that the rows' sizes and their
 * alignment padding differ. */
static void
fill_row (PpDeviceRow *row, guint i, GPtrArray *strings)
{
  static const char * const links[] = { "/sys/devices/platform/a", "/sys/devices/platform/bb",
                                        "/sys/devices/pci0000:00/0000:00:02.0" };
  char *path = g_strdup_printf ("/sys/devices/pci0000:00/0000:00:14.0/usb1/1-%u%s", i,
                                i % 3 ? "/1-1.1" : "");
  char *parent = g_strdup_printf ("/sys/devices/pci0000:00/0000:00:14.0/usb%u", i % 7);

  g_ptr_array_add (strings, path);
  g_ptr_array_add (strings, parent);
  memset (row, 0, sizeof *row);
  row->path = path;
  row->subsystem = i % 2 ? "usb" : "pci";
  row->class = i % 5 ? "usb-hid" : "";
  row->driver = i % 4 ? "usbhid" : "";
  row->parent = i % 6 ? parent : "";
  row->suppliers = links;
  row->n_suppliers = i % 3;
  row->consumers = links + 1;
  row->n_consumers = i % 2;
  row->runtime_status = i % 2 ? "active" : "suspended";
  row->control = i % 3 ? "auto" : "";
  row->autosuspend_delay_ms = i % 4 ? 2000 : -1;
  row->wakeup = i % 5 ? "disabled" : "enabled";
  row->held = i % 7 == 0;
  row->blocker = i % 8 ? "" : links[2];
  row->ignored = i % 9 == 0;
  row->excluded = i % 10 ? "" : "driver usbhid excluded by a.conf:3 [Class usb-hid]";
}

static void
test_rows_as_builder (void **state)
{
  const SizeRow *r = *state;
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  PpDeviceRows *rows = pp_device_rows_new (r->n_rows);
  GVariantBuilder b;
  g_autoptr(GVariant) expected = NULL;
  g_autoptr(GVariant) got = NULL;
  g_autoptr(GVariant) untrusted = NULL;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < r->n_rows; i++)
    {
      PpDeviceRow row;

      fill_row (&row, i, strings);
      g_variant_builder_add_value (&b, pp_device_row_to_variant (&row));
      pp_device_rows_add (rows, &row);
    }
  expected = g_variant_ref_sink (g_variant_builder_end (&b));
  got = g_variant_ref_sink (pp_device_rows_end (rows));

  assert_string_equal (g_variant_get_type_string (got), "aa{sv}");
  assert_int_equal (g_variant_n_children (got), r->n_rows);
  assert_int_equal (g_variant_get_size (got), g_variant_get_size (expected));
  assert_memory_equal (g_variant_get_data (got), g_variant_get_data (expected),
                       g_variant_get_size (expected));
  assert_true (g_variant_equal (got, expected));
  /* the same bytes, not trusted: GLib checks the framing itself */
  untrusted = g_variant_ref_sink (g_variant_new_from_data (G_VARIANT_TYPE ("aa{sv}"),
                                                          g_variant_get_data (got),
                                                          g_variant_get_size (got),
                                                          FALSE, NULL, NULL));
  assert_true (g_variant_is_normal_form (untrusted));
  if (r->n_rows > 0)
    {
      g_autoptr(GVariant) last = g_variant_get_child_value (untrusted, r->n_rows - 1);
      const char *path = NULL;

      assert_true (g_variant_lookup (last, "path", "&s", &path));
      assert_string_equal (path, (const char *) strings->pdata[strings->len - 2]);
    }
}

/* Other array replies framed the same way (GetStatistics' a(sdtt),
 * GetDeviceStatistics' a(sssbdtt)): byte for byte GVariantBuilder's. */
static void
test_value_rows_as_builder (void **state)
{
  const SizeRow *r = *state;
  static const char * const types[] = { "a(sdtt)", "a(sssbdtt)" };

  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    {
      PpDeviceRows *rows = pp_device_rows_new (r->n_rows);
      GVariantBuilder b;
      g_autoptr(GVariant) expected = NULL;
      g_autoptr(GVariant) got = NULL;
      g_autoptr(GVariant) untrusted = NULL;

      g_variant_builder_init (&b, G_VARIANT_TYPE (types[t]));
      for (guint i = 0; i < r->n_rows; i++)
        {
          g_autofree char *path = g_strdup_printf ("/sys/devices/pci0000:00/0000:00:%02x.%u%s",
                                                   i, i % 8, i % 3 ? "/ata1" : "");
          GVariant *row;

          if (t == 0)
            row = g_variant_new ("(sdtt)", path, i / 7.0, (guint64) i * 1000, (guint64) i);
          else
            row = g_variant_new ("(sssbdtt)", path, i % 2 ? "storage" : "usb",
                                 i % 5 ? "suspended" : "active", i % 2 == 0, i / 3.0,
                                 (guint64) i << 33, (guint64) i);
          g_variant_ref_sink (row);
          g_variant_builder_add_value (&b, row);
          pp_device_rows_add_value (rows, row);
          g_variant_unref (row);
        }
      expected = g_variant_ref_sink (g_variant_builder_end (&b));
      got = g_variant_ref_sink (pp_device_rows_end_as (rows, G_VARIANT_TYPE (types[t])));

      assert_string_equal (g_variant_get_type_string (got), types[t]);
      assert_int_equal (g_variant_n_children (got), r->n_rows);
      assert_int_equal (g_variant_get_size (got), g_variant_get_size (expected));
      assert_memory_equal (g_variant_get_data (got), g_variant_get_data (expected),
                           g_variant_get_size (expected));
      assert_true (g_variant_equal (got, expected));
      untrusted = g_variant_ref_sink (g_variant_new_from_data (G_VARIANT_TYPE (types[t]),
                                                              g_variant_get_data (got),
                                                              g_variant_get_size (got),
                                                              FALSE, NULL, NULL));
      assert_true (g_variant_is_normal_form (untrusted));
    }
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (guint i = 0; i < G_N_ELEMENTS (size_rows); i++)
    pp_test_list_add (list, "rows", size_rows[i].name, test_rows_as_builder, NULL, NULL,
                      &size_rows[i]);
  for (guint i = 0; i < G_N_ELEMENTS (size_rows); i++)
    pp_test_list_add (list, "value-rows", size_rows[i].name, test_value_rows_as_builder, NULL,
                      NULL, &size_rows[i]);
  return pp_test_list_run (list, "device-row");
}
