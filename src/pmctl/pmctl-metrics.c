/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl metrics (issue 13): the daemon's state in the Prometheus text
 * format (CountDevices, GetClassStatistics, the residency answers of
 * pmctl-stats.h); the formatting is pp-metrics.c's. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pmctl-stats.h"
#include "pp-enums.h"
#include "pp-error.h"
#include "pp-metrics.h"
#include "pp-stats.h"
#include "pp-util.h"

/* A counter as a JSON number (clamped), or null when unknown. */
static void
json_add_count_or_null (JsonBuilder *b, const char *name, guint64 value, gboolean unknown)
{
  json_builder_set_member_name (b, name);
  if (unknown)
    json_builder_add_null_value (b);
  else
    json_builder_add_int_value (b, (gint64) MIN (value, (guint64) G_MAXINT64));
}

static void
json_add_double_or_null (JsonBuilder *b, const char *name, double value, gboolean known)
{
  json_builder_set_member_name (b, name);
  if (!known || isnan (value))
    json_builder_add_null_value (b);
  else
    json_builder_add_double_value (b, value);
}

/* The last sleep (LastSleep, empty before the first) and the kernel's
 * count of failed sleeps since boot, read here (world-readable sysfs). */
static void
metrics_add_sleep (Pmctl *ctl, PpMetrics *m)
{
  g_autoptr(GVariant) last = pp_dbus_manager_dup_last_sleep (ctl->manager);
  g_autofree char *fail = NULL;
  guint64 duration_ms = 0;
  double share = -1, before = -1, after = -1, drain = 0;
  const char *result = NULL;

  if (last != NULL && g_variant_is_of_type (last, G_VARIANT_TYPE_VARDICT) &&
      g_variant_lookup (last, "duration_ms", "t", &duration_ms) &&
      g_variant_lookup (last, "result", "&s", &result))
    {
      m->has_last_sleep = TRUE;
      m->last_sleep_seconds = duration_ms / 1000.0;
      m->last_sleep_ok = g_str_equal (result, "ok");
      g_variant_lookup (last, "hw_sleep_share", "d", &share);
      g_variant_lookup (last, "energy_before_mwh", "d", &before);
      g_variant_lookup (last, "energy_after_mwh", "d", &after);
      g_variant_lookup (last, "drain_mw", "d", &drain);
      m->last_sleep_hw_ratio = share >= 0 ? share : (double) NAN;
      m->last_sleep_drain_watts = before >= 0 && after >= 0 ? drain / 1000.0 : (double) NAN;
    }
  if (g_file_get_contents ("/sys/power/suspend_stats/fail", &fail, NULL, NULL) &&
      g_ascii_string_to_unsigned (g_strstrip (fail), 10, 0, G_MAXUINT64, &m->sleep_failures_total, NULL))
    m->has_sleep_failures = TRUE;
}

/* --json's "devices": the devices added up by class and status, sorted. */
static void
metrics_json_add_devices (JsonBuilder *b, const PpMetrics *m)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < m->n_devices; i++)
    {
      const PpMetricsDeviceCount *c = &m->devices[i];
      g_autofree char *key = g_strdup_printf ("%s%c%s", c->class ? c->class : "", 0x1f,
                                              c->runtime_status ? c->runtime_status : "unknown");
      gpointer old = g_hash_table_lookup (seen, key);

      g_hash_table_replace (seen, g_steal_pointer (&key),
                            GUINT_TO_POINTER (GPOINTER_TO_UINT (old) + c->count));
    }
  json_builder_set_member_name (b, "devices");
  json_builder_begin_array (b);
  {
    GHashTableIter iter;
    gpointer key, value;
    g_autoptr(GPtrArray) sorted = g_ptr_array_new ();

    g_hash_table_iter_init (&iter, seen);
    while (g_hash_table_iter_next (&iter, &key, &value))
      g_ptr_array_add (sorted, key);
    g_ptr_array_sort (sorted, pp_compare_strings);
    for (guint i = 0; i < sorted->len; i++)
      {
        const char *k = g_ptr_array_index (sorted, i);
        const char *sep = strchr (k, 0x1f);

        json_builder_begin_object (b);
        json_builder_set_member_name (b, "class");
        {
          g_autofree char *klass = g_strndup (k, sep - k);
          json_builder_add_string_value (b, klass);
        }
        json_builder_set_member_name (b, "runtime_status");
        json_builder_add_string_value (b, sep + 1);
        json_builder_set_member_name (b, "count");
        json_builder_add_int_value (b, GPOINTER_TO_UINT (g_hash_table_lookup (seen, k)));
        json_builder_end_object (b);
      }
  }
  json_builder_end_array (b);
}

/* --json: the same values as one object (devices added up by class and
 * status; null for what the daemon does not report). */
static void
metrics_print_json (Pmctl *ctl, const PpMetrics *m)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  metrics_json_add_devices (b, m);
  json_builder_set_member_name (b, "classes");
  json_builder_begin_array (b);
  for (guint i = 0; i < m->n_classes; i++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "class");
      json_builder_add_string_value (b, m->classes[i].class ? m->classes[i].class : "");
      json_builder_set_member_name (b, "suspended_ratio");
      if (isnan (m->classes[i].suspended_ratio))
        json_builder_add_null_value (b);
      else
        json_builder_add_double_value (b, m->classes[i].suspended_ratio);
      json_builder_set_member_name (b, "never_suspending_devices");
      json_builder_add_int_value (b, m->classes[i].n_never_suspend);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_add_count_or_null (b, "overrides", m->n_overrides, m->unknown & PP_METRICS_UNKNOWN_OVERRIDES);
  json_add_count_or_null (b, "holds", m->n_holds, FALSE);
  json_add_count_or_null (b, "inhibitors", m->n_inhibitors, FALSE);
  json_add_count_or_null (b, "conflicts", m->n_conflicts, m->unknown & PP_METRICS_UNKNOWN_CONFLICTS);
  json_add_count_or_null (b, "write_failures_total", m->write_failures_total,
                          m->unknown & PP_METRICS_UNKNOWN_WRITE_FAILURES);
  json_builder_set_member_name (b, "on_battery");
  json_builder_add_boolean_value (b, m->on_battery);
  json_builder_set_member_name (b, "user_idle");
  json_builder_add_boolean_value (b, m->user_idle);
  json_builder_set_member_name (b, "last_policy_pass_duration_seconds");
  if (isnan (m->last_pass_seconds) || m->last_pass_seconds < 0)
    json_builder_add_null_value (b);
  else
    json_builder_add_double_value (b, m->last_pass_seconds);
  json_add_double_or_null (b, "last_sleep_duration_seconds", m->last_sleep_seconds, m->has_last_sleep);
  json_builder_set_member_name (b, "last_sleep_success");
  if (m->has_last_sleep)
    json_builder_add_boolean_value (b, m->last_sleep_ok);
  else
    json_builder_add_null_value (b);
  json_add_double_or_null (b, "last_sleep_hardware_sleep_ratio", m->last_sleep_hw_ratio,
                           m->has_last_sleep);
  json_add_double_or_null (b, "last_sleep_drain_watts", m->last_sleep_drain_watts,
                           m->has_last_sleep);
  json_add_count_or_null (b, "sleep_failures_total", m->sleep_failures_total,
                          !m->has_sleep_failures);
  json_builder_end_object (b);
  pmctl_json_print_builder (ctl, b);
}

/* Devices by class and status, and the classes' residency, from
 * CountDevices and GetClassStatistics: what the families print, without
 * the device rows. FALSE with the error of the call that failed. */
static gboolean
metrics_ask_classes (Pmctl *ctl, GArray *counts, GArray *classes, GPtrArray *keep,
                     GError **error)
{
  GVariant *device_counts = NULL;
  GVariant *class_stats = NULL;
  GVariantIter iter;
  const char *class, *status;
  guint32 n, n_devices, n_never;
  double share;
  guint64 active, suspended;

  if (!pp_dbus_manager_call_count_devices_sync (ctl->manager, &device_counts, NULL, error))
    return FALSE;
  g_ptr_array_add (keep, device_counts);   /* the strings are borrowed from it */
  if (!pp_dbus_manager_call_get_class_statistics_sync (ctl->manager, &class_stats, NULL, error))
    return FALSE;
  g_ptr_array_add (keep, class_stats);

  g_variant_iter_init (&iter, device_counts);
  while (g_variant_iter_next (&iter, "(&s&su)", &class, &status, &n))
    {
      PpMetricsDeviceCount c = { class, *status != '\0' ? status : NULL, n };

      g_array_append_val (counts, c);
    }
  g_variant_iter_init (&iter, class_stats);
  while (g_variant_iter_next (&iter, "(&suudtt)", &class, &n_devices, &n_never, &share,
                              &active, &suspended))
    {
      PpMetricsClass c = { class, share, n_never };

      if (active == 0 && suspended == 0)
        c.suspended_ratio = NAN;
      g_array_append_val (classes, c);
    }
  return TRUE;
}

/* The same from ListDevices and GetStatistics, for a daemon without
 * CountDevices or GetClassStatistics. */
static gboolean
metrics_ask_devices (Pmctl *ctl, GArray *counts, GArray *classes, GPtrArray *keep,
                     GArray **out_totals, StatsAnswer *answer)
{
  g_autoptr(GError) error = NULL;
  GVariant *devices = NULL;
  GVariant *stats = NULL;
  g_autoptr(GArray) lines = NULL;
  GVariantIter iter;
  GVariant *dict;

  if (!pp_dbus_manager_call_list_devices_sync (ctl->manager, &devices, NULL, &error))
    {
      pmctl_report_error (error, "list the devices", NULL);
      return FALSE;
    }
  g_ptr_array_add (keep, devices);
  if (!pp_dbus_manager_call_get_statistics_sync (ctl->manager, "", &stats, NULL, &error))
    {
      pmctl_report_error (error, "get the statistics", NULL);
      return FALSE;
    }
  g_ptr_array_add (keep, stats);

  /* devices by class and runtime status */
  g_variant_iter_init (&iter, devices);
  while ((dict = g_variant_iter_next_value (&iter)) != NULL)
    {
      PpMetricsDeviceCount c = { NULL, NULL, 1 };

      c.class = pmctl_dict_get_string (dict, PP_DEVICE_KEY_CLASS);
      c.runtime_status = pmctl_dict_get_string (dict, PP_DEVICE_KEY_RUNTIME_STATUS);
      if (*c.runtime_status == '\0')
        c.runtime_status = NULL;
      g_array_append_val (counts, c);
      g_ptr_array_add (keep, dict);   /* the strings are borrowed from it */
    }

  /* suspended share per class, since the daemon's bases */
  pmctl_stats_answer_from_devices (answer, devices, stats);
  lines = pmctl_stats_lines (answer, NULL, NULL, PP_STATS_MIN_WINDOW_MS_DEFAULT);
  *out_totals = pmctl_stats_class_totals (lines);
  for (guint i = 0; i < (*out_totals)->len; i++)
    {
      PpStatsClassTotal *ct = &g_array_index (*out_totals, PpStatsClassTotal, i);
      PpMetricsClass c = { ct->class, ct->suspended_share, ct->n_never_suspends };

      if (ct->active_ms + ct->suspended_ms == 0)
        c.suspended_ratio = NAN;
      g_array_append_val (classes, c);
    }
  return TRUE;
}

/* Holds, inhibitors and overrides into @m. FALSE (reported) when a call
 * failed; a daemon without ListOverrides leaves that family unknown. */
static gboolean
metrics_ask_inhibitors (Pmctl *ctl, PpMetrics *m)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) inhibitors = NULL;
  g_autoptr(GVariant) overrides = NULL;
  GVariantIter iter;
  const char *what, *who, *why, *device;
  guint32 pid;

  if (!pp_dbus_manager_call_list_inhibitors_sync (ctl->manager, &inhibitors, NULL, &error))
    {
      pmctl_report_error (error, "list the inhibitors", NULL);
      return FALSE;
    }
  /* a daemon without ListOverrides (unknown, or declared and not served
   * yet): the family has no sample */
  if (!pp_dbus_manager_call_list_overrides_sync (ctl->manager, &overrides, NULL, &error))
    {
      if (!g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD) &&
          !g_error_matches (error, PP_ERROR, PP_ERROR_NOT_SUPPORTED))
        {
          pmctl_report_error (error, "list the overrides", NULL);
          return FALSE;
        }
      g_clear_error (&error);
      m->unknown |= PP_METRICS_UNKNOWN_OVERRIDES;
    }
  else
    m->n_overrides = g_variant_n_children (overrides);

  g_variant_iter_init (&iter, inhibitors);
  while (g_variant_iter_next (&iter, "(&s&s&s&su)", &what, &who, &why, &device, &pid))
    {
      if (g_str_equal (what, "hold"))
        m->n_holds++;
      else
        m->n_inhibitors++;
    }
  return TRUE;
}

/* The daemon's properties into @m, through the proxy's typed getters. */
static void
metrics_read_properties (Pmctl *ctl, PpMetrics *m)
{
  g_autoptr(GVariant) conflicts = NULL;
  g_autoptr(GVariant) write_failures = NULL;
  double last_pass;

  /* the proxy checks each property's type against the interface; one an
   * older daemon lacks is NULL (a typed getter would give 0) */
  conflicts = pp_dbus_manager_dup_conflicts (ctl->manager);
  if (conflicts != NULL)
    m->n_conflicts = g_variant_n_children (conflicts);
  else
    m->unknown |= PP_METRICS_UNKNOWN_CONFLICTS;
  m->on_battery = pp_dbus_manager_get_on_battery (ctl->manager);
  m->user_idle = pp_dbus_manager_get_user_idle (ctl->manager);
  /* an older daemon without WriteFailures or LastPolicyPassSec: the
   * family has no sample; a pass of 0 s is "none yet" (the cached value
   * is asked for only to tell "absent" from 0; the typed getter reads it) */
  write_failures = g_dbus_proxy_get_cached_property (G_DBUS_PROXY (ctl->manager), "WriteFailures");
  if (write_failures != NULL)
    m->write_failures_total = pp_dbus_manager_get_write_failures (ctl->manager);
  else
    m->unknown |= PP_METRICS_UNKNOWN_WRITE_FAILURES;
  last_pass = pp_dbus_manager_get_last_policy_pass_sec (ctl->manager);
  m->last_pass_seconds = isfinite (last_pass) && last_pass > 0 ? last_pass : (double) NAN;
}

static int
run_metrics (Pmctl *ctl, char **args, char **command_argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) counts = g_array_new (FALSE, TRUE, sizeof (PpMetricsDeviceCount));
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  g_autoptr(GArray) classes = g_array_new (FALSE, TRUE, sizeof (PpMetricsClass));
  g_autoptr(GArray) totals = NULL;
  g_autofree char *text = NULL;
  PpMetrics m = { 0 };
  StatsAnswer answer = { 0 };

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_NONE))
    return PMCTL_EXIT_FAILURE;
  if (!metrics_ask_classes (ctl, counts, classes, keep, &error))
    {
      /* an older daemon: the device rows, added up here */
      if (!g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD))
        {
          pmctl_report_error (error, "count the devices", NULL);
          return PMCTL_EXIT_FAILURE;
        }
      g_clear_error (&error);
      g_array_set_size (counts, 0);
      g_array_set_size (classes, 0);
      if (!metrics_ask_devices (ctl, counts, classes, keep, &totals, &answer))
        {
          pmctl_stats_answer_clear (&answer);
          return PMCTL_EXIT_FAILURE;
        }
    }
  m.devices = (const PpMetricsDeviceCount *) (gpointer) counts->data;
  m.n_devices = counts->len;
  m.classes = (const PpMetricsClass *) (gpointer) classes->data;
  m.n_classes = classes->len;

  if (!metrics_ask_inhibitors (ctl, &m))
    {
      pmctl_stats_answer_clear (&answer);
      return PMCTL_EXIT_FAILURE;
    }
  metrics_read_properties (ctl, &m);
  metrics_add_sleep (ctl, &m);
  if (ctl->json)
    metrics_print_json (ctl, &m);
  else
    {
      text = pp_metrics_format (&m);
      fputs (text, stdout);
    }
  pmctl_stats_answer_clear (&answer);
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_metrics = {
  "metrics", "metrics",
  "Print the daemon's state in the Prometheus text format",
  "Print the daemon's state in the Prometheus text exposition format\n"
  "(version 0.0.4) for node_exporter's textfile collector: devices by\n"
  "class and runtime status, the suspended share and the devices that\n"
  "never suspend although allowed per class, overrides, holds,\n"
  "inhibitors, conflicts, write failures, on battery, user idle, the\n"
  "duration of the last policy pass, the last recorded system sleep (its\n"
  "length, success, hardware-sleep share and battery drain) and the\n"
  "kernel's count of failed sleeps since boot. A family the daemon does not report\n"
  "(on an older daemon without the property or method) is written\n"
  "without a sample, never as 0. See powerpolicy-metrics.service for\n"
  "writing it atomically into the collector's directory.",
  NULL, 0, 0, FALSE, run_metrics,
};
