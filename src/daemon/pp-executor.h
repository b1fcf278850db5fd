/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The executor: the one write path of the daemon, a private object of
 * the manager (pp-manager.c). It holds the journal of originals, what
 * this run changed, the foreign-write tracker, the write-failure counts
 * and the dry-run switch. It tells its owner what it wrote by return
 * values; the owner announces (DeviceChanged, write-failures,
 * conflicts-changed). */
#pragma once

#include <glib.h>

#include "pp-foreign.h"
#include "pp-manager.h"
#include "pp-plan.h"
#include "pp-restore.h"

G_BEGIN_DECLS

typedef struct _PpExecutor PpExecutor;

/* What the executor asks its owner. @managed: whether @syspath is a
 * device the policy manages (an attribute of a deeper managed device is
 * that device's); @plan_all: a full pass into @plan, for the retry
 * after a plan could not be journalled; FALSE when there is none to
 * plan yet (before the start). */
typedef struct {
  gboolean  (*managed)  (const char *syspath, gpointer user_data);
  gboolean  (*plan_all) (GPtrArray *plan, gpointer user_data);
  gpointer    user_data;
} PpExecutorHooks;

typedef enum {
  PP_EXECUTOR_PART = 0,       /* part of the policy: a pass that could not
                               * be journalled is retried first */
  PP_EXECUTOR_FULL_PASS = 1,  /* a full pass: it is the retry */
} PpExecutorScope;

PpExecutor  *pp_executor_new            (const char *runtime_dir, gboolean oneshot,
                                         const PpExecutorHooks *hooks);
void         pp_executor_free           (PpExecutor *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpExecutor, pp_executor_free)

/* The one dry-run switch: under it every write is logged, none done. */
void         pp_executor_set_dry_run    (PpExecutor *self, gboolean dry_run);
gboolean     pp_executor_get_dry_run    (PpExecutor *self);

PpRestore        *pp_executor_get_restore (PpExecutor *self);
PpForeignTracker *pp_executor_get_foreign (PpExecutor *self);
/* Whether a foreign change was seen since the last call. */
gboolean     pp_executor_take_foreign_changed (PpExecutor *self);
guint64      pp_executor_get_n_write_failures (PpExecutor *self);

/* Carry out @plan: drop what another program changed (reported) and what
 * is in place; under dry-run log the rest; else journal the originals
 * and write. Before that, with @scope PP_EXECUTOR_PART, when an earlier
 * plan could not be journalled, a full pass (the hooks' plan_all) is
 * done first and @plan checked against the values it left. *@written
 * (always set) gets the writes done, in order, the retry's included;
 * *@n_failed the writes that failed. FALSE with @error (the first
 * failure) when a write failed or nothing could be journalled. */
gboolean     pp_executor_execute        (PpExecutor      *self,
                                         GPtrArray       *plan,
                                         PpExecutorScope  scope,
                                         GPtrArray      **written,
                                         guint           *n_failed,
                                         GError         **error);

/* The planner's view of the current values: sysfs and the journal. */
void         pp_executor_plan_settings  (PpExecutor *self, GPtrArray *plan, PpDevice *dev,
                                         const char *dir, GPtrArray *settings);
/* Only @relpath of @dev, as pp_executor_plan_settings() plans it: its
 * value in @settings, or (changed by the daemon, no layer sets it now)
 * its original; the device's other attributes are not read. */
void         pp_executor_plan_attribute (PpExecutor *self, GPtrArray *plan, PpDevice *dev,
                                         GPtrArray *settings, const char *relpath);
/* The attributes of @syspath this run changed (relpaths), or NULL: a new
 * set (g_hash_table_unref()) whose keys stay valid until the executor
 * forgets @syspath's attributes. */
GHashTable  *pp_executor_get_touched    (PpExecutor *self, const char *syspath);
/* The full paths of the policy's writes this run, and those a previous
 * run kept that no pass planned since. */
GPtrArray   *pp_executor_policy_paths   (PpExecutor *self);
/* Paths whose originals a previous run kept (RestoreOnExit=false). */
void         pp_executor_adopt          (PpExecutor *self, GPtrArray *paths);
/* @dir (a device or module) went: its originals cannot be put back. */
void         pp_executor_forget_under   (PpExecutor *self, const char *dir);
/* A device whose driver was unbound: what this run wrote to its own
 * attributes (not those of devices below it) is written back to the
 * originals, in recording order (not under dry-run), and those originals
 * leave the journal. @why names it in the log and the restore event. */
void         pp_executor_release_device (PpExecutor *self, const char *syspath,
                                         const char *why);
/* A device that left: it starts afresh when it comes back. */
void         pp_executor_forget_touched (PpExecutor *self, const char *syspath);

/* Where a write to @path may land; FALSE: nowhere the daemon writes. */
gboolean     pp_executor_may_write      (const char *path);
char        *pp_executor_read_current   (const char *path, PpManagerWriteFlags flags,
                                         GError **error);
GPtrArray   *pp_executor_plan_restore   (GPtrArray *originals, gboolean read_current);
void         pp_executor_restore_originals (GPtrArray *originals, const char *why);

/* An action (@plan: one PP_MANAGER_WRITE_ACTION write, /sys/power/state)
 * written in a worker thread, so that the main loop keeps serving while
 * the kernel blocks in it; under dry-run only logged. @source_object is
 * the GTask's. _finish() reports a failure as every write's and notes
 * the write. */
void         pp_executor_write_action_async  (PpExecutor          *self,
                                              GPtrArray           *plan,
                                              gpointer             source_object,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
gboolean     pp_executor_write_action_finish (PpExecutor    *self,
                                              GAsyncResult  *result,
                                              GError       **error);

G_END_DECLS
