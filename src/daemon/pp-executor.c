/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The executor: carries out a plan (pp-plan.h). Supplies the planner's
 * current values, checks for foreign changes, journals the originals,
 * writes through the checked writer (or only logs under dry-run), reads
 * back what the kernel made of it for the foreign tracker, and tells
 * DeviceChanged. The one write path of the daemon. */
#define G_LOG_DOMAIN "pp-manager"

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "pp-error.h"
#include "pp-foreign.h"
#include "pp-log.h"
#include "pp-platform.h"
#include "pp-manager-private.h"
#include "pp-names.h"
#include "pp-residency.h"
#include "pp-restore.h"
#include "pp-sysfs.h"
#include "pp-util.h"

gboolean
pp_manager_dry_run (PpManager *self)
{
  return self->dry_run;
}

static const char * const sys_power_roots[] = { PP_SYSFS_POWER, NULL };
/* the firmware's platform profile ([Platform] PlatformProfile=): the one
 * file written under /sys/firmware, checked by its full path */
static const char * const firmware_roots[] = { PP_FIRMWARE_ACPI_DIR, NULL };
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
  if (g_str_equal (path, PP_FIRMWARE_PLATFORM_PROFILE))
    return firmware_roots;
  if (g_str_equal (path, PP_PROC_ACPI_VIDEO_FLAGS))
    return proc_kernel_roots;
  return NULL;
}

/* What @path holds now; for a list of choices ("s2idle [deep]") the
 * chosen one. Without PP_MANAGER_WRITE_CHOICE only a strict list is
 * taken for one (the pcie_aspm policy: "default [powersave] ..."), so
 * that the value written is compared, journalled and restored as the
 * word it is. NULL with @error as pp_sysfs_read(). */
char *
pp_manager_read_current (const char *path, PpManagerWriteFlags flags, GError **error)
{
  g_autofree char *text = pp_sysfs_read (path, error);
  const char *open, *close;

  if (text == NULL)
    return NULL;
  if (!(flags & PP_MANAGER_WRITE_CHOICE))
    {
      char *chosen = pp_choice_selected (text);
      return chosen != NULL ? chosen : g_steal_pointer (&text);
    }
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
  char *current = pp_manager_read_current (path, PP_MANAGER_WRITE_SETTING, &error);

  if (current != NULL)
    return current;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY))
    {
      g_debug ("no attribute %s, skipping", path);
      return NULL;
    }
  /* the kernel has power/autosuspend_delay_ms for every device with
   * runtime PM, and refuses to read or write it (EIO) where the
   * driver does not use autosuspend (PCI functions, input and hidraw
   * nodes, LEDs): there is no delay to set */
  if (g_str_has_suffix (path, "/" PP_ATTR_DELAY))
    {
      g_debug ("%s unreadable (%s): no autosuspend for this device, skipping",
               path, error->message);
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

static void touch (PpManager *self, const char *dir, const char *relpath);

/* The attributes of @dir whose originals a previous run kept: as if this
 * run had changed them, so that one no layer sets goes back to its own
 * value. An attribute of a device below @dir (a deeper managed device)
 * is that device's. */
static void
absorb_adopted (PpManager *self, const char *dir)
{
  GHashTableIter iter;
  gpointer key;
  gsize n = strlen (dir);

  if (g_hash_table_size (self->adopted) == 0)
    return;
  g_hash_table_iter_init (&iter, self->adopted);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const char *path = key;
      const char *relpath = path + n + 1;
      gboolean nested = FALSE;

      if (strncmp (path, dir, n) != 0 || path[n] != '/')
        continue;
      for (const char *slash = strchr (relpath, '/'); slash != NULL && !nested;
           slash = strchr (slash + 1, '/'))
        {
          g_autofree char *below = g_strndup (path, slash - path);
          nested = g_hash_table_contains (self->devices, below);
        }
      if (nested)
        continue;
      touch (self, dir, relpath);
      g_hash_table_iter_remove (&iter);
    }
}

/* The current values the planner will look at, read now: it reads
 * nothing itself. */
static PpPlanCurrent *
read_before_planning (PpManager *self, const char *dir, GPtrArray *settings, GHashTable *touched)
{
  PpPlanCurrent *current = pp_plan_current_new (plan_original, self);
  g_autoptr(GPtrArray) paths = pp_plan_settings_paths (current, dir, settings, touched);

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      gboolean unreadable = FALSE;
      g_autofree char *value = plan_read (path, &unreadable, self);

      pp_plan_current_set (current, path, value, unreadable);
    }
  return current;
}

void
pp_manager_plan_settings (PpManager *self, GPtrArray *plan, PpDevice *dev, const char *dir, GPtrArray *settings)
{
  GHashTable *touched;
  g_autoptr(PpPlanCurrent) current = NULL;

  absorb_adopted (self, dir);
  touched = g_hash_table_lookup (self->touched, dir);
  current = read_before_planning (self, dir, settings, touched);
  pp_plan_settings (plan, dev, dir, settings, touched, pp_plan_current_values (current));
}

void
pp_manager_plan_attribute (PpManager *self, GPtrArray *plan, PpDevice *dev, GPtrArray *settings,
                           const char *relpath)
{
  GHashTable *touched;
  g_autoptr(GPtrArray) one = g_ptr_array_new ();
  g_autoptr(GHashTable) touched_one = NULL;
  g_autoptr(PpPlanCurrent) current = NULL;

  absorb_adopted (self, dev->info->syspath);
  touched = g_hash_table_lookup (self->touched, dev->info->syspath);
  for (guint i = 0; settings != NULL && i < settings->len; i++)
    {
      PpSetting *s = g_ptr_array_index (settings, i);

      if (g_str_equal (s->key, relpath))
        g_ptr_array_add (one, s);
    }
  if (touched != NULL && g_hash_table_contains (touched, relpath))
    {
      touched_one = g_hash_table_new (g_str_hash, g_str_equal);
      g_hash_table_add (touched_one, (gpointer) relpath);
    }
  current = read_before_planning (self, dev->info->syspath, one, touched_one);
  pp_plan_settings (plan, dev, dev->info->syspath, one, touched_one,
                    pp_plan_current_values (current));
}

static void
touch (PpManager *self, const char *dir, const char *relpath)
{
  GHashTable *set = g_hash_table_lookup (self->touched, dir);

  if (set == NULL)
    {
      set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_insert (self->touched, g_strdup (dir), set);
    }
  if (!g_hash_table_contains (set, relpath))
    g_hash_table_add (set, g_strdup (relpath));
}

static void
mark_touched (PpManager *self, PlannedWrite *w)
{
  touch (self, w->dir, w->relpath);
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

  if (!pp_manager_wants_device_changed (self))
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
  pp_manager_emit_device_changed (self, dev->info->syspath, (const char * const *) attrv,
                                  (const char * const *) valuev);
}

gboolean
pp_manager_is_setting (PlannedWrite *w)
{
  return !(w->flags & PP_MANAGER_WRITE_ACTION);
}

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
                       pp_manager_is_setting (w) ? w->current : NULL,
                       w->dev ? ((PpDevice *) w->dev)->props.klass : NULL, error);
}

/* Keep the journal to what can still be restored, in a bounded number of
 * files; a failure (a full directory) leaves the older files, which hold
 * the same originals, and is tried again next time. */
void
pp_manager_compact_journal (PpManager *self)
{
  g_autoptr(GError) error = NULL;

  if (pp_manager_dry_run (self) || self->options.oneshot || !pp_restore_needs_compaction (self->restore))
    return;
  if (!pp_restore_compact (self->restore, &error))
    g_debug ("Cannot compact the journal of original values (the older files stay): %s",
             error->message);
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
    return pp_sysfs_write_at (w->dir, w->relpath, w->value,
                              g_str_equal (w->path, PP_FIRMWARE_PLATFORM_PROFILE) ? firmware_roots
                                                                                 : pp_sysfs_policy_roots,
                              error);
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

/* Under dry-run: each write of @plan logged, none done. */
static void
log_dry_run (GPtrArray *plan)
{
  for (guint i = 0; i < plan->len; i++)
    {
      PlannedWrite *w = g_ptr_array_index (plan, i);
      if (pp_manager_is_setting (w))
        g_message ("dry-run: would write '%s' to %s (now '%s')", w->value, w->path, w->current);
      else
        g_message ("dry-run: would write '%s' to %s", w->value, w->path);
    }
}

/* Record the originals of the settings in @plan (an action such as
 * /sys/power/state has none) before anything is written. FALSE: the
 * plan must not run. */
static gboolean
journal_originals (PpManager *self, GPtrArray *plan, GError **first_error)
{
  g_autoptr(GPtrArray) originals = NULL;
  g_autoptr(GError) error = NULL;

  /* --oneshot leaves its policy in place for good: nothing to restore */
  if (self->options.oneshot)
    return TRUE;
  originals = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_original_free);
  for (guint i = 0; i < plan->len; i++)
    {
      PlannedWrite *w = g_ptr_array_index (plan, i);
      if (pp_manager_is_setting (w) && !pp_restore_contains (self->restore, w->path))
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
  pp_manager_compact_journal (self);
  return TRUE;
}

/* After @w was written: the foreign tracker learns the value read back,
 * the touched set the attribute, @done (device -> writes) the write. */
static void
note_written (PpManager *self, PlannedWrite *w, GHashTable *done)
{
  g_hash_table_remove (self->failed_writes, w->path);
  self->pass_written++;
  /* only a layer's writes: leaving the layer reverts them, and a
   * value found changed next time is another program's */
  if (w->dir != NULL)
    {
      /* what the kernel made of it ("1" to a bool reads back "Y"),
       * so that its own form is not taken for another program's */
      g_autofree char *now = pp_manager_read_current (w->path, PP_MANAGER_WRITE_SETTING, NULL);

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

/* DeviceChanged for each device in @done, and its residency base. */
static void
announce_done (PpManager *self, GHashTable *done)
{
  GHashTableIter iter;
  gpointer key, value;

  if (self->options.oneshot)
    return;
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

/* The one place that writes: under dry-run, log each write and do none;
 * else journal the originals, then write. FALSE when a write failed;
 * @first_error describes the first failure. */
static gboolean
execute_plan_writes (PpManager *self, GPtrArray *plan, GError **first_error)
{
  gboolean ok = TRUE;
  g_autoptr(GHashTable) done = NULL;

  filter_plan (self, plan);
  if (plan->len == 0)
    return TRUE;
  if (pp_manager_dry_run (self))
    {
      log_dry_run (plan);
      return TRUE;
    }
  if (!journal_originals (self, plan, first_error))
    return FALSE;

  done = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                (GDestroyNotify) g_ptr_array_unref);
  for (guint i = 0; i < plan->len; i++)
    {
      PlannedWrite *w = g_ptr_array_index (plan, i);
      g_autoptr(GError) werror = NULL;

      if (!pp_manager_is_setting (w))
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
      note_written (self, w, done);
    }
  announce_done (self, done);
  return ok;
}

/* Tell listeners when the Conflicts rows changed (a foreign change
 * seen while planning, tools found on Reload). */
void
pp_manager_flush_conflicts_changed (PpManager *self)
{
  if (!self->foreign_changed)
    return;
  self->foreign_changed = FALSE;
  pp_manager_emit_conflicts_changed (self);
}

/* Announce "write-failures" once per executed plan (a full pass is one
 * plan), and only when failures were counted since the last time. */
static void
flush_write_failures (PpManager *self)
{
  if (self->n_write_failures == self->notified_write_failures)
    return;
  self->notified_write_failures = self->n_write_failures;
  pp_manager_notify_property (self, PROP_WRITE_FAILURES);
}

gboolean
pp_manager_execute_plan (PpManager *self, GPtrArray *plan, GError **first_error)
{
  gboolean ok = execute_plan_writes (self, plan, first_error);

  pp_manager_flush_conflicts_changed (self);
  flush_write_failures (self);
  return ok;
}

/* The plan that puts @originals (PpOriginal*) back; @read_current: with
 * the current values (of a list of choices, /sys/power/mem_sleep, the
 * chosen one), for ListChanges. */
GPtrArray *
pp_manager_plan_restore (PpManager *self, GPtrArray *originals, gboolean read_current)
{
  GPtrArray *plan = pp_plan_new ();

  for (guint i = 0; originals != NULL && i < originals->len; i++)
    {
      PpOriginal *o = g_ptr_array_index (originals, i);
      PpManagerWriteFlags flags = pp_sysfs_path_is_under (o->path, PP_SYSFS_POWER)
                                  ? PP_MANAGER_WRITE_CHOICE : PP_MANAGER_WRITE_SETTING;
      g_autofree char *current = read_current ? pp_manager_read_current (o->path, flags, NULL)
                                              : NULL;

      pp_plan_restore (plan, o->path, o->value, current);
    }
  return plan;
}

/* Restoring is a plan too (pp_plan_restore()): each original written
 * back through the checked writer, no journal (it is the journal), no
 * foreign check; a device that is gone is no failure. */
void
pp_manager_restore_originals (PpManager *self, GPtrArray *originals, const char *why)
{
  g_autoptr(GPtrArray) plan = pp_manager_plan_restore (self, originals, FALSE);
  guint ok = 0, failed = 0;

  for (guint i = 0; i < plan->len; i++)
    {
      PlannedWrite *w = g_ptr_array_index (plan, i);
      g_autoptr(GError) error = NULL;

      if (roots_for_path (w->path) == NULL)
        {
          failed++;
          g_warning ("Not restoring %s: not an attribute powerpolicyd manages", w->path);
          continue;
        }
      if (write_planned (w, &error))
        {
          ok++;
          continue;
        }
      if (is_gone (error))
        {
          g_debug ("Not restoring %s: gone", w->path);
          continue;
        }
      failed++;
      g_warning ("Cannot restore %s to '%s': %s", w->path, w->value, error->message);
    }
  g_info ("Restored %u original values (%s)%s", ok, why, failed ? ", some failed" : "");
}

static char *
request_read (const char *path, PpPlanFlags flags, gpointer user_data)
{
  return pp_manager_read_current (path, flags, NULL);
}

static gpointer
request_device (const char *syspath, gpointer user_data)
{
  PpManager *self = user_data;
  PpDevice *dev = g_hash_table_lookup (self->devices, syspath);

  return dev != NULL ? dev : g_hash_table_lookup (self->unmanaged, syspath);
}

void
pp_manager_plan_layer_requests (PpManager *self, GPtrArray *plan)
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

  pp_manager_retry_unjournalled (self);
  if (roots_for_path (path) == NULL)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_REFUSED,
                   "refusing to write %s: not an attribute powerpolicyd manages", path);
      return FALSE;
    }
  pp_plan_requests_withdraw (self->layer_requests, path);
  current = pp_manager_read_current (path, flags, &read_error);
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
  return pp_restore_lookup (self->restore, path);
}

/* ---- an action written off the main loop ------------------------------ */

/* What the worker thread writes: its own copy (it reads nothing of the
 * manager), and the planned write the main thread reports on. */
typedef struct {
  GPtrArray *plan;       /* of one PlannedWrite */
  char      *path;
  char      *value;
} ActionWrite;

static void
action_write_free (ActionWrite *a)
{
  g_ptr_array_unref (a->plan);
  g_free (a->path);
  g_free (a->value);
  g_free (a);
}

/* In the worker thread: the checked writer and nothing else. */
static void
action_write_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  ActionWrite *a = task_data;
  GError *error = NULL;

  if (!pp_sysfs_write (a->path, a->value, roots_for_path (a->path), &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/* Back on the main thread: the write counted and reported as the
 * executor reports every write. */
static void
on_action_written (GObject *source, GAsyncResult *res, gpointer user_data)
{
  g_autoptr(GTask) outer = user_data;
  PpManager *self = PP_MANAGER (source);
  ActionWrite *a = g_task_get_task_data (G_TASK (res));
  PlannedWrite *w = g_ptr_array_index (a->plan, 0);
  g_autoptr(GHashTable) done = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                      (GDestroyNotify) g_ptr_array_unref);
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (res), &error))
    {
      report_write_failure (self, w, error);
      self->pass_failed++;
      flush_write_failures (self);
      g_task_return_error (outer, error);
      return;
    }
  note_written (self, w, done);
  announce_done (self, done);
  g_task_return_boolean (outer, TRUE);
}

/* The checks and the plan of execute_layer_request() on the calling
 * thread; FALSE with @error when there is nothing to write. */
static gboolean
plan_action (PpManager *self, PpPlanLayer layer, const char *path, const char *value,
             GPtrArray *plan, GError **error)
{
  g_autoptr(GError) read_error = NULL;
  g_autofree char *current = NULL;

  pp_manager_retry_unjournalled (self);
  if (roots_for_path (path) == NULL)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_REFUSED,
                   "refusing to write %s: not an attribute powerpolicyd manages", path);
      return FALSE;
    }
  current = pp_manager_read_current (path, PP_MANAGER_WRITE_ACTION, &read_error);
  if (current == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&read_error), "cannot read ");
      return FALSE;
    }
  pp_plan_request (plan, layer, NULL, NULL, path, value, current, PP_MANAGER_WRITE_ACTION);
  g_debug ("%s layer: %s = %s", pp_plan_layer_to_string (layer), path, value);
  return TRUE;
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
  g_autoptr(GTask) inner = NULL;
  g_autoptr(GPtrArray) plan = pp_plan_new ();
  GError *error = NULL;
  ActionWrite *a;

  if (!plan_action (self, layer, path, value, plan, &error))
    {
      g_task_return_error (outer, error);
      g_object_unref (outer);
      return;
    }
  if (pp_manager_dry_run (self))
    {
      log_dry_run (plan);
      g_task_return_boolean (outer, TRUE);
      g_object_unref (outer);
      return;
    }
  a = g_new0 (ActionWrite, 1);
  a->plan = g_ptr_array_ref (plan);
  a->path = g_strdup (path);
  a->value = g_strdup (value);
  g_info ("Writing %s to %s", value, path);
  inner = g_task_new (self, NULL, on_action_written, outer);
  g_task_set_task_data (inner, a, (GDestroyNotify) action_write_free);
  g_task_run_in_thread (inner, action_write_thread);
}

gboolean
pp_manager_request_action_finish (PpManager     *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
