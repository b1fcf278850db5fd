/* SPDX-License-Identifier: GPL-2.0-or-later */
/* umockdev testbeds for the tests that enumerate tagged devices (backend
 * and daemon tiers). umockdev keeps properties in uevent files and creates
 * no tags, and it does not redirect /run/udev, where libudev finds its tag
 * index: such a test runs in a private mount namespace
 * (pp_testbed_private_run() from main, before any thread exists), binds
 * its testbed's run/udev to /run/udev (pp_testbed_bind_run_udev()) and
 * tags devices there itself, as udev's rules would. Needs root and
 * umockdev-wrapper. Include after pp-test.h (cmocka). */
#pragma once

#include <errno.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <umockdev.h>

/* Tag (or untag) a testbed device "powerpolicy" as udev's rules would: @id
 * is udev's name of the device ("+subsystem:sysname"). As udevd (247 and
 * later) does, a device keeps its entry in the tag index and TAGS (every
 * tag it ever had) and CURRENT_TAGS names the tags of the last event; an
 * empty TAGS= would make libudev crash, udevd never sends one. Its
 * database entry has the tag lines udevd 252 writes: G: (every tag ever),
 * Q: (current tags) and V:1 (the version that has Q:). */
static inline void
pp_testbed_set_tagged (UMockdevTestbed *tb, const char *syspath, const char *id, gboolean tagged)
{
  g_autofree char *root = umockdev_testbed_get_root_dir (tb);
  g_autofree char *dir = g_build_filename (root, "run", "udev", "tags", "powerpolicy", NULL);
  g_autofree char *file = g_build_filename (dir, id, NULL);
  g_autofree char *db_dir = g_build_filename (root, "run", "udev", "data", NULL);
  g_autofree char *db = g_build_filename (db_dir, id, NULL);

  assert_int_equal (g_mkdir_with_parents (dir, 0755), 0);
  assert_int_equal (g_mkdir_with_parents (db_dir, 0755), 0);
  if (tagged)
    {
      assert_true (g_file_set_contents (file, "", 0, NULL));
      assert_true (g_file_set_contents (db, "I:1\nG:powerpolicy\nQ:powerpolicy\nV:1\n", -1, NULL));
      umockdev_testbed_set_property (tb, syspath, "TAGS", ":powerpolicy:");
      umockdev_testbed_set_property (tb, syspath, "CURRENT_TAGS", ":powerpolicy:");
    }
  else
    {
      g_autofree char *uevent = g_build_filename (root, syspath, "uevent", NULL);
      g_autofree char *text = NULL;
      g_auto(GStrv) lines = NULL;
      g_autoptr(GString) kept = g_string_new (NULL);

      assert_true (g_file_set_contents (db, g_file_test (file, G_FILE_TEST_EXISTS) ?
                                        "I:1\nG:powerpolicy\nV:1\n" : "I:1\nV:1\n", -1, NULL));
      assert_true (g_file_get_contents (uevent, &text, NULL, NULL));
      lines = g_strsplit (text, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        if (*lines[i] != '\0' && !g_str_has_prefix (lines[i], "CURRENT_TAGS="))
          g_string_append_printf (kept, "%s\n", lines[i]);
      assert_true (g_file_set_contents (uevent, kept->str, -1, NULL));
    }
}

/* This process's /run/udev becomes the testbed's (undo with
 * pp_testbed_unbind_run_udev()). */
static inline void
pp_testbed_bind_run_udev (UMockdevTestbed *tb)
{
  g_autofree char *root = umockdev_testbed_get_root_dir (tb);
  g_autofree char *run_udev = g_build_filename (root, "run", "udev", NULL);

  assert_int_equal (g_mkdir_with_parents (run_udev, 0755), 0);
  if (mount (run_udev, "/run/udev", NULL, MS_BIND, NULL) < 0)
    fail_msg ("cannot bind %s to /run/udev: %s", run_udev, g_strerror (errno));
}

static inline void
pp_testbed_unbind_run_udev (void)
{
  assert_int_equal (umount2 ("/run/udev", MNT_DETACH), 0);
}

/* From main, before any thread exists (unshare needs a single thread): a
 * private /run with an empty /run/udev, and a check that the umockdev
 * preload library is active. 0, or 77 (skip) with the reason printed. */
static inline int
pp_testbed_private_run (void)
{
  g_autoptr(UMockdevTestbed) probe = NULL;

  if (geteuid () != 0)
    {
      g_printerr ("SKIP: needs root (a private mount namespace for /run/udev)\n");
      return 77;
    }
  if (unshare (CLONE_NEWNS) < 0 ||
      mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
      mount ("pp-test-run", "/run", "tmpfs", 0, "mode=0755") < 0 ||
      mkdir ("/run/udev", 0755) < 0)
    {
      g_printerr ("SKIP: cannot set up a private /run/udev: %s\n", g_strerror (errno));
      return 77;
    }
  /* Without the preload libudev reads the real /sys. (The check needs a
   * testbed to exist.) */
  probe = umockdev_testbed_new ();
  if (!umockdev_in_mock_environment ())
    {
      g_printerr ("SKIP: not running under umockdev-wrapper (the preload library is not active)\n");
      return 77;
    }
  return 0;
}
