/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "pp-idle.h"

void
pp_idle_init (PpIdle *idle, guint timeout_sec, gint64 now)
{
  idle->timeout_us = (gint64) timeout_sec * G_USEC_PER_SEC;
  idle->last_activity = now;
  idle->idle = FALSE;
  idle->n_inhibitors = 0;
}

PpIdleDecision
pp_idle_get (const PpIdle *idle)
{
  PpIdleDecision d;

  d.user_idle = idle->idle;
  d.apply_idle = idle->idle && idle->n_inhibitors == 0;
  if (idle->timeout_us == 0 || idle->idle)
    d.deadline = -1;
  else
    d.deadline = idle->last_activity + idle->timeout_us;
  return d;
}

PpIdleDecision
pp_idle_activity (PpIdle *idle, gint64 when, gint64 now)
{
  if (when > now)
    when = now;
  if (idle->idle)
    {
      /* the person is back now, whatever the event's own time says: an
       * event stamped long ago must not send us straight back to idle */
      idle->idle = FALSE;
      idle->last_activity = now;
    }
  else if (when > idle->last_activity)
    idle->last_activity = when;
  return pp_idle_get (idle);
}

PpIdleDecision
pp_idle_check (PpIdle *idle, gint64 now)
{
  if (idle->timeout_us > 0 && !idle->idle &&
      now - idle->last_activity >= idle->timeout_us)
    idle->idle = TRUE;
  return pp_idle_get (idle);
}

PpIdleDecision
pp_idle_set_timeout (PpIdle *idle, guint timeout_sec, gint64 now)
{
  idle->timeout_us = (gint64) timeout_sec * G_USEC_PER_SEC;
  if (idle->timeout_us == 0)
    idle->idle = FALSE;
  else
    idle->idle = now - idle->last_activity >= idle->timeout_us;
  return pp_idle_get (idle);
}

PpIdleDecision
pp_idle_inhibit (PpIdle *idle, gboolean taken)
{
  if (taken)
    idle->n_inhibitors++;
  else if (idle->n_inhibitors > 0)
    idle->n_inhibitors--;
  return pp_idle_get (idle);
}
