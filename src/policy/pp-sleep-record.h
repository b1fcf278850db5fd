/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A record of one system sleep (issue 20; org.powerpolicy1.Manager.xml,
 * GetSleepHistory): what
 * the kernel and the battery said before and after, turned into depth,
 * length, cost and wake source. Pure: the snapshots are read by
 * src/backends/pp-sleep-stats.c around a sleep, never on a timer; this
 * computes the record, keeps the bounded ring and reads and writes its
 * one-record-per-line file.
 *
 * Kernel interfaces (Documentation/ABI/testing/sysfs-power):
 * /sys/power/suspend_stats/{success,fail,last_failed_dev,last_failed_errno,
 * last_failed_step} and, since 6.5, {last_hw_sleep,total_hw_sleep,
 * max_hw_sleep} (µs); /sys/power/mem_sleep; /sys/power/pm_wakeup_irq;
 * power_supply energy_now/energy_full (µWh) or charge_now/charge_full
 * (µAh) × voltage_now (µV); power/wakeup_count of devices and
 * /sys/class/wakeup/\*\/{wakeup_count,event_count}. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The ring: the newest records kept, oldest dropped. */
#define PP_SLEEP_HISTORY_MAX        100
/* Bounds of what one record holds: a longer string is cut (at a UTF-8
 * character boundary), a longer list loses its tail. */
#define PP_SLEEP_STRING_MAX         512
#define PP_SLEEP_LIST_MAX           32
/* A line of the history file longer than this is a bad record. */
#define PP_SLEEP_LINE_MAX           65536
/* Hardware sleep counters of kernels without max_hw_sleep are 32 bits of
 * µs (≈ 71.6 min): a longer sleep may have wrapped them. */
#define PP_SLEEP_HW_COUNTER_LIMIT_US (G_GUINT64_CONSTANT (1) << 32)

/* The counts of one wakeup source (a device's power/wakeup_count, or a
 * /sys/class/wakeup entry's wakeup_count and event_count). */
typedef struct {
  gboolean has_wakeup_count;
  guint64  wakeup_count;
  gboolean has_event_count;
  guint64  event_count;
} PpWakeCount;

/* What is read just before and just after a sleep. */
typedef struct {
  gint64      realtime_us;        /* CLOCK_REALTIME */
  gint64      boottime_us;        /* CLOCK_BOOTTIME: counts the time asleep */

  gboolean    has_stats;          /* suspend_stats/success and fail read */
  guint64     success;
  guint64     fail;
  char       *last_failed_dev;    /* "" when empty or absent */
  char       *last_failed_step;
  gint64      last_failed_errno;
  gboolean    has_last_hw_sleep;
  guint64     last_hw_sleep_us;
  gboolean    has_total_hw_sleep;
  guint64     total_hw_sleep_us;
  guint64     max_hw_sleep_us;    /* 0: unknown */

  char       *mem_sleep;          /* the [selected] mode of mem_sleep, "" unknown */
  double      energy_mwh;         /* every system battery together; < 0 unknown */
  double      energy_full_mwh;    /* < 0 unknown */

  GHashTable *wake_counts;        /* name (device path or source name) -> PpWakeCount* */
  gboolean    wakeup_class;       /* /sys/class/wakeup read (kernel 5.4+): it lists every
                                   * wakeup source, the devices' too */
  GPtrArray  *awake_devices;      /* char*: managed devices not runtime-suspended */
  GPtrArray  *awake_blockers;     /* char*: the tree's blocker of each, "" none */
  char       *wake_irq;           /* pm_wakeup_irq ("" unreadable): after only */
} PpSleepSnapshot;

void              pp_sleep_snapshot_init      (PpSleepSnapshot *snapshot);
void              pp_sleep_snapshot_clear     (PpSleepSnapshot *snapshot);
/* Add @count for @name (taken as is, copied); the first one of a name
 * counts, and at most 4096 names are kept. */
void              pp_sleep_snapshot_add_wake  (PpSleepSnapshot *snapshot,
                                               const char      *name,
                                               const PpWakeCount *count);

typedef struct {
  guint64  start_us;              /* wall clock, µs since the epoch */
  guint64  end_us;
  guint64  duration_ms;           /* CLOCK_BOOTTIME */
  char    *state;                 /* "mem", "disk", or "unknown" */
  char    *mem_sleep;
  char    *result;                /* "ok" or "failed" */
  char    *failed_step;
  char    *failed_device;
  gint32   failed_errno;
  char    *error;                 /* the write of /sys/power/state failed: why */
  double   hw_sleep_share;        /* 0..1, -1 unknown */
  gboolean hw_sleep_reliable;
  guint64  hw_sleep_ms;           /* meaningful when hw_sleep_share >= 0 */
  double   energy_before_mwh;     /* -1 unknown */
  double   energy_after_mwh;
  double   drain_mw;              /* 0 when an energy is unknown; < 0: charged */
  double   drain_percent_per_hour;/* 0 when unknown */
  char    *wake_irq;
  char   **woken_by;
  char   **awake_devices;
  char   **awake_blockers;
} PpSleepRecord;

PpSleepRecord    *pp_sleep_record_new         (void);
void              pp_sleep_record_free        (PpSleepRecord *record);
PpSleepRecord    *pp_sleep_record_copy        (const PpSleepRecord *record);

/* The growth of a counter @bits wide from @before to @after: a counter
 * below its old value wrapped when the old value was in the upper half of
 * its range (the difference modulo 2^@bits), else it was reset (a device
 * added again, a reboot) and counts from 0 (@after). */
guint64           pp_sleep_counter_delta      (guint64          before,
                                               guint64          after,
                                               guint            bits);

/* A battery's energy in mWh from its power_supply attributes as read
 * (NULL: absent): energy_now in µWh, else charge_now (µAh) × voltage_now
 * (µV, or voltage_min_design when voltage_now is absent or 0). -1 when
 * neither can be computed. Use @energy_full/@charge_full the same way for
 * the full capacity. */
double            pp_sleep_battery_mwh        (const char      *energy,
                                               const char      *charge,
                                               const char      *voltage_now,
                                               const char      *voltage_min_design);

/* The suspend step names whose failure is a device's (the kernel's
 * last_failed_dev names it): prepare, suspend, suspend_late,
 * suspend_noirq, resume_noirq, resume_early, resume. */
gboolean          pp_sleep_step_is_device     (const char      *step);

/* The record of a sleep from the snapshots around it. @state: "mem",
 * "disk", or NULL when unknown (logind's sleep: "mem" when the kernel's
 * suspend counters moved, else "unknown"). @error: why the write of
 * /sys/power/state failed, or NULL. */
PpSleepRecord    *pp_sleep_record_compute     (const PpSleepSnapshot *before,
                                               const PpSleepSnapshot *after,
                                               const char      *state,
                                               const char      *error);

/* One line of the history file (no newline), and back. Parsing checks
 * every field it knows and ignores the ones it does not (a newer
 * version's); FALSE with @error for a bad record. */
char             *pp_sleep_record_to_line     (const PpSleepRecord *record);
PpSleepRecord    *pp_sleep_record_from_line   (const char      *line,
                                               GError         **error);

/* The whole file: a comment line, then one record per line, oldest first. */
char             *pp_sleep_history_to_data    (GPtrArray       *records);
/* Parse a history file of @length bytes (may hold NUL bytes): the good
 * records, oldest first, at most PP_SLEEP_HISTORY_MAX (the newest). Each
 * bad or truncated (no final newline) record is skipped and described in
 * @problems ("line N: ..." strings) when not NULL. */
GPtrArray        *pp_sleep_history_parse      (const char      *data,
                                               gsize            length,
                                               GPtrArray       *problems);
/* Append @record (taken) to @records, dropping the oldest beyond
 * PP_SLEEP_HISTORY_MAX. */
void              pp_sleep_history_push       (GPtrArray       *records,
                                               PpSleepRecord   *record);

/* The record as the a{sv} of GetSleepHistory / LastSleep. */
GVariant         *pp_sleep_record_to_variant  (const PpSleepRecord *record);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpSleepRecord, pp_sleep_record_free)

G_END_DECLS
