/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl monitor: device and property changes as they happen, and the
 * daemon coming and going, until SIGINT or SIGTERM. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <signal.h>
#include <stdio.h>

#include <glib-unix.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pp-names.h"

typedef struct {
  Pmctl      *ctl;
  GMainLoop  *loop;
  int         status;
  gboolean    daemon_running;
} Monitor;

/* " key=value key=value", keys in the signal's order; numbers as they
 * are (a delay of -1 is -1) */
static char *
format_changes (GVariant *changed)
{
  g_autoptr(GString) s = g_string_new (NULL);
  GVariantIter iter;
  const char *key;
  GVariant *value;

  g_variant_iter_init (&iter, changed);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
    {
      g_autofree char *text = pmctl_format_value (value, ",");
      g_string_append_printf (s, " %s=%s", key, text);
      g_variant_unref (value);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static void
on_device_changed (PpDbusManager *manager,
                   const char    *path,
                   GVariant      *changed,
                   gpointer       user_data)
{
  Monitor *m = user_data;

  if (m->ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "signal");
      json_builder_add_string_value (b, "DeviceChanged");
      json_builder_set_member_name (b, "path");
      json_builder_add_string_value (b, path);
      json_builder_set_member_name (b, "changed");
      json_builder_add_value (b, json_gvariant_serialize (changed));
      json_builder_end_object (b);
      pmctl_json_print_line (b);
    }
  else
    {
      g_autofree char *text = format_changes (changed);
      printf ("DeviceChanged %s%s\n", path, text);
      fflush (stdout);
    }
}

/* PropertiesChanged as the daemon sends it, one line each, from the
 * proxy (which keeps its cache and emits notify:: per property from the
 * same signal). The proxy also invalidates everything when the daemon
 * goes (it has no owner then) and loads everything when it comes back
 * (before it tells its new owner, DaemonStarted): those changes are its
 * own, not the daemon's, and not printed. */
static void
on_properties_changed (GDBusProxy         *proxy,
                       GVariant           *changed,
                       const char * const *invalidated,
                       gpointer            user_data)
{
  Monitor *m = user_data;
  g_autofree char *owner = g_dbus_proxy_get_name_owner (proxy);

  if (owner == NULL || !m->daemon_running)
    return;
  if (m->ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "signal");
      json_builder_add_string_value (b, "PropertiesChanged");
      json_builder_set_member_name (b, "changed");
      json_builder_add_value (b, json_gvariant_serialize (changed));
      json_builder_set_member_name (b, "invalidated");
      json_builder_begin_array (b);
      for (guint i = 0; invalidated[i]; i++)
        json_builder_add_string_value (b, invalidated[i]);
      json_builder_end_array (b);
      json_builder_end_object (b);
      pmctl_json_print_line (b);
    }
  else
    {
      g_autofree char *text = format_changes (changed);
      g_autoptr(GString) line = g_string_new ("PropertiesChanged");

      g_string_append (line, text);
      for (guint i = 0; invalidated[i]; i++)
        g_string_append_printf (line, " %s=?", invalidated[i]);
      printf ("%s\n", line->str);
      fflush (stdout);
    }
}

static void
on_name_owner (GObject *proxy, GParamSpec *pspec, gpointer user_data)
{
  Monitor *m = user_data;
  g_autofree char *owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (proxy));
  gboolean running = owner != NULL;

  if (running == m->daemon_running)
    return;
  m->daemon_running = running;
  if (m->ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "signal");
      json_builder_add_string_value (b, running ? "DaemonStarted" : "DaemonStopped");
      json_builder_end_object (b);
      pmctl_json_print_line (b);
    }
  else
    {
      printf ("%s\n", running ? "DaemonStarted" : "DaemonStopped");
      fflush (stdout);
    }
}

static gboolean
on_quit_signal (gpointer user_data)
{
  Monitor *m = user_data;

  g_main_loop_quit (m->loop);
  return G_SOURCE_CONTINUE;
}

static void
on_bus_closed (GDBusConnection *connection, gboolean remote_peer_vanished,
               GError *error, gpointer user_data)
{
  Monitor *m = user_data;

  pmctl_fail ("lost the connection to the system bus%s%s",
              error ? ": " : "", error ? error->message : "");
  m->status = PMCTL_EXIT_FAILURE;
  g_main_loop_quit (m->loop);
}

static int
run_monitor (Pmctl *ctl, char **args, char **command_argv)
{
  g_autofree char *owner = NULL;
  Monitor m = { ctl, NULL, PMCTL_EXIT_OK, TRUE };
  guint sigint_id, sigterm_id;

  /* monitor watches; it does not start the daemon. The proxy subscribes
   * to the signals before it asks for the owner and the properties: the
   * bus handles our messages in order, so once it knows, nothing is missed */
  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START))
    return PMCTL_EXIT_FAILURE;
  owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (ctl->manager));
  if (owner == NULL)
    {
      pmctl_fail ("%s", pmctl_not_running_message ());
      return PMCTL_EXIT_FAILURE;
    }

  m.loop = g_main_loop_new (NULL, FALSE);
  g_signal_connect (ctl->manager, "device-changed", G_CALLBACK (on_device_changed), &m);
  g_signal_connect (ctl->manager, "g-properties-changed", G_CALLBACK (on_properties_changed), &m);
  g_signal_connect (ctl->manager, "notify::g-name-owner", G_CALLBACK (on_name_owner), &m);
  g_signal_connect (ctl->bus, "closed", G_CALLBACK (on_bus_closed), &m);
  sigint_id = g_unix_signal_add (SIGINT, on_quit_signal, &m);
  sigterm_id = g_unix_signal_add (SIGTERM, on_quit_signal, &m);

  /* on stderr, so it does not mix with the events; tells a script that
   * the subscription is in place */
  fprintf (stderr, "pmctl: monitoring %s, press Ctrl+C to stop\n", PP_DBUS_NAME);

  g_main_loop_run (m.loop);

  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  g_signal_handlers_disconnect_by_data (ctl->manager, &m);
  g_signal_handlers_disconnect_by_data (ctl->bus, &m);
  g_main_loop_unref (m.loop);
  return pmctl_finish_output (m.status);
}

const PmctlCommand pmctl_command_monitor = {
  "monitor", "monitor",
  "Print changes as they happen, until interrupted",
  "Print every device change and every change of the daemon's properties\n"
  "as it happens, one line each, until SIGINT (Ctrl+C) or SIGTERM. With\n"
  "--json each line is one JSON object.",
  NULL, 0, 0, FALSE, run_monitor,
};
