/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-power-ops"

#include "config.h"

#include <malloc.h>
#include <string.h>

#include "pp-devlinks.h"
#include "pp-names.h"
#include "pp-power-tree.h"
#include "pp-sysfs.h"

#define TREE_KEEP_SEC 10
#define REMOVED_PRUNE_AT 64

struct _PpPowerTree {
  PpManager  *manager;       /* unowned: it outlives the tree */
  PpTree     *tree;          /* read from sysfs when needed, or NULL */
  GHashTable *no_control;    /* the tree's paths found without power/control, while it lives */
  gint64      tree_used;     /* monotonic time of its last use */
  guint       tree_timeout;  /* drops it after TREE_KEEP_SEC unused */
  GPtrArray  *with_links;    /* while building: devices with supplier:/consumer: links */
  GHashTable *removed;       /* syspaths udev removed that sysfs still showed */
  gulong      topology_id;
};

static char *
resolve_devlink_end (const char *bus, const char *name, gpointer user_data)
{
  PpPowerTree *self = user_data;
  PpDevice *dev;

  if (bus != NULL)
    return pp_devlinks_resolve_bus_device (bus, name);
  /* the oldest names carry no bus: a unique sysname will do */
  if (name == NULL || strchr (name, '/') != NULL)
    return NULL;
  dev = pp_manager_resolve_device (self->manager, name, NULL);
  return dev ? g_strdup (dev->info->syspath) : NULL;
}

static void
add_link (PpPowerTree *self, PpDevlink *link)
{
  /* udev removed the link; sysfs may not have caught up */
  if (g_hash_table_contains (self->removed, link->id))
    return;
  if (link->sync_state_only)
    {
      g_debug ("Device link %s is sync-state only, not a power dependency", link->id);
      return;
    }
  if (!pp_tree_add_link (self->tree, link->id, link->supplier, link->consumer))
    g_debug ("Ignoring device link %s: %s -> %s, an end is not a device",
             link->id, link->supplier, link->consumer);
}

static void
on_walked_device (const char *syspath, const char *parent, gboolean has_links, gpointer user_data)
{
  PpPowerTree *self = user_data;

  /* udev said it is gone; sysfs may not have caught up */
  if (g_hash_table_contains (self->removed, syspath))
    return;
  pp_tree_add_node (self->tree, syspath, parent);
  if (has_links)
    g_ptr_array_add (self->with_links, g_strdup (syspath));
}

static void
drop_tree (PpPowerTree *self)
{
  gboolean had_tree = self->tree != NULL;

  g_clear_handle_id (&self->tree_timeout, g_source_remove);
  g_clear_pointer (&self->no_control, g_hash_table_unref);
  g_clear_pointer (&self->tree, pp_tree_free);
  pp_manager_forget_tree_devices (self->manager);
  /* a tree of every device under /sys/devices: its pages go back too */
  if (had_tree)
    malloc_trim (0);
}

static gboolean
on_tree_timeout (gpointer user_data)
{
  PpPowerTree *self = user_data;

  if (g_get_monotonic_time () - self->tree_used < TREE_KEEP_SEC * G_USEC_PER_SEC)
    return G_SOURCE_CONTINUE;
  self->tree_timeout = 0;
  drop_tree (self);
  return G_SOURCE_REMOVE;
}

/* udev's word for removals that sysfs still shows, while it does */
static void
prune_removed (PpPowerTree *self)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, self->removed);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_file_test (key, G_FILE_TEST_IS_DIR))
      g_hash_table_iter_remove (&iter);
}

static void
add_all_links (PpPowerTree *self)
{
  g_autoptr(GPtrArray) links = pp_devlinks_read_all (PP_SYSFS_CLASS_DEVLINK,
                                                     resolve_devlink_end, self);

  for (guint i = 0; i < links->len; i++)
    add_link (self, g_ptr_array_index (links, i));
  /* links a device names that the devlink class does not list */
  for (guint i = 0; i < self->with_links->len; i++)
    {
      g_autoptr(GPtrArray) own = pp_devlinks_read_device (g_ptr_array_index (self->with_links, i),
                                                         resolve_devlink_end, self);
      for (guint j = 0; j < own->len; j++)
        add_link (self, g_ptr_array_index (own, j));
    }
}

static void
build_tree (PpPowerTree *self)
{
  GPtrArray *devices = pp_manager_list_devices (self->manager);

  self->tree = pp_tree_new ();
  self->no_control = g_hash_table_new (g_str_hash, g_str_equal);
  self->with_links = g_ptr_array_new_with_free_func (g_free);

  prune_removed (self);

  pp_devlinks_walk_devices (PP_SYSFS_DEVICES, on_walked_device, self);
  /* a managed device sysfs lost before udev told: in the tree until the
   * remove event, so that operations report it vanished */
  for (guint i = 0; i < devices->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (devices, i);

      if (!pp_tree_contains (self->tree, dev->info->syspath))
        pp_tree_add_node (self->tree, dev->info->syspath, pp_device_info_get_parent (dev->info));
    }
  add_all_links (self);
  g_clear_pointer (&self->with_links, g_ptr_array_unref);
  g_debug ("Power-dependency tree read from sysfs: %u devices, %u device links",
           pp_tree_get_n_nodes (self->tree), pp_tree_get_n_links (self->tree));
}

PpTree *
pp_power_tree_get (PpPowerTree *self)
{
  if (self->tree == NULL)
    build_tree (self);
  self->tree_used = g_get_monotonic_time ();
  if (self->tree_timeout == 0)
    self->tree_timeout = g_timeout_add_seconds (TREE_KEEP_SEC, on_tree_timeout, self);
  return self->tree;
}

gboolean
pp_power_tree_lacks_control (PpPowerTree *self, const char *path)
{
  return self->no_control != NULL && g_hash_table_contains (self->no_control, path);
}

void
pp_power_tree_note_no_control (PpPowerTree *self, const char *path)
{
  if (self->no_control != NULL)
    g_hash_table_add (self->no_control, (gpointer) path);
}

static void
on_topology_changed (PpManager *manager, const char *action, const char *syspath, PpPowerTree *self)
{
  if (g_str_equal (action, "remove"))
    {
      g_hash_table_add (self->removed, g_strdup (syspath));
      /* bounded by what sysfs still shows, also without tree operations */
      if (g_hash_table_size (self->removed) > REMOVED_PRUNE_AT)
        prune_removed (self);
    }
  else
    g_hash_table_remove (self->removed, syspath);
  drop_tree (self);
}

PpPowerTree *
pp_power_tree_new (PpManager *manager)
{
  PpPowerTree *self = g_new0 (PpPowerTree, 1);

  self->manager = manager;
  self->removed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->topology_id = g_signal_connect (manager, "topology-changed",
                                        G_CALLBACK (on_topology_changed), self);
  return self;
}

void
pp_power_tree_free (PpPowerTree *self)
{
  if (self == NULL)
    return;
  g_clear_signal_handler (&self->topology_id, self->manager);
  g_clear_handle_id (&self->tree_timeout, g_source_remove);
  g_clear_pointer (&self->no_control, g_hash_table_unref);
  g_clear_pointer (&self->tree, pp_tree_free);
  g_hash_table_unref (self->removed);
  g_free (self);
}
