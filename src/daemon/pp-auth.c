/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-auth"

#include "config.h"

#include "pp-auth.h"
#include "pp-error.h"

typedef struct {
  char *action_id;
  char *sender;
} AuthData;

static void
auth_data_free (AuthData *data)
{
  g_free (data->action_id);
  g_free (data->sender);
  g_free (data);
}

static void
on_unix_user (GObject *source, GAsyncResult *res, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  AuthData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  guint32 uid;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &error);
  if (reply == NULL)
    {
      g_task_return_new_error (task, PP_ERROR, PP_ERROR_NOT_AUTHORIZED,
                               "cannot identify the caller %s: %s", data->sender, error->message);
      return;
    }
  g_variant_get (reply, "(u)", &uid);
  if (uid == 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_task_return_new_error (task, PP_ERROR, PP_ERROR_NOT_AUTHORIZED,
                           "uid %u is not authorized for %s", uid, data->action_id);
}

void
pp_auth_check (GDBusMethodInvocation *invocation,
               const char            *action_id,
               GAsyncReadyCallback    callback,
               gpointer               user_data)
{
  GDBusConnection *connection = g_dbus_method_invocation_get_connection (invocation);
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  AuthData *data = g_new0 (AuthData, 1);

  data->action_id = g_strdup (action_id);
  data->sender = g_strdup (g_dbus_method_invocation_get_sender (invocation));
  g_task_set_task_data (task, data, (GDestroyNotify) auth_data_free);

  if (data->sender == NULL)
    {
      /* peer-to-peer connection: no bus to ask, trust nobody */
      g_task_return_new_error (task, PP_ERROR, PP_ERROR_NOT_AUTHORIZED,
                               "cannot identify the caller");
      g_object_unref (task);
      return;
    }

  g_dbus_connection_call (connection,
                          "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetConnectionUnixUser",
                          g_variant_new ("(s)", data->sender), G_VARIANT_TYPE ("(u)"),
                          G_DBUS_CALL_FLAGS_NONE, 5000, NULL, on_unix_user, task);
}

gboolean
pp_auth_check_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
