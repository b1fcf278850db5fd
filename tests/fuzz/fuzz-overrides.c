/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The overrides state file: any bytes as the saved file's contents, parsed
 * from memory as pp_overrides_load() parses the file (corrupt: FALSE with
 * an error, no overrides). Then the first line of the input as a value for
 * one key of a device: when it is accepted, the saved contents load back
 * the same (save → load → same). Nothing is written (dry-run). */
#include "config.h"

#include "fuzz-common.h"
#include "pp-overrides.h"

#define DEVICE "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const char * const keys[] = { "Control", "AutosuspendDelayMs", "Wakeup" };
  g_autoptr(PpOverrides) o = NULL;
  g_autoptr(PpOverrides) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  const char *key;
  const char *nl;
  gboolean loaded;

  fuzz_init_logging ();
  /* a state directory that is never created: nothing is saved */
  o = pp_overrides_new ("/nonexistent/powerpolicy-fuzz");
  pp_overrides_set_persist (o, FALSE);
  loaded = pp_overrides_load_data (o, (const char *) data, size, &error);
  FUZZ_ASSERT (loaded == (error == NULL));
  FUZZ_ASSERT (loaded || pp_overrides_lookup (o, DEVICE) == NULL);
  g_clear_error (&error);

  nl = memchr (data, '\n', size);
  value = g_strndup ((const char *) data, nl ? (size_t) (nl - (const char *) data) : size);
  key = keys[size % G_N_ELEMENTS (keys)];
  if (pp_overrides_set (o, DEVICE, key, value, &error))
    {
      const PpOverride *a = pp_overrides_lookup (o, DEVICE);
      const PpOverride *b;
      gsize length = 0;
      g_autofree char *saved = pp_overrides_to_data (o, &length);

      back = pp_overrides_new ("/nonexistent/powerpolicy-fuzz");
      FUZZ_ASSERT (pp_overrides_load_data (back, saved, length, &error));
      FUZZ_ASSERT (error == NULL);
      b = pp_overrides_lookup (back, DEVICE);
      FUZZ_ASSERT (a != NULL && b != NULL);
      FUZZ_ASSERT (g_strcmp0 (a->control, b->control) == 0);
      FUZZ_ASSERT (a->delay_ms == b->delay_ms);
      FUZZ_ASSERT (g_strcmp0 (a->wakeup, b->wakeup) == 0);
    }
  return 0;
}
