/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-power-ops"

#include "config.h"

#include <string.h>

#include "pp-error.h"
#include "pp-names.h"
#include "pp-policy.h"
#include "pp-power-fields.h"
#include "pp-power-holds.h"
#include "pp-power-ops.h"
#include "pp-power-tree.h"
#include "pp-sysfs.h"
#include "pp-util.h"

/* A hard switch turned off by PowerDown(mode=off). */
typedef struct {
  char *path;                /* the attribute written */
  char *on_value;            /* what turns it back on */
} OffSwitch;

struct _PpPowerOps {
  GObject          parent_instance;
  PpManager       *manager;
  PpTokenRegistry *tokens;   /* the holds are counted here */
  PpPowerTree     *tree;     /* the power-dependency tree, read when needed */
  PpPowerHolds    *holds;
  GHashTable      *off;      /* syspath -> OffSwitch* */
};

G_DEFINE_TYPE (PpPowerOps, pp_power_ops, G_TYPE_OBJECT)

static PpTree *
get_tree (PpPowerOps *self)
{
  return pp_power_tree_get (self->tree);
}

/* ---- the state of a device in the walk ----------------------------------------------------- */

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
read_walk_state (PpPowerOps *self, const char *path, PpTreeNodeState *state)
{
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

/* The state of every device the PowerDown walk from @root asks about,
 * read before the walk (path -> PpTreeNodeState*, its stay_up a static
 * string), or NULL when @root is not in @tree. */
static GHashTable *
read_walk_states (PpPowerOps *self, PpTree *tree, const char *root)
{
  g_autoptr(GPtrArray) paths = pp_tree_get_dependent_closure (tree, root);
  GHashTable *states;

  if (paths == NULL)
    return NULL;
  states = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      PpTreeNodeState *state = g_new (PpTreeNodeState, 1);

      *state = (PpTreeNodeState) { TRUE, TRUE, FALSE, NULL };
      read_walk_state (self, path, state);
      g_hash_table_insert (states, g_strdup (path), state);
    }
  return states;
}

/* The walk's question, answered from what read_walk_states() read: no
 * I/O inside the walk. */
static void
walk_state (const char *path, PpTreeNodeState *state, gpointer user_data)
{
  const PpTreeNodeState *known = g_hash_table_lookup (user_data, path);

  if (known != NULL)
    *state = *known;
  else
    state->exists = FALSE;
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
 * undoes it), else its end. */
static gboolean
write_attr (PpPowerOps  *self,
            PpDevice    *dev,
            const char  *path,
            const char  *value,
            gboolean     off,
            GError     **error)
{
  return (off ? pp_manager_request_layer : pp_manager_end_layer) (self->manager,
                                                                  PP_PLAN_LAYER_POWER_OFF, dev,
                                                                  path, value,
                                                                  PP_MANAGER_WRITE_SETTING, error);
}

/* The row of a device whose write failed with @error: a device that
 * went away is skipped, not failed. */
static void
add_failure_row (Results *r, PpDevice *dev, const char *syspath, const GError *error)
{
  if (!device_exists (dev))
    add_row (r, syspath, "skipped", "device vanished");
  else
    add_row (r, syspath, "failed", error->message);
}

/* FALSE with @error (Refused) when a device below @path or one that
 * depends on it stayed up. */
static gboolean
check_dependents_down (PpPowerOps *self, Results *r, const char *path, GError **error)
{
  g_autoptr(GPtrArray) children = pp_tree_get_children (get_tree (self), path);
  g_autoptr(GPtrArray) consumers = pp_tree_get_consumers (get_tree (self), path);

  g_ptr_array_extend (children, consumers, NULL, NULL);
  for (guint i = 0; i < children->len; i++)
    {
      const char *dep = g_ptr_array_index (children, i);
      if (g_hash_table_contains (r->stayed_up, dep))
        {
          g_set_error (error, PP_ERROR, PP_ERROR_REFUSED, "kept up by %s", dep);
          return FALSE;
        }
    }
  return TRUE;
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
      add_failure_row (r, dev, syspath, error);
      return;
    }
  add_row (r, syspath, "suspended",
           has_delay ? "power/control=auto, power/autosuspend_delay_ms=0" : "power/control=auto");
}

/* Turn off the hard switch the device's facts name (read when it was
 * added: a USB port's disable, a PCI hotplug slot's power). */
static void
power_down_off (PpPowerOps *self, Results *r, PpDevice *dev)
{
  const PpDeviceFacts *facts = &dev->facts;
  const char *syspath = dev->info->syspath;
  g_autoptr(GError) error = NULL;
  g_autofree char *detail = NULL;
  OffSwitch *sw;

  if (facts->power_switch == NULL)
    {
      add_row (r, syspath, "skipped", facts->no_switch->message);
      return;
    }
  if (!write_attr (self, dev, facts->power_switch, facts->switch_off, TRUE, &error))
    {
      g_hash_table_add (r->stayed_up, g_strdup (syspath));
      add_failure_row (r, dev, syspath, error);
      return;
    }
  sw = g_new0 (OffSwitch, 1);
  sw->path = g_strdup (facts->power_switch);
  sw->on_value = g_strdup (facts->switch_on);
  g_hash_table_replace (self->off, g_strdup (syspath), sw);
  detail = g_strdup_printf ("%s=%s", facts->power_switch, facts->switch_off);
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
  g_autoptr(GHashTable) states = NULL;
  PpDevice *device;
  PpTree *tree;
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

  tree = get_tree (self);
  states = read_walk_states (self, tree, device->info->syspath);
  steps = states != NULL ? pp_tree_plan_power_down (tree, device->info->syspath, subtree,
                                                    walk_state, states, cycles)
                         : NULL;
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
      g_autoptr(GError) refused = NULL;

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
          else if (!check_dependents_down (self, &r, step->path, &refused))
            {
              g_hash_table_add (r.stayed_up, g_strdup (step->path));
              add_row (&r, step->path, "skipped", refused->message);
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
  OffSwitch *sw;

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
      g_autoptr(GError) error = NULL;

      if (!write_attr (self, dev, sw->path, sw->on_value, FALSE, &error))
        {
          add_failure_row (r, dev, syspath, error);
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
          add_failure_row (r, dev, syspath, error);
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

/* ---- holds and the device dictionary: their own files ---------------- */

gboolean
pp_power_ops_hold (PpPowerOps            *self,
                   const char            *device_arg,
                   const PpTokenRequest  *request,
                   int                   *out_fd,
                   GError               **error)
{
  return pp_power_holds_add (self->holds, device_arg, request, out_fd, error);
}

GPtrArray *
pp_power_ops_list_holds (PpPowerOps *self)
{
  return pp_power_holds_list (self->holds);
}

void
pp_power_ops_get_tree_fields (PpPowerOps   *self,
                              const char   *syspath,
                              const char   *control,
                              const char   *runtime_status,
                              PpBlockingMemo *memo,
                              GPtrArray   **suppliers,
                              GPtrArray   **consumers,
                              const char  **blocker)
{
  pp_power_fields_get (self->tree, self->manager, syspath, control, runtime_status, memo,
                       suppliers, consumers, blocker);
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

  g_clear_pointer (&self->holds, pp_power_holds_free);
  g_clear_pointer (&self->tree, pp_power_tree_free);
  g_clear_object (&self->manager);
  g_clear_pointer (&self->tokens, pp_token_registry_unref);
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
  self->off = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                     (GDestroyNotify) off_switch_free);
}

PpPowerOps *
pp_power_ops_new (PpManager *manager, PpTokenRegistry *tokens)
{
  PpPowerOps *self = g_object_new (PP_TYPE_POWER_OPS, NULL);

  self->manager = g_object_ref (manager);
  self->tokens = pp_token_registry_ref (tokens);
  self->tree = pp_power_tree_new (manager);
  self->holds = pp_power_holds_new (manager, self->tree, self->tokens);
  return self;
}
