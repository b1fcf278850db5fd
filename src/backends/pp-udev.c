/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-udev"

#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib-unix.h>
#include <libudev.h>
#include <systemd/sd-device.h>

#include "pp-sysfs.h"
#include "pp-udev.h"
#include "pp-util.h"

typedef struct udev_device    UdevDevice;
typedef sd_device_enumerator  SdDeviceEnumerator;
G_DEFINE_AUTOPTR_CLEANUP_FUNC (UdevDevice, udev_device_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SdDeviceEnumerator, sd_device_enumerator_unref)

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
  g_clear_pointer (&info->syspath, g_ref_string_release);
  g_ref_string_release (info->subsystem);
  g_free (info->sysname);
  g_clear_pointer (&info->devtype, g_ref_string_release);
  g_clear_pointer (&info->driver, g_ref_string_release);
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
/* What identifies a device, as libudev (hotplug, lookups) or sd-device
 * (coldplug) tell it: both read the same udev data. */
typedef struct {
  const char *syspath;
  const char *subsystem;
  const char *sysname;
  const char *devtype;
  const char *driver;
  const char *devnode;
} DeviceIds;

/* The one place a PpDeviceInfo is filled: its identity, then the kept
 * properties one by one (device_info_keep_property). */
static PpDeviceInfo *
device_info_new (const DeviceIds *ids, gboolean tagged)
{
  PpDeviceInfo *info = g_new0 (PpDeviceInfo, 1);

  info->ref_count = 1;
  /* interned (g_ref_string_new_intern()): the path is shared with the
   * daemon's other records of the device, and a few subsystems, device
   * types and drivers with thousands of devices */
  info->syspath = ids->syspath ? g_ref_string_new_intern (ids->syspath) : NULL;
  info->subsystem = g_ref_string_new_intern (ids->subsystem ? ids->subsystem : "");
  info->sysname = g_strdup (ids->sysname ? ids->sysname : "");
  info->devtype = ids->devtype ? g_ref_string_new_intern (ids->devtype) : NULL;
  info->driver = ids->driver ? g_ref_string_new_intern (ids->driver) : NULL;
  info->devnode = g_strdup (ids->devnode);
  info->tagged = tagged;
  return info;
}

static void
device_info_keep_property (PpDeviceInfo *info, const char *name, const char *value)
{
  if (!property_is_kept (name))
    return;
  if (info->properties == NULL)
    info->properties = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_insert (info->properties, g_strdup (name), g_strdup (value));
}

static PpDeviceInfo *
device_info_new_from_udev (struct udev_device *dev, gboolean tagged)
{
  DeviceIds ids = {
    .syspath = udev_device_get_syspath (dev),
    .subsystem = udev_device_get_subsystem (dev),
    .sysname = udev_device_get_sysname (dev),
    .devtype = udev_device_get_devtype (dev),
    .driver = udev_device_get_driver (dev),
    .devnode = udev_device_get_devnode (dev),
  };
  PpDeviceInfo *info = device_info_new (&ids, tagged);
  struct udev_list_entry *entry;

  udev_list_entry_foreach (entry, udev_device_get_properties_list_entry (dev))
    device_info_keep_property (info, udev_list_entry_get_name (entry),
                               udev_list_entry_get_value (entry));
  return info;
}

/* sd-device's getters leave the out value alone when they fail */
static const char *
sd_device_value (int (*getter) (sd_device *, const char **), sd_device *dev)
{
  const char *value = NULL;

  return getter (dev, &value) >= 0 ? value : NULL;
}

static PpDeviceInfo *
device_info_new_from_sd_device (sd_device *dev, gboolean tagged)
{
  DeviceIds ids = {
    .syspath = sd_device_value (sd_device_get_syspath, dev),
    .subsystem = sd_device_value (sd_device_get_subsystem, dev),
    .sysname = sd_device_value (sd_device_get_sysname, dev),
    .devtype = sd_device_value (sd_device_get_devtype, dev),
    .driver = sd_device_value (sd_device_get_driver, dev),
    .devnode = sd_device_value (sd_device_get_devname, dev),
  };
  PpDeviceInfo *info = device_info_new (&ids, tagged);
  const char *value = NULL;

  for (const char *name = sd_device_get_property_first (dev, &value); name != NULL;
       name = sd_device_get_property_next (dev, &value))
    device_info_keep_property (info, name, value);
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

/* A driver name, interned: driver names are few (one per kernel
 * driver), so interning them is bounded. */
static const char *
intern_driver (const char *name, gsize len)
{
  g_autofree char *driver = g_strndup (name, len);

  return g_intern_string (driver);
}

/* "c/s/p" of INTERFACE= (usb_if_uevent: bInterfaceClass, SubClass and
 * Protocol of the current setting, in decimal). */
static gboolean
parse_interface_triple (const char *text, gsize len, PpUsbInterface *entry)
{
  g_autofree char *copy = g_strndup (text, len);
  g_auto(GStrv) parts = g_strsplit (copy, "/", 4);
  guint64 v[3];

  if (g_strv_length (parts) != 3)
    return FALSE;
  for (guint i = 0; i < 3; i++)
    if (!g_ascii_string_to_unsigned (parts[i], 10, 0, 0xff, &v[i], NULL))
      return FALSE;
  entry->interface_class = (guint8) v[0];
  entry->interface_subclass = (guint8) v[1];
  entry->interface_protocol = (guint8) v[2];
  return TRUE;
}

/* An interface as its uevent file tells it: the kernel writes INTERFACE=
 * for every usb_interface and DRIVER= while one is bound (sysfs-bus-usb,
 * the uevent of a device). One read instead of one per attribute and the
 * driver link. FALSE when the file has no valid INTERFACE= line (the
 * caller reads the attributes). */
static gboolean
read_interface_uevent (const char *iface, PpUsbInterface *entry)
{
  g_autofree char *text = pp_sysfs_read_opt (iface, "uevent");
  gboolean found = FALSE;
  const char *driver = NULL;
  gsize driver_len = 0;

  if (text == NULL)
    return FALSE;
  for (const char *line = text; *line != '\0';)
    {
      const char *end = strchrnul (line, '\n');

      if (g_str_has_prefix (line, "INTERFACE="))
        found = parse_interface_triple (line + strlen ("INTERFACE="),
                                        end - line - strlen ("INTERFACE="), entry);
      else if (g_str_has_prefix (line, "DRIVER=") && end - line > (gssize) strlen ("DRIVER="))
        {
          driver = line + strlen ("DRIVER=");
          driver_len = end - driver;
        }
      line = *end != '\0' ? end + 1 : end;
    }
  if (!found)
    return FALSE;
  /* subclass and protocol matter for HID interfaces only (pp-usbclass.c
   * looks at nothing else): as the attribute path leaves them */
  if (entry->interface_class != PP_USB_INTERFACE_CLASS_HID)
    entry->interface_subclass = entry->interface_protocol = 0;
  entry->driver = driver != NULL ? intern_driver (driver, driver_len) : NULL;
  return TRUE;
}

/* The same from the attributes and the driver link. */
static gboolean
read_interface_attributes (const char *iface, PpUsbInterface *entry)
{
  g_autofree char *link = g_build_filename (iface, "driver", NULL);
  g_autofree char *target = NULL;

  if (!read_hex_byte (iface, "bInterfaceClass", &entry->interface_class))
    return FALSE;
  /* subclass and protocol tell a boot keyboard from a mouse: HID
   * interfaces only (pp-usbclass.c looks at nothing else) */
  if (entry->interface_class == PP_USB_INTERFACE_CLASS_HID)
    {
      read_hex_byte (iface, "bInterfaceSubClass", &entry->interface_subclass);
      read_hex_byte (iface, "bInterfaceProtocol", &entry->interface_protocol);
    }
  target = g_file_read_link (link, NULL);
  if (target != NULL)
    {
      g_autofree char *driver = g_path_get_basename (target);

      entry->driver = intern_driver (driver, strlen (driver));
    }
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
      PpUsbInterface entry = { 0, 0, 0, NULL };

      if (!read_interface_uevent (iface, &entry))
        {
          memset (&entry, 0, sizeof entry);
          if (!read_interface_attributes (iface, &entry))
            continue;
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

static gboolean
set_error_from_errno (GError **error, int errnum, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
set_error_from_errno (GError **error, int errnum, const char *format, ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errnum), "%s: %s", what, g_strerror (errnum));
  return FALSE;
}

PpUdev *
pp_udev_new (GError **error)
{
  g_autoptr(PpUdev) self = g_object_new (PP_TYPE_UDEV, NULL);

  self->udev = udev_new ();
  if (self->udev == NULL)
    {
      set_error_from_errno (error, errno, "udev_new");
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
 * of the machine. udevd (247 and later) keeps a device in the index of
 * every tag it ever had (G: in its database); whether the device has the
 * tag now is its current tags (Q:): a device that lost the tag on a
 * "change" stays in the index and is skipped here, as the monitor forgets
 * it (device_has_current_tag()).
 */

typedef struct {
  sd_device_enumerator *e;
  int                   r;   /* negative errno */
} Enumeration;

/* The enumerator and every device it holds with all the udev properties
 * and values device_info_new_from_sd_device() asks for, made in a thread
 * of its own: glibc's malloc gives a thread its own arena (malloc(3),
 * mallopt(3) M_ARENA_MAX), so these ~1 KiB a device do not share pages
 * with what the daemon keeps of them, and malloc_trim(3) gives their
 * pages back once the enumerator is freed. Made in the main arena, the
 * kept rows were spread over the freed blocks' pages and held most of
 * them (at 10,000 devices ~10 MiB of heap, less than 1 MiB returned). */
static gpointer
enumerate_thread (gpointer user_data)
{
  Enumeration *en = user_data;
  int r;

  r = sd_device_enumerator_new (&en->e);
  if (r >= 0)
    r = sd_device_enumerator_add_match_tag (en->e, PP_UDEV_TAG);
  if (r < 0)
    {
      en->r = r;
      return NULL;
    }
  for (sd_device *dev = sd_device_enumerator_get_device_first (en->e); dev != NULL;
       dev = sd_device_enumerator_get_device_next (en->e))
    {
      const char *value;

      /* each value sd-device reads on the first call (and keeps) */
      (void) sd_device_get_property_first (dev, &value);
      (void) sd_device_get_syspath (dev, &value);
      (void) sd_device_get_subsystem (dev, &value);
      (void) sd_device_get_sysname (dev, &value);
      (void) sd_device_get_devtype (dev, &value);
      (void) sd_device_get_driver (dev, &value);
      (void) sd_device_get_devname (dev, &value);
      (void) sd_device_has_current_tag (dev, PP_UDEV_TAG);
    }
  return NULL;
}

GPtrArray *
pp_udev_enumerate (PpUdev *self, GError **error)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_device_info_unref);
  g_autoptr(SdDeviceEnumerator) e = NULL;
  Enumeration en = { NULL, 0 };
  GThread *thread;

  /* sd-device's enumerator hands out the devices it made from udev's tag
   * index; libudev's gives only their paths, and making each device again
   * from its path doubled the cost of a coldplug. No thread (out of
   * resources): the same work here, only less memory goes back after. */
  thread = g_thread_try_new ("pp-enumerate", enumerate_thread, &en, NULL);
  if (thread != NULL)
    g_thread_join (thread);
  else
    enumerate_thread (&en);
  e = en.e;
  if (en.r < 0)
    {
      set_error_from_errno (error, -en.r, "cannot enumerate the devices tagged \"%s\"", PP_UDEV_TAG);
      return NULL;
    }
  for (sd_device *dev = sd_device_enumerator_get_device_first (e); dev != NULL;
       dev = sd_device_enumerator_get_device_next (e))
    if (sd_device_has_current_tag (dev, PP_UDEV_TAG) > 0)
      g_ptr_array_add (out, device_info_new_from_sd_device (dev, TRUE));
  /* the enumerator held every device with all its udev properties; give
   * that memory back now, the daemon keeps only what it uses */
  g_clear_pointer (&e, sd_device_enumerator_unref);
  malloc_trim (0);
  g_ptr_array_sort (out, compare_info);
  return g_steal_pointer (&out);
}

PpDeviceInfo *
pp_udev_lookup (PpUdev *self, const char *syspath, GError **error)
{
  g_autoptr(UdevDevice) dev = udev_device_new_from_syspath (self->udev, syspath);

  if (dev == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no such device: %s", syspath);
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
      gint64 received;

      if (dev == NULL)
        break;
      received = g_get_monotonic_time ();
      action = udev_device_get_action (dev);
      if (action == NULL || udev_device_get_syspath (dev) == NULL)
        continue;
      /* what udev's rules tagged: a device that lost the tag on a
       * change is no longer the daemon's */
      info = device_info_new_from_udev (dev, device_has_current_tag (dev));
      g_debug ("uevent %s %s%s", action, info->syspath, info->tagged ? "" : " (not tagged)");
      g_signal_emit (self, signals[SIGNAL_UEVENT], 0, action, info);
      /* the daemon's own part of the event, its writes included (the
       * figure bench/vm reads from the --verbose log) */
      g_debug ("uevent %s %s handled in %" G_GINT64_FORMAT " us", action, info->syspath,
               g_get_monotonic_time () - received);
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
    return set_error_from_errno (error, errno, "cannot create the udev monitor");
  /* a burst of hotplug events must not overflow the socket */
  udev_monitor_set_receive_buffer_size (self->monitor, 4 * 1024 * 1024);
  r = udev_monitor_enable_receiving (self->monitor);
  if (r < 0)
    return set_error_from_errno (error, -r, "cannot listen to udev events");

  self->monitor_source = g_unix_fd_add (udev_monitor_get_fd (self->monitor),
                                        G_IO_IN, on_monitor_readable, self);
  return TRUE;
}
