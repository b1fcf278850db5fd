/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl sleep-history, wakeups, sleep-check (issue 20): the records the
 * daemon keeps of every system sleep, what wakes the machine, and which
 * sleep states work here. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pmctl.h"
#include "pmctl-output.h"

/* the daemon keeps at most this many */
#define HISTORY_MAX 100

/* ---- reading a record ------------------------------------------------------ */

static guint64
rec_u64 (GVariant *r, const char *key)
{
  guint64 v = 0;

  g_variant_lookup (r, key, "t", &v);
  return v;
}

static double
rec_double (GVariant *r, const char *key, double fallback)
{
  double v = fallback;

  if (!g_variant_lookup (r, key, "d", &v) || !isfinite (v))
    return fallback;
  return v;
}

static gboolean
rec_bool (GVariant *r, const char *key)
{
  gboolean v = FALSE;

  g_variant_lookup (r, key, "b", &v);
  return v;
}

static const char *
rec_str (GVariant *r, const char *key)
{
  return pmctl_dict_get_string (r, key);
}

static char *
rec_list (GVariant *r, const char *key, const char *separator)
{
  g_autofree const char **v = NULL;

  if (!g_variant_lookup (r, key, "^a&s", &v) || v == NULL || v[0] == NULL)
    return g_strdup ("-");
  return g_strjoinv (separator, (char **) v);
}

static char *
format_when (guint64 start_us)
{
  g_autoptr(GDateTime) t = g_date_time_new_from_unix_local (start_us / G_USEC_PER_SEC);

  if (start_us == 0 || t == NULL)
    return g_strdup ("-");
  return g_date_time_format (t, "%Y-%m-%d %H:%M:%S");
}

static char *
format_mode (GVariant *r)
{
  const char *state = rec_str (r, "state");
  const char *mem_sleep = rec_str (r, "mem_sleep");

  if (g_str_equal (state, "disk") || *mem_sleep == '\0')
    return g_strdup (*state ? state : "-");
  return g_strdup_printf ("%s/%s", state, mem_sleep);
}

static char *
format_hw (GVariant *r)
{
  double share = rec_double (r, "hw_sleep_share", -1);

  if (share < 0)
    return g_strdup ("-");
  /* "?": longer than the hardware counter can tell */
  return g_strdup_printf ("%.0f%%%s", share * 100, rec_bool (r, "hw_sleep_reliable") ? "" : "?");
}

static gboolean
energy_known (GVariant *r)
{
  return rec_double (r, "energy_before_mwh", -1) >= 0 && rec_double (r, "energy_after_mwh", -1) >= 0;
}

static char *
format_result (GVariant *r)
{
  const char *result = rec_str (r, "result");
  const char *step = rec_str (r, "failed_step");
  const char *device = rec_str (r, "failed_device");
  const char *error = rec_str (r, "error");

  if (!g_str_equal (result, "failed"))
    return g_strdup (*result ? result : "-");
  if (*step != '\0' || *device != '\0')
    return g_strdup_printf ("failed (%s%s%s)", step, *step && *device ? " " : "", device);
  if (*error != '\0')
    return g_strdup_printf ("failed (%s)", error);
  return g_strdup ("failed");
}

/* ---- sleep-history ------------------------------------------------------------ */

static gint opt_count = 10;
static gboolean opt_last;

static const GOptionEntry history_entries[] = {
  { "count", 'n', 0, G_OPTION_ARG_INT, &opt_count, "Show the last N sleeps (default 10, at most 100)", "N" },
  { "last", 0, 0, G_OPTION_ARG_NONE, &opt_last, "Show everything recorded of the last sleep", NULL },
  { NULL }
};

static void
print_history_table (Pmctl *ctl, GVariant *records)
{
  static const char * const header[] = {
    "WHEN", "LENGTH", "MODE", "HW SLEEP", "DRAIN", "%/H", "WOKEN BY", "RESULT", NULL,
  };
  g_autoptr(PmctlTable) t = pmctl_table_new (8);
  GVariantIter iter;
  GVariant *r;

  g_variant_iter_init (&iter, records);
  while ((r = g_variant_iter_next_value (&iter)) != NULL)
    {
      gboolean known = energy_known (r);

      pmctl_table_add_row (t, format_when (rec_u64 (r, "start")),
                           pmctl_format_duration_ms (rec_u64 (r, "duration_ms")),
                           format_mode (r), format_hw (r),
                           known ? g_strdup_printf ("%.0f mW", rec_double (r, "drain_mw", 0)) : g_strdup ("-"),
                           known ? g_strdup_printf ("%.2f", rec_double (r, "drain_percent_per_hour", 0))
                                 : g_strdup ("-"),
                           rec_list (r, "woken_by", ","), format_result (r));
      if (g_str_equal (rec_str (r, "result"), "failed"))
        pmctl_table_colour (t, ctl, 7, 0, PMCTL_SGR_BOLD_RED);
      g_variant_unref (r);
    }
  if (pmctl_table_n_rows (t) > 0)
    pmctl_table_print (t, ctl, header);
  else if (ctl->tty)
    printf ("No system sleep recorded yet.\n");
}

static void
add_field (PmctlTable *t, const char *key, char *value)
{
  pmctl_table_add_row (t, g_strdup (key), value);
}

static void
print_last (Pmctl *ctl, GVariant *r)
{
  g_autoptr(PmctlTable) t = pmctl_table_new (2);
  g_auto(GStrv) awake = NULL;
  g_auto(GStrv) blockers = NULL;
  gboolean known = energy_known (r);
  double share = rec_double (r, "hw_sleep_share", -1);

  add_field (t, "Start", format_when (rec_u64 (r, "start")));
  add_field (t, "End", format_when (rec_u64 (r, "end")));
  add_field (t, "Duration", pmctl_format_duration_ms (rec_u64 (r, "duration_ms")));
  add_field (t, "State", g_strdup (rec_str (r, "state")));
  add_field (t, "Mem sleep", g_strdup (*rec_str (r, "mem_sleep") ? rec_str (r, "mem_sleep") : "-"));
  add_field (t, "Result", format_result (r));
  if (g_str_equal (rec_str (r, "result"), "failed"))
    {
      gint32 e = 0;

      g_variant_lookup (r, "failed_errno", "i", &e);
      pmctl_table_colour (t, ctl, 1, 0, PMCTL_SGR_BOLD_RED);
      add_field (t, "Failed step", g_strdup (*rec_str (r, "failed_step") ? rec_str (r, "failed_step") : "-"));
      add_field (t, "Failed device", g_strdup (*rec_str (r, "failed_device") ? rec_str (r, "failed_device") : "-"));
      add_field (t, "Failed errno", g_strdup_printf ("%d", e));
      add_field (t, "Error", g_strdup (*rec_str (r, "error") ? rec_str (r, "error") : "-"));
    }
  if (share >= 0)
    add_field (t, "Hardware sleep",
               g_strdup_printf ("%.1f%% (%" G_GUINT64_FORMAT " ms)%s", share * 100,
                                rec_u64 (r, "hw_sleep_ms"),
                                rec_bool (r, "hw_sleep_reliable") ? ""
                                : ", unreliable: longer than the hardware counter"));
  else
    add_field (t, "Hardware sleep", g_strdup ("unknown (the kernel reports none before 6.5)"));
  if (known)
    {
      add_field (t, "Energy", g_strdup_printf ("%.0f mWh -> %.0f mWh",
                                               rec_double (r, "energy_before_mwh", -1),
                                               rec_double (r, "energy_after_mwh", -1)));
      add_field (t, "Drain", g_strdup_printf ("%.0f mW, %.2f %%/h", rec_double (r, "drain_mw", 0),
                                              rec_double (r, "drain_percent_per_hour", 0)));
    }
  else
    add_field (t, "Drain", g_strdup ("unknown (no battery energy)"));
  add_field (t, "Wake IRQ", g_strdup (*rec_str (r, "wake_irq") ? rec_str (r, "wake_irq") : "-"));
  add_field (t, "Woken by", rec_list (r, "woken_by", ", "));
  g_variant_lookup (r, "awake_devices", "^as", &awake);
  g_variant_lookup (r, "awake_blockers", "^as", &blockers);
  /* one line each, under the same key */
  if (awake == NULL || awake[0] == NULL)
    add_field (t, "Awake device", g_strdup ("-"));
  for (guint i = 0; awake != NULL && awake[i] != NULL; i++)
    {
      const char *blocker = blockers != NULL && i < g_strv_length (blockers) ? blockers[i] : "";

      add_field (t, "Awake device",
                 *blocker ? g_strdup_printf ("%s (kept awake by %s)", awake[i], blocker)
                          : g_strdup (awake[i]));
    }
  pmctl_fields_print (t, ctl);
}

static int
run_sleep_history (Pmctl *ctl, char **args, char **command_argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) records = NULL;
  guint count = opt_last ? 1 : (guint) CLAMP (opt_count, 0, HISTORY_MAX);

  if (opt_count < 1 || opt_count > HISTORY_MAX)
    return pmctl_usage_error ("--count must be between 1 and %d", HISTORY_MAX);
  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_get_sleep_history_sync (ctl->manager, count, &records, NULL, &error))
    {
      pmctl_report_error (error, "read the sleep history", NULL);
      return PMCTL_EXIT_FAILURE;
    }
  if (ctl->json)
    {
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GVariant) first = NULL;

      if (opt_last && g_variant_n_children (records) > 0)
        first = g_variant_get_child_value (records, 0);
      if (opt_last)
        node = first != NULL ? json_gvariant_serialize (first) : json_node_new (JSON_NODE_NULL);
      else
        node = json_gvariant_serialize (records);
      pmctl_json_print (ctl, node);
    }
  else if (opt_last)
    {
      if (g_variant_n_children (records) == 0)
        {
          if (ctl->tty)
            printf ("No system sleep recorded yet.\n");
        }
      else
        {
          g_autoptr(GVariant) r = g_variant_get_child_value (records, 0);
          print_last (ctl, r);
        }
    }
  else
    print_history_table (ctl, records);
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_sleep_history = {
  "sleep-history", "sleep-history [-n N] [--last]",
  "Every recorded system sleep: depth, length, drain, wake source",
  "Print the system sleeps the daemon recorded, newest first: when, how\n"
  "long, the mode (state/mem_sleep), the share spent in the hardware's\n"
  "deepest state (\"?\": longer than its counter can tell; - before kernel\n"
  "6.5), the battery drain in mW and %/h, what woke it and the result\n"
  "(for a failed sleep the step and device the kernel names). --last prints\n"
  "everything recorded of the last one, with the devices that were not\n"
  "runtime-suspended when it began and what kept each awake.",
  history_entries, 0, 0, FALSE, run_sleep_history,
};

/* ---- wakeups -------------------------------------------------------------------- */

typedef struct {
  char   *source;
  guint   sleeps;
  guint64 last_us;
} WokenBy;

static void
woken_by_free (WokenBy *w)
{
  g_free (w->source);
  g_free (w);
}

static gint
compare_woken_by (gconstpointer a, gconstpointer b)
{
  const WokenBy *wa = *(const WokenBy * const *) a, *wb = *(const WokenBy * const *) b;

  if (wa->sleeps != wb->sleeps)
    return wa->sleeps > wb->sleeps ? -1 : 1;
  return g_strcmp0 (wa->source, wb->source);
}

/* Who woke the recorded sleeps, most often first. */
static GPtrArray *
count_woken_by (GVariant *records)
{
  g_autoptr(GHashTable) by_source = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) woken_by_free);
  GVariantIter iter;
  GVariant *r;

  g_variant_iter_init (&iter, records);
  while ((r = g_variant_iter_next_value (&iter)) != NULL)
    {
      g_autofree const char **sources = NULL;

      if (g_variant_lookup (r, "woken_by", "^a&s", &sources))
        for (guint i = 0; sources[i] != NULL; i++)
          {
            WokenBy *w = g_hash_table_lookup (by_source, sources[i]);

            if (w == NULL)
              {
                w = g_new0 (WokenBy, 1);
                w->source = g_strdup (sources[i]);
                g_hash_table_insert (by_source, w->source, w);
                g_ptr_array_add (out, w);
              }
            w->sleeps++;
            w->last_us = MAX (w->last_us, rec_u64 (r, "start"));
          }
      g_variant_unref (r);
    }
  g_ptr_array_sort (out, compare_woken_by);
  return out;
}

typedef struct {
  char *path;
  char *class;
  char *wakeup;
  char *events;      /* power/wakeup_count, "" unreadable */
  char *layer;
  char *origin;
} WakeupDevice;

static void
wakeup_device_free (WakeupDevice *d)
{
  g_free (d->path);
  g_free (d->class);
  g_free (d->wakeup);
  g_free (d->events);
  g_free (d->layer);
  g_free (d->origin);
  g_free (d);
}

static WakeupDevice *
wakeup_device_new (Pmctl *ctl, GVariant *dict)
{
  WakeupDevice *d = g_new0 (WakeupDevice, 1);
  g_autoptr(GVariant) rows = NULL;
  g_autofree char *count_path = NULL;
  g_autofree char *count = NULL;
  const char *attribute, *current, *decided, *layer, *origin;
  GVariantIter iter;

  d->path = g_strdup (pmctl_dict_get_string (dict, PP_DEVICE_KEY_PATH));
  d->class = g_strdup (pmctl_dict_get_string (dict, PP_DEVICE_KEY_CLASS));
  d->wakeup = g_strdup (pmctl_dict_get_string (dict, PP_DEVICE_KEY_WAKEUP));
  /* the kernel's count of the device's wakeup events since boot: read
   * here, world-readable sysfs */
  count_path = g_build_filename (d->path, "power", "wakeup_count", NULL);
  if (g_file_get_contents (count_path, &count, NULL, NULL))
    g_strstrip (count);
  d->events = g_strdup (count != NULL && *count != '\0' && strlen (count) < 32 ? count : "");
  d->layer = g_strdup ("");
  d->origin = g_strdup ("");
  /* which layer decided power/wakeup, as explain says */
  if (pp_dbus_manager_call_explain_sync (ctl->manager, d->path, &rows, NULL, NULL))
    {
      g_variant_iter_init (&iter, rows);
      while (g_variant_iter_next (&iter, "(&s&s&s&s&s)", &attribute, &current, &decided, &layer, &origin))
        if (g_str_equal (attribute, "power/wakeup"))
          {
            g_free (d->layer);
            g_free (d->origin);
            d->layer = g_strdup (*decided ? layer : "");
            d->origin = g_strdup (*decided ? origin : "");
          }
    }
  return d;
}

static void
print_wakeups_json (Pmctl *ctl, GPtrArray *devices, GPtrArray *woken)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "devices");
  json_builder_begin_array (b);
  for (guint i = 0; i < devices->len; i++)
    {
      WakeupDevice *d = g_ptr_array_index (devices, i);
      guint64 n;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "path");
      json_builder_add_string_value (b, d->path);
      json_builder_set_member_name (b, "class");
      json_builder_add_string_value (b, d->class);
      json_builder_set_member_name (b, "wakeup");
      json_builder_add_string_value (b, d->wakeup);
      json_builder_set_member_name (b, "events");
      if (g_ascii_string_to_unsigned (d->events, 10, 0, G_MAXINT64, &n, NULL))
        json_builder_add_int_value (b, (gint64) n);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "layer");
      json_builder_add_string_value (b, d->layer);
      json_builder_set_member_name (b, "origin");
      json_builder_add_string_value (b, d->origin);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "woken_by");
  json_builder_begin_array (b);
  for (guint i = 0; i < woken->len; i++)
    {
      WokenBy *w = g_ptr_array_index (woken, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "source");
      json_builder_add_string_value (b, w->source);
      json_builder_set_member_name (b, "sleeps");
      json_builder_add_int_value (b, w->sleeps);
      json_builder_set_member_name (b, "last");
      json_builder_add_int_value (b, (gint64) MIN (w->last_us, (guint64) G_MAXINT64));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  pmctl_json_print_builder (ctl, b);
}

static void
print_wakeups_text (Pmctl *ctl, GPtrArray *devices, GPtrArray *woken)
{
  static const char * const header[] = { "DEVICE", "CLASS", "WAKEUP", "EVENTS", "LAYER", "ORIGIN", NULL };
  static const char * const woken_header[] = { "WOKEN BY", "SLEEPS", "LAST", NULL };
  g_autoptr(PmctlTable) t = pmctl_table_new (6);
  g_autoptr(PmctlTable) w = pmctl_table_new (3);

  for (guint i = 0; i < devices->len; i++)
    {
      WakeupDevice *d = g_ptr_array_index (devices, i);

      pmctl_table_add_row (t, g_strdup (d->path), g_strdup (*d->class ? d->class : "-"),
                           g_strdup (d->wakeup), g_strdup (*d->events ? d->events : "-"),
                           g_strdup (*d->layer ? d->layer : "-"),
                           g_strdup (*d->origin ? d->origin : "left to the kernel"));
      if (g_str_equal (d->wakeup, "enabled"))
        pmctl_table_colour (t, ctl, 2, 0, PMCTL_SGR_YELLOW);
    }
  for (guint i = 0; i < woken->len; i++)
    {
      WokenBy *o = g_ptr_array_index (woken, i);

      pmctl_table_add_row (w, g_strdup (o->source), g_strdup_printf ("%u", o->sleeps),
                           format_when (o->last_us));
    }
  if (pmctl_table_n_rows (t) > 0)
    pmctl_table_print (t, ctl, header);
  else if (ctl->tty)
    printf ("No wakeup-capable device is managed.\n");
  if (pmctl_table_n_rows (w) > 0)
    {
      /* a blank line between the tables on a terminal; piped, the
       * second table's rows have 3 fields instead of 6 */
      if (ctl->tty)
        printf ("\n");
      pmctl_table_print (w, ctl, woken_header);
    }
  else if (ctl->tty)
    printf ("\nNo recorded sleep names what woke it.\n");
}

static int
run_wakeups (Pmctl *ctl, char **args, char **command_argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) devices = NULL;
  g_autoptr(GVariant) records = NULL;
  g_autoptr(GPtrArray) wakeup_devices = g_ptr_array_new_with_free_func ((GDestroyNotify) wakeup_device_free);
  g_autoptr(GPtrArray) woken = NULL;
  GVariantIter iter;
  GVariant *dict;

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_list_devices_sync (ctl->manager, &devices, NULL, &error))
    {
      pmctl_report_error (error, "list the devices", NULL);
      return PMCTL_EXIT_FAILURE;
    }
  if (!pp_dbus_manager_call_get_sleep_history_sync (ctl->manager, HISTORY_MAX, &records, NULL, &error))
    {
      pmctl_report_error (error, "read the sleep history", NULL);
      return PMCTL_EXIT_FAILURE;
    }
  g_variant_iter_init (&iter, devices);
  while ((dict = g_variant_iter_next_value (&iter)) != NULL)
    {
      /* power/wakeup exists only on wakeup-capable devices */
      if (*pmctl_dict_get_string (dict, PP_DEVICE_KEY_WAKEUP) != '\0')
        g_ptr_array_add (wakeup_devices, wakeup_device_new (ctl, dict));
      g_variant_unref (dict);
    }
  woken = count_woken_by (records);
  if (ctl->json)
    print_wakeups_json (ctl, wakeup_devices, woken);
  else
    print_wakeups_text (ctl, wakeup_devices, woken);
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_wakeups = {
  "wakeups", "wakeups",
  "Wakeup-capable devices: enabled?, events, the layer that set it, what woke recent sleeps",
  "Print every wakeup-capable device the daemon manages with power/wakeup,\n"
  "its wakeup events since boot (power/wakeup_count), and the layer and\n"
  "origin that decided power/wakeup (as explain tells them; \"left to the\n"
  "kernel\" when no layer sets it). Then the wakeup sources that woke the\n"
  "recorded sleeps, most often first, with the last time each did.",
  NULL, 0, 0, FALSE, run_wakeups,
};

/* ---- sleep-check ---------------------------------------------------------------- */

static int
run_sleep_check (Pmctl *ctl, char **args, char **command_argv)
{
  static const char * const header[] = { "STATE", "AVAILABLE", "USED BY", "REASON", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) rows = NULL;
  const char *state, *used_by, *reason;
  gboolean available;
  GVariantIter iter;

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_check_sleep_sync (ctl->manager, &rows, NULL, &error))
    {
      pmctl_report_error (error, "check the sleep states", NULL);
      return PMCTL_EXIT_FAILURE;
    }
  g_variant_iter_init (&iter, rows);
  if (ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_array (b);
      while (g_variant_iter_next (&iter, "(&sb&s&s)", &state, &available, &used_by, &reason))
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "state");
          json_builder_add_string_value (b, state);
          json_builder_set_member_name (b, "available");
          json_builder_add_boolean_value (b, available);
          json_builder_set_member_name (b, "used_by");
          json_builder_add_string_value (b, used_by);
          json_builder_set_member_name (b, "reason");
          json_builder_add_string_value (b, reason);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      pmctl_json_print_builder (ctl, b);
    }
  else
    {
      g_autoptr(PmctlTable) t = pmctl_table_new (4);

      while (g_variant_iter_next (&iter, "(&sb&s&s)", &state, &available, &used_by, &reason))
        {
          pmctl_table_add_row (t, g_strdup (state), g_strdup (available ? "yes" : "no"),
                               g_strdup (*used_by ? used_by : "-"), g_strdup (reason));
          if (!available && *used_by)
            pmctl_table_colour (t, ctl, 1, 0, PMCTL_SGR_BOLD_RED);
        }
      pmctl_table_print (t, ctl, header);
    }
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_sleep_check = {
  "sleep-check", "sleep-check",
  "Which sleep states work here, which one suspend uses, and why not for the others",
  "Print the sleep states of this machine (s2idle, shallow and deep from\n"
  "/sys/power/mem_sleep, hibernate from /sys/power/state and /sys/power/disk):\n"
  "whether each is available, which one a suspend or hibernation would use\n"
  "([Sleep] MemSleep= and HibernateMode=, else the kernel's default) and why;\n"
  "for hibernation whether a resume device is configured (/sys/power/resume)\n"
  "and the free swap holds the memory in use. Reads, never writes.",
  NULL, 0, 0, FALSE, run_sleep_check,
};
