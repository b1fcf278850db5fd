/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-udev"

#include "config.h"

#include <errno.h>
#include <string.h>

#include <gio/gio.h>
#include <glib-unix.h>
#include <libudev.h>
#include <systemd/sd-device.h>

#include "pp-error.h"
#include "pp-udev.h"

typedef struct udev_device    UdevDevice;
G_DEFINE_AUTOPTR_CLEANUP_FUNC (UdevDevice, udev_device_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (sd_device_enumerator, sd_device_enumerator_unref)

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

static const char *
sd_string (int (*getter) (sd_device *, const char **), sd_device *dev)
{
  const char *value = NULL;

  return getter (dev, &value) >= 0 ? value : NULL;
}

static PpDeviceInfo *
device_info_new_from_sd (sd_device *dev)
{
  PpDeviceInfo *info;
  const char *name, *value = NULL;

  if (sd_string (sd_device_get_syspath, dev) == NULL)
    return NULL;
  info = device_info_new (sd_string (sd_device_get_syspath, dev),
                          sd_string (sd_device_get_subsystem, dev),
                          sd_string (sd_device_get_sysname, dev),
                          sd_string (sd_device_get_devtype, dev),
                          sd_string (sd_device_get_driver, dev),
                          sd_string (sd_device_get_devname, dev));
  for (name = sd_device_get_property_first (dev, &value); name != NULL;
       name = sd_device_get_property_next (dev, &value))
    device_info_add_property (info, name, value);
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

GPtrArray *
pp_udev_enumerate (PpUdev *self, GError **error)
{
  g_autoptr(sd_device_enumerator) e = NULL;
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_device_info_unref);
  int r;

  /* sd-device rather than udev_enumerate: the enumerator's device objects
   * are used as they are instead of being looked up again by path */
  r = sd_device_enumerator_new (&e);
  if (r < 0)
    {
      pp_error_set_from_errno (error, -r, "cannot enumerate devices");
      return NULL;
    }
  /* like libudev's enumerator: devices udev has not processed count too */
  sd_device_enumerator_allow_uninitialized (e);

  for (sd_device *dev = sd_device_enumerator_get_device_first (e); dev != NULL;
       dev = sd_device_enumerator_get_device_next (e))
    {
      PpDeviceInfo *info = device_info_new_from_sd (dev);

      if (info != NULL)
        g_ptr_array_add (out, info);
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
