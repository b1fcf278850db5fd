/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl suspend, pmctl hibernate: system sleep; pmctl quirks: the video
 * quirks used around it and why. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pp-names.h"

/* ---- suspend / hibernate ------------------------------------------------------ */

typedef gboolean (*SleepCall) (PpDbusManager *proxy,
                               gboolean       interactive,
                               GCancellable  *cancellable,
                               GError       **error);

static int
run_sleep (Pmctl *ctl, SleepCall call, const char *what)
{
  g_autoptr(GError) error = NULL;
  /* polkit may ask for a password only when someone can type it */
  gboolean interactive = isatty (STDIN_FILENO);

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return PMCTL_EXIT_FAILURE;
  /* without logind the call returns after resume */
  pmctl_set_timeout (ctl, PMCTL_SLEEP_TIMEOUT_MS);
  if (!call (ctl->manager, interactive, NULL, &error))
    {
      pmctl_report_error (error, what, NULL);
      return PMCTL_EXIT_FAILURE;
    }
  return PMCTL_EXIT_OK;
}

static int
run_suspend (Pmctl *ctl, char **args, char **command_argv)
{
  return run_sleep (ctl, pp_dbus_manager_call_suspend_sync, "suspend the system");
}

static int
run_hibernate (Pmctl *ctl, char **args, char **command_argv)
{
  return run_sleep (ctl, pp_dbus_manager_call_hibernate_sync, "hibernate the system");
}

const PmctlCommand pmctl_command_suspend = {
  "suspend", "suspend",
  "Suspend the system (to RAM)",
  "Ask the daemon to suspend the system, through systemd-logind when it is\n"
  "running, else by the kernel. Needs root or the polkit action\n"
  PP_POLKIT_ACTION_SLEEP " (polkit may ask for a password when stdin is a\n"
  "terminal).",
  NULL, 0, 0, FALSE, run_suspend,
};

const PmctlCommand pmctl_command_hibernate = {
  "hibernate", "hibernate",
  "Hibernate the system (suspend to disk)",
  "Ask the daemon to hibernate the system, through systemd-logind when it\n"
  "is running, else by the kernel. Needs root or the polkit action\n"
  PP_POLKIT_ACTION_SLEEP " (polkit may ask for a password when stdin is a\n"
  "terminal).",
  NULL, 0, 0, FALSE, run_hibernate,
};

/* ---- quirks ------------------------------------------------------------------- */

static void
print_quirks_json (Pmctl *ctl, const char * const *quirks, GVariant *sources)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  const char *quirk, *source, *detail;
  GVariantIter iter;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "quirks");
  json_builder_begin_array (b);
  for (guint i = 0; quirks && quirks[i]; i++)
    json_builder_add_string_value (b, quirks[i]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "sources");
  json_builder_begin_array (b);
  g_variant_iter_init (&iter, sources);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &quirk, &source, &detail))
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "quirk");
      json_builder_add_string_value (b, quirk);
      json_builder_set_member_name (b, "source");
      json_builder_add_string_value (b, source);
      json_builder_set_member_name (b, "detail");
      json_builder_add_string_value (b, detail);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  pmctl_json_print_builder (ctl, b);
}

static void
print_quirks_text (Pmctl *ctl, GVariant *sources)
{
  static const char * const header[] = { "QUIRK", "SOURCE", "DETAIL", NULL };
  g_autoptr(PmctlTable) t = pmctl_table_new (3);
  const char *quirk, *source, *detail;
  GVariantIter iter;

  g_variant_iter_init (&iter, sources);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &quirk, &source, &detail))
    pmctl_table_add_row (t, g_strdup (quirk), g_strdup (*source ? source : "-"),
                         g_strdup (*detail ? detail : "-"));
  if (pmctl_table_n_rows (t) > 0)
    pmctl_table_print (t, ctl, header);
  else if (ctl->tty)
    printf ("No video quirks.\n");
}

static int
run_quirks (Pmctl *ctl, char **args, char **command_argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) sources = NULL;

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_NONE))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_get_video_quirks_sync (ctl->manager, &sources, NULL, &error))
    {
      pmctl_report_error (error, "read the video quirks", NULL);
      return PMCTL_EXIT_FAILURE;
    }
  if (ctl->json)
    print_quirks_json (ctl, pp_dbus_manager_get_video_quirks (ctl->manager), sources);
  else
    print_quirks_text (ctl, sources);
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_quirks = {
  "quirks", "quirks",
  "Show the video quirks in force for this machine and why",
  "Print the video quirks the daemon uses around system sleep, one per\n"
  "line, with where each comes from (quirk database file and entry, a\n"
  "driver rule, the default set, the configuration, or last-known-working).",
  NULL, 0, 0, FALSE, run_quirks,
};
