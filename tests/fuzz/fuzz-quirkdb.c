/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The video quirk database: any bytes as a .quirkdb file, then the whole
 * selection on a few machines, one of them with the input's first line as
 * its product name (so the input's regexes also meet input values).
 * Invariants: every problem names the file and a line within it; a
 * selection always has a source and a summary. */
#include "config.h"

#include "fuzz-common.h"
#include "pp-config.h"
#include "pp-quirkdb.h"

static void
set (char **field, const char *value)
{
  g_free (*field);
  *field = g_strdup (value);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(PpQuirkDb) db = pp_quirkdb_new ();
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autofree char *first = NULL;
  const char *nl;
  guint lines;

  fuzz_init_logging ();
  lines = fuzz_count_lines (data, size);
  pp_quirkdb_add_file (db, "fuzz.quirkdb", (const char *) data, size, problems);
  for (guint i = 0; i < problems->len; i++)
    {
      PpConfigProblem *p = g_ptr_array_index (problems, i);

      FUZZ_ASSERT (g_strcmp0 (p->file, "fuzz.quirkdb") == 0);
      FUZZ_ASSERT (p->line >= 1 && p->line <= lines);
    }
  FUZZ_ASSERT (pp_quirkdb_get_n_files (db) == 1);

  nl = memchr (data, '\n', size);
  first = g_strndup ((const char *) data, MIN (nl ? (size_t) (nl - (const char *) data) : size, 255));
  for (guint m = 0; m < 3; m++)
    {
      g_autoptr(PpQuirkSelection) sel = NULL;
      g_autoptr(PpQuirkSelection) file_sel = NULL;
      PpMachineFacts f;

      pp_machine_facts_init (&f);
      set (&f.hardware_vendor, m == 0 ? "Dell Inc." : m == 1 ? "Hewlett-Packard" : "Fuzz");
      set (&f.hardware_product, m == 0 ? "Latitude D630" : m == 1 ? "HP Pavilion ze2000 (EK791EA#ABU)" : first);
      set (&f.firmware_version, m == 0 ? "A10" : "F.0D");
      set (&f.video_vendor, "0x8086");
      set (&f.video_product, "0x2a02");
      set (&f.kernel_version, "6.1.0");
      sel = pp_quirkdb_select (db, &f, NULL, NULL, NULL);
      FUZZ_ASSERT (sel != NULL && sel->summary != NULL);
      (void) pp_quirkdb_match_file (db, 0, &f, &file_sel);
      pp_machine_facts_clear (&f);
    }
  return 0;
}
