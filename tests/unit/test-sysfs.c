/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Backend tests of pp-sysfs.c against a umockdev testbed. Run under
 * umockdev-wrapper: /sys is then the testbed, never the machine's. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <umockdev.h>

#include "pp-test.h"
#include "pp-sysfs.h"

#define DEV        "/sys/devices/0000:00:14.0"
#define OTHER_DEV  "/sys/devices/LNXSYSTM:00"
#define MODULE_PARAM "/sys/module/snd_hda_intel/parameters/power_save"
#define OUTSIDE    "@outside"     /* replaced by a file outside the testbed */

typedef struct {
  const void      *row;
  UMockdevTestbed *tb;
  char            *root;          /* the testbed's real directory */
  char            *outside_dir;   /* a directory outside /sys */
  char            *outside_file;  /* a file in it, "precious\n" */
} State;

/* How a row changes the testbed before its write. */
typedef enum {
  PREP_NONE,
  PREP_CONTROL_TO_DEV_FULL,       /* power/control -> /dev/full */
  PREP_CONTROL_TO_OUTSIDE,        /* power/control -> a file outside sysfs */
  PREP_CONTROL_TO_WAKEUP,         /* power/control -> ../power/wakeup */
  PREP_DRIVER_LINK,               /* driver -> /sys/bus/pci/drivers/xhci_hcd */
  PREP_ESCAPE_LINK,               /* escape -> a directory outside sysfs */
  PREP_FIRMWARE_NODE_LINK,        /* firmware_node -> another /sys/devices device */
  PREP_CONTROL_IS_DIR,            /* power/control replaced by a directory */
} Prep;

static char *
raw_path (State *st, const char *path)
{
  if (g_str_equal (path, OUTSIDE))
    return g_strdup (st->outside_file);
  if (g_str_has_prefix (path, "/sys/") || g_str_has_prefix (path, "/proc/"))
    return g_strconcat (st->root, path, NULL);
  return g_strdup (path);
}

static const char *
real_arg (State *st, const char *path)
{
  return g_str_equal (path, OUTSIDE) ? st->outside_file : path;
}

static void
raw_write (const char *file, const char *contents)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (file);

  assert_int_equal (g_mkdir_with_parents (dir, 0755), 0);
  if (!g_file_set_contents (file, contents, -1, &error))
    fail_msg ("cannot write %s: %s", file, error->message);
}

static char *
raw_read (const char *file)
{
  char *contents = NULL;

  /* never read a device node such as /dev/full: it has no end */
  if (!g_file_test (file, G_FILE_TEST_IS_REGULAR))
    return NULL;
  if (!g_file_get_contents (file, &contents, NULL, NULL))
    return NULL;
  return contents;
}

static int
setup (void **state)
{
  State *st = g_new0 (State, 1);
  g_autofree char *syspath = NULL;
  g_autofree char *other = NULL;
  g_autofree char *param = NULL;
  g_autofree char *power = NULL;

  st->row = *state;
  st->tb = umockdev_testbed_new ();
  st->root = umockdev_testbed_get_root_dir (st->tb);

  /* everything below writes: make sure it lands in the testbed */
  assert_true (umockdev_in_mock_environment ());
  assert_string_equal (g_getenv ("UMOCKDEV_DIR"), st->root);

  syspath = umockdev_testbed_add_device (st->tb, "pci", "0000:00:14.0", NULL,
                                         "power/control", "auto\n",
                                         "power/autosuspend_delay_ms", "2000\n",
                                         "power/wakeup", "disabled\n",
                                         "link_power_management_policy", "med_power_with_dipm\n",
                                         NULL,
                                         "PCI_CLASS", "C0330",
                                         NULL);
  assert_string_equal (syspath, DEV);
  other = umockdev_testbed_add_device (st->tb, "acpi", "LNXSYSTM:00", NULL,
                                       "power/control", "on\n", NULL, NULL);
  assert_string_equal (other, OTHER_DEV);

  param = raw_path (st, MODULE_PARAM);
  raw_write (param, "10\n");
  power = raw_path (st, "/sys/power/state");
  raw_write (power, "freeze mem disk\n");

  st->outside_dir = g_dir_make_tmp ("pp-test-outside-XXXXXX", NULL);
  assert_non_null (st->outside_dir);
  st->outside_file = g_build_filename (st->outside_dir, "target", NULL);
  raw_write (st->outside_file, "precious\n");

  *state = st;
  return 0;
}

static int
teardown (void **state)
{
  State *st = *state;

  g_clear_object (&st->tb);
  pp_test_remove_tree (st->outside_dir);
  g_free (st->outside_dir);
  g_free (st->outside_file);
  g_free (st->root);
  g_free (st);
  return 0;
}

static void
prepare (State *st, Prep prep)
{
  g_autofree char *control = raw_path (st, DEV "/power/control");
  g_autofree char *link = NULL;

  switch (prep)
    {
    case PREP_NONE:
      break;
    case PREP_CONTROL_TO_DEV_FULL:
      assert_int_equal (g_unlink (control), 0);
      assert_int_equal (symlink ("/dev/full", control), 0);
      break;
    case PREP_CONTROL_TO_OUTSIDE:
      assert_int_equal (g_unlink (control), 0);
      assert_int_equal (symlink (st->outside_file, control), 0);
      break;
    case PREP_CONTROL_TO_WAKEUP:
      assert_int_equal (g_unlink (control), 0);
      assert_int_equal (symlink ("../power/wakeup", control), 0);
      break;
    case PREP_DRIVER_LINK:
      {
        g_autofree char *bind = raw_path (st, "/sys/bus/pci/drivers/xhci_hcd/unbind");
        raw_write (bind, "untouched\n");
        umockdev_testbed_set_attribute_link (st->tb, DEV, "driver", "../../bus/pci/drivers/xhci_hcd");
      }
      break;
    case PREP_ESCAPE_LINK:
      link = raw_path (st, DEV "/escape");
      assert_int_equal (symlink (st->outside_dir, link), 0);
      break;
    case PREP_FIRMWARE_NODE_LINK:
      umockdev_testbed_set_attribute_link (st->tb, DEV, "firmware_node", "../LNXSYSTM:00");
      break;
    case PREP_CONTROL_IS_DIR:
      assert_int_equal (g_unlink (control), 0);
      assert_int_equal (g_mkdir (control, 0755), 0);
      break;
    default:
      fail_msg ("unknown preparation %d", prep);
    }
}

/* ---- successful writes truncate ----------------------------------------- */

typedef struct {
  const char *name;
  Prep        prep;
  const char *path;
  const char *value;
  const char *check;       /* the file to look at afterwards */
  const char *expected;    /* its exact contents */
} WriteCase;

static const WriteCase write_cases[] = {
  { "on-over-auto", PREP_NONE, DEV "/power/control", "on", DEV "/power/control", "on" },
  { "auto-over-auto", PREP_NONE, DEV "/power/control", "auto", DEV "/power/control", "auto" },
  { "zero-over-2000", PREP_NONE, DEV "/power/autosuspend_delay_ms", "0",
    DEV "/power/autosuspend_delay_ms", "0" },
  { "minus-one", PREP_NONE, DEV "/power/autosuspend_delay_ms", "-1",
    DEV "/power/autosuspend_delay_ms", "-1" },
  { "wakeup", PREP_NONE, DEV "/power/wakeup", "enabled", DEV "/power/wakeup", "enabled" },
  { "link-policy", PREP_NONE, DEV "/link_power_management_policy", "min_power",
    DEV "/link_power_management_policy", "min_power" },
  { "module-parameter", PREP_NONE, MODULE_PARAM, "1", MODULE_PARAM, "1" },
  { "empty-value", PREP_NONE, DEV "/power/control", "", DEV "/power/control", "" },
  { "symlinked-dir-inside-devices", PREP_FIRMWARE_NODE_LINK, DEV "/firmware_node/power/control",
    "auto", OTHER_DEV "/power/control", "auto" },
};

static void
test_write (void **state)
{
  State *st = *state;
  const WriteCase *c = st->row;
  g_autoptr(GError) error = NULL;
  g_autofree char *check = raw_path (st, c->check);
  g_autofree char *contents = NULL;
  g_autofree char *read_back = NULL;

  prepare (st, c->prep);
  if (!pp_sysfs_write (c->path, c->value, pp_sysfs_policy_roots, &error))
    fail_msg ("writing '%s' to %s failed: %s", c->value, c->path, error->message);
  contents = raw_read (check);
  assert_non_null (contents);
  /* no tail of the old value: the file was truncated */
  assert_string_equal (contents, c->expected);
  read_back = pp_sysfs_read (c->check, &error);
  assert_non_null (read_back);
  assert_string_equal (read_back, c->expected);
}

static void
test_write_twice_shorter (void **state)
{
  State *st = *state;
  g_autofree char *file = raw_path (st, DEV "/power/autosuspend_delay_ms");
  g_autofree char *contents = NULL;

  assert_true (pp_sysfs_write (DEV "/power/autosuspend_delay_ms", "123456", pp_sysfs_policy_roots,
                               NULL));
  assert_true (pp_sysfs_write (DEV "/power/autosuspend_delay_ms", "7", pp_sysfs_policy_roots,
                               NULL));
  contents = raw_read (file);
  assert_string_equal (contents, "7");
}

/* Binary data (a PCI config space) with NUL bytes, all of it; the same
 * checks as for text. */
static void
test_write_bytes (void **state)
{
  State *st = *state;
  static const char data[] = { 'A', '\0', 'B', '\0', '\xff' };
  g_autofree char *file = raw_path (st, DEV "/power/control");
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize len = 0;

  if (!pp_sysfs_write_bytes (DEV "/power/control", data, sizeof (data), pp_sysfs_policy_roots, &error))
    fail_msg ("%s", error->message);
  assert_true (g_file_get_contents (file, &contents, &len, NULL));
  assert_int_equal (len, sizeof (data));
  assert_memory_equal (contents, data, sizeof (data));

  prepare (st, PREP_CONTROL_TO_OUTSIDE);
  assert_false (pp_sysfs_write_bytes (DEV "/power/control", data, sizeof (data), pp_sysfs_policy_roots,
                                      &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED));
  g_clear_error (&error);
  assert_false (pp_sysfs_write_bytes ("/sys/power/state", "mem", 3, pp_sysfs_policy_roots, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED));
}

/* ---- refused writes never touch anything -------------------------------- */

typedef struct {
  const char *name;
  Prep        prep;
  const char *path;
  const char *check;       /* must be unchanged afterwards, or NULL */
} RefuseCase;

static const RefuseCase refuse_cases[] = {
  { "sys-power-state", PREP_NONE, "/sys/power/state", "/sys/power/state" },
  { "sys-power-mem-sleep", PREP_NONE, "/sys/power/mem_sleep", NULL },
  { "sys-class", PREP_NONE, "/sys/class/power_supply/AC/online", NULL },
  { "sys-kernel", PREP_NONE, "/sys/kernel/mm/transparent_hugepage/enabled", NULL },
  { "proc", PREP_NONE, "/proc/sys/vm/laptop_mode", NULL },
  { "outside-file", PREP_NONE, OUTSIDE, OUTSIDE },
  { "root-itself", PREP_NONE, "/sys/devices", NULL },
  { "root-slash", PREP_NONE, "/sys/devices/", NULL },
  { "module-root-slash", PREP_NONE, "/sys/module/", NULL },
  { "root-prefix-only", PREP_NONE, "/sys/devicesX/power/control", NULL },
  { "relative", PREP_NONE, "sys/devices/0000:00:14.0/power/control", DEV "/power/control" },
  { "empty", PREP_NONE, "", NULL },
  { "dotdot-at-root", PREP_NONE, "/sys/devices/../power/state", "/sys/power/state" },
  { "dotdot-in-device", PREP_NONE, DEV "/../../power/state", "/sys/power/state" },
  { "dotdot-to-sibling", PREP_NONE, DEV "/../LNXSYSTM:00/power/control", OTHER_DEV "/power/control" },
  { "dotdot-last", PREP_NONE, DEV "/power/..", NULL },
  { "dotdot-module", PREP_NONE, "/sys/module/../power/state", "/sys/power/state" },
  { "dot-component", PREP_NONE, DEV "/./power/control", DEV "/power/control" },
  { "double-slash", PREP_NONE, "/sys/devices//0000:00:14.0/power/control", DEV "/power/control" },
  { "trailing-slash", PREP_NONE, DEV "/power/control/", DEV "/power/control" },
  { "prefix-outside-dotdot", PREP_NONE, "/tmp/../sys/devices/0000:00:14.0/power/control",
    DEV "/power/control" },
  { "symlink-to-dev-full", PREP_CONTROL_TO_DEV_FULL, DEV "/power/control", NULL },
  { "symlink-to-outside-file", PREP_CONTROL_TO_OUTSIDE, DEV "/power/control", OUTSIDE },
  { "symlink-to-sibling-attribute", PREP_CONTROL_TO_WAKEUP, DEV "/power/control", DEV "/power/wakeup" },
  { "dir-symlink-to-sys-bus", PREP_DRIVER_LINK, DEV "/driver/unbind",
    "/sys/bus/pci/drivers/xhci_hcd/unbind" },
  { "dir-symlink-out-of-sysfs", PREP_ESCAPE_LINK, DEV "/escape/target", OUTSIDE },
};

static void
test_refuse (void **state)
{
  State *st = *state;
  const RefuseCase *c = st->row;
  g_autoptr(GError) error = NULL;
  g_autofree char *check = c->check ? raw_path (st, c->check) : NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  prepare (st, c->prep);
  before = check ? raw_read (check) : NULL;
  if (check != NULL)
    assert_non_null (before);
  assert_false (pp_sysfs_write (real_arg (st, c->path), "on", pp_sysfs_policy_roots, &error));
  assert_non_null (error);
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
    fail_msg ("expected G_IO_ERROR_PERMISSION_DENIED, got %s %d: %s", g_quark_to_string (error->domain),
              error->code, error->message);
  assert_non_null (strstr (error->message, "refusing to write"));
  if (check != NULL)
    {
      after = raw_read (check);
      assert_string_equal (after, before);
    }
}

static void
test_refuse_custom_roots (void **state)
{
  State *st = *state;
  static const char * const only_modules[] = { "/sys/module", NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *file = raw_path (st, DEV "/power/control");
  g_autofree char *contents = NULL;

  assert_false (pp_sysfs_write (DEV "/power/control", "on", only_modules, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED));
  contents = raw_read (file);
  assert_string_equal (contents, "auto\n");
  g_clear_error (&error);
  assert_true (pp_sysfs_write (MODULE_PARAM, "0", only_modules, &error));
  assert_null (error);
}

/* ---- failing writes report errno's G_IO_ERROR code ------------------------ */

static void
test_write_eisdir (void **state)
{
  State *st = *state;
  g_autoptr(GError) error = NULL;

  prepare (st, PREP_CONTROL_IS_DIR);
  assert_false (pp_sysfs_write (DEV "/power/control", "on", pp_sysfs_policy_roots, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY));
  assert_non_null (strstr (error->message, g_strerror (EISDIR)));
  assert_non_null (strstr (error->message, DEV "/power/control"));
}

static void
test_write_missing_attribute (void **state)
{
  State *st = *state;
  g_autoptr(GError) error = NULL;
  g_autofree char *file = raw_path (st, DEV "/power/nonexistent");

  assert_false (pp_sysfs_write (DEV "/power/nonexistent", "on", pp_sysfs_policy_roots, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND));
  /* never created */
  assert_false (g_file_test (file, G_FILE_TEST_EXISTS));
}

/* A device that went away: the error code says so. */
static void
test_write_missing_device (void **state)
{
  State *st = *state;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = raw_path (st, "/sys/devices/gone");

  assert_false (pp_sysfs_write ("/sys/devices/gone/power/control", "on", pp_sysfs_policy_roots,
                                &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND));
  assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
  g_clear_error (&error);
  assert_false (pp_sysfs_write ("/sys/module/gone/parameters/x", "1", pp_sysfs_policy_roots,
                                &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND));
}

static void
test_write_null_out_params (void **state)
{
  State *st = *state;

  prepare (st, PREP_CONTROL_IS_DIR);
  assert_false (pp_sysfs_write ("/sys/power/state", "mem", pp_sysfs_policy_roots, NULL));
  assert_false (pp_sysfs_write (DEV "/power/control", "on", pp_sysfs_policy_roots, NULL));
  assert_true (pp_sysfs_write (DEV "/power/wakeup", "enabled", pp_sysfs_policy_roots, NULL));
}

/* ---- reading ---------------------------------------------------------------- */

typedef struct {
  const char *name;
  const char *raw;
  const char *expected;
} ReadCase;

static const ReadCase read_cases[] = {
  { "newline", "auto\n", "auto" },
  { "no-newline", "auto", "auto" },
  { "trailing-space", "a b \n", "a b" },
  { "leading-space-kept", "  x\n", "  x" },
  { "empty", "", "" },
  { "only-newline", "\n", "" },
  { "two-lines", "one\ntwo\n", "one\ntwo" },
  { "bracketed-choice", "[s2idle] deep\n", "[s2idle] deep" },
};

static void
test_read (void **state)
{
  State *st = *state;
  const ReadCase *c = st->row;
  g_autoptr(GError) error = NULL;
  g_autofree char *file = raw_path (st, DEV "/power/runtime_status");
  g_autofree char *value = NULL;
  g_autofree char *opt = NULL;

  raw_write (file, c->raw);
  value = pp_sysfs_read (DEV "/power/runtime_status", &error);
  assert_null (error);
  assert_string_equal (value, c->expected);
  opt = pp_sysfs_read_opt (DEV, "power/runtime_status");
  assert_string_equal (opt, c->expected);
}

static void
test_read_errors (void **state)
{
  State *st = *state;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = raw_path (st, DEV "/power/adir");

  assert_null (pp_sysfs_read (DEV "/power/missing", &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND));
  g_clear_error (&error);
  assert_null (pp_sysfs_read_opt (DEV, "power/missing"));
  assert_null (pp_sysfs_read_opt ("/sys/devices/gone", "power/control"));

  assert_int_equal (g_mkdir (dir, 0755), 0);
  assert_null (pp_sysfs_read (DEV "/power/adir", &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY));
}

typedef struct {
  const char *name;
  const char *raw;       /* NULL: no file */
  gint64      expected;
} IntCase;

static const IntCase int_cases[] = {
  { "number", "2000\n", 2000 },
  { "minus-one", "-1\n", -1 },
  { "zero", "0", 0 },
  { "big", "9000000000\n", G_GINT64_CONSTANT (9000000000) },
  { "word", "abc\n", 42 },
  { "empty", "", 42 },
  { "unit", "5ms\n", 42 },
  { "missing", NULL, 42 },
};

static void
test_read_int (void **state)
{
  State *st = *state;
  const IntCase *c = st->row;
  g_autofree char *file = raw_path (st, DEV "/power/autosuspend_delay_ms");

  if (c->raw != NULL)
    raw_write (file, c->raw);
  else
    assert_int_equal (g_unlink (file), 0);
  assert_int_equal (pp_sysfs_read_int (DEV, "power/autosuspend_delay_ms", 42), c->expected);
}

/* ---- lexical check ------------------------------------------------------------- */

typedef struct {
  const char *path;
  const char *root;
  gboolean    under;
} UnderCase;

static const UnderCase under_cases[] = {
  { "/sys/devices/x", "/sys/devices", TRUE },
  { "/sys/devices/x/power/control", "/sys/devices", TRUE },
  { "/sys/devices/a..b/c", "/sys/devices", TRUE },
  { "/sys/devices/.hidden", "/sys/devices", TRUE },
  { "/sys/devices/x/...", "/sys/devices", TRUE },
  { "/sys/module/m/parameters/p", "/sys/module", TRUE },
  { "/sys/devices", "/sys/devices", FALSE },
  { "/sys/devices/", "/sys/devices", FALSE },
  { "/sys/devicesX", "/sys/devices", FALSE },
  { "/sys/devicesX/y", "/sys/devices", FALSE },
  { "/sys/device", "/sys/devices", FALSE },
  { "/sys/devices/..", "/sys/devices", FALSE },
  { "/sys/devices/../x", "/sys/devices", FALSE },
  { "/sys/devices/x/..", "/sys/devices", FALSE },
  { "/sys/devices/x/../y", "/sys/devices", FALSE },
  { "/sys/devices/.", "/sys/devices", FALSE },
  { "/sys/devices/./x", "/sys/devices", FALSE },
  { "/sys/devices/x/.", "/sys/devices", FALSE },
  { "/sys/devices//x", "/sys/devices", FALSE },
  { "/sys/devices/x//y", "/sys/devices", FALSE },
  { "/sys/devices/x/", "/sys/devices", FALSE },
  { "/sys/module/x", "/sys/devices", FALSE },
  { "sys/devices/x", "/sys/devices", FALSE },
  { "", "/sys/devices", FALSE },
  { NULL, "/sys/devices", FALSE },
  { "/tmp/sys/devices/x", "/sys/devices", FALSE },
};

static void
test_under (void **state)
{
  State *st = *state;
  const UnderCase *c = st->row;

  if (pp_sysfs_path_is_under (c->path, c->root) != c->under)
    fail_msg ("%s under %s: expected %s", c->path ? c->path : "(null)", c->root,
              c->under ? "TRUE" : "FALSE");
}

static void
test_policy_roots (void **state)
{
  assert_string_equal (pp_sysfs_policy_roots[0], "/sys/devices");
  assert_string_equal (pp_sysfs_policy_roots[1], "/sys/module");
  assert_null (pp_sysfs_policy_roots[2]);
}

int
main (void)
{
  PpTestList *list;
  g_autoptr(UMockdevTestbed) probe = umockdev_testbed_new ();

  /* Without the preload, /sys is the real one: never write there. (The
   * check needs a testbed to exist.) */
  if (!umockdev_in_mock_environment ())
    {
      g_printerr ("SKIP: not running under umockdev-wrapper (the preload library is not active)\n");
      return 77;
    }
  g_clear_object (&probe);

  list = pp_test_list_new ();
  for (guint i = 0; i < G_N_ELEMENTS (write_cases); i++)
    pp_test_list_add (list, "write", write_cases[i].name, test_write, setup, teardown, &write_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (refuse_cases); i++)
    pp_test_list_add (list, "refuse", refuse_cases[i].name, test_refuse, setup, teardown,
                      &refuse_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (read_cases); i++)
    pp_test_list_add (list, "read", read_cases[i].name, test_read, setup, teardown, &read_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (int_cases); i++)
    pp_test_list_add (list, "read-int", int_cases[i].name, test_read_int, setup, teardown,
                      &int_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (under_cases); i++)
    pp_test_list_add (list, "under", under_cases[i].path ? under_cases[i].path : "(null)",
                      test_under, setup, teardown, &under_cases[i]);
  pp_test_list_add (list, "write", "twice-shorter", test_write_twice_shorter, setup, teardown, NULL);
  pp_test_list_add (list, "write", "bytes", test_write_bytes, setup, teardown, NULL);
  pp_test_list_add (list, "write", "eisdir", test_write_eisdir, setup, teardown, NULL);
  pp_test_list_add (list, "write", "missing-attribute", test_write_missing_attribute, setup, teardown,
                    NULL);
  pp_test_list_add (list, "write", "missing-device", test_write_missing_device, setup, teardown, NULL);
  pp_test_list_add (list, "write", "null-out-params", test_write_null_out_params, setup, teardown, NULL);
  pp_test_list_add (list, "refuse", "custom-roots", test_refuse_custom_roots, setup, teardown, NULL);
  pp_test_list_add (list, "read", "errors", test_read_errors, setup, teardown, NULL);
  pp_test_list_add (list, "misc", "policy-roots", test_policy_roots, setup, teardown, NULL);

  return pp_test_list_run (list, "sysfs");
}
