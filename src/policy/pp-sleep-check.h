/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl sleep-check (issue 20): which sleep states the kernel offers,
 * which one a suspend and a hibernation would use, and for each state
 * that does not work, why. Pure: the files are read by
 * src/backends/pp-sleep-stats.c when asked. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The texts as read (NULL: unreadable or absent). */
typedef struct {
  char *state;        /* /sys/power/state: "freeze mem disk" */
  char *mem_sleep;    /* /sys/power/mem_sleep: "s2idle [deep]" */
  char *disk;         /* /sys/power/disk: "[platform] shutdown reboot suspend" */
  char *resume;       /* /sys/power/resume: "MAJ:MIN", "0:0" when none */
  char *lockdown;     /* /sys/kernel/security/lockdown: "none [integrity] confidentiality" */
  char *swaps;        /* /proc/swaps */
  char *meminfo;      /* /proc/meminfo */
} PpSleepCheckInput;

void        pp_sleep_check_input_clear (PpSleepCheckInput *input);

/* One row: @state ("s2idle", "shallow", "deep", "hibernate"), offered by
 * the kernel and usable, @used_by "suspend", "hibernate" or "", and the
 * reason (why not, or what it rests on). */
typedef struct {
  char     *state;
  gboolean  available;
  char     *used_by;
  char     *reason;
} PpSleepCheckRow;

void        pp_sleep_check_row_free    (PpSleepCheckRow *row);

/* The rows, in the order above. @mem_sleep_config / @hibernate_mode_config:
 * [Sleep] MemSleep= and HibernateMode= (NULL or "auto": the kernel's
 * selection). Hibernation needs "disk" in /sys/power/state, a resume
 * device, no kernel lockdown, and free swap for the anonymous memory in
 * use (Active(anon) + Inactive(anon) of /proc/meminfo, as systemd checks
 * it). */
GPtrArray  *pp_sleep_check             (const PpSleepCheckInput *input,
                                        const char              *mem_sleep_config,
                                        const char              *hibernate_mode_config);

/* The free swap (KiB) in /proc/swaps text, and the anonymous memory in
 * use (KiB) in /proc/meminfo text; FALSE when it cannot be told. */
gboolean    pp_sleep_check_swap_free_kib (const char *swaps,
                                          guint64    *out_kib);
gboolean    pp_sleep_check_anon_kib      (const char *meminfo,
                                          guint64    *out_kib);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpSleepCheckRow, pp_sleep_check_row_free)

G_END_DECLS
