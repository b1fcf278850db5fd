/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The restore journal: any bytes as a record file of the runtime
 * directory, parsed from memory as pp_restore_load() parses each file.
 * Invariant: what was loaded, formatted as pp_restore_record() writes it,
 * parses back the same (record → load round-trips any path and value). */
#include "config.h"

#include "fuzz-common.h"
#include "pp-restore.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GPtrArray) loaded = NULL;
  g_autoptr(GPtrArray) reloaded = NULL;
  g_autofree char *text = NULL;

  fuzz_init_logging ();
  loaded = pp_restore_parse ("fuzz.orig", (const char *) data, size);
  FUZZ_ASSERT (loaded != NULL);

  text = pp_restore_format (loaded);
  reloaded = pp_restore_parse ("again.orig", text, strlen (text));
  FUZZ_ASSERT (reloaded->len == loaded->len);
  for (guint i = 0; i < loaded->len; i++)
    {
      PpOriginal *a = g_ptr_array_index (loaded, i);
      PpOriginal *b = g_ptr_array_index (reloaded, i);

      FUZZ_ASSERT (g_str_equal (a->path, b->path));
      FUZZ_ASSERT (g_str_equal (a->value, b->value));
    }
  return 0;
}
