/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-devlinks"

#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "pp-devlinks.h"
#include "pp-names.h"
#include "pp-sysfs.h"
#include "pp-tree.h"
#include "pp-util.h"

void
pp_devlink_free (PpDevlink *link)
{
  if (link == NULL)
    return;
  g_free (link->id);
  g_free (link->supplier);
  g_free (link->consumer);
  g_free (link->status);
  g_free (link);
}

static char *
canonical_device (const char *path)
{
  char resolved[PATH_MAX];

  if (realpath (path, resolved) == NULL)
    return NULL;
  if (!pp_sysfs_path_is_under (resolved, PP_SYSFS_DEVICES))
    return NULL;
  return g_strdup (resolved);
}

/* A name from sysfs used as one path component: nothing that walks. */
static gboolean
safe_component (const char *s)
{
  return s != NULL && *s != '\0' && strchr (s, '/') == NULL &&
         !g_str_equal (s, ".") && !g_str_equal (s, "..");
}

char *
pp_devlinks_resolve_bus_device (const char *bus, const char *name)
{
  g_autofree char *by_bus = NULL;
  g_autofree char *by_class = NULL;
  char *found;

  if (!safe_component (bus) || !safe_component (name))
    return NULL;
  by_bus = g_build_filename ("/sys/bus", bus, "devices", name, NULL);
  found = canonical_device (by_bus);
  if (found != NULL)
    return found;
  by_class = g_build_filename ("/sys/class", bus, name, NULL);
  return canonical_device (by_class);
}

typedef struct {
  PpDevlinkResolveFunc resolve;
  gpointer             user_data;
} Resolver;

static gboolean
resolver_known (const char *bus, const char *name, gpointer user_data)
{
  Resolver *r = user_data;
  g_autofree char *path = r->resolve (bus, name, r->user_data);

  return path != NULL;
}

static gint
read_flag (const char *dir, const char *attr)
{
  return (gint) pp_sysfs_read_int (dir, attr, -1);
}

static void
read_details (PpDevlink *link, const char *dir)
{
  link->status = pp_sysfs_read_opt (dir, "status");
  link->runtime_pm = read_flag (dir, "runtime_pm");
  link->sync_state_only = read_flag (dir, "sync_state_only") == 1;
}

PpDevlink *
pp_devlink_read (const char           *devlink_dir,
                 PpDevlinkResolveFunc  resolve,
                 gpointer              user_data)
{
  g_autofree char *supplier_link = g_build_filename (devlink_dir, "supplier", NULL);
  g_autofree char *consumer_link = g_build_filename (devlink_dir, "consumer", NULL);
  g_autofree char *supplier = canonical_device (supplier_link);
  g_autofree char *consumer = canonical_device (consumer_link);
  g_autofree char *id = NULL;
  char resolved[PATH_MAX];
  PpDevlink *link;

  if ((supplier == NULL || consumer == NULL) && resolve != NULL)
    {
      g_autofree char *base = g_path_get_basename (devlink_dir);
      Resolver r = { resolve, user_data };
      PpDevlinkName name;

      if (pp_devlink_name_parse (base, resolver_known, &r, &name))
        {
          if (supplier == NULL)
            supplier = resolve (name.supplier_bus, name.supplier, user_data);
          if (consumer == NULL)
            consumer = resolve (name.consumer_bus, name.consumer, user_data);
          pp_devlink_name_clear (&name);
        }
    }
  if (supplier == NULL || consumer == NULL)
    {
      g_debug ("Ignoring device link %s: its %s is missing", devlink_dir,
               supplier == NULL ? "supplier" : "consumer");
      return NULL;
    }

  id = realpath (devlink_dir, resolved) ? g_strdup (resolved) : g_strdup (devlink_dir);
  link = g_new0 (PpDevlink, 1);
  link->id = g_steal_pointer (&id);
  link->supplier = g_steal_pointer (&supplier);
  link->consumer = g_steal_pointer (&consumer);
  read_details (link, devlink_dir);
  return link;
}

/* The sorted names in @dir; none when it cannot be read. */
static GPtrArray *
sorted_entries (const char *dir)
{
  GPtrArray *names = pp_list_dir_sorted (dir, NULL);

  return names != NULL ? names : g_ptr_array_new_with_free_func (g_free);
}

GPtrArray *
pp_devlinks_read_all (const char           *class_dir,
                      PpDevlinkResolveFunc  resolve,
                      gpointer              user_data)
{
  g_autoptr(GPtrArray) names = sorted_entries (class_dir);
  GPtrArray *links = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_devlink_free);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *dir = g_build_filename (class_dir, g_ptr_array_index (names, i), NULL);
      PpDevlink *link = pp_devlink_read (dir, resolve, user_data);

      if (link != NULL)
        g_ptr_array_add (links, link);
    }
  return links;
}

GPtrArray *
pp_devlinks_read_device (const char           *syspath,
                         PpDevlinkResolveFunc  resolve,
                         gpointer              user_data)
{
  g_autoptr(GPtrArray) names = sorted_entries (syspath);
  GPtrArray *links = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_devlink_free);

  for (guint i = 0; i < names->len; i++)
    {
      const char *entry = g_ptr_array_index (names, i);
      gboolean is_supplier = g_str_has_prefix (entry, "supplier:");
      g_autofree char *path = NULL;
      char resolved[PATH_MAX];
      PpDevlink *link = NULL;

      if (!is_supplier && !g_str_has_prefix (entry, "consumer:"))
        continue;
      path = g_build_filename (syspath, entry, NULL);
      if (realpath (path, resolved) != NULL)
        link = pp_devlink_read (resolved, resolve, user_data);

      if (link == NULL && resolve != NULL)
        {
          /* the devlink directory is gone or unreadable: the entry's own
           * name still names the other end */
          Resolver r = { resolve, user_data };
          g_autofree char *bus = NULL;
          g_autofree char *name = NULL;
          g_autofree char *other = NULL;

          if (pp_devlink_end_parse (strchr (entry, ':') + 1, resolver_known, &r, &bus, &name))
            other = resolve (bus, name, user_data);
          if (other != NULL)
            {
              link = g_new0 (PpDevlink, 1);
              link->supplier = g_strdup (is_supplier ? other : syspath);
              link->consumer = g_strdup (is_supplier ? syspath : other);
              link->id = g_strdup_printf ("%s--%s", link->supplier, link->consumer);
              link->runtime_pm = -1;
            }
        }
      if (link == NULL)
        {
          g_debug ("Ignoring device link %s: its other end is missing", path);
          continue;
        }
      g_ptr_array_add (links, link);
    }
  return links;
}

/* ---- the device tree of sysfs -------------------------------------------- */

typedef struct {
  const char       *skip;      /* the device links' directory */
  PpDeviceWalkFunc  func;
  gpointer          user_data;
} Walk;

static void
walk_devices (Walk *w, const char *dir_path, const char *parent, guint depth)
{
  g_autoptr(GPtrArray) subdirs = g_ptr_array_new_with_free_func (g_free);
  gboolean has_uevent = FALSE, has_subsystem = FALSE, has_links = FALSE;
  struct dirent *entry;
  DIR *dir;

  /* sysfs is never this deep; a hostile tree does not get to recurse */
  if (depth > 64)
    return;
  dir = opendir (dir_path);
  if (dir == NULL)
    return;   /* vanished or unreadable: nothing below it */
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
        has_uevent = TRUE;
      else if (type == DT_LNK && g_str_equal (entry->d_name, "subsystem"))
        has_subsystem = TRUE;
      else if (type == DT_LNK && (g_str_has_prefix (entry->d_name, "supplier:") ||
                                  g_str_has_prefix (entry->d_name, "consumer:")))
        has_links = TRUE;
    }
  closedir (dir);

  /* what udev calls a device: a uevent file and a subsystem */
  if (depth > 0 && has_uevent && has_subsystem)
    {
      w->func (dir_path, parent, has_links, w->user_data);
      parent = dir_path;
    }
  g_ptr_array_sort (subdirs, pp_compare_strings);
  for (guint i = 0; i < subdirs->len; i++)
    {
      const char *sub = g_ptr_array_index (subdirs, i);

      /* device links are edges (pp_devlinks_read_all), not devices */
      if (!g_str_equal (sub, w->skip))
        walk_devices (w, sub, parent, depth + 1);
    }
}

void
pp_devlinks_walk_devices (const char       *root,
                          PpDeviceWalkFunc  func,
                          gpointer          user_data)
{
  g_autofree char *skip = g_build_filename (root, "virtual", "devlink", NULL);
  Walk w = { skip, func, user_data };

  walk_devices (&w, root, NULL, 0);
}
