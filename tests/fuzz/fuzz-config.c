/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration parser: any bytes as a powerpolicy.conf. Invariant:
 * every problem names the file and a line within it. */
#include "config.h"

#include "fuzz-common.h"
#include "pp-config.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(PpConfig) config = pp_config_new ();
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  guint lines = 1;

  fuzz_init_logging ();
  for (size_t i = 0; i < size; i++)
    lines += data[i] == '\n';
  pp_config_load_data (config, "fuzz.conf", (const char *) data, size, problems);
  for (guint i = 0; i < problems->len; i++)
    {
      PpConfigProblem *p = g_ptr_array_index (problems, i);
      g_autofree char *s = pp_config_problem_to_string (p);

      FUZZ_ASSERT (g_strcmp0 (p->file, "fuzz.conf") == 0);
      FUZZ_ASSERT (p->line <= lines);
      FUZZ_ASSERT (s != NULL);
    }
  return 0;
}
