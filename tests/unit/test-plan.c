/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the planner (pp-plan.c): current values and originals
 * come from tables, no sysfs. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-config.h"
#include "pp-plan.h"

#define DEV "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2"

/* path -> current value; UNREADABLE marks a present, unreadable one */
#define UNREADABLE "\x01"

typedef struct {
  GHashTable *current;
  GHashTable *originals;
} Values;

static void
put (GHashTable *table, const char *key, const char *value)
{
  g_hash_table_insert (table, (gpointer) key, (gpointer) value);
}

static char *
read_table (const char *path, gboolean *unreadable, gpointer user_data)
{
  Values *v = user_data;
  const char *value = g_hash_table_lookup (v->current, path);

  if (value == NULL)
    return NULL;
  if (g_str_equal (value, UNREADABLE))
    {
      *unreadable = TRUE;
      return g_strdup ("");
    }
  return g_strdup (value);
}

static const char *
original_table (const char *path, gpointer user_data)
{
  Values *v = user_data;

  return g_hash_table_lookup (v->originals, path);
}

static Values *
values_new (void)
{
  Values *v = g_new0 (Values, 1);

  v->current = g_hash_table_new (g_str_hash, g_str_equal);
  v->originals = g_hash_table_new (g_str_hash, g_str_equal);
  return v;
}

static void
values_free (Values *v)
{
  g_hash_table_unref (v->current);
  g_hash_table_unref (v->originals);
  g_free (v);
}

static GPtrArray *
settings (const char *first_key, ...)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_setting_free);
  va_list ap;

  va_start (ap, first_key);
  for (const char *key = first_key; key != NULL; key = va_arg (ap, const char *))
    g_ptr_array_add (out, pp_setting_new (key, va_arg (ap, const char *)));
  va_end (ap);
  return out;
}

static PpPlanWrite *
entry (GPtrArray *plan, guint i)
{
  assert_true (i < plan->len);
  return g_ptr_array_index (plan, i);
}

/* Settings in the order given; a missing attribute has no entry; one in
 * place is kept but marked so. */
static void
test_settings_in_order (void **state)
{
  Values *v = values_new ();
  PpPlanValues values = { read_table, original_table, v };
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  g_autoptr(GPtrArray) s = settings ("power/control", "auto",
                                     "power/autosuspend_delay_ms", "2000",
                                     "power/wakeup", "disabled", NULL);
  int dev_tag;

  put (v->current, DEV "/power/control", "on");
  put (v->current, DEV "/power/autosuspend_delay_ms", "2000");
  pp_plan_settings (plan, &dev_tag, DEV, s, NULL, &values);

  assert_int_equal (plan->len, 2);
  assert_string_equal (entry (plan, 0)->path, DEV "/power/control");
  assert_string_equal (entry (plan, 0)->relpath, "power/control");
  assert_string_equal (entry (plan, 0)->dir, DEV);
  assert_string_equal (entry (plan, 0)->value, "auto");
  assert_string_equal (entry (plan, 0)->current, "on");
  assert_ptr_equal (entry (plan, 0)->dev, &dev_tag);
  assert_false (entry (plan, 0)->in_place);
  assert_string_equal (entry (plan, 1)->relpath, "power/autosuspend_delay_ms");
  assert_true (entry (plan, 1)->in_place);
  assert_int_equal (pp_plan_count_writes (plan), 1);
  values_free (v);
}

/* An unreadable attribute is written and never counted as in place. */
static void
test_unreadable_is_written (void **state)
{
  Values *v = values_new ();
  PpPlanValues values = { read_table, original_table, v };
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  g_autoptr(GPtrArray) s = settings ("power/control", "", NULL);

  put (v->current, DEV "/power/control", UNREADABLE);
  pp_plan_settings (plan, NULL, DEV, s, NULL, &values);
  assert_int_equal (plan->len, 1);
  assert_true (entry (plan, 0)->unreadable);
  assert_false (entry (plan, 0)->in_place);
  assert_string_equal (entry (plan, 0)->current, "");
  values_free (v);
}

/* What this run changed and the layers no longer set goes back to its
 * original, after the settings, in relpath order; what has no original
 * or is still set stays out. */
static void
test_reverts_to_originals (void **state)
{
  Values *v = values_new ();
  PpPlanValues values = { read_table, original_table, v };
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  g_autoptr(GPtrArray) s = settings ("power/control", "auto", NULL);
  g_autoptr(GHashTable) touched = g_hash_table_new (g_str_hash, g_str_equal);

  g_hash_table_add (touched, (gpointer) "power/wakeup");
  g_hash_table_add (touched, (gpointer) "power/control");
  g_hash_table_add (touched, (gpointer) "power/autosuspend_delay_ms");
  g_hash_table_add (touched, (gpointer) "link_power_management_policy");
  put (v->current, DEV "/power/control", "on");
  put (v->current, DEV "/power/wakeup", "disabled");
  put (v->current, DEV "/power/autosuspend_delay_ms", "0");
  put (v->originals, DEV "/power/wakeup", "enabled");
  put (v->originals, DEV "/power/control", "on");
  put (v->originals, DEV "/power/autosuspend_delay_ms", "0");
  /* journalled but gone from the device: no entry */
  put (v->originals, DEV "/link_power_management_policy", "max_performance");

  pp_plan_settings (plan, NULL, DEV, s, touched, &values);
  assert_int_equal (plan->len, 3);
  assert_string_equal (entry (plan, 0)->relpath, "power/control");
  assert_string_equal (entry (plan, 0)->value, "auto");
  assert_string_equal (entry (plan, 1)->relpath, "power/autosuspend_delay_ms");
  assert_true (entry (plan, 1)->in_place);
  assert_string_equal (entry (plan, 2)->relpath, "power/wakeup");
  assert_string_equal (entry (plan, 2)->value, "enabled");
  assert_string_equal (entry (plan, 2)->current, "disabled");
  assert_int_equal (pp_plan_count_writes (plan), 2);
  values_free (v);
}

/* An extra write: no directory, flags kept, never in place. */
static void
test_extra_write (void **state)
{
  g_autoptr(GPtrArray) plan = pp_plan_new ();

  g_ptr_array_add (plan, pp_plan_write_new (NULL, "/sys/power/mem_sleep", "/sys/power/mem_sleep",
                                            "deep", "s2idle", PP_PLAN_CHOICE));
  assert_null (entry (plan, 0)->dir);
  assert_int_equal (entry (plan, 0)->flags, PP_PLAN_CHOICE);
  assert_false (entry (plan, 0)->in_place);
  assert_int_equal (pp_plan_count_writes (plan), 1);
}

/* A layer's request: a setting in place needs nothing, an action is
 * always planned; the device is named for its own attributes only. */
static void
test_requests (void **state)
{
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  int dev_tag;

  assert_false (pp_plan_request (plan, PP_PLAN_LAYER_SLEEP, NULL, NULL, "/sys/power/mem_sleep",
                                 "deep", "deep", PP_PLAN_CHOICE));
  assert_int_equal (plan->len, 0);
  assert_true (pp_plan_request (plan, PP_PLAN_LAYER_SLEEP, NULL, NULL, "/sys/power/state",
                                "mem", "mem", PP_PLAN_ACTION));
  assert_true (pp_plan_request (plan, PP_PLAN_LAYER_POWER_OFF, &dev_tag, DEV, DEV "/power/control",
                                "auto", "on", PP_PLAN_SETTING));
  /* the hub's port switch: not the device's own attribute */
  assert_true (pp_plan_request (plan, PP_PLAN_LAYER_POWER_OFF, &dev_tag, DEV,
                                DEV "-port1/disable", "1", "0", PP_PLAN_SETTING));
  assert_int_equal (plan->len, 3);
  assert_int_equal (entry (plan, 0)->layer, PP_PLAN_LAYER_SLEEP);
  assert_int_equal (entry (plan, 0)->flags, PP_PLAN_ACTION);
  assert_null (entry (plan, 0)->dir);
  assert_ptr_equal (entry (plan, 1)->dev, &dev_tag);
  assert_string_equal (entry (plan, 1)->relpath, "power/control");
  assert_string_equal (entry (plan, 1)->current, "on");
  assert_null (entry (plan, 2)->dev);
  assert_string_equal (entry (plan, 2)->relpath, DEV "-port1/disable");
  assert_string_equal (pp_plan_layer_to_string (entry (plan, 2)->layer), "power-off");
}

/* The standing requests of the sleep, lid and power-off layers: kept
 * one per path, planned again by every pass while in force (a value
 * changed behind the daemon's back is planned back; one in place needs
 * nothing), gone from the plans once withdrawn. */
static char *
read_request (const char *path, PpPlanFlags flags, gpointer user_data)
{
  Values *v = user_data;
  const char *value = g_hash_table_lookup (v->current, path);

  return g_strdup (value);
}

static gpointer
device_of (const char *syspath, gpointer user_data)
{
  return g_str_equal (syspath, DEV) ? (gpointer) DEV : NULL;
}

static void
test_standing_requests (void **state)
{
  Values *v = values_new ();
  PpPlanRequestValues values = { read_request, device_of, v };
  g_autoptr(GPtrArray) requests = pp_plan_requests_new ();
  const char *bl = "/sys/devices/pci0000:00/0000:00:02.0/drm/card0/card0-eDP-1/intel_backlight/bl_power";
  const char *port = DEV "/1-2:1.0/port1/disable";

  put (v->current, "/sys/power/mem_sleep", "deep");
  put (v->current, bl, "0");
  put (v->current, port, "0");
  /* an action is never standing */
  assert_null (pp_plan_request_new (PP_PLAN_LAYER_SLEEP, NULL, "/sys/power/state", "mem",
                                    PP_PLAN_ACTION));
  pp_plan_requests_set (requests, pp_plan_request_new (PP_PLAN_LAYER_SLEEP, NULL,
                                                       "/sys/power/mem_sleep", "deep",
                                                       PP_PLAN_CHOICE));
  pp_plan_requests_set (requests, pp_plan_request_new (PP_PLAN_LAYER_LID, NULL, bl, "4",
                                                       PP_PLAN_SETTING));
  pp_plan_requests_set (requests, pp_plan_request_new (PP_PLAN_LAYER_POWER_OFF, DEV, port, "1",
                                                       PP_PLAN_SETTING));
  assert_int_equal (requests->len, 3);

  /* every pass: what is not in place, in the order asked */
  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr(GPtrArray) plan = pp_plan_new ();

      pp_plan_requests (plan, requests, &values);
      assert_int_equal (plan->len, 2);
      assert_int_equal (entry (plan, 0)->layer, PP_PLAN_LAYER_LID);
      assert_string_equal (entry (plan, 0)->path, bl);
      assert_string_equal (entry (plan, 0)->value, "4");
      assert_string_equal (entry (plan, 0)->current, "0");
      assert_null (entry (plan, 0)->dev);
      assert_int_equal (entry (plan, 1)->layer, PP_PLAN_LAYER_POWER_OFF);
      assert_ptr_equal (entry (plan, 1)->dev, DEV);
      assert_string_equal (entry (plan, 1)->relpath, "1-2:1.0/port1/disable");
      assert_int_equal (entry (plan, 1)->flags, PP_PLAN_SETTING);
    }

  /* written: nothing to plan; changed behind the daemon's back: planned back */
  put (v->current, bl, "4");
  put (v->current, port, "1");
  {
    g_autoptr(GPtrArray) plan = pp_plan_new ();

    pp_plan_requests (plan, requests, &values);
    assert_int_equal (plan->len, 0);
    put (v->current, "/sys/power/mem_sleep", "s2idle");
    pp_plan_requests (plan, requests, &values);
    assert_int_equal (plan->len, 1);
    assert_string_equal (entry (plan, 0)->value, "deep");
    assert_int_equal (entry (plan, 0)->flags, PP_PLAN_CHOICE);
  }

  /* a new request for a path replaces the old one in its place; a
   * withdrawn one is planned no more; a path that cannot be read is
   * skipped */
  pp_plan_requests_set (requests, pp_plan_request_new (PP_PLAN_LAYER_LID, NULL, bl, "0",
                                                       PP_PLAN_SETTING));
  assert_int_equal (requests->len, 3);
  assert_string_equal (pp_plan_requests_lookup (requests, bl)->value, "0");
  assert_ptr_equal (g_ptr_array_index (requests, 1), pp_plan_requests_lookup (requests, bl));
  assert_true (pp_plan_requests_withdraw (requests, bl));
  assert_false (pp_plan_requests_withdraw (requests, bl));
  assert_null (pp_plan_requests_lookup (requests, bl));
  g_hash_table_remove (v->current, port);
  put (v->current, "/sys/power/mem_sleep", "deep");
  {
    g_autoptr(GPtrArray) plan = pp_plan_new ();

    put (v->current, bl, "1");
    pp_plan_requests (plan, requests, &values);
    assert_int_equal (plan->len, 0);
  }
  values_free (v);
}

/* The standing requests planned from values read before planning: a
 * path recorded absent or unreadable is skipped, a device named only
 * when one was recorded for its syspath. */
static void
test_requests_read_before (void **state)
{
  g_autoptr(PpPlanCurrent) current = pp_plan_current_new (NULL, NULL);
  g_autoptr(GPtrArray) requests = pp_plan_requests_new ();
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  const char *port1 = DEV "/1-2:1.0/port1/disable";
  const char *port2 = DEV "/1-2:1.0/port2/disable";
  const char *port3 = DEV "/1-2:1.0/port3/disable";

  pp_plan_requests_set (requests, pp_plan_request_new (PP_PLAN_LAYER_SLEEP, NULL,
                                                       "/sys/power/mem_sleep", "deep",
                                                       PP_PLAN_CHOICE));
  pp_plan_requests_set (requests, pp_plan_request_new (PP_PLAN_LAYER_POWER_OFF, DEV, port1, "1",
                                                       PP_PLAN_SETTING));
  pp_plan_requests_set (requests, pp_plan_request_new (PP_PLAN_LAYER_POWER_OFF, DEV, port2, "1",
                                                       PP_PLAN_SETTING));
  pp_plan_requests_set (requests, pp_plan_request_new (PP_PLAN_LAYER_POWER_OFF, NULL, port3, "1",
                                                       PP_PLAN_SETTING));
  pp_plan_current_set (current, "/sys/power/mem_sleep", "s2idle", FALSE);
  pp_plan_current_set (current, port1, "0", FALSE);
  pp_plan_current_set (current, port2, NULL, TRUE);
  /* port3 never read: absent */
  pp_plan_current_set_device (current, DEV, (gpointer) DEV);

  pp_plan_requests (plan, requests, pp_plan_current_request_values (current));
  assert_int_equal (plan->len, 2);
  assert_string_equal (entry (plan, 0)->path, "/sys/power/mem_sleep");
  assert_string_equal (entry (plan, 0)->current, "s2idle");
  assert_null (entry (plan, 0)->dev);
  assert_string_equal (entry (plan, 1)->path, port1);
  assert_ptr_equal (entry (plan, 1)->dev, DEV);
  assert_string_equal (entry (plan, 1)->relpath, "1-2:1.0/port1/disable");
  assert_string_equal (entry (plan, 1)->current, "0");
}

/* Restoring is a plan: each original back as a whole-path setting. */
static void
test_restore (void **state)
{
  g_autoptr(GPtrArray) plan = pp_plan_new ();

  pp_plan_restore (plan, DEV "/power/control", "on", "auto");
  pp_plan_restore (plan, "/sys/power/mem_sleep", "s2idle", NULL);
  pp_plan_restore (plan, DEV "/power/wakeup", "enabled", "enabled");
  assert_int_equal (plan->len, 3);
  assert_string_equal (entry (plan, 0)->current, "auto");
  assert_false (entry (plan, 0)->in_place);
  assert_null (entry (plan, 1)->current);
  assert_false (entry (plan, 1)->in_place);
  assert_true (entry (plan, 2)->in_place);
  assert_ptr_equal (pp_plan_lookup (plan, DEV "/power/wakeup"), entry (plan, 2));
  assert_null (pp_plan_lookup (plan, "power/wakeup"));
  assert_string_equal (entry (plan, 0)->path, DEV "/power/control");
  assert_string_equal (entry (plan, 0)->value, "on");
  assert_null (entry (plan, 0)->dir);
  assert_int_equal (entry (plan, 0)->flags, PP_PLAN_SETTING);
  assert_int_equal (entry (plan, 1)->layer, PP_PLAN_LAYER_RESTORE);
  assert_int_equal (pp_plan_count_writes (plan), 2);
}

/* Values read before planning: pp_plan_settings_paths() names every path
 * the planner will look at, each once (settings first, then what goes
 * back to an original), and the plan from the values read for them is
 * the plan from reading as it goes. */
static void
test_values_read_before (void **state)
{
  Values *v = values_new ();
  PpPlanValues values = { read_table, original_table, v };
  g_autoptr(PpPlanCurrent) current = pp_plan_current_new (original_table, v);
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  g_autoptr(GPtrArray) expected = pp_plan_new ();
  g_autoptr(GPtrArray) s = settings ("power/control", "auto", "power/control", "auto",
                                     "power/autosuspend_delay_ms", "2000", NULL);
  g_autoptr(GHashTable) touched = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) paths = NULL;

  g_hash_table_add (touched, (gpointer) "power/wakeup");
  g_hash_table_add (touched, (gpointer) "power/control");
  g_hash_table_add (touched, (gpointer) "link_power_management_policy");
  put (v->current, DEV "/power/control", "on");
  put (v->current, DEV "/power/autosuspend_delay_ms", UNREADABLE);
  put (v->current, DEV "/power/wakeup", "disabled");
  put (v->originals, DEV "/power/wakeup", "enabled");
  put (v->originals, DEV "/power/control", "on");
  put (v->originals, DEV "/link_power_management_policy", "max_performance");

  paths = pp_plan_settings_paths (current, DEV, s, touched);
  assert_int_equal (paths->len, 4);
  assert_string_equal (g_ptr_array_index (paths, 0), DEV "/power/control");
  assert_string_equal (g_ptr_array_index (paths, 1), DEV "/power/autosuspend_delay_ms");
  assert_string_equal (g_ptr_array_index (paths, 2), DEV "/link_power_management_policy");
  assert_string_equal (g_ptr_array_index (paths, 3), DEV "/power/wakeup");
  for (guint i = 0; i < paths->len; i++)
    {
      gboolean unreadable = FALSE;
      g_autofree char *value = read_table (g_ptr_array_index (paths, i), &unreadable, v);

      pp_plan_current_set (current, g_ptr_array_index (paths, i), value, unreadable);
    }
  /* the planner looks up, it reads nothing: the table can go */
  g_hash_table_remove_all (v->current);
  pp_plan_settings (plan, NULL, DEV, s, touched, pp_plan_current_values (current));

  /* the same plan as reading while planning */
  put (v->current, DEV "/power/control", "on");
  put (v->current, DEV "/power/autosuspend_delay_ms", UNREADABLE);
  put (v->current, DEV "/power/wakeup", "disabled");
  pp_plan_settings (expected, NULL, DEV, s, touched, &values);
  assert_int_equal (plan->len, expected->len);
  assert_int_equal (plan->len, 4);
  for (guint i = 0; i < plan->len; i++)
    {
      assert_string_equal (entry (plan, i)->path, entry (expected, i)->path);
      assert_string_equal (entry (plan, i)->value, entry (expected, i)->value);
      assert_string_equal (entry (plan, i)->current, entry (expected, i)->current);
      assert_int_equal (entry (plan, i)->unreadable, entry (expected, i)->unreadable);
      assert_int_equal (entry (plan, i)->in_place, entry (expected, i)->in_place);
    }
  assert_true (entry (plan, 2)->unreadable);
  values_free (v);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_settings_in_order),
    cmocka_unit_test (test_unreadable_is_written),
    cmocka_unit_test (test_reverts_to_originals),
    cmocka_unit_test (test_extra_write),
    cmocka_unit_test (test_requests),
    cmocka_unit_test (test_standing_requests),
    cmocka_unit_test (test_requests_read_before),
    cmocka_unit_test (test_restore),
    cmocka_unit_test (test_values_read_before),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
