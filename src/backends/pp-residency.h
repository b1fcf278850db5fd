/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading the kernel's runtime-PM counters (issue 13;
 * org.powerpolicy1.Manager.xml, GetStatistics) and keeping one base sample per
 * device. Counters are read only when asked: pp_residency_book_set_base*() at
 * daemon start and after a policy pass, pp_residency_book_query*() when a
 * client asks. Nothing here runs on a timer. The arithmetic is pp-stats.c's. */
#pragma once

#include <gio/gio.h>

#include "pp-stats.h"

G_BEGIN_DECLS

/* Read the counters of the device directory @syspath (/sys/devices/...):
 * power/runtime_active_time + power/runtime_suspended_time, else USB
 * power/active_duration + power/connected_duration; power/runtime_status
 * and power/control. FALSE with G_IO_ERROR_NOT_FOUND when the
 * directory is gone, G_IO_ERROR_NOT_SUPPORTED when it has no (readable,
 * numeric) counters. */
gboolean          pp_residency_read              (const char         *syspath,
                                                  PpResidencySample  *out,
                                                  GError            **error);

typedef struct _PpResidencyBook PpResidencyBook;

/* @min_window_ms: the never-suspends flag's window (0: the default,
 * PP_STATS_MIN_WINDOW_MS_DEFAULT). */
PpResidencyBook  *pp_residency_book_new          (guint64             min_window_ms);
void              pp_residency_book_free         (PpResidencyBook    *book);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpResidencyBook, pp_residency_book_free)

/* Take the base of @syspath now (replacing any older one). A device
 * without counters gets no base. After a policy pass, re-base the devices
 * whose settings the pass changed (their residency "since the last
 * policy change"), not all of them: a base costs ~20 us per device. */
void              pp_residency_book_set_base     (PpResidencyBook    *book,
                                                  const char         *syspath);
/* The same for @n_paths devices: daemon start, after a policy pass. */
void              pp_residency_book_set_base_all (PpResidencyBook    *book,
                                                  const char * const *paths,
                                                  guint               n_paths);
/* The device went away: drop its base (a device that comes back is
 * counted from when it appeared). */
void              pp_residency_book_forget       (PpResidencyBook    *book,
                                                  const char         *syspath);
guint             pp_residency_book_get_n_bases  (PpResidencyBook    *book);

/* Residency of @syspath since its base (no base: since the device
 * appeared), reading the counters now. When the counters went backwards
 * (re-plugged) the base is re-taken as zero and @out says rebased.
 * Errors as pp_residency_read(). @out_now (optional) receives the raw
 * sample, for a caller that diffs two queries over a window. */
gboolean          pp_residency_book_query        (PpResidencyBook    *book,
                                                  const char         *syspath,
                                                  PpResidency        *out,
                                                  PpResidencySample  *out_now,
                                                  GError            **error);

/* What a query reads besides the two counters. */
typedef enum {
  PP_RESIDENCY_COUNTERS       = 0,       /* the counters only: the sample's status is
                                          * UNSUPPORTED, control_auto FALSE, and
                                          * never_suspends FALSE (not known) */
  PP_RESIDENCY_STATE          = 1 << 0,  /* and runtime_status, control (as _query()) */
  PP_RESIDENCY_NEVER_SUSPENDS = 1 << 1,  /* runtime_status and control only when the
                                          * counters allow the never-suspends flag
                                          * (no suspended time in a full window):
                                          * the flag is right, the sample's status
                                          * and control are known only then */
} PpResidencyFields;

/* pp_residency_book_query() reading only @fields: GetStatistics' rows
 * need the counters alone, class totals the flag, pmctl stats all. */
gboolean          pp_residency_book_query_fields (PpResidencyBook    *book,
                                                  const char         *syspath,
                                                  PpResidencyFields   fields,
                                                  PpResidency        *out,
                                                  PpResidencySample  *out_now,
                                                  GError            **error);

/* GetStatistics' answer for @n_paths devices: a floating GVariant of type
 * a(sdtt) — (path, suspended share 0..1, active ms, suspended ms) since
 * the base — in the order given; devices without counters, or gone
 * meanwhile, are left out. */
GVariant         *pp_residency_book_get_statistics (PpResidencyBook    *book,
                                                    const char * const *paths,
                                                    guint               n_paths);

G_END_DECLS
