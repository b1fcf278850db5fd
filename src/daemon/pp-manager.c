/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-manager"

#include "config.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "pp-config-files.h"
#include "pp-conflicts.h"
#include "pp-error.h"
#include "pp-executor.h"
#include "pp-devarg.h"
#include "pp-foreign.h"
#include "pp-log.h"
#include "pp-device-table.h"
#include "pp-manager-layers.h"
#include "pp-manager-profile.h"
#include "pp-names.h"
#include "pp-overrides.h"
#include "pp-plan.h"
#include "pp-residency.h"
#include "pp-restore.h"
#include "pp-sysfs.h"
#include "pp-util.h"

/* The manager's state is its own: the other objects of the class are
 * owned here and hold their own state (pp-device-table.h,
 * pp-manager-layers.h, pp-manager-profile.h, pp-executor.h). */
struct _PpManager {
  GObject           parent_instance;

  PpManagerOptions  options;
  char             *backend;        /* set by the sleep component; NULL: none yet */
  PpConfig         *config;
  PpUdev           *udev;
  PpOverrides      *overrides;

  /* the one write path: the journal, what this run changed, foreign
   * writes, write failures, the dry-run switch */
  PpExecutor       *executor;

  /* the tagged devices, and the untagged ones a tree operation looked at */
  PpDeviceTable    *table;
  /* the decision: holds, Reverts, PowerDown(auto), Explain's hooks */
  PpLayers         *layers;

  PpSituation       situation;
  /* "PowerSource=ac FILE:LINE" while the configuration fixes the power
   * source (situation.power_source_origin points here), else NULL */
  char             *power_source_origin;
  PpPowerSource     power_source;     /* the PowerSource= in force */
  gboolean          started;

  /* the standing requests of the layers outside the policy's decision
   * (sleep, lid, power-off): PpPlanRequest*, planned by every pass */
  GPtrArray        *layer_requests;

  guint64           notified_write_failures;  /* the value "write-failures" last announced */

  /* other programs: tools installed (PpConflict*, found at start and on
   * Reload); the executor tracks foreign changes of what the daemon wrote */
  GPtrArray        *installed_conflicts;
  gboolean          foreign_changed;   /* since the last conflicts-changed */

  double            last_pass_sec;    /* duration of the last full pass; 0 before the first */

  /* runtime-PM counter bases (GetStatistics): taken at start and for the
   * devices a policy pass changed; read when asked, never on a timer */
  PpResidencyBook  *residency;

  /* [Platform]'s knobs and the saved profile */
  PpProfileState   *profile;
  /* a program other than us serving the power profiles' names, for
   * Conflicts (subject, what); NULL: none */
  char             *profiles_conflict_subject;
  char             *profiles_conflict_what;
};

enum {
  PROP_0,
  PROP_ON_BATTERY,
  PROP_DRY_RUN,
  PROP_WRITE_FAILURES,
  PROP_LAST_POLICY_PASS_SEC,
  PROP_LOW_BATTERY,
  PROP_POWER_SOURCE,
  PROP_POWER_PROFILE,
  N_PROPS,
};

enum {
  SIGNAL_DEVICE_CHANGED,
  SIGNAL_DEVICE_ADDED,
  SIGNAL_DEVICE_REMOVED,
  SIGNAL_TOPOLOGY_CHANGED,
  SIGNAL_CONFLICTS_CHANGED,
  N_SIGNALS,
};

static GParamSpec *pp_manager_props[N_PROPS];
static guint pp_manager_signals[N_SIGNALS];

G_DEFINE_TYPE (PpManager, pp_manager, G_TYPE_OBJECT)

static gboolean pp_manager_apply_device (PpManager *self, PpDevice *dev, GError **error);

/* ---- executing a plan ------------------------------------------------- */

/* The executor (pp-executor.h) writes and hands back what it wrote; the
 * manager announces it (DeviceChanged, the residency bases,
 * write-failures, conflicts-changed). Only the manager emits its
 * signals. */

/* Tell what a device's applied writes changed: its attributes (relative
 * paths) and their new values, in the order written. */
static void
emit_device_changed (PpManager *self, PpDevice *dev, GPtrArray *writes)
{
  g_autoptr(GStrvBuilder) attrs = NULL;
  g_autoptr(GStrvBuilder) values = NULL;
  g_auto(GStrv) attrv = NULL;
  g_auto(GStrv) valuev = NULL;

  if (!g_signal_has_handler_pending (self, pp_manager_signals[SIGNAL_DEVICE_CHANGED], 0, FALSE))
    return;
  attrs = g_strv_builder_new ();
  values = g_strv_builder_new ();
  for (guint i = 0; i < writes->len; i++)
    {
      PpPlanWrite *w = g_ptr_array_index (writes, i);

      g_strv_builder_add (attrs, w->relpath);
      g_strv_builder_add (values, w->value);
    }
  attrv = g_strv_builder_end (attrs);
  valuev = g_strv_builder_end (values);
  g_signal_emit (self, pp_manager_signals[SIGNAL_DEVICE_CHANGED], 0, dev->info->syspath, attrv,
                 valuev);
}

/* DeviceChanged for each device the executor wrote to (@written, in
 * order), and its residency base. */
static void
announce_written (PpManager *self, GPtrArray *written)
{
  g_autoptr(GHashTable) done = NULL;
  g_autoptr(GPtrArray) order = NULL;

  if (self->options.oneshot)
    return;
  done = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                (GDestroyNotify) g_ptr_array_unref);
  order = g_ptr_array_new ();
  for (guint i = 0; i < written->len; i++)
    {
      PpPlanWrite *w = g_ptr_array_index (written, i);
      GPtrArray *list;

      if (w->dev == NULL)
        continue;
      list = g_hash_table_lookup (done, w->dev);
      if (list == NULL)
        {
          list = g_ptr_array_new ();
          g_hash_table_insert (done, w->dev, list);
          g_ptr_array_add (order, w->dev);
        }
      g_ptr_array_add (list, w);
    }
  for (guint i = 0; i < order->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (order, i);

      /* residency "since the last policy change" for what changed
       * (the start-up pass is followed by every device's base) */
      if (self->started)
        pp_residency_book_set_base (self->residency, dev->info->syspath);
      emit_device_changed (self, dev, g_hash_table_lookup (done, dev));
    }
}

/* Tell listeners when the Conflicts rows changed (a foreign change
 * seen while planning, tools found on Reload). */
static void
pp_manager_flush_conflicts_changed (PpManager *self)
{
  gboolean seen = pp_executor_take_foreign_changed (self->executor);

  if (!self->foreign_changed && !seen)
    return;
  self->foreign_changed = FALSE;
  g_signal_emit (self, pp_manager_signals[SIGNAL_CONFLICTS_CHANGED], 0);
}

/* Announce "write-failures" once per executed plan (a full pass is one
 * plan), and only when failures were counted since the last time. */
static void
flush_write_failures (PpManager *self)
{
  guint64 n = pp_executor_get_n_write_failures (self->executor);

  if (n == self->notified_write_failures)
    return;
  self->notified_write_failures = n;
  g_object_notify_by_pspec (G_OBJECT (self), pp_manager_props[PROP_WRITE_FAILURES]);
}

static gboolean
pp_manager_execute_counted (PpManager       *self,
                            GPtrArray       *plan,
                            PpExecutorScope  scope,
                            guint           *n_written,
                            guint           *n_failed,
                            GError         **error)
{
  g_autoptr(GPtrArray) written = NULL;
  gboolean ok = pp_executor_execute (self->executor, plan, scope, &written, n_failed, error);

  if (n_written != NULL)
    *n_written = written->len;
  announce_written (self, written);
  pp_manager_flush_conflicts_changed (self);
  flush_write_failures (self);
  return ok;
}

static gboolean
pp_manager_execute_plan (PpManager *self, GPtrArray *plan, GError **error)
{
  return pp_manager_execute_counted (self, plan, PP_EXECUTOR_PART, NULL, NULL, error);
}

/* ---- an action written off the main loop ------------------------------ */

static void
on_action_written (GObject *source, GAsyncResult *res, gpointer user_data)
{
  g_autoptr(GTask) outer = user_data;
  PpManager *self = PP_MANAGER (source);
  GError *error = NULL;

  if (!pp_executor_write_action_finish (self->executor, res, &error))
    {
      flush_write_failures (self);
      g_task_return_error (outer, error);
      return;
    }
  g_task_return_boolean (outer, TRUE);
}

void
pp_manager_request_action_async (PpManager           *self,
                                 PpPlanLayer          layer,
                                 const char          *path,
                                 const char          *value,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *outer = g_task_new (self, NULL, callback, user_data);
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  g_autoptr(GError) read_error = NULL;
  g_autofree char *current = NULL;

  if (!pp_executor_may_write (path))
    {
      g_task_return_new_error (outer, PP_ERROR, PP_ERROR_REFUSED,
                               "refusing to write %s: not an attribute powerpolicyd manages", path);
      g_object_unref (outer);
      return;
    }
  current = pp_executor_read_current (path, PP_MANAGER_WRITE_ACTION, &read_error);
  if (current == NULL)
    {
      g_prefix_error (&read_error, "cannot read ");
      g_task_return_error (outer, g_steal_pointer (&read_error));
      g_object_unref (outer);
      return;
    }
  pp_plan_request (plan, layer, NULL, NULL, path, value, current, PP_MANAGER_WRITE_ACTION);
  g_debug ("%s layer: %s = %s", pp_plan_layer_to_string (layer), path, value);
  pp_executor_write_action_async (self->executor, plan, self, on_action_written, outer);
}

gboolean
pp_manager_request_action_finish (PpManager     *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- devices ---------------------------------------------------------- */


/* ---- applying --------------------------------------------------------- */




/* ---- the layers' requests ------------------------------------------- */

/* The standing requests of the layers into @plan: their paths read
 * first, the planner looks them up. */
static void
plan_layer_requests (PpManager *self, GPtrArray *plan)
{
  g_autoptr(PpPlanCurrent) current = pp_plan_current_new (NULL, NULL);

  for (guint i = 0; i < self->layer_requests->len; i++)
    {
      const PpPlanRequest *r = g_ptr_array_index (self->layer_requests, i);
      g_autofree char *value = pp_executor_read_current (r->path, r->flags, NULL);

      pp_plan_current_set (current, r->path, value, FALSE);
      /* no udev: a device not in the table is not read here */
      if (r->dev_syspath != NULL)
        pp_plan_current_set_device (current, r->dev_syspath,
                                    pp_device_table_get_tree_device (self->table, NULL,
                                                                     r->dev_syspath));
    }
  pp_plan_requests (plan, self->layer_requests, pp_plan_current_request_values (current));
}

/* @path to @value, planned and executed now; with @standing the
 * request stays in force (every pass plans it again) unless the write
 * fails, else @path's standing request ends. */
static gboolean
execute_layer_request (PpManager           *self,
                       PpPlanLayer          layer,
                       PpDevice            *dev,
                       const char          *path,
                       const char          *value,
                       PpManagerWriteFlags  flags,
                       gboolean             standing,
                       GError             **error)
{
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  g_autoptr(GError) read_error = NULL;
  g_autofree char *current = NULL;

  if (!pp_executor_may_write (path))
    {
      g_set_error (error, PP_ERROR, PP_ERROR_REFUSED,
                   "refusing to write %s: not an attribute powerpolicyd manages", path);
      return FALSE;
    }
  pp_plan_requests_withdraw (self->layer_requests, path);
  current = pp_executor_read_current (path, flags, &read_error);
  if (current == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&read_error), "cannot read ");
      return FALSE;
    }
  if (pp_plan_request (plan, layer, dev, dev != NULL ? dev->info->syspath : NULL,
                       path, value, current, flags))
    {
      g_debug ("%s layer: %s = %s", pp_plan_layer_to_string (layer), path, value);
      if (!pp_manager_execute_plan (self, plan, error))
        return FALSE;
    }
  if (standing && !(flags & PP_PLAN_ACTION))
    pp_plan_requests_set (self->layer_requests,
                          pp_plan_request_new (layer, dev != NULL ? dev->info->syspath : NULL,
                                               path, value, flags));
  return TRUE;
}

gboolean
pp_manager_request_layer (PpManager           *self,
                          PpPlanLayer          layer,
                          PpDevice            *dev,
                          const char          *path,
                          const char          *value,
                          PpManagerWriteFlags  flags,
                          GError             **error)
{
  return execute_layer_request (self, layer, dev, path, value, flags, TRUE, error);
}

gboolean
pp_manager_end_layer (PpManager           *self,
                      PpPlanLayer          layer,
                      PpDevice            *dev,
                      const char          *path,
                      const char          *value,
                      PpManagerWriteFlags  flags,
                      GError             **error)
{
  return execute_layer_request (self, layer, dev, path, value, flags, FALSE, error);
}

const char *
pp_manager_lookup_original (PpManager *self, const char *path)
{
  return pp_restore_lookup (pp_executor_get_restore (self->executor), path);
}

/* A full pass into @plan: every device, the modules, the standing
 * requests of the layers. */
static void
plan_all (PpManager *self, GPtrArray *plan)
{
  GPtrArray *devices = pp_manager_list_devices (self);

  for (guint i = 0; i < devices->len; i++)
    pp_layers_plan_device (self->layers, plan, g_ptr_array_index (devices, i));
  pp_layers_plan_modules (self->layers, plan);
  plan_layer_requests (self, plan);
}

/* The executor's hooks (pp-executor.h) */
static gboolean
executor_plan_all (GPtrArray *plan, gpointer user_data)
{
  PpManager *self = user_data;

  if (!self->started)
    return FALSE;
  plan_all (self, plan);
  return TRUE;
}

static gboolean
executor_managed (const char *syspath, gpointer user_data)
{
  PpManager *self = user_data;

  return pp_device_table_lookup (self->table, syspath) != NULL;
}

/* @reason: why ("start", "battery", "reload", ...), for policy-applied */
static void
apply_all (PpManager *self, const char *reason)
{
  gint64 start = g_get_monotonic_time ();
  g_autoptr(GPtrArray) plan = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_plan_write_free);
  guint written = 0, failed = 0;
  double seconds;

  plan_all (self, plan);
  pp_manager_execute_counted (self, plan, PP_EXECUTOR_FULL_PASS, &written, &failed, NULL);
  seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  if (seconds != self->last_pass_sec)
    {
      self->last_pass_sec = seconds;
      g_object_notify_by_pspec (G_OBJECT (self), pp_manager_props[PROP_LAST_POLICY_PASS_SEC]);
    }
  /* under dry-run the would-be writes are the log */
  if (!pp_manager_get_dry_run (self))
    pp_log_policy_applied (written, failed, reason);
}

static void
apply_modules (PpManager *self)
{
  g_autoptr(GPtrArray) plan = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_plan_write_free);

  pp_layers_plan_modules (self->layers, plan);
  pp_manager_execute_plan (self, plan, NULL);
}

/* ---- power source ----------------------------------------------------- */

/* Re-read the power source and the battery charge (power_supply
 * uevents: the kernel sends "change" as the charge moves); on a change of
 * the situation re-apply every layer at once. */
/* On battery: as [Daemon] PowerSource= fixes it, else from the power
 * supplies udev reports (powerpolicy.conf(5)). Keeps the situation's
 * origin of a fixed source. */
static gboolean
decide_on_battery (PpManager *self)
{
  const PpConfig *c = self->config;

  g_clear_pointer (&self->power_source_origin, g_free);
  self->situation.power_source_origin = NULL;
  if (c->power_source != self->power_source)
    {
      self->power_source = c->power_source;
      g_object_notify_by_pspec (G_OBJECT (self), pp_manager_props[PROP_POWER_SOURCE]);
    }
  if (c->power_source == PP_POWER_SOURCE_AUTO)
    return pp_device_table_on_battery (self->table);
  if (c->power_source_file != NULL)
    self->power_source_origin = g_strdup_printf ("PowerSource=%s %s:%u",
                                                 pp_power_source_to_string (c->power_source),
                                                 c->power_source_file, c->power_source_line);
  else
    self->power_source_origin = g_strdup_printf ("PowerSource=%s",
                                                 pp_power_source_to_string (c->power_source));
  self->situation.power_source_origin = self->power_source_origin;
  return c->power_source == PP_POWER_SOURCE_BATTERY;
}

static void
update_power_source (PpManager *self, gboolean apply)
{
  gboolean on_battery = decide_on_battery (self);
  /* a fixed battery source is low only when a battery says so: no
   * battery reported, no charge, never low */
  gint percent = on_battery ? pp_device_table_battery_percent (self->table) : -1;
  gboolean low_battery = pp_policy_low_battery (on_battery, percent,
                                                self->config->low_battery_percent);
  gboolean source_changed = on_battery != self->situation.on_battery;
  gboolean low_changed = low_battery != self->situation.low_battery;

  if (!source_changed && !low_changed)
    return;
  self->situation.on_battery = on_battery;
  self->situation.low_battery = low_battery;
  if (source_changed)
    {
      g_info ("Power source: %s%s%s", on_battery ? "battery" : "AC",
              self->power_source_origin != NULL ? ", fixed by " : "",
              self->power_source_origin != NULL ? self->power_source_origin : "");
      g_object_notify_by_pspec (G_OBJECT (self), pp_manager_props[PROP_ON_BATTERY]);
    }
  if (low_changed)
    {
      g_info ("Low battery: %s (charge %d%%, LowBatteryPercent=%u)", low_battery ? "yes" : "no",
              percent, self->config->low_battery_percent);
      g_object_notify_by_pspec (G_OBJECT (self), pp_manager_props[PROP_LOW_BATTERY]);
    }
  if (apply)
    apply_all (self, low_changed ? (low_battery ? "low-battery" : "battery-ok")
                                 : (on_battery ? "battery" : "ac"));
}

/* ---- uevents ---------------------------------------------------------- */

/* A device (or module) went: its originals cannot be put back any more,
 * and the journal need not keep them. */
static void
forget_originals (PpManager *self, const char *dir)
{
  pp_executor_forget_under (self->executor, dir);
}

static gboolean conflict_rows_equal (GPtrArray *a, GPtrArray *b);

/* Forget what the tracker knows of a device; Conflicts changes only when
 * it had a row there. */
static void
forget_foreign_device (PpManager *self, const char *syspath)
{
  g_autoptr(GPtrArray) before = pp_foreign_tracker_list_conflicts (pp_executor_get_foreign (self->executor));
  g_autoptr(GPtrArray) after = NULL;

  pp_foreign_tracker_forget_device (pp_executor_get_foreign (self->executor), syspath);
  if (before->len == 0)
    return;
  after = pp_foreign_tracker_list_conflicts (pp_executor_get_foreign (self->executor));
  if (!conflict_rows_equal (before, after))
    self->foreign_changed = TRUE;
}

static void
forget_device (PpManager *self, PpDeviceInfo *info)
{
  gboolean was_supply = g_str_equal (info->subsystem, "power_supply");

  if (pp_device_table_lookup (self->table, info->syspath) == NULL)
    return;
  pp_device_table_remove (self->table, info->syspath);
  pp_residency_book_forget (self->residency, info->syspath);
  pp_executor_forget_touched (self->executor, info->syspath);
  /* it starts afresh when it comes back */
  forget_foreign_device (self, info->syspath);
  pp_manager_flush_conflicts_changed (self);
  pp_layers_set_powered_down (self->layers, info->syspath, FALSE);
  g_signal_emit (self, pp_manager_signals[SIGNAL_DEVICE_REMOVED], 0, info->syspath);
  if (was_supply)
    update_power_source (self, TRUE);
}

/* A driver unbound from a managed PCI device (handed to vfio-pci, its
 * module unloaded, written to the driver's unbind file): the device stays
 * but its policy was decided with that driver (ExcludeDrivers=, classes
 * by driver), so it is handled like a removal with nothing left
 * half-applied: what the daemon wrote to the device is written back (its
 * originals, in recording order), those originals leave the journal and
 * the device leaves the table. A later "bind" adds it again as new. The
 * originals of devices below it stay: they get their own uevents. */
static void
release_unbound_device (PpManager *self, PpDeviceInfo *info)
{
  if (pp_device_table_lookup (self->table, info->syspath) == NULL)
    return;
  pp_executor_release_device (self->executor, info->syspath, "driver unbound");
  forget_device (self, info);
}

/* Re-classify the USB device an interface belongs to, and re-apply its
 * policy when its class changed. */
static void
reclassify_usb_parent (PpManager *self, PpDeviceInfo *interface)
{
  const char *parent = pp_device_info_get_parent (interface);
  PpDevice *dev = parent ? pp_device_table_lookup (self->table, parent) : NULL;
  g_autofree char *was = NULL;

  if (dev == NULL || !pp_device_is_usb (dev->info))
    return;
  was = g_strdup (dev->props.klass);
  if (!pp_device_classify_usb (dev))
    return;
  g_info ("%s: class %s (was %s): drivers of its interfaces changed",
          dev->info->syspath, dev->props.klass, was);
  pp_manager_apply_device (self, dev, NULL);
  g_signal_emit (self, pp_manager_signals[SIGNAL_DEVICE_ADDED], 0, dev, FALSE);
}

/* A module's uevent: TRUE when @info is a module's (handled here). */
static gboolean
on_module_uevent (PpManager *self, const char *action, PpDeviceInfo *info)
{
  if (!g_str_equal (info->subsystem, "module"))
    return FALSE;
  if (g_str_equal (action, "remove"))
    {
      g_autofree char *dir = g_build_filename (PP_SYSFS_MODULE, info->sysname, NULL);
      forget_originals (self, dir);
    }
  else if (g_str_equal (action, "add"))
    {
      /* a module was loaded: its parameters now exist */
      apply_modules (self);
    }
  else
    return FALSE;
  return TRUE;
}

static void
on_uevent (PpUdev *udev, const char *action, PpDeviceInfo *info, PpManager *self)
{
  if (on_module_uevent (self, action, info))
    return;
  if (!pp_device_path_is_managed (info->syspath))
    return;

  /* a driver bound to or unbound from an interface of a USB device (the
   * interfaces bind after the device appeared, and are not tagged) */
  if (g_str_equal (info->subsystem, "usb") && g_strcmp0 (info->devtype, "usb_interface") == 0 &&
      (g_str_equal (action, "bind") || g_str_equal (action, "unbind")))
    {
      reclassify_usb_parent (self, info);
      return;
    }

  /* the power-dependency tree is read from sysfs, managed devices or
   * not (device links are never tagged) */
  if (g_str_equal (action, "add") || g_str_equal (action, "remove") ||
      g_str_equal (action, "move"))
    {
      pp_device_table_forget_tree_devices (self->table);
      pp_device_table_child_changed (self->table, info);
      g_signal_emit (self, pp_manager_signals[SIGNAL_TOPOLOGY_CHANGED], 0, action, info->syspath);
    }

  if (g_str_equal (action, "remove"))
    {
      forget_device (self, info);
      forget_originals (self, info->syspath);
      return;
    }
  if (g_str_equal (action, "unbind") && g_str_equal (info->subsystem, "pci"))
    {
      release_unbound_device (self, info);
      return;
    }

  if (g_str_equal (action, "add") || g_str_equal (action, "change") ||
      g_str_equal (action, "bind") || g_str_equal (action, "move"))
    {
      gboolean is_new;
      PpDevice *dev;

      /* udev's rules did not tag it (or no longer do): not managed; the
       * values the daemon wrote stay, as after a remove */
      if (!info->tagged)
        {
          pp_device_table_forget_tree_device (self->table, info->syspath);
          forget_device (self, info);
          return;
        }
      pp_device_table_forget_tree_device (self->table, info->syspath);
      is_new = pp_device_table_lookup (self->table, info->syspath) == NULL;
      /* a new device, one added again (re-plugged, its remove missed) or
       * a driver (re)bound: the kernel may have reset what the daemon
       * wrote, which is no other program's change */
      if (is_new || g_str_equal (action, "add") || g_str_equal (action, "bind"))
        forget_foreign_device (self, info->syspath);
      dev = pp_device_table_set (self->table, info);
      /* the kernel's ACPI ac and battery drivers send no "add" for their
       * supplies (nor when a battery is inserted again), only "change":
       * whatever the action, an unknown supply is now in the table and
       * counts for the power source */
      if (g_str_equal (info->subsystem, "power_supply"))
        update_power_source (self, TRUE);
      pp_manager_apply_device (self, dev, NULL);
      /* listeners see the device after its policy is in place; on a
       * "change" they see the new PpDevice that replaced the old one */
      g_signal_emit (self, pp_manager_signals[SIGNAL_DEVICE_ADDED], 0, dev, is_new);
    }
}

/* ---- lifecycle -------------------------------------------------------- */

static void
restore_leftover (PpManager *self)
{
  PpRestore *restore = pp_executor_get_restore (self->executor);
  g_autoptr(GPtrArray) originals = NULL;

  if (!pp_restore_has_leftover (restore))
    return;
  /* RestoreOnExit=false: the values stay, and so does the knowledge of
   * each attribute's own value (an empty assignment writes it back) */
  if (pp_restore_was_kept (restore))
    {
      g_autoptr(GPtrArray) adopted = pp_restore_adopt (restore);

      g_info ("Taking over the original values the previous run kept (%u changed by the policy)",
              adopted->len);
      pp_executor_adopt (self->executor, adopted);
      return;
    }
  g_message ("Found original values left by a previous run that did not exit cleanly, restoring them");
  originals = pp_restore_load (restore);
  if (pp_manager_get_dry_run (self))
    {
      g_message ("dry-run: would restore %u original values", originals->len);
      return;
    }
  pp_executor_restore_originals (originals, "after an unclean exit");
  pp_restore_clear (restore);
}

static void
log_problems (GPtrArray *problems)
{
  for (guint i = 0; i < problems->len; i++)
    {
      g_autofree char *s = pp_config_problem_to_string (g_ptr_array_index (problems, i));
      g_warning ("%s", s);
    }
}

/* An explicit --config that cannot be read fails the start; on a reload
 * the configuration in force stays (reported as a problem). */
static gboolean
load_config (PpManager *self, GPtrArray *problems, GError **error)
{
  g_autoptr(GError) local_error = NULL;
  PpConfig *config = pp_config_files_load (self->options.config_path, problems, &local_error);
  gboolean was_dry_run, dry_run;

  if (config == NULL && self->config == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  if (config == NULL)
    {
      PpConfigProblem *p = g_new0 (PpConfigProblem, 1);

      p->file = g_strdup (self->options.config_path);
      p->message = g_strdup_printf ("%s; keeping the configuration in force", local_error->message);
      g_ptr_array_add (problems, p);
      log_problems (problems);
      return TRUE;
    }

  was_dry_run = pp_manager_get_dry_run (self);
  g_clear_pointer (&self->config, pp_config_free);
  self->config = config;
  pp_layers_set_config (self->layers, config);
  pp_profile_state_set_config (self->profile, config);
  log_problems (problems);

  /* the one dry-run switch: every writer asks pp_manager_get_dry_run() */
  dry_run = self->options.dry_run || config->dry_run;
  pp_executor_set_dry_run (self->executor, dry_run);
  pp_overrides_set_persist (self->overrides, !dry_run);
  if (dry_run != was_dry_run)
    {
      if (dry_run)
        g_message ("Dry run: nothing will be written, no helper run; each write is logged");
      g_object_notify_by_pspec (G_OBJECT (self), pp_manager_props[PROP_DRY_RUN]);
    }
  return TRUE;
}

/* The residency bases of every managed device, after the start-up pass
 * (one read of each device's counters). */
static void
set_residency_bases (PpManager *self)
{
  GPtrArray *devices = pp_manager_list_devices (self);
  g_autofree const char **paths = g_new (const char *, devices->len + 1);

  for (guint i = 0; i < devices->len; i++)
    paths[i] = ((PpDevice *) g_ptr_array_index (devices, i))->info->syspath;
  pp_residency_book_set_base_all (self->residency, paths, devices->len);
}

gboolean
pp_manager_start (PpManager *self, GError **error)
{
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autoptr(GPtrArray) infos = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (!self->started, FALSE);

  if (!load_config (self, problems, error))
    return FALSE;

  if (!self->options.oneshot)
    restore_leftover (self);

  if (!pp_overrides_load (self->overrides, &local_error))
    {
      g_warning ("%s", local_error->message);
      g_clear_error (&local_error);
    }

  self->udev = pp_udev_new (error);
  if (self->udev == NULL)
    return FALSE;

  /* Listen before enumerating so that nothing added in between is lost;
   * events for devices already enumerated are harmless re-applies. */
  if (!self->options.oneshot)
    {
      if (!pp_udev_start_monitor (self->udev, error))
        return FALSE;
      g_signal_connect (self->udev, "uevent", G_CALLBACK (on_uevent), self);
    }

  infos = pp_udev_enumerate (self->udev, error);
  if (infos == NULL)
    return FALSE;
  for (guint i = 0; i < infos->len; i++)
    {
      PpDeviceInfo *info = g_ptr_array_index (infos, i);
      if (pp_device_path_is_managed (info->syspath))
        pp_device_table_set (self->table, info);
    }
  g_info ("Managing %u devices", pp_device_table_size (self->table));

  self->situation.on_battery = decide_on_battery (self);
  self->situation.low_battery =
    pp_policy_low_battery (self->situation.on_battery,
                           self->situation.on_battery ? pp_device_table_battery_percent (self->table) : -1,
                           self->config->low_battery_percent);
  g_info ("Power source: %s%s%s%s", self->situation.on_battery ? "battery" : "AC",
          self->situation.low_battery ? ", battery low" : "",
          self->power_source_origin != NULL ? ", fixed by " : "",
          self->power_source_origin != NULL ? self->power_source_origin : "");

  /* other power tools: reported once, in Conflicts and the log */
  self->installed_conflicts = pp_conflicts_detect (NULL);
  pp_conflicts_log_new (NULL, self->installed_conflicts);

  /* the platform knobs, and the profile chosen before a restart (holds
   * are not kept), --oneshot too (a boot script applies what the user
   * chose); PowerProfiles=false: no profile but balanced */
  pp_profile_state_read_platform (self->profile);
  if (self->config->power_profiles != PP_POWER_PROFILES_FALSE)
    self->situation.profile = pp_manager_load_saved_profile (self);
  if (self->situation.profile != PP_PROFILE_BALANCED)
    g_info ("Power profile: %s", pp_profile_to_string (self->situation.profile));

  apply_all (self, "start");
  /* --oneshot serves no statistics */
  if (!self->options.oneshot)
    set_residency_bases (self);
  /* the plan and the values read for every device are freed, spread over
   * the heap: their pages go back (malloc_trim(3)), or a big reply made
   * later (mapped on its own) would come on top of them */
  malloc_trim (0);
  self->started = TRUE;
  return TRUE;
}

static gboolean
conflict_rows_equal (GPtrArray *a, GPtrArray *b)
{
  if (a == NULL || b == NULL || a->len != b->len)
    return a == b;
  for (guint i = 0; i < a->len; i++)
    {
      PpConflict *ca = g_ptr_array_index (a, i);
      PpConflict *cb = g_ptr_array_index (b, i);

      if (g_strcmp0 (ca->subject, cb->subject) != 0 || g_strcmp0 (ca->what, cb->what) != 0)
        return FALSE;
    }
  return TRUE;
}

/* Look for other power tools again (Reload): new ones are logged; the
 * foreign changes seen so far are forgotten, given-up attributes are
 * written again. */
static void
redetect_conflicts (PpManager *self)
{
  g_autoptr(GPtrArray) found = pp_conflicts_detect (NULL);
  g_autoptr(GPtrArray) foreign = pp_foreign_tracker_list_conflicts (pp_executor_get_foreign (self->executor));

  pp_conflicts_log_new (self->installed_conflicts, found);
  if (!conflict_rows_equal (self->installed_conflicts, found) || foreign->len > 0)
    self->foreign_changed = TRUE;
  g_clear_pointer (&self->installed_conflicts, g_ptr_array_unref);
  self->installed_conflicts = g_steal_pointer (&found);
  pp_foreign_tracker_reset (pp_executor_get_foreign (self->executor));
}

void
pp_manager_reload (PpManager *self, GPtrArray **problems_out)
{
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);

  g_info ("Reloading the configuration");
  load_config (self, problems, NULL);
  redetect_conflicts (self);
  pp_profile_state_read_platform (self->profile);
  /* LowBatteryPercent= may have changed */
  update_power_source (self, FALSE);
  apply_all (self, "reload");

  for (guint i = 0; i < problems->len; i++)
    g_ptr_array_add (strings, pp_config_problem_to_string (g_ptr_array_index (problems, i)));
  if (problems_out)
    *problems_out = g_steal_pointer (&strings);
}

void
pp_manager_shutdown (PpManager *self)
{
  PpRestore *restore = pp_executor_get_restore (self->executor);

  if (pp_manager_get_dry_run (self))
    return;
  if (!self->config->restore_on_exit)
    {
      g_autoptr(GError) error = NULL;

      g_autoptr(GPtrArray) policy_paths = pp_executor_policy_paths (self->executor);

      /* the values stay: the next run takes the originals over */
      if (pp_restore_keep (restore, policy_paths, &error))
        return;
      g_warning ("Cannot keep the original values for the next run: %s", error->message);
    }
  else
    pp_executor_restore_originals (pp_restore_get_recorded (restore), "on exit");
  pp_restore_clear (restore);
}

void
pp_manager_reapply (PpManager *self)
{
  /* firmware may have reset attributes across sleep: not another
   * program's change */
  pp_foreign_tracker_forget_written (pp_executor_get_foreign (self->executor));
  apply_all (self, "resume");
}

gboolean
pp_manager_get_dry_run (PpManager *self)
{
  return pp_executor_get_dry_run (self->executor);
}

void
pp_manager_set_user_idle (PpManager *self, gboolean user_idle)
{
  if (self->situation.user_idle == user_idle)
    return;
  self->situation.user_idle = user_idle;
  g_info ("User %s", user_idle ? "idle: applying the idle layers" : "active: idle layers removed");
  if (self->started)
    apply_all (self, user_idle ? "idle" : "active");
}

void
pp_manager_set_profile (PpManager *self, PpProfile profile)
{
  if (self->situation.profile == profile)
    return;
  self->situation.profile = profile;
  g_info ("Power profile: %s", pp_profile_to_string (profile));
  g_object_notify_by_pspec (G_OBJECT (self), pp_manager_props[PROP_POWER_PROFILE]);
  if (self->started)
    apply_all (self, pp_profile_to_string (profile));
}

PpProfile
pp_manager_get_profile (PpManager *self)
{
  return self->situation.profile;
}

gboolean
pp_manager_get_user_idle (PpManager *self)
{
  return self->situation.user_idle;
}

static void
pp_manager_emit_conflicts_changed (PpManager *self)
{
  g_signal_emit (self, pp_manager_signals[SIGNAL_CONFLICTS_CHANGED], 0);
}

/* A program other than us serves the power profiles' names (NULL, NULL:
 * none now): a row of Conflicts (org.powerpolicy1.Manager.xml). */
void
pp_manager_set_profiles_conflict (PpManager *self, const char *subject, const char *what)
{
  if (g_strcmp0 (self->profiles_conflict_subject, subject) == 0 &&
      g_strcmp0 (self->profiles_conflict_what, what) == 0)
    return;
  g_free (self->profiles_conflict_subject);
  g_free (self->profiles_conflict_what);
  self->profiles_conflict_subject = g_strdup (subject);
  self->profiles_conflict_what = g_strdup (what);
  pp_manager_emit_conflicts_changed (self);
}

guint64
pp_manager_get_n_write_failures (PpManager *self)
{
  return pp_executor_get_n_write_failures (self->executor);
}

double
pp_manager_get_last_policy_pass_sec (PpManager *self)
{
  return self->last_pass_sec;
}

gboolean
pp_manager_get_on_battery (PpManager *self)
{
  return self->situation.on_battery;
}

gboolean
pp_manager_get_low_battery (PpManager *self)
{
  return self->situation.low_battery;
}

const PpSituation *
pp_manager_get_situation (PpManager *self)
{
  return &self->situation;
}

const PpConfig *
pp_manager_get_config (PpManager *self)
{
  return self->config;
}

const char *
pp_manager_get_backend (PpManager *self)
{
  /* the sleep component says which, once it knows whether logind is on
   * the bus; before that (and in --oneshot) nothing talks to logind */
  return self->backend != NULL ? self->backend : "kernel";
}

void
pp_manager_set_backend (PpManager *self, const char *backend)
{
  g_free (self->backend);
  self->backend = g_strdup (backend);
}

const PpManagerOptions *
pp_manager_get_options (PpManager *self)
{
  return &self->options;
}

/* ---- what changed, overrides, conflicts (open to everyone) ------------ */

/* ---- overrides -------------------------------------------------------- */

/* ---- device arguments ------------------------------------------------- */

/* ---- GObject ---------------------------------------------------------- */

static void
pp_manager_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  PpManager *self = PP_MANAGER (object);

  switch (prop_id)
    {
    case PROP_ON_BATTERY:
      g_value_set_boolean (value, self->situation.on_battery);
      break;
    case PROP_LOW_BATTERY:
      g_value_set_boolean (value, self->situation.low_battery);
      break;
    case PROP_POWER_SOURCE:
      g_value_set_string (value, pp_power_source_to_string (self->power_source));
      break;
    case PROP_DRY_RUN:
      g_value_set_boolean (value, pp_manager_get_dry_run (self));
      break;
    case PROP_WRITE_FAILURES:
      g_value_set_uint64 (value, pp_executor_get_n_write_failures (self->executor));
      break;
    case PROP_LAST_POLICY_PASS_SEC:
      g_value_set_double (value, self->last_pass_sec);
      break;
    case PROP_POWER_PROFILE:
      g_value_set_string (value, pp_profile_to_string (self->situation.profile));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pp_manager_finalize (GObject *object)
{
  PpManager *self = PP_MANAGER (object);

  if (self->udev)
    g_signal_handlers_disconnect_by_data (self->udev, self);
  g_clear_object (&self->udev);
  g_clear_pointer (&self->layers, pp_layers_free);
  g_clear_pointer (&self->profile, pp_profile_state_free);
  g_clear_pointer (&self->table, pp_device_table_free);
  g_ptr_array_unref (self->layer_requests);
  g_clear_pointer (&self->executor, pp_executor_free);
  g_clear_pointer (&self->overrides, pp_overrides_free);
  g_clear_pointer (&self->residency, pp_residency_book_free);
  g_clear_pointer (&self->installed_conflicts, g_ptr_array_unref);
  g_clear_pointer (&self->config, pp_config_free);
  g_free (self->profiles_conflict_subject);
  g_free (self->profiles_conflict_what);
  g_free (self->options.config_path);
  g_free (self->options.state_dir);
  g_free (self->options.runtime_dir);
  g_free (self->backend);
  g_free (self->power_source_origin);
  G_OBJECT_CLASS (pp_manager_parent_class)->finalize (object);
}

static void
pp_manager_class_init (PpManagerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = pp_manager_get_property;
  object_class->finalize = pp_manager_finalize;

  pp_manager_props[PROP_ON_BATTERY] =
    g_param_spec_boolean ("on-battery", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* on battery at or below [Daemon] LowBatteryPercent= (D-Bus LowBattery) */
  pp_manager_props[PROP_LOW_BATTERY] =
    g_param_spec_boolean ("low-battery", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* [Daemon] PowerSource= in force: "auto", "ac", "battery" (D-Bus
   * PowerSource; follows Reload) */
  pp_manager_props[PROP_POWER_SOURCE] =
    g_param_spec_string ("power-source", NULL, NULL, "auto",
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* --dry-run, or DryRun=true in the configuration (follows Reload) */
  pp_manager_props[PROP_DRY_RUN] =
    g_param_spec_boolean ("dry-run", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* attribute writes that failed since start; notified at most once per
   * executed plan (one per full pass), when it changed */
  pp_manager_props[PROP_WRITE_FAILURES] =
    g_param_spec_uint64 ("write-failures", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* seconds the last full policy pass (apply_all) took; 0 before the first */
  pp_manager_props[PROP_LAST_POLICY_PASS_SEC] =
    g_param_spec_double ("last-policy-pass-sec", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* the power profile in force (D-Bus PowerProfile) */
  pp_manager_props[PROP_POWER_PROFILE] =
    g_param_spec_string ("power-profile", NULL, NULL, "balanced",
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, pp_manager_props);

  /* (const char *syspath, GStrv attributes, GStrv values): what the
   * writes of one apply changed on a device, attribute paths relative to
   * it ("power/control") and the values written, index by index */
  pp_manager_signals[SIGNAL_DEVICE_CHANGED] =
    g_signal_new ("device-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                  G_TYPE_STRING, G_TYPE_STRV, G_TYPE_STRV);
  /* (PpDevice *device, gboolean is_new): after add/change and its apply */
  pp_manager_signals[SIGNAL_DEVICE_ADDED] =
    g_signal_new ("device-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_BOOLEAN);
  /* (const char *syspath): after the device left the table */
  pp_manager_signals[SIGNAL_DEVICE_REMOVED] =
    g_signal_new ("device-removed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* (const char *action, const char *syspath): a device of /sys/devices,
   * managed or not, was added, removed or moved; before device-added or
   * device-removed */
  pp_manager_signals[SIGNAL_TOPOLOGY_CHANGED] =
    g_signal_new ("topology-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  /* the rows of pp_manager_list_conflicts() changed */
  pp_manager_signals[SIGNAL_CONFLICTS_CHANGED] =
    g_signal_new ("conflicts-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
pp_manager_init (PpManager *self)
{
  self->table = pp_device_table_new ();
  self->layer_requests = pp_plan_requests_new ();
  self->residency = pp_residency_book_new (0);
}

PpManager *
pp_manager_new (const PpManagerOptions *options)
{
  PpManager *self = g_object_new (PP_TYPE_MANAGER, NULL);
  PpExecutorHooks hooks = { executor_managed, executor_plan_all, self };

  self->options.config_path = g_strdup (options->config_path);
  self->options.state_dir = g_strdup (options->state_dir ? options->state_dir : PP_STATEDIR);
  self->options.runtime_dir = g_strdup (options->runtime_dir ? options->runtime_dir : PP_RUNTIMEDIR);
  self->options.dry_run = options->dry_run;
  self->options.oneshot = options->oneshot;
  self->options.no_logind = options->no_logind;
  self->executor = pp_executor_new (self->options.runtime_dir, self->options.oneshot, &hooks);
  self->overrides = pp_overrides_new (self->options.state_dir);
  self->profile = pp_profile_state_new (self->executor, &self->situation, self->options.state_dir);
  self->layers = pp_layers_new (self, self->table, self->executor, self->overrides, self->profile,
                                &self->situation);
  return self;
}

/* ---- the layers (pp-manager-layers.c) --------------------------------- */

gboolean
pp_manager_set_held (PpManager   *self,
                     GPtrArray   *syspaths,
                     gboolean     held,
                     GError     **error)
{
  g_autoptr(GPtrArray) plan = pp_plan_new ();

  pp_layers_count_held (self->layers, syspaths, held);
  /* what a held device depends on may be a device the rules do not tag */
  for (guint i = 0; i < syspaths->len; i++)
    {
      PpDevice *dev = pp_manager_get_tree_device (self, g_ptr_array_index (syspaths, i));
      if (dev != NULL)
        pp_layers_plan_device (self->layers, plan, dev);
    }
  return pp_manager_execute_plan (self, plan, error);
}

gboolean
pp_manager_set_reverted (PpManager   *self,
                         GPtrArray   *syspaths,
                         gboolean     reverted,
                         GError     **error)
{
  g_autoptr(GPtrArray) plan = pp_plan_new ();

  pp_layers_count_reverted (self->layers, syspaths, reverted);
  /* a device that left meanwhile has nothing to write */
  for (guint i = 0; i < syspaths->len; i++)
    {
      PpDevice *dev = pp_device_table_lookup (self->table, g_ptr_array_index (syspaths, i));
      if (dev != NULL)
        pp_layers_plan_device (self->layers, plan, dev);
    }
  return pp_manager_execute_plan (self, plan, error);
}

gboolean
pp_manager_is_reverted (PpManager *self, const char *syspath)
{
  return pp_layers_is_reverted (self->layers, syspath);
}

gboolean
pp_manager_is_held (PpManager *self, const char *syspath)
{
  return pp_layers_is_held (self->layers, syspath);
}

gboolean
pp_manager_set_before_sleep (PpManager *self, gboolean before_sleep, GError **error)
{
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  guint written = 0, failed = 0;
  gboolean ok;

  if (self->situation.before_sleep == before_sleep)
    return TRUE;
  self->situation.before_sleep = before_sleep;
  pp_layers_plan_sleep (self->layers, plan, before_sleep);
  ok = pp_manager_execute_counted (self, plan, PP_EXECUTOR_PART, &written, &failed, error);
  /* the journal's account of the sleep's policy, as of every pass: what
   * the sleep layer wrote before the sleep and what undid it after */
  if (!pp_executor_get_dry_run (self->executor))
    pp_log_policy_applied (written, failed, before_sleep ? "sleep" : "resume");
  return ok;
}

gboolean
pp_manager_set_powered_down (PpManager  *self,
                             PpDevice   *dev,
                             gboolean    down,
                             GError    **error)
{
  pp_layers_set_powered_down (self->layers, dev->info->syspath, down);
  return pp_manager_apply_device (self, dev, error);
}

gboolean
pp_manager_power_up_device (PpManager   *self,
                            PpDevice    *dev,
                            GPtrArray  **out_decided,
                            GError     **error)
{
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  GPtrArray *decided = pp_layers_plan_power_up (self->layers, plan, dev);

  if (out_decided)
    *out_decided = decided;
  else
    g_ptr_array_unref (decided);
  return pp_manager_execute_plan (self, plan, error);
}

char *
pp_manager_get_decided_value (PpManager *self, PpDevice *dev, const char *relpath)
{
  return pp_layers_get_decided_value (self->layers, dev, relpath);
}

GPtrArray *
pp_manager_explain (PpManager *self, PpDevice *dev)
{
  return pp_layers_explain (self->layers, dev);
}

char *
pp_manager_get_exclusion (PpManager *self, PpDevice *dev)
{
  return pp_layers_get_exclusion (self->layers, dev);
}

void
pp_manager_set_hold_hook (PpManager         *self,
                          PpManagerHoldHook  hook,
                          gpointer           user_data)
{
  pp_layers_set_hold_hook (self->layers, hook, user_data);
}

void
pp_manager_set_revert_hook (PpManager         *self,
                            PpManagerHoldHook  hook,
                            gpointer           user_data)
{
  pp_layers_set_revert_hook (self->layers, hook, user_data);
}

GPtrArray *
pp_manager_list_changes (PpManager *self)
{
  return pp_layers_list_changes (self->layers);
}

static gboolean
pp_manager_apply_device (PpManager *self, PpDevice *dev, GError **error)
{
  g_autoptr(GPtrArray) plan = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_plan_write_free);

  pp_layers_plan_device (self->layers, plan, dev);
  return pp_manager_execute_plan (self, plan, error);
}


GPtrArray *
pp_manager_list_overrides (PpManager *self)
{
  return pp_overrides_list (self->overrides);
}

GPtrArray *
pp_manager_list_conflicts (PpManager *self)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_conflict_free);
  g_autoptr(GPtrArray) foreign = pp_foreign_tracker_list_conflicts (pp_executor_get_foreign (self->executor));

  for (guint i = 0; self->installed_conflicts != NULL && i < self->installed_conflicts->len; i++)
    {
      PpConflict *c = g_ptr_array_index (self->installed_conflicts, i);
      g_ptr_array_add (rows, pp_conflict_new (c->subject, c->what, c->evidence));
    }
  for (guint i = 0; i < foreign->len; i++)
    {
      PpConflict *c = g_ptr_array_index (foreign, i);
      g_ptr_array_add (rows, pp_conflict_new (c->subject, c->what, c->evidence));
    }
  if (self->profiles_conflict_subject != NULL)
    g_ptr_array_add (rows, pp_conflict_new (self->profiles_conflict_subject,
                                            self->profiles_conflict_what, NULL));
  return rows;
}

gboolean
pp_manager_set_override (PpManager   *self,
                         PpDevice    *dev,
                         const char  *key,
                         const char  *value,
                         GError     **error)
{
  const char *attr = pp_overrides_key_to_attr (key);
  const PpOverride *current;
  g_autoptr(PpOverride) previous = NULL;
  g_autofree char *attr_path = NULL;
  g_autofree char *excluded = NULL;
  g_autoptr(GError) apply_error = NULL;

  if (attr == NULL)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                   "unknown key '%s' (expected Control, AutosuspendDelayMs or Wakeup)",
                   key ? key : "");
      return FALSE;
    }
  if (dev->props.ignore)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_REFUSED,
                   "%s is ignored (POWERPOLICY_IGNORE=1): the daemon never writes to it",
                   dev->info->syspath);
      return FALSE;
    }
  excluded = pp_manager_get_exclusion (self, dev);
  if (excluded != NULL)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_REFUSED,
                   "%s is left to its driver (%s): the daemon never writes to it",
                   dev->info->syspath, excluded);
      return FALSE;
    }
  attr_path = g_build_filename (dev->info->syspath, attr, NULL);
  if (!g_file_test (attr_path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                   "%s has no %s attribute", dev->info->syspath, attr);
      return FALSE;
    }

  current = pp_overrides_lookup (self->overrides, dev->info->syspath);
  if (current != NULL)
    previous = pp_override_copy (current);
  if (!pp_overrides_set (self->overrides, dev->info->syspath, key, value, error))
    return FALSE;

  if (!pp_manager_apply_device (self, dev, &apply_error))
    {
      g_autoptr(GError) undo_error = NULL;

      /* nothing half-applied: the override goes again */
      if (!pp_overrides_replace (self->overrides, dev->info->syspath, previous, &undo_error))
        g_warning ("Cannot take back the override of %s: %s",
                   dev->info->syspath, undo_error->message);
      pp_manager_apply_device (self, dev, NULL);
      g_set_error (error, PP_ERROR, PP_ERROR_FAILED, "%s", apply_error->message);
      return FALSE;
    }
  pp_log_override (TRUE, dev->info->syspath, key, value);
  return TRUE;
}

gboolean
pp_manager_clear_overrides (PpManager  *self,
                            PpDevice   *dev,
                            GError    **error)
{
  g_autoptr(GError) apply_error = NULL;

  if (!pp_overrides_clear (self->overrides, dev->info->syspath, error))
    return FALSE;
  if (!pp_manager_apply_device (self, dev, &apply_error))
    {
      g_set_error (error, PP_ERROR, PP_ERROR_FAILED, "overrides cleared, but: %s",
                   apply_error->message);
      return FALSE;
    }
  pp_log_override (FALSE, dev->info->syspath, NULL, NULL);
  return TRUE;
}

/* ---- the device table (pp-device-table.c) ----------------------------- */

PpDevice *
pp_manager_get_device (PpManager *self, const char *syspath)
{
  return pp_device_table_lookup (self->table, syspath);
}

GPtrArray *
pp_manager_list_devices (PpManager *self)
{
  return pp_device_table_list (self->table);
}

PpDevice *
pp_manager_get_tree_device (PpManager *self, const char *syspath)
{
  return pp_device_table_get_tree_device (self->table, self->udev, syspath);
}

void
pp_manager_forget_tree_devices (PpManager *self)
{
  pp_device_table_forget_tree_devices (self->table);
}

PpDevice *
pp_manager_resolve_device (PpManager *self, const char *device, GError **error)
{
  return pp_device_table_resolve (self->table, device, error);
}

void
pp_manager_read_device_status (PpManager *self, PpDevice *dev, PpDeviceStatus *out)
{
  pp_device_read_status (dev, pp_layers_is_held (self->layers, dev->info->syspath), out);
}

GArray *
pp_manager_get_statistics (PpManager  *self,
                           PpDevice   *device,
                           gboolean    with_state,
                           GError    **error)
{
  return pp_device_table_get_statistics (self->table, self->residency, device, with_state, error);
}

GArray *
pp_manager_get_class_statistics (PpManager *self)
{
  return pp_device_table_get_class_statistics (self->table, self->residency);
}

GArray *
pp_manager_count_devices (PpManager *self)
{
  return pp_device_table_count_devices (self->table);
}

/* ---- the power profile (pp-manager-profile.c) ------------------------- */

const PpPlatformKnobs *
pp_manager_get_platform (PpManager *self)
{
  return pp_profile_state_get_platform (self->profile);
}

GPtrArray *
pp_manager_explain_platform (PpManager *self)
{
  return pp_profile_state_explain (self->profile);
}

PpProfile
pp_manager_load_saved_profile (PpManager *self)
{
  return pp_profile_state_load_saved (self->profile);
}

gboolean
pp_manager_save_profile (PpManager *self, PpProfile profile, GError **error)
{
  return pp_profile_state_save (self->profile, profile, error);
}
