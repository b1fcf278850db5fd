/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl: the command-line client of powerpolicyd (SPEC §6).
 *
 * Text output is for people: aligned columns on a terminal, tab-separated
 * values without a header when piped (so that `cut -f` works). --json is
 * for programs: device dictionaries use the D-Bus key names unchanged.
 * Exit status: 0 success, 1 failure (one line on stderr), 2 usage error. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "pp-names.h"
#include "pp-util.h"

#define PMCTL_EXIT_OK       0
#define PMCTL_EXIT_FAILURE  1
#define PMCTL_EXIT_USAGE    2

/* Read-only calls; calls that may wait for a polkit agent get longer. */
#define PMCTL_CALL_TIMEOUT_MS  25000
#define PMCTL_AUTH_TIMEOUT_MS  120000

#define DBUS_NAME_BUS          "org.freedesktop.DBus"
#define DBUS_ERROR_PREFIX      "org.freedesktop.DBus.Error."
#define DBUS_PROPERTIES_IFACE  "org.freedesktop.DBus.Properties"

typedef struct _Command Command;

typedef struct {
  gboolean         json;
  gboolean         tty;          /* stdout is a terminal */
  char            *klass;        /* list --class */
  const Command   *command;
  GPtrArray       *args;         /* positional arguments after the command */
  GDBusConnection *bus;
} Pmctl;

struct _Command {
  const char *name;
  const char *synopsis;
  const char *summary;
  const char *description;
  guint       min_args;
  guint       max_args;
  gboolean    takes_class;
  int       (*run) (Pmctl *ctl);
};

static int run_status  (Pmctl *ctl);
static int run_list    (Pmctl *ctl);
static int run_show    (Pmctl *ctl);
static int run_reload  (Pmctl *ctl);
static int run_set     (Pmctl *ctl);
static int run_reset   (Pmctl *ctl);
static int run_monitor (Pmctl *ctl);
static int run_help    (Pmctl *ctl);

static const Command commands[] = {
  { "status", "status",
    "Show the daemon's state and device counts by runtime status",
    "Print the daemon's properties (version, power source, sleep backend, and\n"
    "whatever else the running daemon offers) and how many devices are in\n"
    "each runtime power state.",
    0, 0, FALSE, run_status },
  { "list", "list [--class CLASS]",
    "List devices: path, class, control, delay, runtime status, held",
    "Print one line per managed device: its /sys/devices path, class,\n"
    "power/control, autosuspend delay in ms, runtime status and whether it\n"
    "is held. --class CLASS lists only the devices of that class.",
    0, 0, TRUE, run_list },
  { "show", "show DEVICE",
    "Show everything known of one device",
    "Print every field the daemon reports for DEVICE.",
    1, 1, FALSE, run_show },
  { "set", "set DEVICE KEY VALUE",
    "Override the policy of one device (Control, AutosuspendDelayMs, Wakeup)",
    "Set a per-device override: KEY is Control (on|auto), AutosuspendDelayMs\n"
    "(milliseconds, -1 or more) or Wakeup (enabled|disabled). It sits above\n"
    "the configuration and the udev properties, applies at once and is kept\n"
    "across restarts. Needs root or the polkit action " PP_POLKIT_ACTION_MANAGE ".",
    3, 3, FALSE, run_set },
  { "reset", "reset DEVICE",
    "Remove every override of one device",
    "Remove the overrides of DEVICE set with 'pmctl set'; the device returns\n"
    "to the policy at once. Needs root or the polkit action " PP_POLKIT_ACTION_MANAGE ".",
    1, 1, FALSE, run_reset },
  { "reload", "reload",
    "Re-read the configuration and re-apply it",
    "Ask the daemon to re-read its configuration files and re-apply the\n"
    "policy. Needs root or the polkit action " PP_POLKIT_ACTION_MANAGE ".\n"
    "If the configuration has problems, the valid settings are still\n"
    "applied, each problem is printed and the exit status is 1.",
    0, 0, FALSE, run_reload },
  { "monitor", "monitor",
    "Print changes as they happen, until interrupted",
    "Print every device change and every change of the daemon's properties\n"
    "as it happens, one line each, until SIGINT (Ctrl+C) or SIGTERM. With\n"
    "--json each line is one JSON object.",
    0, 0, FALSE, run_monitor },
  { "help", "help [COMMAND]",
    "Show this help, or the help of COMMAND",
    "Show the list of commands, or the help of COMMAND.",
    0, 1, FALSE, run_help },
};

/* ---- messages ----------------------------------------------------------- */

static void fail (const char *format, ...) G_GNUC_PRINTF (1, 2);

static void
fail (const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "pmctl: %s\n", message);
}

static int usage_error (const char *format, ...) G_GNUC_PRINTF (1, 2);

static int
usage_error (const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "pmctl: %s\nTry 'pmctl --help'.\n", message);
  return PMCTL_EXIT_USAGE;
}

static const Command *
find_command (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      if (g_str_equal (commands[i].name, name))
        return &commands[i];
    }
  return NULL;
}

static void
print_main_help (void)
{
  printf ("Usage: pmctl [OPTIONS] COMMAND [ARGUMENTS]\n"
          "\n"
          "Query and control powerpolicyd, the system power-policy daemon.\n"
          "\n"
          "Commands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    printf ("  %-22s %s\n", commands[i].synopsis, commands[i].summary);
  printf ("\n"
          "Options:\n"
          "  --json                 Machine-readable output (JSON)\n"
          "  --no-pager             Accepted for compatibility; pmctl never pages\n"
          "  --version              Print the version and exit\n"
          "  -h, --help             Show this help, or with a COMMAND its help\n"
          "\n"
          "DEVICE is a /sys/devices path, a /sys/bus/*/devices/* or /sys/class/*/*\n"
          "path, or a device name such as 1-2 or 0000:00:14.0.\n"
          "\n"
          "See pmctl(1).\n");
}

static void
print_command_help (const Command *command)
{
  printf ("Usage: pmctl [--json] %s\n\n%s\n", command->synopsis, command->description);
}

/* ---- D-Bus ----------------------------------------------------------------- */

static const char *
not_running_message (void)
{
  return "powerpolicyd is not running (" PP_DBUS_NAME " is not on the system bus)";
}

static gboolean
connect_bus (Pmctl *ctl)
{
  g_autoptr(GError) error = NULL;

  ctl->bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &error);
  if (ctl->bus != NULL)
    {
      /* a bus that goes away must not kill us with SIGTERM */
      g_dbus_connection_set_exit_on_close (ctl->bus, FALSE);
      return TRUE;
    }
  /* no socket, or nobody listening on it: there is no bus, so no daemon */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED))
    fail ("%s", not_running_message ());
  else
    fail ("cannot connect to the system bus: %s", error->message);
  return FALSE;
}

/* Report a failed call as one human sentence. @what says what we tried
 * ("reload the configuration"), @device the device argument if any. */
static void
report_call_error (const GError *error, const char *what, const char *device)
{
  g_autofree char *name = g_dbus_error_get_remote_error (error);
  g_autoptr(GError) copy = g_error_copy (error);
  const char *detail;
  const char *short_name;

  g_dbus_error_strip_remote_error (copy);
  detail = copy->message;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    {
      fail ("powerpolicyd did not answer in time (trying to %s)", what);
      return;
    }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED))
    {
      fail ("lost the connection to the system bus (trying to %s)", what);
      return;
    }
  if (name == NULL)
    {
      fail ("cannot %s: %s", what, detail);
      return;
    }

  if (g_str_has_prefix (name, PP_DBUS_ERROR_PREFIX "."))
    {
      short_name = name + strlen (PP_DBUS_ERROR_PREFIX ".");
      if (g_str_equal (short_name, "NoSuchDevice"))
        {
          if (device != NULL)
            fail ("no such device: %s", device);
          else
            fail ("no such device: %s", detail);
        }
      else if (g_str_equal (short_name, "NotAuthorized"))
        fail ("not authorized to %s (%s)", what, detail);
      else if (g_str_equal (short_name, "InvalidArgument"))
        fail ("invalid argument: %s", detail);
      else if (g_str_equal (short_name, "Refused"))
        fail ("powerpolicyd refused to %s: %s", what, detail);
      else if (g_str_equal (short_name, "NotSupported"))
        fail ("cannot %s: not supported (%s)", what, detail);
      else
        fail ("cannot %s: %s", what, detail);
      return;
    }

  if (g_str_has_prefix (name, DBUS_ERROR_PREFIX))
    {
      short_name = name + strlen (DBUS_ERROR_PREFIX);
      if (g_str_equal (short_name, "ServiceUnknown") ||
          g_str_equal (short_name, "NameHasNoOwner"))
        fail ("%s", not_running_message ());
      else if (g_str_has_prefix (short_name, "Spawn."))
        fail ("powerpolicyd is not running and could not be started: %s", detail);
      else if (g_str_equal (short_name, "AccessDenied") ||
               g_str_equal (short_name, "InteractiveAuthorizationRequired"))
        fail ("not authorized to %s (%s)", what, detail);
      else if (g_str_equal (short_name, "UnknownMethod") ||
               g_str_equal (short_name, "UnknownProperty") ||
               g_str_equal (short_name, "UnknownInterface") ||
               g_str_equal (short_name, "UnknownObject"))
        fail ("the running powerpolicyd cannot %s (%s); is it older than pmctl %s?",
              what, detail, PACKAGE_VERSION);
      else if (g_str_equal (short_name, "NoReply") ||
               g_str_equal (short_name, "Timeout") ||
               g_str_equal (short_name, "TimedOut"))
        fail ("powerpolicyd did not answer (trying to %s): %s", what, detail);
      else
        fail ("cannot %s: %s", what, detail);
      return;
    }

  fail ("cannot %s: %s (%s)", what, detail, name);
}

static gboolean
error_is_unknown_method (const GError *error)
{
  g_autofree char *name = g_dbus_error_get_remote_error (error);

  return g_strcmp0 (name, DBUS_ERROR_PREFIX "UnknownMethod") == 0 ||
         g_strcmp0 (name, DBUS_ERROR_PREFIX "UnknownInterface") == 0;
}

static GVariant *
call_manager (Pmctl               *ctl,
              const char          *method,
              GVariant            *parameters,
              const GVariantType  *reply_type,
              GDBusCallFlags       flags,
              int                  timeout_ms,
              GError             **error)
{
  return g_dbus_connection_call_sync (ctl->bus, PP_DBUS_NAME, PP_DBUS_PATH,
                                      PP_DBUS_INTERFACE, method, parameters,
                                      reply_type, flags, timeout_ms, NULL, error);
}

/* Every property the running daemon has, as a{sv}; NULL on failure
 * (reported). */
static GVariant *
get_all_properties (Pmctl *ctl)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;

  reply = g_dbus_connection_call_sync (ctl->bus, PP_DBUS_NAME, PP_DBUS_PATH,
                                       DBUS_PROPERTIES_IFACE, "GetAll",
                                       g_variant_new ("(s)", PP_DBUS_INTERFACE),
                                       G_VARIANT_TYPE ("(a{sv})"),
                                       G_DBUS_CALL_FLAGS_NONE, PMCTL_CALL_TIMEOUT_MS,
                                       NULL, &error);
  if (reply == NULL)
    {
      report_call_error (error, "read the daemon's properties", NULL);
      return NULL;
    }
  return g_variant_get_child_value (reply, 0);
}

/* ListDevices as aa{sv}; NULL on failure (reported). */
static GVariant *
list_devices (Pmctl *ctl)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;

  reply = call_manager (ctl, "ListDevices", NULL, G_VARIANT_TYPE ("(aa{sv})"),
                        G_DBUS_CALL_FLAGS_NONE, PMCTL_CALL_TIMEOUT_MS, &error);
  if (reply == NULL)
    {
      report_call_error (error, "list the devices", NULL);
      return NULL;
    }
  return g_variant_get_child_value (reply, 0);
}

/* ---- formatting ------------------------------------------------------------ */

static const char *
dict_get_string (GVariant *dict, const char *key)
{
  const char *value = NULL;

  if (!g_variant_lookup (dict, key, "&s", &value))
    return "";
  return value;
}

/* The text form of one value: "-" for nothing, yes/no for booleans,
 * lists joined with @separator. */
static char *
format_value (const char *key, GVariant *value, const char *separator)
{
  if (value == NULL)
    return g_strdup ("-");
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_VARIANT))
    {
      g_autoptr(GVariant) inner = g_variant_get_variant (value);
      return format_value (key, inner, separator);
    }
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) ||
      g_variant_is_of_type (value, G_VARIANT_TYPE_OBJECT_PATH))
    {
      const char *s = g_variant_get_string (value, NULL);
      return g_strdup (*s ? s : "-");
    }
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
    return g_strdup (g_variant_get_boolean (value) ? "yes" : "no");
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT32))
    {
      gint32 v = g_variant_get_int32 (value);
      /* -1: the device has no autosuspend delay */
      if (v < 0 && g_strcmp0 (key, "autosuspend_delay_ms") == 0)
        return g_strdup ("-");
      return g_strdup_printf ("%" G_GINT32_FORMAT, v);
    }
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32))
    return g_strdup_printf ("%" G_GUINT32_FORMAT, g_variant_get_uint32 (value));
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT64))
    return g_strdup_printf ("%" G_GINT64_FORMAT, g_variant_get_int64 (value));
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT64))
    return g_strdup_printf ("%" G_GUINT64_FORMAT, g_variant_get_uint64 (value));
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
    {
      g_autofree const char **strv = g_variant_get_strv (value, NULL);
      if (strv[0] == NULL)
        return g_strdup ("-");
      return g_strjoinv (separator, (char **) strv);
    }
  return g_variant_print (value, FALSE);
}

/* Tabs and newlines would break the tab-separated form. */
static char *
sanitize_cell (char *text)
{
  for (char *p = text; *p; p++)
    {
      if (*p == '\t' || *p == '\n' || *p == '\r')
        *p = ' ';
    }
  return text;
}

typedef struct {
  guint      n_columns;
  GPtrArray *rows;     /* of GStrv, n_columns each */
} Table;

static Table *
table_new (guint n_columns)
{
  Table *t = g_new0 (Table, 1);

  t->n_columns = n_columns;
  t->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  return t;
}

static void
table_free (Table *t)
{
  g_ptr_array_unref (t->rows);
  g_free (t);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Table, table_free)

/* Takes ownership of the cells. */
static void
table_add_row (Table *t, ...)
{
  char **row = g_new0 (char *, t->n_columns + 1);
  va_list args;

  va_start (args, t);
  for (guint i = 0; i < t->n_columns; i++)
    row[i] = sanitize_cell (va_arg (args, char *));
  va_end (args);
  g_ptr_array_add (t->rows, row);
}

static void
table_print (Table *t, gboolean tty, const char * const *header)
{
  g_autofree gsize *widths = g_new0 (gsize, t->n_columns);

  if (!tty)
    {
      for (guint r = 0; r < t->rows->len; r++)
        {
          char **row = g_ptr_array_index (t->rows, r);
          g_autofree char *line = g_strjoinv ("\t", row);
          printf ("%s\n", line);
        }
      return;
    }

  for (guint c = 0; header && c < t->n_columns; c++)
    widths[c] = g_utf8_strlen (header[c], -1);
  for (guint r = 0; r < t->rows->len; r++)
    {
      char **row = g_ptr_array_index (t->rows, r);
      for (guint c = 0; c < t->n_columns; c++)
        widths[c] = MAX (widths[c], (gsize) g_utf8_strlen (row[c], -1));
    }

  for (gint r = header ? -1 : 0; r < (gint) t->rows->len; r++)
    {
      const char * const *row = r < 0 ? header
                                      : (const char * const *) g_ptr_array_index (t->rows, r);
      g_autoptr(GString) line = g_string_new (NULL);

      for (guint c = 0; c < t->n_columns; c++)
        {
          g_string_append (line, row[c]);
          if (c + 1 < t->n_columns)
            {
              gsize pad = widths[c] - g_utf8_strlen (row[c], -1) + 2;
              for (gsize i = 0; i < pad; i++)
                g_string_append_c (line, ' ');
            }
        }
      printf ("%s\n", line->str);
    }
}

/* Key/value lines: "Key:  value" aligned on a terminal, "Key<TAB>value"
 * when piped. */
static void
fields_print (Table *t, gboolean tty)
{
  gsize width = 0;

  if (!tty)
    {
      table_print (t, FALSE, NULL);
      return;
    }
  for (guint r = 0; r < t->rows->len; r++)
    width = MAX (width, strlen (((char **) g_ptr_array_index (t->rows, r))[0]) + 1);
  for (guint r = 0; r < t->rows->len; r++)
    {
      char **row = g_ptr_array_index (t->rows, r);
      g_autofree char *label = g_strconcat (row[0], ":", NULL);
      printf ("%-*s %s\n", (int) width, label, row[1]);
    }
}

static void
json_print (JsonNode *node, gboolean pretty)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_pretty (generator, pretty);
  json_generator_set_indent (generator, 2);
  json_generator_set_root (generator, node);
  text = json_generator_to_data (generator, NULL);
  printf ("%s\n", text);
}

/* Flush stdout and turn a write error (full disk, closed pipe) into a
 * failure rather than silently truncated output. */
static int
finish_output (int status)
{
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      fail ("cannot write the output: %s", g_strerror (errno));
      return PMCTL_EXIT_FAILURE;
    }
  return status;
}

/* ---- status ---------------------------------------------------------------- */

static const char * const runtime_statuses[] = {
  "active", "suspended", "suspending", "resuming", "error", "unsupported", NULL,
};

/* Properties in the order they are printed; any other property the
 * daemon has follows, sorted by name. */
static const char * const status_property_order[] = {
  "Version", "Backend", "OnBattery", "UserIdle", "IdleTimeoutSec",
  "LidClosed", "Docked", "VideoQuirks", NULL,
};

/* Count devices by runtime_status into @counts (name -> count, keys owned
 * by the returned array). Returns the status names in print order: the
 * known statuses first (also when none), then any other status sorted. */
static GPtrArray *
count_runtime_statuses (GVariant *devices, GHashTable *counts)
{
  GPtrArray *order = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) extra = g_ptr_array_new ();
  GVariantIter iter;
  GVariant *dict;

  for (guint i = 0; runtime_statuses[i]; i++)
    {
      char *name = g_strdup (runtime_statuses[i]);
      g_ptr_array_add (order, name);
      g_hash_table_insert (counts, name, GUINT_TO_POINTER (0));
    }
  g_variant_iter_init (&iter, devices);
  while ((dict = g_variant_iter_next_value (&iter)) != NULL)
    {
      const char *status = dict_get_string (dict, "runtime_status");
      gpointer key = NULL;
      gpointer old = NULL;

      if (*status == '\0')
        status = "unknown";
      if (!g_hash_table_lookup_extended (counts, status, &key, &old))
        {
          key = g_strdup (status);
          g_ptr_array_add (extra, key);
        }
      g_hash_table_insert (counts, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (old) + 1));
      g_variant_unref (dict);
    }
  g_ptr_array_sort (extra, pp_compare_strings);
  for (guint i = 0; i < extra->len; i++)
    g_ptr_array_add (order, g_ptr_array_index (extra, i));
  return order;
}

/* ListInhibitors a(ssssu), or NULL when this daemon has none (older
 * release) — not an error. @failed is set on a real failure (reported). */
static GVariant *
list_inhibitors (Pmctl *ctl, gboolean *failed)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;

  *failed = FALSE;
  reply = call_manager (ctl, "ListInhibitors", NULL, NULL,
                        G_DBUS_CALL_FLAGS_NONE, PMCTL_CALL_TIMEOUT_MS, &error);
  if (reply == NULL)
    {
      if (error_is_unknown_method (error))
        return NULL;
      report_call_error (error, "list the inhibitors", NULL);
      *failed = TRUE;
      return NULL;
    }
  if (!g_variant_is_of_type (reply, G_VARIANT_TYPE ("(a(ssssu))")))
    return NULL;
  return g_variant_get_child_value (reply, 0);
}

/* "N (what by who[pid] on device: why; ...)" */
static char *
format_inhibitors (GVariant *inhibitors)
{
  g_autoptr(GString) s = g_string_new (NULL);
  GVariantIter iter;
  const char *what, *who, *why, *device;
  guint32 pid;
  guint n = 0;

  g_string_append_printf (s, "%" G_GSIZE_FORMAT, g_variant_n_children (inhibitors));
  g_variant_iter_init (&iter, inhibitors);
  while (g_variant_iter_next (&iter, "(&s&s&s&su)", &what, &who, &why, &device, &pid))
    {
      g_string_append (s, n++ == 0 ? " (" : "; ");
      g_string_append_printf (s, "%s by %s[%u]", what, who, pid);
      if (*device)
        g_string_append_printf (s, " on %s", device);
      if (*why)
        g_string_append_printf (s, ": %s", why);
    }
  if (n > 0)
    g_string_append_c (s, ')');
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static int
run_status (Pmctl *ctl)
{
  g_autoptr(GVariant) props = NULL;
  g_autoptr(GVariant) devices = NULL;
  g_autoptr(GVariant) inhibitors = NULL;
  g_autoptr(GPtrArray) statuses = NULL;
  g_autoptr(GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  gboolean failed = FALSE;
  GVariantIter iter;
  const char *name;

  if (!connect_bus (ctl))
    return PMCTL_EXIT_FAILURE;
  props = get_all_properties (ctl);
  if (props == NULL)
    return PMCTL_EXIT_FAILURE;
  devices = list_devices (ctl);
  if (devices == NULL)
    return PMCTL_EXIT_FAILURE;
  inhibitors = list_inhibitors (ctl, &failed);
  if (failed)
    return PMCTL_EXIT_FAILURE;

  statuses = count_runtime_statuses (devices, counts);

  /* property names: the known ones in order, then the rest sorted */
  for (guint i = 0; status_property_order[i]; i++)
    {
      g_autoptr(GVariant) value = g_variant_lookup_value (props, status_property_order[i], NULL);
      if (value != NULL)
        g_ptr_array_add (names, g_strdup (status_property_order[i]));
    }
  {
    g_autoptr(GPtrArray) rest = g_ptr_array_new_with_free_func (g_free);

    g_variant_iter_init (&iter, props);
    while (g_variant_iter_next (&iter, "{&sv}", &name, NULL))
      {
        if (!g_strv_contains (status_property_order, name))
          g_ptr_array_add (rest, g_strdup (name));
      }
    g_ptr_array_sort (rest, pp_compare_strings);
    g_ptr_array_extend_and_steal (names, g_steal_pointer (&rest));
  }

  if (ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;

      json_builder_begin_object (b);
      for (guint i = 0; i < names->len; i++)
        {
          g_autoptr(GVariant) value = g_variant_lookup_value (props, names->pdata[i], NULL);
          json_builder_set_member_name (b, names->pdata[i]);
          json_builder_add_value (b, json_gvariant_serialize (value));
        }
      if (inhibitors != NULL)
        {
          const char *what, *who, *why, *device;
          guint32 pid;

          json_builder_set_member_name (b, "inhibitors");
          json_builder_begin_array (b);
          g_variant_iter_init (&iter, inhibitors);
          while (g_variant_iter_next (&iter, "(&s&s&s&su)", &what, &who, &why, &device, &pid))
            {
              json_builder_begin_object (b);
              json_builder_set_member_name (b, "what");
              json_builder_add_string_value (b, what);
              json_builder_set_member_name (b, "who");
              json_builder_add_string_value (b, who);
              json_builder_set_member_name (b, "why");
              json_builder_add_string_value (b, why);
              json_builder_set_member_name (b, "device");
              json_builder_add_string_value (b, device);
              json_builder_set_member_name (b, "pid");
              json_builder_add_int_value (b, pid);
              json_builder_end_object (b);
            }
          json_builder_end_array (b);
        }
      json_builder_set_member_name (b, "devices");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "total");
      json_builder_add_int_value (b, (gint64) g_variant_n_children (devices));
      for (guint i = 0; i < statuses->len; i++)
        {
          const char *status = g_ptr_array_index (statuses, i);
          json_builder_set_member_name (b, status);
          json_builder_add_int_value (b, GPOINTER_TO_UINT (g_hash_table_lookup (counts, status)));
        }
      json_builder_end_object (b);
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      json_print (root, ctl->tty);
    }
  else
    {
      g_autoptr(Table) t = table_new (2);
      g_autoptr(GString) summary = g_string_new (NULL);
      const char *separator = ctl->tty ? ", " : ",";

      for (guint i = 0; i < names->len; i++)
        {
          g_autoptr(GVariant) value = g_variant_lookup_value (props, names->pdata[i], NULL);
          table_add_row (t, g_strdup (names->pdata[i]),
                         format_value (names->pdata[i], value, separator));
        }
      if (inhibitors != NULL)
        table_add_row (t, g_strdup ("Inhibitors"), format_inhibitors (inhibitors));

      g_string_append_printf (summary, "%" G_GSIZE_FORMAT, g_variant_n_children (devices));
      for (guint i = 0, shown = 0; i < statuses->len; i++)
        {
          const char *status = g_ptr_array_index (statuses, i);
          guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, status));

          if (n == 0)
            continue;
          g_string_append_printf (summary, "%s%u %s", shown++ ? ", " : " (", n, status);
        }
      if (g_variant_n_children (devices) > 0)
        g_string_append_c (summary, ')');
      table_add_row (t, g_strdup ("Devices"), g_string_free (g_steal_pointer (&summary), FALSE));
      fields_print (t, ctl->tty);
    }
  return finish_output (PMCTL_EXIT_OK);
}

/* ---- list -------------------------------------------------------------------- */

static int
run_list (Pmctl *ctl)
{
  g_autoptr(GVariant) devices = NULL;
  g_autoptr(GPtrArray) selected = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  GVariantIter iter;
  GVariant *dict;

  if (!connect_bus (ctl))
    return PMCTL_EXIT_FAILURE;
  devices = list_devices (ctl);
  if (devices == NULL)
    return PMCTL_EXIT_FAILURE;

  g_variant_iter_init (&iter, devices);
  while ((dict = g_variant_iter_next_value (&iter)) != NULL)
    {
      if (ctl->klass != NULL && !g_str_equal (dict_get_string (dict, "class"), ctl->klass))
        {
          g_variant_unref (dict);
          continue;
        }
      g_ptr_array_add (selected, dict);
    }

  if (ctl->json)
    {
      g_autoptr(JsonArray) array = json_array_sized_new (selected->len);
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < selected->len; i++)
        json_array_add_element (array, json_gvariant_serialize (g_ptr_array_index (selected, i)));
      json_node_set_array (root, array);
      json_print (root, ctl->tty);
    }
  else
    {
      static const char * const header[] = {
        "PATH", "CLASS", "CONTROL", "DELAY", "STATUS", "HELD", NULL,
      };
      g_autoptr(Table) t = table_new (6);

      for (guint i = 0; i < selected->len; i++)
        {
          GVariant *d = g_ptr_array_index (selected, i);
          g_autoptr(GVariant) path = g_variant_lookup_value (d, "path", NULL);
          g_autoptr(GVariant) klass = g_variant_lookup_value (d, "class", NULL);
          g_autoptr(GVariant) control = g_variant_lookup_value (d, "control", NULL);
          g_autoptr(GVariant) delay = g_variant_lookup_value (d, "autosuspend_delay_ms", NULL);
          g_autoptr(GVariant) status = g_variant_lookup_value (d, "runtime_status", NULL);
          g_autoptr(GVariant) held = g_variant_lookup_value (d, "held", NULL);

          table_add_row (t,
                         format_value ("path", path, ","),
                         format_value ("class", klass, ","),
                         format_value ("control", control, ","),
                         format_value ("autosuspend_delay_ms", delay, ","),
                         format_value ("runtime_status", status, ","),
                         format_value ("held", held, ","));
        }
      if (t->rows->len > 0)
        table_print (t, ctl->tty, header);
    }
  return finish_output (PMCTL_EXIT_OK);
}

/* ---- show -------------------------------------------------------------------- */

/* Device fields in the order they are printed; any other field the
 * daemon reports follows, sorted by name. */
static const char * const device_field_order[] = {
  "path", "subsystem", "class", "driver", "parent", "suppliers", "consumers",
  "runtime_status", "control", "autosuspend_delay_ms", "wakeup", "held",
  "blocker", "ignored", NULL,
};

static int
run_show (Pmctl *ctl)
{
  const char *device = g_ptr_array_index (ctl->args, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) dict = NULL;

  if (!connect_bus (ctl))
    return PMCTL_EXIT_FAILURE;
  reply = call_manager (ctl, "GetDevice", g_variant_new ("(s)", device),
                        G_VARIANT_TYPE ("(a{sv})"), G_DBUS_CALL_FLAGS_NONE,
                        PMCTL_CALL_TIMEOUT_MS, &error);
  if (reply == NULL)
    {
      report_call_error (error, "get the device", device);
      return PMCTL_EXIT_FAILURE;
    }
  dict = g_variant_get_child_value (reply, 0);

  if (ctl->json)
    {
      g_autoptr(JsonNode) root = json_gvariant_serialize (dict);
      json_print (root, ctl->tty);
    }
  else
    {
      g_autoptr(Table) t = table_new (2);
      g_autoptr(GPtrArray) rest = g_ptr_array_new_with_free_func (g_free);
      const char *separator = ctl->tty ? ", " : ",";
      GVariantIter iter;
      const char *key;

      for (guint i = 0; device_field_order[i]; i++)
        {
          g_autoptr(GVariant) value = g_variant_lookup_value (dict, device_field_order[i], NULL);
          if (value != NULL)
            table_add_row (t, g_strdup (device_field_order[i]),
                           format_value (device_field_order[i], value, separator));
        }
      g_variant_iter_init (&iter, dict);
      while (g_variant_iter_next (&iter, "{&sv}", &key, NULL))
        {
          if (!g_strv_contains (device_field_order, key))
            g_ptr_array_add (rest, g_strdup (key));
        }
      g_ptr_array_sort (rest, pp_compare_strings);
      for (guint i = 0; i < rest->len; i++)
        {
          g_autoptr(GVariant) value = g_variant_lookup_value (dict, rest->pdata[i], NULL);
          table_add_row (t, g_strdup (rest->pdata[i]),
                         format_value (rest->pdata[i], value, separator));
        }
      fields_print (t, ctl->tty);
    }
  return finish_output (PMCTL_EXIT_OK);
}

/* ---- set / reset ------------------------------------------------------------- */

static int
run_set (Pmctl *ctl)
{
  const char *device = g_ptr_array_index (ctl->args, 0);
  const char *key = g_ptr_array_index (ctl->args, 1);
  const char *value = g_ptr_array_index (ctl->args, 2);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *what = g_strdup_printf ("set %s of %s", key, device);

  if (!connect_bus (ctl))
    return PMCTL_EXIT_FAILURE;
  reply = call_manager (ctl, "SetOverride", g_variant_new ("(sss)", device, key, value),
                        G_VARIANT_TYPE_UNIT, G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                        PMCTL_AUTH_TIMEOUT_MS, &error);
  if (reply == NULL)
    {
      report_call_error (error, what, device);
      return PMCTL_EXIT_FAILURE;
    }
  return PMCTL_EXIT_OK;
}

static int
run_reset (Pmctl *ctl)
{
  const char *device = g_ptr_array_index (ctl->args, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *what = g_strdup_printf ("reset %s", device);

  if (!connect_bus (ctl))
    return PMCTL_EXIT_FAILURE;
  reply = call_manager (ctl, "ClearOverrides", g_variant_new ("(s)", device),
                        G_VARIANT_TYPE_UNIT, G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                        PMCTL_AUTH_TIMEOUT_MS, &error);
  if (reply == NULL)
    {
      report_call_error (error, what, device);
      return PMCTL_EXIT_FAILURE;
    }
  return PMCTL_EXIT_OK;
}

/* ---- reload ------------------------------------------------------------------ */

#define RELOAD_PROBLEMS_PREFIX "configuration reloaded with problems"

/* The daemon puts one problem per line after the first line (see Reload
 * in org.powerpolicy1.Manager.xml). */
static void
print_reload_problems (const char *detail)
{
  g_auto(GStrv) lines = g_strsplit (detail, "\n", -1);
  guint n = g_strv_length (lines);

  if (n < 2)
    {
      fail ("%s", detail);
      return;
    }
  fail ("the configuration was reloaded with %u problem%s (the valid settings are applied):",
        n - 1, n == 2 ? "" : "s");
  for (guint i = 1; i < n; i++)
    fprintf (stderr, "  %s\n", lines[i]);
}

static int
run_reload (Pmctl *ctl)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *name = NULL;

  if (!connect_bus (ctl))
    return PMCTL_EXIT_FAILURE;
  reply = call_manager (ctl, "Reload", NULL, G_VARIANT_TYPE_UNIT,
                        G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                        PMCTL_AUTH_TIMEOUT_MS, &error);
  if (reply != NULL)
    return PMCTL_EXIT_OK;

  name = g_dbus_error_get_remote_error (error);
  if (g_strcmp0 (name, PP_DBUS_ERROR_PREFIX ".InvalidArgument") == 0)
    {
      g_autoptr(GError) copy = g_error_copy (error);

      g_dbus_error_strip_remote_error (copy);
      if (g_str_has_prefix (copy->message, RELOAD_PROBLEMS_PREFIX))
        {
          print_reload_problems (copy->message);
          return PMCTL_EXIT_FAILURE;
        }
    }
  report_call_error (error, "reload the configuration", NULL);
  return PMCTL_EXIT_FAILURE;
}

/* ---- monitor ----------------------------------------------------------------- */

typedef struct {
  Pmctl      *ctl;
  GMainLoop  *loop;
  int         status;
  gboolean    daemon_running;
} Monitor;

static void
monitor_emit_json (JsonBuilder *b)
{
  g_autoptr(JsonNode) root = json_builder_get_root (b);

  json_print (root, FALSE);
  fflush (stdout);
}

/* "key=value key=value", keys in the signal's order */
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
      /* no key: a delay of -1 stays -1 here, it is a value written */
      g_autofree char *text = format_value (NULL, value, ",");
      g_string_append_printf (s, " %s=%s", key, text);
      g_variant_unref (value);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static void
on_device_changed (GDBusConnection *connection,
                   const char      *sender,
                   const char      *object_path,
                   const char      *interface_name,
                   const char      *signal_name,
                   GVariant        *parameters,
                   gpointer         user_data)
{
  Monitor *m = user_data;
  g_autoptr(GVariant) changed = NULL;
  const char *path;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sa{sv})")))
    return;
  g_variant_get (parameters, "(&s@a{sv})", &path, &changed);
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
      monitor_emit_json (b);
    }
  else
    {
      g_autofree char *text = format_changes (changed);
      printf ("DeviceChanged %s%s\n", path, text);
      fflush (stdout);
    }
}

static void
on_properties_changed (GDBusConnection *connection,
                       const char      *sender,
                       const char      *object_path,
                       const char      *interface_name,
                       const char      *signal_name,
                       GVariant        *parameters,
                       gpointer         user_data)
{
  Monitor *m = user_data;
  g_autoptr(GVariant) changed = NULL;
  g_autofree const char **invalidated = NULL;
  const char *iface;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sa{sv}as)")))
    return;
  g_variant_get (parameters, "(&s@a{sv}^a&s)", &iface, &changed, &invalidated);
  if (!g_str_equal (iface, PP_DBUS_INTERFACE))
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
      monitor_emit_json (b);
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
monitor_daemon_event (Monitor *m, gboolean running)
{
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
      monitor_emit_json (b);
    }
  else
    {
      printf ("%s\n", running ? "DaemonStarted" : "DaemonStopped");
      fflush (stdout);
    }
}

static void
on_name_appeared (GDBusConnection *connection, const char *name, const char *owner, gpointer user_data)
{
  monitor_daemon_event (user_data, TRUE);
}

static void
on_name_vanished (GDBusConnection *connection, const char *name, gpointer user_data)
{
  Monitor *m = user_data;

  /* the connection itself is gone: on_bus_closed reports it */
  if (connection == NULL || g_dbus_connection_is_closed (connection))
    return;
  monitor_daemon_event (m, FALSE);
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

  fail ("lost the connection to the system bus%s%s",
        error ? ": " : "", error ? error->message : "");
  m->status = PMCTL_EXIT_FAILURE;
  g_main_loop_quit (m->loop);
}

static int
run_monitor (Pmctl *ctl)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) owner = NULL;
  Monitor m = { ctl, NULL, PMCTL_EXIT_OK, TRUE };
  guint device_id, props_id, watch_id, sigint_id, sigterm_id;

  if (!connect_bus (ctl))
    return PMCTL_EXIT_FAILURE;

  /* subscribe first, then ask for the owner: the bus handles our
   * messages in order, so once the answer arrives nothing is missed */
  device_id = g_dbus_connection_signal_subscribe (ctl->bus, PP_DBUS_NAME, PP_DBUS_INTERFACE,
                                                  "DeviceChanged", PP_DBUS_PATH, NULL,
                                                  G_DBUS_SIGNAL_FLAGS_NONE,
                                                  on_device_changed, &m, NULL);
  props_id = g_dbus_connection_signal_subscribe (ctl->bus, PP_DBUS_NAME, DBUS_PROPERTIES_IFACE,
                                                 "PropertiesChanged", PP_DBUS_PATH,
                                                 PP_DBUS_INTERFACE, G_DBUS_SIGNAL_FLAGS_NONE,
                                                 on_properties_changed, &m, NULL);
  owner = g_dbus_connection_call_sync (ctl->bus, DBUS_NAME_BUS, "/org/freedesktop/DBus",
                                       DBUS_NAME_BUS, "GetNameOwner",
                                       g_variant_new ("(s)", PP_DBUS_NAME),
                                       G_VARIANT_TYPE ("(s)"), G_DBUS_CALL_FLAGS_NONE,
                                       PMCTL_CALL_TIMEOUT_MS, NULL, &error);
  if (owner == NULL)
    {
      g_dbus_connection_signal_unsubscribe (ctl->bus, device_id);
      g_dbus_connection_signal_unsubscribe (ctl->bus, props_id);
      report_call_error (error, "monitor the daemon", NULL);
      return PMCTL_EXIT_FAILURE;
    }

  m.loop = g_main_loop_new (NULL, FALSE);
  watch_id = g_bus_watch_name_on_connection (ctl->bus, PP_DBUS_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                             on_name_appeared, on_name_vanished, &m, NULL);
  g_signal_connect (ctl->bus, "closed", G_CALLBACK (on_bus_closed), &m);
  sigint_id = g_unix_signal_add (SIGINT, on_quit_signal, &m);
  sigterm_id = g_unix_signal_add (SIGTERM, on_quit_signal, &m);

  /* on stderr, so it does not mix with the events; tells a script that
   * the subscription is in place */
  fprintf (stderr, "pmctl: monitoring %s, press Ctrl+C to stop\n", PP_DBUS_NAME);

  g_main_loop_run (m.loop);

  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  g_bus_unwatch_name (watch_id);
  g_signal_handlers_disconnect_by_data (ctl->bus, &m);
  g_dbus_connection_signal_unsubscribe (ctl->bus, device_id);
  g_dbus_connection_signal_unsubscribe (ctl->bus, props_id);
  g_main_loop_unref (m.loop);
  return finish_output (m.status);
}

/* ---- help -------------------------------------------------------------------- */

static int
run_help (Pmctl *ctl)
{
  const Command *command;

  if (ctl->args->len == 0)
    {
      print_main_help ();
      return finish_output (PMCTL_EXIT_OK);
    }
  command = find_command (g_ptr_array_index (ctl->args, 0));
  if (command == NULL)
    return usage_error ("unknown command '%s'", (char *) g_ptr_array_index (ctl->args, 0));
  print_command_help (command);
  return finish_output (PMCTL_EXIT_OK);
}

/* ---- main -------------------------------------------------------------------- */

static void
pmctl_clear (Pmctl *ctl)
{
  g_clear_pointer (&ctl->klass, g_free);
  g_clear_pointer (&ctl->args, g_ptr_array_unref);
  g_clear_object (&ctl->bus);
}

int
main (int argc, char **argv)
{
  Pmctl ctl = { 0 };
  gboolean help = FALSE;
  gboolean version = FALSE;
  gboolean options_ended = FALSE;
  const char *command_name = NULL;
  int status;

  setlocale (LC_ALL, "");
  ctl.args = g_ptr_array_new_with_free_func (g_free);
  ctl.tty = isatty (STDOUT_FILENO);

  /* Options may stand before or after the command, as with systemctl. */
  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];

      if (options_ended || arg[0] != '-' || g_str_equal (arg, "-"))
        {
          if (command_name == NULL)
            command_name = arg;
          else
            g_ptr_array_add (ctl.args, g_strdup (arg));
        }
      else if (g_str_equal (arg, "--"))
        options_ended = TRUE;
      else if (g_str_equal (arg, "--json"))
        ctl.json = TRUE;
      else if (g_str_equal (arg, "--no-pager"))
        ;   /* pmctl never pages: accepted like systemctl's */
      else if (g_str_equal (arg, "--version"))
        version = TRUE;
      else if (g_str_equal (arg, "--help") || g_str_equal (arg, "-h"))
        help = TRUE;
      else if (g_str_equal (arg, "--class") || g_str_has_prefix (arg, "--class="))
        {
          const char *value;

          if (arg[strlen ("--class")] == '=')
            value = arg + strlen ("--class=");
          else if (i + 1 < argc)
            value = argv[++i];
          else
            {
              pmctl_clear (&ctl);
              return usage_error ("option '--class' needs a value");
            }
          g_free (ctl.klass);
          ctl.klass = g_strdup (value);
        }
      else
        {
          status = usage_error ("unknown option '%s'", arg);
          pmctl_clear (&ctl);
          return status;
        }
    }

  if (version)
    {
      printf ("pmctl %s\n", PACKAGE_VERSION);
      pmctl_clear (&ctl);
      return finish_output (PMCTL_EXIT_OK);
    }

  if (command_name == NULL)
    {
      pmctl_clear (&ctl);
      if (help)
        {
          print_main_help ();
          return finish_output (PMCTL_EXIT_OK);
        }
      return usage_error ("no command given");
    }

  ctl.command = find_command (command_name);
  if (ctl.command == NULL)
    {
      status = usage_error ("unknown command '%s'", command_name);
      pmctl_clear (&ctl);
      return status;
    }

  if (help)
    {
      if (ctl.command->run == run_help)
        status = run_help (&ctl);
      else
        {
          print_command_help (ctl.command);
          status = finish_output (PMCTL_EXIT_OK);
        }
      pmctl_clear (&ctl);
      return status;
    }

  if (ctl.klass != NULL && !ctl.command->takes_class)
    status = usage_error ("'%s' does not take --class", ctl.command->name);
  else if (ctl.args->len < ctl.command->min_args)
    status = usage_error ("'%s' needs %s", ctl.command->name,
                          ctl.command->min_args == 1 ? "a DEVICE argument" : "more arguments");
  else if (ctl.args->len > ctl.command->max_args)
    status = usage_error ("unexpected argument '%s' for '%s'",
                          (char *) g_ptr_array_index (ctl.args, ctl.command->max_args),
                          ctl.command->name);
  else
    status = ctl.command->run (&ctl);

  pmctl_clear (&ctl);
  return status;
}
