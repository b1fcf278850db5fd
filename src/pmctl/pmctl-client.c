/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The connection to powerpolicyd: the system bus, the typed proxy
 * generated from org.powerpolicy1.Manager.xml, and D-Bus errors told as
 * one sentence each. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <string.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pp-error.h"
#include "pp-names.h"

/* An unregistered name GDBus has no code for. */
#define DBUS_ERROR_INTERACTIVE_AUTH_REQUIRED "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"

const char *
pmctl_not_running_message (void)
{
  return "powerpolicyd is not running (" PP_DBUS_NAME " is not on the system bus)";
}

/* The generated proxy calls with no flags: every call to the daemon may
 * wait for a polkit agent to ask the user, as systemctl's do. Runs in
 * GDBus' worker thread; an outgoing message is changed by returning a
 * copy. */
static GDBusMessage *
allow_interactive_authorization (GDBusConnection *connection,
                                 GDBusMessage    *message,
                                 gboolean         incoming,
                                 gpointer         user_data)
{
  g_autoptr(GDBusMessage) copy = NULL;

  if (incoming ||
      g_dbus_message_get_message_type (message) != G_DBUS_MESSAGE_TYPE_METHOD_CALL ||
      g_strcmp0 (g_dbus_message_get_interface (message), PP_DBUS_INTERFACE) != 0)
    return message;
  copy = g_dbus_message_copy (message, NULL);
  if (copy == NULL)
    return message;
  g_dbus_message_set_flags (copy, g_dbus_message_get_flags (copy) |
                                  G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION);
  g_object_unref (message);
  return g_steal_pointer (&copy);
}

gboolean
pmctl_connect_bus (Pmctl *ctl)
{
  g_autoptr(GError) error = NULL;

  if (ctl->bus != NULL)
    return TRUE;
  /* org.powerpolicy1.Error.* arrive as PP_ERROR from here on */
  (void) PP_ERROR;

  ctl->bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &error);
  if (ctl->bus == NULL)
    {
      /* no bus at all is not "the daemon is not running" */
      pmctl_fail ("cannot connect to the system bus: %s", error->message);
      return FALSE;
    }
  /* a bus that goes away must not kill us with SIGTERM */
  g_dbus_connection_set_exit_on_close (ctl->bus, FALSE);
  g_dbus_connection_add_filter (ctl->bus, allow_interactive_authorization, NULL, NULL);
  return TRUE;
}

gboolean
pmctl_connect (Pmctl *ctl, GDBusProxyFlags flags)
{
  g_autoptr(GError) error = NULL;

  if (!pmctl_connect_bus (ctl))
    return FALSE;
  ctl->manager = pp_dbus_manager_proxy_new_sync (ctl->bus, flags, PP_DBUS_NAME, PP_DBUS_PATH,
                                                 NULL, &error);
  if (ctl->manager == NULL)
    {
      pmctl_report_error (error, "reach powerpolicyd", NULL);
      return FALSE;
    }
  pmctl_set_timeout (ctl, PMCTL_CALL_TIMEOUT_MS);
  return TRUE;
}

gboolean
pmctl_connect_to_change (Pmctl *ctl)
{
  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return FALSE;
  pmctl_set_timeout (ctl, PMCTL_AUTH_TIMEOUT_MS);
  return TRUE;
}

void
pmctl_set_timeout (Pmctl *ctl, int timeout_ms)
{
  g_dbus_proxy_set_default_timeout (G_DBUS_PROXY (ctl->manager), timeout_ms);
}

static void
report_pp_error (const GError *error, const char *detail, const char *what, const char *device)
{
  switch ((PpError) error->code)
    {
    case PP_ERROR_NO_SUCH_DEVICE:
      pmctl_fail ("no such device: %s", device != NULL ? device : detail);
      break;
    case PP_ERROR_NOT_AUTHORIZED:
      pmctl_fail ("not authorized to %s (%s)", what, detail);
      break;
    case PP_ERROR_INVALID_ARGUMENT:
      pmctl_fail ("invalid argument: %s", detail);
      break;
    case PP_ERROR_REFUSED:
      pmctl_fail ("powerpolicyd refused to %s: %s", what, detail);
      break;
    case PP_ERROR_NOT_SUPPORTED:
      pmctl_fail ("cannot %s: not supported (%s)", what, detail);
      break;
    case PP_ERROR_FAILED:
    default:
      pmctl_fail ("cannot %s: %s", what, detail);
      break;
    }
}

/* The bus' own errors; FALSE when @error is none of those known here. */
static gboolean
report_bus_error (const GError *error, const char *detail, const char *what)
{
  if (error->domain != G_DBUS_ERROR)
    return FALSE;
  switch (error->code)
    {
    case G_DBUS_ERROR_SERVICE_UNKNOWN:
    case G_DBUS_ERROR_NAME_HAS_NO_OWNER:
      pmctl_fail ("%s", pmctl_not_running_message ());
      return TRUE;
    case G_DBUS_ERROR_SPAWN_EXEC_FAILED:
    case G_DBUS_ERROR_SPAWN_FORK_FAILED:
    case G_DBUS_ERROR_SPAWN_CHILD_EXITED:
    case G_DBUS_ERROR_SPAWN_CHILD_SIGNALED:
    case G_DBUS_ERROR_SPAWN_FAILED:
    case G_DBUS_ERROR_SPAWN_SETUP_FAILED:
    case G_DBUS_ERROR_SPAWN_CONFIG_INVALID:
    case G_DBUS_ERROR_SPAWN_SERVICE_INVALID:
    case G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND:
    case G_DBUS_ERROR_SPAWN_PERMISSIONS_INVALID:
    case G_DBUS_ERROR_SPAWN_FILE_INVALID:
    case G_DBUS_ERROR_SPAWN_NO_MEMORY:
      pmctl_fail ("powerpolicyd is not running and could not be started: %s", detail);
      return TRUE;
    case G_DBUS_ERROR_ACCESS_DENIED:
    case G_DBUS_ERROR_AUTH_FAILED:
      pmctl_fail ("not authorized to %s (%s)", what, detail);
      return TRUE;
    case G_DBUS_ERROR_UNKNOWN_METHOD:
    case G_DBUS_ERROR_UNKNOWN_PROPERTY:
    case G_DBUS_ERROR_UNKNOWN_INTERFACE:
    case G_DBUS_ERROR_UNKNOWN_OBJECT:
      /* say an upgrade without a restart of the daemon */
      pmctl_fail ("the running powerpolicyd cannot %s (%s); is it older than pmctl %s?",
                  what, detail, PACKAGE_VERSION);
      return TRUE;
    case G_DBUS_ERROR_NO_REPLY:
    case G_DBUS_ERROR_TIMEOUT:
    case G_DBUS_ERROR_TIMED_OUT:
      pmctl_fail ("powerpolicyd did not answer (trying to %s): %s", what, detail);
      return TRUE;
    default:
      return FALSE;
    }
}

/* A message from the other end on one line: control characters (a
 * newline, an escape sequence) and the blanks around them become one
 * blank. */
static void
flatten_message (char *text)
{
  char *out = text;
  gboolean blank = FALSE;

  for (const char *p = text; *p; p++)
    {
      if ((guchar) *p <= 0x20 || *p == 0x7f)
        {
          blank = out != text;
          continue;
        }
      if (blank)
        *out++ = ' ';
      blank = FALSE;
      *out++ = *p;
    }
  *out = '\0';
}

void
pmctl_report_error (const GError *error, const char *what, const char *device)
{
  g_autofree char *name = g_dbus_error_get_remote_error (error);
  g_autoptr(GError) copy = g_error_copy (error);

  g_dbus_error_strip_remote_error (copy);
  flatten_message (copy->message);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    pmctl_fail ("powerpolicyd did not answer in time (trying to %s)", what);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED))
    pmctl_fail ("lost the connection to the system bus (trying to %s)", what);
  else if (error->domain == PP_ERROR)
    report_pp_error (error, copy->message, what, device);
  else if (report_bus_error (error, copy->message, what))
    ;
  else if (g_strcmp0 (name, DBUS_ERROR_INTERACTIVE_AUTH_REQUIRED) == 0)
    pmctl_fail ("not authorized to %s (%s)", what, copy->message);
  else if (name != NULL)
    pmctl_fail ("cannot %s: %s (%s)", what, copy->message, name);
  else
    pmctl_fail ("cannot %s: %s", what, copy->message);
}
