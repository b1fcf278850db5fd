/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The last-known-working video quirks record: any bytes as the saved
 * file. Invariant: a record that loads, saved again, loads back to the
 * same text (save → load → same), and matches the facts it holds. */
#include "config.h"

#include "fuzz-common.h"
#include "pp-quirkdb.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  PpQuirkLkw lkw = { { 0 } };
  PpQuirkLkw back = { { 0 } };

  fuzz_init_logging ();
  if (pp_quirk_lkw_from_data (&lkw, text, NULL))
    {
      g_autofree char *saved = pp_quirk_lkw_to_data (&lkw.facts, (const char * const *) lkw.quirks);
      g_autofree char *saved_again = NULL;

      FUZZ_ASSERT (pp_quirk_lkw_from_data (&back, saved, NULL));
      saved_again = pp_quirk_lkw_to_data (&back.facts, (const char * const *) back.quirks);
      FUZZ_ASSERT (g_str_equal (saved, saved_again));
      FUZZ_ASSERT (g_strv_equal ((const char * const *) lkw.quirks, (const char * const *) back.quirks));
      FUZZ_ASSERT (pp_quirk_lkw_matches (&back, &lkw.facts));
    }
  pp_quirk_lkw_clear (&lkw);
  pp_quirk_lkw_clear (&back);
  return 0;
}
