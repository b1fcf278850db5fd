/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-auth"

#include "config.h"

#include "pp-auth.h"
#include "pp-error.h"
#include "pp-names.h"

#define POLKIT_NAME      "org.freedesktop.PolicyKit1"
#define POLKIT_PATH      "/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_INTERFACE "org.freedesktop.PolicyKit1.Authority"

/* CheckAuthorizationFlags */
#define POLKIT_ALLOW_USER_INTERACTION 1

typedef struct {
  GDBusConnection *bus;
  char            *action_id;
  char            *sender;
  gboolean         allow_interaction;
  guint32          uid;
} AuthData;

static void
auth_data_free (AuthData *data)
{
  g_clear_object (&data->bus);
  g_free (data->action_id);
  g_free (data->sender);
  g_free (data);
}

static void
refuse (GTask *task, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
refuse (GTask *task, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_debug ("Refusing: %s", message);
  g_task_return_new_error (task, PP_ERROR, PP_ERROR_NOT_AUTHORIZED, "%s", message);
}

static void
on_check_authorization (GObject *source, GAsyncResult *res, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  AuthData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  gboolean authorized = FALSE, challenge = FALSE;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &error);
  if (reply == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
        refuse (task, "polkit did not answer within %d ms; refusing %s for uid %u",
                PP_AUTH_TIMEOUT_MS, data->action_id, data->uid);
      else
        refuse (task, "cannot ask polkit about %s for uid %u: %s",
                data->action_id, data->uid, error->message);
      return;
    }
  g_variant_get (reply, "((bb@a{ss}))", &authorized, &challenge, NULL);
  if (authorized)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  refuse (task, "uid %u is not authorized for %s%s", data->uid, data->action_id,
          challenge ? " (authentication is required)" : "");
}

static void
ask_polkit (GTask *task)
{
  AuthData *data = g_task_get_task_data (task);
  g_auto(GVariantBuilder) subject = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a{sv}"));
  g_auto(GVariantBuilder) details = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a{ss}"));

  g_variant_builder_add (&subject, "{sv}", "name", g_variant_new_string (data->sender));
  g_dbus_connection_call (data->bus, POLKIT_NAME, POLKIT_PATH, POLKIT_INTERFACE,
                          "CheckAuthorization",
                          g_variant_new ("((sa{sv})sa{ss}us)", "system-bus-name", &subject,
                                         data->action_id, &details,
                                         data->allow_interaction ? POLKIT_ALLOW_USER_INTERACTION : 0,
                                         ""),
                          G_VARIANT_TYPE ("((bba{ss}))"),
                          G_DBUS_CALL_FLAGS_NO_AUTO_START, PP_AUTH_TIMEOUT_MS,
                          NULL, on_check_authorization, task);
}

static void
on_polkit_owner (GObject *source, GAsyncResult *res, gpointer user_data)
{
  GTask *task = user_data;
  AuthData *data = g_task_get_task_data (task);
  g_autoptr(GVariant) reply = NULL;
  gboolean has_owner = FALSE;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, NULL);
  if (reply != NULL)
    g_variant_get (reply, "(b)", &has_owner);

  if (has_owner)
    {
      ask_polkit (task);
      return;
    }
  /* no polkit: only root changes state, but any local user may hold a
   * device or inhibit (powerpolicyd(8), POWER-DEPENDENCY TREE and USER
   * ACTIVITY, LID AND DOCK), and hold a power profile (powerpolicyd(8),
   * POWER PROFILES) */
  if (g_str_equal (data->action_id, PP_POLKIT_ACTION_INHIBIT) ||
      g_str_equal (data->action_id, PP_POLKIT_ACTION_HOLD_PROFILE))
    g_task_return_boolean (task, TRUE);
  else
    refuse (task, "uid %u is not authorized for %s (polkit is not running: only root may do this)",
            data->uid, data->action_id);
  g_object_unref (task);
}

static void
on_unix_user (GObject *source, GAsyncResult *res, gpointer user_data)
{
  GTask *task = user_data;
  AuthData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &error);
  if (reply == NULL)
    {
      refuse (task, "cannot identify the caller %s: %s", data->sender, error->message);
      g_object_unref (task);
      return;
    }
  g_variant_get (reply, "(u)", &data->uid);
  if (data->uid == 0)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  g_dbus_connection_call (data->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "NameHasOwner",
                          g_variant_new ("(s)", POLKIT_NAME), G_VARIANT_TYPE ("(b)"),
                          G_DBUS_CALL_FLAGS_NONE, PP_AUTH_TIMEOUT_MS, NULL,
                          on_polkit_owner, task);
}

void
pp_auth_check (GDBusMethodInvocation *invocation,
               const char            *action_id,
               gboolean               allow_interaction,
               GAsyncReadyCallback    callback,
               gpointer               user_data)
{
  pp_auth_check_sender (g_dbus_method_invocation_get_connection (invocation),
                        g_dbus_method_invocation_get_sender (invocation),
                        action_id, allow_interaction, callback, user_data);
}

void
pp_auth_check_sender (GDBusConnection     *connection,
                      const char          *sender,
                      const char          *action_id,
                      gboolean             allow_interaction,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  AuthData *data = g_new0 (AuthData, 1);

  data->bus = g_object_ref (connection);
  data->action_id = g_strdup (action_id);
  data->sender = g_strdup (sender);
  data->allow_interaction = allow_interaction;
  g_task_set_task_data (task, data, (GDestroyNotify) auth_data_free);

  if (sender == NULL)
    {
      /* a peer-to-peer connection has no bus to vouch for the caller */
      refuse (task, "cannot identify the caller");
      g_object_unref (task);
      return;
    }
  g_dbus_connection_call (data->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetConnectionUnixUser",
                          g_variant_new ("(s)", sender), G_VARIANT_TYPE ("(u)"),
                          G_DBUS_CALL_FLAGS_NONE, PP_AUTH_TIMEOUT_MS, NULL, on_unix_user, task);
}

gboolean
pp_auth_check_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
