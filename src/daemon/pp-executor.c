/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The executor (pp-executor.h): carries out a plan (pp-plan.h). Supplies
 * the planner's current values, checks for foreign changes, journals the
 * originals, writes through the checked writer (or only logs under
 * dry-run), reads back what the kernel made of it for the foreign
 * tracker, and hands the writes done back to the manager. The one write
 * path of the daemon. */
#define G_LOG_DOMAIN "pp-manager"

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "pp-error.h"
#include "pp-executor.h"
#include "pp-foreign.h"
#include "pp-log.h"
#include "pp-platform.h"
#include "pp-names.h"
#include "pp-restore.h"
#include "pp-sysfs.h"
#include "pp-util.h"

struct _PpExecutor {
  gboolean          oneshot;        /* --oneshot: nothing journalled or restored */
  PpExecutorHooks   hooks;
  PpRestore        *restore;        /* the journal of originals */

  /* what this run changed: device syspath (or /sys/module; interned, as
   * the foreign tracker's) -> PpStrSet
   * of relpaths, so a setting that leaves the policy gets its original
   * back. One small set per device, not a hash table: at 10,000 devices
   * the tables (and a copy of "power/control" in each) cost megabytes. */
  GHashTable       *touched;
  /* full paths whose originals a previous run kept (RestoreOnExit=false)
   * and that no pass has planned yet: they join @touched of their
   * directory when it is first planned */
  GHashTable       *adopted;

  PpForeignTracker *foreign;
  gboolean          foreign_changed;   /* since the last take */

  GHashTable       *failed_writes;  /* path -> errno, to log each failure once */
  guint64           n_write_failures;

  /* --dry-run or DryRun=true: set by the manager from one place */
  gboolean          dry_run;
  /* a plan could not journal its originals and changed nothing: the
   * next execute does a full pass first */
  gboolean          journal_failed;
};

PpExecutor *
pp_executor_new (const char *runtime_dir, gboolean oneshot, const PpExecutorHooks *hooks)
{
  PpExecutor *self = g_new0 (PpExecutor, 1);

  self->oneshot = oneshot;
  self->hooks = *hooks;
  self->restore = pp_restore_new (runtime_dir);
  self->adopted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->touched = g_hash_table_new_full (g_str_hash, g_str_equal,
                                         (GDestroyNotify) g_ref_string_release,
                                         (GDestroyNotify) pp_str_set_free);
  self->foreign = pp_foreign_tracker_new ();
  self->failed_writes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return self;
}

void
pp_executor_free (PpExecutor *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->restore, pp_restore_free);
  g_hash_table_unref (self->touched);
  g_hash_table_unref (self->adopted);
  g_clear_pointer (&self->foreign, pp_foreign_tracker_free);
  g_hash_table_unref (self->failed_writes);
  g_free (self);
}

void
pp_executor_set_dry_run (PpExecutor *self, gboolean dry_run)
{
  self->dry_run = dry_run;
}

gboolean
pp_executor_get_dry_run (PpExecutor *self)
{
  return self->dry_run;
}

PpRestore *
pp_executor_get_restore (PpExecutor *self)
{
  return self->restore;
}

PpForeignTracker *
pp_executor_get_foreign (PpExecutor *self)
{
  return self->foreign;
}

gboolean
pp_executor_take_foreign_changed (PpExecutor *self)
{
  gboolean changed = self->foreign_changed;

  self->foreign_changed = FALSE;
  return changed;
}

guint64
pp_executor_get_n_write_failures (PpExecutor *self)
{
  return self->n_write_failures;
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
pp_executor_read_current (const char *path, PpManagerWriteFlags flags, GError **error)
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
check_foreign (PpExecutor *self,
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
  char *current = pp_executor_read_current (path, PP_MANAGER_WRITE_SETTING, &error);

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
  PpExecutor *self = user_data;

  return pp_restore_lookup (self->restore, path);
}

static void touch (PpExecutor *self, const char *dir, const char *relpath);

/* The attributes of @dir whose originals a previous run kept: as if this
 * run had changed them, so that one no layer sets goes back to its own
 * value. An attribute of a device below @dir (a deeper managed device)
 * is that device's. */
static void
absorb_adopted (PpExecutor *self, const char *dir)
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
          nested = self->hooks.managed (below, self->hooks.user_data);
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
read_before_planning (PpExecutor *self, const char *dir, GPtrArray *settings, GHashTable *touched)
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
pp_executor_plan_settings (PpExecutor *self, GPtrArray *plan, PpDevice *dev, const char *dir,
                           GPtrArray *settings)
{
  g_autoptr(GHashTable) touched = NULL;
  g_autoptr(PpPlanCurrent) current = NULL;

  absorb_adopted (self, dir);
  touched = pp_executor_get_touched (self, dir);
  current = read_before_planning (self, dir, settings, touched);
  pp_plan_settings (plan, dev, dir, settings, touched, pp_plan_current_values (current));
}

void
pp_executor_plan_attribute (PpExecutor *self, GPtrArray *plan, PpDevice *dev, GPtrArray *settings,
                            const char *relpath)
{
  PpStrSet *touched;
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
  if (pp_str_set_contains (touched, relpath))
    {
      touched_one = g_hash_table_new (g_str_hash, g_str_equal);
      g_hash_table_add (touched_one, (gpointer) relpath);
    }
  current = read_before_planning (self, dev->info->syspath, one, touched_one);
  pp_plan_settings (plan, dev, dev->info->syspath, one, touched_one,
                    pp_plan_current_values (current));
}

static void
touch (PpExecutor *self, const char *dir, const char *relpath)
{
  char *key = NULL;
  PpStrSet *set = NULL;

  /* the set may move when it grows: its entry is stolen and put back */
  if (!g_hash_table_steal_extended (self->touched, dir, (gpointer *) &key, (gpointer *) &set))
    key = g_ref_string_new_intern (dir);   /* the foreign tracker's copy */
  set = pp_str_set_add (set, relpath);
  g_hash_table_insert (self->touched, key, set);
}

static void
mark_touched (PpExecutor *self, PpPlanWrite *w)
{
  touch (self, w->dir, w->relpath);
}

static gboolean
is_setting (PpPlanWrite *w)
{
  return !(w->flags & PP_MANAGER_WRITE_ACTION);
}

static void
report_write_failure (PpExecutor *self, PpPlanWrite *w, const GError *error)
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
compact_journal (PpExecutor *self)
{
  g_autoptr(GError) error = NULL;

  if (self->dry_run || self->oneshot || !pp_restore_needs_compaction (self->restore))
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
write_planned (PpPlanWrite *w, GError **error)
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
filter_plan (PpExecutor *self, GPtrArray *plan)
{
  for (guint i = 0; i < plan->len;)
    {
      PpPlanWrite *w = g_ptr_array_index (plan, i);
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
      PpPlanWrite *w = g_ptr_array_index (plan, i);
      if (is_setting (w))
        g_message ("dry-run: would write '%s' to %s (now '%s')", w->value, w->path, w->current);
      else
        g_message ("dry-run: would write '%s' to %s", w->value, w->path);
    }
}

/* Record the originals of the settings in @plan (an action such as
 * /sys/power/state has none) before anything is written. FALSE: the
 * plan must not run, and counts as failed in *@n_failed. */
static gboolean
journal_originals (PpExecutor *self, GPtrArray *plan, guint *n_failed, GError **first_error)
{
  g_autoptr(GPtrArray) originals = NULL;
  g_autoptr(GError) error = NULL;

  /* --oneshot leaves its policy in place for good: nothing to restore */
  if (self->oneshot)
    return TRUE;
  originals = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_original_free);
  for (guint i = 0; i < plan->len; i++)
    {
      PpPlanWrite *w = g_ptr_array_index (plan, i);
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
      *n_failed += plan->len;
      g_propagate_prefixed_error (first_error, g_steal_pointer (&error),
                                  "cannot record original values: ");
      return FALSE;
    }
  compact_journal (self);
  return TRUE;
}

/* After @w was written: the foreign tracker learns the value read back,
 * the touched set the attribute. */
static void
note_written (PpExecutor *self, PpPlanWrite *w)
{
  g_hash_table_remove (self->failed_writes, w->path);
  /* only a layer's writes: leaving the layer reverts them, and a
   * value found changed next time is another program's (--oneshot has
   * no next time: nothing is read back) */
  if (w->dir != NULL && !self->oneshot)
    {
      /* what the kernel made of it ("1" to a bool reads back "Y"),
       * so that its own form is not taken for another program's */
      g_autofree char *now = pp_executor_read_current (w->path, PP_MANAGER_WRITE_SETTING, NULL);

      pp_foreign_tracker_note_written (self->foreign, w->dir, w->relpath,
                                       now != NULL ? now : w->value);
    }
  if (!self->oneshot && w->dir != NULL)
    mark_touched (self, w);
  g_debug ("%s = %s (was %s)", w->path, w->value, w->current);
}

/* The one place that writes: under dry-run, log each write and do none;
 * else journal the originals, then write. The writes done move from
 * @plan to @written; *@n_failed counts the failures. FALSE when a write
 * failed; @first_error describes the first failure. */
static gboolean
execute_writes (PpExecutor *self, GPtrArray *plan, GPtrArray *written, guint *n_failed,
                GError **first_error)
{
  gboolean ok = TRUE;

  filter_plan (self, plan);
  if (plan->len == 0)
    return TRUE;
  if (self->dry_run)
    {
      log_dry_run (plan);
      return TRUE;
    }
  if (!journal_originals (self, plan, n_failed, first_error))
    return FALSE;

  for (guint i = 0; i < plan->len;)
    {
      PpPlanWrite *w = g_ptr_array_index (plan, i);
      g_autoptr(GError) werror = NULL;

      if (!is_setting (w))
        g_info ("Writing %s to %s", w->value, w->path);
      if (!write_planned (w, &werror))
        {
          i++;
          /* a device that went away mid-apply is not an error */
          if (w->dev != NULL && is_gone (werror) &&
              !g_file_test (((PpDevice *) w->dev)->info->syspath, G_FILE_TEST_IS_DIR))
            {
              g_debug ("%s vanished while applying", ((PpDevice *) w->dev)->info->syspath);
              continue;
            }
          report_write_failure (self, w, werror);
          (*n_failed)++;
          if (ok && first_error != NULL && *first_error == NULL)
            *first_error = g_steal_pointer (&werror);
          ok = FALSE;
          continue;
        }
      note_written (self, w);
      g_ptr_array_add (written, g_ptr_array_steal_index (plan, i));
    }
  return ok;
}

/* @plan was made before the retry's full pass wrote: what its layers'
 * writes find now. */
static void
refresh_plan (GPtrArray *plan)
{
  for (guint i = 0; i < plan->len; i++)
    {
      PpPlanWrite *w = g_ptr_array_index (plan, i);
      char *now;

      if (w->dir == NULL || w->unreadable || !is_setting (w))
        continue;
      now = pp_executor_read_current (w->path, PP_MANAGER_WRITE_SETTING, NULL);
      if (now == NULL)
        continue;
      g_free (w->current);
      w->current = now;
      w->in_place = g_str_equal (w->current, w->value);
    }
}

/* A plan that could not journal (the runtime directory full) changed
 * nothing: before the next one, everything is applied again. */
static void
retry_unjournalled (PpExecutor *self, GPtrArray *plan, GPtrArray *written, guint *n_failed)
{
  g_autoptr(GPtrArray) full = NULL;
  guint before = written->len;
  guint failed = 0;

  if (!self->journal_failed)
    return;
  full = pp_plan_new ();
  if (!self->hooks.plan_all (full, self->hooks.user_data))
    return;
  g_info ("Trying again to apply what could not be journalled");
  self->journal_failed = FALSE;
  execute_writes (self, full, written, &failed, NULL);
  /* under dry-run the would-be writes are the log */
  if (!self->dry_run)
    pp_log_policy_applied (written->len - before, failed, "retry");
  *n_failed += failed;
  refresh_plan (plan);
}

gboolean
pp_executor_execute (PpExecutor       *self,
                     GPtrArray        *plan,
                     PpExecutorScope   scope,
                     GPtrArray       **written,
                     guint            *n_failed,
                     GError          **error)
{
  guint failed = 0;
  gboolean ok;

  *written = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_plan_write_free);
  if (scope == PP_EXECUTOR_FULL_PASS)
    self->journal_failed = FALSE;   /* whatever could not be journalled is in it */
  else
    retry_unjournalled (self, plan, *written, &failed);
  ok = execute_writes (self, plan, *written, &failed, error);
  if (n_failed != NULL)
    *n_failed = failed;
  return ok;
}

gboolean
pp_executor_may_write (const char *path)
{
  return roots_for_path (path) != NULL;
}

GHashTable *
pp_executor_get_touched (PpExecutor *self, const char *syspath)
{
  PpStrSet *set = g_hash_table_lookup (self->touched, syspath);

  return set != NULL ? pp_str_set_to_hash_table (set) : NULL;
}

GPtrArray *
pp_executor_policy_paths (PpExecutor *self)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  gpointer dir, set;

  g_hash_table_iter_init (&iter, self->touched);
  while (g_hash_table_iter_next (&iter, &dir, &set))
    for (guint i = 0; i < pp_str_set_size (set); i++)
      g_ptr_array_add (paths, g_build_filename (dir, pp_str_set_index (set, i), NULL));
  g_hash_table_iter_init (&iter, self->adopted);
  while (g_hash_table_iter_next (&iter, &dir, NULL))
    g_ptr_array_add (paths, g_strdup (dir));
  return paths;
}

void
pp_executor_adopt (PpExecutor *self, GPtrArray *paths)
{
  for (guint i = 0; i < paths->len; i++)
    g_hash_table_add (self->adopted, g_strdup (g_ptr_array_index (paths, i)));
}

void
pp_executor_forget_under (PpExecutor *self, const char *dir)
{
  GHashTableIter iter;
  gpointer key;
  gsize n = strlen (dir);

  g_hash_table_iter_init (&iter, self->adopted);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (strncmp (key, dir, n) == 0 && ((const char *) key)[n] == '/')
      g_hash_table_iter_remove (&iter);
  pp_restore_forget_under (self->restore, dir);
  compact_journal (self);
}

void
pp_executor_release_device (PpExecutor *self, const char *syspath, const char *why)
{
  PpStrSet *written = g_hash_table_lookup (self->touched, syspath);
  GPtrArray *recorded = pp_restore_get_recorded (self->restore);
  g_autoptr(GPtrArray) originals = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_original_free);
  gsize dir_len = strlen (syspath);

  for (guint i = 0; written != NULL && i < recorded->len; i++)
    {
      PpOriginal *o = g_ptr_array_index (recorded, i);

      if (strncmp (o->path, syspath, dir_len) == 0 && o->path[dir_len] == '/' &&
          pp_str_set_contains (written, o->path + dir_len + 1))
        g_ptr_array_add (originals, pp_original_new (o->path, o->value));
    }
  g_info ("%s: %s, writing back its %u original values and forgetting it",
          syspath, why, originals->len);
  if (originals->len > 0 && !self->dry_run)
    pp_executor_restore_originals (originals, why);
  for (guint i = 0; i < originals->len; i++)
    pp_restore_forget (self->restore, ((PpOriginal *) g_ptr_array_index (originals, i))->path);
  compact_journal (self);
}

void
pp_executor_forget_touched (PpExecutor *self, const char *syspath)
{
  g_hash_table_remove (self->touched, syspath);
}

/* The plan that puts @originals (PpOriginal*) back; @read_current: with
 * the current values (of a list of choices, /sys/power/mem_sleep, the
 * chosen one), for ListChanges. */
GPtrArray *
pp_executor_plan_restore (GPtrArray *originals, gboolean read_current)
{
  GPtrArray *plan = pp_plan_new ();

  for (guint i = 0; originals != NULL && i < originals->len; i++)
    {
      PpOriginal *o = g_ptr_array_index (originals, i);
      PpManagerWriteFlags flags = pp_sysfs_path_is_under (o->path, PP_SYSFS_POWER)
                                  ? PP_MANAGER_WRITE_CHOICE : PP_MANAGER_WRITE_SETTING;
      g_autofree char *current = read_current ? pp_executor_read_current (o->path, flags, NULL)
                                              : NULL;

      pp_plan_restore (plan, o->path, o->value, current);
    }
  return plan;
}

/* Restoring is a plan too (pp_plan_restore()): each original written
 * back through the checked writer, no journal (it is the journal), no
 * foreign check; a device that is gone is no failure. */
void
pp_executor_restore_originals (GPtrArray *originals, const char *why)
{
  g_autoptr(GPtrArray) plan = pp_executor_plan_restore (originals, FALSE);
  guint ok = 0, failed = 0;

  for (guint i = 0; i < plan->len; i++)
    {
      PpPlanWrite *w = g_ptr_array_index (plan, i);
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

/* ---- an action written off the main loop ------------------------------ */

/* What the worker thread writes: its own copy (it reads nothing of the
 * executor), and the planned write the main thread reports on. */
typedef struct {
  PpExecutor *self;
  GPtrArray  *plan;      /* of one PpPlanWrite */
  char       *path;
  char       *value;
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

void
pp_executor_write_action_async (PpExecutor          *self,
                                GPtrArray           *plan,
                                gpointer             source_object,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (source_object, NULL, callback, user_data);
  PpPlanWrite *w;
  ActionWrite *a;

  g_return_if_fail (plan->len == 1);
  w = g_ptr_array_index (plan, 0);
  a = g_new0 (ActionWrite, 1);
  a->self = self;
  a->plan = g_ptr_array_ref (plan);
  a->path = g_strdup (w->path);
  a->value = g_strdup (w->value);
  g_task_set_task_data (task, a, (GDestroyNotify) action_write_free);
  if (self->dry_run)
    {
      log_dry_run (plan);
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_info ("Writing %s to %s", a->value, a->path);
  g_task_run_in_thread (task, action_write_thread);
}

gboolean
pp_executor_write_action_finish (PpExecutor    *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  ActionWrite *a = g_task_get_task_data (G_TASK (result));
  PpPlanWrite *w = g_ptr_array_index (a->plan, 0);
  GError *local_error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &local_error))
    {
      report_write_failure (self, w, local_error);
      g_propagate_error (error, local_error);
      return FALSE;
    }
  if (!self->dry_run)
    note_written (self, w);
  return TRUE;
}
