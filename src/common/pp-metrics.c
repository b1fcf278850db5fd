/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-metrics"

#include "config.h"

#include <math.h>
#include <string.h>

#include "pp-format.h"
#include "pp-metrics.h"

void
pp_metrics_append_label_value (GString    *out,
                               const char *value)
{
  /* the format has no escape for the other control characters: left out,
   * so that none reaches a terminal the exposition is printed on */
  pp_format_append_escaped (out, value, PP_METRICS_MAX_LABEL, TRUE);
}

static void
append_header (GString    *out,
               const char *name,
               const char *type,
               const char *help)
{
  /* HELP text: only backslash and newline are escaped; ours has neither */
  g_string_append_printf (out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void
append_double (GString *out,
               double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (value))
    g_string_append (out, "NaN");
  else if (isinf (value))
    g_string_append (out, value > 0 ? "+Inf" : "-Inf");
  else
    {
      /* the shortest of %.15g and %.17g that reads back as @value */
      g_ascii_formatd (buf, sizeof buf, "%.15g", value);
      if (g_ascii_strtod (buf, NULL) != value)
        g_ascii_formatd (buf, sizeof buf, "%.17g", value);
      g_string_append (out, buf);
    }
}

static void
append_scalar (GString    *out,
               const char *name,
               const char *type,
               const char *help,
               guint64     value)
{
  append_header (out, name, type, help);
  g_string_append_printf (out, "%s %" G_GUINT64_FORMAT "\n", name, value);
}

/* ---- devices by class and status ---------------------------------------- */

typedef struct {
  const char *class;
  const char *status;
  guint64     count;
} DeviceKey;

static gint
compare_device_keys (gconstpointer a, gconstpointer b)
{
  const DeviceKey *ka = a, *kb = b;
  int c = strcmp (ka->class, kb->class);

  return c != 0 ? c : strcmp (ka->status, kb->status);
}

static void
append_devices (GString *out, const PpMetrics *m)
{
  g_autoptr(GArray) keys = g_array_new (FALSE, TRUE, sizeof (DeviceKey));

  append_header (out, "powerpolicy_devices", "gauge",
                 "Devices managed, by class and runtime PM status.");
  for (guint i = 0; i < m->n_devices; i++)
    {
      DeviceKey k = {
        m->devices[i].class != NULL ? m->devices[i].class : "",
        m->devices[i].runtime_status != NULL ? m->devices[i].runtime_status : "unknown",
        m->devices[i].count,
      };
      g_array_append_val (keys, k);
    }
  g_array_sort (keys, compare_device_keys);
  for (guint i = 0; i < keys->len; i++)
    {
      DeviceKey *k = &g_array_index (keys, DeviceKey, i);
      guint64 sum = k->count;

      /* one sample per label set: add up repeated rows */
      while (i + 1 < keys->len &&
             compare_device_keys (k, &g_array_index (keys, DeviceKey, i + 1)) == 0)
        sum += g_array_index (keys, DeviceKey, ++i).count;
      g_string_append (out, "powerpolicy_devices{class=\"");
      pp_metrics_append_label_value (out, k->class);
      g_string_append (out, "\",runtime_status=\"");
      pp_metrics_append_label_value (out, k->status);
      g_string_append_printf (out, "\"} %" G_GUINT64_FORMAT "\n", sum);
    }
}

/* ---- per class ------------------------------------------------------------ */

static gint
compare_classes (gconstpointer a, gconstpointer b)
{
  const PpMetricsClass *ca = *(const PpMetricsClass * const *) a;
  const PpMetricsClass *cb = *(const PpMetricsClass * const *) b;

  return strcmp (ca->class != NULL ? ca->class : "", cb->class != NULL ? cb->class : "");
}

/* The classes sorted by name, the first of each name only. */
static GPtrArray *
unique_classes (const PpMetrics *m)
{
  GPtrArray *sorted = g_ptr_array_new ();
  GPtrArray *unique = g_ptr_array_new ();

  for (guint i = 0; i < m->n_classes; i++)
    g_ptr_array_add (sorted, (gpointer) &m->classes[i]);
  /* g_ptr_array_sort is not stable: order equal names by position */
  g_ptr_array_sort (sorted, compare_classes);
  for (guint i = 0; i < sorted->len; i++)
    {
      const PpMetricsClass *c = sorted->pdata[i];
      const PpMetricsClass *first = c;

      while (i + 1 < sorted->len && compare_classes (&c, &sorted->pdata[i + 1]) == 0)
        {
          const PpMetricsClass *next = sorted->pdata[++i];

          if (next < first)
            first = next;
        }
      g_ptr_array_add (unique, (gpointer) first);
    }
  g_ptr_array_unref (sorted);
  return unique;
}

static void
append_class_label (GString *out, const char *name, const PpMetricsClass *c)
{
  g_string_append_printf (out, "%s{class=\"", name);
  pp_metrics_append_label_value (out, c->class);
  g_string_append (out, "\"} ");
}

static void
append_classes (GString *out, const PpMetrics *m)
{
  g_autoptr(GPtrArray) classes = unique_classes (m);

  append_header (out, "powerpolicy_class_suspended_ratio", "gauge",
                 "Share of time the devices of a class spent runtime-suspended since the last policy change (0..1).");
  for (guint i = 0; i < classes->len; i++)
    {
      const PpMetricsClass *c = classes->pdata[i];

      if (isnan (c->suspended_ratio))
        continue;
      append_class_label (out, "powerpolicy_class_suspended_ratio", c);
      append_double (out, CLAMP (c->suspended_ratio, 0.0, 1.0));
      g_string_append_c (out, '\n');
    }

  append_header (out, "powerpolicy_class_never_suspending_devices", "gauge",
                 "Devices of a class allowed to runtime-suspend that have not suspended since the last policy change.");
  for (guint i = 0; i < classes->len; i++)
    {
      const PpMetricsClass *c = classes->pdata[i];

      append_class_label (out, "powerpolicy_class_never_suspending_devices", c);
      g_string_append_printf (out, "%u\n", c->n_never_suspend);
    }
}

/* append_scalar(), or the header alone when the value is unknown. */
static void
append_scalar_opt (GString *out, const char *name, const char *type,
                   const char *help, guint64 value, gboolean unknown)
{
  if (unknown)
    append_header (out, name, type, help);
  else
    append_scalar (out, name, type, help, value);
}

/* A gauge whose sample is left out when @known is FALSE or @value NaN. */
static void
append_gauge_opt (GString *out, const char *name, const char *help, double value, gboolean known)
{
  append_header (out, name, "gauge", help);
  if (!known || isnan (value))
    return;
  g_string_append_printf (out, "%s ", name);
  append_double (out, value);
  g_string_append_c (out, '\n');
}

static void
append_sleep (GString *out, const PpMetrics *m)
{
  append_gauge_opt (out, "powerpolicy_last_sleep_duration_seconds",
                    "Length of the last recorded system sleep.",
                    m->last_sleep_seconds, m->has_last_sleep);
  append_gauge_opt (out, "powerpolicy_last_sleep_success",
                    "1 when the last recorded system sleep succeeded, 0 when it failed.",
                    m->last_sleep_ok ? 1 : 0, m->has_last_sleep);
  append_gauge_opt (out, "powerpolicy_last_sleep_hardware_sleep_ratio",
                    "Share of the last recorded system sleep spent in the hardware's deepest state (0..1).",
                    CLAMP (m->last_sleep_hw_ratio, 0.0, 1.0), m->has_last_sleep);
  append_gauge_opt (out, "powerpolicy_last_sleep_drain_watts",
                    "Average power drawn from the battery during the last recorded system sleep.",
                    m->last_sleep_drain_watts, m->has_last_sleep);
  append_header (out, "powerpolicy_sleep_failures_total", "counter",
                 "System sleeps that failed since boot (the kernel's suspend_stats/fail).");
  if (m->has_sleep_failures)
    g_string_append_printf (out, "powerpolicy_sleep_failures_total %" G_GUINT64_FORMAT "\n",
                            m->sleep_failures_total);
}

void
pp_metrics_format_to (const PpMetrics *m,
                      GString         *out)
{
  append_devices (out, m);
  append_classes (out, m);
  append_scalar_opt (out, "powerpolicy_overrides", "gauge",
                     "Overrides set over D-Bus.", m->n_overrides,
                     m->unknown & PP_METRICS_UNKNOWN_OVERRIDES);
  append_scalar (out, "powerpolicy_holds", "gauge",
                 "Devices held powered by clients.", m->n_holds);
  append_scalar (out, "powerpolicy_inhibitors", "gauge",
                 "Idle and lid inhibitors held by clients.", m->n_inhibitors);
  append_scalar_opt (out, "powerpolicy_conflicts", "gauge",
                     "Other power tools or writers found changing what the daemon manages.",
                     m->n_conflicts, m->unknown & PP_METRICS_UNKNOWN_CONFLICTS);
  append_scalar_opt (out, "powerpolicy_write_failures_total", "counter",
                     "Attribute writes that failed since the daemon started.",
                     m->write_failures_total, m->unknown & PP_METRICS_UNKNOWN_WRITE_FAILURES);
  append_scalar (out, "powerpolicy_on_battery", "gauge",
                 "1 when the machine runs on battery.", m->on_battery ? 1 : 0);
  append_scalar (out, "powerpolicy_user_idle", "gauge",
                 "1 when the user is idle.", m->user_idle ? 1 : 0);
  append_header (out, "powerpolicy_last_policy_pass_duration_seconds", "gauge",
                 "Wall time of the last policy pass.");
  if (!isnan (m->last_pass_seconds) && m->last_pass_seconds >= 0)
    {
      g_string_append (out, "powerpolicy_last_policy_pass_duration_seconds ");
      append_double (out, m->last_pass_seconds);
      g_string_append_c (out, '\n');
    }
  append_sleep (out, m);
}

char *
pp_metrics_format (const PpMetrics *metrics)
{
  GString *out = g_string_sized_new (4096);

  pp_metrics_format_to (metrics, out);
  return g_string_free (out, FALSE);
}
