/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl bisect's state, shared by the search (pmctl-bisect.c) and its
 * result: the udev rule, the overrides, the text and --json reports
 * (pmctl-bisect-result.c). */
#pragma once

#include <gio/gio.h>

#include "pmctl.h"
#include "pp-bisect.h"

G_BEGIN_DECLS

typedef struct {
  char *attribute;
  char *original;
  char *current;
} Change;

typedef struct {
  char      *path;
  char      *klass;
  GPtrArray *changes;        /* Change*, in ListChanges' order */
} Candidate;

typedef struct {
  guint    round;
  guint    first;
  guint    count;
  gboolean works;
} Round;

typedef enum {
  CHECK_WORKS,
  CHECK_PERSISTS,
  CHECK_FAILED,             /* said on stderr */
  CHECK_INTERRUPTED,
} CheckResult;

typedef struct {
  Pmctl      *ctl;
  const char *klass;         /* --class, or NULL */
  GPtrArray  *candidates;    /* Candidate*, sorted by path */
  guint       n_left_out;    /* devices the policy changes that are left out (--class) */
  guint       n_not_devices; /* changed files that are no managed device's */
  GArray     *rounds;        /* Round */
  guint       max_rounds;

  GMainLoop  *loop;
  guint       signal_ids[3];
  int         interrupted;   /* the signal that stops us, or 0 */

  /* the check command running */
  GSubprocess *child;
  gboolean    child_done;
  int         child_status;
  guint       kill_timeout_id;

  /* asking the user */
  int         tty_fd;        /* -1 with --check */
  gboolean    own_tty;
  GString    *typed;         /* read and not yet taken as an answer */
  gboolean    tty_eof;
} Bisect;

typedef struct {
  PpBisectState  state;
  gboolean       interrupted;
  const Candidate *found;
  GVariant      *explain;     /* the found device's rows, or NULL */
  gboolean       has_together;
  guint          together_first, together_count;
  GPtrArray     *applied;     /* "Key=value"; NULL without --apply */
} Outcome;

static inline Candidate *
pmctl_bisect_candidate_at (Bisect *bs, guint i)
{
  return g_ptr_array_index (bs->candidates, i);
}

/* "1-1.2, 1-1.3, 1-1.4" or "1-1.10 to 1-1.29": the candidates first ..
 * first+count-1. */
char       *pmctl_bisect_describe_range    (Bisect          *bs,
                                            guint            first,
                                            guint            count);
const char *pmctl_bisect_signal_name       (int              signo);

/* The Explain rows of @path once the daemon has let go of our last
 * Revert (it sees the descriptor closed a moment after we close it). */
GVariant   *pmctl_bisect_explain_released  (Bisect          *bs,
                                            const char      *path);
/* --apply: an override of each change of @c back to its original
 * ("Key=value") in @applied. FALSE after a message when one failed or
 * an attribute has no key. */
gboolean    pmctl_bisect_apply_overrides   (Bisect          *bs,
                                            const Candidate *c,
                                            GPtrArray       *applied);
void        pmctl_bisect_print_json        (Bisect          *bs,
                                            const Outcome   *o);
void        pmctl_bisect_print_found       (Bisect          *bs,
                                            const Outcome   *o);
/* The message of an outcome that is no device found. */
void        pmctl_bisect_report_no_device  (Bisect          *bs,
                                            const Outcome   *o);

G_END_DECLS
