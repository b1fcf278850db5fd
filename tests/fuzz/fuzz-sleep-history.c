/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sleep history file (pp-sleep-record.c): any bytes as the saved
 * file. Invariants: never more than the ring holds, every string valid
 * UTF-8 and bounded, and what loads saves and loads back to the same
 * text (save → load → same). */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "pp-sleep-record.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GPtrArray) records = NULL;
  g_autoptr(GPtrArray) back = NULL;
  g_autofree char *saved = NULL;
  g_autofree char *saved_again = NULL;

  fuzz_init_logging ();
  records = pp_sleep_history_parse ((const char *) data, size, NULL);
  FUZZ_ASSERT (records->len <= PP_SLEEP_HISTORY_MAX);
  for (guint i = 0; i < records->len; i++)
    {
      PpSleepRecord *r = g_ptr_array_index (records, i);

      FUZZ_ASSERT (g_utf8_validate (r->state, -1, NULL) && strlen (r->state) <= PP_SLEEP_STRING_MAX);
      FUZZ_ASSERT (g_strv_length (r->woken_by) <= PP_SLEEP_LIST_MAX);
      FUZZ_ASSERT (g_strv_length (r->awake_devices) == g_strv_length (r->awake_blockers));
      g_variant_unref (g_variant_ref_sink (pp_sleep_record_to_variant (r)));
    }
  saved = pp_sleep_history_to_data (records);
  back = pp_sleep_history_parse (saved, strlen (saved), NULL);
  FUZZ_ASSERT (back->len == records->len);
  saved_again = pp_sleep_history_to_data (back);
  FUZZ_ASSERT (g_str_equal (saved, saved_again));
  return 0;
}
