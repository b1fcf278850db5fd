/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Backend tests of pp-residency.c against a umockdev testbed whose
 * counter files are rewritten between calls, as the kernel advances
 * them. Run under umockdev-wrapper: /sys is the testbed. */
#include "config.h"

#include <math.h>

#include <gio/gio.h>
#include <umockdev.h>

#include "pp-test.h"
#include "pp-error.h"
#include "pp-residency.h"

#define XHCI  "/sys/devices/0000:00:14.0"
#define MOUSE "/sys/devices/0000:00:14.0/usb1/1-2"
#define BARE  "/sys/devices/LNXSYSTM:00"
#define GONE  "/sys/devices/0000:00:1f.7"

typedef struct {
  UMockdevTestbed *tb;
  char            *root;
} State;

static void
set_attr (State *st, const char *syspath, const char *rel, const char *value)
{
  g_autofree char *file = g_strconcat (st->root, syspath, "/", rel, NULL);
  g_autoptr(GError) error = NULL;

  if (!g_file_set_contents (file, value, -1, &error))
    fail_msg ("cannot write %s: %s", file, error->message);
}

/* What the kernel shows: counters in ms, "\n"-terminated. */
static void
set_counters (State *st, const char *syspath, guint64 active, guint64 suspended,
              const char *status)
{
  g_autofree char *a = g_strdup_printf ("%" G_GUINT64_FORMAT "\n", active);
  g_autofree char *s = g_strdup_printf ("%" G_GUINT64_FORMAT "\n", suspended);
  g_autofree char *st_text = g_strconcat (status, "\n", NULL);

  set_attr (st, syspath, "power/runtime_active_time", a);
  set_attr (st, syspath, "power/runtime_suspended_time", s);
  set_attr (st, syspath, "power/runtime_status", st_text);
}

static int
setup (void **state)
{
  State *st = g_new0 (State, 1);
  g_autofree char *xhci = NULL;
  g_autofree char *usb1 = NULL;
  g_autofree char *mouse = NULL;
  g_autofree char *bare = NULL;

  st->tb = umockdev_testbed_new ();
  st->root = umockdev_testbed_get_root_dir (st->tb);
  assert_true (umockdev_in_mock_environment ());

  /* a chipset xHCI as a ThinkPad reports it */
  xhci = umockdev_testbed_add_device (st->tb, "pci", "0000:00:14.0", NULL,
                                      "power/control", "auto\n",
                                      "power/runtime_status", "active\n",
                                      "power/runtime_active_time", "1830912\n",
                                      "power/runtime_suspended_time", "0\n",
                                      NULL, "PCI_CLASS", "C0330", NULL);
  assert_string_equal (xhci, XHCI);
  usb1 = umockdev_testbed_add_device (st->tb, "usb", "usb1", xhci,
                                      "power/control", "auto\n", NULL, NULL);
  /* a USB mouse whose runtime counters are not there: the USB durations */
  mouse = umockdev_testbed_add_device (st->tb, "usb", "1-2", usb1,
                                       "power/control", "on\n",
                                       "power/runtime_status", "active\n",
                                       "power/active_duration", "987654\n",
                                       "power/connected_duration", "987654\n",
                                       NULL, "DEVTYPE", "usb_device", NULL);
  assert_string_equal (mouse, MOUSE);
  bare = umockdev_testbed_add_device (st->tb, "acpi", "LNXSYSTM:00", NULL,
                                      "power/control", "on\n", NULL, NULL);
  assert_string_equal (bare, BARE);
  *state = st;
  return 0;
}

static int
teardown (void **state)
{
  State *st = *state;

  g_clear_object (&st->tb);
  g_free (st->root);
  g_free (st);
  return 0;
}

static void
test_read_runtime_counters (void **state)
{
  PpResidencySample s;
  g_autoptr(GError) error = NULL;

  (void) state;
  assert_true (pp_residency_read (XHCI, &s, &error));
  assert_null (error);
  assert_int_equal (s.source, PP_RESIDENCY_SOURCE_RUNTIME);
  assert_true (s.active_ms == 1830912 && s.suspended_ms == 0);
  assert_int_equal (s.status, PP_RUNTIME_STATUS_ACTIVE);
  assert_true (s.control_auto);
}

static void
test_read_usb_durations (void **state)
{
  State *st = *state;
  PpResidencySample s;
  g_autoptr(GError) error = NULL;

  set_attr (st, MOUSE, "power/active_duration", "1000\n");
  set_attr (st, MOUSE, "power/connected_duration", "5000\n");
  assert_true (pp_residency_read (MOUSE, &s, &error));
  assert_int_equal (s.source, PP_RESIDENCY_SOURCE_USB);
  assert_true (s.active_ms == 1000 && s.suspended_ms == 4000);
  assert_false (s.control_auto);
}

static void
test_read_errors (void **state)
{
  State *st = *state;
  PpResidencySample s;
  g_autoptr(GError) e1 = NULL;
  g_autoptr(GError) e2 = NULL;
  g_autoptr(GError) e3 = NULL;

  assert_false (pp_residency_read (BARE, &s, &e1));
  assert_true (g_error_matches (e1, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED));
  assert_false (pp_residency_read (GONE, &s, &e2));
  assert_true (g_error_matches (e2, G_IO_ERROR, G_IO_ERROR_NOT_FOUND));
  /* a counter that is not a number is no counter */
  set_attr (st, XHCI, "power/runtime_suspended_time", "lots\n");
  assert_false (pp_residency_read (XHCI, &s, &e3));
  assert_true (g_error_matches (e3, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED));
  assert_int_equal (s.source, PP_RESIDENCY_SOURCE_NONE);
}

/* A counter file longer than any counter is not read as one. */
static void
test_read_oversized (void **state)
{
  State *st = *state;
  PpResidencySample s;
  g_autoptr(GError) error = NULL;
  g_autofree char *digits = g_strnfill (200, '7');

  set_attr (st, XHCI, "power/runtime_active_time", digits);
  assert_false (pp_residency_read (XHCI, &s, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED));
}

/* Without a trailing newline (what a test writes, not the kernel) the
 * words still count. */
static void
test_read_without_newlines (void **state)
{
  State *st = *state;
  PpResidencySample s;

  set_attr (st, XHCI, "power/control", "auto");
  set_attr (st, XHCI, "power/runtime_status", "suspended");
  set_attr (st, XHCI, "power/runtime_active_time", "12");
  assert_true (pp_residency_read (XHCI, &s, NULL));
  assert_true (s.control_auto);
  assert_int_equal (s.status, PP_RUNTIME_STATUS_SUSPENDED);
  assert_true (s.active_ms == 12);
}

/* The base is taken, the kernel advances the counters, the query sees
 * only what happened since the base. */
static void
test_since_base (void **state)
{
  State *st = *state;
  g_autoptr(PpResidencyBook) book = pp_residency_book_new (0);
  PpResidency r;
  PpResidencySample now;
  g_autoptr(GError) error = NULL;

  pp_residency_book_set_base (book, XHCI);
  assert_int_equal (pp_residency_book_get_n_bases (book), 1);
  set_counters (st, XHCI, 1830912 + 3000, 9000, "suspended");
  assert_true (pp_residency_book_query (book, XHCI, &r, &now, &error));
  assert_true (r.active_ms == 3000 && r.suspended_ms == 9000);
  assert_true (fabs (r.suspended_share - 0.75) < 1e-12);
  assert_false (r.rebased);
  assert_false (r.never_suspends);
  assert_int_equal (now.status, PP_RUNTIME_STATUS_SUSPENDED);

  /* a policy change re-takes the base */
  pp_residency_book_set_base (book, XHCI);
  set_counters (st, XHCI, 1830912 + 4000, 9000, "active");
  assert_true (pp_residency_book_query (book, XHCI, &r, NULL, &error));
  assert_true (r.active_ms == 1000 && r.suspended_ms == 0);
}

static void
test_no_base_counts_since_appeared (void **state)
{
  State *st = *state;
  g_autoptr(PpResidencyBook) book = pp_residency_book_new (0);
  PpResidency r;

  set_counters (st, XHCI, 100, 300, "suspended");
  assert_true (pp_residency_book_query (book, XHCI, &r, NULL, NULL));
  assert_true (r.active_ms == 100 && r.suspended_ms == 300);
  assert_true (fabs (r.suspended_share - 0.75) < 1e-12);
}

/* Unplugged and plugged back: the new device's counters are below the
 * base. The book re-bases and goes on counting from the re-plug. */
static void
test_replug_rebases (void **state)
{
  State *st = *state;
  g_autoptr(PpResidencyBook) book = pp_residency_book_new (0);
  PpResidency r;

  pp_residency_book_set_base (book, XHCI);
  set_counters (st, XHCI, 2000, 500, "active");
  assert_true (pp_residency_book_query (book, XHCI, &r, NULL, NULL));
  assert_true (r.rebased);
  assert_true (r.active_ms == 2000 && r.suspended_ms == 500);

  set_counters (st, XHCI, 2500, 1500, "suspended");
  assert_true (pp_residency_book_query (book, XHCI, &r, NULL, NULL));
  assert_false (r.rebased);
  assert_true (r.active_ms == 2500 && r.suspended_ms == 1500);
}

/* control=auto, active, the suspended counter standing still while the
 * active one runs for a full window: flagged; once it suspends: not. */
static void
test_never_suspends_flag (void **state)
{
  State *st = *state;
  g_autoptr(PpResidencyBook) book = pp_residency_book_new (60000);
  PpResidency r;

  set_counters (st, XHCI, 1000, 40, "active");
  pp_residency_book_set_base (book, XHCI);

  set_counters (st, XHCI, 1000 + 30000, 40, "active");
  assert_true (pp_residency_book_query (book, XHCI, &r, NULL, NULL));
  assert_false (r.never_suspends);          /* half a window */

  set_counters (st, XHCI, 1000 + 60000, 40, "active");
  assert_true (pp_residency_book_query (book, XHCI, &r, NULL, NULL));
  assert_true (r.never_suspends);

  /* not allowed to suspend: not a culprit, a choice */
  set_attr (st, XHCI, "power/control", "on\n");
  assert_true (pp_residency_book_query (book, XHCI, &r, NULL, NULL));
  assert_false (r.never_suspends);

  set_attr (st, XHCI, "power/control", "auto\n");
  set_counters (st, XHCI, 1000 + 70000, 41, "active");
  assert_true (pp_residency_book_query (book, XHCI, &r, NULL, NULL));
  assert_false (r.never_suspends);
}

/* Reading less: the counters alone say nothing of runtime_status and
 * control; the never-suspends reading reads them exactly when the
 * counters allow the flag, and gets the flag right either way. */
static void
test_query_fields (void **state)
{
  State *st = *state;
  g_autoptr(PpResidencyBook) book = pp_residency_book_new (60000);
  g_autoptr(GError) error = NULL;
  PpResidency r, full;
  PpResidencySample now;

  set_counters (st, XHCI, 1000, 40, "active");
  pp_residency_book_set_base (book, XHCI);
  set_counters (st, XHCI, 1000 + 60000, 40, "active");

  assert_true (pp_residency_book_query_fields (book, XHCI, PP_RESIDENCY_COUNTERS, &r, &now, &error));
  assert_true (r.active_ms == 60000 && r.suspended_ms == 0);
  assert_int_equal (now.status, PP_RUNTIME_STATUS_UNSUPPORTED);
  assert_false (now.control_auto);
  assert_false (r.never_suspends);

  /* a full window without suspending: control and status are read */
  assert_true (pp_residency_book_query_fields (book, XHCI, PP_RESIDENCY_NEVER_SUSPENDS, &r, &now,
                                               &error));
  assert_true (r.never_suspends);
  assert_int_equal (now.status, PP_RUNTIME_STATUS_ACTIVE);
  assert_true (now.control_auto);
  set_attr (st, XHCI, "power/control", "on\n");
  assert_true (pp_residency_book_query_fields (book, XHCI, PP_RESIDENCY_NEVER_SUSPENDS, &r, &now,
                                               &error));
  assert_false (r.never_suspends);
  set_attr (st, XHCI, "power/control", "auto\n");
  set_counters (st, XHCI, 1000 + 60000, 40, "suspended");
  assert_true (pp_residency_book_query_fields (book, XHCI, PP_RESIDENCY_NEVER_SUSPENDS, &r, &now,
                                               &error));
  assert_false (r.never_suspends);
  assert_int_equal (now.status, PP_RUNTIME_STATUS_SUSPENDED);

  /* it suspended in the window: the flag cannot be set, nothing more is
   * read (the status file says active, the sample does not know) */
  set_counters (st, XHCI, 1000 + 70000, 41, "active");
  assert_true (pp_residency_book_query_fields (book, XHCI, PP_RESIDENCY_NEVER_SUSPENDS, &r, &now,
                                               &error));
  assert_false (r.never_suspends);
  assert_int_equal (now.status, PP_RUNTIME_STATUS_UNSUPPORTED);
  /* and the same residency as the full query */
  assert_true (pp_residency_book_query (book, XHCI, &full, &now, &error));
  assert_true (full.active_ms == r.active_ms && full.suspended_ms == r.suspended_ms);
  assert_false (full.never_suspends);
  assert_int_equal (now.status, PP_RUNTIME_STATUS_ACTIVE);

  /* errors as the full query's */
  assert_false (pp_residency_book_query_fields (book, BARE, PP_RESIDENCY_COUNTERS, &r, NULL, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED));
  g_clear_error (&error);
  assert_false (pp_residency_book_query_fields (book, GONE, PP_RESIDENCY_COUNTERS, &r, NULL, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND));
  g_clear_error (&error);
  assert_false (pp_residency_book_query_fields (book, GONE, PP_RESIDENCY_COUNTERS, &r, NULL, NULL));
}

/* A window of N seconds: two samples, diffed by pp_stats_compute(). */
static void
test_window_two_samples (void **state)
{
  State *st = *state;
  g_autoptr(PpResidencyBook) book = pp_residency_book_new (0);
  PpResidencySample s1, s2;
  PpResidency r, w;

  pp_residency_book_set_base (book, XHCI);
  set_counters (st, XHCI, 1830912 + 10000, 0, "active");
  assert_true (pp_residency_book_query (book, XHCI, &r, &s1, NULL));
  set_counters (st, XHCI, 1830912 + 11000, 4000, "suspended");
  assert_true (pp_residency_book_query (book, XHCI, &r, &s2, NULL));
  assert_true (pp_stats_compute (&s1, &s2, 0, &w));
  assert_true (w.active_ms == 1000 && w.suspended_ms == 4000);
  assert_true (fabs (w.suspended_share - 0.8) < 1e-12);
}

static void
test_forget (void **state)
{
  State *st = *state;
  g_autoptr(PpResidencyBook) book = pp_residency_book_new (0);
  const char * const paths[] = { XHCI, MOUSE, BARE, GONE };
  PpResidency r;

  pp_residency_book_set_base_all (book, paths, G_N_ELEMENTS (paths));
  /* BARE has no counters and GONE does not exist: no base for them */
  assert_int_equal (pp_residency_book_get_n_bases (book), 2);
  pp_residency_book_forget (book, XHCI);
  assert_int_equal (pp_residency_book_get_n_bases (book), 1);
  set_counters (st, XHCI, 1830912 + 5, 7, "active");
  assert_true (pp_residency_book_query (book, XHCI, &r, NULL, NULL));
  assert_true (r.active_ms == 1830917 && r.suspended_ms == 7);
}

static void
test_get_statistics_variant (void **state)
{
  State *st = *state;
  g_autoptr(PpResidencyBook) book = pp_residency_book_new (0);
  const char * const paths[] = { MOUSE, BARE, GONE, XHCI };
  g_autoptr(GVariant) v = NULL;
  const char *path;
  double share;
  guint64 active, suspended;

  pp_residency_book_set_base_all (book, paths, G_N_ELEMENTS (paths));
  set_counters (st, XHCI, 1830912 + 1000, 3000, "suspended");
  set_attr (st, MOUSE, "power/connected_duration", "997654\n");

  v = g_variant_ref_sink (pp_residency_book_get_statistics (book, paths, G_N_ELEMENTS (paths)));
  assert_string_equal (g_variant_get_type_string (v), "a(sdtt)");
  assert_int_equal (g_variant_n_children (v), 2);

  g_variant_get_child (v, 0, "(&sdtt)", &path, &share, &active, &suspended);
  assert_string_equal (path, MOUSE);
  assert_true (active == 0 && suspended == 10000);
  assert_true (fabs (share - 1.0) < 1e-12);

  g_variant_get_child (v, 1, "(&sdtt)", &path, &share, &active, &suspended);
  assert_string_equal (path, XHCI);
  assert_true (active == 1000 && suspended == 3000);
  assert_true (fabs (share - 0.75) < 1e-12);
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();
  static const struct {
    const char         *name;
    CMUnitTestFunction  func;
  } tests[] = {
    { "read-runtime-counters", test_read_runtime_counters },
    { "read-usb-durations", test_read_usb_durations },
    { "read-errors", test_read_errors },
    { "read-oversized", test_read_oversized },
    { "read-without-newlines", test_read_without_newlines },
    { "since-base", test_since_base },
    { "no-base-counts-since-appeared", test_no_base_counts_since_appeared },
    { "replug-rebases", test_replug_rebases },
    { "never-suspends-flag", test_never_suspends_flag },
    { "query-fields", test_query_fields },
    { "window-two-samples", test_window_two_samples },
    { "forget", test_forget },
    { "get-statistics-variant", test_get_statistics_variant },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (tests); i++)
    pp_test_list_add (list, "residency", tests[i].name, tests[i].func, setup, teardown, NULL);
  return pp_test_list_run (list, "residency");
}
