/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Residency arithmetic (pp-stats.c): tables of counter samples as the
 * kernel reports them and the residency expected between them. */
#include "config.h"

#include <math.h>

#include "pp-test.h"
#include "pp-stats.h"

/* ---- parsing ------------------------------------------------------------ */

typedef struct {
  const char *name;
  const char *text;
  gboolean    ok;
  guint64     value;
} ParseCase;

static const ParseCase parse_cases[] = {
  { "zero", "0\n", TRUE, 0 },
  { "typical", "123456\n", TRUE, 123456 },
  { "no-newline", "42", TRUE, 42 },
  { "max", "18446744073709551615\n", TRUE, G_MAXUINT64 },
  { "overflow", "18446744073709551616\n", FALSE, 0 },
  { "null", NULL, FALSE, 0 },
  { "empty", "", FALSE, 0 },
  { "newline-only", "\n", FALSE, 0 },
  { "negative", "-5\n", FALSE, 0 },
  { "plus", "+5\n", FALSE, 0 },
  { "space", " 5\n", FALSE, 0 },
  { "trailing-garbage", "5ms\n", FALSE, 0 },
  { "two-newlines", "5\n\n", FALSE, 0 },
};

static void
test_parse (void **state)
{
  const ParseCase *c = *state;
  guint64 value = 777;

  assert_int_equal (pp_stats_parse_ms (c->text, &value), c->ok);
  assert_true (value == (c->ok ? c->value : 777));
}

/* ---- compute ------------------------------------------------------------ */

#define RT  PP_RESIDENCY_SOURCE_RUNTIME
#define USB PP_RESIDENCY_SOURCE_USB
#define NO  PP_RESIDENCY_SOURCE_NONE
#define ACT PP_RUNTIME_STATUS_ACTIVE
#define SUS PP_RUNTIME_STATUS_SUSPENDED
#define UNS PP_RUNTIME_STATUS_UNSUPPORTED
#define NOBASE { .source = (PpResidencySource) -1 }   /* base pointer NULL */

typedef struct {
  const char        *name;
  PpResidencySample  base;
  PpResidencySample  now;
  guint64            min_window_ms;
  /* expected */
  gboolean           ok;
  guint64            active_ms;
  guint64            suspended_ms;
  double             share;
  gboolean           rebased;
  gboolean           never_suspends;
} ComputeCase;

static const ComputeCase compute_cases[] = {
  { "half-suspended", { RT, 1000, 1000, ACT, TRUE }, { RT, 6000, 6000, SUS, TRUE }, 0,
    TRUE, 5000, 5000, 0.5, FALSE, FALSE },
  { "all-suspended", { RT, 1000, 0, SUS, TRUE }, { RT, 1000, 90000, SUS, TRUE }, 60000,
    TRUE, 0, 90000, 1.0, FALSE, FALSE },
  { "quarter", { RT, 0, 0, ACT, TRUE }, { RT, 3000, 1000, ACT, TRUE }, 0,
    TRUE, 3000, 1000, 0.25, FALSE, FALSE },
  { "empty-window", { RT, 500, 500, ACT, TRUE }, { RT, 500, 500, ACT, TRUE }, 0,
    TRUE, 0, 0, 0.0, FALSE, FALSE },
  { "no-base-counts-since-plug", NOBASE, { RT, 300, 100, ACT, FALSE }, 0,
    TRUE, 300, 100, 0.25, FALSE, FALSE },
  { "zero-base-is-no-rebase", { RT, 0, 0, UNS, FALSE }, { RT, 300, 100, ACT, FALSE }, 0,
    TRUE, 300, 100, 0.25, FALSE, FALSE },
  /* re-plugged: the new device's counters are smaller than the base */
  { "active-went-backwards", { RT, 900000, 100, ACT, TRUE }, { RT, 2000, 2000, SUS, TRUE }, 0,
    TRUE, 2000, 2000, 0.5, TRUE, FALSE },
  { "suspended-went-backwards", { RT, 100, 900000, SUS, TRUE }, { RT, 5000, 0, ACT, TRUE }, 60000,
    TRUE, 5000, 0, 0.0, TRUE, FALSE },
  { "source-changed", { USB, 10, 10, ACT, TRUE }, { RT, 40, 60, SUS, TRUE }, 0,
    TRUE, 40, 60, 0.6, TRUE, FALSE },
  { "usb-durations", { USB, 1000, 0, ACT, TRUE }, { USB, 4000, 9000, SUS, TRUE }, 0,
    TRUE, 3000, 9000, 0.75, FALSE, FALSE },
  /* the never-suspends flag: allowed, active, nothing suspended, long enough */
  { "never-suspends", { RT, 1000, 500, ACT, TRUE }, { RT, 61000, 500, ACT, TRUE }, 60000,
    TRUE, 60000, 0, 0.0, FALSE, TRUE },
  { "never-suspends-window-too-short", { RT, 1000, 500, ACT, TRUE }, { RT, 60999, 500, ACT, TRUE }, 60000,
    TRUE, 59999, 0, 0.0, FALSE, FALSE },
  { "never-suspends-not-allowed", { RT, 1000, 500, ACT, FALSE }, { RT, 61000, 500, ACT, FALSE }, 60000,
    TRUE, 60000, 0, 0.0, FALSE, FALSE },
  { "never-suspends-allowed-later", { RT, 1000, 500, ACT, FALSE }, { RT, 61000, 500, ACT, TRUE }, 60000,
    TRUE, 60000, 0, 0.0, FALSE, TRUE },
  { "never-suspends-but-suspended-now", { RT, 1000, 500, ACT, TRUE }, { RT, 61000, 500, SUS, TRUE }, 60000,
    TRUE, 60000, 0, 0.0, FALSE, FALSE },
  { "never-suspends-but-suspended-once", { RT, 1000, 500, ACT, TRUE }, { RT, 61000, 501, ACT, TRUE }, 60000,
    TRUE, 60000, 1, 1.0 / 60001.0, FALSE, FALSE },
  { "never-suspends-unsupported", { RT, 1000, 500, UNS, TRUE }, { RT, 61000, 500, UNS, TRUE }, 60000,
    TRUE, 60000, 0, 0.0, FALSE, FALSE },
  { "never-suspends-after-rebase", { RT, 900000, 500, ACT, TRUE }, { RT, 70000, 0, ACT, TRUE }, 60000,
    TRUE, 70000, 0, 0.0, TRUE, TRUE },
  { "never-suspends-zero-window-min-0", { RT, 5, 5, ACT, TRUE }, { RT, 5, 5, ACT, TRUE }, 0,
    TRUE, 0, 0, 0.0, FALSE, FALSE },
  /* a client with GetStatistics' answer and ListDevices' status/control */
  { "client-side-flag", NOBASE, { RT, 70000, 0, ACT, TRUE }, 60000,
    TRUE, 70000, 0, 0.0, FALSE, TRUE },
  { "no-counters", { RT, 5, 5, ACT, TRUE }, { NO, 0, 0, ACT, TRUE }, 0,
    FALSE, 0, 0, 0.0, FALSE, FALSE },
  { "huge-counters-saturate", { RT, 0, 0, ACT, TRUE }, { RT, G_MAXUINT64, G_MAXUINT64, ACT, TRUE }, 0,
    TRUE, G_MAXUINT64, G_MAXUINT64, 0.5, FALSE, FALSE },
};

static void
test_compute (void **state)
{
  const ComputeCase *c = *state;
  const PpResidencySample *base = c->base.source == (PpResidencySource) -1 ? NULL : &c->base;
  PpResidency r;

  memset (&r, 0xa5, sizeof r);
  assert_int_equal (pp_stats_compute (base, &c->now, c->min_window_ms, &r), c->ok);
  assert_true (r.active_ms == c->active_ms);
  assert_true (r.suspended_ms == c->suspended_ms);
  assert_true (fabs (r.suspended_share - c->share) < 1e-12);
  assert_true (r.suspended_share >= 0.0 && r.suspended_share <= 1.0);
  assert_int_equal (r.rebased, c->rebased);
  assert_int_equal (r.never_suspends, c->never_suspends);
}

/* After a reset the caller keeps a zero base: the next sample is counted
 * from the re-plug, not from the old device's counters. */
static void
test_rebase_then_continue (void **state)
{
  PpResidencySample base = { RT, 900000, 100, ACT, TRUE };
  PpResidencySample now = { RT, 2000, 1000, SUS, TRUE };
  PpResidencySample later = { RT, 3000, 4000, SUS, TRUE };
  PpResidency r;

  (void) state;
  assert_true (pp_stats_compute (&base, &now, 0, &r));
  assert_true (r.rebased);
  pp_stats_rebase (&base, &now);
  assert_int_equal (base.source, RT);
  assert_true (base.active_ms == 0 && base.suspended_ms == 0);

  assert_true (pp_stats_compute (&base, &later, 0, &r));
  assert_false (r.rebased);
  assert_true (r.active_ms == 3000 && r.suspended_ms == 4000);
}

/* A window over the last N seconds is two samples: the difference of
 * two since-base answers equals the answer between the samples. */
static void
test_window_is_difference (void **state)
{
  PpResidencySample base = { RT, 100, 100, ACT, TRUE };
  PpResidencySample s1 = { RT, 5100, 2100, SUS, TRUE };
  PpResidencySample s2 = { RT, 6100, 11100, SUS, TRUE };
  PpResidency r1, r2, w;

  (void) state;
  assert_true (pp_stats_compute (&base, &s1, 0, &r1));
  assert_true (pp_stats_compute (&base, &s2, 0, &r2));
  assert_true (pp_stats_compute (&s1, &s2, 0, &w));
  assert_true (w.active_ms == r2.active_ms - r1.active_ms);
  assert_true (w.suspended_ms == r2.suspended_ms - r1.suspended_ms);
  assert_true (fabs (w.suspended_share - 0.9) < 1e-12);
}

/* ---- totals and order ---------------------------------------------------- */

#define R(a, s, n) { (a), (s), 0.0, FALSE, (n) }

static void
test_class_totals (void **state)
{
  PpStatsRow rows[] = {
    { "/sys/devices/a", "usb", R (1000, 3000, FALSE) },
    { "/sys/devices/b", "pci", R (4000, 0, TRUE) },
    { "/sys/devices/c", "usb", R (1000, 1000, FALSE) },
    { "/sys/devices/d", NULL, R (0, 0, FALSE) },
    { "/sys/devices/e", "usb", R (0, 0, TRUE) },
    { "/sys/devices/f", "", R (10, 30, FALSE) },
  };
  g_autoptr(GArray) totals = NULL;
  const PpStatsClassTotal *t;

  (void) state;
  totals = pp_stats_class_totals (rows, G_N_ELEMENTS (rows));
  assert_int_equal (totals->len, 3);

  t = &g_array_index (totals, PpStatsClassTotal, 0);
  assert_string_equal (t->class, "");
  assert_int_equal (t->n_devices, 2);
  assert_int_equal (t->n_never_suspends, 0);
  assert_true (t->active_ms == 10 && t->suspended_ms == 30);
  assert_true (fabs (t->suspended_share - 0.75) < 1e-12);

  t = &g_array_index (totals, PpStatsClassTotal, 1);
  assert_string_equal (t->class, "pci");
  assert_int_equal (t->n_devices, 1);
  assert_int_equal (t->n_never_suspends, 1);
  assert_true (fabs (t->suspended_share - 0.0) < 1e-12);

  t = &g_array_index (totals, PpStatsClassTotal, 2);
  assert_string_equal (t->class, "usb");
  assert_int_equal (t->n_devices, 3);
  assert_int_equal (t->n_never_suspends, 1);
  assert_true (t->active_ms == 2000 && t->suspended_ms == 4000);
  /* time-weighted, not the mean of the shares (0.75, 0.5, 0) */
  assert_true (fabs (t->suspended_share - 4000.0 / 6000.0) < 1e-12);
}

static void
test_class_totals_empty (void **state)
{
  g_autoptr(GArray) totals = pp_stats_class_totals (NULL, 0);

  (void) state;
  assert_int_equal (totals->len, 0);
}

static void
test_sort_rows (void **state)
{
  PpStatsRow rows[] = {
    { "/sys/devices/b", "usb", R (10, 0, FALSE) },
    { "/sys/devices/a", "usb", R (10, 5, FALSE) },
    { "/sys/devices/c", "pci", R (500, 0, FALSE) },
    { "/sys/devices/d", "pci", R (0, 9, FALSE) },
  };

  (void) state;
  pp_stats_sort_rows (rows, G_N_ELEMENTS (rows));
  assert_string_equal (rows[0].path, "/sys/devices/c");
  assert_string_equal (rows[1].path, "/sys/devices/a");
  assert_string_equal (rows[2].path, "/sys/devices/b");
  assert_string_equal (rows[3].path, "/sys/devices/d");
  pp_stats_sort_rows (rows, 0);
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (gsize i = 0; i < G_N_ELEMENTS (parse_cases); i++)
    pp_test_list_add (list, "stats/parse", parse_cases[i].name, test_parse, NULL, NULL,
                      &parse_cases[i]);
  for (gsize i = 0; i < G_N_ELEMENTS (compute_cases); i++)
    pp_test_list_add (list, "stats/compute", compute_cases[i].name, test_compute, NULL, NULL,
                      &compute_cases[i]);
  pp_test_list_add (list, "stats", "rebase-then-continue", test_rebase_then_continue,
                    NULL, NULL, NULL);
  pp_test_list_add (list, "stats", "window-is-difference", test_window_is_difference,
                    NULL, NULL, NULL);
  pp_test_list_add (list, "stats", "class-totals", test_class_totals, NULL, NULL, NULL);
  pp_test_list_add (list, "stats", "class-totals-empty", test_class_totals_empty,
                    NULL, NULL, NULL);
  pp_test_list_add (list, "stats", "sort-rows", test_sort_rows, NULL, NULL, NULL);
  return pp_test_list_run (list, "stats");
}
