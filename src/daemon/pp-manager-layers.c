/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The layers of the manager (pp-manager-layers.h): the decision for a
 * device (policy layers, overrides, holds, PowerDown, PowerUp), what it
 * plans, and what is told about it: Explain, the decided value, the
 * exclusion, what changed. */
#define G_LOG_DOMAIN "pp-manager"

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "pp-conflicts.h"
#include "pp-error.h"
#include "pp-foreign.h"
#include "pp-log.h"
#include "pp-manager-layers.h"
#include "pp-names.h"
#include "pp-overrides.h"
#include "pp-restore.h"
#include "pp-sysfs.h"
#include "pp-util.h"

struct _PpLayers {
  /* the manager's, which owns this and outlives it */
  PpManager         *manager;        /* passed to the hooks */
  PpDeviceTable     *table;
  PpExecutor        *executor;
  PpOverrides       *overrides;
  PpProfileState    *profile;
  const PpSituation *situation;
  const PpConfig    *config;         /* pp_layers_set_config() */

  GHashTable        *held;           /* syspath -> number of holds keeping it on */
  GHashTable        *reverted;       /* syspath -> number of Reverts putting it back */
  GHashTable        *powered_down;   /* syspaths PowerDown(auto) allowed to suspend */
  PpManagerHoldHook  hold_hook;      /* who holds a device, for Explain */
  gpointer           hold_hook_data;
  PpManagerHoldHook  revert_hook;    /* who reverts a device, for Explain */
  gpointer           revert_hook_data;
};

static char *revert_origin (PpLayers *self, const char *syspath);
static char *hold_origin (PpLayers *self, const char *syspath);

PpLayers *
pp_layers_new (PpManager         *manager,
               PpDeviceTable     *table,
               PpExecutor        *executor,
               PpOverrides       *overrides,
               PpProfileState    *profile,
               const PpSituation *situation)
{
  PpLayers *self = g_new0 (PpLayers, 1);

  self->manager = manager;
  self->table = table;
  self->executor = executor;
  self->overrides = overrides;
  self->profile = profile;
  self->situation = situation;
  self->held = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->reverted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->powered_down = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return self;
}

void
pp_layers_free (PpLayers *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->held);
  g_hash_table_unref (self->reverted);
  g_hash_table_unref (self->powered_down);
  g_free (self);
}

void
pp_layers_set_config (PpLayers *self, const PpConfig *config)
{
  self->config = config;
}

typedef struct {
  PpLayers   *self;
  const char *syspath;
} OriginalLookup;

/* The original of an attribute of a reverted device: what the journal
 * recorded before the daemon first wrote it (ListChanges' original), a
 * lookup in memory. An attribute the daemon never wrote has its
 * original still (under dry-run, every attribute the journal does not
 * have): NULL, and the decision leaves it alone. */
static const char *
lookup_original (gpointer user_data, const char *relpath)
{
  OriginalLookup *lookup = user_data;
  g_autofree char *path = g_build_filename (lookup->syspath, relpath, NULL);

  return pp_restore_lookup (pp_executor_get_restore (lookup->self->executor), path);
}

/* A setting key with a '*' (PP_ATTR_NVME_APST) stands for the NVMe
 * controllers the device has: one setting per controller; a device
 * without one keeps the pattern, which names no file (nothing is
 * written, Explain says why). */
static void
expand_settings (PpDevice *dev, GPtrArray *settings)
{
  GPtrArray *controllers = dev->facts.nvme_controllers;

  for (guint i = 0; i < settings->len; i++)
    {
      PpSetting *s = g_ptr_array_index (settings, i);

      if (!g_str_equal (s->key, PP_ATTR_NVME_APST))
        continue;
      if (controllers->len == 0)
        continue;
      for (guint c = 0; c < controllers->len; c++)
        {
          PpSetting *copy = pp_setting_new_at (NULL, s->value, s->file, s->line);

          copy->key = g_build_filename (PP_NVME_DIR, (char *) g_ptr_array_index (controllers, c),
                                        PP_NVME_APST_TAIL, NULL);
          copy->source = s->source;
          copy->origin = g_strdup (s->origin);
          g_ptr_array_insert (settings, i + 1 + c, copy);
        }
      /* the pattern goes; its copies move down into its place */
      g_ptr_array_remove_index (settings, i);
      i += controllers->len - 1;
    }
}

/* The one decision for a device, behind applying and Explain.
 * @power_up: PowerUp's pass, power/control=on above every layer (for
 * this pass only: the next one is the policy's again). @with_power_down:
 * PowerDown(auto), when in force, is a layer of the answer. */
static PpDecision *
decide_device (PpLayers *self, PpDevice *dev, gboolean power_up, gboolean with_power_down)
{
  const char *syspath = dev->info->syspath;
  gboolean held = g_hash_table_contains (self->held, syspath);
  g_autofree char *held_by = held ? hold_origin (self, syspath) : NULL;
  gboolean reverted = g_hash_table_contains (self->reverted, syspath);
  g_autofree char *reverted_by = reverted ? revert_origin (self, syspath) : NULL;
  OriginalLookup lookup = { self, syspath };
  PpDeviceState state = {
    .override = pp_overrides_lookup (self->overrides, syspath),
    .powered_down = with_power_down && g_hash_table_contains (self->powered_down, syspath),
    .held = held || power_up,
    .held_by = held ? held_by : power_up ? "PowerUp over D-Bus" : NULL,
    .driver = dev->info->driver,
    .reverted = reverted,
    .reverted_by = reverted_by,
    .original = lookup_original,
    .original_data = &lookup,
    .apst_quirk = dev->facts.apst_quirk,
  };
  PpDecision *decision = pp_policy_decide (self->config, &dev->props, self->situation, &state);

  expand_settings (dev, decision->settings);
  expand_settings (dev, decision->left_alone);
  return decision;
}

/* Returns the settings planned (NULL for an ignored device or a link). */
static GPtrArray *
plan_device_full (PpLayers *self, GPtrArray *plan, PpDevice *dev, gboolean power_up)
{
  g_autoptr(PpDecision) decision = NULL;

  if (dev->props.ignore || pp_device_is_link (dev))
    return NULL;
  decision = decide_device (self, dev, power_up, TRUE);
  /* a device whose driver the class excludes gets nothing written, and
   * what an earlier pass wrote (before that driver was bound) goes back
   * to its original: decision->settings is empty */
  pp_executor_plan_settings (self->executor, plan, dev, dev->info->syspath, decision->settings);
  return g_steal_pointer (&decision->settings);
}

void
pp_layers_plan_device (PpLayers *self, GPtrArray *plan, PpDevice *dev)
{
  g_autoptr(GPtrArray) settings = plan_device_full (self, plan, dev, FALSE);
}

#define ASPM_POLICY_KEY PP_ASPM_MODULE "/parameters/" PP_ASPM_POLICY_PARAM

/* Does the OS control ASPM of some link? The kernel shows link/ on the
 * PCI devices whose link it controls and can put in a low-power state,
 * and none anywhere when the firmware kept ASPM (or pcie_aspm=off): then
 * the policy cannot be written (EPERM) and would change nothing. */
static gboolean
aspm_os_controlled (PpLayers *self)
{
  GPtrArray *devices = pp_device_table_list (self->table);

  for (guint i = 0; i < devices->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (devices, i);
      g_autofree char *link = NULL;

      if (!g_str_equal (dev->info->subsystem, "pci"))
        continue;
      link = g_build_filename (dev->info->syspath, PP_ASPM_LINK_DIR, NULL);
      if (g_file_test (link, G_FILE_TEST_IS_DIR))
        return TRUE;
    }
  return FALSE;
}

void
pp_layers_plan_modules (PpLayers *self, GPtrArray *plan)
{
  g_autoptr(GPtrArray) settings = pp_policy_module_settings (self->config, self->situation);

  for (guint i = 0; i < settings->len; i++)
    {
      PpSetting *s = g_ptr_array_index (settings, i);

      if (g_str_equal (s->key, ASPM_POLICY_KEY) && !aspm_os_controlled (self))
        {
          g_debug ("%s: firmware controls ASPM (no PCI device shows link/), not written", s->key);
          g_ptr_array_remove_index (settings, i--);
        }
    }
  pp_executor_plan_settings (self->executor, plan, NULL, PP_SYSFS_MODULE, settings);
  pp_profile_state_plan (self->profile, plan);
}

/* One more (@up) or one fewer count of each of @syspaths in @counts. */
static void
count_paths (GHashTable *counts, GPtrArray *syspaths, gboolean up)
{
  for (guint i = 0; i < syspaths->len; i++)
    {
      const char *path = g_ptr_array_index (syspaths, i);
      guint count = GPOINTER_TO_UINT (g_hash_table_lookup (counts, path));

      if (up)
        g_hash_table_replace (counts, g_strdup (path), GUINT_TO_POINTER (count + 1));
      else if (count <= 1)
        g_hash_table_remove (counts, path);
      else
        g_hash_table_replace (counts, g_strdup (path), GUINT_TO_POINTER (count - 1));
    }
}

void
pp_layers_count_held (PpLayers *self, GPtrArray *syspaths, gboolean held)
{
  count_paths (self->held, syspaths, held);
}

void
pp_layers_count_reverted (PpLayers *self, GPtrArray *syspaths, gboolean reverted)
{
  count_paths (self->reverted, syspaths, reverted);
}

gboolean
pp_layers_is_reverted (PpLayers *self, const char *syspath)
{
  return g_hash_table_contains (self->reverted, syspath);
}

static gboolean
restore_listed (char **list, const char *name)
{
  return list != NULL && name != NULL && g_strv_contains ((const char * const *) list, name);
}

/* Whether @key is a runtime PM switch: the device's own power/control,
 * or another device's that holds its runtime PM (the ATA port's
 * Attr.device/power/control). */
static gboolean
is_control_key (const char *key)
{
  return g_str_equal (key, PP_ATTR_CONTROL) || g_str_has_suffix (key, "/" PP_ATTR_CONTROL);
}

/* The sleep layer's attributes of @dev, the runtime PM switches,
 * decided as every pass decides them: at ~100 AHCI-related devices the
 * other attributes' reads were most of the time before the delay
 * inhibitor's release, and after resume. A switch the daemon changed
 * that no layer sets now is planned too (back to its original). */
static void
plan_sleep_layer_device (PpLayers *self, GPtrArray *plan, PpDevice *dev)
{
  g_autoptr(PpDecision) decision = NULL;
  g_autoptr(GHashTable) keys = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) touched = NULL;
  GHashTableIter iter;
  gpointer key;

  if (dev->props.ignore || pp_device_is_link (dev))
    return;
  decision = decide_device (self, dev, FALSE, TRUE);
  g_hash_table_add (keys, (gpointer) PP_ATTR_CONTROL);
  for (guint i = 0; decision->settings != NULL && i < decision->settings->len; i++)
    {
      PpSetting *s = g_ptr_array_index (decision->settings, i);

      if (is_control_key (s->key))
        g_hash_table_add (keys, s->key);
    }
  touched = pp_executor_get_touched (self->executor, dev->info->syspath);
  if (touched != NULL)
    {
      g_hash_table_iter_init (&iter, touched);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        if (is_control_key (key))
          g_hash_table_add (keys, key);
    }
  g_hash_table_iter_init (&iter, keys);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    pp_executor_plan_attribute (self->executor, plan, dev, decision->settings, key);
}

void
pp_layers_plan_sleep (PpLayers *self, GPtrArray *plan, gboolean before_sleep)
{
  const PpSleepConfig *sc = &self->config->sleep;
  GPtrArray *devices;

  if (!sc->restore_defaults)
    return;
  g_info ("%s", before_sleep ? "Before sleep: AHCI runtime PM on, PCIe ASPM policy default"
                             : "After resume: the sleep layer ends");
  /* only what the layer names: the rest of the policy stays as it is */
  devices = pp_device_table_list (self->table);
  for (guint i = 0; i < devices->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (devices, i);

      if (restore_listed (sc->restore_defaults_classes, dev->props.klass) ||
          restore_listed (sc->restore_defaults_drivers, dev->info->driver))
        plan_sleep_layer_device (self, plan, dev);
    }
  pp_layers_plan_modules (self, plan);
}

void
pp_layers_set_powered_down (PpLayers *self, const char *syspath, gboolean down)
{
  if (down)
    g_hash_table_add (self->powered_down, g_strdup (syspath));
  else
    g_hash_table_remove (self->powered_down, syspath);
}

GPtrArray *
pp_layers_plan_power_up (PpLayers *self, GPtrArray *plan, PpDevice *dev)
{
  g_autoptr(GPtrArray) settings = NULL;
  GPtrArray *decided = g_ptr_array_new_with_free_func (g_free);

  g_hash_table_remove (self->powered_down, dev->info->syspath);
  settings = plan_device_full (self, plan, dev, TRUE);
  /* what the pass decides: the layers' settings, and the originals
   * that the attributes no layer mentions go back to */
  for (guint i = 0; settings != NULL && i < settings->len; i++)
    {
      PpSetting *s = g_ptr_array_index (settings, i);
      g_autofree char *path = g_build_filename (dev->info->syspath, s->key, NULL);

      if (g_file_test (path, G_FILE_TEST_EXISTS))
        g_ptr_array_add (decided, g_strdup_printf ("%s=%s", s->key, s->value));
    }
  for (guint i = 0; i < plan->len; i++)
    {
      PpPlanWrite *w = g_ptr_array_index (plan, i);
      g_autofree char *entry = g_strdup_printf ("%s=", w->relpath);
      gboolean listed = FALSE;

      for (guint j = 0; j < decided->len && !listed; j++)
        listed = g_str_has_prefix (g_ptr_array_index (decided, j), entry);
      if (!listed)
        g_ptr_array_add (decided, g_strdup_printf ("%s=%s", w->relpath, w->value));
    }
  return decided;
}

char *
pp_layers_get_decided_value (PpLayers *self, PpDevice *dev, const char *relpath)
{
  /* PowerDown's layer is not part of the answer */
  g_autoptr(PpDecision) decision = decide_device (self, dev, FALSE, FALSE);
  for (guint i = 0; i < decision->settings->len; i++)
    {
      PpSetting *s = g_ptr_array_index (decision->settings, i);
      if (g_str_equal (s->key, relpath))
        return g_strdup (s->value);
    }
  return NULL;
}

/* The row of the PCIe ASPM policy (a module parameter, named by its
 * path) in the Explain of a PCI device, when the configuration has a
 * [Module pcie_aspm] section: the policy applies to every link. */
static PpExplainRow *
explain_aspm_policy (PpLayers *self, PpDevice *dev)
{
  g_autoptr(GPtrArray) modules = NULL;
  g_autofree char *path = g_build_filename (PP_SYSFS_MODULE, PP_ASPM_MODULE, "parameters",
                                            PP_ASPM_POLICY_PARAM, NULL);
  const char *key = ASPM_POLICY_KEY;
  g_autofree char *current = NULL;
  PpExplainRow *row;

  if (!g_str_equal (dev->info->subsystem, "pci") ||
      pp_config_get_module (self->config, PP_ASPM_MODULE) == NULL)
    return NULL;
  row = g_new0 (PpExplainRow, 1);
  row->attribute = g_steal_pointer (&path);
  current = pp_executor_read_current (row->attribute, PP_MANAGER_WRITE_SETTING, NULL);
  row->current = g_utf8_make_valid (current != NULL ? current : "", -1);
  modules = pp_policy_module_settings (self->config, self->situation);
  for (guint i = 0; i < modules->len; i++)
    {
      PpSetting *s = g_ptr_array_index (modules, i);

      if (!g_str_equal (s->key, key))
        continue;
      row->layer = pp_setting_source_to_string (s->source);
      if (current == NULL)
        {
          row->decided = g_strdup ("");
          row->origin = g_strdup_printf ("no such parameter (a kernel without PCIe ASPM "
                                         "support); nothing written (policy=%s by %s)", s->value,
                                         s->origin != NULL ? s->origin : "");
        }
      else if (!aspm_os_controlled (self))
        {
          row->decided = g_strdup ("");
          row->origin = g_strdup_printf ("firmware controls ASPM (no PCI device shows link/); "
                                         "nothing written (policy=%s by %s)", s->value,
                                         s->origin != NULL ? s->origin : "");
        }
      else
        {
          row->decided = g_strdup (s->value);
          row->origin = g_strdup (s->origin != NULL ? s->origin : "");
        }
      {
        char *valid = g_utf8_make_valid (row->origin, -1);
        g_free (row->origin);
        row->origin = valid;
      }
      return row;
    }
  row->decided = g_strdup ("");
  row->layer = "class";
  row->origin = g_strdup ("not set by [Module " PP_ASPM_MODULE "] in this situation: "
                          "the kernel's policy stays");
  return row;
}

GPtrArray *
pp_layers_explain (PpLayers *self, PpDevice *dev)
{
  g_autoptr(PpDecision) decision = decide_device (self, dev, FALSE, TRUE);
  g_autoptr(GPtrArray) rows = pp_policy_explain (self->config, &dev->props, decision);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_explain_row_free);
  /* the plan a pass would make now: its current values are the rows' */
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  g_autofree char *link_dir = g_build_filename (dev->info->syspath, PP_ASPM_LINK_DIR, NULL);
  PpExplainRow *aspm_policy;

  pp_executor_plan_settings (self->executor, plan, dev, dev->info->syspath, decision->settings);

  for (guint i = 0; i < rows->len; i++)
    {
      PpExplainRow *row = g_ptr_array_index (rows, i);
      g_autofree char *path = g_build_filename (dev->info->syspath, row->attribute, NULL);
      g_autofree char *current = NULL;
      PpPlanWrite *w;
      const char *absent;

      /* an attribute the device does not have and nothing decides: no row */
      if (!g_file_test (path, G_FILE_TEST_EXISTS) && *row->decided == '\0')
        continue;
      /* a knob the device lacks: said why, and that nothing is written */
      absent = !g_file_test (path, G_FILE_TEST_EXISTS)
               ? pp_knob_absent_reason (row->attribute, g_file_test (link_dir, G_FILE_TEST_IS_DIR))
               : NULL;
      if (absent != NULL)
        {
          char *origin = g_strdup_printf ("%s (%s=%s by %s)", absent, row->attribute,
                                          row->decided, row->origin);
          g_free (row->origin);
          row->origin = origin;
          g_free (row->decided);
          row->decided = g_strdup ("");
        }
      w = pp_plan_lookup (plan, row->attribute);
      current = w != NULL ? g_strdup (w->current)
                          : pp_sysfs_read_opt (dev->info->syspath, row->attribute);
      /* D-Bus strings are UTF-8: an attribute may hold anything */
      row->current = g_utf8_make_valid (current ? current : "", -1);
      if (!g_utf8_validate (row->origin, -1, NULL))
        {
          char *valid = g_utf8_make_valid (row->origin, -1);
          g_free (row->origin);
          row->origin = valid;
        }
      g_ptr_array_add (out, g_steal_pointer (&rows->pdata[i]));
    }
  aspm_policy = explain_aspm_policy (self, dev);
  if (aspm_policy != NULL)
    g_ptr_array_add (out, aspm_policy);
  return out;
}

char *
pp_layers_get_exclusion (PpLayers *self, PpDevice *dev)
{
  if (pp_device_is_link (dev))
    return NULL;
  /* what decide_device() would say, without deciding the layers (this
   * is asked for every row of ListDevices) */
  return pp_policy_get_exclusion (self->config, &dev->props, dev->info->driver);
}

void
pp_layers_set_hold_hook (PpLayers          *self,
                         PpManagerHoldHook  hook,
                         gpointer           user_data)
{
  self->hold_hook = hook;
  self->hold_hook_data = user_data;
}

void
pp_layers_set_revert_hook (PpLayers          *self,
                           PpManagerHoldHook  hook,
                           gpointer           user_data)
{
  self->revert_hook = hook;
  self->revert_hook_data = user_data;
}

/* "reverted by WHO (WHY), pid N" of each Revert of @syspath. */
static char *
revert_origin (PpLayers *self, const char *syspath)
{
  char *origin = NULL;

  if (self->revert_hook != NULL)
    origin = self->revert_hook (self->manager, syspath, self->revert_hook_data);
  return origin != NULL ? origin : g_strdup ("reverted");
}

/* "held by WHO (WHY), pid N" of each hold on @syspath, from the hook. */
static char *
hold_origin (PpLayers *self, const char *syspath)
{
  char *origin = NULL;

  if (self->hold_hook != NULL)
    origin = self->hold_hook (self->manager, syspath, self->hold_hook_data);
  return origin != NULL ? origin : g_strdup ("held");
}

gboolean
pp_layers_is_held (PpLayers *self, const char *syspath)
{
  return g_hash_table_contains (self->held, syspath);
}

void
pp_manager_change_free (PpManagerChange *change)
{
  if (change == NULL)
    return;
  g_free (change->path);
  g_free (change->attribute);
  g_free (change->original);
  g_free (change->current);
  g_free (change);
}

/* Split @path into the device it belongs to and the attribute below
 * it; a path under no device (a module parameter, a /sys/power setting)
 * is its own path, with its file name as the attribute (as the D-Bus
 * interface documents ListChanges). */
static void
split_attribute_path (PpLayers *self, const char *path, char **dir, char **attribute)
{
  if (pp_sysfs_path_is_under (path, PP_SYSFS_DEVICES))
    {
      g_autofree char *up = g_path_get_dirname (path);

      while (strlen (up) > strlen (PP_SYSFS_DEVICES))
        {
          char *parent;

          if (pp_device_table_knows (self->table, up))
            {
              *attribute = g_strdup (path + strlen (up) + 1);
              *dir = g_steal_pointer (&up);
              return;
            }
          parent = g_path_get_dirname (up);
          g_free (up);
          up = parent;
        }
    }
  *dir = g_strdup (path);
  *attribute = g_path_get_basename (path);
}

static gint
compare_changes (gconstpointer a, gconstpointer b)
{
  const PpManagerChange *ca = *(PpManagerChange * const *) a;
  const PpManagerChange *cb = *(PpManagerChange * const *) b;
  int r = strcmp (ca->path, cb->path);

  return r != 0 ? r : strcmp (ca->attribute, cb->attribute);
}

GPtrArray *
pp_layers_list_changes (PpLayers *self)
{
  GPtrArray *changes = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_manager_change_free);
  /* what restoring would write: the same plan as on exit */
  g_autoptr(GPtrArray) plan = pp_executor_plan_restore (pp_restore_get_recorded (pp_executor_get_restore (self->executor)),
                                                       TRUE);

  for (guint i = 0; i < plan->len; i++)
    {
      PpPlanWrite *w = g_ptr_array_index (plan, i);
      PpManagerChange *change;

      /* gone, or back to its original (a layer left, PowerUp): nothing
       * to restore */
      if (w->current == NULL || w->in_place)
        continue;
      change = g_new0 (PpManagerChange, 1);
      split_attribute_path (self, w->path, &change->path, &change->attribute);
      /* D-Bus strings are UTF-8, whatever an attribute held */
      change->original = g_utf8_make_valid (w->value, -1);
      change->current = g_utf8_make_valid (w->current, -1);
      g_ptr_array_add (changes, change);
    }
  g_ptr_array_sort (changes, compare_changes);
  return changes;
}

