/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sleep records (issue 20; org.powerpolicy1.Manager.xml,
 * GetSleepHistory and LastSleep):
 * a snapshot before every system sleep the daemon coordinates, another
 * after it, the record computed from them (pp-sleep-record.h), kept as a
 * ring of the last PP_SLEEP_HISTORY_MAX in the state directory (written
 * atomically, as the overrides) and logged as one journal entry. */
#pragma once

#include <gio/gio.h>

#include "pp-manager.h"
#include "pp-sleep-record.h"

G_BEGIN_DECLS

#define PP_TYPE_SLEEP_HISTORY (pp_sleep_history_get_type ())
G_DECLARE_FINAL_TYPE (PpSleepHistory, pp_sleep_history, PP, SLEEP_HISTORY, GObject)

#define PP_SLEEP_HISTORY_FILE "sleep-history"

/* Loads the ring from the manager's state directory: bad or truncated
 * records are reported (warning) and skipped. */
PpSleepHistory *pp_sleep_history_new          (PpManager        *manager);

/* The tree's blocker of a device that is not runtime-suspended (what keeps
 * it awake), g_malloc'ed, or NULL. Set by the component that knows the
 * tree. */
typedef char *(*PpSleepBlockerHook) (const char *syspath,
                                     gpointer    user_data);
void            pp_sleep_history_set_blocker_hook (PpSleepHistory     *self,
                                                   PpSleepBlockerHook  hook,
                                                   gpointer            user_data);

/* A sleep begins: the snapshot before it. @state "mem", "disk" or NULL
 * (unknown: logind's sleep). A sleep already begun is begun again. */
void            pp_sleep_history_begin        (PpSleepHistory   *self,
                                               const char       *state);
/* Read again right before the sleep (after the preparation) what moves
 * meanwhile: clocks, kernel counters, /sys/class/wakeup, batteries; not
 * the per-device reads of the snapshot. Nothing when no sleep has begun. */
void            pp_sleep_history_refresh      (PpSleepHistory   *self);
/* The sleep is over (or failed, @error: why the kernel refused it): the
 * snapshot after it, the record stored, logged and announced
 * (notify::last-sleep). Nothing when no sleep has begun. */
void            pp_sleep_history_end          (PpSleepHistory   *self,
                                               const char       *error);
/* Find what keeps each device the snapshot before the sleep found awake
 * (the blocker hook): after the delay inhibitor's release on logind's
 * path, before /sys/power/state on the kernel's; blockers read while the
 * machine slept are left unknown. Nothing when no sleep has begun. */
void            pp_sleep_history_explain_awake (PpSleepHistory  *self);
gboolean        pp_sleep_history_in_progress  (PpSleepHistory   *self);

/* The records, oldest first (PpSleepRecord*, owned by @self). */
GPtrArray      *pp_sleep_history_get_records  (PpSleepHistory   *self);
/* GetSleepHistory: the last @count records, newest first, as aa{sv}. */
GVariant       *pp_sleep_history_to_variant   (PpSleepHistory   *self,
                                               guint             count);
/* LastSleep: the newest record as a{sv}, empty before the first; also the
 * GObject property "last-sleep". */
GVariant       *pp_sleep_history_get_last     (PpSleepHistory   *self);

G_END_DECLS
