/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-manager"

#include "config.h"

#include <errno.h>
#include <limits.h>
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
#include "pp-manager-private.h"
#include "pp-names.h"
#include "pp-overrides.h"
#include "pp-plan.h"
#include "pp-residency.h"
#include "pp-restore.h"
#include "pp-sysfs.h"
#include "pp-util.h"


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

/* ---- devices ---------------------------------------------------------- */


/* ---- applying --------------------------------------------------------- */




/* ---- the layers' requests ------------------------------------------- */

static char *
request_read (const char *path, PpPlanFlags flags, gpointer user_data)
{
  return pp_executor_read_current (path, flags, NULL);
}

static gpointer
request_device (const char *syspath, gpointer user_data)
{
  PpManager *self = user_data;
  PpDevice *dev = g_hash_table_lookup (self->devices, syspath);

  return dev != NULL ? dev : g_hash_table_lookup (self->unmanaged, syspath);
}

/* The standing requests of the layers into @plan. */
static void
plan_layer_requests (PpManager *self, GPtrArray *plan)
{
  PpPlanRequestValues values = { request_read, request_device, self };

  pp_plan_requests (plan, self->layer_requests, &values);
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
    pp_manager_plan_device (self, plan, g_ptr_array_index (devices, i));
  pp_manager_plan_modules (self, plan);
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

  return g_hash_table_contains (self->devices, syspath);
}

/* @reason: why ("start", "battery", "reload", ...), for policy-applied */
static void
apply_all (PpManager *self, const char *reason)
{
  gint64 start = g_get_monotonic_time ();
  g_autoptr(GPtrArray) plan = g_ptr_array_new_with_free_func ((GDestroyNotify) planned_write_free);
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
  g_autoptr(GPtrArray) plan = g_ptr_array_new_with_free_func ((GDestroyNotify) planned_write_free);

  pp_manager_plan_modules (self, plan);
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
    return pp_manager_compute_on_battery (self);
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
  gint percent = on_battery ? pp_manager_compute_battery_percent (self) : -1;
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

  if (!g_hash_table_contains (self->devices, info->syspath))
    return;
  pp_manager_device_table_remove (self, info->syspath);
  pp_residency_book_forget (self->residency, info->syspath);
  pp_executor_forget_touched (self->executor, info->syspath);
  /* it starts afresh when it comes back */
  forget_foreign_device (self, info->syspath);
  pp_manager_flush_conflicts_changed (self);
  g_hash_table_remove (self->powered_down, info->syspath);
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
  if (!g_hash_table_contains (self->devices, info->syspath))
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
  PpDevice *dev = parent ? g_hash_table_lookup (self->devices, parent) : NULL;
  g_autofree char *was = NULL;

  if (dev == NULL || !pp_manager_is_usb_device (dev->info))
    return;
  was = g_strdup (dev->props.klass);
  if (!pp_manager_classify_usb (dev))
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
  if (!pp_manager_is_managed_path (info->syspath))
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
      g_hash_table_remove_all (self->unmanaged);
      pp_manager_device_table_child_changed (self, info);
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
          g_hash_table_remove (self->unmanaged, info->syspath);
          forget_device (self, info);
          return;
        }
      g_hash_table_remove (self->unmanaged, info->syspath);
      is_new = !g_hash_table_contains (self->devices, info->syspath);
      /* a new device, one added again (re-plugged, its remove missed) or
       * a driver (re)bound: the kernel may have reset what the daemon
       * wrote, which is no other program's change */
      if (is_new || g_str_equal (action, "add") || g_str_equal (action, "bind"))
        forget_foreign_device (self, info->syspath);
      dev = pp_manager_device_table_set (self, info);
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
      if (pp_manager_is_managed_path (info->syspath))
        pp_manager_device_table_set (self, info);
    }
  g_info ("Managing %u devices", g_hash_table_size (self->devices));

  self->situation.on_battery = decide_on_battery (self);
  self->situation.low_battery =
    pp_policy_low_battery (self->situation.on_battery,
                           self->situation.on_battery ? pp_manager_compute_battery_percent (self) : -1,
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
  pp_manager_read_platform (self);
  if (self->config->power_profiles != PP_POWER_PROFILES_FALSE)
    self->situation.profile = pp_manager_load_saved_profile (self);
  if (self->situation.profile != PP_PROFILE_BALANCED)
    g_info ("Power profile: %s", pp_profile_to_string (self->situation.profile));

  apply_all (self, "start");
  /* --oneshot serves no statistics */
  if (!self->options.oneshot)
    set_residency_bases (self);
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
  pp_manager_read_platform (self);
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

void
pp_manager_notify_property (PpManager *self, guint prop)
{
  g_return_if_fail (prop > PROP_0 && prop < N_PROPS);
  g_object_notify_by_pspec (G_OBJECT (self), pp_manager_props[prop]);
}

gboolean
pp_manager_wants_device_changed (PpManager *self)
{
  return g_signal_has_handler_pending (self, pp_manager_signals[SIGNAL_DEVICE_CHANGED], 0, FALSE);
}

void
pp_manager_emit_device_changed (PpManager          *self,
                                const char         *syspath,
                                const char * const *attributes,
                                const char * const *values)
{
  g_signal_emit (self, pp_manager_signals[SIGNAL_DEVICE_CHANGED], 0, syspath, attributes, values);
}

void
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
  g_clear_pointer (&self->sorted_cache, g_ptr_array_unref);
  g_hash_table_unref (self->by_sysname);
  g_hash_table_unref (self->unmanaged);
  g_hash_table_unref (self->devices);
  g_hash_table_unref (self->held);
  g_hash_table_unref (self->reverted);
  g_ptr_array_unref (self->layer_requests);
  g_hash_table_unref (self->powered_down);
  g_clear_pointer (&self->executor, pp_executor_free);
  g_clear_pointer (&self->overrides, pp_overrides_free);
  g_clear_pointer (&self->residency, pp_residency_book_free);
  g_clear_pointer (&self->installed_conflicts, g_ptr_array_unref);
  g_clear_pointer (&self->config, pp_config_free);
  g_clear_pointer (&self->platform, pp_platform_knobs_free);
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
  self->devices = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) pp_device_free);
  self->unmanaged = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                           (GDestroyNotify) pp_device_free);
  self->by_sysname = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                            (GDestroyNotify) g_ptr_array_unref);
  self->held = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->reverted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->layer_requests = pp_plan_requests_new ();
  self->powered_down = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
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
  return self;
}

/* ---- statistics ------------------------------------------------------- */
