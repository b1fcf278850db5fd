/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The manager's side of executing a plan: the executor (pp-executor.h)
 * writes and hands back what it wrote; the manager announces it
 * (DeviceChanged, the residency bases, write-failures,
 * conflicts-changed). Only the manager emits its signals. */
#define G_LOG_DOMAIN "pp-manager"

#include "config.h"

#include <gio/gio.h>

#include "pp-executor.h"
#include "pp-manager-private.h"
#include "pp-residency.h"

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
      PlannedWrite *w = g_ptr_array_index (writes, i);

      g_strv_builder_add (attrs, w->relpath);
      g_strv_builder_add (values, w->value);
    }
  attrv = g_strv_builder_end (attrs);
  valuev = g_strv_builder_end (values);
  g_signal_emit (self, pp_manager_signals[SIGNAL_DEVICE_CHANGED], 0, dev->info->syspath, attrv, valuev);
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
