/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl stats and pmctl metrics (issue 13): the share of time each device
 * spent suspended (GetDeviceStatistics: GetStatistics' rows with each
 * device's class, status and control), and the daemon's state in the
 * Prometheus text format (CountDevices, GetClassStatistics). The
 * arithmetic is pp-stats.c's, the formatting pp-metrics.c's; the
 * never-suspends flag and --interval windows are computed here, from two
 * answers of the daemon, which keeps no timer for them. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pp-enums.h"
#include "pp-error.h"
#include "pp-metrics.h"
#include "pp-stats.h"
#include "pp-util.h"

/* Longest --interval: an hour (a window, not a timer the daemon keeps). */
#define STATS_MAX_INTERVAL_SEC 3600

/* One device of an answer: GetDeviceStatistics' row, or GetStatistics'
 * row with what ListDevices says of the device (an older daemon).
 * Strings are borrowed from the answer's replies; "" when unknown. */
typedef struct {
  const char *path;
  const char *class;
  const char *runtime_status;
  gboolean    control_auto;
  guint64     active_ms;
  guint64     suspended_ms;
} StatsDevice;

/* One answer of the daemon. */
typedef struct {
  GPtrArray  *replies;    /* GVariant: what the strings are borrowed from */
  GArray     *devices;    /* StatsDevice, one per path, in the daemon's order */
  gint64      when_us;    /* monotonic */
} StatsAnswer;

static void
stats_answer_clear (StatsAnswer *a)
{
  g_clear_pointer (&a->devices, g_array_unref);
  g_clear_pointer (&a->replies, g_ptr_array_unref);
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
  GVariantIter iter;
  StatsDevice d;
  double share;

  if (!pp_dbus_manager_call_get_device_statistics_sync (ctl->manager, &rows, NULL, error))
    return FALSE;
  stats_answer_init (out, g_variant_n_children (rows));
  g_ptr_array_add (out->replies, rows);
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_variant_iter_init (&iter, rows);
  while (g_variant_iter_next (&iter, "(&s&s&sbdtt)", &d.path, &d.class, &d.runtime_status,
                              &d.control_auto, &share, &d.active_ms, &d.suspended_ms))
    {
      /* one row per path, the first */
      if (g_hash_table_add (seen, (gpointer) d.path))
        g_array_append_val (out->devices, d);
    }
  return TRUE;
}

/* GetStatistics' rows and ListDevices' facts, for a daemon without
 * GetDeviceStatistics. */
static void
stats_answer_from_devices (StatsAnswer *out, GVariant *devices, GVariant *stats)
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
  stats_answer_from_devices (out, devices, stats);
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
static GArray *
stats_lines (StatsAnswer *now, StatsAnswer *before, const char *class, guint64 min_window_ms)
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

static GArray *
lines_class_totals (GArray *lines)
{
  g_autofree PpStatsRow *rows = g_new (PpStatsRow, lines->len + 1);

  for (guint i = 0; i < lines->len; i++)
    rows[i] = g_array_index (lines, StatsLine, i).row;
  return pp_stats_class_totals (rows, lines->len);
}

static char *
format_ms (guint64 ms)
{
  if (ms < 1000)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "ms", ms);
  if (ms < 60 * 1000)
    return g_strdup_printf ("%.1fs", ms / 1000.0);
  if (ms < 3600 * 1000)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "m%02" G_GUINT64_FORMAT "s",
                            ms / 60000, (ms / 1000) % 60);
  return g_strdup_printf ("%" G_GUINT64_FORMAT "h%02" G_GUINT64_FORMAT "m",
                          ms / 3600000, (ms / 60000) % 60);
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
                           format_ms (r->active_ms), format_ms (r->suspended_ms),
                           format_share (r->suspended_share),
                           g_strdup (r->never_suspends ? "never suspends (allowed)" : ""));
      pmctl_table_colour (t, ctl, 6, 0, PMCTL_SGR_BOLD_RED);
    }
  for (guint i = 0; i < totals->len; i++)
    {
      PpStatsClassTotal *ct = &g_array_index (totals, PpStatsClassTotal, i);

      pmctl_table_add_row (c, g_strdup (class_or_dash (ct->class)),
                           g_strdup_printf ("%u", ct->n_devices),
                           format_ms (ct->active_ms), format_ms (ct->suspended_ms),
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

/* --json stats is written as it goes, not built as a tree of nodes first
 * (ten thousand devices are a hundred thousand nodes): the same text
 * json-glib's generator prints (compact, or indented by 2 on a terminal). */
typedef struct {
  FILE     *out;
  gboolean  pretty;
  guint     depth;
  gboolean  comma;      /* a value came before at this depth */
} JsonOut;

static void
json_out_string (JsonOut *j, const char *text)
{
  const char *run = text;

  putc ('"', j->out);
  for (const char *p = text; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;
      const char *named = NULL;

      switch (c)
        {
        case '"': named = "\\\""; break;
        case '\\': named = "\\\\"; break;
        case '\b': named = "\\b"; break;
        case '\f': named = "\\f"; break;
        case '\n': named = "\\n"; break;
        case '\r': named = "\\r"; break;
        case '\t': named = "\\t"; break;
        default:
          if (c >= 0x20 && c != 0x7f)
            continue;
          break;
        }
      fwrite (run, 1, (size_t) (p - run), j->out);
      if (named != NULL)
        fputs (named, j->out);
      else
        fprintf (j->out, "\\u%04x", c);
      run = p + 1;
    }
  fputs (run, j->out);
  putc ('"', j->out);
}

/* Before a value: the comma, the line and the member's name. */
static void
json_out_next (JsonOut *j, const char *name)
{
  if (j->comma)
    putc (',', j->out);
  if (j->pretty && j->depth > 0)
    fprintf (j->out, "\n%*s", (int) j->depth * 2, "");
  if (name != NULL)
    {
      json_out_string (j, name);
      fputs (j->pretty ? " : " : ":", j->out);
    }
  j->comma = TRUE;
}

static void
json_out_begin (JsonOut *j, const char *name, char open)
{
  json_out_next (j, name);
  putc (open, j->out);
  j->depth++;
  j->comma = FALSE;
}

static void
json_out_end (JsonOut *j, char close)
{
  gboolean empty = !j->comma;

  j->depth--;
  if (j->pretty && !empty)
    fprintf (j->out, "\n%*s", (int) j->depth * 2, "");
  putc (close, j->out);
  j->comma = TRUE;
}

static void
json_out_str (JsonOut *j, const char *name, const char *value)
{
  json_out_next (j, name);
  json_out_string (j, value);
}

static void
json_out_bool (JsonOut *j, const char *name, gboolean value)
{
  json_out_next (j, name);
  fputs (value ? "true" : "false", j->out);
}

/* A counter as a JSON number (clamped). */
static void
json_out_count (JsonOut *j, const char *name, guint64 value)
{
  json_out_next (j, name);
  fprintf (j->out, "%" G_GINT64_FORMAT, (gint64) MIN (value, (guint64) G_MAXINT64));
}

/* As json-glib prints a double: %.17g, and ".0" when it reads as an integer. */
static void
json_out_double (JsonOut *j, const char *name, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  json_out_next (j, name);
  g_ascii_formatd (buf, sizeof buf, "%.17g", value);
  fputs (buf, j->out);
  if (strpbrk (buf, ".eEnN") == NULL)
    fputs (".0", j->out);
}

static void
stats_print_json (Pmctl *ctl, GArray *lines, GArray *totals, guint64 window_ms)
{
  JsonOut j = { stdout, ctl->tty, 0, FALSE };

  json_out_begin (&j, NULL, '{');
  if (window_ms > 0)
    json_out_count (&j, "window_ms", window_ms);
  else
    {
      json_out_next (&j, "window_ms");
      fputs ("null", j.out);
    }
  json_out_begin (&j, "devices", '[');
  for (guint i = 0; i < lines->len; i++)
    {
      StatsLine *l = &g_array_index (lines, StatsLine, i);
      const PpResidency *r = &l->row.residency;

      json_out_begin (&j, NULL, '{');
      json_out_str (&j, "path", l->row.path);
      json_out_str (&j, "class", l->row.class != NULL ? l->row.class : "");
      json_out_str (&j, "runtime_status", l->dev->runtime_status);
      json_out_bool (&j, "control_auto", l->dev->control_auto);
      json_out_count (&j, "active_ms", r->active_ms);
      json_out_count (&j, "suspended_ms", r->suspended_ms);
      json_out_double (&j, "suspended_share", r->suspended_share);
      json_out_bool (&j, "never_suspends", r->never_suspends);
      json_out_end (&j, '}');
    }
  json_out_end (&j, ']');
  json_out_begin (&j, "classes", '[');
  for (guint i = 0; i < totals->len; i++)
    {
      PpStatsClassTotal *ct = &g_array_index (totals, PpStatsClassTotal, i);

      json_out_begin (&j, NULL, '{');
      json_out_str (&j, "class", ct->class != NULL ? ct->class : "");
      json_out_count (&j, "devices", ct->n_devices);
      json_out_count (&j, "active_ms", ct->active_ms);
      json_out_count (&j, "suspended_ms", ct->suspended_ms);
      json_out_double (&j, "suspended_share", ct->suspended_share);
      json_out_count (&j, "never_suspends", ct->n_never_suspends);
      json_out_end (&j, '}');
    }
  json_out_end (&j, ']');
  json_out_end (&j, '}');
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
  g_autoptr(GArray) lines = stats_lines (now, before, class, min_window);
  g_autoptr(GArray) totals = lines_class_totals (lines);

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
      stats_answer_clear (&now);
      return pmctl_finish_output (PMCTL_EXIT_OK);
    }

  /* on a terminal a refreshing view until interrupted; piped or --json,
   * one window */
  refresh = ctl->tty && !ctl->json;
  do
    {
      stats_answer_clear (&before);
      before = now;
      memset (&now, 0, sizeof now);
      g_usleep ((gulong) opt_interval * G_USEC_PER_SEC);
      if (!stats_ask (ctl, &now))
        {
          stats_answer_clear (&before);
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
  stats_answer_clear (&before);
  stats_answer_clear (&now);
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

/* ---- metrics ------------------------------------------------------------- */

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
  stats_answer_from_devices (answer, devices, stats);
  lines = stats_lines (answer, NULL, NULL, PP_STATS_MIN_WINDOW_MS_DEFAULT);
  *out_totals = lines_class_totals (lines);
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
          stats_answer_clear (&answer);
          return PMCTL_EXIT_FAILURE;
        }
    }
  m.devices = (const PpMetricsDeviceCount *) (gpointer) counts->data;
  m.n_devices = counts->len;
  m.classes = (const PpMetricsClass *) (gpointer) classes->data;
  m.n_classes = classes->len;

  if (!metrics_ask_inhibitors (ctl, &m))
    {
      stats_answer_clear (&answer);
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
  stats_answer_clear (&answer);
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
