/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user-idle state machine: each case is a script of steps (times in
 * milliseconds) and the decision expected after every step. */
#include "config.h"

#include "pp-test.h"
#include "pp-idle.h"

typedef enum {
  END,
  INIT,        /* a = timeout_sec, t = now */
  ACTIVITY,    /* a = when (ms), t = now */
  CHECK,       /* t = now */
  TIMEOUT,     /* a = timeout_sec, t = now */
  INHIBIT,     /* a = 1 taken, 0 released */
} Op;

#define NONE (-1)

typedef struct {
  Op      op;
  gint64  a;
  gint64  t;
  /* expected after the step */
  gboolean user_idle;
  gboolean apply_idle;
  gint64   deadline_ms;   /* NONE: no deadline */
} Step;

typedef struct {
  const char *name;
  Step        steps[12];
} IdleCase;

#define MS(x) ((x) * (gint64) 1000)

static const IdleCase cases[] = {
  { "starts-active-with-deadline", {
      { INIT, 10, 0, FALSE, FALSE, 10000 },
      { END } } },
  { "disabled-has-no-deadline", {
      { INIT, 0, 0, FALSE, FALSE, NONE },
      { CHECK, 0, 1000000, FALSE, FALSE, NONE },
      { END } } },
  { "idle-exactly-at-timeout", {
      { INIT, 10, 0, FALSE, FALSE, 10000 },
      { CHECK, 0, 9999, FALSE, FALSE, 10000 },
      { CHECK, 0, 10000, TRUE, TRUE, NONE },
      { END } } },
  { "late-check-still-idle", {
      { INIT, 5, 0, FALSE, FALSE, 5000 },
      { CHECK, 0, 60000, TRUE, TRUE, NONE },
      { END } } },
  { "activity-moves-deadline", {
      { INIT, 10, 0, FALSE, FALSE, 10000 },
      { ACTIVITY, 3000, 3000, FALSE, FALSE, 13000 },
      { CHECK, 0, 10000, FALSE, FALSE, 13000 },
      { CHECK, 0, 13000, TRUE, TRUE, NONE },
      { END } } },
  /* lazy watching: the events are read in a batch at the deadline and
   * carry their own (earlier) times */
  { "batched-activity-read-at-deadline", {
      { INIT, 10, 0, FALSE, FALSE, 10000 },
      { ACTIVITY, 9500, 10000, FALSE, FALSE, 19500 },
      { CHECK, 0, 10000, FALSE, FALSE, 19500 },
      { END } } },
  { "stale-activity-does-not-move-deadline-back", {
      { INIT, 10, 0, FALSE, FALSE, 10000 },
      { ACTIVITY, 6000, 6000, FALSE, FALSE, 16000 },
      { ACTIVITY, 2000, 16000, FALSE, FALSE, 16000 },
      { CHECK, 0, 16000, TRUE, TRUE, NONE },
      { END } } },
  { "activity-from-the-future-clamped-to-now", {
      { INIT, 10, 0, FALSE, FALSE, 10000 },
      { ACTIVITY, 99000, 1000, FALSE, FALSE, 11000 },
      { END } } },
  { "activity-while-idle-wakes-at-once", {
      { INIT, 1, 0, FALSE, FALSE, 1000 },
      { CHECK, 0, 1000, TRUE, TRUE, NONE },
      { ACTIVITY, 5000, 5000, FALSE, FALSE, 6000 },
      { END } } },
  /* an event stamped before idle was entered, delivered after: the user
   * is back now, counted from now, not idle again at once */
  { "old-event-delivered-while-idle", {
      { INIT, 2, 0, FALSE, FALSE, 2000 },
      { CHECK, 0, 2500, TRUE, TRUE, NONE },
      { ACTIVITY, 1900, 2600, FALSE, FALSE, 4600 },
      { CHECK, 0, 2600, FALSE, FALSE, 4600 },
      { END } } },
  { "inhibitor-keeps-idle-layers-off", {
      { INIT, 1, 0, FALSE, FALSE, 1000 },
      { INHIBIT, 1, 0, FALSE, FALSE, 1000 },
      { CHECK, 0, 1000, TRUE, FALSE, NONE },
      { INHIBIT, 0, 0, TRUE, TRUE, NONE },
      { END } } },
  { "inhibitor-taken-while-idle-removes-layers", {
      { INIT, 1, 0, FALSE, FALSE, 1000 },
      { CHECK, 0, 1000, TRUE, TRUE, NONE },
      { INHIBIT, 1, 0, TRUE, FALSE, NONE },
      { ACTIVITY, 1500, 1500, FALSE, FALSE, 2500 },
      { INHIBIT, 0, 0, FALSE, FALSE, 2500 },
      { END } } },
  { "two-inhibitors-need-two-releases", {
      { INIT, 1, 0, FALSE, FALSE, 1000 },
      { INHIBIT, 1, 0, FALSE, FALSE, 1000 },
      { INHIBIT, 1, 0, FALSE, FALSE, 1000 },
      { CHECK, 0, 2000, TRUE, FALSE, NONE },
      { INHIBIT, 0, 0, TRUE, FALSE, NONE },
      { INHIBIT, 0, 0, TRUE, TRUE, NONE },
      { INHIBIT, 0, 0, TRUE, TRUE, NONE },
      { END } } },
  { "timeout-raised-while-idle-rejudged", {
      { INIT, 1, 0, FALSE, FALSE, 1000 },
      { CHECK, 0, 2000, TRUE, TRUE, NONE },
      { TIMEOUT, 10, 3000, FALSE, FALSE, 10000 },
      { CHECK, 0, 10000, TRUE, TRUE, NONE },
      { END } } },
  { "timeout-lowered-makes-idle-at-once", {
      { INIT, 300, 0, FALSE, FALSE, 300000 },
      { TIMEOUT, 1, 5000, TRUE, TRUE, NONE },
      { END } } },
  { "timeout-zero-disables-and-wakes", {
      { INIT, 1, 0, FALSE, FALSE, 1000 },
      { CHECK, 0, 1000, TRUE, TRUE, NONE },
      { TIMEOUT, 0, 2000, FALSE, FALSE, NONE },
      { CHECK, 0, 900000, FALSE, FALSE, NONE },
      { ACTIVITY, 900000, 900000, FALSE, FALSE, NONE },
      { END } } },
};

static int
setup (void **state)
{
  PpIdle *idle = g_new0 (PpIdle, 1);

  *state = idle;
  return 0;
}

static int
teardown (void **state)
{
  g_free (*state);
  return 0;
}

static const IdleCase *current_case;

static void
test_idle_script (void **state)
{
  PpIdle *idle = *state;
  const IdleCase *c = current_case;

  for (guint i = 0; c->steps[i].op != END; i++)
    {
      const Step *s = &c->steps[i];
      PpIdleDecision d = { 0 };

      switch (s->op)
        {
        case INIT:
          pp_idle_init (idle, (guint) s->a, MS (s->t));
          d = pp_idle_get (idle);
          break;
        case ACTIVITY:
          d = pp_idle_activity (idle, MS (s->a), MS (s->t));
          break;
        case CHECK:
          d = pp_idle_check (idle, MS (s->t));
          break;
        case TIMEOUT:
          d = pp_idle_set_timeout (idle, (guint) s->a, MS (s->t));
          break;
        case INHIBIT:
          d = pp_idle_inhibit (idle, s->a != 0);
          break;
        case END:
        default:
          g_assert_not_reached ();
        }
      if (d.user_idle != s->user_idle || d.apply_idle != s->apply_idle ||
          d.deadline != (s->deadline_ms == NONE ? -1 : MS (s->deadline_ms)))
        fail_msg ("step %u: got user_idle=%d apply_idle=%d deadline=%" G_GINT64_FORMAT
                  ", expected %d %d %" G_GINT64_FORMAT "ms",
                  i, d.user_idle, d.apply_idle, d.deadline,
                  s->user_idle, s->apply_idle, s->deadline_ms);
    }
}

/* cmocka hands the row to setup only; keep the case in a static. */
static int
setup_case (void **state)
{
  current_case = *state;
  return setup (state);
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    pp_test_list_add (list, "idle", cases[i].name, test_idle_script, setup_case, teardown,
                      &cases[i]);
  return pp_test_list_run (list, "idle");
}
