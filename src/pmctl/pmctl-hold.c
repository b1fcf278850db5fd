/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl hold, pmctl inhibit: keep a device powered, or the idle layers
 * or lid handling off, while COMMAND runs; pmctl inhibitors lists them. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <gio/gunixfdlist.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pp-enums.h"
#include "pp-names.h"

static char *opt_who;
static char *opt_why;
static char *opt_what;

static const GOptionEntry hold_entries[] = {
  { "who", 0, 0, G_OPTION_ARG_FILENAME, &opt_who, "who holds it (default: pmctl)", "WHO" },
  { "why", 0, 0, G_OPTION_ARG_FILENAME, &opt_why, "why (default: the command line)", "WHY" },
  { NULL }
};

static const GOptionEntry inhibit_entries[] = {
  { "what", 0, 0, G_OPTION_ARG_FILENAME, &opt_what, "idle, lid or idle:lid (default idle)", "WHAT" },
  { "who", 0, 0, G_OPTION_ARG_FILENAME, &opt_who, "who holds it (default: pmctl)", "WHO" },
  { "why", 0, 0, G_OPTION_ARG_FILENAME, &opt_why, "why (default: the command line)", "WHY" },
  { NULL }
};

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
default_why (char **command_argv)
{
  g_autoptr(GString) s = g_string_new (NULL);
  const char *end;

  for (guint i = 0; command_argv[i] != NULL; i++)
    {
      const char *arg = command_argv[i];
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
  /* D-Bus strings are UTF-8; a file name need not be */
  if (!g_utf8_validate (s->str, s->len, NULL))
    {
      g_autofree char *valid = g_utf8_make_valid (s->str, s->len);
      g_string_assign (s, valid);
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
run_command_argv (char **command_argv)
{
  g_autoptr(GError) error = NULL;
  struct sigaction forward = { 0 };
  struct sigaction old_term, old_hup, old_int, old_quit;
  struct sigaction ignore = { 0 };
  GPid pid;
  int wstatus = 0;
  gboolean waited = TRUE;

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
  if (!g_spawn_async (NULL, command_argv, NULL,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
                      G_SPAWN_CHILD_INHERITS_STDIN,
                      restore_child_signals, NULL, &pid, &error))
    {
      sigaction (SIGINT, &old_int, NULL);
      sigaction (SIGQUIT, &old_quit, NULL);
      sigaction (SIGTERM, &old_term, NULL);
      sigaction (SIGHUP, &old_hup, NULL);
      pmctl_fail ("cannot run %s: %s", command_argv[0], error->message);
      return g_error_matches (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT) ? 127 : 126;
    }
  child_pid = pid;
  if (pending_signal != 0)
    kill (pid, pending_signal);

  while (waitpid (pid, &wstatus, 0) < 0)
    {
      if (errno != EINTR)
        {
          pmctl_fail ("cannot wait for %s: %s", command_argv[0], g_strerror (errno));
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

/* pp_dbus_manager_call_hold_sync() or pp_dbus_manager_call_inhibit_sync() */
typedef gboolean (*HoldingCall) (PpDbusManager  *proxy,
                                 const char     *device_or_what,
                                 const char     *who,
                                 const char     *why,
                                 GUnixFDList    *fd_list,
                                 GVariant      **out_fd,
                                 GUnixFDList   **out_fd_list,
                                 GCancellable   *cancellable,
                                 GError        **error);

/* Hold or Inhibit, keep the descriptor while COMMAND runs, then close
 * it. */
static int
run_holding (Pmctl *ctl, HoldingCall call, const char *argument, const char *what,
             const char *device, char **command_argv)
{
  g_autofree char *why = opt_why ? g_strdup (opt_why) : default_why (command_argv);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) handle = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  gint32 index;
  int fd;
  int status;

  if (!pmctl_connect_to_change (ctl))
    return PMCTL_EXIT_FAILURE;
  if (!call (ctl->manager, argument, opt_who ? opt_who : "pmctl", why, NULL, &handle, &fds,
             NULL, &error))
    {
      pmctl_report_error (error, what, device);
      return PMCTL_EXIT_FAILURE;
    }
  index = g_variant_get_handle (handle);
  if (fds == NULL || index < 0 || index >= g_unix_fd_list_get_length (fds))
    {
      pmctl_fail ("cannot %s: powerpolicyd sent no file descriptor", what);
      return PMCTL_EXIT_FAILURE;
    }
  /* a close-on-exec duplicate; the list's own copies close with it */
  fd = g_unix_fd_list_get (fds, index, &error);
  g_clear_object (&fds);
  if (fd < 0)
    {
      pmctl_fail ("cannot %s: %s", what, error->message);
      return PMCTL_EXIT_FAILURE;
    }
  if (fcntl (fd, F_SETFD, FD_CLOEXEC) < 0)
    {
      pmctl_fail ("cannot %s: %s", what, g_strerror (errno));
      close (fd);
      return PMCTL_EXIT_FAILURE;
    }

  status = run_command_argv (command_argv);
  close (fd);
  return status;
}

static int
run_hold (Pmctl *ctl, char **args, char **command_argv)
{
  g_autofree char *what = g_strdup_printf ("hold %s", args[0]);

  return run_holding (ctl, pp_dbus_manager_call_hold_sync, args[0], what, args[0], command_argv);
}

static int
run_inhibit (Pmctl *ctl, char **args, char **command_argv)
{
  g_autofree char *inhibit_what = opt_what ? g_strdup (opt_what)
                                           : pp_inhibit_flags_to_string (PP_INHIBIT_IDLE);
  g_autofree char *what = g_strdup_printf ("inhibit %s", inhibit_what);

  return run_holding (ctl, pp_dbus_manager_call_inhibit_sync, inhibit_what, what, NULL,
                      command_argv);
}

const PmctlCommand pmctl_command_hold = {
  "hold", "hold DEVICE [--who WHO] [--why WHY] -- COMMAND...",
  "Keep a device powered while COMMAND runs",
  "Keep DEVICE, its ancestors and its suppliers at power/control=on while\n"
  "COMMAND runs, then let the policy return. The exit status is COMMAND's\n"
  "(128+N if a signal N killed it; 127 if it cannot be found, 126 if it\n"
  "cannot be run). WHO defaults to \"pmctl\", WHY to the command line.\n"
  "Needs root or the polkit action " PP_POLKIT_ACTION_INHIBIT " (any local user\n"
  "when polkit is absent).",
  hold_entries, 1, 1, TRUE, run_hold,
};

const PmctlCommand pmctl_command_inhibit = {
  "inhibit", "inhibit [--what WHAT] [--who WHO] [--why WHY] -- COMMAND...",
  "Inhibit the idle layers or lid handling while COMMAND runs",
  "Take an inhibitor while COMMAND runs. WHAT is a colon-separated list of\n"
  "idle (do not apply the :idle layers of the policy) and lid (ignore lid\n"
  "close); the default is idle. The exit status is COMMAND's, as for\n"
  "'pmctl hold'. WHO defaults to \"pmctl\", WHY to the command line. Needs\n"
  "root or the polkit action " PP_POLKIT_ACTION_INHIBIT " (any local user when\n"
  "polkit is absent).",
  inhibit_entries, 0, 0, TRUE, run_inhibit,
};

/* ---- inhibitors ------------------------------------------------------------- */

void
pmctl_add_inhibitors_json (JsonBuilder *b, GVariant *inhibitors)
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
run_inhibitors (Pmctl *ctl, char **args, char **command_argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) inhibitors = NULL;

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_list_inhibitors_sync (ctl->manager, &inhibitors, NULL, &error))
    {
      pmctl_report_error (error, "list the inhibitors", NULL);
      return PMCTL_EXIT_FAILURE;
    }

  if (ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      pmctl_add_inhibitors_json (b, inhibitors);
      pmctl_json_print_builder (ctl, b);
    }
  else
    {
      static const char * const header[] = { "WHAT", "WHO", "WHY", "DEVICE", "PID", NULL };
      g_autoptr(PmctlTable) t = pmctl_table_new (5);
      const char *what, *who, *why, *device;
      GVariantIter iter;
      guint32 pid;

      g_variant_iter_init (&iter, inhibitors);
      while (g_variant_iter_next (&iter, "(&s&s&s&su)", &what, &who, &why, &device, &pid))
        pmctl_table_add_row (t, g_strdup (what), g_strdup (*who ? who : "-"),
                             g_strdup (*why ? why : "-"), g_strdup (*device ? device : "-"),
                             g_strdup_printf ("%" G_GUINT32_FORMAT, pid));
      pmctl_table_print (t, ctl, header);
    }
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_inhibitors = {
  "inhibitors", "inhibitors",
  "List the holds and inhibitors in force",
  "Print one line per hold or inhibitor: what (hold, idle, lid, ...), who,\n"
  "why, the device held (or -), and the holder's process id.",
  NULL, 0, 0, FALSE, run_inhibitors,
};
