/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The manager's device table (pp-device-table.h): the tagged devices by
 * syspath and sysname, the untagged ones a tree operation looked at,
 * device arguments, the power supplies read from it, and the per-device
 * status and statistics. */
#define G_LOG_DOMAIN "pp-manager"

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "pp-devarg.h"
#include "pp-error.h"
#include "pp-device-table.h"
#include "pp-names.h"
#include "pp-power-state.h"
#include "pp-residency.h"
#include "pp-sysfs.h"
#include "pp-util.h"

struct _PpDeviceTable {
  GHashTable *devices;        /* syspath -> PpDevice*: the tagged devices */
  GHashTable *unmanaged;      /* syspath -> PpDevice*: untagged devices a tree
                               * operation looked at (pp_manager_get_tree_device) */
  GHashTable *by_sysname;     /* sysname -> PpDevice* (unowned), the first
                               * with that name */
  GHashTable *same_sysname;   /* sysname -> GPtrArray of PpDevice* (unowned):
                               * the names two devices or more have, each
                               * in the order added (an array for every
                               * name cost ~80 bytes a device) */
  GPtrArray  *sorted_cache;   /* PpDevice*, or NULL when stale */
};

static const char *
lookup_info_property (gpointer user_data, const char *key)
{
  return pp_device_info_get_property (user_data, key);
}

gboolean
pp_device_is_usb (PpDeviceInfo *info)
{
  return g_str_equal (info->subsystem, "usb") && g_strcmp0 (info->devtype, "usb_device") == 0;
}

/* The class of a USB device also follows the drivers bound to its interfaces
 * (powerpolicyd(8), DEVICES); POWERPOLICY_CLASS from the rules wins. Other
 * devices: their class as udev's properties say. */
static const char *
usb_effective_class (PpDevice *dev)
{
  g_autoptr(GArray) interfaces = NULL;
  const char *udev_class;
  const PpUsbInterface *ifaces;

  if (!pp_device_is_usb (dev->info))
    return dev->props.klass;
  /* the rules' class wins: then the interfaces are not read at all, and
   * the vendor only when a driver makes it matter */
  udev_class = pp_device_info_get_property (dev->info, "POWERPOLICY_CLASS");
  if (udev_class != NULL && *udev_class != '\0')
    return pp_usb_class_effective (udev_class, dev->info->subsystem, NULL, 0, 0);
  interfaces = pp_udev_read_usb_interfaces (dev->info->syspath);
  ifaces = (const PpUsbInterface *) (gpointer) interfaces->data;
  return pp_usb_class_effective (NULL, dev->info->subsystem, ifaces, interfaces->len,
                                 pp_usb_class_needs_vendor (ifaces, interfaces->len) ?
                                 pp_udev_read_usb_vendor (dev->info->syspath) : 0);
}

/* TRUE when the class changed. */
gboolean
pp_device_classify_usb (PpDevice *dev)
{
  const char *klass = usb_effective_class (dev);

  if (g_str_equal (klass, dev->props.klass))
    return FALSE;
  g_debug ("%s: class %s (udev's class, else its interfaces' drivers)", dev->info->syspath, klass);
  g_free (dev->props.klass);
  dev->props.klass = g_strdup (klass);
  return TRUE;
}

static PpDevice *
pp_device_new (PpDeviceInfo *info)
{
  PpDevice *dev = g_new0 (PpDevice, 1);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);

  dev->info = pp_device_info_ref (info);
  pp_device_props_init (&dev->props, info->subsystem, lookup_info_property, info, warnings);
  for (guint i = 0; i < warnings->len; i++)
    g_warning ("%s: %s", info->syspath, (char *) g_ptr_array_index (warnings, i));
  pp_device_classify_usb (dev);
  /* read once here: deciding and explaining read none of it again */
  pp_device_facts_read (&dev->facts, info);
  return dev;
}

static void
pp_device_free (PpDevice *dev)
{
  pp_device_props_clear (&dev->props);
  pp_device_facts_clear (&dev->facts);
  pp_device_info_unref (dev->info);
  g_free (dev);
}

static void
index_remove (PpDeviceTable *self, PpDevice *dev)
{
  const char *name = dev->info->sysname;
  GPtrArray *list = g_hash_table_lookup (self->same_sysname, name);

  if (list == NULL)
    {
      if (g_hash_table_lookup (self->by_sysname, name) == dev)
        g_hash_table_remove (self->by_sysname, name);
      return;
    }
  g_ptr_array_remove (list, dev);
  if (list->len > 0)
    g_hash_table_insert (self->by_sysname, g_strdup (name), g_ptr_array_index (list, 0));
  else
    g_hash_table_remove (self->by_sysname, name);
  if (list->len < 2)
    g_hash_table_remove (self->same_sysname, name);
}

static void
index_add (PpDeviceTable *self, PpDevice *dev)
{
  const char *name = dev->info->sysname;
  PpDevice *first = g_hash_table_lookup (self->by_sysname, name);
  GPtrArray *list;

  if (first == NULL)
    {
      g_hash_table_insert (self->by_sysname, g_strdup (name), dev);
      return;
    }
  list = g_hash_table_lookup (self->same_sysname, name);
  if (list == NULL)
    {
      list = g_ptr_array_new ();
      g_ptr_array_add (list, first);
      g_hash_table_insert (self->same_sysname, g_strdup (name), list);
    }
  g_ptr_array_add (list, dev);
}

gboolean
pp_device_path_is_managed (const char *syspath)
{
  return pp_sysfs_path_is_under (syspath, PP_SYSFS_DEVICES);
}

/* Device links (/sys/devices/virtual/devlink/...) are edges of the
 * power-dependency tree, not devices (the kernel gives them no power/):
 * kept in the table so that their uevents reach the tree, but never
 * listed, resolved as a device argument, or written. */
gboolean
pp_device_is_link (PpDevice *dev)
{
  return g_strcmp0 (dev->info->subsystem, "devlink") == 0;
}

PpDeviceTable *
pp_device_table_new (void)
{
  PpDeviceTable *self = g_new0 (PpDeviceTable, 1);

  self->devices = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) pp_device_free);
  self->unmanaged = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                           (GDestroyNotify) pp_device_free);
  self->by_sysname = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->same_sysname = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                              (GDestroyNotify) g_ptr_array_unref);
  return self;
}

void
pp_device_table_free (PpDeviceTable *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->sorted_cache, g_ptr_array_unref);
  g_hash_table_unref (self->same_sysname);
  g_hash_table_unref (self->by_sysname);
  g_hash_table_unref (self->unmanaged);
  g_hash_table_unref (self->devices);
  g_free (self);
}

/* Insert or replace; returns the device now in the table. */
PpDevice *
pp_device_table_set (PpDeviceTable *self, PpDeviceInfo *info)
{
  PpDevice *old = g_hash_table_lookup (self->devices, info->syspath);
  PpDevice *dev = pp_device_new (info);

  if (old != NULL)
    index_remove (self, old);
  g_hash_table_replace (self->devices, dev->info->syspath, dev);
  index_add (self, dev);
  g_clear_pointer (&self->sorted_cache, g_ptr_array_unref);
  return dev;
}

void
pp_device_table_remove (PpDeviceTable *self, const char *syspath)
{
  PpDevice *dev = g_hash_table_lookup (self->devices, syspath);

  if (dev == NULL)
    return;
  index_remove (self, dev);
  g_hash_table_remove (self->devices, syspath);
  g_clear_pointer (&self->sorted_cache, g_ptr_array_unref);
}

/* A device below a managed one came or went (an NVMe controller the
 * nvme driver made, say): the parent's facts are read again. */
void
pp_device_table_child_changed (PpDeviceTable *self, PpDeviceInfo *child)
{
  const char *parent = pp_device_info_get_parent (child);
  PpDevice *dev = parent ? g_hash_table_lookup (self->devices, parent) : NULL;

  if (dev == NULL)
    return;
  pp_device_facts_clear (&dev->facts);
  pp_device_facts_read (&dev->facts, dev->info);
}

static gint
compare_devices (gconstpointer a, gconstpointer b)
{
  const PpDevice *da = *(PpDevice * const *) a;
  const PpDevice *db = *(PpDevice * const *) b;

  return strcmp (da->info->syspath, db->info->syspath);
}

GPtrArray *
pp_device_table_list (PpDeviceTable *self)
{
  if (self->sorted_cache == NULL)
    {
      GHashTableIter iter;
      gpointer value;

      self->sorted_cache = g_ptr_array_sized_new (g_hash_table_size (self->devices));
      g_hash_table_iter_init (&iter, self->devices);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        if (!pp_device_is_link (value))
          g_ptr_array_add (self->sorted_cache, value);
      g_ptr_array_sort (self->sorted_cache, compare_devices);
    }
  return self->sorted_cache;
}

PpDevice *
pp_device_table_lookup (PpDeviceTable *self, const char *syspath)
{
  return g_hash_table_lookup (self->devices, syspath);
}

guint
pp_device_table_size (PpDeviceTable *self)
{
  return g_hash_table_size (self->devices);
}

gboolean
pp_device_table_knows (PpDeviceTable *self, const char *syspath)
{
  return g_hash_table_contains (self->devices, syspath) ||
         g_hash_table_contains (self->unmanaged, syspath);
}

PpDevice *
pp_device_table_get_tree_device (PpDeviceTable *self, PpUdev *udev, const char *syspath)
{
  PpDevice *dev = g_hash_table_lookup (self->devices, syspath);
  g_autoptr(PpDeviceInfo) info = NULL;

  if (dev != NULL)
    return dev;
  dev = g_hash_table_lookup (self->unmanaged, syspath);
  if (dev != NULL)
    return dev;
  if (udev == NULL || !pp_device_path_is_managed (syspath))
    return NULL;
  info = pp_udev_lookup (udev, syspath, NULL);
  if (info == NULL)
    return NULL;
  dev = pp_device_new (info);
  g_hash_table_replace (self->unmanaged, dev->info->syspath, dev);
  return dev;
}

void
pp_device_table_forget_tree_devices (PpDeviceTable *self)
{
  g_hash_table_remove_all (self->unmanaged);
}

void
pp_device_table_forget_tree_device (PpDeviceTable *self, const char *syspath)
{
  g_hash_table_remove (self->unmanaged, syspath);
}

gboolean
pp_device_table_on_battery (PpDeviceTable *self)
{
  g_autoptr(GArray) facts = g_array_new (FALSE, TRUE, sizeof (PpPowerSupplyFacts));
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *devices = pp_device_table_list (self);

  for (guint i = 0; i < devices->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (devices, i);
      PpPowerSupplyFacts f = { NULL, -1, NULL };
      char *type, *scope;

      if (!g_str_equal (dev->info->subsystem, "power_supply"))
        continue;
      type = pp_sysfs_read_opt (dev->info->syspath, "type");
      scope = pp_sysfs_read_opt (dev->info->syspath, "scope");
      g_ptr_array_add (strings, type);
      g_ptr_array_add (strings, scope);
      f.type = type;
      f.scope = scope;
      f.online = (gint) pp_sysfs_read_int (dev->info->syspath, "online", -1);
      g_array_append_val (facts, f);
    }
  return pp_policy_on_battery ((PpPowerSupplyFacts *) (gpointer) facts->data, facts->len);
}

/* The charge of the system batteries together, in percent, or -1. */
gint
pp_device_table_battery_percent (PpDeviceTable *self)
{
  g_autoptr(GArray) facts = g_array_new (FALSE, TRUE, sizeof (PpBatteryFacts));
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *devices = pp_device_table_list (self);

  for (guint i = 0; i < devices->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (devices, i);
      const char *dir = dev->info->syspath;
      g_autofree char *type = NULL;
      PpBatteryFacts f;
      char *scope;

      if (!g_str_equal (dev->info->subsystem, "power_supply"))
        continue;
      type = pp_sysfs_read_opt (dir, "type");
      if (g_strcmp0 (type, "Battery") != 0)
        continue;
      scope = pp_sysfs_read_opt (dir, "scope");
      g_ptr_array_add (strings, scope);
      f.scope = scope;
      f.capacity = (gint) pp_sysfs_read_int (dir, "capacity", -1);
      f.energy_now = pp_sysfs_read_int (dir, "energy_now", -1);
      f.energy_full = pp_sysfs_read_int (dir, "energy_full", -1);
      f.charge_now = pp_sysfs_read_int (dir, "charge_now", -1);
      f.charge_full = pp_sysfs_read_int (dir, "charge_full", -1);
      g_array_append_val (facts, f);
    }
  return pp_policy_battery_percent ((PpBatteryFacts *) (gpointer) facts->data, facts->len);
}

static PpDevice *
resolve_device (PpDeviceTable *self, const char *device, GError **error)
{
  PpDeviceArgKind kind;
  PpDevice *dev;
  g_autofree char *shown = NULL;

  if (!pp_device_arg_check (device, &kind, error))
    return NULL;
  /* errors quote the caller's argument escaped and bounded */
  shown = pp_escape_text (device, PP_ESCAPE_SHOWN_MAX);
  if (kind == PP_DEVICE_ARG_PATH)
    {
      char resolved[PATH_MAX];

      dev = g_hash_table_lookup (self->devices, device);
      if (dev != NULL)
        return dev;
      if (realpath (device, resolved) == NULL || !pp_device_path_is_managed (resolved))
        {
          g_set_error (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE,
                       "'%s' is not a device under /sys/devices", shown);
          return NULL;
        }
      dev = g_hash_table_lookup (self->devices, resolved);
      if (dev == NULL)
        {
          g_set_error (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE,
                       "'%s' is not a device the daemon manages", shown);
          return NULL;
        }
      return dev;
    }

  {
    PpDevice *first = g_hash_table_lookup (self->by_sysname, device);
    GPtrArray *list = g_hash_table_lookup (self->same_sysname, device);

    if (first == NULL)
      {
        g_set_error (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE, "no device named '%s'", shown);
        return NULL;
      }
    if (list != NULL)
      {
        g_autoptr(GString) names = g_string_new (NULL);
        for (guint i = 0; i < list->len; i++)
          {
            PpDevice *d = g_ptr_array_index (list, i);
            g_string_append_printf (names, "%s%s", i ? ", " : "", d->info->syspath);
          }
        g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                     "device name '%s' is ambiguous, use one of: %s", shown, names->str);
        return NULL;
      }
    return first;
  }
}

PpDevice *
pp_device_table_resolve (PpDeviceTable *self, const char *device, GError **error)
{
  PpDevice *dev = resolve_device (self, device, error);

  if (dev != NULL && pp_device_is_link (dev))
    {
      g_autofree char *shown = pp_escape_text (device, PP_ESCAPE_SHOWN_MAX);

      g_set_error (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE,
                   "'%s' is a device link, not a device", shown);
      return NULL;
    }
  return dev;
}

void
pp_device_read_status (PpDevice *dev, gboolean held, PpDeviceStatus *out)
{
  const char *syspath = dev->info->syspath;
  const char *parent = pp_device_info_get_parent (dev->info);

  /* one path walk for the four attributes */
  pp_power_state_read (syspath, PP_POWER_STATE_ALL, &out->power);
  out->parent = parent != NULL && pp_device_path_is_managed (parent) ? parent : "";
  out->held = held;
}

static void
append_stats_row (GArray *rows, PpDevice *dev, const PpResidency *r, const PpResidencySample *now,
                  gboolean with_state)
{
  PpManagerStatsRow row = { dev->info->syspath, dev->props.klass, r->suspended_share,
                            r->active_ms, r->suspended_ms, NULL, FALSE };

  if (with_state)
    {
      row.runtime_status = pp_runtime_status_to_string (now->status);
      row.control_auto = now->control_auto;
    }

  g_array_append_val (rows, row);
}

GArray *
pp_device_table_get_statistics (PpDeviceTable    *self,
                                PpResidencyBook  *residency,
                                PpDevice         *device,
                                gboolean          with_state,
                                GError          **error)
{
  g_autoptr(GArray) rows = NULL;
  GPtrArray *devices;
  PpResidencyFields fields = with_state ? PP_RESIDENCY_STATE : PP_RESIDENCY_COUNTERS;
  PpResidency r;
  PpResidencySample now;

  if (device != NULL)
    {
      rows = g_array_sized_new (FALSE, TRUE, sizeof (PpManagerStatsRow), 1);
      if (!pp_residency_book_query_fields (residency, device->info->syspath, fields,
                                           &r, &now, error))
        return NULL;
      append_stats_row (rows, device, &r, &now, with_state);
      return g_steal_pointer (&rows);
    }

  /* every managed device that has counters; one gone meanwhile, or
   * without counters, is left out */
  devices = pp_device_table_list (self);
  rows = g_array_sized_new (FALSE, TRUE, sizeof (PpManagerStatsRow), devices->len);
  for (guint i = 0; i < devices->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (devices, i);

      if (pp_residency_book_query_fields (residency, dev->info->syspath, fields,
                                          &r, &now, NULL))
        append_stats_row (rows, dev, &r, &now, with_state);
    }
  return g_steal_pointer (&rows);
}

static void
class_stats_clear (gpointer data)
{
  g_free (((PpManagerClassStats *) data)->class);
}

GArray *
pp_device_table_get_class_statistics (PpDeviceTable *self, PpResidencyBook *residency)
{
  GPtrArray *devices = pp_device_table_list (self);
  g_autofree PpStatsRow *rows = g_new (PpStatsRow, devices->len + 1);
  g_autoptr(GArray) totals = NULL;
  GArray *out;
  guint n = 0;

  /* the same rows as GetStatistics(""), with their class */
  for (guint i = 0; i < devices->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (devices, i);

      if (!pp_residency_book_query_fields (residency, dev->info->syspath,
                                           PP_RESIDENCY_NEVER_SUSPENDS, &rows[n].residency,
                                           NULL, NULL))
        continue;
      rows[n].path = dev->info->syspath;
      rows[n].class = dev->props.klass;
      n++;
    }
  totals = pp_stats_class_totals (rows, n);
  out = g_array_sized_new (FALSE, TRUE, sizeof (PpManagerClassStats), totals->len);
  g_array_set_clear_func (out, class_stats_clear);
  for (guint i = 0; i < totals->len; i++)
    {
      const PpStatsClassTotal *t = &g_array_index (totals, PpStatsClassTotal, i);
      PpManagerClassStats c = { g_strdup (t->class), t->n_devices, t->n_never_suspends,
                                t->suspended_share, t->active_ms, t->suspended_ms };

      g_array_append_val (out, c);
    }
  return out;
}

static void
device_count_clear (gpointer data)
{
  PpManagerDeviceCount *c = data;

  g_free (c->class);
  g_free (c->runtime_status);
}

static gint
compare_device_counts (gconstpointer a, gconstpointer b)
{
  const PpManagerDeviceCount *ca = a, *cb = b;
  int c = strcmp (ca->class, cb->class);

  return c != 0 ? c : strcmp (ca->runtime_status, cb->runtime_status);
}

GArray *
pp_device_table_count_devices (PpDeviceTable *self)
{
  GPtrArray *devices = pp_device_table_list (self);
  GArray *counts = g_array_new (FALSE, TRUE, sizeof (PpManagerDeviceCount));

  g_array_set_clear_func (counts, device_count_clear);
  for (guint i = 0; i < devices->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (devices, i);
      char status[PP_POWER_STATE_MAX];
      guint j;

      /* one open of the one attribute (no directory, no copy); missing
       * or empty: "unsupported", as ListDevices says */
      if (!pp_power_state_read_one (dev->info->syspath, "runtime_status", status) ||
          status[0] == '\0')
        g_strlcpy (status, "unsupported", sizeof status);
      /* a few classes times a few states: a scan, no key to allocate */
      for (j = 0; j < counts->len; j++)
        {
          PpManagerDeviceCount *c = &g_array_index (counts, PpManagerDeviceCount, j);

          if (g_str_equal (c->runtime_status, status) && g_str_equal (c->class, dev->props.klass))
            {
              c->count++;
              break;
            }
        }
      if (j == counts->len)
        {
          PpManagerDeviceCount c = { g_strdup (dev->props.klass), g_strdup (status), 1 };

          g_array_append_val (counts, c);
        }
    }
  g_array_sort (counts, compare_device_counts);
  return counts;
}
