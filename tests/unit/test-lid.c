/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the lid decision (powerpolicy.conf(5), [Lid]): every
 * combination of lid closed, on AC, docked, lid inhibitor and holdoff, under
 * every [Lid] configuration (HandleLid x OnClose x OnCloseExternalPower x
 * OnCloseDocked). One test case per situation; each walks all 686
 * configurations. The expected column is written out by hand below. */
#include "config.h"

#include "pp-test.h"
#include "pp-config.h"
#include "pp-lid.h"

/* Which [Lid] key decides, when HandleLid=true:
 * '-' nothing happens, 'C' OnClose, 'E' OnCloseExternalPower,
 * 'D' OnCloseDocked. */
typedef struct {
  const char *name;
  PpLidSituation s;
  char        decides;
} Row;

#define ROW(c, ac, dock, inh, hold, d) \
  { #c "-" #ac "-" #dock "-" #inh "-" #hold, { c, ac, dock, inh, hold }, d }

/* closed, on_ac, docked, inhibited, holdoff */
static const Row rows[] = {
  ROW (0, 0, 0, 0, 0, '-'), ROW (0, 0, 0, 0, 1, '-'), ROW (0, 0, 0, 1, 0, '-'), ROW (0, 0, 0, 1, 1, '-'),
  ROW (0, 0, 1, 0, 0, '-'), ROW (0, 0, 1, 0, 1, '-'), ROW (0, 0, 1, 1, 0, '-'), ROW (0, 0, 1, 1, 1, '-'),
  ROW (0, 1, 0, 0, 0, '-'), ROW (0, 1, 0, 0, 1, '-'), ROW (0, 1, 0, 1, 0, '-'), ROW (0, 1, 0, 1, 1, '-'),
  ROW (0, 1, 1, 0, 0, '-'), ROW (0, 1, 1, 0, 1, '-'), ROW (0, 1, 1, 1, 0, '-'), ROW (0, 1, 1, 1, 1, '-'),
  ROW (1, 0, 0, 0, 0, 'C'), ROW (1, 0, 0, 0, 1, '-'), ROW (1, 0, 0, 1, 0, '-'), ROW (1, 0, 0, 1, 1, '-'),
  ROW (1, 0, 1, 0, 0, 'D'), ROW (1, 0, 1, 0, 1, '-'), ROW (1, 0, 1, 1, 0, '-'), ROW (1, 0, 1, 1, 1, '-'),
  ROW (1, 1, 0, 0, 0, 'E'), ROW (1, 1, 0, 0, 1, '-'), ROW (1, 1, 0, 1, 0, '-'), ROW (1, 1, 0, 1, 1, '-'),
  ROW (1, 1, 1, 0, 0, 'D'), ROW (1, 1, 1, 0, 1, '-'), ROW (1, 1, 1, 1, 0, '-'), ROW (1, 1, 1, 1, 1, '-'),
};

#define N_ACTIONS (PP_LID_ACTION_IGNORE + 1)

static void
test_situation (void **state)
{
  const Row *row = *state;
  guint checked = 0;

  for (int handle = 0; handle <= 1; handle++)
    for (int c = 0; c < N_ACTIONS; c++)
      for (int e = 0; e < N_ACTIONS; e++)
        for (int d = 0; d < N_ACTIONS; d++)
          {
            PpLidConfig cfg = { handle, c, e, d, 30 };
            PpLidAction expected = PP_LID_ACTION_IGNORE;
            PpLidAction got = pp_lid_decide (&cfg, &row->s);

            if (handle)
              switch (row->decides)
                {
                case 'C': expected = c; break;
                case 'E': expected = e; break;
                case 'D': expected = d; break;
                default: expected = PP_LID_ACTION_IGNORE; break;
                }
            if (got != expected)
              fail_msg ("HandleLid=%d OnClose=%s OnCloseExternalPower=%s OnCloseDocked=%s: got %s, expected %s",
                        handle, pp_lid_action_to_string (c), pp_lid_action_to_string (e),
                        pp_lid_action_to_string (d), pp_lid_action_to_string (got),
                        pp_lid_action_to_string (expected));
            /* the panel is dark exactly when the decision is power-off-display */
            if (pp_lid_display_off (&cfg, &row->s) != (expected == PP_LID_ACTION_POWER_OFF_DISPLAY))
              fail_msg ("display state wrong for HandleLid=%d", handle);
            checked++;
          }
  assert_int_equal (checked, 2 * N_ACTIONS * N_ACTIONS * N_ACTIONS);
}

/* The shipped defaults (powerpolicy.conf(5), [Lid]) on the common situations.
 */
static void
test_defaults (void **state)
{
  PpLidConfig cfg = { TRUE, PP_LID_ACTION_SUSPEND, PP_LID_ACTION_SUSPEND, PP_LID_ACTION_IGNORE, 30 };
  PpLidSituation battery = { TRUE, FALSE, FALSE, FALSE, FALSE };
  PpLidSituation docked = { TRUE, TRUE, TRUE, FALSE, FALSE };
  PpLidSituation open = { FALSE, FALSE, FALSE, FALSE, FALSE };

  assert_int_equal (pp_lid_decide (&cfg, &battery), PP_LID_ACTION_SUSPEND);
  assert_int_equal (pp_lid_decide (&cfg, &docked), PP_LID_ACTION_IGNORE);
  assert_int_equal (pp_lid_decide (&cfg, &open), PP_LID_ACTION_IGNORE);
}

/* Lid open undoes power-off-display. */
static void
test_open_undoes_display_off (void **state)
{
  PpLidConfig cfg = { TRUE, PP_LID_ACTION_POWER_OFF_DISPLAY, PP_LID_ACTION_POWER_OFF_DISPLAY,
                      PP_LID_ACTION_POWER_OFF_DISPLAY, 0 };
  PpLidSituation s = { TRUE, FALSE, FALSE, FALSE, FALSE };

  assert_true (pp_lid_display_off (&cfg, &s));
  s.closed = FALSE;
  assert_false (pp_lid_display_off (&cfg, &s));
}

static void
test_sleep_actions (void **state)
{
  assert_true (pp_lid_action_is_sleep (PP_LID_ACTION_SUSPEND));
  assert_true (pp_lid_action_is_sleep (PP_LID_ACTION_HIBERNATE));
  assert_true (pp_lid_action_is_sleep (PP_LID_ACTION_HYBRID_SLEEP));
  assert_true (pp_lid_action_is_sleep (PP_LID_ACTION_SUSPEND_THEN_HIBERNATE));
  assert_false (pp_lid_action_is_sleep (PP_LID_ACTION_LOCK));
  assert_false (pp_lid_action_is_sleep (PP_LID_ACTION_POWER_OFF_DISPLAY));
  assert_false (pp_lid_action_is_sleep (PP_LID_ACTION_IGNORE));
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    pp_test_list_add (list, "closed-ac-docked-inhibited-holdoff", rows[i].name,
                      test_situation, NULL, NULL, &rows[i]);
  pp_test_list_add (list, "lid", "defaults", test_defaults, NULL, NULL, NULL);
  pp_test_list_add (list, "lid", "open-undoes-power-off-display", test_open_undoes_display_off, NULL, NULL, NULL);
  pp_test_list_add (list, "lid", "sleep-actions", test_sleep_actions, NULL, NULL, NULL);
  return pp_test_list_run (list, "lid");
}
