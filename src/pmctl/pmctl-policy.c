/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl set, pmctl reset: per-device overrides; pmctl reload: the
 * configuration. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <stdio.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pp-util.h"
#include "pp-error.h"
#include "pp-names.h"

/* ---- set / reset -------------------------------------------------------------- */

static int
run_set (Pmctl *ctl, char **args, char **command_argv)
{
  const char *device = args[0];
  const char *key = args[1];
  const char *value = args[2];
  g_autofree char *what = g_strdup_printf ("set %s of %s", key, device);
  g_autoptr(GError) error = NULL;

  if (!pmctl_connect_to_change (ctl))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_set_override_sync (ctl->manager, device, key, value, NULL, &error))
    {
      pmctl_report_error (error, what, device);
      return PMCTL_EXIT_FAILURE;
    }
  return PMCTL_EXIT_OK;
}

static int
run_reset (Pmctl *ctl, char **args, char **command_argv)
{
  const char *device = args[0];
  g_autofree char *what = g_strdup_printf ("reset %s", device);
  g_autoptr(GError) error = NULL;

  if (!pmctl_connect_to_change (ctl))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_clear_overrides_sync (ctl->manager, device, NULL, &error))
    {
      pmctl_report_error (error, what, device);
      return PMCTL_EXIT_FAILURE;
    }
  return PMCTL_EXIT_OK;
}

const PmctlCommand pmctl_command_set = {
  "set", "set DEVICE KEY VALUE",
  "Override the policy of one device (Control, AutosuspendDelayMs, Wakeup)",
  "Set a per-device override: KEY is Control (on|auto), AutosuspendDelayMs\n"
  "(milliseconds, -1 or more) or Wakeup (enabled|disabled). It sits above\n"
  "the configuration and the udev properties, applies at once and is kept\n"
  "across restarts. Needs root or the polkit action " PP_POLKIT_ACTION_MANAGE ".",
  NULL, 3, 3, FALSE, run_set,
};

const PmctlCommand pmctl_command_reset = {
  "reset", "reset DEVICE",
  "Remove every override of one device",
  "Remove the overrides of DEVICE set with 'pmctl set'; the device returns\n"
  "to the policy at once. Needs root or the polkit action " PP_POLKIT_ACTION_MANAGE ".",
  NULL, 1, 1, FALSE, run_reset,
};

/* ---- reload ------------------------------------------------------------------- */

#define RELOAD_PROBLEMS_PREFIX "configuration reloaded with problems"

/* The daemon's problems, "FILE:LINE: message" each, when @error says the
 * configuration was reloaded with problems (see Reload in
 * org.powerpolicy1.Manager.xml): the first line of the message says so,
 * each further line is one problem. NULL for any other error. */
static GStrv
reload_problems (const GError *error)
{
  g_autoptr(GError) copy = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_error_matches (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT))
    return NULL;
  copy = g_error_copy (error);
  g_dbus_error_strip_remote_error (copy);
  if (!g_str_has_prefix (copy->message, RELOAD_PROBLEMS_PREFIX))
    return NULL;
  lines = g_strsplit (copy->message, "\n", -1);
  return g_strdupv (lines + 1);
}

static void
print_reload_json (Pmctl *ctl, char **problems)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "problems");
  json_builder_begin_array (b);
  for (guint i = 0; problems != NULL && problems[i]; i++)
    json_builder_add_string_value (b, problems[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  pmctl_json_print_builder (ctl, b);
}

static void
report_reload_problems (Pmctl *ctl, char **problems)
{
  guint n = g_strv_length (problems);

  /* with --json the problems are in the document on stdout */
  pmctl_fail ("the configuration was reloaded with %u problem%s (the valid settings are applied)%s",
              n, n == 1 ? "" : "s", ctl->json ? "" : ":");
  for (guint i = 0; !ctl->json && i < n; i++)
    {
      g_autofree char *shown = pp_escape_text (problems[i], 0);

      fprintf (stderr, "  %s\n", shown);
    }
  fputs ("Check the configuration before the next reload with '"
         PP_LIBEXECDIR "/powerpolicyd --check-config'.\n", stderr);
}

static int
run_reload (Pmctl *ctl, char **args, char **command_argv)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) problems = NULL;

  if (!pmctl_connect_to_change (ctl))
    return PMCTL_EXIT_FAILURE;
  if (pp_dbus_manager_call_reload_sync (ctl->manager, NULL, &error))
    {
      if (ctl->json)
        print_reload_json (ctl, NULL);
      return pmctl_finish_output (PMCTL_EXIT_OK);
    }

  problems = reload_problems (error);
  if (problems == NULL)
    {
      pmctl_report_error (error, "reload the configuration", NULL);
      return PMCTL_EXIT_FAILURE;
    }
  if (ctl->json)
    print_reload_json (ctl, problems);
  report_reload_problems (ctl, problems);
  return pmctl_finish_output (PMCTL_EXIT_FAILURE);
}

const PmctlCommand pmctl_command_reload = {
  "reload", "reload",
  "Re-read the configuration and re-apply it",
  "Ask the daemon to re-read its configuration files and re-apply the\n"
  "policy. Needs root or the polkit action " PP_POLKIT_ACTION_MANAGE ".\n"
  "If the configuration has problems, the valid settings are still\n"
  "applied, each problem is printed (FILE:LINE: message) and the exit\n"
  "status is 1; 'powerpolicyd --check-config' checks the configuration\n"
  "without applying it. With --json: {\"problems\": [...]} on stdout.",
  NULL, 0, 0, FALSE, run_reload,
};
