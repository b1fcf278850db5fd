/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-power-ops"

#include "config.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gio/gunixfdlist.h>

#include "pp-devlinks.h"
#include "pp-error.h"
#include "pp-log.h"
#include "pp-names.h"
#include "pp-policy.h"
#include "pp-power-ops.h"
#include "pp-power-state.h"
#include "pp-token.h"
#include "pp-sysfs.h"
#include "pp-util.h"

typedef struct {
  PpPowerOps *self;          /* unowned: the hold lives in self->holds */
  char       *device;
  char       *who;
  char       *why;
  guint32     pid;
  GPtrArray  *paths;         /* what the hold keeps up, as given to the manager */
  PpToken    *token;
} Hold;

/* A hard switch turned off by PowerDown(mode=off). */
typedef struct {
  char *path;                /* the attribute written */
  char *on_value;            /* what turns it back on */
} OffSwitch;

struct _PpPowerOps {
  GObject     parent_instance;
  PpManager  *manager;
  PpTokenRegistry *tokens;   /* the holds are counted here */
  PpTree     *tree;          /* read from sysfs when needed (get_tree), or NULL */
  GHashTable *no_control;    /* the tree's paths found without power/control, while it lives */
  gint64      tree_used;     /* monotonic time of its last use */
  guint       tree_timeout;  /* drops it after TREE_KEEP_SEC unused */
  GPtrArray  *with_links;    /* while building: devices with supplier:/consumer: links */
  GHashTable *removed;       /* syspaths udev removed that sysfs still showed */
  GPtrArray  *holds;         /* Hold* */
  GHashTable *off;           /* syspath -> OffSwitch* */
};

G_DEFINE_TYPE (PpPowerOps, pp_power_ops, G_TYPE_OBJECT)

/* ---- the tree, read from sysfs when needed -----------------------------
 *
 * The manager keeps only the devices it manages. The power-dependency tree
 * (every device of /sys/devices, its parent, the device links) is read
 * from sysfs when an operation needs it, kept while it is in use and
 * dropped TREE_KEEP_SEC after its last use, or at once when a uevent
 * adds, removes or moves a device.
 */

#define TREE_KEEP_SEC 10
#define REMOVED_PRUNE_AT 64

static char *
resolve_devlink_end (const char *bus, const char *name, gpointer user_data)
{
  PpPowerOps *self = user_data;
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
add_link (PpPowerOps *self, PpDevlink *link)
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
  PpPowerOps *self = user_data;

  /* udev said it is gone; sysfs may not have caught up */
  if (g_hash_table_contains (self->removed, syspath))
    return;
  pp_tree_add_node (self->tree, syspath, parent);
  if (has_links)
    g_ptr_array_add (self->with_links, g_strdup (syspath));
}

static void
drop_tree (PpPowerOps *self)
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
  PpPowerOps *self = user_data;

  if (g_get_monotonic_time () - self->tree_used < TREE_KEEP_SEC * G_USEC_PER_SEC)
    return G_SOURCE_CONTINUE;
  self->tree_timeout = 0;
  drop_tree (self);
  return G_SOURCE_REMOVE;
}

/* udev's word for removals that sysfs still shows, while it does */
static void
prune_removed (PpPowerOps *self)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, self->removed);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_file_test (key, G_FILE_TEST_IS_DIR))
      g_hash_table_iter_remove (&iter);
}

static void
build_tree (PpPowerOps *self)
{
  GPtrArray *devices = pp_manager_list_devices (self->manager);
  g_autoptr(GPtrArray) links = NULL;

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

  links = pp_devlinks_read_all (PP_SYSFS_CLASS_DEVLINK, resolve_devlink_end, self);
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
  g_clear_pointer (&self->with_links, g_ptr_array_unref);
  g_debug ("Power-dependency tree read from sysfs: %u devices, %u device links",
           pp_tree_get_n_nodes (self->tree), pp_tree_get_n_links (self->tree));
}

/* The tree, read now if it is not at hand. */
static PpTree *
get_tree (PpPowerOps *self)
{
  if (self->tree == NULL)
    build_tree (self);
  self->tree_used = g_get_monotonic_time ();
  if (self->tree_timeout == 0)
    self->tree_timeout = g_timeout_add_seconds (TREE_KEEP_SEC, on_tree_timeout, self);
  return self->tree;
}

static void
on_topology_changed (PpManager *manager, const char *action, const char *syspath, PpPowerOps *self)
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

/* ---- device facts ----------------------------------------------------- */

static gboolean
device_exists (PpDevice *dev)
{
  return dev != NULL && g_file_test (dev->info->syspath, G_FILE_TEST_IS_DIR);
}

static gboolean
has_attr (const char *syspath, const char *relpath)
{
  g_autofree char *path = g_build_filename (syspath, relpath, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

static gboolean
is_input_device (PpDevice *dev)
{
  const char *klass = dev->props.klass;

  return g_strcmp0 (pp_device_info_get_property (dev->info, "ID_INPUT"), "1") == 0 ||
         g_str_equal (dev->info->subsystem, "input") ||
         g_str_equal (dev->info->subsystem, "hid") ||
         g_str_equal (klass, "hid") || g_str_has_suffix (klass, "-hid");
}

/* Why @dev must stay up, or NULL. */
static const char *
stay_up_reason (PpPowerOps *self, PpDevice *dev)
{
  g_autofree char *excluded = NULL;

  if (dev->props.ignore)
    return "POWERPOLICY_IGNORE=1";
  /* its driver runs its runtime PM: nothing is written to it */
  excluded = pp_manager_get_exclusion (self->manager, dev);
  if (excluded != NULL)
    return "its driver is excluded (ExcludeDrivers=)";
  if (pp_manager_is_held (self->manager, dev->info->syspath))
    return "held";
  if (dev->props.autosuspend == PP_TRISTATE_NO)
    return "POWERPOLICY_AUTOSUSPEND=0";
  if (is_input_device (dev))
    {
      g_autofree char *control = pp_manager_get_decided_value (self->manager, dev, PP_ATTR_CONTROL);
      if (g_strcmp0 (control, "on") == 0)
        return "input device the policy keeps on";
    }
  return NULL;
}

static void
walk_state (const char *path, PpTreeNodeState *state, gpointer user_data)
{
  PpPowerOps *self = user_data;
  PpDevice *dev = pp_manager_get_tree_device (self->manager, path);
  g_autofree char *control = NULL;
  g_autofree char *status = NULL;

  state->exists = device_exists (dev);
  if (!state->exists)
    return;
  state->stay_up = stay_up_reason (self, dev);
  control = pp_sysfs_read_opt (path, PP_ATTR_CONTROL);
  status = pp_sysfs_read_opt (path, "power/runtime_status");
  state->can_suspend = control != NULL;
  state->down = g_strcmp0 (control, "auto") == 0 || g_strcmp0 (status, "suspended") == 0 ||
                g_hash_table_contains (self->off, path);
}

/* ---- writing ---------------------------------------------------------- */

typedef struct {
  GPtrArray      *rows;        /* PpPowerResult* */
  GHashTable     *stayed_up;   /* paths that were to go down but did not */
} Results;

void
pp_power_result_free (PpPowerResult *result)
{
  if (result == NULL)
    return;
  g_free (result->path);
  g_free (result->status);
  g_free (result->detail);
  g_free (result);
}

static void
add_row (Results *r, const char *path, const char *status, const char *detail)
{
  PpPowerResult *row = g_new0 (PpPowerResult, 1);

  g_debug ("%s: %s%s%s", path, status, detail && *detail ? ": " : "", detail ? detail : "");
  row->path = g_strdup (path);
  row->status = g_strdup (status);
  row->detail = g_strdup (detail ? detail : "");
  g_ptr_array_add (r->rows, row);
}

static void
results_init (Results *r)
{
  r->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_power_result_free);
  r->stayed_up = NULL;
}

/* Write a switch through the manager's plan/execute (journalled, so
 * that stopping the daemon or a restart after a crash puts the original
 * back): @off, the power-off layer's standing request (no policy pass
 * undoes it), else its end. FALSE with @detail set; @vanished tells a
 * device that went away from a real failure. */
static gboolean
write_attr (PpPowerOps  *self,
            PpDevice    *dev,
            const char  *path,
            const char  *value,
            gboolean     off,
            char       **detail,
            gboolean    *vanished)
{
  g_autoptr(GError) error = NULL;

  *vanished = FALSE;
  if ((off ? pp_manager_request_layer : pp_manager_end_layer) (self->manager,
                                                               PP_PLAN_LAYER_POWER_OFF, dev, path,
                                                               value, PP_MANAGER_WRITE_SETTING,
                                                               &error))
    return TRUE;
  if (!device_exists (dev))
    {
      *vanished = TRUE;
      *detail = g_strdup ("device vanished");
    }
  else
    {
      *detail = g_strdup (error->message);
    }
  return FALSE;
}

/* USB device "1-1.2" sits on port 2 of hub "1-1": the switch is
 * <hub>/<hub interface>/1-1-port2/disable; on a root hub's port ("1-3"),
 * usb1/1-0:1.0/usb1-port3/disable (sysfs-bus-usb). */
static char *
usb_port_disable_path (PpDevice *dev, char **why_not)
{
  const char *name = dev->info->sysname;
  const char *dot = strrchr (name, '.');
  const char *dash = strchr (name, '-');
  const char *parent = pp_device_info_get_parent (dev->info);
  g_autofree char *hub = NULL;
  g_autofree char *port_dir = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *entry;
  guint64 port;

  if (g_strcmp0 (dev->info->devtype, "usb_device") != 0 || dash == NULL || parent == NULL)
    {
      *why_not = g_strdup ("not a USB device on a hub port (a root hub or an interface has no port switch)");
      return NULL;
    }
  if (!g_ascii_string_to_unsigned (dot ? dot + 1 : dash + 1, 10, 1, 255, &port, NULL))
    {
      *why_not = g_strdup_printf ("cannot tell the port of USB device %s", name);
      return NULL;
    }
  hub = dot ? g_strndup (name, dot - name) : g_strdup_printf ("usb%.*s", (int) (dash - name), name);
  port_dir = g_strdup_printf ("%s-port%u", hub, (guint) port);

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
  *why_not = g_strdup_printf ("no USB port switch (%s/disable) under %s",
                              port_dir, parent);
  return NULL;
}

/* The PCI hotplug slot whose address is this device's bus:slot. Real
 * slots live in /sys/bus/pci/slots, outside /sys/devices, where the
 * daemon never writes: such a slot is reported, not switched. */
static char *
pci_slot_power_path (PpDevice *dev, char **why_not)
{
  const char *name = dev->info->sysname;
  const char *dot = strrchr (name, '.');
  g_autofree char *address = dot ? g_strndup (name, dot - name) : NULL;
  g_autoptr(GDir) dir = g_dir_open ("/sys/bus/pci/slots", 0, NULL);
  const char *entry;

  while (address != NULL && dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *slot = g_build_filename ("/sys/bus/pci/slots", entry, NULL);
      g_autofree char *slot_address = pp_sysfs_read_opt (slot, "address");
      g_autofree char *power = NULL;
      char resolved[PATH_MAX];

      if (g_strcmp0 (slot_address, address) != 0)
        continue;
      power = g_build_filename (slot, "power", NULL);
      if (!g_file_test (power, G_FILE_TEST_EXISTS))
        {
          *why_not = g_strdup_printf ("PCI slot %s has no power switch", entry);
          return NULL;
        }
      if (realpath (power, resolved) == NULL ||
          !pp_sysfs_path_is_under (resolved, PP_SYSFS_DEVICES))
        {
          *why_not = g_strdup_printf ("the power switch of PCI hotplug slot %s (%s) lies outside "
                                      "/sys/devices, where powerpolicyd never writes",
                                      entry, power);
          return NULL;
        }
      return g_strdup (resolved);
    }
  *why_not = g_strdup ("no PCI hotplug slot with a power switch");
  return NULL;
}

static gboolean
kept_up_by_failure (PpPowerOps *self, Results *r, const char *path, char **detail)
{
  g_autoptr(GPtrArray) children = pp_tree_get_children (get_tree (self), path);
  g_autoptr(GPtrArray) consumers = pp_tree_get_consumers (get_tree (self), path);

  g_ptr_array_extend (children, consumers, NULL, NULL);
  for (guint i = 0; i < children->len; i++)
    {
      const char *dep = g_ptr_array_index (children, i);
      if (g_hash_table_contains (r->stayed_up, dep))
        {
          *detail = g_strdup_printf ("kept up by %s", dep);
          return TRUE;
        }
    }
  return FALSE;
}

static void
power_down_auto (PpPowerOps *self, Results *r, PpDevice *dev)
{
  const char *syspath = dev->info->syspath;
  g_autoptr(GError) error = NULL;
  /* readable: a real kernel refuses the delay of a device that does not
   * use autosuspend, and nothing is written to it then */
  g_autofree char *delay = pp_sysfs_read_opt (syspath, PP_ATTR_DELAY);
  gboolean has_delay = delay != NULL;

  if (!has_attr (syspath, PP_ATTR_CONTROL))
    {
      add_row (r, syspath, "skipped", "no runtime power management (no power/control)");
      return;
    }
  /* a layer of the manager: later policy passes keep it until PowerUp,
   * the originals are recorded (PowerUp puts back what no layer sets),
   * and the manager emits DeviceChanged */
  if (!pp_manager_set_powered_down (self->manager, dev, TRUE, &error))
    {
      g_hash_table_add (r->stayed_up, g_strdup (syspath));
      if (!device_exists (dev))
        add_row (r, syspath, "skipped", "device vanished");
      else
        add_row (r, syspath, "failed", error->message);
      return;
    }
  add_row (r, syspath, "suspended",
           has_delay ? "power/control=auto, power/autosuspend_delay_ms=0" : "power/control=auto");
}

static void
power_down_off (PpPowerOps *self, Results *r, PpDevice *dev)
{
  const char *syspath = dev->info->syspath;
  g_autofree char *why_not = NULL;
  g_autofree char *path = NULL;
  g_autofree char *detail = NULL;
  const char *off_value, *on_value;
  OffSwitch *sw;
  gboolean vanished;

  if (g_str_equal (dev->info->subsystem, "usb"))
    {
      path = usb_port_disable_path (dev, &why_not);
      off_value = "1";
      on_value = "0";
    }
  else if (g_str_equal (dev->info->subsystem, "pci"))
    {
      path = pci_slot_power_path (dev, &why_not);
      off_value = "0";
      on_value = "1";
    }
  else
    {
      why_not = g_strdup_printf ("no hard power switch for a %s device",
                                 *dev->info->subsystem ? dev->info->subsystem : "bus-less");
      off_value = on_value = NULL;
    }
  if (path == NULL)
    {
      add_row (r, syspath, "skipped", why_not);
      return;
    }
  if (!write_attr (self, dev, path, off_value, TRUE, &detail, &vanished))
    {
      g_hash_table_add (r->stayed_up, g_strdup (syspath));
      add_row (r, syspath, vanished ? "skipped" : "failed", detail);
      return;
    }
  sw = g_new0 (OffSwitch, 1);
  sw->path = g_strdup (path);
  sw->on_value = g_strdup (on_value);
  g_hash_table_replace (self->off, g_strdup (syspath), sw);
  detail = g_strdup_printf ("%s=%s", path, off_value);
  add_row (r, syspath, "off", detail);
}

GPtrArray *
pp_power_ops_power_down (PpPowerOps  *self,
                         const char  *device_arg,
                         gboolean     subtree,
                         const char  *mode,
                         GError     **error)
{
  g_autoptr(GPtrArray) cycles = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) steps = NULL;
  PpDevice *device;
  gboolean off;
  Results r;

  if (g_strcmp0 (mode, "auto") == 0)
    off = FALSE;
  else if (g_strcmp0 (mode, "off") == 0)
    off = TRUE;
  else
    {
      g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                   "unknown mode '%s' (expected auto or off)", mode ? mode : "");
      return NULL;
    }
  device = pp_manager_resolve_device (self->manager, device_arg, error);
  if (device == NULL)
    return NULL;

  steps = pp_tree_plan_power_down (get_tree (self), device->info->syspath, subtree,
                                   walk_state, self, cycles);
  if (steps == NULL)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE,
                   "%s is not in the power-dependency tree", device->info->syspath);
      return NULL;
    }
  for (guint i = 0; i < cycles->len; i++)
    g_warning ("Device link cycle (walked once, not followed round): %s",
               (char *) g_ptr_array_index (cycles, i));

  g_info ("PowerDown %s%s, mode %s: %u devices", device->info->syspath,
          subtree ? " with its subtree" : "", mode, steps->len);
  results_init (&r);
  r.stayed_up = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < steps->len; i++)
    {
      PpTreeStep *step = g_ptr_array_index (steps, i);
      PpDevice *dev = pp_manager_get_tree_device (self->manager, step->path);
      g_autofree char *detail = NULL;

      switch (step->action)
        {
        case PP_TREE_STEP_SKIP:
          g_hash_table_add (r.stayed_up, g_strdup (step->path));
          add_row (&r, step->path, "skipped", step->reason);
          break;
        case PP_TREE_STEP_PASS:
          add_row (&r, step->path, "skipped", step->reason);
          break;
        case PP_TREE_STEP_DOWN:
        default:
          if (!device_exists (dev))
            add_row (&r, step->path, "skipped", "device vanished");
          else if (kept_up_by_failure (self, &r, step->path, &detail))
            {
              g_hash_table_add (r.stayed_up, g_strdup (step->path));
              add_row (&r, step->path, "skipped", detail);
            }
          else if (off)
            power_down_off (self, &r, dev);
          else
            power_down_auto (self, &r, dev);
          break;
        }
    }
  g_hash_table_unref (r.stayed_up);
  return r.rows;
}

static void
power_up_one (PpPowerOps *self, Results *r, const char *syspath)
{
  PpDevice *dev = pp_manager_get_tree_device (self->manager, syspath);
  g_autoptr(GString) done = g_string_new (NULL);
  g_autofree char *detail = NULL;
  OffSwitch *sw;
  gboolean vanished;

  if (!device_exists (dev))
    {
      add_row (r, syspath, "skipped", "device vanished");
      return;
    }
  if (dev->props.ignore)
    {
      add_row (r, syspath, "skipped", "POWERPOLICY_IGNORE=1");
      return;
    }

  sw = g_hash_table_lookup (self->off, syspath);
  if (sw != NULL)
    {
      if (!write_attr (self, dev, sw->path, sw->on_value, FALSE, &detail, &vanished))
        {
          add_row (r, syspath, vanished ? "skipped" : "failed", detail);
          return;
        }
      g_string_append_printf (done, "%s=%s", sw->path, sw->on_value);
      g_hash_table_remove (self->off, syspath);
    }

  /* PowerDown's layer goes; the device is resumed: its layers
   * (overrides included) apply with control=on, and hand_back gives it
   * to the policy once every device of the walk is up */
  if (has_attr (syspath, PP_ATTR_CONTROL))
    {
      g_autoptr(GPtrArray) decided = NULL;
      g_autoptr(GError) error = NULL;

      if (!pp_manager_power_up_device (self->manager, dev, &decided, &error))
        {
          add_row (r, syspath, device_exists (dev) ? "failed" : "skipped",
                   device_exists (dev) ? error->message : "device vanished");
          return;
        }
      for (guint i = 0; i < decided->len; i++)
        {
          const char *entry = g_ptr_array_index (decided, i);
          if (g_str_has_prefix (entry, PP_ATTR_CONTROL "=") ||
              g_str_has_prefix (entry, PP_ATTR_DELAY "="))
            g_string_append_printf (done, "%s%s", done->len ? ", " : "", entry);
        }
    }
  else
    {
      /* nothing to turn on, but PowerDown's layer goes all the same */
      pp_manager_set_powered_down (self->manager, dev, FALSE, NULL);
    }

  if (done->len == 0)
    add_row (r, syspath, "skipped", "no runtime power management");
  else
    add_row (r, syspath, "on", done->str);
}

/* After the walk woke every device (ancestors and suppliers first), the
 * policy's values apply again at once to each one resumed: a device the
 * policy lets autosuspend is power/control=auto with its delay again
 * (powerpolicyd(8), POWER-DEPENDENCY TREE). Its row says what the policy
 * put back when that is not "on". */
static void
hand_back (PpPowerOps *self, PpPowerResult *row)
{
  PpDevice *dev = pp_manager_get_tree_device (self->manager, row->path);
  g_autoptr(GError) error = NULL;
  g_autofree char *control = NULL;
  char *detail;

  if (!g_str_equal (row->status, "on") || !device_exists (dev) ||
      !has_attr (row->path, PP_ATTR_CONTROL))
    return;
  if (!pp_manager_set_powered_down (self->manager, dev, FALSE, &error))
    {
      detail = g_strdup_printf ("%s; the policy's values: %s", row->detail, error->message);
      g_free (row->detail);
      row->detail = detail;
      g_free (row->status);
      row->status = g_strdup (device_exists (dev) ? "failed" : "skipped");
      return;
    }
  control = pp_manager_get_decided_value (self->manager, dev, PP_ATTR_CONTROL);
  if (control == NULL || g_str_equal (control, "on"))
    return;
  detail = g_strdup_printf ("%s; then the policy: %s=%s", row->detail, PP_ATTR_CONTROL, control);
  g_free (row->detail);
  row->detail = detail;
}

/* Turn a switch back on whose device is gone: on real hardware writing
 * a port's "disable" disconnects the device behind it, so PowerUp finds
 * only the switch PowerDown(off) left. */
static void
power_up_vanished (PpPowerOps *self, Results *r, const char *syspath)
{
  OffSwitch *sw = g_hash_table_lookup (self->off, syspath);
  g_autoptr(GError) error = NULL;
  g_autofree char *detail = NULL;

  if (sw == NULL)
    return;
  if (!pp_manager_end_layer (self->manager, PP_PLAN_LAYER_POWER_OFF, NULL, sw->path,
                             sw->on_value, PP_MANAGER_WRITE_SETTING, &error))
    {
      add_row (r, syspath, "failed", error->message);
      return;
    }
  detail = g_strdup_printf ("%s=%s", sw->path, sw->on_value);
  add_row (r, syspath, "on", detail);
  g_hash_table_remove (self->off, syspath);
}

/* The switched-off devices that are no longer in the tree: @root itself
 * (@root NULL: by sysname @name) or, with @subtree, any below @root. */
static GPtrArray *
vanished_switched_off (PpPowerOps *self, const char *root, const char *name, gboolean subtree)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, self->off);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const char *path = key;
      g_autofree char *base = g_path_get_basename (path);
      gboolean match;

      if (pp_tree_contains (get_tree (self), path))
        continue;
      if (root == NULL)
        match = g_str_equal (base, name) || g_str_equal (path, name);
      else
        match = g_str_equal (path, root) ||
                (subtree && g_str_has_prefix (path, root) && path[strlen (root)] == '/');
      if (match)
        g_ptr_array_add (out, g_strdup (path));
    }
  g_ptr_array_sort (out, pp_compare_strings);
  return out;
}

static GPtrArray *
power_up_device (PpPowerOps *self, PpDevice *device, gboolean subtree)
{
  g_autoptr(GPtrArray) cycles = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) order = pp_tree_plan_power_up (get_tree (self), device->info->syspath,
                                                      subtree, cycles);
  Results r;

  results_init (&r);
  for (guint i = 0; i < cycles->len; i++)
    g_warning ("Device link cycle (walked once, not followed round): %s",
               (char *) g_ptr_array_index (cycles, i));
  g_info ("PowerUp %s%s: %u devices", device->info->syspath,
          subtree ? " with its subtree" : "", order ? order->len : 0);
  for (guint i = 0; order != NULL && i < order->len; i++)
    {
      /* the path is the tree's; copy it, writing may not change the tree
       * but the row outlives nothing of it */
      g_autofree char *path = g_strdup (g_ptr_array_index (order, i));
      power_up_one (self, &r, path);
    }
  for (guint i = 0; i < r.rows->len; i++)
    hand_back (self, g_ptr_array_index (r.rows, i));
  /* devices below that went away when their port was switched off come
   * after their parents are up */
  {
    g_autoptr(GPtrArray) gone = vanished_switched_off (self, device->info->syspath, NULL, subtree);
    for (guint i = 0; i < gone->len; i++)
      power_up_vanished (self, &r, g_ptr_array_index (gone, i));
  }
  return r.rows;
}

GPtrArray *
pp_power_ops_power_up (PpPowerOps  *self,
                       const char  *device_arg,
                       gboolean     subtree,
                       GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  PpDevice *dev = pp_manager_resolve_device (self->manager, device_arg, &local_error);

  if (dev == NULL && g_error_matches (local_error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE))
    {
      /* a device PowerDown(off) switched off is gone from sysfs: its
       * switch still answers to the name it had */
      g_autoptr(GPtrArray) gone = vanished_switched_off (self, NULL, device_arg, subtree);

      if (gone->len > 0)
        {
          Results r;

          results_init (&r);
          for (guint i = 0; i < gone->len; i++)
            power_up_vanished (self, &r, g_ptr_array_index (gone, i));
          return r.rows;
        }
    }
  if (dev == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  return power_up_device (self, dev, subtree);
}

/* ---- holds ------------------------------------------------------------ */

static void
hold_free (Hold *hold)
{
  pp_token_free (hold->token);
  g_free (hold->device);
  g_free (hold->who);
  g_free (hold->why);
  g_ptr_array_unref (hold->paths);
  g_free (hold);
}

/* The holder closed its fd or died. */
static void
on_hold_released (gpointer user_data)
{
  Hold *hold = user_data;

  pp_log_hold (FALSE, hold->device, hold->who, hold->why, hold->pid);
  /* the policy returns; this frees @hold */
  g_ptr_array_remove (hold->self->holds, hold);
}

static void
hold_release (PpPowerOps *self, Hold *hold)
{
  g_autoptr(GError) error = NULL;

  if (!pp_manager_set_held (self->manager, hold->paths, FALSE, &error))
    g_warning ("Releasing the hold on %s: %s", hold->device, error->message);
}

static void
holds_element_free (gpointer data)
{
  Hold *hold = data;

  if (hold->self != NULL)
    hold_release (hold->self, hold);
  hold_free (hold);
}

gboolean
pp_power_ops_hold (PpPowerOps            *self,
                   const char            *device_arg,
                   const PpTokenRequest  *request,
                   int                   *out_fd,
                   GError               **error)
{
  g_autoptr(GError) local_error = NULL;
  GPtrArray *prerequisites;
  PpDevice *dev;
  Hold *hold;

  if (!pp_token_check_text (request->who, request->why, error))
    return FALSE;
  dev = pp_manager_resolve_device (self->manager, device_arg, error);
  if (dev == NULL)
    return FALSE;

  hold = g_new0 (Hold, 1);
  hold->token = pp_token_new (self->tokens, request->uid, on_hold_released, hold, out_fd, error);
  if (hold->token == NULL)
    {
      g_free (hold);
      return FALSE;
    }
  hold->device = g_strdup (dev->info->syspath);
  hold->who = g_strdup (request->who);
  hold->why = g_strdup (request->why);
  hold->pid = request->pid;
  hold->paths = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (hold->paths, g_strdup (hold->device));
  prerequisites = pp_tree_get_prerequisites (get_tree (self), hold->device);
  for (guint i = 0; i < prerequisites->len; i++)
    g_ptr_array_add (hold->paths, g_strdup (g_ptr_array_index (prerequisites, i)));
  g_ptr_array_unref (prerequisites);

  if (!pp_manager_set_held (self->manager, hold->paths, TRUE, &local_error))
    g_warning ("Hold on %s: %s (the hold stays, the policy retries)", hold->device,
               local_error->message);
  hold->self = self;
  g_ptr_array_add (self->holds, hold);
  pp_log_hold (TRUE, hold->device, hold->who, hold->why, hold->pid);
  g_debug ("The hold on %s keeps %u devices it depends on on", hold->device,
           hold->paths->len - 1);
  return TRUE;
}

GPtrArray *
pp_power_ops_list_holds (PpPowerOps *self)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_token_info_free);

  for (guint i = 0; i < self->holds->len; i++)
    {
      Hold *hold = g_ptr_array_index (self->holds, i);

      g_ptr_array_add (out, pp_token_info_new ("hold", hold->who, hold->why,
                                               hold->device, hold->pid));
    }
  return out;
}

#define EXPLAIN_MAX_HOLDS 8

/* Explain's origin of a hold on @syspath: every hold that keeps it on,
 * the device itself held or something that depends on it. */
static char *
describe_holds (PpManager *manager, const char *syspath, gpointer user_data)
{
  PpPowerOps *self = user_data;
  g_autoptr(GString) s = NULL;
  guint n = 0;

  for (guint i = 0; i < self->holds->len; i++)
    {
      Hold *hold = g_ptr_array_index (self->holds, i);
      gboolean covers = FALSE;

      for (guint j = 0; j < hold->paths->len && !covers; j++)
        covers = g_str_equal (g_ptr_array_index (hold->paths, j), syspath);
      if (!covers)
        continue;
      /* holds are many only when callers make them so: a bounded answer */
      if (++n > EXPLAIN_MAX_HOLDS)
        continue;
      if (s == NULL)
        s = g_string_new (NULL);
      else
        g_string_append (s, "; ");
      g_string_append_printf (s, "held by %s (%s), pid %u", hold->who, hold->why, hold->pid);
      if (!g_str_equal (hold->device, syspath))
        g_string_append_printf (s, ", for %s", hold->device);
    }
  if (n > EXPLAIN_MAX_HOLDS)
    g_string_append_printf (s, "; and %u more holds", n - EXPLAIN_MAX_HOLDS);
  return s != NULL ? g_string_free (g_steal_pointer (&s), FALSE) : NULL;
}

/* ---- device dictionary fields ----------------------------------------- */

typedef struct {
  PpPowerOps *self;
  GHashTable *memo;          /* path -> BLOCKING_YES/NO, or NULL */
} BlockerCtx;

enum { BLOCKING_NO = 1, BLOCKING_YES = 2 };

GHashTable *
pp_power_ops_blocking_memo_new (void)
{
  return g_hash_table_new (g_str_hash, g_str_equal);
}

static gboolean
state_blocks (const char *runtime_status, const char *control, gboolean held)
{
  return g_strcmp0 (runtime_status, "active") == 0 && (held || g_strcmp0 (control, "on") == 0);
}

void
pp_power_ops_blocking_memo_add (GHashTable *memo,
                                const char *syspath,
                                const char *runtime_status,
                                const char *control,
                                gboolean    held)
{
  g_hash_table_insert (memo, (gpointer) syspath,
                       GINT_TO_POINTER (state_blocks (runtime_status, control, held) ?
                                        BLOCKING_YES : BLOCKING_NO));
}

/* Active and not allowed to suspend. */
static gboolean
is_blocking (const char *path, gpointer user_data)
{
  BlockerCtx *ctx = user_data;
  char control[PP_POWER_STATE_MAX], status[PP_POWER_STATE_MAX];
  gboolean blocking;
  gpointer known;

  if (ctx->memo != NULL && (known = g_hash_table_lookup (ctx->memo, path)) != NULL)
    return GPOINTER_TO_INT (known) == BLOCKING_YES;
  /* control first: most devices the policy does not manage (USB
   * interfaces, SCSI targets, block devices) have none, and then one
   * read answers. That a device has no power/control is kept while the
   * tree lives (the kernel makes the attribute when it adds the device;
   * any add, remove or move drops the tree): later answers do not look
   * again. Values are never kept. */
  if (pp_manager_is_held (ctx->self->manager, path))
    blocking = TRUE;
  else if (g_hash_table_contains (ctx->self->no_control, path))
    blocking = FALSE;
  else if (!pp_power_state_read_one (path, "control", control))
    {
      /* @path is the tree's, like the table */
      g_hash_table_add (ctx->self->no_control, (gpointer) path);
      blocking = FALSE;
    }
  else
    blocking = g_str_equal (control, "on");
  if (blocking)
    blocking = pp_power_state_read_one (path, "runtime_status", status) &&
               g_str_equal (status, "active");
  /* @path is the tree's: it lives as long as the tree, longer than @memo */
  if (ctx->memo != NULL)
    g_hash_table_insert (ctx->memo, (gpointer) path,
                         GINT_TO_POINTER (blocking ? BLOCKING_YES : BLOCKING_NO));
  return blocking;
}

void
pp_power_ops_get_tree_fields (PpPowerOps   *self,
                              const char   *syspath,
                              const char   *control,
                              const char   *runtime_status,
                              GHashTable   *memo,
                              GPtrArray   **suppliers,
                              GPtrArray   **consumers,
                              const char  **blocker)
{
  PpTree *tree = get_tree (self);

  *suppliers = pp_tree_get_suppliers (tree, syspath);
  *consumers = pp_tree_get_consumers (tree, syspath);
  *blocker = NULL;
  if (g_strcmp0 (control, "auto") == 0 && g_strcmp0 (runtime_status, "active") == 0)
    {
      BlockerCtx ctx = { self, memo };
      *blocker = pp_tree_find_blocker (tree, syspath, is_blocking, &ctx);
    }
}

/* ---- GObject ---------------------------------------------------------- */

static void
off_switch_free (OffSwitch *sw)
{
  g_free (sw->path);
  g_free (sw->on_value);
  g_free (sw);
}

static void
pp_power_ops_finalize (GObject *object)
{
  PpPowerOps *self = PP_POWER_OPS (object);

  /* at exit the manager restores or keeps the policy itself: holds go
   * without another round of writes */
  for (guint i = 0; i < self->holds->len; i++)
    ((Hold *) g_ptr_array_index (self->holds, i))->self = NULL;
  g_ptr_array_unref (self->holds);
  pp_manager_set_hold_hook (self->manager, NULL, NULL);
  g_signal_handlers_disconnect_by_data (self->manager, self);
  g_clear_object (&self->manager);
  g_clear_pointer (&self->tokens, pp_token_registry_unref);
  g_clear_handle_id (&self->tree_timeout, g_source_remove);
  g_clear_pointer (&self->no_control, g_hash_table_unref);
  g_clear_pointer (&self->tree, pp_tree_free);
  g_hash_table_unref (self->removed);
  g_hash_table_unref (self->off);
  G_OBJECT_CLASS (pp_power_ops_parent_class)->finalize (object);
}

static void
pp_power_ops_class_init (PpPowerOpsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pp_power_ops_finalize;
}

static void
pp_power_ops_init (PpPowerOps *self)
{
  self->removed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->holds = g_ptr_array_new_with_free_func (holds_element_free);
  self->off = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                     (GDestroyNotify) off_switch_free);
}

PpPowerOps *
pp_power_ops_new (PpManager *manager, PpTokenRegistry *tokens)
{
  PpPowerOps *self = g_object_new (PP_TYPE_POWER_OPS, NULL);

  self->manager = g_object_ref (manager);
  self->tokens = pp_token_registry_ref (tokens);
  g_signal_connect (manager, "topology-changed", G_CALLBACK (on_topology_changed), self);
  pp_manager_set_hold_hook (manager, describe_holds, self);
  return self;
}
