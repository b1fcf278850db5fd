/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-udev"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib-unix.h>
#include <libudev.h>

#include "pp-error.h"
#include "pp-udev.h"

typedef struct udev_device    UdevDevice;
G_DEFINE_AUTOPTR_CLEANUP_FUNC (UdevDevice, udev_device_unref)

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

static void
device_info_add_property (PpDeviceInfo *info, const char *name, const char *value)
{
  if (!property_is_kept (name))
    return;
  if (info->properties == NULL)
    info->properties = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_insert (info->properties, g_strdup (name), g_strdup (value));
}

/* The parent is left NULL: the manager knows it from its device table
 * without another sysfs lookup per device. */
static PpDeviceInfo *
device_info_new (const char *syspath,
                 const char *subsystem,
                 const char *sysname,
                 const char *devtype,
                 const char *driver,
                 const char *devnode)
{
  PpDeviceInfo *info = g_new0 (PpDeviceInfo, 1);

  info->ref_count = 1;
  info->syspath = g_strdup (syspath);
  info->subsystem = g_strdup (subsystem ? subsystem : "");
  info->sysname = g_strdup (sysname ? sysname : "");
  info->devtype = g_strdup (devtype);
  info->driver = g_strdup (driver);
  info->devnode = g_strdup (devnode);
  return info;
}

static PpDeviceInfo *
device_info_new_from_udev (struct udev_device *dev)
{
  PpDeviceInfo *info = device_info_new (udev_device_get_syspath (dev),
                                        udev_device_get_subsystem (dev),
                                        udev_device_get_sysname (dev),
                                        udev_device_get_devtype (dev),
                                        udev_device_get_driver (dev),
                                        udev_device_get_devnode (dev));
  struct udev_list_entry *entry;

  udev_list_entry_foreach (entry, udev_device_get_properties_list_entry (dev))
    device_info_add_property (info, udev_list_entry_get_name (entry),
                              udev_list_entry_get_value (entry));
  return info;
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
 * Coldplug walks /sys/devices once and reads, per device, what libudev
 * would: the uevent file, the subsystem and driver links and udev's
 * database entry. sd_device_enumerator gives the same devices but looks
 * each one up again by path from /sys/bus and /sys/class, which costs
 * about ten times the system calls (see bench/README.md).
 */

#define UDEV_DB_DIR "/run/udev/data"

static char *
read_small_file (const char *path)
{
  char buf[8192];
  ssize_t n;
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

  if (fd < 0)
    return NULL;
  do
    n = read (fd, buf, sizeof (buf) - 1);
  while (n < 0 && errno == EINTR);
  close (fd);
  if (n < 0)
    return NULL;
  buf[n] = '\0';
  return g_strdup (buf);
}

static char *
link_basename (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *target = g_file_read_link (path, NULL);

  return target ? g_path_get_basename (target) : NULL;
}

/* udev's database id of a device (see sd-device's device_get_device_id) */
static char *
udev_db_id (const char *subsystem, const char *sysname, const char *major,
            const char *minor, const char *ifindex)
{
  if (major != NULL && minor != NULL && g_strcmp0 (major, "0") != 0)
    return g_strdup_printf ("%c%s:%s", g_str_equal (subsystem, "block") ? 'b' : 'c',
                            major, minor);
  if (g_str_equal (subsystem, "net") && ifindex != NULL)
    return g_strdup_printf ("n%s", ifindex);
  return g_strdup_printf ("+%s:%s", subsystem, sysname);
}

/* One device directory found by the walk, or NULL when it is not a device
 * with a subsystem (what udev would not enumerate either). */
static PpDeviceInfo *
device_info_from_sysfs (const char *syspath, gboolean has_driver)
{
  g_autofree char *uevent_path = g_build_filename (syspath, "uevent", NULL);
  g_autofree char *uevent = NULL;
  g_autofree char *subsystem = link_basename (syspath, "subsystem");
  g_autofree char *driver = NULL;
  g_autofree char *sysname = NULL;
  g_autofree char *devnode = NULL;
  g_autofree char *db_id = NULL;
  g_autofree char *db_path = NULL;
  g_autofree char *db = NULL;
  g_autoptr(GHashTable) props = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto(GStrv) lines = NULL;
  PpDeviceInfo *info;
  GHashTableIter iter;
  gpointer key, value;

  if (subsystem == NULL)
    return NULL;
  uevent = read_small_file (uevent_path);
  if (uevent == NULL)
    return NULL;   /* vanished meanwhile */
  lines = g_strsplit (uevent, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      char *eq = strchr (lines[i], '=');
      if (eq == NULL || eq == lines[i])
        continue;
      g_hash_table_replace (props, g_strndup (lines[i], eq - lines[i]), g_strdup (eq + 1));
    }

  sysname = g_path_get_basename (syspath);
  g_strdelimit (sysname, "!", '/');
  if (has_driver)
    driver = link_basename (syspath, "driver");
  if (g_hash_table_lookup (props, "DEVNAME") != NULL)
    {
      const char *name = g_hash_table_lookup (props, "DEVNAME");
      devnode = name[0] == '/' ? g_strdup (name) : g_strconcat ("/dev/", name, NULL);
    }

  /* udev's properties (from rules and hwdb) beat the kernel's */
  db_id = udev_db_id (subsystem, sysname, g_hash_table_lookup (props, "MAJOR"),
                      g_hash_table_lookup (props, "MINOR"), g_hash_table_lookup (props, "IFINDEX"));
  db_path = g_build_filename (UDEV_DB_DIR, db_id, NULL);
  db = read_small_file (db_path);
  if (db != NULL)
    {
      g_auto(GStrv) db_lines = g_strsplit (db, "\n", -1);

      for (guint i = 0; db_lines[i]; i++)
        {
          char *eq;

          if (!g_str_has_prefix (db_lines[i], "E:"))
            continue;
          eq = strchr (db_lines[i] + 2, '=');
          if (eq == NULL || eq == db_lines[i] + 2)
            continue;
          g_hash_table_replace (props, g_strndup (db_lines[i] + 2, eq - (db_lines[i] + 2)),
                                g_strdup (eq + 1));
        }
    }

  info = device_info_new (syspath, subsystem, sysname,
                          g_hash_table_lookup (props, "DEVTYPE"),
                          driver ? driver : g_hash_table_lookup (props, "DRIVER"),
                          devnode);
  g_hash_table_iter_init (&iter, props);
  while (g_hash_table_iter_next (&iter, &key, &value))
    device_info_add_property (info, key, value);
  return info;
}

static void
walk_devices (const char *dir_path, GPtrArray *out, guint depth)
{
  g_autoptr(GPtrArray) subdirs = g_ptr_array_new_with_free_func (g_free);
  gboolean is_device = FALSE, has_driver = FALSE;
  struct dirent *entry;
  DIR *dir;

  /* sysfs is never this deep; a hostile tree does not get to recurse */
  if (depth > 64)
    return;
  dir = opendir (dir_path);
  if (dir == NULL)
    return;   /* vanished or unreadable: nothing to manage there */
  while ((entry = readdir (dir)) != NULL)
    {
      unsigned char type = entry->d_type;

      if (entry->d_name[0] == '.')
        continue;
      if (type == DT_UNKNOWN)
        {
          g_autofree char *path = g_build_filename (dir_path, entry->d_name, NULL);
          struct stat st;

          if (lstat (path, &st) < 0)
            continue;
          type = S_ISDIR (st.st_mode) ? DT_DIR : S_ISLNK (st.st_mode) ? DT_LNK : DT_REG;
        }
      if (type == DT_DIR)
        g_ptr_array_add (subdirs, g_build_filename (dir_path, entry->d_name, NULL));
      else if (type == DT_REG && g_str_equal (entry->d_name, "uevent"))
        is_device = TRUE;
      else if (type == DT_LNK && g_str_equal (entry->d_name, "driver"))
        has_driver = TRUE;
    }
  closedir (dir);

  if (is_device && depth > 0)
    {
      PpDeviceInfo *info = device_info_from_sysfs (dir_path, has_driver);
      if (info != NULL)
        g_ptr_array_add (out, info);
    }
  for (guint i = 0; i < subdirs->len; i++)
    walk_devices (g_ptr_array_index (subdirs, i), out, depth + 1);
}

GPtrArray *
pp_udev_enumerate (PpUdev *self, GError **error)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_device_info_unref);
  DIR *probe = opendir ("/sys/devices");

  if (probe == NULL)
    {
      pp_error_set_from_errno (error, errno, "cannot enumerate devices in /sys/devices");
      return NULL;
    }
  closedir (probe);
  walk_devices ("/sys/devices", out, 0);
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
  return device_info_new_from_udev (dev);
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
      info = device_info_new_from_udev (dev);
      g_debug ("uevent %s %s", action, info->syspath);
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
