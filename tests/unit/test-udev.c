/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Backend tests of pp-udev.c (enumeration and the uevent monitor)
 * against a umockdev testbed. Run under umockdev-wrapper, as root.
 *
 * pp-udev enumerates the devices tagged "powerpolicy": the test tags them
 * in its testbed's /run/udev, bound over a private /run/udev
 * (pp-testbed.h). */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <umockdev.h>

#include "pp-test.h"
#include "pp-testbed.h"
#include "pp-error.h"
#include "pp-udev.h"

#define PCI   "/sys/devices/0000:00:14.0"
#define HUB   PCI "/usb1"
#define MOUSE HUB "/1-1"
#define UART  "/sys/devices/serial8250"
#define IFACE MOUSE "/1-1:1.0"

/* Bound of every wait for an event: generous, only reached on failure. */
#define EVENT_TIMEOUT_MS 5000

typedef struct {
  char     *action;
  char     *syspath;
  char     *klass;        /* POWERPOLICY_CLASS of the event, or NULL */
  gboolean  tagged;
} Event;

typedef struct {
  UMockdevTestbed *tb;
  PpUdev          *udev;
  GPtrArray       *events;   /* of Event* */
} State;

static void
event_free (Event *e)
{
  g_free (e->action);
  g_free (e->syspath);
  g_free (e->klass);
  g_free (e);
}

static int
setup (void **state)
{
  State *st = g_new0 (State, 1);
  g_autofree char *root = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;

  st->tb = umockdev_testbed_new ();
  root = umockdev_testbed_get_root_dir (st->tb);
  assert_true (umockdev_in_mock_environment ());
  assert_string_equal (g_getenv ("UMOCKDEV_DIR"), root);

  /* added out of order: the result must be sorted anyway */
  path = umockdev_testbed_add_device (st->tb, "tty", "serial8250", NULL,
                                      "power/control", "auto\n", NULL,
                                      "POWERPOLICY_IGNORE", "1", NULL);
  assert_string_equal (path, UART);
  g_free (path);
  path = umockdev_testbed_add_device (st->tb, "pci", "0000:00:14.0", NULL,
                                      "power/control", "on\n", NULL,
                                      "PCI_CLASS", "C0330", "DRIVER", "xhci_hcd", NULL);
  assert_string_equal (path, PCI);
  g_free (path);
  path = umockdev_testbed_add_device (st->tb, "usb", "usb1", PCI,
                                      "power/control", "auto\n", NULL,
                                      "DEVTYPE", "usb_device", "POWERPOLICY_CLASS", "usb-hub", NULL);
  assert_string_equal (path, HUB);
  g_free (path);
  path = umockdev_testbed_add_device (st->tb, "usb", "1-1", HUB,
                                      "power/control", "on\n",
                                      "power/autosuspend_delay_ms", "2000\n", NULL,
                                      "DEVTYPE", "usb_device",
                                      "POWERPOLICY_CLASS", "usb-hid",
                                      "POWERPOLICY_AUTOSUSPEND_DELAY_MS", "500",
                                      "ID_AUTOSUSPEND", "1",
                                      "ID_VENDOR_ID", "046d",
                                      "ID_MODEL", "Mouse",
                                      "ID_INPUT_MOUSE", "1",
                                      "FOO", "bar",
                                      "ID_BUS", "usb",
                                      NULL);
  assert_string_equal (path, MOUSE);
  g_free (path);
  /* an interface: the rules do not tag it */
  path = umockdev_testbed_add_device (st->tb, "usb", "1-1:1.0", MOUSE,
                                      "bInterfaceClass", "03\n", NULL,
                                      "DEVTYPE", "usb_interface", NULL);
  assert_string_equal (path, IFACE);
  umockdev_testbed_set_attribute_link (st->tb, MOUSE, "driver", "../../../../bus/usb/drivers/usbhid");
  umockdev_testbed_set_attribute_link (st->tb, PCI, "driver", "../../bus/pci/drivers/xhci_hcd");
  pp_testbed_set_tagged (st->tb, UART, "+tty:serial8250", TRUE);
  pp_testbed_set_tagged (st->tb, PCI, "+pci:0000:00:14.0", TRUE);
  pp_testbed_set_tagged (st->tb, HUB, "+usb:usb1", TRUE);
  pp_testbed_set_tagged (st->tb, MOUSE, "+usb:1-1", TRUE);
  /* this process's /run/udev (see main) is the testbed's */
  pp_testbed_bind_run_udev (st->tb);

  st->udev = pp_udev_new (&error);
  assert_null (error);
  assert_non_null (st->udev);
  st->events = g_ptr_array_new_with_free_func ((GDestroyNotify) event_free);
  *state = st;
  return 0;
}

static int
teardown (void **state)
{
  State *st = *state;

  pp_testbed_unbind_run_udev ();
  g_clear_object (&st->udev);
  g_clear_object (&st->tb);
  g_ptr_array_unref (st->events);
  g_free (st);
  return 0;
}

static PpDeviceInfo *
find_info (GPtrArray *infos, const char *syspath)
{
  for (guint i = 0; i < infos->len; i++)
    {
      PpDeviceInfo *info = g_ptr_array_index (infos, i);
      if (g_str_equal (info->syspath, syspath))
        return info;
    }
  return NULL;
}

static PpDeviceInfo *
get_info (GPtrArray *infos, const char *syspath)
{
  PpDeviceInfo *info = find_info (infos, syspath);

  if (info == NULL)
    {
      fail_msg ("%s not enumerated", syspath);
      g_abort ();
    }
  return info;
}

static void
test_enumerate (void **state)
{
  State *st = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) infos = pp_udev_enumerate (st->udev, &error);
  static const char * const expected[] = { PCI, HUB, MOUSE, UART };
  PpDeviceInfo *info;

  assert_null (error);
  assert_non_null (infos);
  if (infos->len != G_N_ELEMENTS (expected))
    fail_msg ("expected %u devices, got %u", (guint) G_N_ELEMENTS (expected), infos->len);
  /* sorted by syspath: parents before children */
  for (guint i = 0; i < infos->len; i++)
    assert_string_equal (((PpDeviceInfo *) g_ptr_array_index (infos, i))->syspath, expected[i]);

  info = get_info (infos, MOUSE);
  assert_non_null (info);
  assert_string_equal (info->subsystem, "usb");
  assert_string_equal (info->sysname, "1-1");
  assert_string_equal (info->devtype, "usb_device");
  assert_string_equal (info->driver, "usbhid");
  /* the parent is read from sysfs when asked for */
  assert_true (info->tagged);
  assert_false (info->parent_known);
  assert_string_equal (pp_device_info_get_parent (info), HUB);
  assert_null (info->devnode);
  /* the properties the policy reads are kept, the others dropped */
  assert_string_equal (pp_device_info_get_property (info, "POWERPOLICY_CLASS"), "usb-hid");
  assert_string_equal (pp_device_info_get_property (info, "POWERPOLICY_AUTOSUSPEND_DELAY_MS"), "500");
  assert_string_equal (pp_device_info_get_property (info, "ID_AUTOSUSPEND"), "1");
  assert_null (pp_device_info_get_property (info, "ID_VENDOR_ID"));
  assert_null (pp_device_info_get_property (info, "ID_MODEL"));
  assert_string_equal (pp_device_info_get_property (info, "ID_INPUT_MOUSE"), "1");
  assert_null (pp_device_info_get_property (info, "FOO"));
  assert_null (pp_device_info_get_property (info, "ID_BUS"));
  assert_null (pp_device_info_get_property (info, "SUBSYSTEM"));
  assert_null (pp_device_info_get_property (info, "DEVPATH"));

  info = get_info (infos, HUB);
  assert_string_equal (pp_device_info_get_parent (info), PCI);
  assert_string_equal (pp_device_info_get_property (info, "POWERPOLICY_CLASS"), "usb-hub");
  assert_null (info->driver);

  info = get_info (infos, PCI);
  /* /sys/devices itself is no device */
  assert_null (pp_device_info_get_parent (info));
  assert_string_equal (info->subsystem, "pci");
  assert_string_equal (info->driver, "xhci_hcd");
  assert_null (pp_device_info_get_property (info, "POWERPOLICY_CLASS"));
  assert_null (pp_device_info_get_property (info, "PCI_CLASS"));

  /* not tagged: not enumerated */
  assert_null (find_info (infos, IFACE));

  info = get_info (infos, UART);
  assert_null (pp_device_info_get_parent (info));
  assert_string_equal (info->subsystem, "tty");
  assert_string_equal (pp_device_info_get_property (info, "POWERPOLICY_IGNORE"), "1");
}

static void
test_enumerate_after_remove (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) infos = NULL;

  umockdev_testbed_remove_device (st->tb, MOUSE);
  infos = pp_udev_enumerate (st->udev, NULL);
  assert_non_null (infos);
  assert_int_equal (infos->len, 3);
  assert_null (find_info (infos, MOUSE));
  assert_non_null (find_info (infos, HUB));
}

/* udevd (247 and later) keeps a device in the index of every tag it ever
 * had; a device that lost the tag (its database: G: but no Q:) is not the
 * daemon's, and a restarted daemon must not enumerate it again. */
static void
test_enumerate_current_tags_only (void **state)
{
  State *st = *state;
  g_autofree char *root = umockdev_testbed_get_root_dir (st->tb);
  g_autofree char *index = g_build_filename (root, "run", "udev", "tags", "powerpolicy", "+usb:1-1", NULL);
  g_autoptr(GPtrArray) infos = NULL;

  pp_testbed_set_tagged (st->tb, MOUSE, "+usb:1-1", FALSE);
  /* the fixture is what udevd leaves: still in the index */
  assert_true (g_file_test (index, G_FILE_TEST_EXISTS));
  infos = pp_udev_enumerate (st->udev, NULL);
  assert_non_null (infos);
  assert_int_equal (infos->len, 3);
  assert_null (find_info (infos, MOUSE));
  assert_non_null (find_info (infos, HUB));
  g_clear_pointer (&infos, g_ptr_array_unref);

  /* tagged again: enumerated again */
  pp_testbed_set_tagged (st->tb, MOUSE, "+usb:1-1", TRUE);
  infos = pp_udev_enumerate (st->udev, NULL);
  assert_non_null (infos);
  assert_int_equal (infos->len, 4);
  assert_non_null (find_info (infos, MOUSE));
}

static void
test_lookup (void **state)
{
  State *st = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(PpDeviceInfo) info = pp_udev_lookup (st->udev, MOUSE, &error);
  g_autoptr(PpDeviceInfo) missing = NULL;
  PpDeviceInfo *ref;

  assert_null (error);
  assert_non_null (info);
  assert_string_equal (info->syspath, MOUSE);
  assert_string_equal (pp_device_info_get_parent (info), HUB);
  assert_string_equal (pp_device_info_get_property (info, "POWERPOLICY_CLASS"), "usb-hid");

  ref = pp_device_info_ref (info);
  assert_ptr_equal (ref, info);
  pp_device_info_unref (ref);
  assert_string_equal (info->syspath, MOUSE);

  missing = pp_udev_lookup (st->udev, "/sys/devices/nonexistent", &error);
  assert_null (missing);
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND));
}

/* ---- the monitor ------------------------------------------------------------ */

static void
on_uevent (PpUdev *udev, const char *action, PpDeviceInfo *info, gpointer user_data)
{
  State *st = user_data;
  Event *e = g_new0 (Event, 1);

  e->action = g_strdup (action);
  e->syspath = g_strdup (info->syspath);
  e->klass = g_strdup (pp_device_info_get_property (info, "POWERPOLICY_CLASS"));
  e->tagged = info->tagged;
  g_ptr_array_add (st->events, e);
}

static Event *
find_event (State *st, const char *action, const char *syspath)
{
  for (guint i = 0; i < st->events->len; i++)
    {
      Event *e = g_ptr_array_index (st->events, i);
      if (g_str_equal (e->action, action) && g_str_equal (e->syspath, syspath))
        return e;
    }
  return NULL;
}

static gboolean
on_timeout (gpointer user_data)
{
  gboolean *timed_out = user_data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterate the main context until the event arrives or the bound passes:
 * no sleeping. */
static Event *
wait_for_event (State *st, const char *action, const char *syspath)
{
  gboolean timed_out = FALSE;
  guint timeout = g_timeout_add (EVENT_TIMEOUT_MS, on_timeout, &timed_out);
  Event *e;

  while ((e = find_event (st, action, syspath)) == NULL && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (timeout);
  return e;
}

static void
start_monitor (State *st)
{
  g_autoptr(GError) error = NULL;

  g_signal_connect (st->udev, "uevent", G_CALLBACK (on_uevent), st);
  if (!pp_udev_start_monitor (st->udev, &error))
    fail_msg ("cannot start the monitor: %s", error->message);
}

static void
test_monitor_add (void **state)
{
  State *st = *state;
  Event *e;

  start_monitor (st);
  umockdev_testbed_uevent (st->tb, MOUSE, "add");
  e = wait_for_event (st, "add", MOUSE);
  if (e == NULL)
    fail_msg ("no 'add' event for %s within %d ms", MOUSE, EVENT_TIMEOUT_MS);
  assert_string_equal (e->klass, "usb-hid");
}

static void
test_monitor_change_remove (void **state)
{
  State *st = *state;
  Event *e;

  start_monitor (st);
  umockdev_testbed_set_property (st->tb, HUB, "POWERPOLICY_CLASS", "usb-hub-2");
  umockdev_testbed_uevent (st->tb, HUB, "change");
  e = wait_for_event (st, "change", HUB);
  if (e == NULL)
    fail_msg ("no 'change' event for %s within %d ms", HUB, EVENT_TIMEOUT_MS);
  /* the event carries the device's current properties and tags */
  assert_string_equal (e->klass, "usb-hub-2");
  assert_true (e->tagged);

  /* a change after which the rules no longer tag the device */
  g_ptr_array_set_size (st->events, 0);
  pp_testbed_set_tagged (st->tb, HUB, "+usb:usb1", FALSE);
  umockdev_testbed_uevent (st->tb, HUB, "change");
  e = wait_for_event (st, "change", HUB);
  if (e == NULL)
    fail_msg ("no untagged 'change' event for %s within %d ms", HUB, EVENT_TIMEOUT_MS);
  assert_false (e->tagged);

  /* events of untagged devices are reported too, marked */
  umockdev_testbed_uevent (st->tb, IFACE, "add");
  e = wait_for_event (st, "add", IFACE);
  if (e == NULL)
    fail_msg ("no 'add' event for %s within %d ms", IFACE, EVENT_TIMEOUT_MS);
  assert_false (e->tagged);

  umockdev_testbed_uevent (st->tb, UART, "remove");
  if (wait_for_event (st, "remove", UART) == NULL)
    fail_msg ("no 'remove' event for %s within %d ms", UART, EVENT_TIMEOUT_MS);
}

static void
test_monitor_hotplug (void **state)
{
  State *st = *state;
  g_autofree char *path = NULL;
  Event *e;

  start_monitor (st);
  path = umockdev_testbed_add_device (st->tb, "usb", "1-2", HUB,
                                      "power/control", "on\n", NULL,
                                      "DEVTYPE", "usb_device", "POWERPOLICY_CLASS", "usb-storage",
                                      NULL);
  assert_string_equal (path, HUB "/1-2");
  umockdev_testbed_uevent (st->tb, path, "add");
  if (wait_for_event (st, "add", path) == NULL)
    fail_msg ("no 'add' event for the new device %s within %d ms", path, EVENT_TIMEOUT_MS);
  e = find_event (st, "add", path);
  assert_non_null (e);
  if (e == NULL)
    return;
  assert_string_equal (e->klass, "usb-storage");
  /* not tagged by this test: udev's rules would have */
  assert_false (e->tagged);
  pp_testbed_set_tagged (st->tb, path, "+usb:1-2", TRUE);
  umockdev_testbed_uevent (st->tb, path, "change");
  e = wait_for_event (st, "change", path);
  if (e == NULL)
    fail_msg ("no 'change' event for %s within %d ms", path, EVENT_TIMEOUT_MS);
  assert_true (e->tagged);
}

/* The interfaces of a USB device, read from its directory (they are not
 * tagged): class codes, the bound driver, sorted, bounded. */
static void
test_usb_interfaces (void **state)
{
  State *st = *state;
  g_autoptr(GArray) none = NULL;
  g_autoptr(GArray) ifaces = NULL;
  g_autoptr(GArray) many = NULL;
  g_autofree char *second = NULL;
  g_autofree char *big = NULL;
  const PpUsbInterface *i0, *i1;

  umockdev_testbed_set_attribute (st->tb, IFACE, "bInterfaceSubClass", "01\n");
  umockdev_testbed_set_attribute (st->tb, IFACE, "bInterfaceProtocol", "02\n");
  umockdev_testbed_set_attribute_link (st->tb, IFACE, "driver",
                                       "../../../../../bus/usb/drivers/usbhid");
  umockdev_testbed_set_attribute (st->tb, MOUSE, "idVendor", "046d\n");
  /* a second interface, vendor-specific, no driver yet */
  second = umockdev_testbed_add_device (st->tb, "usb", "1-1:1.1", MOUSE,
                                        "bInterfaceClass", "ff\n", "bInterfaceSubClass", "ff\n",
                                        "bInterfaceProtocol", "ff\n", NULL,
                                        "DEVTYPE", "usb_interface", NULL);
  assert_non_null (second);

  ifaces = pp_udev_read_usb_interfaces (MOUSE);
  assert_int_equal (ifaces->len, 2);
  i0 = &g_array_index (ifaces, PpUsbInterface, 0);
  i1 = &g_array_index (ifaces, PpUsbInterface, 1);
  assert_int_equal (i0->interface_class, 0x03);
  assert_int_equal (i0->interface_subclass, 0x01);
  assert_int_equal (i0->interface_protocol, 0x02);
  assert_string_equal (i0->driver, "usbhid");
  assert_int_equal (i1->interface_class, 0xff);
  /* not HID: its subclass and protocol are not read (nothing uses them) */
  assert_int_equal (i1->interface_subclass, 0);
  assert_int_equal (i1->interface_protocol, 0);
  assert_null (i1->driver);
  assert_int_equal (pp_udev_read_usb_vendor (MOUSE), 0x046d);
  assert_string_equal (pp_usb_class_from_interfaces ((PpUsbInterface *) (gpointer) ifaces->data,
                                                     ifaces->len, 0x046d),
                       PP_USB_CLASS_MOUSE);

  /* a device without interfaces, and one that does not exist */
  none = pp_udev_read_usb_interfaces (HUB);
  assert_int_equal (none->len, 0);
  g_array_unref (g_steal_pointer (&none));
  none = pp_udev_read_usb_interfaces (HUB "/nonexistent");
  assert_int_equal (none->len, 0);
  assert_int_equal (pp_udev_read_usb_vendor (HUB), 0);

  /* more interfaces than the kernel allows: at most PP_USB_MAX_INTERFACES */
  big = umockdev_testbed_add_device (st->tb, "usb", "1-2", HUB, NULL,
                                     "DEVTYPE", "usb_device", NULL);
  assert_non_null (big);
  for (guint n = 0; n < PP_USB_MAX_INTERFACES + 4; n++)
    {
      g_autofree char *name = g_strdup_printf ("1-2:1.%u", n);
      g_autofree char *path = umockdev_testbed_add_device (st->tb, "usb", name, big,
                                                           "bInterfaceClass", "08\n", NULL,
                                                           "DEVTYPE", "usb_interface", NULL);
      assert_non_null (path);
    }
  many = pp_udev_read_usb_interfaces (big);
  assert_int_equal (many->len, PP_USB_MAX_INTERFACES);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_enumerate, setup, teardown),
    cmocka_unit_test_setup_teardown (test_enumerate_after_remove, setup, teardown),
    cmocka_unit_test_setup_teardown (test_enumerate_current_tags_only, setup, teardown),
    cmocka_unit_test_setup_teardown (test_lookup, setup, teardown),
    cmocka_unit_test_setup_teardown (test_monitor_add, setup, teardown),
    cmocka_unit_test_setup_teardown (test_monitor_change_remove, setup, teardown),
    cmocka_unit_test_setup_teardown (test_monitor_hotplug, setup, teardown),
    cmocka_unit_test_setup_teardown (test_usb_interfaces, setup, teardown),
  };
  int skip;

  /* a private /run; each test binds its testbed's run/udev to /run/udev */
  skip = pp_testbed_private_run ();
  if (skip != 0)
    return skip;

  /* the exit status, not the count: 256 failures must not exit 0 */
  return cmocka_run_group_tests_name ("udev", tests, NULL, NULL) == 0 ? 0 : 1;
}
