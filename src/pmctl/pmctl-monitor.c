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
#include "pp-util.h"
#include "pp-names.h"

typedef struct {
  Pmctl      *ctl;
  GMainLoop  *loop;
  int         status;
  gboolean    daemon_running;
  /* the property changes of one PropertiesChanged signal, gathered from
   * the proxy's notify:: emissions until the signal has been handled */
  GVariantDict *changed;      /* NULL: nothing gathered */
  GPtrArray  *changed_order;  /* the names in the signal's order */
  GPtrArray  *invalidated;
  guint       changed_source; /* the main-loop source that delivered them */
  guint       flush_id;
} Monitor;

/* One line of text output, flushed: the values are the daemon's and the
 * devices' (a path, a blocker, a caller's "why"), escaped so that a
 * newline cannot forge a line nor an escape sequence reach the terminal. */
static void
print_line (const char *line)
{
  g_autofree char *shown = pp_escape_text (line, 0);

  printf ("%s\n", shown);
  fflush (stdout);
}

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

/* One line for the property changes gathered from one PropertiesChanged
 * signal, as the daemon sent it: the changed values in the signal's
 * order, then the invalidated names. */
static void
flush_properties (Monitor *m)
{
  g_autoptr(GVariantBuilder) changed = g_variant_builder_new (G_VARIANT_TYPE_VARDICT);
  g_autoptr(GVariant) changed_value = NULL;
  g_autoptr(GPtrArray) invalidated = g_steal_pointer (&m->invalidated);
  g_autoptr(GPtrArray) order = g_steal_pointer (&m->changed_order);
  g_autoptr(GVariantDict) values = g_steal_pointer (&m->changed);

  g_clear_handle_id (&m->flush_id, g_source_remove);
  if (values == NULL)
    return;
  for (guint i = 0; i < order->len; i++)
    {
      const char *name = g_ptr_array_index (order, i);
      g_autoptr(GVariant) value = g_variant_dict_lookup_value (values, name, NULL);

      g_variant_builder_add (changed, "{sv}", name, value);
    }
  changed_value = g_variant_ref_sink (g_variant_builder_end (changed));
  g_ptr_array_add (invalidated, NULL);
  if (m->ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "signal");
      json_builder_add_string_value (b, "PropertiesChanged");
      json_builder_set_member_name (b, "changed");
      json_builder_add_value (b, json_gvariant_serialize (changed_value));
      json_builder_set_member_name (b, "invalidated");
      json_builder_begin_array (b);
      for (guint i = 0; invalidated->pdata[i]; i++)
        json_builder_add_string_value (b, invalidated->pdata[i]);
      json_builder_end_array (b);
      json_builder_end_object (b);
      pmctl_json_print_line (b);
    }
  else
    {
      g_autofree char *text = format_changes (changed_value);
      g_autoptr(GString) line = g_string_new ("PropertiesChanged");

      g_string_append (line, text);
      for (guint i = 0; invalidated->pdata[i]; i++)
        g_string_append_printf (line, " %s=?", (const char *) invalidated->pdata[i]);
      print_line (line->str);
    }
}

static gboolean
on_flush_idle (gpointer user_data)
{
  Monitor *m = user_data;

  m->flush_id = 0;
  flush_properties (m);
  return G_SOURCE_REMOVE;
}

/* notify::PROPERTY from the proxy, which emits one per property of a
 * PropertiesChanged signal, in the signal's order, all while the
 * main-loop source that delivers the signal runs: they are gathered per
 * source and printed as one line once it is done (or before anything
 * else is printed). The proxy also invalidates everything when the
 * daemon goes (it has no owner then) and loads everything when it comes
 * back (before it tells its new owner, DaemonStarted): those changes are
 * its own, not the daemon's, and not printed. */
static void
on_property_notify (GObject *proxy, GParamSpec *pspec, gpointer user_data)
{
  Monitor *m = user_data;
  g_autofree char *owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (proxy));
  /* the D-Bus name: gdbus-codegen makes it the property's nick */
  const char *name = g_param_spec_get_nick (pspec);
  GSource *source = g_main_current_source ();
  guint source_id = source != NULL ? g_source_get_id (source) : 0;
  g_autoptr(GVariant) value = NULL;

  if (owner == NULL || !m->daemon_running)
    return;
  if (m->changed != NULL && (source_id != m->changed_source || source_id == 0))
    flush_properties (m);
  if (m->changed == NULL)
    {
      m->changed = g_variant_dict_new (NULL);
      m->changed_order = g_ptr_array_new_with_free_func (g_free);
      m->invalidated = g_ptr_array_new_with_free_func (g_free);
      m->changed_source = source_id;
    }
  /* the value the typed getter returns, as the variant the daemon sent;
   * none when the signal invalidated the property */
  value = g_dbus_proxy_get_cached_property (G_DBUS_PROXY (proxy), name);
  if (value != NULL)
    {
      g_variant_dict_insert_value (m->changed, name, value);
      g_ptr_array_add (m->changed_order, g_strdup (name));
    }
  else
    g_ptr_array_add (m->invalidated, g_strdup (name));
  if (m->flush_id == 0)
    m->flush_id = g_idle_add_full (G_PRIORITY_HIGH, on_flush_idle, m, NULL);
}

/* notify::PROPERTY for every property of the interface */
static void
connect_property_notify (Monitor *m)
{
  GDBusInterfaceInfo *info = pp_dbus_manager_interface_info ();
  g_autofree GParamSpec **pspecs = NULL;
  guint n;

  pspecs = g_object_class_list_properties (G_OBJECT_GET_CLASS (m->ctl->manager), &n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *detailed = NULL;

      if (g_dbus_interface_info_lookup_property (info, g_param_spec_get_nick (pspecs[i])) == NULL)
        continue;
      detailed = g_strconcat ("notify::", pspecs[i]->name, NULL);
      g_signal_connect (m->ctl->manager, detailed, G_CALLBACK (on_property_notify), m);
    }
}

static void
on_device_changed (PpDbusManager *manager,
                   const char    *path,
                   GVariant      *changed,
                   gpointer       user_data)
{
  Monitor *m = user_data;

  flush_properties (m);
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
      g_autofree char *line = g_strdup_printf ("DeviceChanged %s%s", path, text);

      print_line (line);
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
  flush_properties (m);
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
  Monitor m = { ctl, NULL, PMCTL_EXIT_OK, TRUE, NULL, NULL, NULL, 0, 0 };
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
  connect_property_notify (&m);
  g_signal_connect (ctl->manager, "notify::g-name-owner", G_CALLBACK (on_name_owner), &m);
  g_signal_connect (ctl->bus, "closed", G_CALLBACK (on_bus_closed), &m);
  sigint_id = g_unix_signal_add (SIGINT, on_quit_signal, &m);
  sigterm_id = g_unix_signal_add (SIGTERM, on_quit_signal, &m);

  /* on stderr, so it does not mix with the events; tells a script that
   * the subscription is in place */
  fprintf (stderr, "pmctl: monitoring %s, press Ctrl+C to stop\n", PP_DBUS_NAME);

  g_main_loop_run (m.loop);
  flush_properties (&m);

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
