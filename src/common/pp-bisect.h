/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The search behind `pmctl bisect` (pmctl(1)), pure: no I/O. Given N
 * candidate devices (indices 0..N-1, in a fixed order), it says which
 * range to put back to the original values in the next round, takes the
 * answer ("works" or "the problem persists") and ends with one device,
 * or with why none.
 *
 * It assumes one culprit: a device whose policy alone brings the problem,
 * so that the problem goes when that device is put back.
 *
 *  - Round 0 checks with the full policy (nothing put back). If that
 *    works the problem does not reproduce: NOT_REPRODUCED.
 *  - Each round then puts back the first half of the range that holds
 *    the culprit: works -> the culprit is in that half; the problem
 *    persists -> in the other half.
 *  - One device left: FOUND when a round with exactly that device put
 *    back worked; else one more round puts it back alone to verify it.
 *  - Verification failed: NO_SINGLE_DEVICE. When some round worked, the
 *    smallest range put back in a round that worked is reported as the
 *    devices that together make it work. When none ever worked (and N is
 *    more than 1) one last round puts back all N: works -> all N
 *    together; persists -> none (the per-device policy does not explain
 *    it).
 *
 * So FOUND takes at most ⌈log2 N⌉ + 1 rounds after round 0
 * (pp_bisect_max_rounds()), NO_SINGLE_DEVICE at most one more. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  PP_BISECT_CHECK,             /* run the check with the range of pp_bisect_next() put back */
  PP_BISECT_FOUND,             /* pp_bisect_get_found() */
  PP_BISECT_NOT_REPRODUCED,    /* round 0 worked */
  PP_BISECT_NO_SINGLE_DEVICE,  /* pp_bisect_get_together() */
  PP_BISECT_NOTHING,           /* no candidates */
} PpBisectState;

typedef enum {
  PP_BISECT_PHASE_BASELINE,
  PP_BISECT_PHASE_HALVE,
  PP_BISECT_PHASE_VERIFY,
  PP_BISECT_PHASE_ALL,
  PP_BISECT_PHASE_DONE,
} PpBisectPhase;

/* Plain data, so that it lives on the stack; read through the functions. */
typedef struct {
  guint          n;
  PpBisectPhase  phase;
  PpBisectState  state;
  guint          lo, hi;            /* the range that holds the culprit */
  guint          ask_first, ask_count;
  guint          works_first, works_count;  /* smallest range that worked; count 0: none */
  guint          rounds;            /* rounds answered, round 0 included */
} PpBisect;

void           pp_bisect_init         (PpBisect       *bisect,
                                       guint           n);
/* The state; for PP_BISECT_CHECK the range to put back in the next round
 * ([*@first, *@first + *@count); count 0 in round 0). */
PpBisectState  pp_bisect_next         (const PpBisect *bisect,
                                       guint          *first,
                                       guint          *count);
/* The answer of the round pp_bisect_next() asked for: @works TRUE when the
 * problem was gone. Ignored unless the state is PP_BISECT_CHECK. */
void           pp_bisect_answer       (PpBisect       *bisect,
                                       gboolean        works);
/* The number of the round pp_bisect_next() asks for (0: the baseline);
 * once done, the rounds run, round 0 included. */
guint          pp_bisect_get_round    (const PpBisect *bisect);
/* FOUND: the culprit's index. */
guint          pp_bisect_get_found    (const PpBisect *bisect);
/* NO_SINGLE_DEVICE: the range that together made it work; FALSE when
 * none did. */
gboolean       pp_bisect_get_together (const PpBisect *bisect,
                                       guint          *first,
                                       guint          *count);
/* ⌈log2 @n⌉ + 1: the rounds after round 0 that FOUND takes at most
 * (0 for no candidates). */
guint          pp_bisect_max_rounds   (guint           n);

G_END_DECLS
