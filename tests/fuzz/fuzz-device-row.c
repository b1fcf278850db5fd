/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The device dictionaries of ListDevices and GetDevice: any bytes as the
 * fields of up to 4 device rows (NUL-separated strings, any bytes,
 * invalid UTF-8 included; numbers and flags from the bytes), serialised
 * row by row into ListDevices' hand-framed aa{sv}. Invariants: the result
 * is an aa{sv} in GVariant's normal form, byte for byte what GLib's own
 * builder makes of the same rows, each row an a{sv} holding every key
 * with its type, and each string valid UTF-8 (what D-Bus requires). */
#include "config.h"

#include "fuzz-common.h"
#include "pp-device-row.h"
#include "pp-names.h"

#define MAX_ROWS 4
#define MAX_LIST 8

typedef struct {
  const char *data;
  size_t size;
  size_t pos;
} Input;

/* The next NUL-terminated string of the input (the rest, or "", at its
 * end): the input is copied with a final NUL so every piece ends. */
static const char *
next_string (Input *in)
{
  const char *s;

  if (in->pos >= in->size)
    return "";
  s = in->data + in->pos;
  in->pos += strlen (s) + 1;
  return s;
}

static guint8
next_byte (Input *in)
{
  const char *s = next_string (in);

  return (guint8) s[0];
}

static const char *const keys[][2] = {
  { PP_DEVICE_KEY_PATH, "s" }, { PP_DEVICE_KEY_SUBSYSTEM, "s" }, { PP_DEVICE_KEY_CLASS, "s" },
  { PP_DEVICE_KEY_DRIVER, "s" }, { PP_DEVICE_KEY_PARENT, "s" }, { PP_DEVICE_KEY_SUPPLIERS, "as" },
  { PP_DEVICE_KEY_CONSUMERS, "as" }, { PP_DEVICE_KEY_RUNTIME_STATUS, "s" },
  { PP_DEVICE_KEY_CONTROL, "s" }, { PP_DEVICE_KEY_AUTOSUSPEND_DELAY_MS, "i" },
  { PP_DEVICE_KEY_WAKEUP, "s" }, { PP_DEVICE_KEY_HELD, "b" }, { PP_DEVICE_KEY_BLOCKER, "s" },
  { PP_DEVICE_KEY_IGNORED, "b" }, { PP_DEVICE_KEY_EXCLUDED, "s" },
};

/* A row's a{sv}: every key once, with its type; every string in it
 * valid UTF-8 (what D-Bus requires). One pass over its entries, read
 * without format strings (GLib parses one per call, which cost more than
 * the code under test). */
static void
check_row (GVariant *dict, gint32 delay)
{
  guint seen = 0;
  GVariantIter iter;
  GVariant *entry;

  FUZZ_ASSERT (g_variant_n_children (dict) == G_N_ELEMENTS (keys));
  g_variant_iter_init (&iter, dict);
  while ((entry = g_variant_iter_next_value (&iter)) != NULL)
    {
      g_autoptr(GVariant) name = g_variant_get_child_value (entry, 0);
      g_autoptr(GVariant) boxed = g_variant_get_child_value (entry, 1);
      g_autoptr(GVariant) value = g_variant_get_variant (boxed);
      const char *key = g_variant_get_string (name, NULL);
      const char *type = g_variant_get_type_string (value);
      guint k = 0;

      g_variant_unref (entry);
      while (k < G_N_ELEMENTS (keys) && !g_str_equal (keys[k][0], key))
        k++;
      FUZZ_ASSERT (k < G_N_ELEMENTS (keys) && !(seen & (1u << k)));
      seen |= 1u << k;
      FUZZ_ASSERT (g_str_equal (type, keys[k][1]));
      if (g_str_equal (type, "s"))
        FUZZ_ASSERT (g_utf8_validate (g_variant_get_string (value, NULL), -1, NULL));
      else if (g_str_equal (type, "as"))
        {
          g_autofree const char **strv = g_variant_get_strv (value, NULL);

          for (guint i = 0; strv[i] != NULL; i++)
            FUZZ_ASSERT (g_utf8_validate (strv[i], -1, NULL));
        }
      else if (g_str_equal (type, "i"))
        FUZZ_ASSERT (g_variant_get_int32 (value) == delay);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *copy = g_malloc (size + 1);
  Input in = { copy, size + 1, 0 };
  PpDeviceRow rows[MAX_ROWS];
  const char *suppliers[MAX_ROWS][MAX_LIST];
  const char *consumers[MAX_ROWS][MAX_LIST];
  PpDeviceRows *framed;
  g_autoptr(GVariant) list = NULL;
  g_autoptr(GVariant) untrusted = NULL;
  GVariantBuilder reference;
  g_autoptr(GVariant) expected = NULL;
  guint n;

  fuzz_init_logging ();
  memcpy (copy, data, size);
  copy[size] = '\0';
  n = size == 0 ? 0 : data[0] % (MAX_ROWS + 1);
  in.pos = size == 0 ? 0 : 1;

  framed = pp_device_rows_new (n);
  g_variant_builder_init (&reference, G_VARIANT_TYPE ("aa{sv}"));
  for (guint r = 0; r < n; r++)
    {
      PpDeviceRow *row = &rows[r];
      guint8 counts = next_byte (&in);
      guint8 flags = next_byte (&in);
      const char *delay = next_string (&in);

      row->path = next_string (&in);
      row->subsystem = next_string (&in);
      row->class = next_string (&in);
      row->driver = next_string (&in);
      row->parent = next_string (&in);
      row->n_suppliers = counts % MAX_LIST;
      for (guint i = 0; i < row->n_suppliers; i++)
        suppliers[r][i] = next_string (&in);
      row->suppliers = suppliers[r];
      row->n_consumers = (counts / MAX_LIST) % MAX_LIST;
      for (guint i = 0; i < row->n_consumers; i++)
        consumers[r][i] = next_string (&in);
      row->consumers = consumers[r];
      row->runtime_status = next_string (&in);
      row->control = next_string (&in);
      row->autosuspend_delay_ms = (gint32) g_ascii_strtoll (delay, NULL, 0);
      row->wakeup = next_string (&in);
      row->held = (flags & 1) != 0;
      row->blocker = next_string (&in);
      row->ignored = (flags & 2) != 0;
      row->excluded = next_string (&in);

      pp_device_rows_add (framed, row);
      g_variant_builder_add_value (&reference, pp_device_row_to_variant (row));
    }
  list = g_variant_ref_sink (pp_device_rows_end (framed));
  expected = g_variant_ref_sink (g_variant_builder_end (&reference));

  FUZZ_ASSERT (g_variant_is_of_type (list, G_VARIANT_TYPE ("aa{sv}")));
  FUZZ_ASSERT (g_variant_n_children (list) == n);
  /* the hand-made framing is what GLib makes, in normal form */
  FUZZ_ASSERT (g_variant_get_size (list) == g_variant_get_size (expected));
  FUZZ_ASSERT (g_variant_get_size (list) == 0 ||
               memcmp (g_variant_get_data (list), g_variant_get_data (expected),
                       g_variant_get_size (list)) == 0);
  untrusted = g_variant_ref_sink (g_variant_new_from_data (G_VARIANT_TYPE ("aa{sv}"),
                                                           g_variant_get_data (list),
                                                           g_variant_get_size (list),
                                                           FALSE, NULL, NULL));
  /* (not g_variant_equal() of it and the reference as well: the bytes
   * are already the same, and for an untrusted value GLib compares the
   * two printed as text, which took a third of this target's time) */
  FUZZ_ASSERT (g_variant_is_normal_form (untrusted));

  for (guint r = 0; r < n; r++)
    {
      g_autoptr(GVariant) dict = g_variant_get_child_value (untrusted, r);

      check_row (dict, rows[r].autosuspend_delay_ms);
    }
  return 0;
}
