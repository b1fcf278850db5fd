/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `pmctl metrics` (issue 13; pmctl(1)): the daemon's state in the
 * Prometheus text exposition format (version 0.0.4), for node_exporter's
 * textfile collector. Pure: the caller fills a plain struct from what it
 * asked the daemon; this only formats. Shared by pmctl and the tests.
 *
 * Families (all prefixed powerpolicy_, base units, counters end _total):
 *   powerpolicy_devices{class,runtime_status}               gauge
 *   powerpolicy_class_suspended_ratio{class}                gauge 0..1
 *   powerpolicy_class_never_suspending_devices{class}       gauge
 *   powerpolicy_overrides                                   gauge
 *   powerpolicy_holds                                       gauge
 *   powerpolicy_inhibitors                                  gauge
 *   powerpolicy_conflicts                                   gauge
 *   powerpolicy_write_failures_total                        counter
 *   powerpolicy_on_battery                                  gauge 0/1
 *   powerpolicy_user_idle                                   gauge 0/1
 *   powerpolicy_last_policy_pass_duration_seconds           gauge
 *   powerpolicy_last_sleep_duration_seconds                 gauge
 *   powerpolicy_last_sleep_success                          gauge 0/1
 *   powerpolicy_last_sleep_hardware_sleep_ratio             gauge 0..1
 *   powerpolicy_last_sleep_drain_watts                      gauge
 *   powerpolicy_sleep_failures_total                        counter
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Devices of one class in one runtime status. Rows with the same class
 * and status are added up. */
typedef struct {
  const char *class;            /* NULL or "": unclassified (label value "") */
  const char *runtime_status;   /* "active", "suspended", ... (NULL: "unknown") */
  guint       count;
} PpMetricsDeviceCount;

/* Residency of one class (pp_stats_class_totals()). A class given twice
 * is written once (the first). */
typedef struct {
  const char *class;
  double      suspended_ratio;  /* 0..1; NaN: unknown, the sample is left out */
  guint       n_never_suspend;  /* devices flagged "never suspends although allowed" */
} PpMetricsClass;

/* What a client could not ask a daemon (an older one, or a field no
 * method reports): written as a family without samples, never as 0. */
typedef enum {
  PP_METRICS_UNKNOWN_OVERRIDES      = 1 << 0,
  PP_METRICS_UNKNOWN_CONFLICTS      = 1 << 1,
  PP_METRICS_UNKNOWN_WRITE_FAILURES = 1 << 2,
} PpMetricsUnknown;

typedef struct {
  const PpMetricsDeviceCount *devices;
  guint                       n_devices;
  const PpMetricsClass       *classes;
  guint                       n_classes;
  guint                       n_overrides;
  guint                       n_holds;
  guint                       n_inhibitors;
  guint                       n_conflicts;
  guint64                     write_failures_total;  /* since the daemon started */
  gboolean                    on_battery;
  gboolean                    user_idle;
  double                      last_pass_seconds;     /* < 0 or NaN: no pass yet, left out */
  guint                       unknown;               /* PpMetricsUnknown: families whose
                                                      * value the caller could not learn
                                                      * (header written, sample left out) */
  /* the last system sleep (LastSleep); FALSE: none recorded, its
   * families have no sample */
  gboolean                    has_last_sleep;
  double                      last_sleep_seconds;
  gboolean                    last_sleep_ok;
  double                      last_sleep_hw_ratio;   /* NaN: unknown, no sample */
  double                      last_sleep_drain_watts;/* NaN: unknown, no sample */
  /* failed system sleeps since boot (the kernel's suspend_stats/fail) */
  gboolean                    has_sleep_failures;
  guint64                     sleep_failures_total;
} PpMetrics;

/* Longest label value written; longer ones are cut at a UTF-8 character
 * boundary (class names come from udev rules anyone may write). */
#define PP_METRICS_MAX_LABEL 256

/* Append the exposition text of @metrics to @out (newline-terminated,
 * families in the order above, samples sorted by labels). Invalid UTF-8
 * in label values is replaced; backslash, double quote and newline are
 * escaped as the format requires. */
void   pp_metrics_format_to       (const PpMetrics *metrics,
                                   GString         *out);
/* The same as a new string. */
char  *pp_metrics_format          (const PpMetrics *metrics);

/* Escape a label value as the exposition format requires (\\, \", \n),
 * after making it valid UTF-8 and cutting it to PP_METRICS_MAX_LABEL; the
 * other control characters (C0, DEL, C1) are left out. */
void   pp_metrics_append_label_value (GString    *out,
                                      const char *value);

G_END_DECLS
