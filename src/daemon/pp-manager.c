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
#include "pp-devarg.h"
#include "pp-foreign.h"
#include "pp-log.h"
#include "pp-manager.h"
#include "pp-names.h"
#include "pp-overrides.h"
#include "pp-plan.h"
#include "pp-residency.h"
#include "pp-restore.h"
#include "pp-sysfs.h"
#include "pp-token.h"
#include "pp-util.h"


struct _PpManager {
  GObject           parent_instance;

  PpManagerOptions  options;
  char             *backend;        /* set by the sleep component; NULL: none yet */
  PpConfig         *config;
  PpUdev           *udev;
  PpRestore        *restore;
  PpOverrides      *overrides;

  /* what this run changed: device syspath (or /sys/module) -> set of
   * relpaths, so a setting that leaves the policy gets its original back */
  GHashTable       *touched;

  GHashTable       *devices;        /* syspath -> PpDevice*: the tagged devices */
  GHashTable       *unmanaged;      /* syspath -> PpDevice*: untagged devices a tree
                                     * operation looked at (pp_manager_get_tree_device) */
  GHashTable       *by_sysname;     /* sysname -> GPtrArray of PpDevice* (unowned) */
  GPtrArray        *sorted_cache;   /* PpDevice*, or NULL when stale */

  PpSituation       situation;
  gboolean          started;

  GHashTable       *held;           /* syspath -> number of holds keeping it on */
  GHashTable       *powered_down;   /* syspaths PowerDown(auto) allowed to suspend */

  PpManagerHoldHook hold_hook;      /* who holds a device, for Explain */
  gpointer          hold_hook_data;

  GHashTable       *failed_writes;  /* path -> errno, to log each failure once */
  guint64           n_write_failures;
  guint64           notified_write_failures;  /* the value "write-failures" last announced */

  /* --dry-run or DryRun=true: computed in one place (load_config) */
  gboolean          dry_run;
  /* a pass could not journal its originals and changed nothing: the
   * next pass or event tries everything again */
  gboolean          journal_failed;

  /* other programs: tools installed (PpConflict*, found at start and on
   * Reload) and foreign changes of what the daemon wrote */
  GPtrArray        *installed_conflicts;
  PpForeignTracker *foreign;
  gboolean          foreign_changed;   /* since the last conflicts-changed */

  /* writes and failures of the current pass, for policy-applied */
  guint             pass_written;
  guint             pass_failed;
  double            last_pass_sec;    /* duration of the last full pass; 0 before the first */

  /* runtime-PM counter bases (GetStatistics): taken at start and for the
   * devices a policy pass changed; read when asked, never on a timer */
  PpResidencyBook  *residency;
};

enum {
  PROP_0,
  PROP_ON_BATTERY,
  PROP_DRY_RUN,
  PROP_WRITE_FAILURES,
  PROP_LAST_POLICY_PASS_SEC,
  PROP_LOW_BATTERY,
  N_PROPS,
};
static GParamSpec *props[N_PROPS];

enum {
  SIGNAL_DEVICE_CHANGED,
  SIGNAL_DEVICE_ADDED,
  SIGNAL_DEVICE_REMOVED,
  SIGNAL_TOPOLOGY_CHANGED,
  SIGNAL_CONFLICTS_CHANGED,
  N_SIGNALS,
};
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (PpManager, pp_manager, G_TYPE_OBJECT)

/* ---- devices ---------------------------------------------------------- */

static const char *
lookup_info_property (gpointer user_data, const char *key)
{
  return pp_device_info_get_property (user_data, key);
}

static gboolean
is_usb_device (PpDeviceInfo *info)
{
  return g_str_equal (info->subsystem, "usb") && g_strcmp0 (info->devtype, "usb_device") == 0;
}

/* The class of a USB device also follows the drivers bound to its
 * interfaces (SPEC §3); POWERPOLICY_CLASS from the rules wins. Other
 * devices: their class as udev's properties say. */
static const char *
usb_effective_class (PpDevice *dev)
{
  g_autoptr(GArray) interfaces = NULL;

  if (!is_usb_device (dev->info))
    return dev->props.klass;
  interfaces = pp_udev_read_usb_interfaces (dev->info->syspath);
  return pp_usb_class_effective (pp_device_info_get_property (dev->info, "POWERPOLICY_CLASS"),
                                 dev->info->subsystem,
                                 (const PpUsbInterface *) (gpointer) interfaces->data,
                                 interfaces->len,
                                 pp_udev_read_usb_vendor (dev->info->syspath));
}

/* TRUE when the class changed. */
static gboolean
classify_usb (PpDevice *dev)
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
  classify_usb (dev);
  return dev;
}

static void
pp_device_free (PpDevice *dev)
{
  pp_device_props_clear (&dev->props);
  pp_device_info_unref (dev->info);
  g_free (dev);
}

static void
index_remove (PpManager *self, PpDevice *dev)
{
  GPtrArray *list = g_hash_table_lookup (self->by_sysname, dev->info->sysname);

  if (list == NULL)
    return;
  g_ptr_array_remove (list, dev);
  if (list->len == 0)
    g_hash_table_remove (self->by_sysname, dev->info->sysname);
}

static void
index_add (PpManager *self, PpDevice *dev)
{
  GPtrArray *list = g_hash_table_lookup (self->by_sysname, dev->info->sysname);

  if (list == NULL)
    {
      list = g_ptr_array_new ();
      g_hash_table_insert (self->by_sysname, g_strdup (dev->info->sysname), list);
    }
  g_ptr_array_add (list, dev);
}

static gboolean
is_managed_path (const char *syspath)
{
  return pp_sysfs_path_is_under (syspath, PP_SYSFS_DEVICES);
}

/* Device links (/sys/devices/virtual/devlink/...) are edges of the
 * power-dependency tree, not devices (the kernel gives them no power/):
 * kept in the table so that their uevents reach the tree, but never
 * listed, resolved as a device argument, or written. */
static gboolean
is_device_link (PpDevice *dev)
{
  return g_strcmp0 (dev->info->subsystem, "devlink") == 0;
}

/* Insert or replace; returns the device now in the table. */
static PpDevice *
device_table_set (PpManager *self, PpDeviceInfo *info)
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

static void
device_table_remove (PpManager *self, const char *syspath)
{
  PpDevice *dev = g_hash_table_lookup (self->devices, syspath);

  if (dev == NULL)
    return;
  index_remove (self, dev);
  g_hash_table_remove (self->devices, syspath);
  g_clear_pointer (&self->sorted_cache, g_ptr_array_unref);
}

static gint
compare_devices (gconstpointer a, gconstpointer b)
{
  const PpDevice *da = *(PpDevice * const *) a;
  const PpDevice *db = *(PpDevice * const *) b;

  return strcmp (da->info->syspath, db->info->syspath);
}

GPtrArray *
pp_manager_list_devices (PpManager *self)
{
  if (self->sorted_cache == NULL)
    {
      GHashTableIter iter;
      gpointer value;

      self->sorted_cache = g_ptr_array_sized_new (g_hash_table_size (self->devices));
      g_hash_table_iter_init (&iter, self->devices);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        if (!is_device_link (value))
          g_ptr_array_add (self->sorted_cache, value);
      g_ptr_array_sort (self->sorted_cache, compare_devices);
    }
  return self->sorted_cache;
}


/* ---- applying --------------------------------------------------------- */

typedef PpPlanWrite PlannedWrite;
#define planned_write_free pp_plan_write_free

static gboolean
dry_run (PpManager *self)
{
  return self->dry_run;
}

static const char * const sys_power_roots[] = { PP_SYSFS_POWER, NULL };
static const char * const proc_kernel_roots[] = { "/proc/sys/kernel", NULL };

/* Where a write to @path may land: device and module attributes under
 * the policy roots; of /sys/power and /proc/sys only the sleep settings
 * the daemon knows. NULL: nowhere. The one answer for writing and for
 * restoring a journal. */
static const char * const *
roots_for_path (const char *path)
{
  static const char * const sleep_settings[] = {
    PP_SYSFS_POWER "/state", PP_SYSFS_POWER "/mem_sleep", PP_SYSFS_POWER "/disk", NULL,
  };

  if (pp_sysfs_path_is_under (path, PP_SYSFS_DEVICES) ||
      pp_sysfs_path_is_under (path, PP_SYSFS_MODULE))
    return pp_sysfs_policy_roots;
  if (g_strv_contains (sleep_settings, path))
    return sys_power_roots;
  if (g_str_equal (path, PP_PROC_ACPI_VIDEO_FLAGS))
    return proc_kernel_roots;
  return NULL;
}

/* What @path holds now; for a list of choices ("s2idle [deep]") the
 * chosen one. NULL with @error as pp_sysfs_read(). */
static char *
read_current (const char *path, PpManagerWriteFlags flags, GError **error)
{
  g_autofree char *text = pp_sysfs_read (path, error);
  const char *open, *close;

  if (text == NULL || !(flags & PP_MANAGER_WRITE_CHOICE))
    return g_steal_pointer (&text);
  open = strchr (text, '[');
  close = open ? strchr (open, ']') : NULL;
  if (close == NULL)
    return g_steal_pointer (&text);
  return g_strndup (open + 1, close - open - 1);
}

/* Before the daemon writes @relpath of @dir again: was it changed by
 * someone else since the daemon last wrote it? Reported, and after the
 * third time given up (never fight). FALSE: do not write it. */
static gboolean
check_foreign (PpManager  *self,
               PpDevice   *dev,
               const char *dir,
               const char *relpath,
               const char *current,
               const char *value)
{
  const char *ours = NULL;
  g_autofree char *ours_copy = NULL;
  guint count = 0;
  PpForeignResult result = pp_foreign_tracker_check (self->foreign, dir, relpath, current,
                                                     &ours, &count);
  const char *klass = dev != NULL ? dev->props.klass : NULL;

  switch (result)
    {
    case PP_FOREIGN_NONE:
      return TRUE;
    case PP_FOREIGN_GIVEN_UP:
      g_debug ("%s: %s left to the other program until Reload", dir, relpath);
      return FALSE;
    case PP_FOREIGN_CHANGED:
    case PP_FOREIGN_GIVE_UP:
      ours_copy = g_strdup (ours);
      pp_log_foreign_change (dir, relpath, ours_copy, current, count,
                             result == PP_FOREIGN_GIVE_UP, klass);
      self->foreign_changed = TRUE;
      if (result == PP_FOREIGN_GIVE_UP)
        return FALSE;
      /* their value is the one the policy wants now: nothing to write,
       * and it is ours from here on (not a change again next time) */
      if (g_str_equal (current, value))
        pp_foreign_tracker_note_written (self->foreign, dir, relpath, value);
      return TRUE;
    default:
      g_assert_not_reached ();
    }
}

/* The executor's view of the current values for the planner: sysfs,
 * and the journal of originals. */
static char *
plan_read (const char *path, gboolean *unreadable, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  char *current = pp_sysfs_read (path, &error);

  if (current != NULL)
    return current;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY))
    {
      g_debug ("no attribute %s, skipping", path);
      return NULL;
    }
  /* unreadable but present: try the write, which reports */
  g_debug ("cannot read %s: %s", path, error->message);
  *unreadable = TRUE;
  return g_strdup ("");
}

static const char *
plan_original (const char *path, gpointer user_data)
{
  PpManager *self = user_data;

  return pp_restore_lookup (self->restore, path);
}

static void
plan_settings (PpManager *self, GPtrArray *plan, PpDevice *dev, const char *dir, GPtrArray *settings)
{
  PpPlanValues values = { plan_read, plan_original, self };

  pp_plan_settings (plan, dev, dir, settings, g_hash_table_lookup (self->touched, dir), &values);
}

static char *hold_origin (PpManager *self, const char *syspath);

/* The one decision for a device, behind applying and Explain.
 * @power_up: PowerUp's pass, power/control=on above every layer (for
 * this pass only: the next one is the policy's again). @with_power_down:
 * PowerDown(auto), when in force, is a layer of the answer. */
static PpDecision *
decide_device (PpManager *self, PpDevice *dev, gboolean power_up, gboolean with_power_down)
{
  const char *syspath = dev->info->syspath;
  gboolean held = g_hash_table_contains (self->held, syspath);
  g_autofree char *held_by = held ? hold_origin (self, syspath) : NULL;
  PpDeviceState state = {
    .override = pp_overrides_lookup (self->overrides, syspath),
    .powered_down = with_power_down && g_hash_table_contains (self->powered_down, syspath),
    .held = held || power_up,
    .held_by = held ? held_by : power_up ? "PowerUp over D-Bus" : NULL,
    .driver = dev->info->driver,
  };

  return pp_policy_decide (self->config, &dev->props, &self->situation, &state);
}

/* Returns the settings planned (NULL for an ignored device or a link). */
static GPtrArray *
plan_device_full (PpManager *self, GPtrArray *plan, PpDevice *dev, gboolean power_up)
{
  g_autoptr(PpDecision) decision = NULL;

  if (dev->props.ignore || is_device_link (dev))
    return NULL;
  decision = decide_device (self, dev, power_up, TRUE);
  /* a device whose driver the class excludes gets nothing written, and
   * what an earlier pass wrote (before that driver was bound) goes back
   * to its original: decision->settings is empty */
  plan_settings (self, plan, dev, dev->info->syspath, decision->settings);
  return g_steal_pointer (&decision->settings);
}

static void
plan_device (PpManager *self, GPtrArray *plan, PpDevice *dev)
{
  g_autoptr(GPtrArray) settings = plan_device_full (self, plan, dev, FALSE);
}

static void
plan_modules (PpManager *self, GPtrArray *plan)
{
  g_autoptr(GPtrArray) settings = pp_policy_module_settings (self->config, &self->situation);

  plan_settings (self, plan, NULL, PP_SYSFS_MODULE, settings);
}

static void
mark_touched (PpManager *self, PlannedWrite *w)
{
  const char *dir = w->dir;
  GHashTable *set = g_hash_table_lookup (self->touched, dir);

  if (set == NULL)
    {
      set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_insert (self->touched, g_strdup (dir), set);
    }
  if (!g_hash_table_contains (set, w->relpath))
    g_hash_table_add (set, g_strdup (w->relpath));
}

/* Tell what a device's applied writes changed: its attributes (relative
 * paths) and their new values, in the order written. */
static void
emit_device_changed (PpManager *self, PpDevice *dev, GPtrArray *writes)
{
  g_autoptr(GStrvBuilder) attrs = NULL;
  g_autoptr(GStrvBuilder) values = NULL;
  g_auto(GStrv) attrv = NULL;
  g_auto(GStrv) valuev = NULL;

  if (!g_signal_has_handler_pending (self, signals[SIGNAL_DEVICE_CHANGED], 0, FALSE))
    return;
  attrs = g_strv_builder_new ();
  values = g_strv_builder_new ();
  for (guint i = 0; i < writes->len; i++)
    {
      PlannedWrite *w = g_ptr_array_index (writes, i);

      g_strv_builder_add (attrs, w->relpath);
      g_strv_builder_add (values, w->value);
    }
  attrv = g_strv_builder_end (attrs);
  valuev = g_strv_builder_end (values);
  g_signal_emit (self, signals[SIGNAL_DEVICE_CHANGED], 0, dev->info->syspath, attrv, valuev);
}

static gboolean is_setting (PlannedWrite *w);

static void
report_write_failure (PpManager *self, PlannedWrite *w, const GError *error)
{
  const char *device = w->dev ? ((PpDevice *) w->dev)->info->syspath : w->dir ? w->dir : w->path;
  gpointer old;

  self->n_write_failures++;
  /* once per attribute and error code, however often the policy re-applies */
  if (g_hash_table_lookup_extended (self->failed_writes, w->path, NULL, &old) &&
      GPOINTER_TO_INT (old) == error->code)
    {
      g_debug ("%s: %s still fails: %s", device, w->relpath, error->message);
      return;
    }
  g_hash_table_replace (self->failed_writes, g_strdup (w->path), GINT_TO_POINTER (error->code));
  pp_log_write_failed (device, w->relpath, w->value,
                       is_setting (w) ? w->current : NULL,
                       w->dev ? ((PpDevice *) w->dev)->props.klass : NULL, error);
}

/* Keep the journal to what can still be restored, in a bounded number of
 * files; a failure (a full directory) leaves the older files, which hold
 * the same originals, and is tried again next time. */
static void
compact_journal (PpManager *self)
{
  g_autoptr(GError) error = NULL;

  if (dry_run (self) || self->options.oneshot || !pp_restore_needs_compaction (self->restore))
    return;
  if (!pp_restore_compact (self->restore, &error))
    g_debug ("Cannot compact the journal of original values (the older files stay): %s",
             error->message);
}

static gboolean
is_setting (PlannedWrite *w)
{
  return !(w->flags & PP_MANAGER_WRITE_ACTION);
}

/* A write that failed because its attribute or device is not there. */
static gboolean
is_gone (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NO_SUCH_DEVICE);
}

static gboolean
write_planned (PlannedWrite *w, GError **error)
{
  const char * const *roots;

  if (w->dir != NULL)
    return pp_sysfs_write_at (w->dir, w->relpath, w->value, pp_sysfs_policy_roots, error);
  roots = roots_for_path (w->path);
  if (roots == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "refusing to write %s: not an attribute powerpolicyd manages", w->path);
      return FALSE;
    }
  return pp_sysfs_write (w->path, w->value, roots, error);
}

/* The executor's first step: what the plan would write again that
 * another program changed since the daemon wrote it is reported (and
 * after the third time left alone); what is in place goes. */
static void
filter_plan (PpManager *self, GPtrArray *plan)
{
  for (guint i = 0; i < plan->len;)
    {
      PlannedWrite *w = g_ptr_array_index (plan, i);
      gboolean keep = TRUE;

      if (w->dir != NULL && !w->unreadable)
        keep = check_foreign (self, w->dev, w->dir, w->relpath, w->current, w->value) &&
               !w->in_place;
      if (keep)
        i++;
      else
        g_ptr_array_remove_index (plan, i);
    }
}

/* The one place that writes: under dry-run, log each write and do none;
 * else record the originals of the settings in @plan (an action such as
 * /sys/power/state has none), then write them. FALSE when a write
 * failed; @first_error describes the first failure. */
static gboolean
execute_plan_writes (PpManager *self, GPtrArray *plan, GError **first_error)
{
  gboolean ok = TRUE;
  g_autoptr(GPtrArray) originals = NULL;
  g_autoptr(GHashTable) done = NULL;
  g_autoptr(GError) error = NULL;

  filter_plan (self, plan);
  if (plan->len == 0)
    return TRUE;

  if (dry_run (self))
    {
      for (guint i = 0; i < plan->len; i++)
        {
          PlannedWrite *w = g_ptr_array_index (plan, i);
          if (is_setting (w))
            g_message ("dry-run: would write '%s' to %s (now '%s')", w->value, w->path, w->current);
          else
            g_message ("dry-run: would write '%s' to %s", w->value, w->path);
        }
      return TRUE;
    }

  /* --oneshot leaves its policy in place for good: nothing to restore */
  if (!self->options.oneshot)
    {
      originals = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_original_free);
      for (guint i = 0; i < plan->len; i++)
        {
          PlannedWrite *w = g_ptr_array_index (plan, i);
          if (is_setting (w) && !pp_restore_contains (self->restore, w->path))
            g_ptr_array_add (originals, pp_original_new (w->path, w->current));
        }
      if (!pp_restore_record (self->restore, originals, &error))
        {
          /* without a record a crash could not be undone: change nothing
           * now, and try again at the next pass or event */
          if (!self->journal_failed)
            g_warning ("Cannot record original values, not applying %u changes "
                       "(trying again at the next change): %s", plan->len, error->message);
          else
            g_debug ("Still cannot record original values, not applying %u changes: %s",
                     plan->len, error->message);
          self->journal_failed = TRUE;
          self->n_write_failures += plan->len;
          self->pass_failed += plan->len;
          g_propagate_prefixed_error (first_error, g_steal_pointer (&error),
                                      "cannot record original values: ");
          return FALSE;
        }
      compact_journal (self);
    }

  done = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                (GDestroyNotify) g_ptr_array_unref);
  for (guint i = 0; i < plan->len; i++)
    {
      PlannedWrite *w = g_ptr_array_index (plan, i);
      g_autoptr(GError) werror = NULL;

      if (!is_setting (w))
        g_info ("Writing %s to %s", w->value, w->path);
      if (!write_planned (w, &werror))
        {
          /* a device that went away mid-apply is not an error */
          if (w->dev != NULL && is_gone (werror) &&
              !g_file_test (((PpDevice *) w->dev)->info->syspath, G_FILE_TEST_IS_DIR))
            {
              g_debug ("%s vanished while applying", ((PpDevice *) w->dev)->info->syspath);
              continue;
            }
          report_write_failure (self, w, werror);
          self->pass_failed++;
          if (ok && first_error != NULL && *first_error == NULL)
            *first_error = g_steal_pointer (&werror);
          ok = FALSE;
          continue;
        }
      g_hash_table_remove (self->failed_writes, w->path);
      self->pass_written++;
      /* only a layer's writes: leaving the layer reverts them, and a
       * value found changed next time is another program's */
      if (w->dir != NULL)
        {
          /* what the kernel made of it ("1" to a bool reads back "Y"),
           * so that its own form is not taken for another program's */
          g_autofree char *now = pp_sysfs_read (w->path, NULL);

          pp_foreign_tracker_note_written (self->foreign, w->dir, w->relpath,
                                           now != NULL ? now : w->value);
        }
      if (!self->options.oneshot && w->dir != NULL)
        mark_touched (self, w);
      g_debug ("%s = %s (was %s)", w->path, w->value, w->current);
      if (w->dev != NULL)
        {
          GPtrArray *list = g_hash_table_lookup (done, w->dev);
          if (list == NULL)
            {
              list = g_ptr_array_new ();
              g_hash_table_insert (done, w->dev, list);
            }
          g_ptr_array_add (list, w);
        }
    }

  if (!self->options.oneshot)
    {
      GHashTableIter iter;
      gpointer key, value;

      g_hash_table_iter_init (&iter, done);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          /* residency "since the last policy change" for what changed
           * (the start-up pass is followed by every device's base) */
          if (self->started)
            pp_residency_book_set_base (self->residency, ((PpDevice *) key)->info->syspath);
          emit_device_changed (self, key, value);
        }
    }
  return ok;
}

/* Tell listeners when the Conflicts rows changed (a foreign change
 * seen while planning, tools found on Reload). */
static void
flush_conflicts_changed (PpManager *self)
{
  if (!self->foreign_changed)
    return;
  self->foreign_changed = FALSE;
  g_signal_emit (self, signals[SIGNAL_CONFLICTS_CHANGED], 0);
}

/* Announce "write-failures" once per executed plan (a full pass is one
 * plan), and only when failures were counted since the last time. */
static void
flush_write_failures (PpManager *self)
{
  if (self->n_write_failures == self->notified_write_failures)
    return;
  self->notified_write_failures = self->n_write_failures;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_WRITE_FAILURES]);
}

static gboolean
execute_plan (PpManager *self, GPtrArray *plan, GError **first_error)
{
  gboolean ok = execute_plan_writes (self, plan, first_error);

  flush_conflicts_changed (self);
  flush_write_failures (self);
  return ok;
}

static void apply_all_pass (PpManager *self, const char *reason);

/* @reason: why ("start", "battery", "reload", ...), for policy-applied */
static void
apply_all (PpManager *self, const char *reason)
{
  /* a full pass: whatever could not be journalled before is in it */
  self->journal_failed = FALSE;
  apply_all_pass (self, reason);
}

/* A pass that could not journal (the runtime directory full) changed
 * nothing: the next pass or event applies everything again. */
static void
retry_unjournalled (PpManager *self)
{
  if (!self->journal_failed || !self->started)
    return;
  g_info ("Trying again to apply what could not be journalled");
  apply_all (self, "retry");
}

static void
apply_all_pass (PpManager *self, const char *reason)
{
  gint64 start = g_get_monotonic_time ();
  g_autoptr(GPtrArray) plan = g_ptr_array_new_with_free_func ((GDestroyNotify) planned_write_free);
  GPtrArray *devices = pp_manager_list_devices (self);
  double seconds;

  self->pass_written = self->pass_failed = 0;
  for (guint i = 0; i < devices->len; i++)
    plan_device (self, plan, g_ptr_array_index (devices, i));
  plan_modules (self, plan);
  execute_plan (self, plan, NULL);
  seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  if (seconds != self->last_pass_sec)
    {
      self->last_pass_sec = seconds;
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LAST_POLICY_PASS_SEC]);
    }
  /* under dry-run the would-be writes are the log */
  if (!dry_run (self))
    pp_log_policy_applied (self->pass_written, self->pass_failed, reason);
}

static gboolean
apply_device (PpManager *self, PpDevice *dev, GError **error)
{
  g_autoptr(GPtrArray) plan = g_ptr_array_new_with_free_func ((GDestroyNotify) planned_write_free);

  plan_device (self, plan, dev);
  return execute_plan (self, plan, error);
}

static void
apply_modules (PpManager *self)
{
  g_autoptr(GPtrArray) plan = g_ptr_array_new_with_free_func ((GDestroyNotify) planned_write_free);

  plan_modules (self, plan);
  execute_plan (self, plan, NULL);
}

/* ---- power source ----------------------------------------------------- */

static gboolean
compute_on_battery (PpManager *self)
{
  g_autoptr(GArray) facts = g_array_new (FALSE, TRUE, sizeof (PpPowerSupplyFacts));
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *devices = pp_manager_list_devices (self);

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
static gint
compute_battery_percent (PpManager *self)
{
  g_autoptr(GArray) facts = g_array_new (FALSE, TRUE, sizeof (PpBatteryFacts));
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *devices = pp_manager_list_devices (self);

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

/* Re-read the power source and the battery charge (power_supply
 * uevents: the kernel sends "change" as the charge moves); on a change of
 * the situation re-apply every layer at once. */
static void
update_power_source (PpManager *self, gboolean apply)
{
  gboolean on_battery = compute_on_battery (self);
  gint percent = on_battery ? compute_battery_percent (self) : -1;
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
      g_info ("Power source: %s", on_battery ? "battery" : "AC");
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_ON_BATTERY]);
    }
  if (low_changed)
    {
      g_info ("Low battery: %s (charge %d%%, LowBatteryPercent=%u)", low_battery ? "yes" : "no",
              percent, self->config->low_battery_percent);
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LOW_BATTERY]);
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
  pp_restore_forget_under (self->restore, dir);
  compact_journal (self);
}

static gboolean conflict_rows_equal (GPtrArray *a, GPtrArray *b);

/* Forget what the tracker knows of a device; Conflicts changes only when
 * it had a row there. */
static void
forget_foreign_device (PpManager *self, const char *syspath)
{
  g_autoptr(GPtrArray) before = pp_foreign_tracker_list_conflicts (self->foreign);
  g_autoptr(GPtrArray) after = NULL;

  pp_foreign_tracker_forget_device (self->foreign, syspath);
  if (before->len == 0)
    return;
  after = pp_foreign_tracker_list_conflicts (self->foreign);
  if (!conflict_rows_equal (before, after))
    self->foreign_changed = TRUE;
}

static void
forget_device (PpManager *self, PpDeviceInfo *info)
{
  gboolean was_supply = g_str_equal (info->subsystem, "power_supply");

  if (!g_hash_table_contains (self->devices, info->syspath))
    return;
  device_table_remove (self, info->syspath);
  pp_residency_book_forget (self->residency, info->syspath);
  g_hash_table_remove (self->touched, info->syspath);
  /* it starts afresh when it comes back */
  forget_foreign_device (self, info->syspath);
  flush_conflicts_changed (self);
  g_hash_table_remove (self->powered_down, info->syspath);
  g_signal_emit (self, signals[SIGNAL_DEVICE_REMOVED], 0, info->syspath);
  if (was_supply)
    update_power_source (self, TRUE);
}

/* Re-classify the USB device an interface belongs to, and re-apply its
 * policy when its class changed. */
static void
reclassify_usb_parent (PpManager *self, PpDeviceInfo *interface)
{
  const char *parent = pp_device_info_get_parent (interface);
  PpDevice *dev = parent ? g_hash_table_lookup (self->devices, parent) : NULL;
  g_autofree char *was = NULL;

  if (dev == NULL || !is_usb_device (dev->info))
    return;
  was = g_strdup (dev->props.klass);
  if (!classify_usb (dev))
    return;
  g_info ("%s: class %s (was %s): drivers of its interfaces changed",
          dev->info->syspath, dev->props.klass, was);
  apply_device (self, dev, NULL);
  g_signal_emit (self, signals[SIGNAL_DEVICE_ADDED], 0, dev, FALSE);
}

static void
on_uevent (PpUdev *udev, const char *action, PpDeviceInfo *info, PpManager *self)
{
  retry_unjournalled (self);
  if (g_str_equal (info->subsystem, "module") && g_str_equal (action, "remove"))
    {
      g_autofree char *dir = g_build_filename (PP_SYSFS_MODULE, info->sysname, NULL);
      forget_originals (self, dir);
      return;
    }
  if (g_str_equal (info->subsystem, "module") && g_str_equal (action, "add"))
    {
      /* a module was loaded: its parameters now exist */
      apply_modules (self);
      return;
    }
  if (!is_managed_path (info->syspath))
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
      g_signal_emit (self, signals[SIGNAL_TOPOLOGY_CHANGED], 0, action, info->syspath);
    }

  if (g_str_equal (action, "remove"))
    {
      forget_device (self, info);
      forget_originals (self, info->syspath);
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
      dev = device_table_set (self, info);
      if (g_str_equal (info->subsystem, "power_supply"))
        update_power_source (self, TRUE);
      apply_device (self, dev, NULL);
      /* listeners see the device after its policy is in place; on a
       * "change" they see the new PpDevice that replaced the old one */
      g_signal_emit (self, signals[SIGNAL_DEVICE_ADDED], 0, dev, is_new);
    }
}

/* ---- lifecycle -------------------------------------------------------- */

static void
restore_originals (PpManager *self, GPtrArray *originals, const char *why)
{
  guint ok = 0, failed = 0;

  for (guint i = 0; i < originals->len; i++)
    {
      PpOriginal *o = g_ptr_array_index (originals, i);
      const char * const *roots = roots_for_path (o->path);
      g_autoptr(GError) error = NULL;

      if (roots == NULL)
        {
          failed++;
          g_warning ("Not restoring %s: not an attribute powerpolicyd manages", o->path);
          continue;
        }
      if (pp_sysfs_write (o->path, o->value, roots, &error))
        {
          ok++;
          continue;
        }
      if (is_gone (error))
        {
          g_debug ("Not restoring %s: gone", o->path);
          continue;
        }
      failed++;
      g_warning ("Cannot restore %s to '%s': %s", o->path, o->value, error->message);
    }
  g_info ("Restored %u original values (%s)%s", ok, why, failed ? ", some failed" : "");
}

static void
restore_leftover (PpManager *self)
{
  g_autoptr(GPtrArray) originals = NULL;

  if (!pp_restore_has_leftover (self->restore))
    return;
  g_message ("Found original values left by a previous run that did not exit cleanly, restoring them");
  originals = pp_restore_load (self->restore);
  if (dry_run (self))
    {
      g_message ("dry-run: would restore %u original values", originals->len);
      return;
    }
  restore_originals (self, originals, "after an unclean exit");
  pp_restore_clear (self->restore);
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
  gboolean was_dry_run;

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

  was_dry_run = self->dry_run;
  g_clear_pointer (&self->config, pp_config_free);
  self->config = config;
  log_problems (problems);

  /* the one dry-run switch: every writer asks pp_manager_get_dry_run() */
  self->dry_run = self->options.dry_run || config->dry_run;
  pp_overrides_set_persist (self->overrides, !self->dry_run);
  pp_token_set_limits (config->max_inhibitors_per_user, config->max_inhibitors);
  if (self->dry_run != was_dry_run)
    {
      if (self->dry_run)
        g_message ("Dry run: nothing will be written, no helper run; each write is logged");
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_DRY_RUN]);
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
      if (is_managed_path (info->syspath))
        device_table_set (self, info);
    }
  g_info ("Managing %u devices", g_hash_table_size (self->devices));

  self->situation.on_battery = compute_on_battery (self);
  self->situation.low_battery =
    pp_policy_low_battery (self->situation.on_battery,
                           self->situation.on_battery ? compute_battery_percent (self) : -1,
                           self->config->low_battery_percent);
  g_info ("Power source: %s%s", self->situation.on_battery ? "battery" : "AC",
          self->situation.low_battery ? ", battery low" : "");

  /* other power tools: reported once, in Conflicts and the log */
  self->installed_conflicts = pp_conflicts_detect (NULL);
  pp_conflicts_log_new (NULL, self->installed_conflicts);

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
  g_autoptr(GPtrArray) foreign = pp_foreign_tracker_list_conflicts (self->foreign);

  pp_conflicts_log_new (self->installed_conflicts, found);
  if (!conflict_rows_equal (self->installed_conflicts, found) || foreign->len > 0)
    self->foreign_changed = TRUE;
  g_clear_pointer (&self->installed_conflicts, g_ptr_array_unref);
  self->installed_conflicts = g_steal_pointer (&found);
  pp_foreign_tracker_reset (self->foreign);
}

void
pp_manager_reload (PpManager *self, GPtrArray **problems_out)
{
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);

  g_info ("Reloading the configuration");
  load_config (self, problems, NULL);
  redetect_conflicts (self);
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
  if (self->restore == NULL || dry_run (self))
    return;
  if (self->config->restore_on_exit)
    restore_originals (self, pp_restore_get_recorded (self->restore), "on exit");
  pp_restore_clear (self->restore);
}

PpDevice *
pp_manager_get_device (PpManager *self, const char *syspath)
{
  return g_hash_table_lookup (self->devices, syspath);
}

PpDevice *
pp_manager_get_tree_device (PpManager *self, const char *syspath)
{
  PpDevice *dev = g_hash_table_lookup (self->devices, syspath);
  g_autoptr(PpDeviceInfo) info = NULL;

  if (dev != NULL)
    return dev;
  dev = g_hash_table_lookup (self->unmanaged, syspath);
  if (dev != NULL)
    return dev;
  if (self->udev == NULL || !is_managed_path (syspath))
    return NULL;
  info = pp_udev_lookup (self->udev, syspath, NULL);
  if (info == NULL)
    return NULL;
  dev = pp_device_new (info);
  g_hash_table_replace (self->unmanaged, dev->info->syspath, dev);
  return dev;
}

void
pp_manager_forget_tree_devices (PpManager *self)
{
  g_hash_table_remove_all (self->unmanaged);
}

void
pp_manager_reapply (PpManager *self)
{
  /* firmware may have reset attributes across sleep: not another
   * program's change */
  pp_foreign_tracker_forget_written (self->foreign);
  apply_all (self, "resume");
}

gboolean
pp_manager_get_dry_run (PpManager *self)
{
  return self->dry_run;
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

gboolean
pp_manager_get_user_idle (PpManager *self)
{
  return self->situation.user_idle;
}

gboolean
pp_manager_set_held (PpManager   *self,
                     GPtrArray   *syspaths,
                     gboolean     held,
                     GError     **error)
{
  g_autoptr(GPtrArray) plan = g_ptr_array_new_with_free_func ((GDestroyNotify) planned_write_free);

  retry_unjournalled (self);
  for (guint i = 0; i < syspaths->len; i++)
    {
      const char *path = g_ptr_array_index (syspaths, i);
      guint count = GPOINTER_TO_UINT (g_hash_table_lookup (self->held, path));

      if (held)
        g_hash_table_replace (self->held, g_strdup (path), GUINT_TO_POINTER (count + 1));
      else if (count <= 1)
        g_hash_table_remove (self->held, path);
      else
        g_hash_table_replace (self->held, g_strdup (path), GUINT_TO_POINTER (count - 1));
    }
  /* what a held device depends on may be a device the rules do not tag */
  for (guint i = 0; i < syspaths->len; i++)
    {
      PpDevice *dev = pp_manager_get_tree_device (self, g_ptr_array_index (syspaths, i));
      if (dev != NULL)
        plan_device (self, plan, dev);
    }
  return execute_plan (self, plan, error);
}

gboolean
pp_manager_set_powered_down (PpManager  *self,
                             PpDevice   *dev,
                             gboolean    down,
                             GError    **error)
{
  retry_unjournalled (self);
  if (down)
    g_hash_table_add (self->powered_down, g_strdup (dev->info->syspath));
  else
    g_hash_table_remove (self->powered_down, dev->info->syspath);
  return apply_device (self, dev, error);
}

gboolean
pp_manager_power_up_device (PpManager   *self,
                            PpDevice    *dev,
                            GPtrArray  **out_decided,
                            GError     **error)
{
  g_autoptr(GPtrArray) plan = g_ptr_array_new_with_free_func ((GDestroyNotify) planned_write_free);
  g_autoptr(GPtrArray) settings = NULL;
  GPtrArray *decided = g_ptr_array_new_with_free_func (g_free);

  retry_unjournalled (self);
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
      PlannedWrite *w = g_ptr_array_index (plan, i);
      g_autofree char *entry = g_strdup_printf ("%s=", w->relpath);
      gboolean listed = FALSE;

      for (guint j = 0; j < decided->len && !listed; j++)
        listed = g_str_has_prefix (g_ptr_array_index (decided, j), entry);
      if (!listed)
        g_ptr_array_add (decided, g_strdup_printf ("%s=%s", w->relpath, w->value));
    }
  if (out_decided)
    *out_decided = decided;
  else
    g_ptr_array_unref (decided);
  return execute_plan (self, plan, error);
}

gboolean
pp_manager_write_attribute (PpManager           *self,
                            PpDevice            *dev,
                            const char          *path,
                            const char          *value,
                            PpManagerWriteFlags  flags,
                            GError             **error)
{
  g_autoptr(GPtrArray) plan = g_ptr_array_new_with_free_func ((GDestroyNotify) planned_write_free);
  g_autoptr(GError) read_error = NULL;
  g_autofree char *current = NULL;
  PlannedWrite *w;

  retry_unjournalled (self);
  if (roots_for_path (path) == NULL)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_REFUSED,
                   "refusing to write %s: not an attribute powerpolicyd manages", path);
      return FALSE;
    }
  current = read_current (path, flags, &read_error);
  if (current == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&read_error), "cannot read ");
      return FALSE;
    }
  /* a setting already in place needs no write; an action always does */
  if (!(flags & PP_MANAGER_WRITE_ACTION) && g_str_equal (current, value))
    return TRUE;

  w = g_new0 (PlannedWrite, 1);
  w->path = g_strdup (path);
  /* DeviceChanged names the device's own attributes only (a port switch
   * lies under the hub, not under the device behind it) */
  if (dev != NULL && g_str_has_prefix (path, dev->info->syspath) &&
      path[strlen (dev->info->syspath)] == '/')
    {
      w->dev = dev;
      w->relpath = g_strdup (path + strlen (dev->info->syspath) + 1);
    }
  else
    w->relpath = g_strdup (path);
  w->value = g_strdup (value);
  w->current = g_steal_pointer (&current);
  w->flags = flags;
  g_ptr_array_add (plan, w);
  return execute_plan (self, plan, error);
}

const char *
pp_manager_lookup_original (PpManager *self, const char *path)
{
  return pp_restore_lookup (self->restore, path);
}

char *
pp_manager_get_decided_value (PpManager *self, PpDevice *dev, const char *relpath)
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

GPtrArray *
pp_manager_explain (PpManager *self, PpDevice *dev)
{
  g_autoptr(PpDecision) decision = decide_device (self, dev, FALSE, TRUE);
  g_autoptr(GPtrArray) rows = pp_policy_explain (self->config, &dev->props, decision);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_explain_row_free);

  for (guint i = 0; i < rows->len; i++)
    {
      PpExplainRow *row = g_ptr_array_index (rows, i);
      g_autofree char *path = g_build_filename (dev->info->syspath, row->attribute, NULL);
      g_autofree char *current = NULL;

      /* an attribute the device does not have and nothing decides: no row */
      if (!g_file_test (path, G_FILE_TEST_EXISTS) && *row->decided == '\0')
        continue;
      current = pp_sysfs_read_opt (dev->info->syspath, row->attribute);
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
  return out;
}

char *
pp_manager_get_exclusion (PpManager *self, PpDevice *dev)
{
  g_autoptr(PpDecision) decision = NULL;

  if (is_device_link (dev))
    return NULL;
  decision = decide_device (self, dev, FALSE, TRUE);
  if (decision->skipped != PP_SOURCE_EXCLUDED)
    return NULL;
  return g_steal_pointer (&decision->skip_origin);
}

void
pp_manager_set_hold_hook (PpManager         *self,
                          PpManagerHoldHook  hook,
                          gpointer           user_data)
{
  self->hold_hook = hook;
  self->hold_hook_data = user_data;
}

/* "held by WHO (WHY), pid N" of each hold on @syspath, from the hook. */
static char *
hold_origin (PpManager *self, const char *syspath)
{
  char *origin = NULL;

  if (self->hold_hook != NULL)
    origin = self->hold_hook (self, syspath, self->hold_hook_data);
  return origin != NULL ? origin : g_strdup ("held");
}

gboolean
pp_manager_is_held (PpManager *self, const char *syspath)
{
  return g_hash_table_contains (self->held, syspath);
}

guint64
pp_manager_get_n_write_failures (PpManager *self)
{
  return self->n_write_failures;
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
split_attribute_path (PpManager *self, const char *path, char **dir, char **attribute)
{
  if (pp_sysfs_path_is_under (path, PP_SYSFS_DEVICES))
    {
      g_autofree char *up = g_path_get_dirname (path);

      while (strlen (up) > strlen (PP_SYSFS_DEVICES))
        {
          char *parent;

          if (g_hash_table_contains (self->devices, up) ||
              g_hash_table_contains (self->unmanaged, up))
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
pp_manager_list_changes (PpManager *self)
{
  GPtrArray *changes = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_manager_change_free);
  GPtrArray *recorded = pp_restore_get_recorded (self->restore);

  for (guint i = 0; recorded != NULL && i < recorded->len; i++)
    {
      PpOriginal *o = g_ptr_array_index (recorded, i);
      /* of a list of choices (/sys/power/mem_sleep) the chosen one */
      PpManagerWriteFlags flags = pp_sysfs_path_is_under (o->path, PP_SYSFS_POWER)
                                  ? PP_MANAGER_WRITE_CHOICE : PP_MANAGER_WRITE_SETTING;
      g_autofree char *current = read_current (o->path, flags, NULL);
      PpManagerChange *change;

      /* gone, or back to its original (a layer left, PowerUp): nothing
       * to restore */
      if (current == NULL || g_str_equal (current, o->value))
        continue;
      change = g_new0 (PpManagerChange, 1);
      split_attribute_path (self, o->path, &change->path, &change->attribute);
      /* D-Bus strings are UTF-8, whatever an attribute held */
      change->original = g_utf8_make_valid (o->value, -1);
      change->current = g_utf8_make_valid (current, -1);
      g_ptr_array_add (changes, change);
    }
  g_ptr_array_sort (changes, compare_changes);
  return changes;
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
  g_autoptr(GPtrArray) foreign = pp_foreign_tracker_list_conflicts (self->foreign);

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
  return rows;
}

/* ---- overrides -------------------------------------------------------- */

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

  retry_unjournalled (self);
  current = pp_overrides_lookup (self->overrides, dev->info->syspath);
  if (current != NULL)
    previous = pp_override_copy (current);
  if (!pp_overrides_set (self->overrides, dev->info->syspath, key, value, error))
    return FALSE;

  if (!apply_device (self, dev, &apply_error))
    {
      g_autoptr(GError) undo_error = NULL;

      /* nothing half-applied: the override goes again */
      if (!pp_overrides_replace (self->overrides, dev->info->syspath, previous, &undo_error))
        g_warning ("Cannot take back the override of %s: %s",
                   dev->info->syspath, undo_error->message);
      apply_device (self, dev, NULL);
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

  retry_unjournalled (self);
  if (!pp_overrides_clear (self->overrides, dev->info->syspath, error))
    return FALSE;
  if (!apply_device (self, dev, &apply_error))
    {
      g_set_error (error, PP_ERROR, PP_ERROR_FAILED, "overrides cleared, but: %s",
                   apply_error->message);
      return FALSE;
    }
  pp_log_override (FALSE, dev->info->syspath, NULL, NULL);
  return TRUE;
}

/* ---- device arguments ------------------------------------------------- */

static PpDevice *
resolve_device (PpManager *self, const char *device, GError **error)
{
  PpDeviceArgKind kind;
  PpDevice *dev;

  if (!pp_device_arg_check (device, &kind, error))
    return NULL;
  if (kind == PP_DEVICE_ARG_PATH)
    {
      char resolved[PATH_MAX];

      dev = g_hash_table_lookup (self->devices, device);
      if (dev != NULL)
        return dev;
      if (realpath (device, resolved) == NULL || !is_managed_path (resolved))
        {
          g_set_error (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE,
                       "'%s' is not a device under /sys/devices", device);
          return NULL;
        }
      dev = g_hash_table_lookup (self->devices, resolved);
      if (dev == NULL)
        {
          g_set_error (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE,
                       "'%s' is not a device the daemon manages", device);
          return NULL;
        }
      return dev;
    }

  {
    GPtrArray *list = g_hash_table_lookup (self->by_sysname, device);

    if (list == NULL || list->len == 0)
      {
        g_set_error (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE, "no device named '%s'", device);
        return NULL;
      }
    if (list->len > 1)
      {
        g_autoptr(GString) names = g_string_new (NULL);
        for (guint i = 0; i < list->len; i++)
          {
            PpDevice *d = g_ptr_array_index (list, i);
            g_string_append_printf (names, "%s%s", i ? ", " : "", d->info->syspath);
          }
        g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                     "device name '%s' is ambiguous, use one of: %s", device, names->str);
        return NULL;
      }
    return g_ptr_array_index (list, 0);
  }
}

PpDevice *
pp_manager_resolve_device (PpManager *self, const char *device, GError **error)
{
  PpDevice *dev = resolve_device (self, device, error);

  if (dev != NULL && is_device_link (dev))
    {
      g_set_error (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE,
                   "'%s' is a device link, not a device", device);
      return NULL;
    }
  return dev;
}

void
pp_device_status_free (PpDeviceStatus *status)
{
  if (status == NULL)
    return;
  g_free (status->parent);
  g_free (status->runtime_status);
  g_free (status->control);
  g_free (status->wakeup);
  g_free (status);
}

PpDeviceStatus *
pp_manager_get_device_status (PpManager *self, PpDevice *dev)
{
  PpDeviceStatus *status = g_new0 (PpDeviceStatus, 1);
  const char *syspath = dev->info->syspath;
  const char *parent = pp_device_info_get_parent (dev->info);
  gint64 delay = pp_sysfs_read_int (syspath, PP_ATTR_DELAY, -1);

  status->parent = g_strdup (parent != NULL && is_managed_path (parent) ? parent : "");
  status->runtime_status = pp_sysfs_read_opt (syspath, "power/runtime_status");
  if (status->runtime_status == NULL || *status->runtime_status == '\0')
    {
      g_free (status->runtime_status);
      status->runtime_status = g_strdup ("unsupported");
    }
  status->control = pp_sysfs_read_opt (syspath, PP_ATTR_CONTROL);
  if (status->control == NULL)
    status->control = g_strdup ("");
  status->wakeup = pp_sysfs_read_opt (syspath, PP_ATTR_WAKEUP);
  if (status->wakeup == NULL)
    status->wakeup = g_strdup ("");
  status->autosuspend_delay_ms = (delay < G_MININT32 || delay > G_MAXINT32) ? -1 : (gint32) delay;
  status->held = g_hash_table_contains (self->held, syspath);
  return status;
}

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
    case PROP_DRY_RUN:
      g_value_set_boolean (value, self->dry_run);
      break;
    case PROP_WRITE_FAILURES:
      g_value_set_uint64 (value, self->n_write_failures);
      break;
    case PROP_LAST_POLICY_PASS_SEC:
      g_value_set_double (value, self->last_pass_sec);
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
  g_hash_table_unref (self->failed_writes);
  g_hash_table_unref (self->held);
  g_hash_table_unref (self->powered_down);
  g_clear_pointer (&self->restore, pp_restore_free);
  g_clear_pointer (&self->overrides, pp_overrides_free);
  g_clear_pointer (&self->residency, pp_residency_book_free);
  g_hash_table_unref (self->touched);
  g_clear_pointer (&self->installed_conflicts, g_ptr_array_unref);
  g_clear_pointer (&self->foreign, pp_foreign_tracker_free);
  g_clear_pointer (&self->config, pp_config_free);
  g_free (self->options.config_path);
  g_free (self->options.state_dir);
  g_free (self->options.runtime_dir);
  g_free (self->backend);
  G_OBJECT_CLASS (pp_manager_parent_class)->finalize (object);
}

static void
pp_manager_class_init (PpManagerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = pp_manager_get_property;
  object_class->finalize = pp_manager_finalize;

  props[PROP_ON_BATTERY] =
    g_param_spec_boolean ("on-battery", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* on battery at or below [Daemon] LowBatteryPercent= (D-Bus LowBattery) */
  props[PROP_LOW_BATTERY] =
    g_param_spec_boolean ("low-battery", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* --dry-run, or DryRun=true in the configuration (follows Reload) */
  props[PROP_DRY_RUN] =
    g_param_spec_boolean ("dry-run", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* attribute writes that failed since start; notified at most once per
   * executed plan (one per full pass), when it changed */
  props[PROP_WRITE_FAILURES] =
    g_param_spec_uint64 ("write-failures", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* seconds the last full policy pass (apply_all) took; 0 before the first */
  props[PROP_LAST_POLICY_PASS_SEC] =
    g_param_spec_double ("last-policy-pass-sec", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, props);

  /* (const char *syspath, GStrv attributes, GStrv values): what the
   * writes of one apply changed on a device, attribute paths relative to
   * it ("power/control") and the values written, index by index */
  signals[SIGNAL_DEVICE_CHANGED] =
    g_signal_new ("device-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                  G_TYPE_STRING, G_TYPE_STRV, G_TYPE_STRV);
  /* (PpDevice *device, gboolean is_new): after add/change and its apply */
  signals[SIGNAL_DEVICE_ADDED] =
    g_signal_new ("device-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_BOOLEAN);
  /* (const char *syspath): after the device left the table */
  signals[SIGNAL_DEVICE_REMOVED] =
    g_signal_new ("device-removed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* (const char *action, const char *syspath): a device of /sys/devices,
   * managed or not, was added, removed or moved; before device-added or
   * device-removed */
  signals[SIGNAL_TOPOLOGY_CHANGED] =
    g_signal_new ("topology-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  /* the rows of pp_manager_list_conflicts() changed */
  signals[SIGNAL_CONFLICTS_CHANGED] =
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
  self->failed_writes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->held = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->powered_down = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->touched = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) g_hash_table_unref);
  self->foreign = pp_foreign_tracker_new ();
  self->residency = pp_residency_book_new (0);
}

PpManager *
pp_manager_new (const PpManagerOptions *options)
{
  PpManager *self = g_object_new (PP_TYPE_MANAGER, NULL);

  self->options.config_path = g_strdup (options->config_path);
  self->options.state_dir = g_strdup (options->state_dir ? options->state_dir : PP_STATEDIR);
  self->options.runtime_dir = g_strdup (options->runtime_dir ? options->runtime_dir : PP_RUNTIMEDIR);
  self->options.dry_run = options->dry_run;
  self->options.oneshot = options->oneshot;
  self->options.no_logind = options->no_logind;
  self->restore = pp_restore_new (self->options.runtime_dir);
  self->overrides = pp_overrides_new (self->options.state_dir);
  return self;
}

/* ---- statistics ------------------------------------------------------- */

static void
append_stats_row (GArray *rows, PpDevice *dev, const PpResidency *r)
{
  PpManagerStatsRow row = { dev->info->syspath, dev->props.klass, r->suspended_share,
                            r->active_ms, r->suspended_ms };

  g_array_append_val (rows, row);
}

GArray *
pp_manager_get_statistics (PpManager  *self,
                           PpDevice   *device,
                           GError    **error)
{
  g_autoptr(GArray) rows = g_array_new (FALSE, TRUE, sizeof (PpManagerStatsRow));
  GPtrArray *devices;
  PpResidency r;

  if (device != NULL)
    {
      if (!pp_residency_book_query (self->residency, device->info->syspath, &r, NULL, error))
        return NULL;
      append_stats_row (rows, device, &r);
      return g_steal_pointer (&rows);
    }

  /* every managed device that has counters; one gone meanwhile, or
   * without counters, is left out */
  devices = pp_manager_list_devices (self);
  for (guint i = 0; i < devices->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (devices, i);

      if (pp_residency_book_query (self->residency, dev->info->syspath, &r, NULL, NULL))
        append_stats_row (rows, dev, &r);
    }
  return g_steal_pointer (&rows);
}
