/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's residency answers, shared by pmctl stats (pmctl-stats.c)
 * and pmctl metrics (pmctl-metrics.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

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

void     pmctl_stats_answer_clear        (StatsAnswer *a);
/* @out from GetStatistics' rows @stats and ListDevices' @devices (an
 * older daemon). */
void     pmctl_stats_answer_from_devices (StatsAnswer *out,
                                          GVariant    *devices,
                                          GVariant    *stats);
/* The lines of @now (over the window since @before when not NULL),
 * filtered by @class, sorted by active time. Strings are @now's. */
GArray  *pmctl_stats_lines               (StatsAnswer *now,
                                          StatsAnswer *before,
                                          const char  *class,
                                          guint64      min_window_ms);
/* PpStatsClassTotal per class of @lines. */
GArray  *pmctl_stats_class_totals        (GArray      *lines);

G_END_DECLS
