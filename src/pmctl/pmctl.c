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
#include <fcntl.h>
#include <signal.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <glib-unix.h>
#include <gio/gio.h>
#include <gio/gunixfdlist.h>
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
  gboolean         color;        /* tty, and colours not turned off (NO_COLOR, TERM=dumb) */
  char            *klass;        /* list --class */
  gboolean         subtree;      /* power-down/power-up --subtree */
  gboolean         off;          /* power-down --off */
  char            *who;          /* hold/inhibit --who */
  char            *why;          /* hold/inhibit --why */
  char            *what;         /* inhibit --what */
  guint            options_seen; /* OPTION_* given on the command line */
  const Command   *command;
  GPtrArray       *args;         /* positional arguments after the command */
  GPtrArray       *exec_argv;    /* hold/inhibit: the COMMAND to run, or NULL */
  GDBusConnection *bus;
} Pmctl;

/* Command options; each command lists those it takes. */
enum {
  OPTION_CLASS   = 1 << 0,
  OPTION_SUBTREE = 1 << 1,
  OPTION_OFF     = 1 << 2,
  OPTION_WHO     = 1 << 3,
  OPTION_WHY     = 1 << 4,
  OPTION_WHAT    = 1 << 5,
};

static const struct {
  guint       flag;
  const char *name;
} option_names[] = {
  { OPTION_CLASS, "--class" },
  { OPTION_SUBTREE, "--subtree" },
  { OPTION_OFF, "--off" },
  { OPTION_WHO, "--who" },
  { OPTION_WHY, "--why" },
  { OPTION_WHAT, "--what" },
};

struct _Command {
  const char *name;
  const char *synopsis;
  const char *summary;
  const char *description;
  guint       min_args;
  guint       max_args;
  guint       options;       /* OPTION_* it accepts */
  gboolean    runs_command;  /* COMMAND... follows the arguments */
  int       (*run) (Pmctl *ctl);
};

static int run_status      (Pmctl *ctl);
static int run_list        (Pmctl *ctl);
static int run_tree        (Pmctl *ctl);
static int run_show        (Pmctl *ctl);
static int run_power_down  (Pmctl *ctl);
static int run_power_up    (Pmctl *ctl);
static int run_reload      (Pmctl *ctl);
static int run_set         (Pmctl *ctl);
static int run_reset       (Pmctl *ctl);
static int run_hold        (Pmctl *ctl);
static int run_inhibit     (Pmctl *ctl);
static int run_inhibitors  (Pmctl *ctl);
static int run_suspend     (Pmctl *ctl);
static int run_hibernate   (Pmctl *ctl);
static int run_quirks      (Pmctl *ctl);
static int run_monitor     (Pmctl *ctl);
static int run_help        (Pmctl *ctl);

static const Command commands[] = {
  { "status", "status",
    "Show the daemon's state and device counts by runtime status",
    "Print the daemon's properties (version, sleep backend, power source,\n"
    "user idle and the idle timeout, lid, dock, video quirks, and whatever\n"
    "else the running daemon offers), the holds and inhibitors in force, and\n"
    "how many devices are in each runtime power state.",
    0, 0, 0, FALSE, run_status },
  { "list", "list [--class CLASS]",
    "List devices: path, class, control, delay, runtime status, held",
    "Print one line per managed device: its /sys/devices path, class,\n"
    "power/control, autosuspend delay in ms, runtime status and whether it\n"
    "is held. --class CLASS lists only the devices of that class.",
    0, 0, OPTION_CLASS, FALSE, run_list },
  { "tree", "tree [DEVICE]",
    "Show the power-dependency tree, with device links and blockers",
    "Print the managed devices as a tree by sysfs parent and child, one line\n"
    "per device: class, power/control, runtime status, held, and what keeps\n"
    "it awake ([blocked by PATH]). Device links are shown under each device:\n"
    "'-> consumer PATH' for a device that depends on it, '<- supplier PATH'\n"
    "for one it depends on (with Unicode arrows in a UTF-8 locale). With\n"
    "DEVICE, only that device and what lies below it.",
    0, 1, 0, FALSE, run_tree },
  { "show", "show DEVICE",
    "Show everything known of one device",
    "Print every field the daemon reports for DEVICE.",
    1, 1, 0, FALSE, run_show },
  { "power-down", "power-down DEVICE [--subtree] [--off]",
    "Let a device suspend now, or switch it off",
    "Allow runtime suspend of DEVICE now (power/control=auto, no autosuspend\n"
    "delay); the kernel suspends it when it is idle. --subtree: every\n"
    "descendant and consumer first, and a device only once nothing that\n"
    "depends on it stays up. --off: switch the device off where the hardware\n"
    "allows (USB port, PCI slot) until 'pmctl power-up'. Prints one line per\n"
    "device: path, result (suspended, off, skipped, failed), detail. Exit\n"
    "status 1 if any device failed. Needs root or the polkit action\n"
    PP_POLKIT_ACTION_MANAGE ".",
    1, 1, OPTION_SUBTREE | OPTION_OFF, FALSE, run_power_down },
  { "power-up", "power-up DEVICE [--subtree]",
    "Power a device up, suppliers and ancestors first",
    "Set power/control=on for DEVICE after its suppliers and ancestors, and\n"
    "switch back on a port or slot that 'pmctl power-down --off' switched\n"
    "off. --subtree: then every descendant and consumer. Prints one line per\n"
    "device: path, result (on, skipped, failed), detail. Exit status 1 if\n"
    "any device failed. Needs root or the polkit action " PP_POLKIT_ACTION_MANAGE ".",
    1, 1, OPTION_SUBTREE, FALSE, run_power_up },
  { "set", "set DEVICE KEY VALUE",
    "Override the policy of one device (Control, AutosuspendDelayMs, Wakeup)",
    "Set a per-device override: KEY is Control (on|auto), AutosuspendDelayMs\n"
    "(milliseconds, -1 or more) or Wakeup (enabled|disabled). It sits above\n"
    "the configuration and the udev properties, applies at once and is kept\n"
    "across restarts. Needs root or the polkit action " PP_POLKIT_ACTION_MANAGE ".",
    3, 3, 0, FALSE, run_set },
  { "reset", "reset DEVICE",
    "Remove every override of one device",
    "Remove the overrides of DEVICE set with 'pmctl set'; the device returns\n"
    "to the policy at once. Needs root or the polkit action " PP_POLKIT_ACTION_MANAGE ".",
    1, 1, 0, FALSE, run_reset },
  { "hold", "hold DEVICE [--who WHO] [--why WHY] -- COMMAND...",
    "Keep a device powered while COMMAND runs",
    "Keep DEVICE, its ancestors and its suppliers at power/control=on while\n"
    "COMMAND runs, then let the policy return. The exit status is COMMAND's\n"
    "(128+N if a signal N killed it; 127 if it cannot be found, 126 if it\n"
    "cannot be run). WHO defaults to \"pmctl\", WHY to the command line.\n"
    "Needs root or the polkit action " PP_POLKIT_ACTION_INHIBIT " (any local user\n"
    "when polkit is absent).",
    1, 1, OPTION_WHO | OPTION_WHY, TRUE, run_hold },
  { "inhibit", "inhibit [--what WHAT] [--who WHO] [--why WHY] -- COMMAND...",
    "Inhibit the idle layers or lid handling while COMMAND runs",
    "Take an inhibitor while COMMAND runs. WHAT is a colon-separated list of\n"
    "idle (do not apply the :idle layers of the policy) and lid (ignore lid\n"
    "close); the default is idle. The exit status is COMMAND's, as for\n"
    "'pmctl hold'. WHO defaults to \"pmctl\", WHY to the command line. Needs\n"
    "root or the polkit action " PP_POLKIT_ACTION_INHIBIT " (any local user when\n"
    "polkit is absent).",
    0, 0, OPTION_WHAT | OPTION_WHO | OPTION_WHY, TRUE, run_inhibit },
  { "inhibitors", "inhibitors",
    "List the holds and inhibitors in force",
    "Print one line per hold or inhibitor: what (hold, idle, lid, ...), who,\n"
    "why, the device held (or -), and the holder's process id.",
    0, 0, 0, FALSE, run_inhibitors },
  { "suspend", "suspend",
    "Suspend the system (to RAM)",
    "Ask the daemon to suspend the system, through systemd-logind when it is\n"
    "running, else by the kernel. Needs root or the polkit action\n"
    PP_POLKIT_ACTION_SLEEP " (polkit may ask for a password when stdin is a\n"
    "terminal).",
    0, 0, 0, FALSE, run_suspend },
  { "hibernate", "hibernate",
    "Hibernate the system (suspend to disk)",
    "Ask the daemon to hibernate the system, through systemd-logind when it\n"
    "is running, else by the kernel. Needs root or the polkit action\n"
    PP_POLKIT_ACTION_SLEEP " (polkit may ask for a password when stdin is a\n"
    "terminal).",
    0, 0, 0, FALSE, run_hibernate },
  { "reload", "reload",
    "Re-read the configuration and re-apply it",
    "Ask the daemon to re-read its configuration files and re-apply the\n"
    "policy. Needs root or the polkit action " PP_POLKIT_ACTION_MANAGE ".\n"
    "If the configuration has problems, the valid settings are still\n"
    "applied, each problem is printed and the exit status is 1.",
    0, 0, 0, FALSE, run_reload },
  { "quirks", "quirks",
    "Show the video quirks in force for this machine and why",
    "Print the video quirks the daemon uses around system sleep, one per\n"
    "line, with where each comes from (quirk database file and entry, a\n"
    "driver rule, the default set, the configuration, or last-known-working)\n"
    "when the daemon can tell.",
    0, 0, 0, FALSE, run_quirks },
  { "monitor", "monitor",
    "Print changes as they happen, until interrupted",
    "Print every device change and every change of the daemon's properties\n"
    "as it happens, one line each, until SIGINT (Ctrl+C) or SIGTERM. With\n"
    "--json each line is one JSON object.",
    0, 0, 0, FALSE, run_monitor },
  { "help", "help [COMMAND]",
    "Show this help, or the help of COMMAND",
    "Show the list of commands, or the help of COMMAND.",
    0, 1, 0, FALSE, run_help },
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
  fail ("%s", message);
  fputs ("Try 'pmctl --help'.\n", stderr);
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
    {
      if (strlen (commands[i].synopsis) > 22)
        printf ("  %s\n  %-22s %s\n", commands[i].synopsis, "", commands[i].summary);
      else
        printf ("  %-22s %s\n", commands[i].synopsis, commands[i].summary);
    }
  printf ("\n"
          "Options:\n"
          "  --json                 Machine-readable output (JSON)\n"
          "  --no-pager             Accepted for compatibility; pmctl never pages\n"
          "  --version              Print the version and exit\n"
          "  -h, --help             Show this help, or with a COMMAND its help\n"
          "  --class CLASS          list: only the devices of CLASS\n"
          "  --subtree              power-down, power-up: also every device below\n"
          "  --off                  power-down: switch off (USB port, PCI slot)\n"
          "  --what WHAT            inhibit: idle, lid or idle:lid (default idle)\n"
          "  --who WHO, --why WHY   hold, inhibit: who holds it and why\n"
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

/* Tabs and newlines would break the tab-separated form; other control
 * characters (escape sequences in a "why" another user chose) must not
 * reach the terminal. */
static char *
sanitize_cell (char *text)
{
  for (char *p = text; *p; p++)
    {
      if ((guchar) *p < 0x20 || *p == 0x7f)
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

/* Columns a cell takes on a terminal: characters, not counting the
 * escape sequences that colour it. */
static gsize
display_width (const char *text)
{
  gsize width = 0;

  for (const char *p = text; *p; )
    {
      if (*p == '\033' && p[1] == '[')
        {
          p += 2;
          while (*p && !g_ascii_isalpha (*p))
            p++;
          if (*p)
            p++;
          continue;
        }
      width++;
      p = g_utf8_next_char (p);
    }
  return width;
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
    widths[c] = display_width (header[c]);
  for (guint r = 0; r < t->rows->len; r++)
    {
      char **row = g_ptr_array_index (t->rows, r);
      for (guint c = 0; c < t->n_columns; c++)
        widths[c] = MAX (widths[c], display_width (row[c]));
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
              gsize pad = widths[c] - display_width (row[c]) + 2;
              for (gsize i = 0; i < pad; i++)
                g_string_append_c (line, ' ');
            }
        }
      /* empty cells at the end of a row leave no trailing blanks */
      while (line->len > 0 && line->str[line->len - 1] == ' ')
        g_string_truncate (line, line->len - 1);
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

/* ListInhibitors' a(ssssu) as a JSON array of objects (status, inhibitors) */
static void
add_inhibitors_json (JsonBuilder *b, GVariant *inhibitors)
{
  const char *what, *who, *why, *device;
  GVariantIter iter;
  guint32 pid;

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
          json_builder_set_member_name (b, "inhibitors");
          add_inhibitors_json (b, inhibitors);
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

/* ---- colours ------------------------------------------------------------- */

#define SGR_BOLD_RED  "1;31"
#define SGR_YELLOW    "33"

/* Colour a cell of the last row from byte @from on with an SGR sequence
 * (after sanitize_cell, which would take the escape apart). */
static void
table_colour_cell (Table *t, gboolean color, guint column, gsize from, const char *sgr)
{
  char **row;
  char *coloured;

  if (!color || t->rows->len == 0)
    return;
  row = g_ptr_array_index (t->rows, t->rows->len - 1);
  if (strlen (row[column]) <= from)
    return;
  coloured = g_strdup_printf ("%.*s\033[%sm%s\033[0m", (int) from, row[column], sgr,
                              row[column] + from);
  g_free (row[column]);
  row[column] = coloured;
}

/* ---- tree -------------------------------------------------------------------- */

typedef struct _TreeNode TreeNode;

struct _TreeNode {
  const char *path;       /* in dict */
  GVariant   *dict;
  TreeNode   *parent;     /* NULL: a root */
  GPtrArray  *children;   /* TreeNode*, not owned, sorted by path */
  gboolean    is_blocker; /* some device names it as its blocker */
  gboolean    visited;
};

static void
tree_node_free (TreeNode *node)
{
  g_variant_unref (node->dict);
  g_ptr_array_unref (node->children);
  g_free (node);
}

typedef struct {
  GHashTable *nodes;      /* path -> TreeNode (owned) */
  GPtrArray  *order;      /* TreeNode*, in ListDevices order */
  const char *branch;     /* tree drawing: "├─ " or "|- " ... */
  const char *last;
  const char *through;
  const char *space;
  const char *link_through;  /* beside a device link line, children follow */
  const char *to_consumer;
  const char *from_supplier;
} Tree;

static int
compare_nodes (gconstpointer a, gconstpointer b)
{
  const TreeNode *x = *(TreeNode * const *) a;
  const TreeNode *y = *(TreeNode * const *) b;

  return g_strcmp0 (x->path, y->path);
}

/* The managed device nearest above @path: @path itself if the daemon
 * lists it, else each directory above it in turn (the daemon does not
 * manage every device, e.g. an ata port between a SATA controller and its
 * SCSI host). */
static TreeNode *
tree_nearest_listed (Tree *tree, const char *path)
{
  g_autofree char *p = g_strdup (path);

  while (p[0] == '/' && p[1] != '\0')
    {
      TreeNode *node = g_hash_table_lookup (tree->nodes, p);
      char *slash;

      if (node != NULL)
        return node;
      slash = strrchr (p, '/');
      if (slash == p)
        break;
      *slash = '\0';
    }
  return NULL;
}

static void
tree_init (Tree *tree, GVariant *devices)
{
  gboolean utf8 = g_get_charset (NULL);
  GVariantIter iter;
  GVariant *dict;

  tree->nodes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                       (GDestroyNotify) tree_node_free);
  tree->order = g_ptr_array_new ();
  tree->branch = utf8 ? "├─ " : "|- ";
  tree->last = utf8 ? "└─ " : "`- ";
  tree->through = utf8 ? "│  " : "|  ";
  tree->space = "   ";
  tree->link_through = utf8 ? "│ " : "| ";
  tree->to_consumer = utf8 ? "→ consumer " : "-> consumer ";
  tree->from_supplier = utf8 ? "← supplier " : "<- supplier ";

  g_variant_iter_init (&iter, devices);
  while ((dict = g_variant_iter_next_value (&iter)) != NULL)
    {
      const char *path = dict_get_string (dict, "path");
      TreeNode *node;

      /* a nameless or repeated entry cannot be placed: the first wins */
      if (*path == '\0' || g_hash_table_contains (tree->nodes, path))
        {
          g_variant_unref (dict);
          continue;
        }
      node = g_new0 (TreeNode, 1);
      node->dict = dict;
      node->path = path;
      node->children = g_ptr_array_new ();
      g_hash_table_insert (tree->nodes, (gpointer) path, node);
      g_ptr_array_add (tree->order, node);
    }

  for (guint i = 0; i < tree->order->len; i++)
    {
      TreeNode *node = g_ptr_array_index (tree->order, i);
      const char *parent = dict_get_string (node->dict, "parent");
      const char *blocker = dict_get_string (node->dict, "blocker");
      TreeNode *up = NULL;

      /* a parent the daemon does not list: the nearest listed device
       * above it, else a root */
      if (*parent != '\0')
        up = tree_nearest_listed (tree, parent);
      if (up != node)
        node->parent = up;
      if (node->parent != NULL)
        g_ptr_array_add (node->parent->children, node);
      if (*blocker != '\0')
        {
          TreeNode *b = g_hash_table_lookup (tree->nodes, blocker);
          if (b != NULL)
            b->is_blocker = TRUE;
        }
    }
  for (guint i = 0; i < tree->order->len; i++)
    {
      TreeNode *node = g_ptr_array_index (tree->order, i);
      g_ptr_array_sort (node->children, compare_nodes);
    }
}

static void
tree_clear (Tree *tree)
{
  g_clear_pointer (&tree->order, g_ptr_array_unref);
  g_clear_pointer (&tree->nodes, g_hash_table_unref);
}

/* A child is named by its path below its parent's; a root by its path. */
static const char *
tree_node_name (TreeNode *node, gboolean as_root)
{
  gsize len;

  if (as_root || node->parent == NULL)
    return node->path;
  len = strlen (node->parent->path);
  if (strncmp (node->path, node->parent->path, len) == 0 && node->path[len] == '/')
    return node->path + len + 1;
  return node->path;
}

static void
tree_add_rows (Pmctl *ctl, Tree *tree, Table *t, TreeNode *node,
               const char *prefix, gboolean is_root, gboolean is_last)
{
  g_autofree char *branch = NULL;
  g_autofree char *child_prefix = NULL;
  g_autofree const char **consumers = NULL;
  g_autofree const char **suppliers = NULL;
  g_autoptr(GVariant) control = g_variant_lookup_value (node->dict, "control", NULL);
  g_autoptr(GVariant) status = g_variant_lookup_value (node->dict, "runtime_status", NULL);
  g_autoptr(GVariant) klass = g_variant_lookup_value (node->dict, "class", NULL);
  g_autoptr(GVariant) held = g_variant_lookup_value (node->dict, "held", NULL);
  const char *blocker = dict_get_string (node->dict, "blocker");
  const char *link_bar;
  guint n_children = 0;

  node->visited = TRUE;

  branch = g_strconcat (prefix, is_root ? "" : (is_last ? tree->last : tree->branch), NULL);
  table_add_row (t,
                 g_strconcat (branch, tree_node_name (node, is_root), NULL),
                 format_value ("class", klass, ","),
                 format_value ("control", control, ","),
                 format_value ("runtime_status", status, ","),
                 format_value ("held", held, ","),
                 *blocker ? g_strdup_printf ("[blocked by %s]", blocker) : g_strdup (""));
  if (node->is_blocker)
    table_colour_cell (t, ctl->color, 0, strlen (branch), SGR_BOLD_RED);
  table_colour_cell (t, ctl->color, 5, 0, SGR_YELLOW);

  child_prefix = g_strconcat (prefix, is_root ? "" : (is_last ? tree->space : tree->through), NULL);
  for (guint i = 0; i < node->children->len; i++)
    {
      TreeNode *child = g_ptr_array_index (node->children, i);
      if (!child->visited)
        n_children++;
    }

  /* device links under the device, before its children; they are edges
   * only, never walked, so a cycle of links cannot loop */
  link_bar = n_children > 0 ? tree->link_through : "  ";
  if (!g_variant_lookup (node->dict, "consumers", "^a&s", &consumers))
    consumers = NULL;
  if (!g_variant_lookup (node->dict, "suppliers", "^a&s", &suppliers))
    suppliers = NULL;
  for (guint i = 0; suppliers && suppliers[i]; i++)
    table_add_row (t, g_strconcat (child_prefix, link_bar, tree->from_supplier, suppliers[i], NULL),
                   g_strdup (""), g_strdup (""), g_strdup (""), g_strdup (""), g_strdup (""));
  for (guint i = 0; consumers && consumers[i]; i++)
    table_add_row (t, g_strconcat (child_prefix, link_bar, tree->to_consumer, consumers[i], NULL),
                   g_strdup (""), g_strdup (""), g_strdup (""), g_strdup (""), g_strdup (""));

  for (guint i = 0, shown = 0; i < node->children->len; i++)
    {
      TreeNode *child = g_ptr_array_index (node->children, i);

      /* a parent cycle (a broken daemon) must not loop */
      if (child->visited)
        continue;
      shown++;
      tree_add_rows (ctl, tree, t, child, child_prefix, FALSE, shown == n_children);
    }
}

static void
json_add_strv (JsonBuilder *b, const char *name, GVariant *dict, const char *key)
{
  g_autofree const char **strv = NULL;

  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  if (g_variant_lookup (dict, key, "^a&s", &strv))
    {
      for (guint i = 0; strv[i]; i++)
        json_builder_add_string_value (b, strv[i]);
    }
  json_builder_end_array (b);
}

static void
tree_add_json (Tree *tree, JsonBuilder *b, TreeNode *node)
{
  gboolean held = FALSE;

  node->visited = TRUE;
  if (!g_variant_lookup (node->dict, "held", "b", &held))
    held = FALSE;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "path");
  json_builder_add_string_value (b, node->path);
  json_builder_set_member_name (b, "class");
  json_builder_add_string_value (b, dict_get_string (node->dict, "class"));
  json_builder_set_member_name (b, "control");
  json_builder_add_string_value (b, dict_get_string (node->dict, "control"));
  json_builder_set_member_name (b, "runtime_status");
  json_builder_add_string_value (b, dict_get_string (node->dict, "runtime_status"));
  json_builder_set_member_name (b, "held");
  json_builder_add_boolean_value (b, held);
  json_builder_set_member_name (b, "blocker");
  json_builder_add_string_value (b, dict_get_string (node->dict, "blocker"));
  json_add_strv (b, "suppliers", node->dict, "suppliers");
  json_add_strv (b, "consumers", node->dict, "consumers");
  json_builder_set_member_name (b, "children");
  json_builder_begin_array (b);
  for (guint i = 0; i < node->children->len; i++)
    {
      TreeNode *child = g_ptr_array_index (node->children, i);
      if (!child->visited)
        tree_add_json (tree, b, child);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

/* The canonical path of @device as the daemon resolves it; NULL on
 * failure (reported). */
static char *
resolve_device (Pmctl *ctl, const char *device)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) dict = NULL;

  reply = call_manager (ctl, "GetDevice", g_variant_new ("(s)", device),
                        G_VARIANT_TYPE ("(a{sv})"), G_DBUS_CALL_FLAGS_NONE,
                        PMCTL_CALL_TIMEOUT_MS, &error);
  if (reply == NULL)
    {
      report_call_error (error, "get the device", device);
      return NULL;
    }
  dict = g_variant_get_child_value (reply, 0);
  return g_strdup (dict_get_string (dict, "path"));
}

static int
run_tree (Pmctl *ctl)
{
  const char *device = ctl->args->len > 0 ? g_ptr_array_index (ctl->args, 0) : NULL;
  g_autofree char *top_path = NULL;
  g_autoptr(GVariant) devices = NULL;
  g_autoptr(GPtrArray) roots = g_ptr_array_new ();
  Tree tree = { 0 };

  if (!connect_bus (ctl))
    return PMCTL_EXIT_FAILURE;
  if (device != NULL)
    {
      top_path = resolve_device (ctl, device);
      if (top_path == NULL)
        return PMCTL_EXIT_FAILURE;
    }
  devices = list_devices (ctl);
  if (devices == NULL)
    return PMCTL_EXIT_FAILURE;
  tree_init (&tree, devices);

  if (top_path != NULL)
    {
      TreeNode *top = g_hash_table_lookup (tree.nodes, top_path);

      if (top == NULL)
        {
          /* removed between the two calls */
          fail ("no such device: %s", device);
          tree_clear (&tree);
          return PMCTL_EXIT_FAILURE;
        }
      g_ptr_array_add (roots, top);
    }
  else
    {
      for (guint i = 0; i < tree.order->len; i++)
        {
          TreeNode *node = g_ptr_array_index (tree.order, i);
          if (node->parent == NULL)
            g_ptr_array_add (roots, node);
        }
      g_ptr_array_sort (roots, compare_nodes);
    }

  if (ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;

      json_builder_begin_array (b);
      for (guint i = 0; i < roots->len; i++)
        tree_add_json (&tree, b, g_ptr_array_index (roots, i));
      /* devices in a parent cycle have no root above them: each cycle
       * shows once, from its first device */
      for (guint i = 0; top_path == NULL && i < tree.order->len; i++)
        {
          TreeNode *node = g_ptr_array_index (tree.order, i);
          if (!node->visited)
            tree_add_json (&tree, b, node);
        }
      json_builder_end_array (b);
      root = json_builder_get_root (b);
      json_print (root, ctl->tty);
    }
  else
    {
      static const char * const header[] = {
        "DEVICE", "CLASS", "CONTROL", "STATUS", "HELD", "BLOCKER", NULL,
      };
      g_autoptr(Table) t = table_new (6);

      for (guint i = 0; i < roots->len; i++)
        tree_add_rows (ctl, &tree, t, g_ptr_array_index (roots, i), "", TRUE, TRUE);
      for (guint i = 0; top_path == NULL && i < tree.order->len; i++)
        {
          TreeNode *node = g_ptr_array_index (tree.order, i);
          if (!node->visited)
            tree_add_rows (ctl, &tree, t, node, "", TRUE, TRUE);
        }
      if (t->rows->len > 0)
        table_print (t, ctl->tty, header);
    }
  tree_clear (&tree);
  return finish_output (PMCTL_EXIT_OK);
}

/* ---- power-down / power-up --------------------------------------------------- */

/* Print PowerDown's or PowerUp's a(sss) rows; the number of "failed". */
static guint
print_power_results (Pmctl *ctl, GVariant *rows)
{
  GVariantIter iter;
  const char *path, *result, *detail;
  guint failed = 0;

  if (ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;

      json_builder_begin_array (b);
      g_variant_iter_init (&iter, rows);
      while (g_variant_iter_next (&iter, "(&s&s&s)", &path, &result, &detail))
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "path");
          json_builder_add_string_value (b, path);
          json_builder_set_member_name (b, "result");
          json_builder_add_string_value (b, result);
          json_builder_set_member_name (b, "detail");
          json_builder_add_string_value (b, detail);
          json_builder_end_object (b);
          if (g_str_equal (result, "failed"))
            failed++;
        }
      json_builder_end_array (b);
      root = json_builder_get_root (b);
      json_print (root, ctl->tty);
    }
  else
    {
      static const char * const header[] = { "PATH", "RESULT", "DETAIL", NULL };
      g_autoptr(Table) t = table_new (3);

      g_variant_iter_init (&iter, rows);
      while (g_variant_iter_next (&iter, "(&s&s&s)", &path, &result, &detail))
        {
          table_add_row (t, g_strdup (path), g_strdup (result),
                         g_strdup (*detail ? detail : "-"));
          if (g_str_equal (result, "failed"))
            {
              failed++;
              table_colour_cell (t, ctl->color, 1, 0, SGR_BOLD_RED);
            }
        }
      if (t->rows->len > 0)
        table_print (t, ctl->tty, header);
    }
  return failed;
}

static int
run_power (Pmctl *ctl, const char *method, GVariant *parameters, const char *verb)
{
  const char *device = g_ptr_array_index (ctl->args, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) rows = NULL;
  g_autofree char *what = g_strdup_printf ("%s %s", verb, device);
  guint failed;

  g_variant_ref_sink (parameters);
  if (!connect_bus (ctl))
    {
      g_variant_unref (parameters);
      return PMCTL_EXIT_FAILURE;
    }
  reply = call_manager (ctl, method, parameters, G_VARIANT_TYPE ("(a(sss))"),
                        G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                        PMCTL_AUTH_TIMEOUT_MS, &error);
  g_variant_unref (parameters);
  if (reply == NULL)
    {
      report_call_error (error, what, device);
      return PMCTL_EXIT_FAILURE;
    }
  rows = g_variant_get_child_value (reply, 0);
  failed = print_power_results (ctl, rows);
  if (failed > 0)
    {
      fail ("%s: %u of %" G_GSIZE_FORMAT " device%s failed", what, failed,
            g_variant_n_children (rows), g_variant_n_children (rows) == 1 ? "" : "s");
      return finish_output (PMCTL_EXIT_FAILURE);
    }
  return finish_output (PMCTL_EXIT_OK);
}

static int
run_power_down (Pmctl *ctl)
{
  return run_power (ctl, "PowerDown",
                    g_variant_new ("(sbs)", (char *) g_ptr_array_index (ctl->args, 0),
                                   ctl->subtree, ctl->off ? "off" : "auto"),
                    "power down");
}

static int
run_power_up (Pmctl *ctl)
{
  return run_power (ctl, "PowerUp",
                    g_variant_new ("(sb)", (char *) g_ptr_array_index (ctl->args, 0),
                                   ctl->subtree),
                    "power up");
}

/* ---- hold / inhibit ---------------------------------------------------------- */

/* The daemon takes at most this many bytes of who and why. */
#define HOLD_TEXT_MAX 256

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t pending_signal;

/* SIGTERM or SIGHUP to pmctl: pass it on to COMMAND, whose end ends us;
 * one that comes before COMMAND has started is passed on once it has. */
static void
forward_signal (int signo)
{
  if (child_pid > 0)
    kill ((pid_t) child_pid, signo);
  else
    pending_signal = signo;
}

static void
restore_child_signals (gpointer user_data)
{
  signal (SIGINT, SIG_DFL);
  signal (SIGQUIT, SIG_DFL);
}

/* COMMAND as one line, quoted where a shell would need it, cut to what the
 * daemon takes. */
static char *
default_why (Pmctl *ctl)
{
  g_autoptr(GString) s = g_string_new (NULL);
  const char *end;

  for (guint i = 0; i < ctl->exec_argv->len; i++)
    {
      const char *arg = g_ptr_array_index (ctl->exec_argv, i);
      gboolean plain = *arg != '\0';

      for (const char *p = arg; *p && plain; p++)
        plain = g_ascii_isalnum (*p) || strchr ("-_./=:,+@%", *p) != NULL;
      if (i > 0)
        g_string_append_c (s, ' ');
      if (plain)
        g_string_append (s, arg);
      else
        {
          g_autofree char *quoted = g_shell_quote (arg);
          g_string_append (s, quoted);
        }
    }
  if (s->len > HOLD_TEXT_MAX)
    {
      /* cut at a character boundary */
      g_utf8_validate (s->str, HOLD_TEXT_MAX - 3, &end);
      g_string_truncate (s, end - s->str);
      g_string_append (s, "...");
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* Run COMMAND and wait for it; its exit status the shell way. */
static int
run_exec_argv (Pmctl *ctl)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  struct sigaction forward = { 0 };
  struct sigaction old_term, old_hup, old_int, old_quit;
  struct sigaction ignore = { 0 };
  GPid pid;
  int wstatus = 0;
  gboolean waited = TRUE;

  for (guint i = 0; i < ctl->exec_argv->len; i++)
    g_ptr_array_add (argv, g_ptr_array_index (ctl->exec_argv, i));
  g_ptr_array_add (argv, NULL);

  /* like system(): Ctrl+C reaches COMMAND (same process group) and we
   * wait for it to end, so its exit status is what we return */
  ignore.sa_handler = SIG_IGN;
  sigemptyset (&ignore.sa_mask);
  sigaction (SIGINT, &ignore, &old_int);
  sigaction (SIGQUIT, &ignore, &old_quit);
  forward.sa_handler = forward_signal;
  sigemptyset (&forward.sa_mask);
  sigaction (SIGTERM, &forward, &old_term);
  sigaction (SIGHUP, &forward, &old_hup);

  /* G_SPAWN closes every descriptor above stderr in the child, and the
   * hold's fd is close-on-exec anyway: COMMAND never holds it, so the
   * hold ends with us and not with a daemon COMMAND leaves behind */
  if (!g_spawn_async (NULL, (char **) argv->pdata, NULL,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
                      G_SPAWN_CHILD_INHERITS_STDIN,
                      restore_child_signals, NULL, &pid, &error))
    {
      sigaction (SIGINT, &old_int, NULL);
      sigaction (SIGQUIT, &old_quit, NULL);
      sigaction (SIGTERM, &old_term, NULL);
      sigaction (SIGHUP, &old_hup, NULL);
      fail ("cannot run %s: %s", (char *) argv->pdata[0], error->message);
      return g_error_matches (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT) ? 127 : 126;
    }
  child_pid = pid;
  if (pending_signal != 0)
    kill (pid, pending_signal);

  while (waitpid (pid, &wstatus, 0) < 0)
    {
      if (errno != EINTR)
        {
          fail ("cannot wait for %s: %s", (char *) argv->pdata[0], g_strerror (errno));
          waited = FALSE;
          break;
        }
    }
  child_pid = 0;
  sigaction (SIGINT, &old_int, NULL);
  sigaction (SIGQUIT, &old_quit, NULL);
  sigaction (SIGTERM, &old_term, NULL);
  sigaction (SIGHUP, &old_hup, NULL);

  if (!waited)
    return PMCTL_EXIT_FAILURE;
  if (WIFSIGNALED (wstatus))
    return 128 + WTERMSIG (wstatus);
  return WEXITSTATUS (wstatus);
}

/* Call @method, which returns (h), keep the descriptor while COMMAND runs,
 * then close it. */
static int
run_holding_fd (Pmctl *ctl, const char *method, GVariant *parameters,
                const char *what, const char *device)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  gint32 index = -1;
  int fd;
  int status;

  g_variant_ref_sink (parameters);
  if (!connect_bus (ctl))
    {
      g_variant_unref (parameters);
      return PMCTL_EXIT_FAILURE;
    }
  reply = g_dbus_connection_call_with_unix_fd_list_sync (ctl->bus, PP_DBUS_NAME, PP_DBUS_PATH,
                                                         PP_DBUS_INTERFACE, method, parameters,
                                                         G_VARIANT_TYPE ("(h)"),
                                                         G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                                                         PMCTL_AUTH_TIMEOUT_MS, NULL, &fds,
                                                         NULL, &error);
  g_variant_unref (parameters);
  if (reply == NULL)
    {
      report_call_error (error, what, device);
      return PMCTL_EXIT_FAILURE;
    }
  g_variant_get (reply, "(h)", &index);
  if (fds == NULL || index < 0 || index >= g_unix_fd_list_get_length (fds))
    {
      fail ("cannot %s: powerpolicyd sent no file descriptor", what);
      return PMCTL_EXIT_FAILURE;
    }
  /* a close-on-exec duplicate; the list's own copies close with it */
  fd = g_unix_fd_list_get (fds, index, &error);
  g_clear_object (&fds);
  if (fd < 0)
    {
      fail ("cannot %s: %s", what, error->message);
      return PMCTL_EXIT_FAILURE;
    }
  if (fcntl (fd, F_SETFD, FD_CLOEXEC) < 0)
    {
      fail ("cannot %s: %s", what, g_strerror (errno));
      close (fd);
      return PMCTL_EXIT_FAILURE;
    }

  status = run_exec_argv (ctl);
  close (fd);
  return status;
}

static int
run_hold (Pmctl *ctl)
{
  const char *device = g_ptr_array_index (ctl->args, 0);
  g_autofree char *why = ctl->why ? g_strdup (ctl->why) : default_why (ctl);
  g_autofree char *what = g_strdup_printf ("hold %s", device);

  return run_holding_fd (ctl, "Hold",
                         g_variant_new ("(sss)", device, ctl->who ? ctl->who : "pmctl", why),
                         what, device);
}

static int
run_inhibit (Pmctl *ctl)
{
  const char *inhibit_what = ctl->what ? ctl->what : "idle";
  g_autofree char *why = ctl->why ? g_strdup (ctl->why) : default_why (ctl);
  g_autofree char *what = g_strdup_printf ("inhibit %s", inhibit_what);

  return run_holding_fd (ctl, "Inhibit",
                         g_variant_new ("(sss)", inhibit_what, ctl->who ? ctl->who : "pmctl", why),
                         what, NULL);
}

/* ---- inhibitors -------------------------------------------------------------- */

static int
run_inhibitors (Pmctl *ctl)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) inhibitors = NULL;
  GVariantIter iter;
  const char *what, *who, *why, *device;
  guint32 pid;

  if (!connect_bus (ctl))
    return PMCTL_EXIT_FAILURE;
  reply = call_manager (ctl, "ListInhibitors", NULL, G_VARIANT_TYPE ("(a(ssssu))"),
                        G_DBUS_CALL_FLAGS_NONE, PMCTL_CALL_TIMEOUT_MS, &error);
  if (reply == NULL)
    {
      report_call_error (error, "list the inhibitors", NULL);
      return PMCTL_EXIT_FAILURE;
    }
  inhibitors = g_variant_get_child_value (reply, 0);

  if (ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;

      add_inhibitors_json (b, inhibitors);
      root = json_builder_get_root (b);
      json_print (root, ctl->tty);
    }
  else
    {
      static const char * const header[] = { "WHAT", "WHO", "WHY", "DEVICE", "PID", NULL };
      g_autoptr(Table) t = table_new (5);

      g_variant_iter_init (&iter, inhibitors);
      while (g_variant_iter_next (&iter, "(&s&s&s&su)", &what, &who, &why, &device, &pid))
        table_add_row (t, g_strdup (what), g_strdup (*who ? who : "-"),
                       g_strdup (*why ? why : "-"), g_strdup (*device ? device : "-"),
                       g_strdup_printf ("%" G_GUINT32_FORMAT, pid));
      if (t->rows->len > 0)
        table_print (t, ctl->tty, header);
    }
  return finish_output (PMCTL_EXIT_OK);
}

/* ---- suspend / hibernate ----------------------------------------------------- */

static int
run_sleep (Pmctl *ctl, const char *method, const char *what)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  /* polkit may ask for a password only when someone can type it */
  gboolean interactive = isatty (STDIN_FILENO);

  if (!connect_bus (ctl))
    return PMCTL_EXIT_FAILURE;
  /* without logind the call returns after resume: however long the
   * machine sleeps */
  reply = call_manager (ctl, method, g_variant_new ("(b)", interactive), G_VARIANT_TYPE_UNIT,
                        G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, G_MAXINT, &error);
  if (reply == NULL)
    {
      report_call_error (error, what, NULL);
      return PMCTL_EXIT_FAILURE;
    }
  return PMCTL_EXIT_OK;
}

static int
run_suspend (Pmctl *ctl)
{
  return run_sleep (ctl, "Suspend", "suspend the system");
}

static int
run_hibernate (Pmctl *ctl)
{
  return run_sleep (ctl, "Hibernate", "hibernate the system");
}

/* ---- quirks ------------------------------------------------------------------ */

static int
run_quirks (Pmctl *ctl)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GVariant) reasons = NULL;
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_autofree const char **quirks = NULL;

  if (!connect_bus (ctl))
    return PMCTL_EXIT_FAILURE;
  reply = g_dbus_connection_call_sync (ctl->bus, PP_DBUS_NAME, PP_DBUS_PATH,
                                       DBUS_PROPERTIES_IFACE, "Get",
                                       g_variant_new ("(ss)", PP_DBUS_INTERFACE, "VideoQuirks"),
                                       G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE,
                                       PMCTL_CALL_TIMEOUT_MS, NULL, &error);
  if (reply == NULL)
    {
      report_call_error (error, "read the video quirks", NULL);
      return PMCTL_EXIT_FAILURE;
    }
  g_variant_get (reply, "(v)", &value);
  if (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
    {
      fail ("cannot read the video quirks: VideoQuirks has type %s, not as",
            g_variant_get_type_string (value));
      return PMCTL_EXIT_FAILURE;
    }
  quirks = g_variant_get_strv (value, NULL);
  g_clear_pointer (&reply, g_variant_unref);

  /* why: an addition to the interface; an older daemon has only the list */
  reply = call_manager (ctl, "GetVideoQuirks", NULL, G_VARIANT_TYPE ("(a(sss))"),
                        G_DBUS_CALL_FLAGS_NONE, PMCTL_CALL_TIMEOUT_MS, &error);
  if (reply == NULL && !error_is_unknown_method (error))
    {
      report_call_error (error, "read why the video quirks apply", NULL);
      return PMCTL_EXIT_FAILURE;
    }
  if (reply != NULL)
    {
      GVariantIter iter;
      const char *quirk, *source, *detail;

      reasons = g_variant_get_child_value (reply, 0);
      g_variant_iter_init (&iter, reasons);
      while (g_variant_iter_next (&iter, "(&s&s&s)", &quirk, &source, &detail))
        {
          char **row = g_new0 (char *, 4);
          row[0] = g_strdup (quirk);
          row[1] = g_strdup (source);
          row[2] = g_strdup (detail);
          g_ptr_array_add (rows, row);
        }
    }
  else
    {
      for (guint i = 0; quirks[i]; i++)
        {
          char **row = g_new0 (char *, 4);
          row[0] = g_strdup (quirks[i]);
          row[1] = g_strdup ("");
          row[2] = g_strdup ("");
          g_ptr_array_add (rows, row);
        }
    }

  if (ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "quirks");
      json_builder_begin_array (b);
      for (guint i = 0; quirks[i]; i++)
        json_builder_add_string_value (b, quirks[i]);
      json_builder_end_array (b);
      json_builder_set_member_name (b, "sources");
      if (reasons == NULL)
        json_builder_add_null_value (b);
      else
        {
          json_builder_begin_array (b);
          for (guint i = 0; i < rows->len; i++)
            {
              char **row = g_ptr_array_index (rows, i);

              json_builder_begin_object (b);
              json_builder_set_member_name (b, "quirk");
              json_builder_add_string_value (b, row[0]);
              json_builder_set_member_name (b, "source");
              json_builder_add_string_value (b, row[1]);
              json_builder_set_member_name (b, "detail");
              json_builder_add_string_value (b, row[2]);
              json_builder_end_object (b);
            }
          json_builder_end_array (b);
        }
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      json_print (root, ctl->tty);
    }
  else
    {
      static const char * const header[] = { "QUIRK", "SOURCE", "DETAIL", NULL };
      g_autoptr(Table) t = table_new (3);

      for (guint i = 0; i < rows->len; i++)
        {
          char **row = g_ptr_array_index (rows, i);
          table_add_row (t, g_strdup (row[0]), g_strdup (*row[1] ? row[1] : "-"),
                         g_strdup (*row[2] ? row[2] : "-"));
        }
      if (t->rows->len > 0)
        table_print (t, ctl->tty, header);
      else if (ctl->tty)
        printf ("No video quirks.\n");
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
  g_clear_pointer (&ctl->who, g_free);
  g_clear_pointer (&ctl->why, g_free);
  g_clear_pointer (&ctl->what, g_free);
  g_clear_pointer (&ctl->args, g_ptr_array_unref);
  g_clear_pointer (&ctl->exec_argv, g_ptr_array_unref);
  g_clear_object (&ctl->bus);
}

/* The value of an option that takes one: "--who=W" or "--who W". Returns
 * NULL (after a usage message) when it is missing. */
static const char *
option_value (const char *name, int argc, char **argv, int *i)
{
  const char *arg = argv[*i];
  gsize len = strlen (name);

  if (arg[len] == '=')
    return arg + len + 1;
  if (*i + 1 < argc)
    return argv[++*i];
  usage_error ("option '%s' needs a value", name);
  return NULL;
}

static gboolean
option_is (const char *arg, const char *name)
{
  gsize len = strlen (name);

  return strncmp (arg, name, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

/* The string options; a flag of OPTION_*, where its value goes. */
static char **
string_option (Pmctl *ctl, const char *arg, guint *flag, const char **name)
{
  if (option_is (arg, "--class"))
    {
      *flag = OPTION_CLASS, *name = "--class";
      return &ctl->klass;
    }
  if (option_is (arg, "--who"))
    {
      *flag = OPTION_WHO, *name = "--who";
      return &ctl->who;
    }
  if (option_is (arg, "--why"))
    {
      *flag = OPTION_WHY, *name = "--why";
      return &ctl->why;
    }
  if (option_is (arg, "--what"))
    {
      *flag = OPTION_WHAT, *name = "--what";
      return &ctl->what;
    }
  return NULL;
}

static gboolean
color_wanted (void)
{
  const char *term = g_getenv ("TERM");

  /* https://no-color.org */
  if (g_getenv ("NO_COLOR") != NULL && *g_getenv ("NO_COLOR") != '\0')
    return FALSE;
  return term != NULL && !g_str_equal (term, "dumb");
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
  ctl.color = ctl.tty && color_wanted ();

  /* Options may stand before or after the command, as with systemctl.
   * For hold and inhibit, "--" or the first word after the command's own
   * arguments starts COMMAND, and everything from there on is COMMAND's. */
  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];
      const char *name = NULL;
      guint flag = 0;
      char **target;

      if (ctl.exec_argv != NULL)
        {
          g_ptr_array_add (ctl.exec_argv, g_strdup (arg));
          continue;
        }
      if (command_name != NULL && ctl.command == NULL)
        ctl.command = find_command (command_name);

      if (g_str_equal (arg, "--") && !options_ended)
        {
          if (ctl.command != NULL && ctl.command->runs_command)
            ctl.exec_argv = g_ptr_array_new_with_free_func (g_free);
          else
            options_ended = TRUE;
        }
      else if (options_ended || arg[0] != '-' || g_str_equal (arg, "-"))
        {
          if (command_name == NULL)
            command_name = arg;
          else if (ctl.command != NULL && ctl.command->runs_command &&
                   ctl.args->len >= ctl.command->max_args)
            {
              ctl.exec_argv = g_ptr_array_new_with_free_func (g_free);
              g_ptr_array_add (ctl.exec_argv, g_strdup (arg));
            }
          else
            g_ptr_array_add (ctl.args, g_strdup (arg));
        }
      else if (g_str_equal (arg, "--json"))
        ctl.json = TRUE;
      else if (g_str_equal (arg, "--no-pager"))
        ;   /* pmctl never pages: accepted like systemctl's */
      else if (g_str_equal (arg, "--version"))
        version = TRUE;
      else if (g_str_equal (arg, "--help") || g_str_equal (arg, "-h"))
        help = TRUE;
      else if (g_str_equal (arg, "--subtree"))
        {
          ctl.subtree = TRUE;
          ctl.options_seen |= OPTION_SUBTREE;
        }
      else if (g_str_equal (arg, "--off"))
        {
          ctl.off = TRUE;
          ctl.options_seen |= OPTION_OFF;
        }
      else if ((target = string_option (&ctl, arg, &flag, &name)) != NULL)
        {
          const char *value = option_value (name, argc, argv, &i);

          if (value == NULL)
            {
              pmctl_clear (&ctl);
              return PMCTL_EXIT_USAGE;
            }
          g_free (*target);
          *target = g_strdup (value);
          ctl.options_seen |= flag;
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

  status = -1;
  for (guint i = 0; i < G_N_ELEMENTS (option_names) && status < 0; i++)
    {
      if ((ctl.options_seen & option_names[i].flag) && !(ctl.command->options & option_names[i].flag))
        status = usage_error ("'%s' does not take %s", ctl.command->name, option_names[i].name);
    }
  if (status >= 0)
    ;
  else if (ctl.args->len < ctl.command->min_args)
    status = usage_error ("'%s' needs %s", ctl.command->name,
                          ctl.command->min_args == 1 ? "a DEVICE argument" : "more arguments");
  else if (ctl.args->len > ctl.command->max_args)
    status = usage_error ("unexpected argument '%s' for '%s'",
                          (char *) g_ptr_array_index (ctl.args, ctl.command->max_args),
                          ctl.command->name);
  else if (ctl.command->runs_command && (ctl.exec_argv == NULL || ctl.exec_argv->len == 0))
    status = usage_error ("'%s' needs a COMMAND to run (after --)", ctl.command->name);
  else
    status = ctl.command->run (&ctl);

  pmctl_clear (&ctl);
  return status;
}
