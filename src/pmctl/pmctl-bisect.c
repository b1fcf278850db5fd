/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl bisect: find the device whose power policy breaks something.
 *
 * The candidates are the devices whose attributes the daemon changed
 * (ListChanges), optionally of one class. Each round puts a range of them
 * back to their original values with a Revert (a temporary layer of the
 * daemon that lasts while we keep its file descriptor open) and asks
 * whether the problem persists: the user on the terminal, or CMD (exit 0:
 * it works). The search itself is pp-bisect.c. Whatever ends us (the
 * end, Ctrl+C, SIGTERM, SIGKILL) closes the descriptor, and with it the
 * daemon puts the policy back. What is found is reported by
 * pmctl-bisect-result.c. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <glib-unix.h>
#include <gio/gunixfdlist.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pmctl-bisect.h"
#include "pp-util.h"
#include "pp-bisect.h"
#include "pp-error.h"
#include "pp-names.h"

static char *opt_class;
static char *opt_check;
static gboolean opt_apply;

static const GOptionEntry bisect_entries[] = {
  { "class", 0, 0, G_OPTION_ARG_FILENAME, &opt_class, "only the devices of CLASS", "CLASS" },
  { "check", 0, 0, G_OPTION_ARG_FILENAME, &opt_check,
    "run CMD (with /bin/sh) instead of asking; exit 0 means it works", "CMD" },
  { "apply", 0, 0, G_OPTION_ARG_NONE, &opt_apply,
    "keep the device found at its original values with overrides", NULL },
  { NULL }
};

/* Answers longer than this are no answer. */
#define ANSWER_MAX 256
/* A check told to stop (SIGTERM) gets this long before SIGKILL. */
#define CHECK_KILL_TIMEOUT_MS 5000


static void
change_free (Change *c)
{
  g_free (c->attribute);
  g_free (c->original);
  g_free (c->current);
  g_free (c);
}

static void
candidate_free (Candidate *c)
{
  g_free (c->path);
  g_free (c->klass);
  g_ptr_array_unref (c->changes);
  g_free (c);
}

/* ---- signals ---------------------------------------------------------------- */

/* Signal the check and what it started: its process group (it made one
 * of its own). Nothing once it has exited, so no other group is hit. */
static gboolean
kill_check_group (Bisect *bs, int signo)
{
  const char *id = bs->child != NULL && !bs->child_done ? g_subprocess_get_identifier (bs->child)
                                                        : NULL;
  gint64 pid;

  if (id == NULL || !g_ascii_string_to_signed (id, 10, 1, G_MAXINT, &pid, NULL))
    return FALSE;
  kill (-(pid_t) pid, signo);
  return TRUE;
}

static gboolean
on_kill_timeout (gpointer user_data)
{
  Bisect *bs = user_data;

  bs->kill_timeout_id = 0;
  kill_check_group (bs, SIGKILL);
  return G_SOURCE_REMOVE;
}

static void
interrupt (Bisect *bs, int signo)
{
  if (bs->interrupted == 0)
    bs->interrupted = signo;
  /* the check stops too, with what it started (its process group); we
   * wait for it, at most CHECK_KILL_TIMEOUT_MS */
  if (kill_check_group (bs, SIGTERM))
    {
      if (bs->kill_timeout_id == 0)
        bs->kill_timeout_id = g_timeout_add (CHECK_KILL_TIMEOUT_MS, on_kill_timeout, bs);
      return;
    }
  if (g_main_loop_is_running (bs->loop))
    g_main_loop_quit (bs->loop);
}

static gboolean on_sigint (gpointer bs) { interrupt (bs, SIGINT); return G_SOURCE_CONTINUE; }
static gboolean on_sigterm (gpointer bs) { interrupt (bs, SIGTERM); return G_SOURCE_CONTINUE; }
static gboolean on_sighup (gpointer bs) { interrupt (bs, SIGHUP); return G_SOURCE_CONTINUE; }

static void
catch_signals (Bisect *bs)
{
  bs->signal_ids[0] = g_unix_signal_add (SIGINT, on_sigint, bs);
  bs->signal_ids[1] = g_unix_signal_add (SIGTERM, on_sigterm, bs);
  bs->signal_ids[2] = g_unix_signal_add (SIGHUP, on_sighup, bs);
}

static void
release_signals (Bisect *bs)
{
  for (guint i = 0; i < G_N_ELEMENTS (bs->signal_ids); i++)
    g_clear_handle_id (&bs->signal_ids[i], g_source_remove);
}

/* Signals that came during a blocking call: handled now. */
static gboolean
was_interrupted (Bisect *bs)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
  return bs->interrupted != 0;
}

/* ---- the check ---------------------------------------------------------------- */

static void
on_child_exit (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Bisect *bs = user_data;
  GSubprocess *child = G_SUBPROCESS (source);

  /* not cancellable: it fails only if the child could not be waited for */
  if (g_subprocess_wait_finish (child, result, NULL))
    bs->child_status = g_subprocess_get_status (child);
  else
    bs->child_status = W_EXITCODE (127, 0);
  bs->child_done = TRUE;
  g_main_loop_quit (bs->loop);
}

/* In the check, before exec: a group of its own, so that stopping it
 * stops what it started too. */
static void
check_child_setup (gpointer user_data)
{
  setpgid (0, 0);
}

static CheckResult
run_check_command (Bisect *bs)
{
  /* stdin is /dev/null: the check asks nobody; its output goes to our
   * stderr, so that stdout holds only what pmctl prints (--json) */
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autoptr(GError) error = NULL;
  int out_fd = dup (STDERR_FILENO);
  int status;

  if (out_fd < 0)
    {
      pmctl_fail ("cannot run the check '%s': %s", opt_check, g_strerror (errno));
      return CHECK_FAILED;
    }
  g_subprocess_launcher_take_stdout_fd (launcher, out_fd);
  g_subprocess_launcher_set_child_setup (launcher, check_child_setup, NULL, NULL);
  bs->child = g_subprocess_launcher_spawn (launcher, &error, "/bin/sh", "-c", opt_check, NULL);
  if (bs->child == NULL)
    {
      pmctl_fail ("cannot run the check '%s': %s", opt_check, error->message);
      return CHECK_FAILED;
    }
  bs->child_done = FALSE;
  g_subprocess_wait_async (bs->child, NULL, on_child_exit, bs);
  g_main_loop_run (bs->loop);
  g_clear_object (&bs->child);
  g_clear_handle_id (&bs->kill_timeout_id, g_source_remove);
  status = bs->child_status;

  if (bs->interrupted)
    return CHECK_INTERRUPTED;
  if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
    return CHECK_WORKS;
  /* the shell's "cannot execute" and "not found": the check never ran */
  if (WIFEXITED (status) && (WEXITSTATUS (status) == 126 || WEXITSTATUS (status) == 127))
    {
      pmctl_fail ("the check '%s' could not run (exit status %d)", opt_check,
                  WEXITSTATUS (status));
      return CHECK_FAILED;
    }
  /* any other failure, a crash too, is the problem showing */
  return CHECK_PERSISTS;
}

/* ---- asking on the terminal ------------------------------------------------------ */

static gboolean
on_tty_readable (int fd, GIOCondition condition, gpointer user_data)
{
  Bisect *bs = user_data;
  char buf[256];
  ssize_t n = read (fd, buf, sizeof buf);

  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return G_SOURCE_CONTINUE;
  if (n <= 0)
    bs->tty_eof = TRUE;
  else
    g_string_append_len (bs->typed, buf, n);
  if (bs->tty_eof || memchr (bs->typed->str, '\n', bs->typed->len) != NULL ||
      bs->typed->len > ANSWER_MAX)
    {
      g_main_loop_quit (bs->loop);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/* One line from the terminal, without its newline; NULL at the end of
 * input or when interrupted. A line longer than ANSWER_MAX comes back
 * cut (and is no answer). */
static char *
read_answer (Bisect *bs)
{
  const char *nl;
  char *line;

  while ((nl = memchr (bs->typed->str, '\n', bs->typed->len)) == NULL &&
         bs->typed->len <= ANSWER_MAX && !bs->tty_eof && !bs->interrupted)
    {
      guint id = g_unix_fd_add (bs->tty_fd, G_IO_IN | G_IO_HUP | G_IO_ERR, on_tty_readable, bs);

      g_main_loop_run (bs->loop);
      if (g_main_context_find_source_by_id (NULL, id) != NULL)
        g_source_remove (id);
    }
  if (bs->interrupted)
    return NULL;
  if (nl == NULL && bs->typed->len > ANSWER_MAX)
    {
      /* drop the rest of that line as it comes */
      line = g_strndup (bs->typed->str, ANSWER_MAX);
      g_string_truncate (bs->typed, 0);
      return line;
    }
  if (nl == NULL)
    {
      if (bs->typed->len == 0)
        return NULL;
      line = g_strndup (bs->typed->str, bs->typed->len);
      g_string_truncate (bs->typed, 0);
      return line;
    }
  line = g_strndup (bs->typed->str, nl - bs->typed->str);
  g_string_erase (bs->typed, 0, nl - bs->typed->str + 1);
  return line;
}

static CheckResult
ask_user (Bisect *bs, const char *situation)
{
  for (;;)
    {
      g_autofree char *line = NULL;
      g_autofree char *word = NULL;

      fprintf (stderr, "%s\nDoes the problem persist? [y/n] ", situation);
      fflush (stderr);
      line = read_answer (bs);
      if (bs->interrupted)
        {
          fputc ('\n', stderr);
          return CHECK_INTERRUPTED;
        }
      if (line == NULL)
        {
          fputc ('\n', stderr);
          pmctl_fail ("no answer (end of input)");
          return CHECK_FAILED;
        }
      word = g_ascii_strdown (g_strstrip (line), -1);
      if (g_str_equal (word, "y") || g_str_equal (word, "yes"))
        return CHECK_PERSISTS;
      if (g_str_equal (word, "n") || g_str_equal (word, "no"))
        return CHECK_WORKS;
      fputs ("Please answer y (the problem is still there) or n (it works now).\n", stderr);
    }
}

/* The terminal to ask on: stdin when it is one, else /dev/tty. */
static gboolean
open_terminal (Bisect *bs)
{
  if (isatty (STDIN_FILENO))
    {
      bs->tty_fd = STDIN_FILENO;
      return TRUE;
    }
  bs->tty_fd = open ("/dev/tty", O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (bs->tty_fd < 0)
    return FALSE;
  bs->own_tty = TRUE;
  return TRUE;
}

/* ---- rounds ------------------------------------------------------------------ */

/* Put the range back with a Revert: its descriptor in *@fd. */
static gboolean
revert_range (Bisect *bs, guint round, guint first, guint count, int *fd)
{
  g_autofree const char **devices = g_new0 (const char *, count + 1);
  g_autofree char *why = g_strdup_printf ("round %u of at most %u", round, bs->max_rounds);
  g_autofree char *what = g_strdup_printf ("put %u device%s back to their original values",
                                           count, count == 1 ? "" : "s");
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) handle = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  gint32 index;

  for (guint i = 0; i < count; i++)
    devices[i] = pmctl_bisect_candidate_at (bs, first + i)->path;
  if (!pp_dbus_manager_call_revert_sync (bs->ctl->manager, devices, "pmctl bisect", why, NULL,
                                         &handle, &fds, NULL, &error))
    {
      if (g_error_matches (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE))
        {
          g_dbus_error_strip_remote_error (error);
          pmctl_fail ("a device went away during the bisect: %s", error->message);
        }
      else
        pmctl_report_error (error, what, NULL);
      return FALSE;
    }
  index = g_variant_get_handle (handle);
  if (fds == NULL || index < 0 || index >= g_unix_fd_list_get_length (fds))
    {
      pmctl_fail ("cannot %s: powerpolicyd sent no file descriptor", what);
      return FALSE;
    }
  /* a close-on-exec duplicate (the check never holds it); the list's own
   * copy closes with the list, so that closing ours ends the revert */
  *fd = g_unix_fd_list_get (fds, index, &error);
  if (*fd < 0)
    {
      pmctl_fail ("cannot %s: %s", what, error->message);
      return FALSE;
    }
  return TRUE;
}

/* One round: put [first, first + count) back (nothing in round 0), run
 * the check or ask, let the policy return. */
static CheckResult
run_round (Bisect *bs, guint round, guint first, guint count)
{
  g_autofree char *situation = NULL;
  CheckResult result;
  int fd = -1;

  if (count > 0)
    {
      g_autofree char *names = pmctl_bisect_describe_range (bs, first, count);
      /* device names: escaped before they reach the terminal */
      g_autofree char *range = pp_escape_text (names, 0);

      if (!revert_range (bs, round, first, count, &fd))
        return CHECK_FAILED;
      situation = g_strdup_printf ("Round %u of at most %u: %u of %u devices back at their "
                                   "original values (%s).", round, bs->max_rounds, count,
                                   bs->candidates->len, range);
    }
  else
    situation = g_strdup_printf ("Round 0: the full policy applied (%u device%s changed).",
                                 bs->candidates->len, bs->candidates->len == 1 ? "" : "s");

  if (was_interrupted (bs))
    result = CHECK_INTERRUPTED;
  else if (opt_check != NULL)
    {
      if (!bs->ctl->json)
        {
          printf ("%s ", situation);
          fflush (stdout);
        }
      result = run_check_command (bs);
      if (!bs->ctl->json && (result == CHECK_WORKS || result == CHECK_PERSISTS))
        printf ("%s\n", result == CHECK_WORKS ? "Works." : "The problem persists.");
      else if (!bs->ctl->json)
        printf ("\n");
      fflush (stdout);
    }
  else
    result = ask_user (bs, situation);

  if (fd >= 0)
    close (fd);
  if (result == CHECK_WORKS || result == CHECK_PERSISTS)
    {
      Round r = { round, first, count, result == CHECK_WORKS };
      g_array_append_val (bs->rounds, r);
    }
  return result;
}

/* ---- candidates ------------------------------------------------------------------ */

static gboolean
load_candidates (Bisect *bs)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) changes = NULL;
  g_autoptr(GVariant) devices = NULL;
  g_autoptr(GHashTable) classes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) by_path = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) left_out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const char *path, *attribute, *original, *current;
  GVariantIter iter;
  GVariant *dict;

  if (!pp_dbus_manager_call_list_changes_sync (bs->ctl->manager, &changes, NULL, &error))
    {
      pmctl_report_error (error, "list what the daemon changed", NULL);
      return FALSE;
    }
  if (!pp_dbus_manager_call_list_devices_sync (bs->ctl->manager, &devices, NULL, &error))
    {
      pmctl_report_error (error, "list the devices", NULL);
      return FALSE;
    }
  g_variant_iter_init (&iter, devices);
  while ((dict = g_variant_iter_next_value (&iter)) != NULL)
    {
      g_hash_table_replace (classes, g_strdup (pmctl_dict_get_string (dict, PP_DEVICE_KEY_PATH)),
                            g_strdup (pmctl_dict_get_string (dict, PP_DEVICE_KEY_CLASS)));
      g_variant_unref (dict);
    }

  /* ListChanges comes sorted by path: the candidates do too */
  g_variant_iter_init (&iter, changes);
  while (g_variant_iter_next (&iter, "(&s&s&s&s)", &path, &attribute, &original, &current))
    {
      const char *klass = g_hash_table_lookup (classes, path);
      Candidate *c;
      Change *change;

      if (klass == NULL)
        {
          /* a module parameter, a /sys/power setting */
          bs->n_not_devices++;
          continue;
        }
      if (opt_class != NULL && !g_str_equal (klass, opt_class))
        {
          g_hash_table_add (left_out, g_strdup (path));
          continue;
        }
      c = g_hash_table_lookup (by_path, path);
      if (c == NULL)
        {
          c = g_new0 (Candidate, 1);
          c->path = g_strdup (path);
          c->klass = g_strdup (klass);
          c->changes = g_ptr_array_new_with_free_func ((GDestroyNotify) change_free);
          g_ptr_array_add (bs->candidates, c);
          g_hash_table_insert (by_path, c->path, c);
        }
      change = g_new0 (Change, 1);
      change->attribute = g_strdup (attribute);
      change->original = g_strdup (original);
      change->current = g_strdup (current);
      g_ptr_array_add (c->changes, change);
    }
  bs->n_left_out = g_hash_table_size (left_out);
  return TRUE;
}

/* ---- the command ---------------------------------------------------------------- */

static int
bisect (Bisect *bs)
{
  PpBisect search;
  Outcome o = { 0 };
  g_autoptr(GPtrArray) applied = NULL;
  g_autoptr(GVariant) explain = NULL;
  guint first, count;
  int status;

  bs->max_rounds = pp_bisect_max_rounds (bs->candidates->len);
  if (!bs->ctl->json)
    printf ("Bisecting %u device%s%s%s whose attributes the policy changes: "
            "round 0 and at most %u more.\n",
            bs->candidates->len, bs->candidates->len == 1 ? "" : "s",
            opt_class ? " of class " : "", opt_class ? opt_class : "", bs->max_rounds);

  catch_signals (bs);
  pp_bisect_init (&search, bs->candidates->len);
  while (pp_bisect_next (&search, &first, &count) == PP_BISECT_CHECK)
    {
      CheckResult result = run_round (bs, pp_bisect_get_round (&search), first, count);

      if (result == CHECK_INTERRUPTED || (result == CHECK_FAILED && was_interrupted (bs)))
        {
          o.interrupted = TRUE;
          break;
        }
      if (result == CHECK_FAILED)
        {
          release_signals (bs);
          return PMCTL_EXIT_FAILURE;
        }
      pp_bisect_answer (&search, result == CHECK_WORKS);
    }
  /* every descriptor is closed: nothing of ours is in force any more */
  release_signals (bs);

  o.state = pp_bisect_next (&search, NULL, NULL);
  o.has_together = !o.interrupted &&
                   pp_bisect_get_together (&search, &o.together_first, &o.together_count);
  status = PMCTL_EXIT_FAILURE;
  if (!o.interrupted && o.state == PP_BISECT_FOUND)
    {
      o.found = pmctl_bisect_candidate_at (bs, pp_bisect_get_found (&search));
      explain = pmctl_bisect_explain_released (bs, o.found->path);
      o.explain = explain;
      status = PMCTL_EXIT_OK;
      if (opt_apply)
        {
          applied = g_ptr_array_new_with_free_func (g_free);
          o.applied = applied;
          if (!pmctl_bisect_apply_overrides (bs, o.found, applied))
            status = PMCTL_EXIT_FAILURE;
        }
    }

  if (bs->ctl->json)
    pmctl_bisect_print_json (bs, &o);
  else if (o.found != NULL)
    pmctl_bisect_print_found (bs, &o);
  if (o.found == NULL)
    pmctl_bisect_report_no_device (bs, &o);
  return pmctl_finish_output (status);
}

static int
run_bisect (Pmctl *ctl, char **args, char **command_argv)
{
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func ((GDestroyNotify) candidate_free);
  g_autoptr(GArray) rounds = g_array_new (FALSE, TRUE, sizeof (Round));
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GString) typed = g_string_new (NULL);
  Bisect bs = {
    .ctl = ctl, .klass = opt_class, .candidates = candidates, .rounds = rounds, .loop = loop,
    .tty_fd = -1, .typed = typed,
  };
  int status;

  if (opt_check != NULL && *opt_check == '\0')
    return pmctl_usage_error ("--check needs a command");
  if (opt_check == NULL && !open_terminal (&bs))
    return pmctl_usage_error ("no terminal to ask whether the problem persists: give --check CMD");

  /* the properties (DryRun) and time for a polkit agent on each Revert */
  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_NONE))
    status = PMCTL_EXIT_FAILURE;
  else
    {
      pmctl_set_timeout (ctl, PMCTL_AUTH_TIMEOUT_MS);
      if (!load_candidates (&bs))
        status = PMCTL_EXIT_FAILURE;
      else if (candidates->len == 0)
        {
          if (pp_dbus_manager_get_dry_run (ctl->manager))
            pmctl_fail ("powerpolicyd runs in dry-run mode and changes nothing: nothing to bisect");
          else if (opt_class != NULL)
            pmctl_fail ("the policy changes no device of class %s%s: nothing to bisect", opt_class,
                        bs.n_left_out > 0 ? " (it changes devices of other classes)" : "");
          else
            pmctl_fail ("the policy changes no device: nothing to bisect");
          status = PMCTL_EXIT_FAILURE;
        }
      else
        status = bisect (&bs);
    }
  if (bs.own_tty)
    close (bs.tty_fd);
  return status;
}

const PmctlCommand pmctl_command_bisect = {
  "bisect", "bisect [--class C] [--check CMD] [--apply]",
  "Find the device whose power policy breaks something",
  "Find the one device whose power policy makes something stop working.\n"
  "The candidates are the devices whose attributes the daemon changed\n"
  "('pmctl diff'), with --class only those of class C. Round 0 checks with\n"
  "the full policy: the problem must show. Each further round puts half of\n"
  "the remaining candidates back to their original values for the time of\n"
  "the check (a temporary revert, shown as layer \"revert\" in 'pmctl\n"
  "explain') and asks on the terminal whether the problem persists, or runs\n"
  "CMD with /bin/sh (exit 0: it works; 126 or 127: CMD could not run, the\n"
  "bisect stops; anything else: the problem persists; its output goes to\n"
  "stderr). It finds one device in at most ceil(log2 N)+1 rounds after\n"
  "round 0, verified by a round with that device alone put back, and prints\n"
  "it, its class, what the policy changes on it and why, and the 'pmctl set'\n"
  "commands and the udev rule that keep it as it was; --apply sets those\n"
  "overrides. When no single device explains the problem it says so, with\n"
  "the devices that together made it work if a round found them. Whatever\n"
  "ends pmctl (the end, Ctrl+C, SIGTERM, being killed) ends the temporary\n"
  "reverts: the policy applies again. Exit status 0 when a device was found\n"
  "(and --apply succeeded), else 1. Needs root or the polkit action\n"
  PP_POLKIT_ACTION_MANAGE ".",
  bisect_entries, 0, 0, FALSE, run_bisect,
};
