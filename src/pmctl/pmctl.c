/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl: the command-line client of powerpolicyd (pmctl(1)).
 *
 * This file holds the global options, the command table, the help and the
 * dispatch; each command group lives in its own file with its own
 * options (pmctl.h). Options may stand before or after the command, as
 * with systemctl; a negative number is a value, not an option. For hold
 * and inhibit, "--" or the first word after the command's own arguments
 * starts COMMAND, and everything from there on is COMMAND's.
 * Exit status: 0 success, 1 failure (one line on stderr), 2 usage error. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pmctl-sd-bus.h"

/* ---- global options ------------------------------------------------------- */

static gboolean opt_json;
static gboolean opt_no_pager;
static gboolean opt_version;
static gboolean opt_help;
static gboolean opt_full;

static const GOptionEntry global_entries[] = {
  { "json", 0, 0, G_OPTION_ARG_NONE, &opt_json, "Machine-readable output (JSON)", NULL },
  { "full", 'l', 0, G_OPTION_ARG_NONE, &opt_full, "Do not ellipsize table cells on a terminal", NULL },
  { "no-pager", 0, 0, G_OPTION_ARG_NONE, &opt_no_pager, "Accepted for compatibility; pmctl never pages", NULL },
  { "version", 0, 0, G_OPTION_ARG_NONE, &opt_version, "Print the version and exit", NULL },
  { "help", 'h', 0, G_OPTION_ARG_NONE, &opt_help, "Show this help, or with a COMMAND its help", NULL },
  { NULL }
};

/* ---- the command table ---------------------------------------------------- */

static int run_help (Pmctl *ctl, char **args, char **command_argv);

static const PmctlCommand command_help = {
  "help", "help [COMMAND]",
  "Show this help, or the help of COMMAND",
  "Show the list of commands, or the help of COMMAND.",
  NULL, 0, 1, FALSE, run_help,
};

static const PmctlCommand * const commands[] = {
  &pmctl_command_status,
  &pmctl_command_list,
  &pmctl_command_tree,
  &pmctl_command_show,
  &pmctl_command_explain,
  &pmctl_command_power_down,
  &pmctl_command_power_up,
  &pmctl_command_set,
  &pmctl_command_reset,
  &pmctl_command_overrides,
  &pmctl_command_diff,
  &pmctl_command_hold,
  &pmctl_command_inhibit,
  &pmctl_command_inhibitors,
  &pmctl_command_suspend,
  &pmctl_command_hibernate,
  &pmctl_command_reload,
  &pmctl_command_quirks,
  &pmctl_command_sleep_history,
  &pmctl_command_wakeups,
  &pmctl_command_sleep_check,
  &pmctl_command_monitor,
  &pmctl_command_stats,
  &pmctl_command_metrics,
  &pmctl_command_bisect,
  &pmctl_command_profile,
  &command_help,
};

static const PmctlCommand *
find_command (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      if (g_str_equal (commands[i]->name, name))
        return commands[i];
    }
  return NULL;
}

/* Optimal string alignment distance: insertions, deletions,
 * substitutions and swaps of neighbours cost one ("stauts" is one from
 * "status"). */
static guint
edit_distance (const char *a, const char *b)
{
  gsize n = strlen (a), m = strlen (b);
  g_autofree guint *d = g_new0 (guint, (n + 1) * (m + 1));
#define D(i, j) d[(i) * (m + 1) + (j)]

  for (gsize i = 0; i <= n; i++)
    D (i, 0) = i;
  for (gsize j = 0; j <= m; j++)
    D (0, j) = j;
  for (gsize i = 1; i <= n; i++)
    for (gsize j = 1; j <= m; j++)
      {
        guint cost = a[i - 1] == b[j - 1] ? 0 : 1;

        D (i, j) = MIN (MIN (D (i - 1, j) + 1, D (i, j - 1) + 1), D (i - 1, j - 1) + cost);
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
          D (i, j) = MIN (D (i, j), D (i - 2, j - 2) + 1);
      }
  return D (n, m);
#undef D
}

/* The command nearest to @name, when it is near enough to be a typo. */
static const PmctlCommand *
nearest_command (const char *name)
{
  const PmctlCommand *best = NULL;
  guint best_distance = G_MAXUINT;

  if (strlen (name) > 64)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      guint distance = edit_distance (name, commands[i]->name);

      if (distance < best_distance)
        {
          best = commands[i];
          best_distance = distance;
        }
    }
  /* at most a third of the word wrong, and never all of it */
  if (best_distance > MAX (1, strlen (name) / 3) || best_distance >= strlen (name))
    return NULL;
  return best;
}

static int
unknown_command (const char *name)
{
  const PmctlCommand *nearest = nearest_command (name);

  if (nearest != NULL)
    return pmctl_usage_error ("unknown command '%s', did you mean '%s'?", name, nearest->name);
  return pmctl_usage_error ("unknown command '%s'", name);
}

/* The command that takes the option @long_name, if any. */
static const PmctlCommand *
command_with_option (const char *long_name, gboolean *takes_value)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      for (const GOptionEntry *e = commands[i]->entries; e && e->long_name; e++)
        {
          if (g_str_equal (e->long_name, long_name))
            {
              if (takes_value != NULL)
                *takes_value = e->arg != G_OPTION_ARG_NONE;
              return commands[i];
            }
        }
    }
  return NULL;
}

/* ---- help ----------------------------------------------------------------- */

static char *
option_label (const GOptionEntry *e)
{
  g_autoptr(GString) s = g_string_new ("");

  if (e->short_name)
    g_string_append_printf (s, "-%c, ", e->short_name);
  g_string_append_printf (s, "--%s", e->long_name);
  if (e->arg_description)
    g_string_append_printf (s, " %s", e->arg_description);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static void
print_option (const char *label, const char *text)
{
  if (strlen (label) > 22)
    printf ("  %s\n  %-22s %s\n", label, "", text);
  else
    printf ("  %-22s %s\n", label, text);
}

static void
print_main_help (void)
{
  g_autoptr(GPtrArray) seen = g_ptr_array_new ();

  printf ("Usage: pmctl [OPTIONS] COMMAND [ARGUMENTS]\n"
          "\n"
          "Query and control powerpolicyd, the system power-policy daemon.\n"
          "\n"
          "Commands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    print_option (commands[i]->synopsis, commands[i]->summary);

  printf ("\nOptions:\n");
  for (const GOptionEntry *e = global_entries; e->long_name; e++)
    {
      g_autofree char *label = option_label (e);
      print_option (label, e->description);
    }
  /* each command option once, with the commands that take it */
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      for (const GOptionEntry *e = commands[i]->entries; e && e->long_name; e++)
        {
          g_autofree char *label = NULL;
          g_autoptr(GString) text = g_string_new (NULL);

          if (g_ptr_array_find_with_equal_func (seen, e->long_name, g_str_equal, NULL))
            continue;
          g_ptr_array_add (seen, (gpointer) e->long_name);
          for (guint j = i; j < G_N_ELEMENTS (commands); j++)
            {
              for (const GOptionEntry *f = commands[j]->entries; f && f->long_name; f++)
                {
                  if (g_str_equal (f->long_name, e->long_name))
                    g_string_append_printf (text, "%s%s", text->len ? ", " : "", commands[j]->name);
                }
            }
          g_string_append_printf (text, ": %s", e->description);
          label = option_label (e);
          print_option (label, text->str);
        }
    }
  printf ("\n"
          "DEVICE is a /sys/devices path, a /sys/bus/*/devices/* or /sys/class/*/*\n"
          "path, or a device name such as 1-2 or 0000:00:14.0.\n"
          "\n"
          "See pmctl(1).\n");
}

static void
print_command_help (const PmctlCommand *command)
{
  printf ("Usage: pmctl [--json] %s\n\n%s\n", command->synopsis, command->description);
  if (command->entries != NULL && command->entries->long_name != NULL)
    {
      printf ("\nOptions:\n");
      for (const GOptionEntry *e = command->entries; e->long_name; e++)
        {
          g_autofree char *label = option_label (e);
          print_option (label, e->description);
        }
    }
}

static int
run_help (Pmctl *ctl, char **args, char **command_argv)
{
  const PmctlCommand *command;

  if (args[0] == NULL)
    {
      print_main_help ();
      return pmctl_finish_output (PMCTL_EXIT_OK);
    }
  command = find_command (args[0]);
  if (command == NULL)
    return unknown_command (args[0]);
  print_command_help (command);
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

/* ---- parsing -------------------------------------------------------------- */

static gboolean
is_negative_number (const char *arg)
{
  return arg[0] == '-' && g_ascii_isdigit (arg[1]);
}

static gboolean
is_option (const char *arg)
{
  return arg[0] == '-' && arg[1] != '\0' && !is_negative_number (arg);
}

/* "--name VALUE" (not "--name=VALUE") of an option of any command that
 * takes a value: VALUE is no command and no argument. */
static gboolean
option_takes_next (const char *arg)
{
  gboolean takes_value = FALSE;

  if (!g_str_has_prefix (arg, "--") || strchr (arg, '=') != NULL)
    return FALSE;
  return command_with_option (arg + 2, &takes_value) != NULL && takes_value;
}

/* Split the words after the command of a command that runs COMMAND: its
 * own options and arguments go to @own, COMMAND to @exec. */
static void
split_command_argv (const PmctlCommand *command, char **words, GPtrArray *own, GPtrArray *exec)
{
  guint n_args = 0;

  for (guint i = 0; words[i] != NULL; i++)
    {
      if (g_str_equal (words[i], "--") ||
          (!is_option (words[i]) && n_args >= command->max_args))
        {
          for (guint j = g_str_equal (words[i], "--") ? i + 1 : i; words[j] != NULL; j++)
            g_ptr_array_add (exec, g_strdup (words[j]));
          return;
        }
      g_ptr_array_add (own, g_strdup (words[i]));
      if (!is_option (words[i]))
        n_args++;
      else if (option_takes_next (words[i]) && words[i + 1] != NULL)
        g_ptr_array_add (own, g_strdup (words[++i]));
    }
}

static GOptionContext *
new_option_context (const GOptionEntry *entries)
{
  GOptionContext *context = g_option_context_new (NULL);
  GOptionGroup *global = g_option_group_new ("global", "Global options", "Global options",
                                             NULL, NULL);

  g_option_context_set_help_enabled (context, FALSE);
  if (entries != NULL)
    g_option_context_add_main_entries (context, entries, NULL);
  g_option_group_add_entries (global, global_entries);
  g_option_context_add_group (context, global);
  return context;
}

/* What GOption left over that looks like an option (before "--") is
 * a usage error; -1 when there is none. */
static int
check_leftover_options (const PmctlCommand *command, char **words)
{
  for (guint i = 1; words[i] != NULL && !g_str_equal (words[i], "--"); i++)
    {
      g_autofree char *name = NULL;

      if (!is_option (words[i]))
        continue;
      name = g_strndup (words[i], strcspn (words[i], "="));
      if (g_str_has_prefix (name, "--") && command_with_option (name + 2, NULL) != NULL)
        return pmctl_usage_error ("'%s' does not take %s", command->name, name);
      return pmctl_usage_error ("unknown option '%s'", name);
    }
  return -1;
}

/* Parse @words (the command's options and arguments, before and after
 * it) with the command's own option context; -1 to go on, else the exit
 * status. */
static int
parse_command_options (const PmctlCommand *command, GPtrArray *words, GStrv *args_out)
{
  g_autoptr(GOptionContext) context = new_option_context (command->entries);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) strv = NULL;
  int status;

  /* unknown options stay in place: a negative number is an argument */
  g_option_context_set_ignore_unknown_options (context, TRUE);
  g_ptr_array_insert (words, 0, g_strdup_printf ("pmctl %s", command->name));
  g_ptr_array_add (words, NULL);
  strv = (GStrv) g_ptr_array_steal (words, NULL);
  if (!g_option_context_parse_strv (context, &strv, &error))
    return pmctl_usage_error ("%s", error->message);
  if (opt_help || opt_version)
    return -1;
  status = check_leftover_options (command, strv);
  if (status >= 0)
    return status;
  for (guint i = 1; strv[i] != NULL; i++)
    {
      if (!g_str_equal (strv[i], "--"))
        g_ptr_array_add (args, g_strdup (strv[i]));
    }
  g_ptr_array_add (args, NULL);
  *args_out = (GStrv) g_ptr_array_free (g_steal_pointer (&args), FALSE);
  return -1;
}

static gboolean
color_wanted (void)
{
  const char *term = g_getenv ("TERM");
  const char *no_color = g_getenv ("NO_COLOR");

  /* https://no-color.org */
  if (no_color != NULL && *no_color != '\0')
    return FALSE;
  return term != NULL && !g_str_equal (term, "dumb");
}

static int
print_version (void)
{
  printf ("pmctl %s\n", PACKAGE_VERSION);
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

/* Only global options and no command. */
static int
run_without_command (GPtrArray *words)
{
  g_autoptr(GOptionContext) context = new_option_context (NULL);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) strv = NULL;

  g_ptr_array_insert (words, 0, g_strdup ("pmctl"));
  g_ptr_array_add (words, NULL);
  strv = (GStrv) g_ptr_array_steal (words, NULL);
  if (!g_option_context_parse_strv (context, &strv, &error))
    {
      if (g_error_matches (error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION) && strv[1])
        {
          g_autofree char *name = g_strndup (strv[1], strcspn (strv[1], "="));
          return pmctl_usage_error ("unknown option '%s'", name);
        }
      return pmctl_usage_error ("%s", error->message);
    }
  if (opt_version)
    return print_version ();
  if (opt_help)
    {
      print_main_help ();
      return pmctl_finish_output (PMCTL_EXIT_OK);
    }
  return pmctl_usage_error ("no command given");
}

static int
dispatch (Pmctl *ctl, const PmctlCommand *command, GPtrArray *words)
{
  g_autoptr(GPtrArray) own = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) exec = NULL;
  g_auto(GStrv) args = NULL;
  g_auto(GStrv) command_argv = NULL;
  guint n_args;
  int status;

  if (command->runs_command)
    {
      exec = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (words, NULL);
      split_command_argv (command, (char **) words->pdata, own, exec);
    }
  else
    g_ptr_array_extend_and_steal (own, g_ptr_array_ref (words));

  /* what goes to the daemon travels as D-Bus strings: UTF-8 */
  for (guint i = 0; i < own->len; i++)
    {
      const char *word = g_ptr_array_index (own, i);
      if (word != NULL && !g_utf8_validate (word, -1, NULL))
        return pmctl_usage_error ("argument %u of '%s' is not valid UTF-8", i + 1, command->name);
    }
  status = parse_command_options (command, own, &args);
  if (status >= 0)
    return status;
  if (opt_version)
    return print_version ();
  if (opt_help)
    {
      if (command == &command_help)
        return run_help (ctl, args ? args : (char *[]) { NULL }, NULL);
      print_command_help (command);
      return pmctl_finish_output (PMCTL_EXIT_OK);
    }

  n_args = g_strv_length (args);
  if (n_args < command->min_args)
    return pmctl_usage_error ("'%s' needs %s", command->name,
                              command->min_args == 1 ? "a DEVICE argument" : "more arguments");
  if (n_args > command->max_args)
    return pmctl_usage_error ("unexpected argument '%s' for '%s'",
                              args[command->max_args], command->name);
  if (command->runs_command && exec->len == 0)
    return pmctl_usage_error ("'%s' needs a COMMAND to run (after --)", command->name);
  if (exec != NULL)
    {
      g_ptr_array_add (exec, NULL);
      command_argv = (GStrv) g_ptr_array_free (g_steal_pointer (&exec), FALSE);
    }

  ctl->json = opt_json;
  ctl->full = opt_full;
  return command->run (ctl, args, command_argv);
}

int
main (int argc, char **argv)
{
  Pmctl ctl = { 0 };
  g_autoptr(GPtrArray) before = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) words = g_ptr_array_new_with_free_func (g_free);
  const PmctlCommand *command;
  const char *command_name = NULL;
  int i;
  int status;

  setlocale (LC_ALL, "");
  ctl.tty = isatty (STDOUT_FILENO);
  ctl.color = ctl.tty && color_wanted ();

  /* the command is the first word that is neither an option nor the
   * value of one; the options before it are parsed with it */
  for (i = 1; i < argc && command_name == NULL; i++)
    {
      if (g_str_equal (argv[i], "--"))
        {
          if (i + 1 < argc)
            command_name = argv[++i];
        }
      else if (is_option (argv[i]))
        {
          g_ptr_array_add (before, g_strdup (argv[i]));
          if (option_takes_next (argv[i]) && i + 1 < argc)
            g_ptr_array_add (before, g_strdup (argv[++i]));
        }
      else
        command_name = argv[i];
    }

  if (command_name == NULL)
    return run_without_command (before);

  command = find_command (command_name);
  if (command == NULL)
    {
      /* --version and --help before a word that is no command still work */
      if (g_strv_contains ((const char * const *) argv, "--version"))
        return print_version ();
      return unknown_command (command_name);
    }

  g_ptr_array_extend_and_steal (words, g_steal_pointer (&before));
  for (; i < argc; i++)
    g_ptr_array_add (words, g_strdup (argv[i]));

  status = dispatch (&ctl, command, words);
  g_clear_object (&ctl.manager);
  g_clear_object (&ctl.bus);
  g_clear_pointer (&ctl.sdbus, sd_bus_close_unref);
  return status;
}
