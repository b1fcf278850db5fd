/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-device-facts"

#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pp-device-facts.h"
#include "pp-error.h"
#include "pp-names.h"
#include "pp-sysfs.h"
#include "pp-util.h"

#define PCI_SLOTS_DIR "/sys/bus/pci/slots"

/* A PCI id attribute ("0x2646"); 0 when unreadable. */
static guint16
read_pci_id (const char *syspath, const char *name)
{
  g_autofree char *text = pp_sysfs_read_opt (syspath, name);
  guint64 id = 0;

  if (text == NULL || !g_str_has_prefix (text, "0x") ||
      !g_ascii_string_to_unsigned (text + 2, 16, 0, G_MAXUINT16, &id, NULL))
    return 0;
  return (guint16) id;
}

/* The controllers of a device that has none: one empty array shared by
 * all of them (a new reference), not one of each of thousands of devices.
 * Never changed: the facts are read-only once read. */
static GPtrArray *
no_controllers (void)
{
  static GPtrArray *empty;
  static gsize made;

  if (g_once_init_enter (&made))
    {
      empty = g_ptr_array_new_with_free_func (g_free);
      g_once_init_leave (&made, 1);
    }
  return g_ptr_array_ref (empty);
}

/* The NVMe controllers below a PCI function (nvme/nvme0, ...), sorted
 * (none unless the nvme driver made them), and an NVMe drive's APST
 * quirk from its PCI ids and the model its first controller reports. */
static void
read_nvme (PpDeviceFacts *facts, PpDeviceInfo *info)
{
  g_autofree char *dir = g_build_filename (info->syspath, PP_NVME_DIR, NULL);
  g_autofree char *model = NULL;

  facts->nvme_controllers = pp_list_dir_sorted (dir, NULL);
  if (facts->nvme_controllers == NULL)
    facts->nvme_controllers = no_controllers ();
  if (facts->nvme_controllers->len > 0)
    {
      const char *first = g_ptr_array_index (facts->nvme_controllers, 0);
      g_autofree char *relpath = g_build_filename (PP_NVME_DIR, first, "model", NULL);

      model = pp_sysfs_read_opt (info->syspath, relpath);
      if (model != NULL)
        g_strstrip (model);
    }
  facts->apst_quirk = pp_nvme_apst_quirk_find (facts->pci_vendor, facts->pci_device, model);
}

/* USB device "1-1.2" sits on port 2 of hub "1-1": the switch is
 * <hub>/<hub interface>/1-1-port2/disable; on a root hub's port ("1-3"),
 * usb1/1-0:1.0/usb1-port3/disable (sysfs-bus-usb). */
static char *
usb_port_disable_path (PpDeviceInfo *info, GError **error)
{
  const char *name = info->sysname;
  const char *dot = strrchr (name, '.');
  const char *dash = strchr (name, '-');
  const char *parent;
  g_autofree char *hub = NULL;
  g_autofree char *hub_interface = NULL;
  g_autofree char *port_dir = NULL;
  g_autofree char *guess = NULL;
  g_autofree char *dirname = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *entry;
  guint64 port;

  if (g_strcmp0 (info->devtype, "usb_device") != 0 || dash == NULL)
    {
      g_set_error_literal (error, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                           "not a USB device on a hub port (a root hub or an interface has no port switch)");
      return NULL;
    }
  if (!g_ascii_string_to_unsigned (dot ? dot + 1 : dash + 1, 10, 1, 255, &port, NULL))
    {
      g_set_error (error, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                   "cannot tell the port of USB device %s", name);
      return NULL;
    }
  hub = dot ? g_strndup (name, dot - name) : g_strdup_printf ("usb%.*s", (int) (dash - name), name);
  port_dir = g_strdup_printf ("%s-port%u", hub, (guint) port);

  /* A USB device's directory lies in its hub's, and a hub has one
   * interface, 1.0 ("1-1:1.0"; a root hub "usbN" names it "N-0:1.0"):
   * one lookup finds the switch, without the hub's directory listed. */
  hub_interface = dot ? g_strdup_printf ("%s:1.0", hub)
                      : g_strdup_printf ("%.*s-0:1.0", (int) (dash - name), name);
  dirname = g_path_get_dirname (info->syspath);
  guess = g_build_filename (dirname, hub_interface, port_dir, "disable", NULL);
  if (access (guess, F_OK) == 0)
    return g_steal_pointer (&guess);
  /* the hub's interface is there and its port has no switch: a hub has
   * no other interface (the USB hub class: one interface) */
  guess[strlen (dirname) + 1 + strlen (hub_interface)] = '\0';
  if (access (guess, F_OK) == 0)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                   "no USB port switch (%s/disable) under %s", port_dir, dirname);
      return NULL;
    }

  parent = pp_device_info_get_parent (info);
  if (parent == NULL)
    {
      g_set_error_literal (error, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                           "not a USB device on a hub port (a root hub or an interface has no port switch)");
      return NULL;
    }
  dir = g_dir_open (parent, 0, NULL);
  while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;

      if (strchr (entry, ':') == NULL)
        continue;
      path = g_build_filename (parent, entry, port_dir, "disable", NULL);
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        return g_steal_pointer (&path);
    }
  g_set_error (error, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
               "no USB port switch (%s/disable) under %s", port_dir, parent);
  return NULL;
}

/* The power switch of PCI hotplug slot @slot (named @entry). Real slots
 * live in /sys/bus/pci/slots, outside /sys/devices, where the daemon
 * never writes: such a slot is reported, not switched. */
static char *
pci_slot_switch (const char *slot, const char *entry, GError **error)
{
  g_autofree char *power = g_build_filename (slot, "power", NULL);
  char resolved[PATH_MAX];

  if (!g_file_test (power, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                   "PCI slot %s has no power switch", entry);
      return NULL;
    }
  if (realpath (power, resolved) == NULL || !pp_sysfs_path_is_under (resolved, PP_SYSFS_DEVICES))
    {
      g_set_error (error, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                   "the power switch of PCI hotplug slot %s (%s) lies outside "
                   "/sys/devices, where powerpolicyd never writes", entry, power);
      return NULL;
    }
  return g_strdup (resolved);
}

/* The PCI hotplug slot whose address is this device's bus:slot. */
static char *
pci_slot_power_path (PpDeviceInfo *info, GError **error)
{
  const char *dot = strrchr (info->sysname, '.');
  g_autofree char *address = dot ? g_strndup (info->sysname, dot - info->sysname) : NULL;
  g_autoptr(GDir) dir = address ? g_dir_open (PCI_SLOTS_DIR, 0, NULL) : NULL;
  const char *entry;

  while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *slot = g_build_filename (PCI_SLOTS_DIR, entry, NULL);
      g_autofree char *slot_address = pp_sysfs_read_opt (slot, "address");

      if (g_strcmp0 (slot_address, address) == 0)
        return pci_slot_switch (slot, entry, error);
    }
  g_set_error_literal (error, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                       "no PCI hotplug slot with a power switch");
  return NULL;
}

static void
read_power_switch (PpDeviceFacts *facts, PpDeviceInfo *info)
{
  if (g_str_equal (info->subsystem, "usb"))
    {
      facts->power_switch = usb_port_disable_path (info, &facts->no_switch);
      facts->switch_off = "1";
      facts->switch_on = "0";
    }
  else if (g_str_equal (info->subsystem, "pci"))
    {
      facts->power_switch = pci_slot_power_path (info, &facts->no_switch);
      facts->switch_off = "0";
      facts->switch_on = "1";
    }
  else
    {
      g_set_error (&facts->no_switch, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                   "no hard power switch for a %s device",
                   *info->subsystem ? info->subsystem : "bus-less");
    }
}

void
pp_device_facts_read (PpDeviceFacts *facts, PpDeviceInfo *info)
{
  memset (facts, 0, sizeof *facts);
  /* the PCI ids and the controllers matter for an NVMe drive alone (its
   * APST quirk, the '*' of PP_ATTR_NVME_APST): the nvme driver makes the
   * controllers, nothing is read for the other PCI functions */
  if (g_str_equal (info->subsystem, "pci") && g_strcmp0 (info->driver, "nvme") == 0)
    {
      facts->pci_vendor = read_pci_id (info->syspath, "vendor");
      facts->pci_device = read_pci_id (info->syspath, "device");
      read_nvme (facts, info);
    }
  else
    facts->nvme_controllers = no_controllers ();
  read_power_switch (facts, info);
}

void
pp_device_facts_clear (PpDeviceFacts *facts)
{
  g_clear_pointer (&facts->nvme_controllers, g_ptr_array_unref);
  g_clear_pointer (&facts->power_switch, g_free);
  g_clear_error (&facts->no_switch);
  facts->apst_quirk = NULL;
}
