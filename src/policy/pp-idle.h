/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user-idle state machine (powerpolicy.conf(5), [Daemon]
 * IdleTimeoutSec). Pure:
 * times are passed in (monotonic microseconds), nothing is read or
 * scheduled here. The caller reports activity (with the time it happened,
 * which may lie in the past when events are read late, in a batch) and
 * asks again at the returned deadline. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gint64   timeout_us;      /* 0: idle tracking disabled */
  gint64   last_activity;   /* when the user was last seen */
  gboolean idle;            /* nobody seen for the timeout */
  guint    n_inhibitors;    /* idle inhibitors held */
} PpIdle;

typedef struct {
  gboolean user_idle;       /* nobody seen for the timeout */
  gboolean apply_idle;      /* user_idle and no idle inhibitor: idle layers on */
  gint64   deadline;        /* look again at this time; -1: no need (idle, or disabled) */
} PpIdleDecision;

void            pp_idle_init         (PpIdle   *idle,
                                      guint     timeout_sec,
                                      gint64    now);

/* The current decision, without changing anything. */
PpIdleDecision  pp_idle_get          (const PpIdle *idle);

/* Input was seen at @when (clamped to @now; older than the last activity
 * changes nothing while active). While idle any activity makes the user
 * active at once, counted from @now. */
PpIdleDecision  pp_idle_activity     (PpIdle   *idle,
                                      gint64    when,
                                      gint64    now);

/* Nothing more was seen up to @now: idle once the timeout has passed. */
PpIdleDecision  pp_idle_check        (PpIdle   *idle,
                                      gint64    now);

/* A new IdleTimeoutSec (reload). Idleness is re-judged from the last
 * activity; 0 makes the user active and stops tracking. */
PpIdleDecision  pp_idle_set_timeout  (PpIdle   *idle,
                                      guint     timeout_sec,
                                      gint64    now);

/* An idle inhibitor was taken (@taken TRUE) or released. */
PpIdleDecision  pp_idle_inhibit      (PpIdle   *idle,
                                      gboolean  taken);

G_END_DECLS
