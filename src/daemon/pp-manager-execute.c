/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The manager's side of executing a plan: the executor (pp-executor.h)
 * writes and hands back what it wrote; the manager announces it
 * (DeviceChanged, the residency bases, write-failures,
 * conflicts-changed). Only the manager emits its signals. */
#define G_LOG_DOMAIN "pp-manager"

#include "config.h"

#include <gio/gio.h>

#include "pp-error.h"
#include "pp-executor.h"
#include "pp-manager-private.h"
#include "pp-residency.h"

/* The manager's signals and properties are named here, not reached
 * through pp-manager.c's arrays (static there): this file is called by
 * pp-manager.c and pp-manager-layers.c and calls neither back (the
 * style suite's call-cycles check). */

/* Tell what a device's applied writes changed: its attributes (relative
 * paths) and their new values, in the order written. */
static void
emit_device_changed (PpManager *self, PpDevice *dev, GPtrArray *writes)
{
  g_autoptr(GStrvBuilder) attrs = NULL;
  g_autoptr(GStrvBuilder) values = NULL;
  g_auto(GStrv) attrv = NULL;
  g_auto(GStrv) valuev = NULL;

  if (!g_signal_has_handler_pending (self, g_signal_lookup ("device-changed", PP_TYPE_MANAGER),
                                     0, FALSE))
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
  g_signal_emit_by_name (self, "device-changed", dev->info->syspath, attrv, valuev);
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
      PlannedWrite *w = g_ptr_array_index (written, i);
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
void
pp_manager_flush_conflicts_changed (PpManager *self)
{
  gboolean seen = pp_executor_take_foreign_changed (self->executor);

  if (!self->foreign_changed && !seen)
    return;
  self->foreign_changed = FALSE;
  g_signal_emit_by_name (self, "conflicts-changed");
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
  g_object_notify (G_OBJECT (self), "write-failures");
}

gboolean
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

gboolean
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
