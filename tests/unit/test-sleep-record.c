/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sleep records (pp-sleep-record.c): counters that wrap or reset,
 * hardware sleep present or not, batteries with energy or charge only, a
 * failed sleep, the ring's bound and the file's bad and truncated lines. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-sleep-record.h"

typedef struct {
  PpSleepSnapshot before;
  PpSleepSnapshot after;
} Fixture;

static int
setup (void **state)
{
  Fixture *f = g_new0 (Fixture, 1);

  pp_sleep_snapshot_init (&f->before);
  pp_sleep_snapshot_init (&f->after);
  /* one hour asleep, 4th to 5th successful suspend */
  f->before.realtime_us = 1700000000000000;
  f->after.realtime_us = 1700003600000000;
  f->before.boottime_us = 1000000;
  f->after.boottime_us = 1000000 + (gint64) 3600 * G_USEC_PER_SEC;
  f->before.has_stats = f->after.has_stats = TRUE;
  f->before.success = 4;
  f->after.success = 5;
  g_free (f->before.mem_sleep);
  f->before.mem_sleep = g_strdup ("s2idle");
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  Fixture *f = *state;

  pp_sleep_snapshot_clear (&f->before);
  pp_sleep_snapshot_clear (&f->after);
  g_free (f);
  return 0;
}

/* ---- counters ----------------------------------------------------------- */

static void
test_counter_delta (void **state)
{
  (void) state;
  assert_int_equal (pp_sleep_counter_delta (4, 5, 32), 1);
  assert_int_equal (pp_sleep_counter_delta (7, 7, 32), 0);
  /* a 32-bit counter wrapped: 2^32 - 2 -> 3 is 5 steps */
  assert_int_equal (pp_sleep_counter_delta (G_GUINT64_CONSTANT (4294967294), 3, 32), 5);
  /* a counter far below its top that went down was reset: counts from 0 */
  assert_int_equal (pp_sleep_counter_delta (100, 3, 32), 3);
  /* 64 bits wrap too */
  assert_true (pp_sleep_counter_delta (G_MAXUINT64 - 1, 1, 64) == 3);
  /* a value larger than the counter can hold is no wrap */
  assert_int_equal (pp_sleep_counter_delta (G_GUINT64_CONSTANT (1) << 40, 2, 32), 2);
}

static void
test_counter_wrap_in_record (void **state)
{
  Fixture *f = *state;
  g_autoptr(PpSleepRecord) r = NULL;

  f->before.success = G_GUINT64_CONSTANT (4294967295);
  f->after.success = 0;
  r = pp_sleep_record_compute (&f->before, &f->after, NULL, NULL);
  assert_string_equal (r->state, "mem");
  assert_string_equal (r->result, "ok");
}

/* ---- hardware sleep ------------------------------------------------------- */

static void
test_hw_sleep_total (void **state)
{
  Fixture *f = *state;
  g_autoptr(PpSleepRecord) r = NULL;

  f->before.has_total_hw_sleep = f->after.has_total_hw_sleep = TRUE;
  f->before.has_last_hw_sleep = f->after.has_last_hw_sleep = TRUE;
  f->before.total_hw_sleep_us = 5000000;
  /* three s2idle rounds: the last one alone says 1 s */
  f->after.last_hw_sleep_us = 1000000;
  f->after.total_hw_sleep_us = 5000000 + (gint64) 1800 * G_USEC_PER_SEC;
  r = pp_sleep_record_compute (&f->before, &f->after, "mem", NULL);
  assert_float_equal (r->hw_sleep_share, 0.5, 1e-9);
  assert_int_equal (r->hw_sleep_ms, 1800000);
  assert_true (r->hw_sleep_reliable);
  assert_int_equal (r->duration_ms, 3600000);
  assert_true (r->start_us == 1700000000000000);
  assert_true (r->end_us == 1700003600000000);
}

static void
test_hw_sleep_absent (void **state)
{
  Fixture *f = *state;
  g_autoptr(PpSleepRecord) r = pp_sleep_record_compute (&f->before, &f->after, "mem", NULL);

  assert_float_equal (r->hw_sleep_share, -1, 0);
  assert_false (r->hw_sleep_reliable);
}

static void
test_hw_sleep_last_only_and_unreliable (void **state)
{
  Fixture *f = *state;
  g_autoptr(PpSleepRecord) r = NULL;

  /* two hours: longer than 2^32 µs */
  f->after.boottime_us = f->before.boottime_us + (gint64) 7200 * G_USEC_PER_SEC;
  f->after.has_last_hw_sleep = TRUE;
  f->after.last_hw_sleep_us = (gint64) 3600 * G_USEC_PER_SEC;
  r = pp_sleep_record_compute (&f->before, &f->after, "mem", NULL);
  assert_float_equal (r->hw_sleep_share, 0.5, 1e-9);
  assert_false (r->hw_sleep_reliable);
  pp_sleep_record_free (g_steal_pointer (&r));

  /* the kernel's max_hw_sleep, when it has one, is the bound */
  f->after.max_hw_sleep_us = G_GUINT64_CONSTANT (1) << 40;
  r = pp_sleep_record_compute (&f->before, &f->after, "mem", NULL);
  assert_true (r->hw_sleep_reliable);
}

static void
test_hw_share_clamped (void **state)
{
  Fixture *f = *state;
  g_autoptr(PpSleepRecord) r = NULL;

  f->after.has_last_hw_sleep = TRUE;
  f->after.last_hw_sleep_us = (gint64) 4000 * G_USEC_PER_SEC;
  r = pp_sleep_record_compute (&f->before, &f->after, "mem", NULL);
  assert_float_equal (r->hw_sleep_share, 1.0, 0);
}

/* ---- battery ------------------------------------------------------------- */

static void
test_battery_mwh (void **state)
{
  (void) state;
  assert_float_equal (pp_sleep_battery_mwh ("50000000", NULL, NULL, NULL), 50000, 1e-9);
  /* charge only: 4 Ah at 12 V */
  assert_float_equal (pp_sleep_battery_mwh (NULL, "4000000", "12000000", NULL), 48000, 1e-6);
  /* voltage_now 0 or absent: the design minimum */
  assert_float_equal (pp_sleep_battery_mwh (NULL, "4000000", "0", "11000000"), 44000, 1e-6);
  assert_float_equal (pp_sleep_battery_mwh (NULL, "4000000", NULL, NULL), -1, 0);
  assert_float_equal (pp_sleep_battery_mwh ("garbage", NULL, NULL, NULL), -1, 0);
  assert_float_equal (pp_sleep_battery_mwh ("-5", "x", "1", "1"), -1, 0);
}

static void
test_drain (void **state)
{
  Fixture *f = *state;
  g_autoptr(PpSleepRecord) r = NULL;

  f->before.energy_mwh = 50000;
  f->after.energy_mwh = 49500;
  f->before.energy_full_mwh = 60000;
  r = pp_sleep_record_compute (&f->before, &f->after, "mem", NULL);
  /* 500 mWh in one hour */
  assert_float_equal (r->drain_mw, 500, 1e-9);
  assert_float_equal (r->drain_percent_per_hour, 500.0 / 60000 * 100, 1e-9);
  pp_sleep_record_free (g_steal_pointer (&r));

  /* unknown after: no drain, the energy says why */
  f->after.energy_mwh = -1;
  r = pp_sleep_record_compute (&f->before, &f->after, "mem", NULL);
  assert_float_equal (r->energy_after_mwh, -1, 0);
  assert_float_equal (r->drain_mw, 0, 0);
  assert_float_equal (r->drain_percent_per_hour, 0, 0);
}

/* ---- failures --------------------------------------------------------------- */

static void
test_failed_with_device (void **state)
{
  Fixture *f = *state;
  g_autoptr(PpSleepRecord) r = NULL;

  f->after.success = 4;
  f->after.fail = 1;
  g_free (f->after.last_failed_dev);
  f->after.last_failed_dev = g_strdup ("0000:00:14.0");
  g_free (f->after.last_failed_step);
  f->after.last_failed_step = g_strdup ("suspend");
  f->after.last_failed_errno = -16;
  r = pp_sleep_record_compute (&f->before, &f->after, NULL, NULL);
  assert_string_equal (r->result, "failed");
  assert_string_equal (r->state, "mem");
  assert_string_equal (r->failed_step, "suspend");
  assert_string_equal (r->failed_device, "0000:00:14.0");
  assert_int_equal (r->failed_errno, -16);
}

static void
test_failed_freeze_keeps_old_device_out (void **state)
{
  Fixture *f = *state;
  g_autoptr(PpSleepRecord) r = NULL;

  /* an older failure's device, a task that would not freeze now */
  g_free (f->before.last_failed_dev);
  f->before.last_failed_dev = g_strdup ("1-1.2");
  g_free (f->after.last_failed_dev);
  f->after.last_failed_dev = g_strdup ("1-1.2");
  g_free (f->after.last_failed_step);
  f->after.last_failed_step = g_strdup ("freeze");
  f->after.success = 4;
  f->after.fail = 1;
  r = pp_sleep_record_compute (&f->before, &f->after, "mem", NULL);
  assert_string_equal (r->result, "failed");
  assert_string_equal (r->failed_step, "freeze");
  assert_string_equal (r->failed_device, "");
}

static void
test_write_error_fails (void **state)
{
  Fixture *f = *state;
  g_autoptr(PpSleepRecord) r = NULL;

  f->after.success = 4;
  r = pp_sleep_record_compute (&f->before, &f->after, "disk", "cannot write 'disk': Device or resource busy");
  assert_string_equal (r->result, "failed");
  assert_string_equal (r->state, "disk");
  assert_string_equal (r->error, "cannot write 'disk': Device or resource busy");
  assert_string_equal (r->failed_step, "");
}

static void
test_logind_unknown_state (void **state)
{
  Fixture *f = *state;
  g_autoptr(PpSleepRecord) r = NULL;

  /* hibernation does not move the suspend counters */
  f->after.success = 4;
  r = pp_sleep_record_compute (&f->before, &f->after, NULL, NULL);
  assert_string_equal (r->state, "unknown");
  assert_string_equal (r->result, "ok");
}

/* ---- wake sources and awake devices ------------------------------------------ */

static void
test_woken_by (void **state)
{
  Fixture *f = *state;
  PpWakeCount ev5 = { FALSE, 0, TRUE, 5 }, ev6 = { FALSE, 0, TRUE, 6 };
  PpWakeCount w0 = { TRUE, 0, TRUE, 2 }, w1 = { TRUE, 1, TRUE, 3 };
  g_autoptr(PpSleepRecord) r = NULL;

  pp_sleep_snapshot_add_wake (&f->before, "/sys/devices/pci0000:00/0000:00:14.0", &ev5);
  pp_sleep_snapshot_add_wake (&f->after, "/sys/devices/pci0000:00/0000:00:14.0", &ev6);
  r = pp_sleep_record_compute (&f->before, &f->after, "mem", NULL);
  /* no wakeup_count grew: the event counts tell */
  assert_int_equal (g_strv_length (r->woken_by), 1);
  assert_string_equal (r->woken_by[0], "/sys/devices/pci0000:00/0000:00:14.0");
  pp_sleep_record_free (g_steal_pointer (&r));

  /* a wakeup_count that grew wins over event counts */
  pp_sleep_snapshot_add_wake (&f->before, "PNP0C0D:00", &w0);
  pp_sleep_snapshot_add_wake (&f->after, "PNP0C0D:00", &w1);
  r = pp_sleep_record_compute (&f->before, &f->after, "mem", NULL);
  assert_int_equal (g_strv_length (r->woken_by), 1);
  assert_string_equal (r->woken_by[0], "PNP0C0D:00");
}

static void
test_lists_bounded (void **state)
{
  Fixture *f = *state;
  g_autoptr(PpSleepRecord) r = NULL;
  g_autoptr(GString) longname = g_string_new ("/sys/devices/");

  for (guint i = 0; i < 1000; i++)
    g_string_append (longname, "é");
  for (guint i = 0; i < 100; i++)
    {
      PpWakeCount a = { TRUE, 0, FALSE, 0 }, b = { TRUE, 1, FALSE, 0 };
      g_autofree char *name = g_strdup_printf ("source%03u", i);

      pp_sleep_snapshot_add_wake (&f->before, name, &a);
      pp_sleep_snapshot_add_wake (&f->after, name, &b);
      g_ptr_array_add (f->before.awake_devices, g_strdup (longname->str));
      g_ptr_array_add (f->before.awake_blockers, g_strdup (""));
    }
  r = pp_sleep_record_compute (&f->before, &f->after, "mem", NULL);
  assert_int_equal (g_strv_length (r->woken_by), PP_SLEEP_LIST_MAX);
  assert_int_equal (g_strv_length (r->awake_devices), PP_SLEEP_LIST_MAX);
  assert_int_equal (g_strv_length (r->awake_blockers), PP_SLEEP_LIST_MAX);
  assert_true (strlen (r->awake_devices[0]) <= PP_SLEEP_STRING_MAX);
  assert_true (g_utf8_validate (r->awake_devices[0], -1, NULL));
}

/* ---- the file ------------------------------------------------------------------- */

static PpSleepRecord *
sample_record (guint64 start)
{
  PpSleepRecord *r = pp_sleep_record_new ();
  const char *woken[] = { "/sys/devices/pci0000:00/0000:00:14.0", "ACPI SCI,=%", NULL };
  const char *awake[] = { "/sys/devices/a", "-", NULL };
  const char *blockers[] = { "", "/sys/devices/a b", NULL };

  r->start_us = start;
  r->end_us = start + 1000;
  r->duration_ms = 12345;
  g_free (r->mem_sleep);
  r->mem_sleep = g_strdup ("deep");
  g_free (r->state);
  r->state = g_strdup ("mem");
  r->hw_sleep_share = 0.25;
  r->hw_sleep_reliable = TRUE;
  r->energy_before_mwh = 50000.5;
  r->energy_after_mwh = 49000;
  r->drain_mw = -3.5;
  g_free (r->wake_irq);
  r->wake_irq = g_strdup ("9");
  g_strfreev (r->woken_by);
  r->woken_by = g_strdupv ((char **) woken);
  g_strfreev (r->awake_devices);
  r->awake_devices = g_strdupv ((char **) awake);
  g_strfreev (r->awake_blockers);
  r->awake_blockers = g_strdupv ((char **) blockers);
  return r;
}

static void
assert_records_equal (const PpSleepRecord *a, const PpSleepRecord *b)
{
  g_autoptr(GVariant) va = g_variant_ref_sink (pp_sleep_record_to_variant (a));
  g_autoptr(GVariant) vb = g_variant_ref_sink (pp_sleep_record_to_variant (b));

  assert_true (g_variant_equal (va, vb));
}

static void
test_line_round_trip (void **state)
{
  g_autoptr(PpSleepRecord) r = sample_record (1700000000000000);
  g_autofree char *line = pp_sleep_record_to_line (r);
  g_autoptr(GError) error = NULL;
  g_autoptr(PpSleepRecord) back = pp_sleep_record_from_line (line, &error);

  (void) state;
  assert_null (strchr (line, '\n'));
  assert_non_null (back);
  assert_records_equal (r, back);
}

static void
test_bad_lines (void **state)
{
  static const char * const bad[] = {
    "",
    "v2 start=1 duration_ms=1 state=mem result=ok",
    "v1 duration_ms=1 state=mem result=ok",                   /* start missing */
    "v1 start=1 duration_ms=x state=mem result=ok",
    "v1 start=1 duration_ms=1 state=mem result=maybe",
    "v1 start=1 duration_ms=1 state=mem result=ok start=2",
    "v1 start=1 duration_ms=1 state=m%zz result=ok",
    "v1 start=1 duration_ms=1 state=m%00 result=ok",
    "v1 start=1 duration_ms=1 state=mem result=ok hw_sleep_share=2",
    "v1 start=1 duration_ms=1 state=mem result=ok hw_sleep_share=nan",
    "v1 start=1 duration_ms=1 state=mem result=ok awake_devices=a,b awake_blockers=-",
    "v1 start=1 duration_ms=1 state=mem result=ok garbage",
    "v1 start=-1 duration_ms=1 state=mem result=ok",
  };

  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PpSleepRecord) r = pp_sleep_record_from_line (bad[i], &error);

      if (r != NULL)
        fail_msg ("accepted: %s", bad[i]);
      assert_non_null (error);
    }
}

static void
test_unknown_fields_ignored (void **state)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PpSleepRecord) r =
    pp_sleep_record_from_line ("v1 start=1 duration_ms=2 state=mem result=failed future_key=7", &error);

  (void) state;
  assert_non_null (r);
  assert_string_equal (r->result, "failed");
  assert_float_equal (r->hw_sleep_share, -1, 0);
}

static void
test_ring_bound_and_truncated_file (void **state)
{
  g_autoptr(GPtrArray) records = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_sleep_record_free);
  g_autoptr(GPtrArray) parsed = NULL;
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *data = NULL;
  g_autoptr(GString) damaged = NULL;

  (void) state;
  for (guint i = 0; i < PP_SLEEP_HISTORY_MAX + 20; i++)
    pp_sleep_history_push (records, sample_record (1000 + i));
  assert_int_equal (records->len, PP_SLEEP_HISTORY_MAX);
  /* the oldest went */
  assert_true (((PpSleepRecord *) g_ptr_array_index (records, 0))->start_us == 1020);

  data = pp_sleep_history_to_data (records);
  parsed = pp_sleep_history_parse (data, strlen (data), problems);
  assert_int_equal (parsed->len, PP_SLEEP_HISTORY_MAX);
  assert_int_equal (problems->len, 0);
  assert_records_equal (g_ptr_array_index (parsed, 99), g_ptr_array_index (records, 99));
  g_clear_pointer (&parsed, g_ptr_array_unref);

  /* a bad line, a NUL byte, and the last record cut short */
  damaged = g_string_new (data);
  g_string_insert (damaged, strchr (damaged->str, '\n') - damaged->str + 1, "v1 what\n");
  g_string_insert_len (damaged, strchr (damaged->str, '\n') - damaged->str + 1, "v1 \0x\n", 6);
  g_string_truncate (damaged, damaged->len - 30);
  parsed = pp_sleep_history_parse (damaged->str, damaged->len, problems);
  assert_int_equal (parsed->len, PP_SLEEP_HISTORY_MAX - 1);
  assert_int_equal (problems->len, 3);
  assert_string_equal (g_ptr_array_index (problems, 0), "line 2: NUL byte");
  assert_true (g_str_has_prefix (g_ptr_array_index (problems, 1), "line 3: "));
  assert_string_equal (g_ptr_array_index (problems, 2), "line 103: truncated record");
}

static void
test_variant_keys (void **state)
{
  static const char * const keys[] = {
    "start", "duration_ms", "state", "mem_sleep", "result", "failed_step", "failed_device",
    "hw_sleep_share", "hw_sleep_reliable", "energy_before_mwh", "energy_after_mwh",
    "drain_mw", "drain_percent_per_hour", "wake_irq", "woken_by", "awake_devices",
  };
  static const char * const types[] = {
    "t", "t", "s", "s", "s", "s", "s", "d", "b", "d", "d", "d", "d", "s", "as", "as",
  };
  g_autoptr(PpSleepRecord) r = sample_record (5);
  g_autoptr(GVariant) v = g_variant_ref_sink (pp_sleep_record_to_variant (r));

  (void) state;
  /* the keys of org.powerpolicy1.Manager.xml, GetSleepHistory, with their types
   */
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_autoptr(GVariant) value = g_variant_lookup_value (v, keys[i], NULL);

      if (value == NULL)
        fail_msg ("no key %s", keys[i]);
      assert_string_equal (g_variant_get_type_string (value), types[i]);
    }
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  pp_test_list_add (list, "sleep-record", "counter-delta", test_counter_delta, NULL, NULL, NULL);
  pp_test_list_add (list, "sleep-record", "counter-wrap-in-record", test_counter_wrap_in_record, setup, teardown, NULL);
  pp_test_list_add (list, "sleep-record", "hw-sleep-total", test_hw_sleep_total, setup, teardown, NULL);
  pp_test_list_add (list, "sleep-record", "hw-sleep-absent", test_hw_sleep_absent, setup, teardown, NULL);
  pp_test_list_add (list, "sleep-record", "hw-sleep-last-only-unreliable", test_hw_sleep_last_only_and_unreliable, setup, teardown, NULL);
  pp_test_list_add (list, "sleep-record", "hw-share-clamped", test_hw_share_clamped, setup, teardown, NULL);
  pp_test_list_add (list, "sleep-record", "battery-mwh", test_battery_mwh, NULL, NULL, NULL);
  pp_test_list_add (list, "sleep-record", "drain", test_drain, setup, teardown, NULL);
  pp_test_list_add (list, "sleep-record", "failed-with-device", test_failed_with_device, setup, teardown, NULL);
  pp_test_list_add (list, "sleep-record", "failed-freeze-old-device", test_failed_freeze_keeps_old_device_out, setup, teardown, NULL);
  pp_test_list_add (list, "sleep-record", "write-error-fails", test_write_error_fails, setup, teardown, NULL);
  pp_test_list_add (list, "sleep-record", "logind-unknown-state", test_logind_unknown_state, setup, teardown, NULL);
  pp_test_list_add (list, "sleep-record", "woken-by", test_woken_by, setup, teardown, NULL);
  pp_test_list_add (list, "sleep-record", "lists-bounded", test_lists_bounded, setup, teardown, NULL);
  pp_test_list_add (list, "sleep-record", "line-round-trip", test_line_round_trip, NULL, NULL, NULL);
  pp_test_list_add (list, "sleep-record", "bad-lines", test_bad_lines, NULL, NULL, NULL);
  pp_test_list_add (list, "sleep-record", "unknown-fields-ignored", test_unknown_fields_ignored, NULL, NULL, NULL);
  pp_test_list_add (list, "sleep-record", "ring-bound-truncated-file", test_ring_bound_and_truncated_file, NULL, NULL, NULL);
  pp_test_list_add (list, "sleep-record", "variant-keys", test_variant_keys, NULL, NULL, NULL);
  return pp_test_list_run (list, "sleep-record");
}
