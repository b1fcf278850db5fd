/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The restore journal: any bytes as a record file of the runtime
 * directory, loaded as a restarted daemon loads it. Invariant: what was
 * loaded, recorded again into a fresh journal, loads back the same
 * (record → load round-trips any path and value). */
#include "config.h"

#include "fuzz-common.h"
#include "pp-restore.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *top = fuzz_get_dir ();
  g_autofree char *in_dir = g_build_filename (top, "in", NULL);
  g_autofree char *in_originals = g_build_filename (in_dir, "originals", NULL);
  g_autofree char *file = g_build_filename (in_originals, "0000000000000001-000000-1.orig", NULL);
  g_autofree char *out_dir = g_build_filename (top, "out", NULL);
  g_autoptr(PpRestore) in = NULL;
  g_autoptr(PpRestore) out = NULL;
  g_autoptr(PpRestore) again = NULL;
  g_autoptr(GPtrArray) loaded = NULL;
  g_autoptr(GPtrArray) reloaded = NULL;
  g_autoptr(GError) error = NULL;

  fuzz_init_logging ();
  g_mkdir_with_parents (in_originals, 0700);
  if (!g_file_set_contents (file, (const char *) data, (gssize) size, NULL))
    abort ();
  in = pp_restore_new (in_dir);
  FUZZ_ASSERT (pp_restore_has_leftover (in));
  loaded = pp_restore_load (in);
  FUZZ_ASSERT (loaded != NULL);

  out = pp_restore_new (out_dir);
  pp_restore_clear (out);
  FUZZ_ASSERT (pp_restore_record (out, loaded, &error));
  again = pp_restore_new (out_dir);
  reloaded = pp_restore_load (again);
  FUZZ_ASSERT (reloaded->len == loaded->len);
  for (guint i = 0; i < loaded->len; i++)
    {
      PpOriginal *a = g_ptr_array_index (loaded, i);
      PpOriginal *b = g_ptr_array_index (reloaded, i);

      FUZZ_ASSERT (g_str_equal (a->path, b->path));
      FUZZ_ASSERT (g_str_equal (a->value, b->value));
    }
  pp_restore_clear (out);
  g_unlink (file);
  return 0;
}
