/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-udev"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib-unix.h>
#include <libudev.h>

#include "pp-error.h"
#include "pp-sysfs.h"
#include "pp-udev.h"
#include "pp-util.h"

typedef struct udev_device    UdevDevice;
typedef struct udev_enumerate UdevEnumerate;
G_DEFINE_AUTOPTR_CLEANUP_FUNC (UdevDevice, udev_device_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (UdevEnumerate, udev_enumerate_unref)

/* Only properties the policy reads are kept: memory stays small with
 * thousands of devices. */
static const char * const kept_prefixes[] = {
  "POWERPOLICY_", "ID_AUTOSUSPEND", "ID_INPUT",
};

struct _PpUdev {
  GObject              parent_instance;
  struct udev         *udev;
  struct udev_monitor *monitor;
  guint                monitor_source;
};

enum {
  SIGNAL_UEVENT,
  N_SIGNALS,
};
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (PpUdev, pp_udev, G_TYPE_OBJECT)

PpDeviceInfo *
pp_device_info_ref (PpDeviceInfo *info)
{
  g_atomic_int_inc (&info->ref_count);
  return info;
}

void
pp_device_info_unref (PpDeviceInfo *info)
{
  if (info == NULL || !g_atomic_int_dec_and_test (&info->ref_count))
    return;
  g_free (info->syspath);
  g_free (info->subsystem);
  g_free (info->sysname);
  g_free (info->devtype);
  g_free (info->driver);
  g_free (info->devnode);
  g_free (info->parent);
  g_clear_pointer (&info->properties, g_hash_table_unref);
  g_free (info);
}

const char *
pp_device_info_get_property (PpDeviceInfo *info, const char *key)
{
  return info->properties ? g_hash_table_lookup (info->properties, key) : NULL;
}

static gboolean
property_is_kept (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (kept_prefixes); i++)
    if (g_str_has_prefix (name, kept_prefixes[i]))
      return TRUE;
  return FALSE;
}

/* The one place a udev device becomes a PpDeviceInfo, for coldplug and
 * hotplug alike. The parent is left NULL: pp_device_info_get_parent()
 * finds it in sysfs when somebody asks. */
static PpDeviceInfo *
device_info_new_from_udev (struct udev_device *dev, gboolean tagged)
{
  PpDeviceInfo *info = g_new0 (PpDeviceInfo, 1);
  const char *subsystem = udev_device_get_subsystem (dev);
  const char *sysname = udev_device_get_sysname (dev);
  struct udev_list_entry *entry;

  info->ref_count = 1;
  info->syspath = g_strdup (udev_device_get_syspath (dev));
  info->subsystem = g_strdup (subsystem ? subsystem : "");
  info->sysname = g_strdup (sysname ? sysname : "");
  info->devtype = g_strdup (udev_device_get_devtype (dev));
  info->driver = g_strdup (udev_device_get_driver (dev));
  info->devnode = g_strdup (udev_device_get_devnode (dev));
  info->tagged = tagged;
  udev_list_entry_foreach (entry, udev_device_get_properties_list_entry (dev))
    {
      const char *name = udev_list_entry_get_name (entry);

      if (!property_is_kept (name))
        continue;
      if (info->properties == NULL)
        info->properties = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      g_hash_table_insert (info->properties, g_strdup (name),
                           g_strdup (udev_list_entry_get_value (entry)));
    }
  return info;
}

/* Whether the rules tagged the device in its last event: CURRENT_TAGS
 * (udev 247 and later). TAGS also lists tags an earlier event set (tags
 * stick to a device), and udev_device_has_current_tag() falls back to them
 * when an event carries no current tag at all: neither tells a device
 * that has lost the tag. */
static gboolean
device_has_current_tag (struct udev_device *dev)
{
  const char *current = udev_device_get_property_value (dev, "CURRENT_TAGS");

  return current != NULL && strstr (current, ":" PP_UDEV_TAG ":") != NULL;
}

/* A directory of sysfs that udev would call a device: it has a uevent file
 * and a subsystem. */
static gboolean
is_device_dir (const char *path)
{
  g_autofree char *uevent = g_build_filename (path, "uevent", NULL);
  g_autofree char *subsystem = g_build_filename (path, "subsystem", NULL);
  struct stat st;

  return lstat (subsystem, &st) == 0 && S_ISLNK (st.st_mode) &&
         access (uevent, F_OK) == 0;
}

const char *
pp_device_info_get_parent (PpDeviceInfo *info)
{
  g_autofree char *dir = NULL;

  if (info->parent_known)
    return info->parent;
  info->parent_known = TRUE;
  dir = g_path_get_dirname (info->syspath);
  while (g_str_has_prefix (dir, PP_UDEV_DEVICES_DIR "/"))
    {
      char *up;

      if (is_device_dir (dir))
        {
          info->parent = g_steal_pointer (&dir);
          break;
        }
      up = g_path_get_dirname (dir);
      g_free (dir);
      dir = up;
    }
  return info->parent;
}

/* ---- USB interfaces ---------------------------------------------------- */

static gboolean
read_hex_byte (const char *dir, const char *relpath, guint8 *out)
{
  g_autofree char *text = pp_sysfs_read_opt (dir, relpath);
  guint64 v = 0;

  if (text == NULL || !g_ascii_string_to_unsigned (text, 16, 0, 0xff, &v, NULL))
    return FALSE;
  *out = (guint8) v;
  return TRUE;
}

GArray *
pp_udev_read_usb_interfaces (const char *syspath)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (PpUsbInterface));
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) dir = g_dir_open (syspath, 0, NULL);
  const char *name;

  if (dir == NULL)
    return out;
  /* a device directory has a few dozen entries; its interfaces are the
   * ones with a ':' in their name */
  while ((name = g_dir_read_name (dir)) != NULL)
    if (strchr (name, ':') != NULL && names->len < 4 * PP_USB_MAX_INTERFACES)
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, pp_compare_strings);

  for (guint i = 0; i < names->len && out->len < PP_USB_MAX_INTERFACES; i++)
    {
      g_autofree char *iface = g_build_filename (syspath, g_ptr_array_index (names, i), NULL);
      g_autofree char *link = g_build_filename (iface, "driver", NULL);
      g_autofree char *target = NULL;
      PpUsbInterface entry = { 0, 0, 0, NULL };

      if (!read_hex_byte (iface, "bInterfaceClass", &entry.interface_class))
        continue;
      read_hex_byte (iface, "bInterfaceSubClass", &entry.interface_subclass);
      read_hex_byte (iface, "bInterfaceProtocol", &entry.interface_protocol);
      target = g_file_read_link (link, NULL);
      if (target != NULL)
        {
          g_autofree char *driver = g_path_get_basename (target);
          /* driver names are few (one per kernel driver): interning them
           * is bounded */
          entry.driver = g_intern_string (driver);
        }
      g_array_append_val (out, entry);
    }
  return out;
}

guint16
pp_udev_read_usb_vendor (const char *syspath)
{
  g_autofree char *text = pp_sysfs_read_opt (syspath, "idVendor");
  guint64 v = 0;

  if (text == NULL || !g_ascii_string_to_unsigned (text, 16, 0, 0xffff, &v, NULL))
    return 0;
  return (guint16) v;
}

static void
pp_udev_finalize (GObject *object)
{
  PpUdev *self = PP_UDEV (object);

  g_clear_handle_id (&self->monitor_source, g_source_remove);
  g_clear_pointer (&self->monitor, udev_monitor_unref);
  g_clear_pointer (&self->udev, udev_unref);
  G_OBJECT_CLASS (pp_udev_parent_class)->finalize (object);
}

static void
pp_udev_class_init (PpUdevClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pp_udev_finalize;

  signals[SIGNAL_UEVENT] =
    g_signal_new ("uevent", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                  G_TYPE_STRING, G_TYPE_POINTER);
}

static void
pp_udev_init (PpUdev *self)
{
}

PpUdev *
pp_udev_new (GError **error)
{
  g_autoptr(PpUdev) self = g_object_new (PP_TYPE_UDEV, NULL);

  self->udev = udev_new ();
  if (self->udev == NULL)
    {
      pp_error_set_from_errno (error, errno, "udev_new");
      return NULL;
    }
  return g_steal_pointer (&self);
}

static gint
compare_info (gconstpointer a, gconstpointer b)
{
  const PpDeviceInfo *ia = *(PpDeviceInfo * const *) a;
  const PpDeviceInfo *ib = *(PpDeviceInfo * const *) b;

  return strcmp (ia->syspath, ib->syspath);
}

/* ---- coldplug -----------------------------------------------------------
 *
 * The rules (99-powerpolicy-tag.rules) tag every device the daemon must
 * look at with "powerpolicy": udev keeps an index of each tag, so asking
 * for the tag costs one lookup per tagged device instead of one per device
 * of the machine.
 */

GPtrArray *
pp_udev_enumerate (PpUdev *self, GError **error)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_device_info_unref);
  g_autoptr(UdevEnumerate) e = udev_enumerate_new (self->udev);
  struct udev_list_entry *entry;
  int r;

  if (e == NULL)
    {
      pp_error_set_from_errno (error, errno, "udev_enumerate_new");
      return NULL;
    }
  r = udev_enumerate_add_match_tag (e, PP_UDEV_TAG);
  if (r >= 0)
    r = udev_enumerate_scan_devices (e);
  if (r < 0)
    {
      pp_error_set_from_errno (error, -r, "cannot enumerate the devices tagged \"%s\"", PP_UDEV_TAG);
      return NULL;
    }
  udev_list_entry_foreach (entry, udev_enumerate_get_list_entry (e))
    {
      g_autoptr(UdevDevice) dev = udev_device_new_from_syspath (self->udev,
                                                                udev_list_entry_get_name (entry));

      /* gone between the index and now: nothing to manage */
      if (dev == NULL)
        continue;
      g_ptr_array_add (out, device_info_new_from_udev (dev, TRUE));
    }
  g_ptr_array_sort (out, compare_info);
  return g_steal_pointer (&out);
}

PpDeviceInfo *
pp_udev_lookup (PpUdev *self, const char *syspath, GError **error)
{
  g_autoptr(UdevDevice) dev = udev_device_new_from_syspath (self->udev, syspath);

  if (dev == NULL)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE, "no such device: %s", syspath);
      return NULL;
    }
  return device_info_new_from_udev (dev, device_has_current_tag (dev));
}

static gboolean
on_monitor_readable (int fd, GIOCondition condition, gpointer user_data)
{
  PpUdev *self = PP_UDEV (user_data);

  /* drain everything queued: one wakeup for a burst */
  for (;;)
    {
      g_autoptr(UdevDevice) dev = udev_monitor_receive_device (self->monitor);
      g_autoptr(PpDeviceInfo) info = NULL;
      const char *action;

      if (dev == NULL)
        break;
      action = udev_device_get_action (dev);
      if (action == NULL || udev_device_get_syspath (dev) == NULL)
        continue;
      /* what udev's rules tagged: a device that lost the tag on a
       * change is no longer the daemon's */
      info = device_info_new_from_udev (dev, device_has_current_tag (dev));
      g_debug ("uevent %s %s%s", action, info->syspath, info->tagged ? "" : " (not tagged)");
      g_signal_emit (self, signals[SIGNAL_UEVENT], 0, action, info);
    }
  return G_SOURCE_CONTINUE;
}

gboolean
pp_udev_start_monitor (PpUdev *self, GError **error)
{
  int r;

  g_return_val_if_fail (self->monitor == NULL, FALSE);

  self->monitor = udev_monitor_new_from_netlink (self->udev, "udev");
  if (self->monitor == NULL)
    return pp_error_set_from_errno (error, errno, "cannot create the udev monitor");
  /* a burst of hotplug events must not overflow the socket */
  udev_monitor_set_receive_buffer_size (self->monitor, 4 * 1024 * 1024);
  r = udev_monitor_enable_receiving (self->monitor);
  if (r < 0)
    return pp_error_set_from_errno (error, -r, "cannot listen to udev events");

  self->monitor_source = g_unix_fd_add (udev_monitor_get_fd (self->monitor),
                                        G_IO_IN, on_monitor_readable, self);
  return TRUE;
}
