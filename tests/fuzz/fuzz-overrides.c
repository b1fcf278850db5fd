/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The overrides state file: any bytes as the saved file, loaded as the
 * daemon loads it (a corrupt file is moved aside, with an error). Then the first line of
 * the input as a value for one key of a device: when it is accepted, a
 * fresh load gives it back (save → load → same). */
#include "config.h"

#include "fuzz-common.h"
#include "pp-overrides.h"

#define DEVICE "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *top = fuzz_get_dir ();
  g_autofree char *state = g_build_filename (top, "state", NULL);
  g_autofree char *file = g_build_filename (state, "overrides", NULL);
  static const char * const keys[] = { "Control", "AutosuspendDelayMs", "Wakeup" };
  g_autoptr(PpOverrides) o = NULL;
  g_autoptr(PpOverrides) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  const char *key;
  const char *nl;
  gboolean loaded;

  fuzz_init_logging ();
  g_mkdir_with_parents (state, 0700);
  fuzz_empty_dir (state);
  if (!g_file_set_contents (file, (const char *) data, (gssize) size, NULL))
    abort ();
  o = pp_overrides_new (state);
  /* a corrupt file is moved aside: FALSE with the reason, no overrides */
  loaded = pp_overrides_load (o, &error);
  FUZZ_ASSERT (loaded == (error == NULL));
  g_clear_error (&error);

  nl = memchr (data, '\n', size);
  value = g_strndup ((const char *) data, nl ? (size_t) (nl - (const char *) data) : size);
  key = keys[size % G_N_ELEMENTS (keys)];
  if (pp_overrides_set (o, DEVICE, key, value, &error))
    {
      const PpOverride *a = pp_overrides_lookup (o, DEVICE);
      const PpOverride *b;

      back = pp_overrides_new (state);
      FUZZ_ASSERT (pp_overrides_load (back, &error));
      FUZZ_ASSERT (error == NULL);
      b = pp_overrides_lookup (back, DEVICE);
      FUZZ_ASSERT (a != NULL && b != NULL);
      FUZZ_ASSERT (g_strcmp0 (a->control, b->control) == 0);
      FUZZ_ASSERT (a->delay_ms == b->delay_ms);
      FUZZ_ASSERT (g_strcmp0 (a->wakeup, b->wakeup) == 0);
    }
  fuzz_empty_dir (state);
  return 0;
}
