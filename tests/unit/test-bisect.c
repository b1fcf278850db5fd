/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The search of pmctl bisect (pp-bisect.c), against simulated checks:
 * every size up to 300 with the culprit at every place, culprits that
 * need each other, checks that never work, a problem that does not
 * reproduce. The simulated check knows which devices are put back; the
 * expected answers come from the simulation, never from the search. */
#include "config.h"

#include "pp-test.h"
#include "pp-bisect.h"

/* What a simulated machine does with a set of devices put back. */
typedef gboolean (*WorksFunc) (const gboolean *reverted, guint n, gpointer data);

typedef struct {
  PpBisectState state;
  guint         rounds;          /* round 0 included */
  guint         found;
  gboolean      has_together;
  guint         together_first, together_count;
} Outcome;

/* Run the search to its end; every range asked lies inside 0..n. */
static Outcome
run (guint n, WorksFunc works, gpointer data)
{
  g_autofree gboolean *reverted = g_new0 (gboolean, n + 1);
  PpBisect b;
  Outcome o = { 0 };
  guint first, count;

  pp_bisect_init (&b, n);
  while (pp_bisect_next (&b, &first, &count) == PP_BISECT_CHECK)
    {
      /* the round number asked is the number answered so far */
      assert_int_equal (pp_bisect_get_round (&b), o.rounds);
      assert_true (first + count <= n);
      /* round 0 puts nothing back; every later round something */
      assert_int_equal (count == 0, o.rounds == 0);
      for (guint i = 0; i < n; i++)
        reverted[i] = i >= first && i < first + count;
      pp_bisect_answer (&b, works (reverted, n, data));
      o.rounds++;
      /* a bound on any search: never loops */
      assert_true (o.rounds <= pp_bisect_max_rounds (n) + 2);
    }
  o.state = pp_bisect_next (&b, &first, &count);
  assert_int_equal (count, 0);
  assert_int_equal (pp_bisect_get_round (&b), o.rounds);
  if (o.state == PP_BISECT_FOUND)
    o.found = pp_bisect_get_found (&b);
  o.has_together = pp_bisect_get_together (&b, &o.together_first, &o.together_count);
  return o;
}

/* The problem persists while this one device has the policy's values. */
static gboolean
one_culprit (const gboolean *reverted, guint n, gpointer data)
{
  return reverted[GPOINTER_TO_UINT (data)];
}

static guint
ceil_log2 (guint n)
{
  guint k = 0;

  while ((1u << k) < n)
    k++;
  return k;
}

static void
test_max_rounds (void **state)
{
  static const guint table[][2] = {
    { 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 3 }, { 5, 4 }, { 8, 4 }, { 9, 5 },
    { 40, 7 }, { 64, 7 }, { 65, 8 }, { 1000, 11 }, { 1024, 11 }, { 1025, 12 },
    { G_MAXUINT, 33 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    assert_int_equal (pp_bisect_max_rounds (table[i][0]), table[i][1]);
}

/* Every size, the culprit at every place: found, within ⌈log2 N⌉+1
 * rounds after round 0. */
static void
test_one_culprit_everywhere (void **state)
{
  for (guint n = 1; n <= 300; n++)
    {
      guint worst = 0;

      for (guint c = 0; c < n; c++)
        {
          Outcome o = run (n, one_culprit, GUINT_TO_POINTER (c));

          assert_int_equal (o.state, PP_BISECT_FOUND);
          assert_int_equal (o.found, c);
          assert_false (o.has_together);
          assert_true (o.rounds - 1 <= pp_bisect_max_rounds (n));
          assert_true (o.rounds - 1 <= ceil_log2 (n) + 1);
          worst = MAX (worst, o.rounds - 1);
        }
      /* the bound is reached for some culprit: it is the worst case, not slack */
      assert_int_equal (worst, pp_bisect_max_rounds (n));
    }
}

/* Large candidate sets keep the bound (a sample of culprits). */
static void
test_one_culprit_large (void **state)
{
  static const guint sizes[] = { 1000, 4096, 4097, 65537 };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      guint n = sizes[i];
      guint culprits[] = { 0, 1, n / 3, n / 2, n - 2, n - 1 };

      for (guint j = 0; j < G_N_ELEMENTS (culprits); j++)
        {
          Outcome o = run (n, one_culprit, GUINT_TO_POINTER (culprits[j]));

          assert_int_equal (o.state, PP_BISECT_FOUND);
          assert_int_equal (o.found, culprits[j]);
          assert_true (o.rounds - 1 <= pp_bisect_max_rounds (n));
        }
    }
}

/* Round 0 works: the problem is not there with the full policy. */
static gboolean
always_works (const gboolean *reverted, guint n, gpointer data)
{
  return TRUE;
}

static void
test_not_reproduced (void **state)
{
  for (guint n = 1; n <= 20; n++)
    {
      Outcome o = run (n, always_works, NULL);

      assert_int_equal (o.state, PP_BISECT_NOT_REPRODUCED);
      assert_int_equal (o.rounds, 1);
      assert_false (o.has_together);
    }
}

/* Nothing ever helps: no single device, and not all of them together
 * either (one last round with all put back says so). */
static gboolean
never_works (const gboolean *reverted, guint n, gpointer data)
{
  return FALSE;
}

static void
test_never_works (void **state)
{
  for (guint n = 1; n <= 100; n++)
    {
      Outcome o = run (n, never_works, NULL);

      assert_int_equal (o.state, PP_BISECT_NO_SINGLE_DEVICE);
      assert_false (o.has_together);
      /* halving, the verification, and (N > 1) the round with all */
      assert_int_equal (o.rounds - 1, ceil_log2 (n) + 1 + (n > 1 ? 1 : 0));
    }
}

/* Two devices that each bring the problem: it goes only when both are
 * put back. No single device explains it; the devices that together
 * made it work hold both. */
typedef struct {
  guint a, b;
} Pair;

static gboolean
both_needed (const gboolean *reverted, guint n, gpointer data)
{
  Pair *p = data;

  return reverted[p->a] && reverted[p->b];
}

static void
test_two_culprits_both_needed (void **state)
{
  for (guint n = 2; n <= 64; n++)
    for (guint a = 0; a < n; a++)
      for (guint b = a + 1; b < n; b++)
        {
          Pair p = { a, b };
          Outcome o = run (n, both_needed, &p);

          assert_int_equal (o.state, PP_BISECT_NO_SINGLE_DEVICE);
          assert_true (o.has_together);
          assert_true (a >= o.together_first && a < o.together_first + o.together_count);
          assert_true (b >= o.together_first && b < o.together_first + o.together_count);
          /* and it really did work with them */
          {
            g_autofree gboolean *r = g_new0 (gboolean, n);
            for (guint i = 0; i < o.together_count; i++)
              r[o.together_first + i] = TRUE;
            assert_true (both_needed (r, n, &p));
          }
        }
}

/* Two devices that bring the problem only together: putting either back
 * fixes it. Either is a right answer, verified by its own round. */
static gboolean
either_fixes (const gboolean *reverted, guint n, gpointer data)
{
  Pair *p = data;

  return reverted[p->a] || reverted[p->b];
}

static void
test_two_culprits_either_fixes (void **state)
{
  for (guint n = 2; n <= 64; n++)
    for (guint a = 0; a < n; a++)
      for (guint b = a + 1; b < n; b++)
        {
          Pair p = { a, b };
          Outcome o = run (n, either_fixes, &p);

          assert_int_equal (o.state, PP_BISECT_FOUND);
          assert_true (o.found == a || o.found == b);
          assert_true (o.rounds - 1 <= pp_bisect_max_rounds (n));
        }
}

static void
test_nothing_and_answers_after_the_end (void **state)
{
  PpBisect b;
  guint first = 7, count = 7;

  pp_bisect_init (&b, 0);
  assert_int_equal (pp_bisect_next (&b, &first, &count), PP_BISECT_NOTHING);
  assert_int_equal (count, 0);
  pp_bisect_answer (&b, FALSE);
  assert_int_equal (pp_bisect_next (&b, NULL, NULL), PP_BISECT_NOTHING);
  assert_int_equal (pp_bisect_get_round (&b), 0);

  /* one candidate: round 0, then the verification decides */
  pp_bisect_init (&b, 1);
  pp_bisect_answer (&b, FALSE);
  assert_int_equal (pp_bisect_next (&b, &first, &count), PP_BISECT_CHECK);
  assert_int_equal (first, 0);
  assert_int_equal (count, 1);
  pp_bisect_answer (&b, TRUE);
  assert_int_equal (pp_bisect_next (&b, NULL, NULL), PP_BISECT_FOUND);
  assert_int_equal (pp_bisect_get_found (&b), 0);
  /* answers after the end change nothing */
  pp_bisect_answer (&b, FALSE);
  assert_int_equal (pp_bisect_next (&b, NULL, NULL), PP_BISECT_FOUND);
  assert_int_equal (pp_bisect_get_round (&b), 2);
}

/* 40 devices, the culprit at 17: the rounds asked, one by one. */
static void
test_forty_trace (void **state)
{
  static const struct { guint first, count; gboolean works; } trace[] = {
    { 0, 0, FALSE },     /* round 0: the full policy, the problem is there */
    { 0, 20, TRUE },     /* 0..19 back: works, the culprit is in there */
    { 0, 10, FALSE },    /* 0..9 back: persists, so 10..19 */
    { 10, 5, FALSE },    /* 10..14: persists, so 15..19 */
    { 15, 2, FALSE },    /* 15..16: persists, so 17..19 */
    { 17, 1, TRUE },     /* 17 alone: works, found and verified */
  };
  PpBisect b;
  guint first, count;

  pp_bisect_init (&b, 40);
  for (guint i = 0; i < G_N_ELEMENTS (trace); i++)
    {
      assert_int_equal (pp_bisect_next (&b, &first, &count), PP_BISECT_CHECK);
      assert_int_equal (first, trace[i].first);
      assert_int_equal (count, trace[i].count);
      pp_bisect_answer (&b, trace[i].works);
    }
  assert_int_equal (pp_bisect_next (&b, NULL, NULL), PP_BISECT_FOUND);
  assert_int_equal (pp_bisect_get_found (&b), 17);
  assert_int_equal (pp_bisect_get_round (&b), 6);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_max_rounds),
    cmocka_unit_test (test_one_culprit_everywhere),
    cmocka_unit_test (test_one_culprit_large),
    cmocka_unit_test (test_not_reproduced),
    cmocka_unit_test (test_never_works),
    cmocka_unit_test (test_two_culprits_both_needed),
    cmocka_unit_test (test_two_culprits_either_fixes),
    cmocka_unit_test (test_nothing_and_answers_after_the_end),
    cmocka_unit_test (test_forty_trace),
  };

  return cmocka_run_group_tests_name ("bisect", tests, NULL, NULL);
}
