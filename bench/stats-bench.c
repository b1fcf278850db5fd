/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Times the statistics building blocks of issue 13 over a device list:
 * counter reading (pp-residency), GetStatistics' a(sdtt) answer, class
 * totals (pp-stats), the Prometheus text (pp-metrics) and the Graphviz
 * tree (pp-dot); and the floors the running daemon is measured against
 * (issue 22): reading the counters of the managed (tagged) devices only,
 * and building ListDevices' aa{sv} for them from rows in memory, without
 * and with reading the four power/ attributes the daemon reads for each
 * answer.
 * Compiled and run by bench/stats; prints JSON.
 *
 *   stats-bench LISTFILE RUNS
 *   stats-bench LISTFILE serve
 *   stats-bench client
 * LISTFILE: one "syspath<TAB>class<TAB>parent-or-empty<TAB>tagged" per
 * line (tagged: 1 when udev's rules tag the device, i.e. the daemon
 * manages it). serve: one floor pass per line of stdin (serve()).
 * client: one ListDevices call to the running daemon per line of stdin,
 * through sd-bus, its whole reply received and walked (client()). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <gio/gio.h>
#include <systemd/sd-bus.h>

#include "pp-device-row.h"
#include "pp-dot.h"
#include "pp-metrics.h"
#include "pp-power-state.h"
#include "pp-residency.h"
#include "pp-stats.h"

typedef struct {
  GPtrArray *paths;
  GPtrArray *classes;
  GPtrArray *parents;
  GPtrArray *managed;     /* the tagged devices' paths (borrowed) */
  GPtrArray *managed_classes;
  GPtrArray *managed_parents;
} DeviceList;

static double
now_s (void)
{
  return (double) g_get_monotonic_time () / G_USEC_PER_SEC;
}

/* user + system CPU time of this process: less sensitive than wall time to
 * the other load on a shared machine */
static double
cpu_s (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *v, guint n)
{
  qsort (v, n, sizeof *v, compare_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double *cpu_times;

static long
peak_rss_kib (void)
{
  g_autofree char *status = NULL;
  const char *hwm;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL) ||
      (hwm = strstr (status, "VmHWM:")) == NULL)
    return -1;
  return strtol (hwm + 6, NULL, 10);
}

/* Median, min and max of wall and CPU time over the runs (the spread
 * bench/stats prints), then every wall time in run order. */
static void
print_result (const char *name, double *times, guint runs, gsize bytes, guint items, gboolean last)
{
  g_autofree double *sorted = g_memdup2 (times, runs * sizeof *times);
  double cpu = median (cpu_times, runs);
  double wall = median (sorted, runs);

  printf ("  \"%s\": {\"median_s\": %.6f, \"min_s\": %.6f, \"max_s\": %.6f, "
          "\"cpu_s\": %.6f, \"cpu_min_s\": %.6f, \"cpu_max_s\": %.6f, "
          "\"bytes\": %" G_GSIZE_FORMAT ", \"items\": %u, \"samples_s\": [",
          name, wall, sorted[0], sorted[runs - 1], cpu, cpu_times[0], cpu_times[runs - 1],
          bytes, items);
  for (guint r = 0; r < runs; r++)
    printf ("%s%.6f", r ? ", " : "", times[r]);
  printf ("]}%s\n", last ? "" : ",");
}

/* ---- the floors, one pass each ------------------------------------------ */

/* GetStatistics(""), GetClassStatistics and CountDevices' floor: read the
 * counters (and runtime_status, control) of the managed devices, nothing
 * else. The number of devices with counters. */
static guint
floor_managed_counters (const DeviceList *list)
{
  guint n = 0;

  for (guint i = 0; i < list->managed->len; i++)
    {
      PpResidencySample sample;

      if (pp_residency_read (list->managed->pdata[i], &sample, NULL))
        n++;
    }
  return n;
}

/* GetStatistics("") alone: since issue 22 it reads the two counters and
 * nothing else (no runtime_status, no control); a book without bases, so
 * nothing but the reads and a lookup */
static guint
floor_managed_counters_only (const DeviceList *list, PpResidencyBook *empty)
{
  guint n = 0;

  for (guint i = 0; i < list->managed->len; i++)
    {
      PpResidency res;

      if (pp_residency_book_query_fields (empty, list->managed->pdata[i],
                                          PP_RESIDENCY_COUNTERS, &res, NULL, NULL))
        n++;
    }
  return n;
}

/* ListDevices' rows from memory (@live FALSE), or with the four power/
 * attributes the daemon reads for each answer, read the way it reads
 * them (@live TRUE): the aa{sv} built the way the daemon builds its
 * reply; its size. */
static gsize
floor_list_devices (const PpDeviceRow *mrows, guint m, gboolean live)
{
  PpDeviceRows *built = pp_device_rows_new (m);
  g_autoptr(GVariant) v = NULL;

  for (guint i = 0; i < m; i++)
    {
      PpDeviceRow row = mrows[i];
      PpPowerState state;

      if (live)
        {
          pp_power_state_read (row.path, PP_POWER_STATE_ALL, &state);
          row.runtime_status = state.runtime_status;
          row.control = state.control;
          row.autosuspend_delay_ms = state.autosuspend_delay_ms;
          row.wakeup = state.wakeup;
        }
      pp_device_rows_add (built, &row);
    }
  v = g_variant_ref_sink (pp_device_rows_end (built));
  g_variant_get_data (v);
  return g_variant_get_size (v);
}

/* The rows of the managed devices as a daemon that kept every field
 * would have them. */
static PpDeviceRow *
managed_rows (const DeviceList *list)
{
  guint m = list->managed->len;
  PpDeviceRow *mrows = g_new0 (PpDeviceRow, m);

  for (guint i = 0; i < m; i++)
    {
      const char *klass = list->managed_classes->pdata[i];
      gboolean usb = g_str_equal (klass, "usb");

      mrows[i].path = list->managed->pdata[i];
      mrows[i].subsystem = klass;
      mrows[i].class = klass;
      mrows[i].driver = usb ? "usb" : "pcieport";
      mrows[i].parent = list->managed_parents->pdata[i];
      mrows[i].runtime_status = "active";
      mrows[i].control = "auto";
      mrows[i].autosuspend_delay_ms = usb ? 1000 : -1;
      mrows[i].wakeup = usb ? "disabled" : "";
      mrows[i].blocker = "";
      mrows[i].excluded = "";
    }
  return mrows;
}

/* "serve": one pass of the floor each line of stdin names ("live",
 * "memory", "counters", "counters_only"), answered with one line of
 * JSON (wall and CPU time), so that bench/stats can take a floor right
 * before each question it times: on a shared machine the two then see
 * the same load. */
static int
serve (const DeviceList *list)
{
  g_autofree PpDeviceRow *mrows = managed_rows (list);
  g_autoptr(PpResidencyBook) empty = pp_residency_book_new (0);
  char line[64];

  printf ("ready\n");
  fflush (stdout);
  while (fgets (line, sizeof line, stdin) != NULL)
    {
      double t0 = now_s (), c0 = cpu_s ();

      g_strchomp (line);
      if (g_str_equal (line, "live"))
        floor_list_devices (mrows, list->managed->len, TRUE);
      else if (g_str_equal (line, "memory"))
        floor_list_devices (mrows, list->managed->len, FALSE);
      else if (g_str_equal (line, "counters"))
        floor_managed_counters (list);
      else if (g_str_equal (line, "counters_only"))
        floor_managed_counters_only (list, empty);
      else
        {
          printf ("{\"error\": \"unknown floor\"}\n");
          fflush (stdout);
          continue;
        }
      printf ("{\"wall_s\": %.6f, \"cpu_s\": %.6f}\n", now_s () - t0, cpu_s () - c0);
      fflush (stdout);
    }
  return 0;
}

/* ---- ListDevices as the daemon answers it -------------------------------- */

/* Every value inside the container sd-bus has entered (or the whole
 * message at depth 0), read one by one: what any client must do to take
 * the reply in, with no value object made for any of them. The number of
 * basic values, or a negative errno. */
static long
walk_values (sd_bus_message *m)
{
  long n = 0;
  char type;
  const char *contents;
  int r;

  while ((r = sd_bus_message_peek_type (m, &type, &contents)) > 0)
    {
      long inner;

      if (!strchr ("avre", type))
        {
          if ((r = sd_bus_message_read_basic (m, type, NULL)) < 0)
            return r;
          n++;
          continue;
        }
      if ((r = sd_bus_message_enter_container (m, type, contents)) < 0 ||
          (inner = walk_values (m)) < 0 ||
          (r = sd_bus_message_exit_container (m)) < 0)
        return r < 0 ? r : -EBADMSG;
      n += inner;
    }
  return r < 0 ? r : n;
}

/* "client": one ListDevices call per line of stdin on the system bus
 * (DBUS_SYSTEM_BUS_ADDRESS), with sd-bus: the call, the whole reply
 * received and every value walked (walk_values()), answered with one
 * line of JSON: wall and CPU time of all of it, rows and values. Unlike
 * a GDBus client, nothing parses the reply into value objects on its
 * way in: this is ListDevices as the daemon answers it, the figure its
 * live floor (which makes the reply, and has no client) is paired with. */
static int
client (void)
{
  sd_bus *bus = NULL;
  char line[64];
  int r;

  if ((r = sd_bus_open_system (&bus)) < 0)
    {
      fprintf (stderr, "stats-bench client: cannot connect to the system bus: %s\n", g_strerror (-r));
      return 1;
    }
  /* as bench/stats' GDBus client waits */
  sd_bus_set_method_call_timeout (bus, 120 * G_USEC_PER_SEC);
  printf ("ready\n");
  fflush (stdout);
  while (fgets (line, sizeof line, stdin) != NULL)
    {
      sd_bus_error error = SD_BUS_ERROR_NULL;
      sd_bus_message *reply = NULL;
      double t0 = now_s (), c0 = cpu_s ();
      long rows = -1, values = -1;

      r = sd_bus_call_method (bus, "org.powerpolicy1", "/org/powerpolicy1", "org.powerpolicy1.Manager",
                              "ListDevices", &error, &reply, "");
      if (r >= 0 && (r = sd_bus_message_enter_container (reply, 'a', "a{sv}")) > 0)
        {
          /* each row's values read (walk_values()), every one */
          for (rows = 0, values = 0; (r = sd_bus_message_peek_type (reply, NULL, NULL)) > 0; rows++)
            {
              long n;

              if ((r = sd_bus_message_enter_container (reply, 'a', "{sv}")) <= 0 ||
                  (n = walk_values (reply)) < 0 ||
                  (r = sd_bus_message_exit_container (reply)) < 0)
                {
                  values = -1;
                  break;
                }
              values += n;
            }
          if (r >= 0 && values >= 0)
            r = sd_bus_message_exit_container (reply);
        }
      if (r < 0 || values < 0)
        printf ("{\"error\": \"%s\"}\n", error.name != NULL ? error.name : g_strerror (r < 0 ? -r : EBADMSG));
      else
        printf ("{\"wall_s\": %.6f, \"cpu_s\": %.6f, \"rows\": %ld, \"values\": %ld}\n",
                now_s () - t0, cpu_s () - c0, rows, values);
      fflush (stdout);
      sd_bus_error_free (&error);
      sd_bus_message_unref (reply);
    }
  sd_bus_flush_close_unref (bus);
  return 0;
}

int
main (int argc, char **argv)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  DeviceList list = {
    g_ptr_array_new (), g_ptr_array_new (), g_ptr_array_new (),
    g_ptr_array_new (), g_ptr_array_new (), g_ptr_array_new (),
  };
  guint runs;
  guint n;
  double *t;
  gsize bytes = 0;
  guint n_rows = 0;
  g_autoptr(PpResidencyBook) book = pp_residency_book_new (0);
  g_autofree PpStatsRow *rows = NULL;
  g_autoptr(GArray) totals = NULL;
  g_autofree PpMetricsDeviceCount *counts = NULL;
  g_autofree PpMetricsClass *classes = NULL;
  g_autofree PpDotNode *nodes = NULL;
  g_autofree PpDotEdge *edges = NULL;
  guint n_edges = 0;

  if (argc == 2 && g_str_equal (argv[1], "client"))
    return client ();
  if (argc != 3)
    {
      fprintf (stderr, "usage: %s LISTFILE RUNS|serve, or %s client\n", argv[0], argv[0]);
      return 2;
    }
  if (!g_file_get_contents (argv[1], &contents, NULL, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  runs = (guint) CLAMP (g_ascii_strtoull (argv[2], NULL, 10), 1, 1000);
  t = g_new0 (double, runs);
  cpu_times = g_new0 (double, runs);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], "\t", 4);

      if (g_strv_length (f) != 4)
        continue;
      g_ptr_array_add (list.paths, g_strdup (f[0]));
      g_ptr_array_add (list.classes, g_strdup (f[1]));
      g_ptr_array_add (list.parents, g_strdup (f[2]));
      if (g_str_equal (f[3], "1"))
        {
          g_ptr_array_add (list.managed, list.paths->pdata[list.paths->len - 1]);
          g_ptr_array_add (list.managed_classes, list.classes->pdata[list.classes->len - 1]);
          g_ptr_array_add (list.managed_parents, list.parents->pdata[list.parents->len - 1]);
        }
    }
  n = list.paths->len;
  if (g_str_equal (argv[2], "serve"))
    return serve (&list);

  printf ("{\n  \"devices\": %u,\n", n);

  /* 1. the base at daemon start: read every device's counters */
  for (guint r = 0; r < runs; r++)
    {
      double t0 = now_s (), c0 = cpu_s ();

      pp_residency_book_set_base_all (book, (const char * const *) list.paths->pdata, n);
      t[r] = now_s () - t0;
      cpu_times[r] = cpu_s () - c0;
    }
  printf ("  \"with_counters\": %u,\n", pp_residency_book_get_n_bases (book));
  printf ("  \"managed\": %u,\n", list.managed->len);
  print_result ("set_base_all", t, runs, 0, n, FALSE);

  /* 2. GetStatistics(""): read again, compute, build a(sdtt) */
  for (guint r = 0; r < runs; r++)
    {
      double t0 = now_s (), c0 = cpu_s ();
      g_autoptr(GVariant) v = g_variant_ref_sink (
        pp_residency_book_get_statistics (book, (const char * const *) list.paths->pdata, n));

      bytes = g_variant_get_size (v);
      n_rows = (guint) g_variant_n_children (v);
      t[r] = now_s () - t0;
      cpu_times[r] = cpu_s () - c0;
    }
  print_result ("get_statistics", t, runs, bytes, n_rows, FALSE);

  /* 3. per-class totals over the rows (pure) */
  rows = g_new0 (PpStatsRow, n);
  n_rows = 0;
  for (guint i = 0; i < n; i++)
    {
      if (!pp_residency_book_query (book, list.paths->pdata[i], &rows[n_rows].residency, NULL, NULL))
        continue;
      rows[n_rows].path = list.paths->pdata[i];
      rows[n_rows].class = list.classes->pdata[i];
      n_rows++;
    }
  for (guint r = 0; r < runs; r++)
    {
      double t0 = now_s (), c0 = cpu_s ();

      g_clear_pointer (&totals, g_array_unref);
      totals = pp_stats_class_totals (rows, n_rows);
      t[r] = now_s () - t0;
      cpu_times[r] = cpu_s () - c0;
    }
  print_result ("class_totals", t, runs, 0, totals->len, FALSE);

  /* 4. the Prometheus text: one count per class x status, one share per class */
  counts = g_new0 (PpMetricsDeviceCount, n);
  for (guint i = 0; i < n; i++)
    {
      counts[i].class = list.classes->pdata[i];
      counts[i].runtime_status = (i % 3) == 0 ? "active" : (i % 3) == 1 ? "suspended" : "unsupported";
      counts[i].count = 1;
    }
  classes = g_new0 (PpMetricsClass, totals->len);
  for (guint i = 0; i < totals->len; i++)
    {
      const PpStatsClassTotal *ct = &g_array_index (totals, PpStatsClassTotal, i);

      classes[i].class = ct->class;
      classes[i].suspended_ratio = ct->suspended_share;
      classes[i].n_never_suspend = ct->n_never_suspends;
    }
  for (guint r = 0; r < runs; r++)
    {
      PpMetrics m = { .devices = counts, .n_devices = n, .classes = classes,
                      .n_classes = totals->len, .n_overrides = 3, .n_holds = 1,
                      .n_inhibitors = 2, .on_battery = TRUE, .last_pass_seconds = 0.012 };
      double t0 = now_s (), c0 = cpu_s ();
      g_autofree char *text = pp_metrics_format (&m);

      bytes = strlen (text);
      t[r] = now_s () - t0;
      cpu_times[r] = cpu_s () - c0;
    }
  print_result ("metrics_format", t, runs, bytes, totals->len, FALSE);

  /* 5. the whole tree as dot */
  nodes = g_new0 (PpDotNode, n);
  edges = g_new0 (PpDotEdge, n);
  for (guint i = 0; i < n; i++)
    {
      const char *parent = list.parents->pdata[i];

      nodes[i].path = list.paths->pdata[i];
      nodes[i].class = list.classes->pdata[i];
      nodes[i].runtime_status = counts[i].runtime_status;
      nodes[i].held = i % 997 == 0;
      nodes[i].blocker = i % 499 == 0;
      if (parent[0] != '\0')
        edges[n_edges++] = (PpDotEdge) { parent, nodes[i].path, PP_DOT_EDGE_PARENT };
    }
  for (guint r = 0; r < runs; r++)
    {
      double t0 = now_s (), c0 = cpu_s ();
      g_autofree char *text = pp_dot_format (nodes, n, edges, n_edges);

      bytes = strlen (text);
      t[r] = now_s () - t0;
      cpu_times[r] = cpu_s () - c0;
    }
  print_result ("dot_format", t, runs, bytes, n_edges, FALSE);

  /* 6. the floor of GetStatistics(""), GetClassStatistics and CountDevices */
  for (guint r = 0; r < runs; r++)
    {
      double t0 = now_s (), c0 = cpu_s ();

      n_rows = floor_managed_counters (&list);
      t[r] = now_s () - t0;
      cpu_times[r] = cpu_s () - c0;
    }
  print_result ("managed_counters", t, runs, 0, n_rows, FALSE);

  /* 6b. the floor of GetStatistics("") alone: the two counters */
  {
    g_autoptr(PpResidencyBook) empty = pp_residency_book_new (0);

    for (guint r = 0; r < runs; r++)
      {
        double t0 = now_s (), c0 = cpu_s ();

        n_rows = floor_managed_counters_only (&list, empty);
        t[r] = now_s () - t0;
        cpu_times[r] = cpu_s () - c0;
      }
    print_result ("managed_counters_only", t, runs, 0, n_rows, FALSE);
  }

  /* 7. the floor of ListDevices from rows in memory (what a daemon that
   * kept every field ready would still do), built the way the daemon
   * builds its reply (pp_device_rows_add()); 8. the same with the four
   * power/ attributes the daemon reads for each answer (it never keeps
   * them: pp-power-state.h) */
  {
    guint m = list.managed->len;
    g_autofree PpDeviceRow *mrows = managed_rows (&list);

    for (guint r = 0; r < runs; r++)
      {
        double t0 = now_s (), c0 = cpu_s ();

        bytes = floor_list_devices (mrows, m, FALSE);
        t[r] = now_s () - t0;
        cpu_times[r] = cpu_s () - c0;
      }
    print_result ("list_devices_floor", t, runs, bytes, m, FALSE);
    for (guint r = 0; r < runs; r++)
      {
        double t0 = now_s (), c0 = cpu_s ();

        bytes = floor_list_devices (mrows, m, TRUE);
        t[r] = now_s () - t0;
        cpu_times[r] = cpu_s () - c0;
      }
    print_result ("list_devices_live_floor", t, runs, bytes, m, FALSE);
  }

  /* VmHWM, not ru_maxrss: the latter keeps the peak of the forking
   * parent (Python, with the testbed) across exec */
  printf ("  \"maxrss_kib\": %ld\n}\n", peak_rss_kib ());
  g_free (t);
  return 0;
}
