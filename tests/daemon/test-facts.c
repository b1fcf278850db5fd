/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The facts a decision needs (PCI ids, NVMe controllers and APST quirk,
 * the hard power switch) are read when a device is added or changes,
 * never by a decision: on a PpManager started on a umockdev testbed,
 * sysfs is changed behind the daemon's back (no uevent) and Explain and
 * the device's facts still say what was read at coldplug; a uevent
 * makes them read again. Run under umockdev-wrapper, as root; every
 * path is inside the testbed or a temporary directory. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include <gio/gio.h>

#include "pp-test.h"
#include "pp-testbed.h"
#include "pp-manager.h"

#define NVME       "/sys/devices/0000:03:00.0"
#define NVME_CTRL  NVME "/nvme/nvme0"
#define APST       "nvme/nvme0/power/pm_qos_latency_tolerance_us"
#define APST_ANY   "nvme/*/power/pm_qos_latency_tolerance_us"
#define XHCI       "/sys/devices/0000:00:14.0"
#define ROOTHUB    XHCI "/usb1"
#define HUB_IF     ROOTHUB "/1-0:1.0"
#define STICK      ROOTHUB "/1-2"
#define STICK_PORT HUB_IF "/usb1-port2/disable"

/* Bound of every wait: generous, only reached on failure. */
#define WAIT_TIMEOUT_MS 5000

static const char CONFIG[] =
  "[Daemon]\n"
  "RestoreOnExit=true\n"
  "[Class nvme]\n"
  "Control=on\n"
  "ApstQuirks=true\n"
  "[Class nvme:battery]\n"
  "ApstLatencyToleranceUs=50000\n"
  "[Class usb-storage]\n"
  "Control=on\n";

typedef struct {
  UMockdevTestbed *tb;
  char            *root;     /* the testbed's */
  char            *work;     /* config, state and runtime directories */
  PpManager       *manager;
} State;

static void
write_file (State *st, const char *syspath, const char *relpath, const char *text)
{
  g_autofree char *file = g_build_filename (st->root, syspath, relpath, NULL);
  g_autofree char *dir = g_path_get_dirname (file);

  assert_int_equal (g_mkdir_with_parents (dir, 0755), 0);
  assert_true (g_file_set_contents (file, text, -1, NULL));
}

/* An NVMe drive of the APST quirk list (Kingston A2000: 0x2646:0x2263),
 * with or without its controller; a USB stick on port 2 of a root hub
 * that has a port switch. */
static void
add_devices (State *st, gboolean with_controller)
{
  g_autofree char *path = NULL;

  path = umockdev_testbed_add_device (st->tb, "pci", "0000:03:00.0", NULL,
                                      "class", "0x010802\n", "vendor", "0x2646\n",
                                      "device", "0x2263\n", "power/control", "on\n",
                                      "power/runtime_status", "active\n", NULL,
                                      "DRIVER", "nvme", "POWERPOLICY_CLASS", "nvme", NULL);
  /* the driver is the driver link, as the kernel shows it */
  umockdev_testbed_set_attribute_link (st->tb, path, "driver", "../../bus/pci/drivers/nvme");
  g_clear_pointer (&path, g_free);
  if (with_controller)
    {
      write_file (st, NVME_CTRL, "model", "KINGSTON SA2000M8500G\n");
      write_file (st, NVME_CTRL, "power/pm_qos_latency_tolerance_us", "100000\n");
    }
  path = umockdev_testbed_add_device (st->tb, "pci", "0000:00:14.0", NULL,
                                      "power/control", "on\n",
                                      "power/runtime_status", "active\n", NULL,
                                      "PCI_CLASS", "C0330", "DRIVER", "xhci_hcd", NULL);
  g_clear_pointer (&path, g_free);
  path = umockdev_testbed_add_device (st->tb, "usb", "usb1", XHCI,
                                      "power/control", "on\n", NULL,
                                      "DEVTYPE", "usb_device", NULL);
  g_clear_pointer (&path, g_free);
  write_file (st, HUB_IF, "usb1-port2/disable", "0\n");
  path = umockdev_testbed_add_device (st->tb, "usb", "1-2", ROOTHUB,
                                      "power/control", "on\n",
                                      "power/runtime_status", "active\n", NULL,
                                      "DEVTYPE", "usb_device", "POWERPOLICY_CLASS", "usb-storage",
                                      NULL);
  pp_testbed_set_tagged (st->tb, NVME, "+pci:0000:03:00.0", TRUE);
  pp_testbed_set_tagged (st->tb, STICK, "+usb:1-2", TRUE);
}

static int
setup_common (void **state, gboolean with_controller)
{
  State *st = g_new0 (State, 1);
  g_autoptr(GError) error = NULL;
  g_autofree char *config = NULL;
  g_autofree char *state_dir = NULL;
  g_autofree char *runtime_dir = NULL;
  PpManagerOptions options = { 0 };

  st->tb = umockdev_testbed_new ();
  st->root = umockdev_testbed_get_root_dir (st->tb);
  assert_true (umockdev_in_mock_environment ());
  st->work = g_dir_make_tmp ("pp-test-facts-XXXXXX", &error);
  assert_non_null (st->work);
  add_devices (st, with_controller);
  pp_testbed_bind_run_udev (st->tb);

  config = g_build_filename (st->work, "powerpolicy.conf", NULL);
  state_dir = g_build_filename (st->work, "state", NULL);
  runtime_dir = g_build_filename (st->work, "run", NULL);
  assert_true (g_file_set_contents (config, CONFIG, -1, NULL));
  options.config_path = config;
  options.state_dir = state_dir;
  options.runtime_dir = runtime_dir;
  options.no_logind = TRUE;
  st->manager = pp_manager_new (&options);
  if (!pp_manager_start (st->manager, &error))
    fail_msg ("the manager does not start: %s", error->message);
  *state = st;
  return 0;
}

static int
setup (void **state)
{
  return setup_common (state, TRUE);
}

static int
setup_no_controller (void **state)
{
  return setup_common (state, FALSE);
}

static int
teardown (void **state)
{
  State *st = *state;
  g_autofree char *quoted = g_shell_quote (st->work);
  g_autofree char *cmd = g_strdup_printf ("rm -rf -- %s", quoted);
  int status = 0;

  pp_manager_shutdown (st->manager);
  g_clear_object (&st->manager);
  pp_testbed_unbind_run_udev ();
  g_clear_object (&st->tb);
  assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL));
  assert_int_equal (status, 0);
  g_free (st->root);
  g_free (st->work);
  g_free (st);
  return 0;
}

/* The layer of Explain's row for @attribute of @syspath; "" without one. */
static char *
explain_layer (State *st, const char *syspath, const char *attribute)
{
  PpDevice *dev = pp_manager_get_device (st->manager, syspath);
  g_autoptr(GPtrArray) rows = NULL;

  assert_non_null (dev);
  rows = pp_manager_explain (st->manager, dev);
  for (guint i = 0; i < rows->len; i++)
    {
      PpExplainRow *row = g_ptr_array_index (rows, i);
      if (g_str_equal (row->attribute, attribute))
        return g_strdup (row->layer);
    }
  return g_strdup ("");
}

typedef struct {
  State      *st;
  const char *syspath;
  const char *attribute;
  const char *layer;
} LayerWait;

static gboolean
layer_is (gpointer data)
{
  LayerWait *w = data;
  g_autofree char *layer = explain_layer (w->st, w->syspath, w->attribute);

  return g_str_equal (layer, w->layer);
}

/* Run the main loop until @done says so, at most WAIT_TIMEOUT_MS. */
static gboolean
wait_for (gboolean (*done) (gpointer), gpointer data)
{
  return pp_test_wait_for (done, data, WAIT_TIMEOUT_MS);
}

/* Explain answers from the ids and the model read at coldplug: another
 * drive's ids and model in sysfs, and a second controller, change
 * nothing until a uevent says the device changed. */
static void
test_explain_reads_no_ids (void **state)
{
  State *st = *state;
  g_autofree char *layer = explain_layer (st, NVME, APST);
  PpDevice *dev = pp_manager_get_device (st->manager, NVME);
  LayerWait w = { st, NVME, APST, "battery" };

  assert_string_equal (layer, "quirk");
  assert_non_null (dev->facts.apst_quirk);
  assert_int_equal (dev->facts.pci_vendor, 0x2646);
  assert_int_equal (dev->facts.nvme_controllers->len, 1);

  /* a Samsung 980 PRO, which has no quirk; behind the daemon's back */
  write_file (st, NVME, "vendor", "0x144d\n");
  write_file (st, NVME, "device", "0xa80a\n");
  write_file (st, NVME_CTRL, "model", "Samsung SSD 980 PRO 1TB\n");
  write_file (st, NVME "/nvme/nvme1", "power/pm_qos_latency_tolerance_us", "100000\n");
  g_clear_pointer (&layer, g_free);
  layer = explain_layer (st, NVME, APST);
  assert_string_equal (layer, "quirk");
  g_clear_pointer (&layer, g_free);
  layer = explain_layer (st, NVME, "nvme/nvme1/power/pm_qos_latency_tolerance_us");
  assert_string_equal (layer, "");

  /* the device changed: its facts are read again, the quirk goes (no
   * layer sets APST on AC: the row goes) */
  umockdev_testbed_uevent (st->tb, NVME, "change");
  w.layer = "";
  assert_true (wait_for (layer_is, &w));
  dev = pp_manager_get_device (st->manager, NVME);
  assert_null (dev->facts.apst_quirk);
  assert_int_equal (dev->facts.pci_vendor, 0x144d);
  assert_int_equal (dev->facts.nvme_controllers->len, 2);
}

static gboolean
has_controller (gpointer data)
{
  State *st = data;
  PpDevice *dev = pp_manager_get_device (st->manager, NVME);

  return dev != NULL && dev->facts.nvme_controllers->len == 1;
}

/* A controller the nvme driver adds after the drive: its "add" uevent
 * has the drive's facts read again, and the quirk is decided. */
static void
test_controller_added_later (void **state)
{
  State *st = *state;
  g_autofree char *layer = explain_layer (st, NVME, APST_ANY);
  g_autofree char *ctrl = NULL;
  LayerWait w = { st, NVME, APST, "quirk" };

  /* the quirk names the model, which only a controller tells */
  assert_string_equal (layer, "");
  ctrl = umockdev_testbed_add_device (st->tb, "nvme", "nvme/nvme0", NVME,
                                      "model", "KINGSTON SA2000M8500G\n",
                                      "power/pm_qos_latency_tolerance_us", "100000\n", NULL,
                                      NULL);
  assert_string_equal (ctrl, NVME_CTRL);
  umockdev_testbed_uevent (st->tb, NVME_CTRL, "add");
  assert_true (wait_for (has_controller, st));
  assert_true (wait_for (layer_is, &w));
}

/* The port switch PowerDown(mode=off) would turn is found when the
 * device is added; a device without one says why. */
static void
test_power_switch_fact (void **state)
{
  State *st = *state;
  PpDevice *stick = pp_manager_get_device (st->manager, STICK);
  PpDevice *nvme = pp_manager_get_device (st->manager, NVME);
  g_autofree char *expected = g_build_filename (STICK_PORT, NULL);

  assert_non_null (stick);
  assert_string_equal (stick->facts.power_switch, expected);
  assert_string_equal (stick->facts.switch_off, "1");
  assert_string_equal (stick->facts.switch_on, "0");
  assert_null (stick->facts.no_switch);
  assert_null (nvme->facts.power_switch);
  assert_non_null (nvme->facts.no_switch);
  assert_non_null (strstr (nvme->facts.no_switch->message, "no PCI hotplug slot"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_explain_reads_no_ids, setup, teardown),
    cmocka_unit_test_setup_teardown (test_controller_added_later, setup_no_controller, teardown),
    cmocka_unit_test_setup_teardown (test_power_switch_fact, setup, teardown),
  };
  int skip;

  skip = pp_testbed_private_run ();
  if (skip != 0)
    return skip;
  /* the exit status, not the count: a failure must not exit 0 */
  return cmocka_run_group_tests_name ("facts", tests, NULL, NULL) == 0 ? 0 : 1;
}
