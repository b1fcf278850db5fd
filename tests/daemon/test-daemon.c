/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's objects without a bus (issue 10): PpPowerOps, PpActivity,
 * PpSleep, PpToken and PpExecutor through their plain C APIs, on a PpManager started
 * on a umockdev testbed (tagged devices through pp-testbed.h). Run under
 * umockdev-wrapper, as root; every path is inside the testbed or a
 * temporary directory. */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>

#include "pp-test.h"
#include "pp-testbed.h"
#include "pp-activity.h"
#include "pp-error.h"
#include "pp-executor.h"
#include "pp-manager.h"
#include "pp-power-ops.h"
#include "pp-revert.h"
#include "pp-sleep.h"
#include "pp-token.h"

#define PCI     "/sys/devices/0000:00:14.0"
#define HUB     PCI "/usb1"
#define STORAGE HUB "/1-2"

/* Bound of every wait: generous, only reached on failure. */
#define WAIT_TIMEOUT_MS 5000

static const char CONFIG[] =
  "[Daemon]\n"
  "RestoreOnExit=true\n"
  "IdleTimeoutSec=1\n"
  "[Class pci]\n"
  "Control=on\n"
  "[Class usb-hub]\n"
  "Control=on\n"
  "[Class usb-storage]\n"
  "Control=on\n";

typedef struct {
  UMockdevTestbed *tb;
  char            *root;     /* the testbed's */
  char            *work;     /* config, state and runtime directories */
  PpManager       *manager;
  PpPowerOps      *ops;      /* PowerDown, PowerUp, Hold on @manager */
  PpTokenRegistry *tokens;   /* the holds, inhibitors and reverts */
  gboolean         dry_run;
} State;

static char *
read_attr (State *st, const char *syspath, const char *attr)
{
  g_autofree char *file = g_build_filename (st->root, syspath, attr, NULL);
  g_autofree char *text = NULL;

  if (!g_file_get_contents (file, &text, NULL, NULL))
    return NULL;
  return g_strstrip (g_strdup (text));
}

#define assert_attr(st, syspath, attr, expected) \
  G_STMT_START { \
    g_autofree char *_value = read_attr ((st), (syspath), (attr)); \
    assert_string_equal (_value ? _value : "(missing)", (expected)); \
  } G_STMT_END

/* Run the main loop until @done says so, at most WAIT_TIMEOUT_MS. */
static gboolean
wait_for (gboolean (*done) (gpointer), gpointer data)
{
  return pp_test_wait_for (done, data, WAIT_TIMEOUT_MS);
}

static void
add_devices (State *st)
{
  g_autofree char *path = NULL;

  path = umockdev_testbed_add_device (st->tb, "pci", "0000:00:14.0", NULL,
                                      "power/control", "on\n",
                                      "power/runtime_status", "active\n", NULL,
                                      "PCI_CLASS", "C0330", "DRIVER", "xhci_hcd",
                                      "POWERPOLICY_CLASS", "pci", NULL);
  g_clear_pointer (&path, g_free);
  path = umockdev_testbed_add_device (st->tb, "usb", "usb1", PCI,
                                      "power/control", "on\n",
                                      "power/runtime_status", "active\n", NULL,
                                      "DEVTYPE", "usb_device", "POWERPOLICY_CLASS", "usb-hub", NULL);
  g_clear_pointer (&path, g_free);
  path = umockdev_testbed_add_device (st->tb, "usb", "1-2", HUB,
                                      "power/control", "on\n",
                                      "power/runtime_status", "active\n",
                                      "power/autosuspend_delay_ms", "2000\n", NULL,
                                      "DEVTYPE", "usb_device", "POWERPOLICY_CLASS", "usb-storage",
                                      NULL);
  pp_testbed_set_tagged (st->tb, PCI, "+pci:0000:00:14.0", TRUE);
  pp_testbed_set_tagged (st->tb, HUB, "+usb:usb1", TRUE);
  pp_testbed_set_tagged (st->tb, STORAGE, "+usb:1-2", TRUE);
}

static int
setup_common (void **state, gboolean dry_run)
{
  State *st = g_new0 (State, 1);
  g_autoptr(GError) error = NULL;
  g_autofree char *config = NULL;
  g_autofree char *state_dir = NULL;
  g_autofree char *runtime_dir = NULL;
  g_autofree char *sys_power = NULL;
  PpManagerOptions options = { 0 };

  st->tb = umockdev_testbed_new ();
  st->root = umockdev_testbed_get_root_dir (st->tb);
  assert_true (umockdev_in_mock_environment ());
  st->work = g_dir_make_tmp ("pp-test-daemon-XXXXXX", &error);
  assert_non_null (st->work);
  add_devices (st);
  pp_testbed_bind_run_udev (st->tb);
  /* the kernel's sleep states, inside the testbed */
  sys_power = g_build_filename (st->root, "sys", "power", NULL);
  assert_int_equal (g_mkdir_with_parents (sys_power, 0755), 0);
  {
    g_autofree char *file = g_build_filename (sys_power, "state", NULL);
    assert_true (g_file_set_contents (file, "freeze mem\n", -1, NULL));
  }

  config = g_build_filename (st->work, "powerpolicy.conf", NULL);
  state_dir = g_build_filename (st->work, "state", NULL);
  runtime_dir = g_build_filename (st->work, "run", NULL);
  assert_true (g_file_set_contents (config, CONFIG, -1, NULL));
  options.config_path = config;
  options.state_dir = state_dir;
  options.runtime_dir = runtime_dir;
  options.dry_run = dry_run;
  options.no_logind = TRUE;
  st->dry_run = dry_run;
  st->manager = pp_manager_new (&options);
  if (!pp_manager_start (st->manager, &error))
    fail_msg ("the manager does not start: %s", error->message);
  st->tokens = pp_token_registry_new ();
  st->ops = pp_power_ops_new (st->manager, st->tokens);
  *state = st;
  return 0;
}

static int
setup (void **state)
{
  return setup_common (state, FALSE);
}

static int
setup_dry_run (void **state)
{
  return setup_common (state, TRUE);
}

static int
teardown (void **state)
{
  State *st = *state;
  g_autoptr(GFile) work = g_file_new_for_path (st->work);

  g_clear_object (&st->ops);
  pp_manager_shutdown (st->manager);
  g_clear_object (&st->manager);
  pp_testbed_unbind_run_udev ();
  g_clear_object (&st->tb);
  /* the work directory holds a few files and directories only */
  {
    g_autofree char *cmd = NULL;
    g_autofree char *quoted = g_shell_quote (st->work);
    int status = 0;

    cmd = g_strdup_printf ("rm -rf -- %s", quoted);
    assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL));
    assert_int_equal (status, 0);
  }
  g_free (st->root);
  g_free (st->work);
  pp_token_registry_unref (st->tokens);
  g_free (st);
  return 0;
}

static PpPowerResult *
find_row (GPtrArray *rows, const char *path)
{
  for (guint i = 0; i < rows->len; i++)
    {
      PpPowerResult *row = g_ptr_array_index (rows, i);
      if (g_str_equal (row->path, path))
        return row;
    }
  fail_msg ("no row for %s", path);
  return NULL;
}

/* ---- power-ops ---------------------------------------------------------- */

static void
test_power_down_up (void **state)
{
  State *st = *state;
  PpPowerOps *ops = st->ops;
  g_autoptr(GPtrArray) down = NULL;
  g_autoptr(GPtrArray) up = NULL;
  g_autoptr(GError) error = NULL;
  PpPowerResult *row;

  assert_attr (st, STORAGE, "power/control", "on");

  /* by name, as the D-Bus API accepts */
  down = pp_power_ops_power_down (ops, "1-2", FALSE, "auto", &error);
  assert_null (error);
  assert_non_null (down);
  row = find_row (down, STORAGE);
  assert_non_null (row);
  if (row == NULL)
    return;
  assert_string_equal (row->status, "suspended");
  assert_attr (st, STORAGE, "power/control", "auto");

  up = pp_power_ops_power_up (ops, STORAGE, FALSE, &error);
  assert_null (error);
  assert_non_null (up);
  row = find_row (up, STORAGE);
  assert_non_null (row);
  if (row == NULL)
    return;
  assert_string_equal (row->status, "on");
  /* resumed, then the policy's value again at once: on here */
  assert_attr (st, STORAGE, "power/control", "on");
  assert_non_null (strstr (row->detail, "power/control=on"));
  assert_null (strstr (row->detail, "then the policy"));
}

static void
test_power_down_errors (void **state)
{
  State *st = *state;
  PpPowerOps *ops = st->ops;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;

  rows = pp_power_ops_power_down (ops, STORAGE, FALSE, "sideways", &error);
  assert_null (rows);
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);

  rows = pp_power_ops_power_down (ops, "9-9", FALSE, "auto", &error);
  assert_null (rows);
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE));
  g_clear_error (&error);

  rows = pp_power_ops_power_up (ops, "/sys/devices/nowhere", TRUE, &error);
  assert_null (rows);
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE));

  /* nothing half-applied */
  assert_attr (st, STORAGE, "power/control", "on");
}

/* @list (of PpTokenInfo) has one row, this one. */
static void
assert_one_token (GPtrArray *list, const char *what, const char *who, const char *device, guint32 pid)
{
  PpTokenInfo *info;

  assert_int_equal (list->len, 1);
  info = g_ptr_array_index (list, 0);
  assert_string_equal (info->what, what);
  assert_string_equal (info->who, who);
  assert_string_equal (info->device, device);
  assert_int_equal (info->pid, pid);
}

/* Every hold and inhibitor released (their fds closed and seen). */
static gboolean
no_tokens (gpointer data)
{
  return pp_token_registry_count (data) == 0;
}

static void
test_hold_until_fd_closed (void **state)
{
  State *st = *state;
  PpPowerOps *ops = st->ops;
  g_autoptr(GPtrArray) holds = NULL;
  g_autoptr(GError) error = NULL;
  PpDevice *dev;
  int fd = -1;

  assert_true (pp_power_ops_hold (ops, "1-2", &(PpTokenRequest) { "backup", "copying", 1000, 4242 }, &fd, &error));
  assert_null (error);
  assert_true (fd >= 0);
  assert_int_equal (pp_token_registry_count_for_uid (st->tokens, 1000), 1);

  holds = pp_power_ops_list_holds (ops);
  assert_one_token (holds, "hold", "backup", STORAGE, 4242);
  assert_string_equal (((PpTokenInfo *) g_ptr_array_index (holds, 0))->why, "copying");

  /* held: the device and the hub it hangs on */
  assert_true (pp_manager_is_held (st->manager, STORAGE));
  assert_true (pp_manager_is_held (st->manager, HUB));
  dev = pp_manager_get_device (st->manager, STORAGE);
  assert_non_null (dev);
  {
    PpDeviceStatus status;

    pp_manager_read_device_status (st->manager, dev, &status);
    assert_true (status.held);
    assert_string_equal (status.parent, HUB);
  }

  /* the holder goes: the hold ends, from the main loop */
  close (fd);
  if (!wait_for (no_tokens, st->tokens))
    fail_msg ("the hold did not end within %d ms of closing its fd", WAIT_TIMEOUT_MS);
  g_clear_pointer (&holds, g_ptr_array_unref);
  holds = pp_power_ops_list_holds (ops);
  assert_int_equal (holds->len, 0);
  assert_false (pp_manager_is_held (st->manager, STORAGE));
  assert_int_equal (pp_token_registry_count_for_uid (st->tokens, 1000), 0);
}

/* ---- reverts ------------------------------------------------------------- */

static const char *
explain_layer (State *st, const char *syspath, const char *attribute, const char **origin)
{
  g_autoptr(GPtrArray) rows = pp_manager_explain (st->manager, pp_manager_get_device (st->manager, syspath));
  static char layer[32];

  for (guint i = 0; i < rows->len; i++)
    {
      PpExplainRow *row = g_ptr_array_index (rows, i);

      if (g_str_equal (row->attribute, attribute))
        {
          static char origin_text[256];
          g_strlcpy (layer, row->layer, sizeof layer);
          g_strlcpy (origin_text, row->origin, sizeof origin_text);
          if (origin != NULL)
            *origin = origin_text;
          return layer;
        }
    }
  fail_msg ("no row for %s of %s", attribute, syspath);
  return NULL;
}

/* An override makes the daemon change the storage device (original "on"),
 * a revert puts it back until its fd closes; a closed revert is released
 * by the next call at once, without the main loop. */
static void
test_revert_until_fd_closed (void **state)
{
  State *st = *state;
  g_autoptr(PpReverts) reverts = pp_reverts_new (st->manager, st->tokens);
  g_autoptr(GError) error = NULL;
  const char *devices[] = { "1-2", STORAGE, NULL };
  const char *hub[] = { HUB, NULL };
  const char *origin = NULL;
  int fd = -1, fd2 = -1;

  assert_true (pp_manager_set_override (st->manager, pp_manager_get_device (st->manager, STORAGE),
                                        "Control", "auto", &error));
  assert_attr (st, STORAGE, "power/control", "auto");

  assert_true (pp_reverts_add (reverts, devices, &(PpTokenRequest) { "bisect", "round 1", 1000, 77 },
                               &fd, &error));
  assert_null (error);
  /* one device named twice counts once */
  assert_int_equal (pp_reverts_n_entries (reverts), 1);
  assert_true (pp_manager_is_reverted (st->manager, STORAGE));
  assert_attr (st, STORAGE, "power/control", "on");
  assert_string_equal (explain_layer (st, STORAGE, "power/control", &origin), "revert");
  assert_string_equal (origin, "reverted by bisect (round 1), pid 77");
  assert_int_equal (pp_token_registry_count_for_uid (st->tokens, 1000), 1);

  /* closed: released by the next call before it applies, no loop needed */
  close (fd);
  assert_true (pp_reverts_add (reverts, hub, &(PpTokenRequest) { "bisect", "round 2", 1000, 77 },
                               &fd2, &error));
  assert_int_equal (pp_reverts_count (reverts), 1);
  assert_false (pp_manager_is_reverted (st->manager, STORAGE));
  assert_attr (st, STORAGE, "power/control", "auto");
  assert_string_equal (explain_layer (st, STORAGE, "power/control", NULL), "override");
  assert_true (pp_manager_is_reverted (st->manager, HUB));

  /* the last one ends from the main loop */
  close (fd2);
  if (!wait_for (no_tokens, st->tokens))
    fail_msg ("the revert did not end within %d ms of closing its fd", WAIT_TIMEOUT_MS);
  assert_int_equal (pp_reverts_count (reverts), 0);
  assert_int_equal (pp_reverts_n_entries (reverts), 0);
  assert_false (pp_manager_is_reverted (st->manager, HUB));
}

static void
test_revert_refused (void **state)
{
  State *st = *state;
  g_autoptr(PpReverts) reverts = pp_reverts_new (st->manager, st->tokens);
  g_autoptr(GError) error = NULL;
  const char *none[] = { NULL };
  const char *unknown[] = { STORAGE, "9-9", NULL };
  const char *storage[] = { STORAGE, NULL };
  g_autofree char *control = g_build_filename (st->root, STORAGE, "power/control", NULL);
  int fd = -1;

  assert_true (pp_manager_set_override (st->manager, pp_manager_get_device (st->manager, STORAGE),
                                        "Control", "auto", &error));

  assert_false (pp_reverts_add (reverts, none, &(PpTokenRequest) { "a", "b", 1000, 1 }, &fd, &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  assert_false (pp_reverts_add (reverts, unknown, &(PpTokenRequest) { "a", "b", 1000, 1 }, &fd, &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE));
  g_clear_error (&error);
  /* a revert is a token: the limits hold */
  pp_token_registry_set_limits (st->tokens, 0, 0);
  assert_false (pp_reverts_add (reverts, storage, &(PpTokenRequest) { "a", "b", 1000, 1 }, &fd, &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_REFUSED));
  g_clear_error (&error);
  pp_token_registry_set_limits (st->tokens, PP_TOKEN_DEFAULT_PER_USER, PP_TOKEN_DEFAULT_TOTAL);
  assert_attr (st, STORAGE, "power/control", "auto");

  /* a write that fails: Failed, and nothing stays reverted */
  if (st->dry_run)
    return;
  assert_int_equal (g_unlink (control), 0);
  assert_int_equal (symlink ("/dev/full", control), 0);
  assert_false (pp_reverts_add (reverts, storage, &(PpTokenRequest) { "a", "b", 1000, 1 }, &fd, &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_FAILED));
  assert_int_equal (fd, -1);
  assert_int_equal (pp_reverts_count (reverts), 0);
  assert_int_equal (pp_token_registry_count (st->tokens), 0);
  assert_false (pp_manager_is_reverted (st->manager, STORAGE));
}

/* Under dry-run nothing is written; the layer is in force all the same. */
static void
test_revert_dry_run (void **state)
{
  State *st = *state;
  g_autoptr(PpReverts) reverts = pp_reverts_new (st->manager, st->tokens);
  g_autoptr(GError) error = NULL;
  const char *storage[] = { STORAGE, NULL };
  int fd = -1;

  assert_true (pp_manager_set_override (st->manager, pp_manager_get_device (st->manager, STORAGE),
                                        "Control", "auto", &error));
  /* dry-run: the override was not written either */
  assert_attr (st, STORAGE, "power/control", "on");
  assert_true (pp_reverts_add (reverts, storage, &(PpTokenRequest) { "a", "b", 1000, 1 }, &fd, &error));
  assert_attr (st, STORAGE, "power/control", "on");
  assert_string_equal (explain_layer (st, STORAGE, "power/control", NULL), "revert");
  close (fd);
  if (!wait_for (no_tokens, st->tokens))
    fail_msg ("the revert did not end within %d ms of closing its fd", WAIT_TIMEOUT_MS);
  assert_string_equal (explain_layer (st, STORAGE, "power/control", NULL), "override");
}

static void
test_hold_refused (void **state)
{
  State *st = *state;
  PpPowerOps *ops = st->ops;
  g_autoptr(GError) error = NULL;
  g_autofree char *long_text = g_strnfill (PP_TOKEN_TEXT_MAX + 1, 'x');
  g_autoptr(GPtrArray) holds = NULL;
  int fd = -1, fd2 = -1;

  assert_false (pp_power_ops_hold (ops, STORAGE, &(PpTokenRequest) { long_text, "", 1000, 1 }, &fd, &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  assert_false (pp_power_ops_hold (ops, "no-such-device", &(PpTokenRequest) { "a", "b", 1000, 1 }, &fd, &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE));
  g_clear_error (&error);
  assert_int_equal (fd, -1);

  /* one per user: the second of uid 1000 is refused, uid 1001 may */
  pp_token_registry_set_limits (st->tokens, 1, 10);
  assert_true (pp_power_ops_hold (ops, STORAGE, &(PpTokenRequest) { "a", "b", 1000, 1 }, &fd, &error));
  assert_false (pp_power_ops_hold (ops, STORAGE, &(PpTokenRequest) { "a", "b", 1000, 1 }, &fd2, &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_REFUSED));
  g_clear_error (&error);
  assert_true (pp_power_ops_hold (ops, STORAGE, &(PpTokenRequest) { "c", "d", 1001, 2 }, &fd2, &error));
  holds = pp_power_ops_list_holds (ops);
  assert_int_equal (holds->len, 2);
  close (fd);
  close (fd2);
}

/* ---- activity ----------------------------------------------------------- */

static gboolean
user_idle (gpointer data)
{
  return pp_activity_get_user_idle (data);
}

static void
test_idle_inhibitor (void **state)
{
  State *st = *state;
  g_autoptr(PpActivity) activity = pp_activity_new (st->manager, st->tokens);
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  int fd = -1;

  assert_int_equal (pp_activity_get_idle_timeout_sec (activity), 1);
  assert_false (pp_activity_get_user_idle (activity));
  assert_true (pp_activity_inhibit (activity, "idle", &(PpTokenRequest) { "player", "a film", 1000, 77 }, &fd, &error));
  assert_null (error);
  list = pp_activity_list_inhibitors (activity);
  assert_one_token (list, "idle", "player", "", 77);
  assert_false (pp_activity_get_user_idle (activity));

  /* released: the inhibitor goes, and without input the user is idle
   * after IdleTimeoutSec=1 */
  close (fd);
  if (!wait_for (no_tokens, st->tokens))
    fail_msg ("the inhibitor did not end within %d ms of closing its fd", WAIT_TIMEOUT_MS);
  g_clear_pointer (&list, g_ptr_array_unref);
  list = pp_activity_list_inhibitors (activity);
  assert_int_equal (list->len, 0);
  if (!wait_for (user_idle, activity))
    fail_msg ("not idle within %d ms of the inhibitor's end", WAIT_TIMEOUT_MS);
}

static gboolean
lid_not_inhibited (gpointer data)
{
  return !pp_activity_get_lid_inhibited (data);
}

static void
test_lid_inhibitor_and_bad_what (void **state)
{
  State *st = *state;
  g_autoptr(PpActivity) activity = pp_activity_new (st->manager, st->tokens);
  g_autoptr(GError) error = NULL;
  int fd = -1;

  assert_false (pp_activity_inhibit (activity, "idle:idle", &(PpTokenRequest) { "x", "y", 1000, 1 }, &fd, &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  assert_false (pp_activity_inhibit (activity, "sleep", &(PpTokenRequest) { "x", "y", 1000, 1 }, &fd, &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  assert_int_equal (fd, -1);

  assert_false (pp_activity_get_lid_inhibited (activity));
  assert_true (pp_activity_inhibit (activity, "lid", &(PpTokenRequest) { "x", "y", 1000, 1 }, &fd, &error));
  assert_true (pp_activity_get_lid_inhibited (activity));
  close (fd);
  if (!wait_for (lid_not_inhibited, activity))
    fail_msg ("the lid inhibitor did not end within %d ms", WAIT_TIMEOUT_MS);
}

/* ---- sleep (kernel path, no logind) --------------------------------------- */

typedef struct {
  gboolean  done;
  gboolean  ok;
  GError   *error;
} SleepResult;

static void
on_sleep (GObject *source, GAsyncResult *res, gpointer data)
{
  SleepResult *r = data;

  r->ok = pp_sleep_sleep_finish (PP_SLEEP (source), res, &r->error);
  r->done = TRUE;
}

static gboolean
sleep_done (gpointer data)
{
  return ((SleepResult *) data)->done;
}

static void
test_sleep_state_missing (void **state)
{
  State *st = *state;
  g_autoptr(PpSleep) sleep = pp_sleep_new (st->manager, NULL, NULL);
  SleepResult r = { 0 };

  assert_string_equal (pp_sleep_get_backend (sleep), "kernel");
  /* /sys/power/state offers "freeze mem": no hibernation */
  pp_sleep_sleep_async (sleep, "disk", FALSE, on_sleep, &r);
  if (!wait_for (sleep_done, &r))
    fail_msg ("Hibernate did not finish within %d ms", WAIT_TIMEOUT_MS);
  assert_false (r.ok);
  assert_true (g_error_matches (r.error, PP_ERROR, PP_ERROR_NOT_SUPPORTED));
  assert_non_null (strstr (r.error->message, "disk"));
  g_clear_error (&r.error);
  assert_attr (st, "/sys/power", "state", "freeze mem");
}

static void
test_sleep_dry_run_writes_nothing (void **state)
{
  State *st = *state;
  g_autoptr(PpSleep) sleep = pp_sleep_new (st->manager, NULL, NULL);
  SleepResult r = { 0 };

  assert_true (st->dry_run);
  assert_true (pp_manager_get_dry_run (st->manager));
  pp_sleep_sleep_async (sleep, "mem", FALSE, on_sleep, &r);
  if (!wait_for (sleep_done, &r))
    fail_msg ("Suspend did not finish within %d ms", WAIT_TIMEOUT_MS);
  if (!r.ok)
    fail_msg ("Suspend (dry run) failed: %s", r.error->message);
  assert_attr (st, "/sys/power", "state", "freeze mem");
}

/* ---- an action written off the main loop -------------------------------- */

typedef struct {
  gboolean  done;
  gboolean  ok;
  GError   *error;
  GThread  *thread;     /* where the result came */
} ActionResult;

static void
on_action (GObject *source, GAsyncResult *res, gpointer data)
{
  ActionResult *r = data;

  r->ok = pp_manager_request_action_finish (PP_MANAGER (source), res, &r->error);
  r->thread = g_thread_self ();
  r->done = TRUE;
}

static gboolean
action_done (gpointer data)
{
  return ((ActionResult *) data)->done;
}

/* The write is done in a worker thread; the result comes on the main
 * thread, and what was written is the kernel's value afterwards. */
static void
test_action_async_written (void **state)
{
  State *st = *state;
  ActionResult r = { 0 };

  assert_attr (st, PCI, "power/control", "on");
  pp_manager_request_action_async (st->manager, PP_PLAN_LAYER_SLEEP, PCI "/power/control", "auto",
                                   on_action, &r);
  /* nothing before the main loop runs: the result is never synchronous */
  assert_false (r.done);
  if (!wait_for (action_done, &r))
    fail_msg ("the action was not written within %d ms", WAIT_TIMEOUT_MS);
  if (!r.ok)
    fail_msg ("the action failed: %s", r.error->message);
  assert_ptr_equal (r.thread, g_thread_self ());
  assert_attr (st, PCI, "power/control", "auto");
}

/* A path the daemon does not manage is refused, and one that cannot be
 * read fails, both before any thread runs; the error comes through the
 * callback all the same. */
static void
test_action_async_refused_and_unreadable (void **state)
{
  State *st = *state;
  ActionResult r = { 0 };

  pp_manager_request_action_async (st->manager, PP_PLAN_LAYER_SLEEP, "/sys/kernel/mm/x", "1",
                                   on_action, &r);
  if (!wait_for (action_done, &r))
    fail_msg ("the refusal did not come within %d ms", WAIT_TIMEOUT_MS);
  assert_false (r.ok);
  assert_true (g_error_matches (r.error, PP_ERROR, PP_ERROR_REFUSED));
  g_clear_error (&r.error);

  memset (&r, 0, sizeof r);
  pp_manager_request_action_async (st->manager, PP_PLAN_LAYER_SLEEP, PCI "/power/gone", "1",
                                   on_action, &r);
  if (!wait_for (action_done, &r))
    fail_msg ("the read failure did not come within %d ms", WAIT_TIMEOUT_MS);
  assert_false (r.ok);
  assert_non_null (r.error);
  assert_non_null (strstr (r.error->message, "power/gone"));
  g_clear_error (&r.error);
}

/* Under dry-run nothing is written, and the result says it went well. */
static void
test_action_async_dry_run (void **state)
{
  State *st = *state;
  ActionResult r = { 0 };

  assert_true (pp_manager_get_dry_run (st->manager));
  pp_manager_request_action_async (st->manager, PP_PLAN_LAYER_SLEEP, PCI "/power/control", "auto",
                                   on_action, &r);
  if (!wait_for (action_done, &r))
    fail_msg ("the dry-run action did not finish within %d ms", WAIT_TIMEOUT_MS);
  assert_true (r.ok);
  assert_attr (st, PCI, "power/control", "on");
}

/* ---- the executor ----------------------------------------------------- */

#define DELAY STORAGE "/power/autosuspend_delay_ms"

/* The executor's owner: no device is managed; a full pass plans the
 * storage device's delay to 5000, and is counted. */
typedef struct {
  guint full_passes;
} Owner;

static gboolean
owner_managed (const char *syspath, gpointer user_data)
{
  return FALSE;
}

static gboolean
owner_plan_all (GPtrArray *plan, gpointer user_data)
{
  Owner *owner = user_data;
  g_autofree char *current = pp_executor_read_current (DELAY, PP_PLAN_SETTING, NULL);

  owner->full_passes++;
  assert_non_null (current);
  pp_plan_request (plan, PP_PLAN_LAYER_POLICY, NULL, NULL, DELAY, "5000", current, PP_PLAN_SETTING);
  return TRUE;
}

static PpExecutor *
executor_new (State *st, Owner *owner, const char *runtime_dir)
{
  PpExecutorHooks hooks = { owner_managed, owner_plan_all, owner };

  return pp_executor_new (runtime_dir, FALSE, &hooks);
}

/* A plan that cannot be journalled changes nothing; the next execute
 * call does the full pass first and hands its writes back. */
static void
test_executor_retries_unjournalled (void **state)
{
  State *st = *state;
  Owner owner = { 0 };
  g_autofree char *runtime = g_build_filename (st->work, "executor-run", NULL);
  g_autofree char *blocker = g_build_filename (runtime, "originals", NULL);
  g_autoptr(PpExecutor) exec = NULL;
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  g_autoptr(GPtrArray) written = NULL;
  g_autoptr(GPtrArray) empty = pp_plan_new ();
  g_autoptr(GError) error = NULL;
  guint failed = 0;

  assert_int_equal (g_mkdir_with_parents (runtime, 0755), 0);
  assert_true (g_file_set_contents (blocker, "in the way\n", -1, NULL));
  exec = executor_new (st, &owner, runtime);
  assert_true (pp_plan_request (plan, PP_PLAN_LAYER_POLICY, NULL, NULL, DELAY, "5000", "2000",
                                PP_PLAN_SETTING));
  assert_false (pp_executor_execute (exec, plan, PP_EXECUTOR_PART, &written, &failed, &error));
  assert_non_null (error);
  assert_int_equal (written->len, 0);
  assert_int_equal (failed, 1);
  assert_int_equal (pp_executor_get_n_write_failures (exec), 1);
  assert_int_equal (owner.full_passes, 0);
  assert_attr (st, STORAGE, "power/autosuspend_delay_ms", "2000");
  g_clear_pointer (&written, g_ptr_array_unref);

  /* the journal can be written again: the next call, with nothing of
   * its own to write, does the full pass */
  assert_int_equal (g_unlink (blocker), 0);
  assert_true (pp_executor_execute (exec, empty, PP_EXECUTOR_PART, &written, &failed, NULL));
  assert_int_equal (owner.full_passes, 1);
  assert_int_equal (failed, 0);
  assert_int_equal (written->len, 1);
  assert_string_equal (((PpPlanWrite *) g_ptr_array_index (written, 0))->path, DELAY);
  assert_attr (st, STORAGE, "power/autosuspend_delay_ms", "5000");
  assert_string_equal (pp_restore_lookup (pp_executor_get_restore (exec), DELAY), "2000");
  g_clear_pointer (&written, g_ptr_array_unref);

  /* once done, no retry is pending */
  assert_true (pp_executor_execute (exec, empty, PP_EXECUTOR_PART, &written, &failed, NULL));
  assert_int_equal (owner.full_passes, 1);
  assert_int_equal (written->len, 0);

  pp_executor_restore_originals (pp_restore_get_recorded (pp_executor_get_restore (exec)), "test");
  assert_attr (st, STORAGE, "power/autosuspend_delay_ms", "2000");
  pp_restore_clear (pp_executor_get_restore (exec));
}

/* Under the dry-run switch nothing is written, journalled or handed back. */
static void
test_executor_dry_run (void **state)
{
  State *st = *state;
  Owner owner = { 0 };
  g_autofree char *runtime = g_build_filename (st->work, "executor-run", NULL);
  g_autoptr(PpExecutor) exec = executor_new (st, &owner, runtime);
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  g_autoptr(GPtrArray) written = NULL;
  guint failed = 0;

  pp_executor_set_dry_run (exec, TRUE);
  assert_true (pp_executor_get_dry_run (exec));
  assert_true (pp_plan_request (plan, PP_PLAN_LAYER_POLICY, NULL, NULL, DELAY, "5000", "2000",
                                PP_PLAN_SETTING));
  assert_true (pp_executor_execute (exec, plan, PP_EXECUTOR_PART, &written, &failed, NULL));
  assert_int_equal (written->len, 0);
  assert_int_equal (failed, 0);
  assert_null (pp_restore_lookup (pp_executor_get_restore (exec), DELAY));
  assert_attr (st, STORAGE, "power/autosuspend_delay_ms", "2000");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_power_down_up, setup, teardown),
    cmocka_unit_test_setup_teardown (test_power_down_errors, setup, teardown),
    cmocka_unit_test_setup_teardown (test_hold_until_fd_closed, setup, teardown),
    cmocka_unit_test_setup_teardown (test_hold_refused, setup, teardown),
    cmocka_unit_test_setup_teardown (test_revert_until_fd_closed, setup, teardown),
    cmocka_unit_test_setup_teardown (test_revert_refused, setup, teardown),
    cmocka_unit_test_setup_teardown (test_revert_dry_run, setup_dry_run, teardown),
    cmocka_unit_test_setup_teardown (test_idle_inhibitor, setup, teardown),
    cmocka_unit_test_setup_teardown (test_lid_inhibitor_and_bad_what, setup, teardown),
    cmocka_unit_test_setup_teardown (test_sleep_state_missing, setup, teardown),
    cmocka_unit_test_setup_teardown (test_sleep_dry_run_writes_nothing, setup_dry_run, teardown),
    cmocka_unit_test_setup_teardown (test_action_async_written, setup, teardown),
    cmocka_unit_test_setup_teardown (test_action_async_refused_and_unreadable, setup, teardown),
    cmocka_unit_test_setup_teardown (test_action_async_dry_run, setup_dry_run, teardown),
    cmocka_unit_test_setup_teardown (test_executor_retries_unjournalled, setup, teardown),
    cmocka_unit_test_setup_teardown (test_executor_dry_run, setup, teardown),
  };
  int skip;

  skip = pp_testbed_private_run ();
  if (skip != 0)
    return skip;
  /* the exit status, not the count: 256 failures must not exit 0 */
  return cmocka_run_group_tests_name ("daemon", tests, NULL, NULL) == 0 ? 0 : 1;
}
