/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runtime-PM residency (issue 13; org.powerpolicy1.Manager.xml,
 * GetStatistics): the share of
 * time a device spent suspended between two samples of the kernel's own
 * counters. Pure: the samples are read by src/backends/pp-residency.c
 * when someone asks, never on a timer.
 *
 * Counters (Documentation/ABI/testing/sysfs-devices-power, sysfs-bus-usb):
 * power/runtime_active_time and power/runtime_suspended_time (ms, kept
 * since runtime PM was initialised for the device); USB devices also have
 * power/active_duration and power/connected_duration (ms since
 * connected), used when the runtime counters are missing. A device that
 * is unplugged and plugged back starts again from 0: a counter that went
 * backwards means "re-base", never a negative time. */
#pragma once

#include <glib.h>

#include "pp-enums.h"

G_BEGIN_DECLS

/* A decimal millisecond counter as sysfs prints it ("1234\n"): FALSE for
 * NULL, empty, signs, garbage or overflow. */
gboolean         pp_stats_parse_ms             (const char      *text,
                                                guint64         *out_ms);

/* How a sample's counters were obtained. */
typedef enum {
  PP_RESIDENCY_SOURCE_NONE = 0,    /* no counters: nothing can be said */
  PP_RESIDENCY_SOURCE_RUNTIME,     /* power/runtime_{active,suspended}_time */
  PP_RESIDENCY_SOURCE_USB,         /* power/{active,connected}_duration */
} PpResidencySource;

/* One reading of a device's counters. A zeroed sample with a source set
 * is the "since the device appeared" base. */
typedef struct {
  PpResidencySource source;
  guint64           active_ms;     /* RUNTIME: active time; USB: active_duration */
  guint64           suspended_ms;  /* RUNTIME: suspended time; USB: connected - active */
  PpRuntimeStatus   status;        /* power/runtime_status when read */
  gboolean          control_auto;  /* power/control is "auto": suspend allowed */
} PpResidencySample;

/* A zero base for @source ("counted since the device appeared"). */
void             pp_residency_sample_zero      (PpResidencySample *sample,
                                                PpResidencySource  source);

/* Residency between two samples. */
typedef struct {
  guint64   active_ms;        /* active time in the window */
  guint64   suspended_ms;     /* suspended time in the window */
  double    suspended_share;  /* suspended / (active + suspended), 0..1; 0 for an empty window */
  gboolean  rebased;          /* counters went backwards (re-plugged): the window is
                               * "since the counters restarted", i.e. @now itself */
  gboolean  never_suspends;   /* suspend allowed (control=auto), active now, no
                               * suspended time in a window of at least min_window_ms */
} PpResidency;

/* What the never-suspends flag needs at least (a device whose autosuspend
 * delay is a few seconds has had many chances in a minute). */
#define PP_STATS_MIN_WINDOW_MS_DEFAULT ((guint64) 60000)

/* Residency of @now against @base. FALSE (and @out zeroed) when @now has
 * no counters. A base of another source, or with a counter above @now's,
 * is a reset: @out covers @now's counters alone and says rebased; the
 * caller then keeps a zero base of @now's source (see
 * pp_stats_rebase()). */
gboolean         pp_stats_compute              (const PpResidencySample *base,
                                                const PpResidencySample *now,
                                                guint64                  min_window_ms,
                                                PpResidency             *out);

/* A client holding GetStatistics' (active ms, suspended ms) and the
 * device's runtime_status and control (ListDevices) gets the
 * never-suspends flag with @base NULL and @now built from them
 * (source PP_RESIDENCY_SOURCE_RUNTIME); over an --interval, @base is the
 * first answer and @now the second. */

/* After pp_stats_compute() said rebased: the base to keep from now on. */
void             pp_stats_rebase               (PpResidencySample       *base,
                                                const PpResidencySample *now);

/* One device in a statistics answer; strings are borrowed. */
typedef struct {
  const char  *path;
  const char  *class;         /* "" or NULL: unclassified */
  PpResidency  residency;
} PpStatsRow;

/* Totals of one class. */
typedef struct {
  const char *class;          /* borrowed from the rows ("" when unclassified) */
  guint       n_devices;
  guint       n_never_suspends;
  guint64     active_ms;
  guint64     suspended_ms;
  double      suspended_share; /* time-weighted: sum suspended / sum (active + suspended) */
} PpStatsClassTotal;

/* Per-class totals of @rows, an array of PpStatsClassTotal sorted by
 * class name. Cost: O(n log n). */
GArray          *pp_stats_class_totals         (const PpStatsRow *rows,
                                                guint             n_rows);

/* The display order: most active time first, then path (the "which
 * device keeps the machine awake" order); for a caller sorting rows of
 * its own that start with a PpStatsRow. */
gint             pp_stats_compare_rows         (const PpStatsRow *a,
                                                const PpStatsRow *b);

/* Sort @rows in place for display (pp_stats_compare_rows()). */
void             pp_stats_sort_rows            (PpStatsRow       *rows,
                                                guint             n_rows);

G_END_DECLS
