/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the foreign-change tracker (pp-foreign.c). */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-foreign.h"

#define DEV_A "/sys/devices/pci0000:00/0000:00:14.0"
#define DEV_B "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2"
#define CONTROL "power/control"
#define DELAY "power/autosuspend_delay_ms"

typedef struct {
  const void       *row;
  PpForeignTracker *tracker;
} State;

/* *state comes in as the table row (or NULL) */
static int
setup (void **state)
{
  State *st = g_new0 (State, 1);

  st->row = *state;
  st->tracker = pp_foreign_tracker_new ();
  *state = st;
  return 0;
}

static int
teardown (void **state)
{
  State *st = *state;

  pp_foreign_tracker_free (st->tracker);
  g_free (st);
  return 0;
}

/* A sequence of steps: write our value, or check a value read. */
typedef struct {
  char             op;        /* 'w' note_written, 'c' check */
  const char      *value;
  PpForeignResult  expected;  /* for 'c' */
  guint            count;     /* for 'c' */
} Step;

typedef struct {
  const char *name;
  Step        steps[12];
} SequenceRow;

#define W(v)          { 'w', v, 0, 0 }
#define C(v, r, n)    { 'c', v, r, n }
#define END           { 0, NULL, 0, 0 }

static const SequenceRow sequence_rows[] = {
  { "never written", { C ("on", PP_FOREIGN_NONE, 0), END } },
  { "ours in place", { W ("auto"), C ("auto", PP_FOREIGN_NONE, 0), END } },
  { "white space ignored", { W ("auto"), C ("auto\n", PP_FOREIGN_NONE, 0),
                             C ("  auto  ", PP_FOREIGN_NONE, 0), END } },
  { "one foreign change", { W ("auto"), C ("on", PP_FOREIGN_CHANGED, 1), END } },
  { "rewritten then fine", { W ("auto"), C ("on", PP_FOREIGN_CHANGED, 1), W ("auto"),
                             C ("auto", PP_FOREIGN_NONE, 1), END } },
  { "third change gives up", { W ("auto"), C ("on", PP_FOREIGN_CHANGED, 1),
                               W ("auto"), C ("on", PP_FOREIGN_CHANGED, 2),
                               W ("auto"), C ("on", PP_FOREIGN_GIVE_UP, 3),
                               C ("on", PP_FOREIGN_GIVEN_UP, 3),
                               C ("auto", PP_FOREIGN_GIVEN_UP, 3), END } },
  { "changes need not be consecutive", { W ("auto"), C ("on", PP_FOREIGN_CHANGED, 1),
                                         W ("auto"), C ("auto", PP_FOREIGN_NONE, 1),
                                         C ("auto", PP_FOREIGN_NONE, 1),
                                         C ("on", PP_FOREIGN_CHANGED, 2),
                                         W ("auto"), C ("on", PP_FOREIGN_GIVE_UP, 3), END } },
  /* the same foreign value read twice without a write in between is two
   * checks before two re-applies: each counts */
  { "unchanged foreign value counts again", { W ("auto"), C ("on", PP_FOREIGN_CHANGED, 1),
                                              C ("on", PP_FOREIGN_CHANGED, 2), END } },
  { "policy changes our value", { W ("auto"), W ("on"), C ("on", PP_FOREIGN_NONE, 0),
                                  C ("auto", PP_FOREIGN_CHANGED, 1), END } },
  { "writing after give-up keeps it", { W ("auto"), C ("on", PP_FOREIGN_CHANGED, 1),
                                        C ("on", PP_FOREIGN_CHANGED, 2),
                                        C ("on", PP_FOREIGN_GIVE_UP, 3), W ("auto"),
                                        C ("auto", PP_FOREIGN_GIVEN_UP, 3), END } },
  { "empty value", { W (""), C ("", PP_FOREIGN_NONE, 0), C ("x", PP_FOREIGN_CHANGED, 1), END } },
  { "NULL read counts as empty", { W ("auto"), C (NULL, PP_FOREIGN_CHANGED, 1), END } },
};

static void
test_sequence (void **state)
{
  State *st = *state;
  const SequenceRow *row = st->row;
  const char *last_written = NULL;

  for (const Step *s = row->steps; s->op != 0; s++)
    {
      const char *ours = "unset";
      guint count = 99;
      PpForeignResult result;

      if (s->op == 'w')
        {
          pp_foreign_tracker_note_written (st->tracker, DEV_A, CONTROL, s->value);
          last_written = s->value;
          continue;
        }
      result = pp_foreign_tracker_check (st->tracker, DEV_A, CONTROL, s->value, &ours, &count);
      assert_int_equal (result, s->expected);
      assert_int_equal (count, s->count);
      if (last_written == NULL)
        assert_null (ours);
      else
        assert_string_equal (ours, last_written);
      assert_int_equal (pp_foreign_tracker_is_given_up (st->tracker, DEV_A, CONTROL),
                        result == PP_FOREIGN_GIVE_UP || result == PP_FOREIGN_GIVEN_UP);
    }
}

/* Attributes and devices are counted apart. */
static void
test_independent (void **state)
{
  State *st = *state;

  pp_foreign_tracker_note_written (st->tracker, DEV_A, CONTROL, "auto");
  pp_foreign_tracker_note_written (st->tracker, DEV_A, DELAY, "2000");
  pp_foreign_tracker_note_written (st->tracker, DEV_B, CONTROL, "auto");
  for (guint i = 0; i < 2; i++)
    assert_int_equal (pp_foreign_tracker_check (st->tracker, DEV_A, CONTROL, "on", NULL, NULL),
                      PP_FOREIGN_CHANGED);
  assert_int_equal (pp_foreign_tracker_check (st->tracker, DEV_A, DELAY, "0", NULL, NULL),
                    PP_FOREIGN_CHANGED);
  assert_int_equal (pp_foreign_tracker_check (st->tracker, DEV_B, CONTROL, "on", NULL, NULL),
                    PP_FOREIGN_CHANGED);
  assert_int_equal (pp_foreign_tracker_check (st->tracker, DEV_A, CONTROL, "on", NULL, NULL),
                    PP_FOREIGN_GIVE_UP);
  assert_false (pp_foreign_tracker_is_given_up (st->tracker, DEV_A, DELAY));
  assert_false (pp_foreign_tracker_is_given_up (st->tracker, DEV_B, CONTROL));
  assert_false (pp_foreign_tracker_is_given_up (st->tracker, DEV_B, DELAY));
  assert_int_equal (pp_foreign_tracker_size (st->tracker), 3);
}

static void
give_up (PpForeignTracker *tracker, const char *path, const char *attribute)
{
  pp_foreign_tracker_note_written (tracker, path, attribute, "auto");
  for (guint i = 1; i < PP_FOREIGN_GIVE_UP_AFTER; i++)
    assert_int_equal (pp_foreign_tracker_check (tracker, path, attribute, "on", NULL, NULL),
                      PP_FOREIGN_CHANGED);
  assert_int_equal (pp_foreign_tracker_check (tracker, path, attribute, "on", NULL, NULL),
                    PP_FOREIGN_GIVE_UP);
}

/* Reload resets: counts, give-ups and values written are gone. */
static void
test_reset (void **state)
{
  State *st = *state;
  const char *ours = "unset";
  g_autoptr(GPtrArray) rows = NULL;

  give_up (st->tracker, DEV_A, CONTROL);
  give_up (st->tracker, DEV_B, CONTROL);
  pp_foreign_tracker_reset (st->tracker);
  assert_int_equal (pp_foreign_tracker_size (st->tracker), 0);
  assert_false (pp_foreign_tracker_is_given_up (st->tracker, DEV_A, CONTROL));
  assert_int_equal (pp_foreign_tracker_check (st->tracker, DEV_A, CONTROL, "on", &ours, NULL),
                    PP_FOREIGN_NONE);
  assert_null (ours);
  rows = pp_foreign_tracker_list_conflicts (st->tracker);
  assert_int_equal (rows->len, 0);
  /* and counting starts again from one */
  give_up (st->tracker, DEV_A, CONTROL);
}

/* A removed device takes its records along, and only its own. */
static void
test_forget_device (void **state)
{
  State *st = *state;

  give_up (st->tracker, DEV_A, CONTROL);
  pp_foreign_tracker_note_written (st->tracker, DEV_A, DELAY, "2000");
  give_up (st->tracker, DEV_B, CONTROL);
  assert_int_equal (pp_foreign_tracker_size (st->tracker), 3);
  pp_foreign_tracker_forget_device (st->tracker, DEV_A);
  assert_int_equal (pp_foreign_tracker_size (st->tracker), 1);
  assert_false (pp_foreign_tracker_is_given_up (st->tracker, DEV_A, CONTROL));
  assert_true (pp_foreign_tracker_is_given_up (st->tracker, DEV_B, CONTROL));
  pp_foreign_tracker_forget_device (st->tracker, "/sys/devices/none");
  pp_foreign_tracker_forget_device (st->tracker, NULL);
  assert_int_equal (pp_foreign_tracker_size (st->tracker), 1);
}

/* After a resume the firmware's reset is not another program's change;
 * counts and give-ups stay. */
static void
test_forget_written (void **state)
{
  State *st = *state;
  const char *ours = "unset";
  guint count = 99;
  g_autoptr(GPtrArray) rows = NULL;

  give_up (st->tracker, DEV_A, CONTROL);
  pp_foreign_tracker_note_written (st->tracker, DEV_B, CONTROL, "auto");
  assert_int_equal (pp_foreign_tracker_check (st->tracker, DEV_B, CONTROL, "on", NULL, NULL),
                    PP_FOREIGN_CHANGED);
  pp_foreign_tracker_note_written (st->tracker, DEV_B, DELAY, "2000");
  pp_foreign_tracker_forget_written (st->tracker);
  rows = pp_foreign_tracker_list_conflicts (st->tracker);
  assert_int_equal (rows->len, 2);
  assert_string_equal (((PpConflict *) g_ptr_array_index (rows, 1))->what,
                       "changed by another program 1 time (ours 'auto', found 'on')");

  /* never changed by anyone: nothing kept */
  assert_int_equal (pp_foreign_tracker_size (st->tracker), 2);
  assert_int_equal (pp_foreign_tracker_check (st->tracker, DEV_B, DELAY, "0", &ours, &count),
                    PP_FOREIGN_NONE);
  assert_null (ours);
  assert_int_equal (count, 0);
  assert_int_equal (pp_foreign_tracker_check (st->tracker, DEV_B, CONTROL, "on", &ours, &count),
                    PP_FOREIGN_NONE);
  assert_null (ours);
  assert_int_equal (count, 1);
  assert_int_equal (pp_foreign_tracker_check (st->tracker, DEV_A, CONTROL, "on", NULL, NULL),
                    PP_FOREIGN_GIVEN_UP);
  /* the re-apply writes; counting goes on from where it was */
  pp_foreign_tracker_note_written (st->tracker, DEV_B, CONTROL, "auto");
  assert_int_equal (pp_foreign_tracker_check (st->tracker, DEV_B, CONTROL, "on", NULL, &count),
                    PP_FOREIGN_CHANGED);
  assert_int_equal (count, 2);
}

/* Memory stays bounded by what is present: many devices come and go. */
static void
test_churn (void **state)
{
  State *st = *state;

  for (guint i = 0; i < 10000; i++)
    {
      g_autofree char *path = g_strdup_printf ("/sys/devices/usb1/1-%u", i);

      pp_foreign_tracker_note_written (st->tracker, path, CONTROL, "auto");
      pp_foreign_tracker_check (st->tracker, path, CONTROL, "on", NULL, NULL);
      pp_foreign_tracker_forget_device (st->tracker, path);
    }
  assert_int_equal (pp_foreign_tracker_size (st->tracker), 0);
}

static void
test_list_conflicts (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GVariant) variant = NULL;
  g_autofree char *text = NULL;
  const PpConflict *c;

  /* written but never changed: no row */
  pp_foreign_tracker_note_written (st->tracker, DEV_A, DELAY, "2000");
  give_up (st->tracker, DEV_B, CONTROL);
  pp_foreign_tracker_note_written (st->tracker, DEV_A, CONTROL, "auto");
  pp_foreign_tracker_check (st->tracker, DEV_A, CONTROL, "on\n", NULL, NULL);

  rows = pp_foreign_tracker_list_conflicts (st->tracker);
  assert_int_equal (rows->len, 2);
  c = g_ptr_array_index (rows, 0);
  assert_string_equal (c->subject, DEV_A "/" CONTROL);
  assert_string_equal (c->what, "changed by another program 1 time (ours 'auto', found 'on')");
  c = g_ptr_array_index (rows, 1);
  assert_string_equal (c->subject, DEV_B "/" CONTROL);
  assert_string_equal (c->what, "changed by another program 3 times (ours 'auto', found 'on'); "
                                "no longer written until Reload");

  variant = g_variant_ref_sink (pp_conflicts_to_variant (rows, NULL));
  assert_string_equal (g_variant_get_type_string (variant), "a(ss)");
  assert_int_equal (g_variant_n_children (variant), 2);
  text = g_variant_print (variant, FALSE);
  assert_non_null (strstr (text, "3 times"));
}

/* The property never carries more than PP_FOREIGN_MAX_ROWS + 1 rows. */
static void
test_list_conflicts_bounded (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) rows = NULL;
  const PpConflict *c;

  for (guint i = 0; i < PP_FOREIGN_MAX_ROWS + 10; i++)
    {
      g_autofree char *path = g_strdup_printf ("/sys/devices/usb1/1-%03u", i);

      pp_foreign_tracker_note_written (st->tracker, path, CONTROL, "auto");
      pp_foreign_tracker_check (st->tracker, path, CONTROL, "on", NULL, NULL);
    }
  rows = pp_foreign_tracker_list_conflicts (st->tracker);
  assert_int_equal (rows->len, PP_FOREIGN_MAX_ROWS + 1);
  c = g_ptr_array_index (rows, 0);
  assert_string_equal (c->subject, "/sys/devices/usb1/1-000/" CONTROL);
  c = g_ptr_array_index (rows, PP_FOREIGN_MAX_ROWS);
  assert_string_equal (c->subject, "(more)");
  assert_string_equal (c->what, "10 more attributes changed by another program");
}

/* A foreign value is stored bounded, and a D-Bus string is valid UTF-8
 * whatever the attribute held. */
static void
test_foreign_value_bounded (void **state)
{
  State *st = *state;
  g_autofree char *huge = g_strnfill (100000, 'x');
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_conflict_free);
  g_autoptr(GVariant) variant = NULL;
  const PpConflict *c;
  const char *subject, *what;

  pp_foreign_tracker_note_written (st->tracker, DEV_A, CONTROL, "auto");
  pp_foreign_tracker_check (st->tracker, DEV_A, CONTROL, huge, NULL, NULL);
  pp_foreign_tracker_note_written (st->tracker, DEV_B, CONTROL, "auto");
  pp_foreign_tracker_check (st->tracker, DEV_B, CONTROL, "\xff\xfe", NULL, NULL);
  rows = pp_foreign_tracker_list_conflicts (st->tracker);
  assert_int_equal (rows->len, 2);
  c = g_ptr_array_index (rows, 0);
  assert_true (strlen (c->what) < 400);

  g_ptr_array_add (tools, pp_conflict_new ("tlp", "runtime PM", "tlp.service enabled"));
  variant = g_variant_ref_sink (pp_conflicts_to_variant (tools, rows, NULL));
  assert_int_equal (g_variant_n_children (variant), 3);
  g_variant_get_child (variant, 0, "(&s&s)", &subject, &what);
  assert_string_equal (subject, "tlp");
  assert_string_equal (what, "runtime PM");
  g_variant_get_child (variant, 2, "(&s&s)", &subject, &what);
  assert_true (g_utf8_validate (what, -1, NULL));
}

static void
test_variant_empty (void **state)
{
  g_autoptr(GVariant) variant = g_variant_ref_sink (pp_conflicts_to_variant (NULL, NULL));

  (void) state;
  assert_string_equal (g_variant_get_type_string (variant), "a(ss)");
  assert_int_equal (g_variant_n_children (variant), 0);
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (guint i = 0; i < G_N_ELEMENTS (sequence_rows); i++)
    pp_test_list_add (list, "sequence", sequence_rows[i].name, test_sequence,
                      setup, teardown, &sequence_rows[i]);
  pp_test_list_add (list, "tracker", "independent", test_independent, setup, teardown, NULL);
  pp_test_list_add (list, "tracker", "reset", test_reset, setup, teardown, NULL);
  pp_test_list_add (list, "tracker", "forget device", test_forget_device, setup, teardown, NULL);
  pp_test_list_add (list, "tracker", "forget written", test_forget_written, setup, teardown, NULL);
  pp_test_list_add (list, "tracker", "churn", test_churn, setup, teardown, NULL);
  pp_test_list_add (list, "conflicts", "list", test_list_conflicts, setup, teardown, NULL);
  pp_test_list_add (list, "conflicts", "bounded", test_list_conflicts_bounded,
                    setup, teardown, NULL);
  pp_test_list_add (list, "conflicts", "foreign value bounded", test_foreign_value_bounded,
                    setup, teardown, NULL);
  pp_test_list_add (list, "conflicts", "empty variant", test_variant_empty, NULL, NULL, NULL);
  return pp_test_list_run (list, "foreign");
}
