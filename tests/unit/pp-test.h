/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared helpers of the cmocka tests: table rows become named test
 * cases, each with its own setup/teardown around a state struct. */
#pragma once

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <glib.h>
#include <glib/gstdio.h>

G_BEGIN_DECLS

/* A growing list of test cases; the names are owned by the list. */
typedef struct {
  GArray    *tests;     /* of struct CMUnitTest */
  GPtrArray *names;     /* of char* */
} PpTestList;

static inline PpTestList *
pp_test_list_new (void)
{
  PpTestList *list = g_new0 (PpTestList, 1);

  list->tests = g_array_new (FALSE, TRUE, sizeof (struct CMUnitTest));
  list->names = g_ptr_array_new_with_free_func (g_free);
  return list;
}

/* Add one case: @row is handed to @setup as the initial *state. */
static inline void
pp_test_list_add (PpTestList          *list,
                  const char          *prefix,
                  const char          *name,
                  CMUnitTestFunction   func,
                  CMFixtureFunction    setup,
                  CMFixtureFunction    teardown,
                  const void          *row)
{
  g_autofree char *printable = g_strescape (name, NULL);
  char *full = g_strdup_printf ("%s/%s", prefix, printable);
  struct CMUnitTest t = { full, func, setup, teardown, (void *) row };

  g_ptr_array_add (list->names, full);
  g_array_append_val (list->tests, t);
}

static inline int
pp_test_list_run (PpTestList *list, const char *group)
{
  int failures;

  failures = _cmocka_run_group_tests (group,
                                      (const struct CMUnitTest *) list->tests->data,
                                      list->tests->len, NULL, NULL);
  g_array_unref (list->tests);
  g_ptr_array_unref (list->names);
  g_free (list);
  /* the exit status, not the count: 256 failures must not exit 0 */
  return failures == 0 ? 0 : 1;
}

/* rm -r, without following symlinks (test directories only) */
static inline void
pp_test_remove_tree (const char *path)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (g_file_test (path, G_FILE_TEST_IS_SYMLINK) || !g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_unlink (path);
      return;
    }
  dir = g_dir_open (path, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      pp_test_remove_tree (child);
    }
  g_rmdir (path);
}

static inline gboolean
pp_test_on_tick (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* Run the main loop until @done says so, at most @timeout_ms; a tick
 * wakes the loop now and then, so that the deadline is seen. */
static inline gboolean
pp_test_wait_for (gboolean (*done) (gpointer), gpointer data, guint timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * G_TIME_SPAN_MILLISECOND;
  guint tick = g_timeout_add (20, pp_test_on_tick, NULL);
  gboolean ok;

  while (!(ok = done (data)) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (tick);
  return ok;
}

G_END_DECLS
