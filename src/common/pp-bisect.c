/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-bisect"

#include "config.h"

#include "pp-bisect.h"

static void
ask (PpBisect *b, guint first, guint count)
{
  b->ask_first = first;
  b->ask_count = count;
  b->state = PP_BISECT_CHECK;
}

static void
finish (PpBisect *b, PpBisectState state)
{
  b->phase = PP_BISECT_PHASE_DONE;
  b->state = state;
  b->ask_first = b->ask_count = 0;
}

/* The next round of the halving, or its end. */
static void
halve (PpBisect *b)
{
  guint size = b->hi - b->lo;

  if (size > 1)
    {
      ask (b, b->lo, size / 2);
      return;
    }
  /* one left: found if a round that put back exactly it worked */
  if (b->works_count == 1 && b->works_first == b->lo)
    {
      finish (b, PP_BISECT_FOUND);
      return;
    }
  b->phase = PP_BISECT_PHASE_VERIFY;
  ask (b, b->lo, 1);
}

void
pp_bisect_init (PpBisect *b, guint n)
{
  *b = (PpBisect) { .n = n, .lo = 0, .hi = n };
  if (n == 0)
    {
      finish (b, PP_BISECT_NOTHING);
      return;
    }
  b->phase = PP_BISECT_PHASE_BASELINE;
  ask (b, 0, 0);
}

PpBisectState
pp_bisect_next (const PpBisect *b, guint *first, guint *count)
{
  if (first != NULL)
    *first = b->ask_first;
  if (count != NULL)
    *count = b->ask_count;
  return b->state;
}

static void
record_works (PpBisect *b)
{
  /* each range asked lies inside the one before: the latest is the smallest */
  b->works_first = b->ask_first;
  b->works_count = b->ask_count;
}

void
pp_bisect_answer (PpBisect *b, gboolean works)
{
  if (b->state != PP_BISECT_CHECK)
    return;
  b->rounds++;

  switch (b->phase)
    {
    case PP_BISECT_PHASE_BASELINE:
      if (works)
        {
          finish (b, PP_BISECT_NOT_REPRODUCED);
          return;
        }
      b->phase = PP_BISECT_PHASE_HALVE;
      halve (b);
      return;

    case PP_BISECT_PHASE_HALVE:
      if (works)
        {
          record_works (b);
          b->hi = b->ask_first + b->ask_count;
        }
      else
        b->lo = b->ask_first + b->ask_count;
      halve (b);
      return;

    case PP_BISECT_PHASE_VERIFY:
      if (works)
        {
          record_works (b);
          finish (b, PP_BISECT_FOUND);
          return;
        }
      if (b->works_count > 0 || b->n == 1)
        {
          finish (b, PP_BISECT_NO_SINGLE_DEVICE);
          return;
        }
      /* nothing ever worked: would all of them together? */
      b->phase = PP_BISECT_PHASE_ALL;
      ask (b, 0, b->n);
      return;

    case PP_BISECT_PHASE_ALL:
      if (works)
        record_works (b);
      finish (b, PP_BISECT_NO_SINGLE_DEVICE);
      return;

    case PP_BISECT_PHASE_DONE:
    default:
      return;
    }
}

guint
pp_bisect_get_round (const PpBisect *b)
{
  return b->rounds;
}

guint
pp_bisect_get_found (const PpBisect *b)
{
  return b->lo;
}

gboolean
pp_bisect_get_together (const PpBisect *b, guint *first, guint *count)
{
  if (b->state != PP_BISECT_NO_SINGLE_DEVICE || b->works_count == 0)
    return FALSE;
  *first = b->works_first;
  *count = b->works_count;
  return TRUE;
}

guint
pp_bisect_max_rounds (guint n)
{
  guint k = 0;

  if (n == 0)
    return 0;
  while (((guint64) 1 << k) < n)
    k++;
  return k + 1;
}
