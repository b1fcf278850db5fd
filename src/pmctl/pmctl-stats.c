/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl stats (issue 13): the share of time each device spent suspended
 * (GetDeviceStatistics: GetStatistics' rows with each device's class,
 * status and control); the answers are shared with pmctl metrics
 * (pmctl-metrics.c). The arithmetic is pp-stats.c's; the never-suspends
 * flag and --interval windows are computed here, from two answers of the
 * daemon, which keeps no timer for them. */
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

/* Longest --interval: an hour (a window, not a timer the daemon keeps). */
#define STATS_MAX_INTERVAL_SEC 3600

void
pmctl_stats_answer_clear (StatsAnswer *a)
{
  g_clear_pointer (&a->devices, g_array_unref);
  if (a->replies != NULL)
    {
      /* the strings of the rows were borrowed from them */
      for (guint i = 0; i < a->replies->len; i++)
        pmctl_keep_until_exit (g_variant_ref (a->replies->pdata[i]));
      g_clear_pointer (&a->replies, g_ptr_array_unref);
    }
}

/* The string member @i of the tuple @row, borrowed from the reply. */
static const char *
tuple_string (GVariant *row, gsize i)
{
  g_autoptr(GVariant) member = g_variant_get_child_value (row, i);

  /* the string lives in @row (its child, or its serialised bytes) */
  return g_variant_get_string (member, NULL);
}

static guint64
tuple_uint64 (GVariant *row, gsize i)
{
  g_autoptr(GVariant) member = g_variant_get_child_value (row, i);

  return g_variant_get_uint64 (member);
}

static void
stats_answer_init (StatsAnswer *a, guint n)
{
  a->replies = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  a->devices = g_array_sized_new (FALSE, TRUE, sizeof (StatsDevice), n);
}

/* GetDeviceStatistics: the rows with their class, status and control,
 * read straight from the reply (nothing copied). */
static gboolean
stats_ask_rows (Pmctl *ctl, StatsAnswer *out, GError **error)
{
  GVariant *rows = NULL;
  g_autoptr(GHashTable) seen = NULL;
  StatsDevice d;
  gsize n;

  if (!pp_dbus_manager_call_get_device_statistics_sync (ctl->manager, &rows, NULL, error))
    return FALSE;
  n = g_variant_n_children (rows);
  stats_answer_init (out, n);
  g_ptr_array_add (out->replies, rows);
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  /* member by member, never with a format that borrows ("(&s...)"):
   * that would first copy each row into a buffer of its own and make a
   * new value for each member */
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) row = g_variant_get_child_value (rows, i);
      g_autoptr(GVariant) control_auto = g_variant_get_child_value (row, 3);

      d.path = tuple_string (row, 0);
      d.class = tuple_string (row, 1);
      d.runtime_status = tuple_string (row, 2);
      d.control_auto = g_variant_get_boolean (control_auto);
      d.active_ms = tuple_uint64 (row, 5);
      d.suspended_ms = tuple_uint64 (row, 6);
      /* one row per path, the first */
      if (g_hash_table_add (seen, (gpointer) d.path))
        g_array_append_val (out->devices, d);
    }
  return TRUE;
}

/* GetStatistics' rows and ListDevices' facts, for a daemon without
 * GetDeviceStatistics. */
void
pmctl_stats_answer_from_devices (StatsAnswer *out, GVariant *devices, GVariant *stats)
{
  g_autoptr(GHashTable) facts = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  GVariantIter iter;
  GVariant *dict;
  StatsDevice d;
  double share;

  stats_answer_init (out, g_variant_n_children (stats));
  g_ptr_array_add (out->replies, g_variant_ref (devices));
  g_ptr_array_add (out->replies, g_variant_ref (stats));
  /* path -> its dictionary (the first), kept in the answer's replies */
  g_variant_iter_init (&iter, devices);
  while ((dict = g_variant_iter_next_value (&iter)) != NULL)
    {
      const char *path = pmctl_dict_get_string (dict, PP_DEVICE_KEY_PATH);

      if (*path != '\0' && !g_hash_table_contains (facts, path))
        {
          g_hash_table_insert (facts, (gpointer) path, dict);
          g_ptr_array_add (out->replies, dict);
        }
      else
        g_variant_unref (dict);
    }
  g_variant_iter_init (&iter, stats);
  while (g_variant_iter_next (&iter, "(&sdtt)", &d.path, &share, &d.active_ms, &d.suspended_ms))
    {
      GVariant *f = g_hash_table_lookup (facts, d.path);

      if (!g_hash_table_add (seen, (gpointer) d.path))
        continue;
      d.class = f != NULL ? pmctl_dict_get_string (f, PP_DEVICE_KEY_CLASS) : "";
      d.runtime_status = f != NULL ? pmctl_dict_get_string (f, PP_DEVICE_KEY_RUNTIME_STATUS) : "";
      d.control_auto = f != NULL && g_str_equal (pmctl_dict_get_string (f, PP_DEVICE_KEY_CONTROL),
                                                 "auto");
      g_array_append_val (out->devices, d);
    }
}

static gboolean
stats_ask (Pmctl *ctl, StatsAnswer *out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) devices = NULL;
  g_autoptr(GVariant) stats = NULL;

  if (stats_ask_rows (ctl, out, &error))
    {
      out->when_us = g_get_monotonic_time ();
      return TRUE;
    }
  if (!g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD))
    {
      pmctl_report_error (error, "get the statistics", NULL);
      return FALSE;
    }
  /* an older daemon: its device list and GetStatistics */
  g_clear_error (&error);
  if (!pp_dbus_manager_call_list_devices_sync (ctl->manager, &devices, NULL, &error))
    {
      pmctl_report_error (error, "list the devices", NULL);
      return FALSE;
    }
  if (!pp_dbus_manager_call_get_statistics_sync (ctl->manager, "", &stats, NULL, &error))
    {
      pmctl_report_error (error, "get the statistics", NULL);
      return FALSE;
    }
  pmctl_stats_answer_from_devices (out, devices, stats);
  out->when_us = g_get_monotonic_time ();
  return TRUE;
}

/* A displayed row: a PpStatsRow (first, for the sort) and its device. */
typedef struct {
  PpStatsRow         row;
  const StatsDevice *dev;
} StatsLine;

static void
sample_from_device (PpResidencySample *s, guint64 active_ms, guint64 suspended_ms,
                    const StatsDevice *dev)
{
  memset (s, 0, sizeof *s);
  s->source = PP_RESIDENCY_SOURCE_RUNTIME;
  s->active_ms = active_ms;
  s->suspended_ms = suspended_ms;
  s->status = PP_RUNTIME_STATUS_UNSUPPORTED;
  if (dev != NULL)
    {
      if (!pp_runtime_status_from_string (dev->runtime_status, &s->status))
        s->status = PP_RUNTIME_STATUS_UNSUPPORTED;
      s->control_auto = dev->control_auto;
    }
}

static gint
compare_lines (gconstpointer a, gconstpointer b)
{
  return pp_stats_compare_rows (&((const StatsLine *) a)->row, &((const StatsLine *) b)->row);
}

/* The lines of @now (over the window since @before when not NULL),
 * filtered by @class, sorted by active time. Strings are @now's. */
GArray *
pmctl_stats_lines (StatsAnswer *now, StatsAnswer *before, const char *class, guint64 min_window_ms)
{
  GArray *lines = g_array_sized_new (FALSE, TRUE, sizeof (StatsLine), now->devices->len);
  g_autoptr(GHashTable) base_rows = NULL;

  if (before != NULL)
    {
      base_rows = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < before->devices->len; i++)
        {
          StatsDevice *d = &g_array_index (before->devices, StatsDevice, i);

          g_hash_table_insert (base_rows, (gpointer) d->path, d);
        }
    }

  for (guint i = 0; i < now->devices->len; i++)
    {
      const StatsDevice *d = &g_array_index (now->devices, StatsDevice, i);
      StatsLine line = { { 0 }, d };
      PpResidencySample sample, base_sample;
      const PpResidencySample *base = NULL;
      const StatsDevice *earlier;

      line.row.path = d->path;
      line.row.class = d->class;
      if (class != NULL && g_strcmp0 (line.row.class, class) != 0)
        continue;
      sample_from_device (&sample, d->active_ms, d->suspended_ms, d);
      /* the earlier answer's row of this path */
      if (base_rows != NULL && (earlier = g_hash_table_lookup (base_rows, d->path)) != NULL)
        {
          sample_from_device (&base_sample, earlier->active_ms, earlier->suspended_ms, NULL);
          base = &base_sample;
        }
      if (!pp_stats_compute (base, &sample, min_window_ms, &line.row.residency))
        continue;
      g_array_append_val (lines, line);
    }
  /* as pp_stats_sort_rows() sorts PpStatsRow */
  g_array_sort (lines, compare_lines);
  return lines;
}

GArray *
pmctl_stats_class_totals (GArray *lines)
{
  g_autofree PpStatsRow *rows = g_new (PpStatsRow, lines->len + 1);

  for (guint i = 0; i < lines->len; i++)
    rows[i] = g_array_index (lines, StatsLine, i).row;
  return pp_stats_class_totals (rows, lines->len);
}

static char *
format_share (double share)
{
  return g_strdup_printf ("%.1f%%", share * 100.0);
}

static const char *
class_or_dash (const char *class)
{
  return class != NULL && *class != '\0' ? class : "-";
}

static void
stats_print_text (Pmctl *ctl, GArray *lines, GArray *totals, guint64 window_ms)
{
  static const char * const header[] = {
    "DEVICE", "CLASS", "STATUS", "ACTIVE", "SUSPENDED", "SUSP%", "NOTE", NULL,
  };
  static const char * const total_header[] = {
    "CLASS", "DEVICES", "ACTIVE", "SUSPENDED", "SUSP%", "NEVER-SUSPEND", NULL,
  };
  g_autoptr(PmctlTable) t = pmctl_table_new (7);
  g_autoptr(PmctlTable) c = pmctl_table_new (6);

  for (guint i = 0; i < lines->len; i++)
    {
      StatsLine *l = &g_array_index (lines, StatsLine, i);
      const PpResidency *r = &l->row.residency;

      pmctl_table_add_row (t, g_strdup (l->row.path),
                           g_strdup (class_or_dash (l->row.class)),
                           g_strdup (*l->dev->runtime_status != '\0' ? l->dev->runtime_status : "-"),
                           pmctl_format_duration_ms (r->active_ms),
                           pmctl_format_duration_ms (r->suspended_ms),
                           format_share (r->suspended_share),
                           g_strdup (r->never_suspends ? "never suspends (allowed)" : ""));
      pmctl_table_colour (t, ctl, 6, 0, PMCTL_SGR_BOLD_RED);
    }
  for (guint i = 0; i < totals->len; i++)
    {
      PpStatsClassTotal *ct = &g_array_index (totals, PpStatsClassTotal, i);

      pmctl_table_add_row (c, g_strdup (class_or_dash (ct->class)),
                           g_strdup_printf ("%u", ct->n_devices),
                           pmctl_format_duration_ms (ct->active_ms),
                           pmctl_format_duration_ms (ct->suspended_ms),
                           format_share (ct->suspended_share),
                           g_strdup_printf ("%u", ct->n_never_suspends));
    }
  if (ctl->tty)
    {
      if (window_ms > 0)
        printf ("Residency over the last %.1f s (sorted by active time)\n\n", window_ms / 1000.0);
      else
        printf ("Residency since the daemon's base (start or last policy change), sorted by active time\n\n");
    }
  if (pmctl_table_n_rows (t) == 0 && ctl->tty)
    printf ("No device with runtime PM counters.\n");
  pmctl_table_print (t, ctl, header);
  if (ctl->tty && pmctl_table_n_rows (c) > 0)
    printf ("\n");
  pmctl_table_print (c, ctl, total_header);
}

/* --json stats is written as it goes, not built as a tree of nodes first
 * (ten thousand devices are a hundred thousand nodes). */
static void
stats_print_json (Pmctl *ctl, GArray *lines, GArray *totals, guint64 window_ms)
{
  PmctlJson j;

  pmctl_json_init (&j, stdout, ctl->tty);
  pmctl_json_begin (&j, NULL, '{');
  if (window_ms > 0)
    pmctl_json_count (&j, "window_ms", window_ms);
  else
    pmctl_json_null (&j, "window_ms");
  pmctl_json_begin (&j, "devices", '[');
  for (guint i = 0; i < lines->len; i++)
    {
      StatsLine *l = &g_array_index (lines, StatsLine, i);
      const PpResidency *r = &l->row.residency;

      pmctl_json_begin (&j, NULL, '{');
      pmctl_json_string (&j, "path", l->row.path);
      pmctl_json_string (&j, "class", l->row.class != NULL ? l->row.class : "");
      pmctl_json_string (&j, "runtime_status", l->dev->runtime_status);
      pmctl_json_bool (&j, "control_auto", l->dev->control_auto);
      pmctl_json_count (&j, "active_ms", r->active_ms);
      pmctl_json_count (&j, "suspended_ms", r->suspended_ms);
      pmctl_json_double (&j, "suspended_share", r->suspended_share);
      pmctl_json_bool (&j, "never_suspends", r->never_suspends);
      pmctl_json_end (&j, '}');
    }
  pmctl_json_end (&j, ']');
  pmctl_json_begin (&j, "classes", '[');
  for (guint i = 0; i < totals->len; i++)
    {
      PpStatsClassTotal *ct = &g_array_index (totals, PpStatsClassTotal, i);

      pmctl_json_begin (&j, NULL, '{');
      pmctl_json_string (&j, "class", ct->class != NULL ? ct->class : "");
      pmctl_json_count (&j, "devices", ct->n_devices);
      pmctl_json_count (&j, "active_ms", ct->active_ms);
      pmctl_json_count (&j, "suspended_ms", ct->suspended_ms);
      pmctl_json_double (&j, "suspended_share", ct->suspended_share);
      pmctl_json_count (&j, "never_suspends", ct->n_never_suspends);
      pmctl_json_end (&j, '}');
    }
  pmctl_json_end (&j, ']');
  pmctl_json_end (&j, '}');
  putc ('\n', j.out);
}

static void
stats_print (Pmctl *ctl, StatsAnswer *now, StatsAnswer *before, const char *class,
             guint64 window_ms)
{
  /* over a window shorter than the default, the window itself is what a
   * device had to suspend in */
  guint64 min_window = window_ms > 0 ? MIN (window_ms, PP_STATS_MIN_WINDOW_MS_DEFAULT)
                                     : PP_STATS_MIN_WINDOW_MS_DEFAULT;
  g_autoptr(GArray) lines = pmctl_stats_lines (now, before, class, min_window);
  g_autoptr(GArray) totals = pmctl_stats_class_totals (lines);

  if (ctl->json)
    stats_print_json (ctl, lines, totals, window_ms);
  else
    stats_print_text (ctl, lines, totals, window_ms);
}

static char *opt_class;
static int opt_interval;

static const GOptionEntry stats_entries[] = {
  { "class", 0, 0, G_OPTION_ARG_STRING, &opt_class, "Only the devices of CLASS", "CLASS" },
  { "interval", 0, 0, G_OPTION_ARG_INT, &opt_interval,
    "Residency over SEC-second windows", "SEC" },
  { NULL }
};

static int
run_stats (Pmctl *ctl, char **args, char **command_argv)
{
  StatsAnswer before = { 0 }, now = { 0 };
  gboolean refresh;

  if (opt_interval < 0 || opt_interval > STATS_MAX_INTERVAL_SEC)
    return pmctl_usage_error ("--interval must be between 1 and %d seconds", STATS_MAX_INTERVAL_SEC);
  if (opt_class != NULL && strlen (opt_class) > 256)
    return pmctl_usage_error ("--class is too long");
  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return PMCTL_EXIT_FAILURE;
  if (!stats_ask (ctl, &now))
    return PMCTL_EXIT_FAILURE;
  if (opt_interval == 0)
    {
      stats_print (ctl, &now, NULL, opt_class, 0);
      pmctl_stats_answer_clear (&now);
      return pmctl_finish_output (PMCTL_EXIT_OK);
    }

  /* on a terminal a refreshing view until interrupted; piped or --json,
   * one window */
  refresh = ctl->tty && !ctl->json;
  do
    {
      pmctl_stats_answer_clear (&before);
      before = now;
      memset (&now, 0, sizeof now);
      g_usleep ((gulong) opt_interval * G_USEC_PER_SEC);
      if (!stats_ask (ctl, &now))
        {
          pmctl_stats_answer_clear (&before);
          return PMCTL_EXIT_FAILURE;
        }
      if (refresh)
        printf ("\033[H\033[2J");
      stats_print (ctl, &now, &before, opt_class,
                   (guint64) ((now.when_us - before.when_us) / 1000));
      if (refresh && fflush (stdout) != 0)
        break;
    }
  while (refresh);
  pmctl_stats_answer_clear (&before);
  pmctl_stats_answer_clear (&now);
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_stats = {
  "stats", "stats [--class CLASS] [--interval SEC]",
  "Show the share of time each device spent suspended",
  "Print, for every device with runtime PM counters, the time it spent\n"
  "active and suspended and the suspended share, from the kernel's own\n"
  "counters (power/runtime_active_time, power/runtime_suspended_time, or\n"
  "USB active_duration/connected_duration), since the daemon took its\n"
  "base (at start, and when it last changed the device). Sorted by active\n"
  "time, with per-class totals; a device allowed to suspend (control auto)\n"
  "that is active and did not suspend at all in at least a minute is\n"
  "flagged 'never suspends (allowed)': it keeps the machine awake.\n"
  "With --interval SEC, the residency over SEC-second windows: refreshed\n"
  "every SEC seconds on a terminal until interrupted, one window when\n"
  "piped or with --json (the flag then needs the whole window, at most a\n"
  "minute, without suspending).",
  stats_entries, 0, 0, FALSE, run_stats,
};

