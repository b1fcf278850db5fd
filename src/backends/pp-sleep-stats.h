/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reading behind the sleep records and pmctl sleep-check (issue 20):
 * the kernel's sleep statistics, the battery's energy and the wakeup
 * counters (pp-sleep-record.h), and the sleep states on offer. Read only
 * around a sleep and when asked: no timer. Every read is bounded (sysfs
 * attributes by pp_sysfs_read, /proc files by PP_SLEEP_STATS_FILE_MAX,
 * lists by the limits of pp-sleep-record.h). */
#pragma once

#include <glib.h>

#include "pp-sleep-check.h"
#include "pp-sleep-record.h"

G_BEGIN_DECLS

#define PP_SLEEP_STATS_FILE_MAX (256 * 1024)
/* At most this many /sys/class/wakeup entries are read. */
#define PP_SLEEP_STATS_MAX_WAKEUP_SOURCES 1024

/* The clocks, /sys/power/suspend_stats/\*, the selected mem_sleep mode
 * and every /sys/class/wakeup source's counts (by its name; by the
 * device's /sys/devices path when it belongs to one). @after: also
 * /sys/power/pm_wakeup_irq. */
/* CLOCK_BOOTTIME in µs, which runs on while the machine sleeps. */
gint64    pp_sleep_stats_boottime_us   (void);
void      pp_sleep_stats_read_kernel   (PpSleepSnapshot     *snapshot,
                                        gboolean             after);
/* Add the energy of the battery at @syspath (a power_supply device of
 * type Battery, system scope) to the snapshot's; an unreadable one makes
 * the total unknown. Call pp_sleep_stats_begin_batteries() first. */
void      pp_sleep_stats_begin_batteries (PpSleepSnapshot   *snapshot);
void      pp_sleep_stats_add_battery   (PpSleepSnapshot     *snapshot,
                                        const char          *syspath);
/* power/wakeup_count (its event count) and power/wakeup_abort_count
 * (its wakeup count) of the device at @syspath, under its path. */
void      pp_sleep_stats_add_device_wake (PpSleepSnapshot   *snapshot,
                                          const char        *syspath);

/* /sys/power/{state,mem_sleep,disk,resume}, /proc/swaps, /proc/meminfo
 * and the kernel lockdown, read now (NULL members when unreadable). */
void      pp_sleep_stats_read_check    (PpSleepCheckInput   *input);

G_END_DECLS
