/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "powerpolicyd"

#include "config.h"

#include <malloc.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib-unix.h>
#include <gio/gio.h>
#include <systemd/sd-daemon.h>

#include "pp-config-files.h"
#include "pp-log.h"
#include "pp-manager.h"
#include "pp-names.h"
#include "pp-power-state.h"
#include "pp-profiles.h"
#include "pp-service.h"
#include "pp-token.h"

/* The daemon's components, made and connected here and nowhere else:
 * the manager (devices and policy), activity (input, lid, dock,
 * inhibitors), sleep (system sleep, lid actions; it follows activity's
 * lid), power-ops (PowerDown/PowerUp, holds, the tree), the reverts
 * of pmctl bisect, the token registry that counts the holds,
 * inhibitors and reverts of all of them against one set of limits, and
 * the service in front of them on the bus. */
typedef struct {
  GMainLoop       *loop;
  int              exit_status;
  PpManager       *manager;
  PpTokenRegistry *tokens;     /* every hold and inhibitor, one count */
  GDBusConnection *bus;
  PpActivity      *activity;
  PpSleep         *sleep;
  PpPowerOps      *power_ops;
  PpReverts       *reverts;
  PpService       *service;
  PpProfiles      *profiles;
} Daemon;

static gboolean
on_terminate (gpointer user_data)
{
  Daemon *d = user_data;

  g_info ("Terminating");
  g_main_loop_quit (d->loop);
  return G_SOURCE_CONTINUE;
}

static void
on_name_acquired (PpService *service, Daemon *d)
{
  sd_notify (0, "READY=1\nSTATUS=Applying power policy");
}

static void
on_name_lost (PpService *service, const char *message, Daemon *d)
{
  g_printerr ("powerpolicyd: %s\n", message);
  d->exit_status = EXIT_FAILURE;
  g_main_loop_quit (d->loop);
}

/* The limits on holds and inhibitors, as the configuration in force says
 * ([Daemon] MaxInhibitorsPerUser=, MaxInhibitors=). */
static void
daemon_set_token_limits (Daemon *d)
{
  const PpConfig *config = pp_manager_get_config (d->manager);

  pp_token_registry_set_limits (d->tokens, config->max_inhibitors_per_user,
                                config->max_inhibitors);
}

/* Reload and SIGHUP: re-read the configuration and the quirk database
 * and re-apply everything. Returns the configuration's problems (the
 * quirk database's are logged). */
static GPtrArray *
daemon_reload (gpointer user_data)
{
  Daemon *d = user_data;
  GPtrArray *problems = NULL;

  pp_manager_reload (d->manager, &problems);
  daemon_set_token_limits (d);
  pp_activity_reload (d->activity);
  pp_sleep_reload (d->sleep, NULL);
  if (d->profiles != NULL)
    pp_profiles_reload (d->profiles);
  return problems;
}

/* SIGHUP: like Reload (problems are logged) */
static gboolean
on_reload (gpointer user_data)
{
  g_autoptr(GPtrArray) problems = daemon_reload (user_data);

  return G_SOURCE_CONTINUE;
}

/* The tree's blocker of a device, for the sleep records. */
static char *
sleep_blocker_of (const char *syspath, gpointer user_data)
{
  PpPowerOps *power_ops = user_data;
  g_autoptr(GPtrArray) suppliers = NULL;
  g_autoptr(GPtrArray) consumers = NULL;
  const char *blocker = NULL;
  PpPowerState state;

  pp_power_state_read (syspath, PP_POWER_STATE_RUNTIME_STATUS | PP_POWER_STATE_CONTROL, &state);
  pp_power_ops_get_tree_fields (power_ops, syspath, state.control, state.runtime_status,
                                NULL, &suppliers, &consumers, &blocker);
  return g_strdup (blocker);
}

/* Make the components on the system bus and connect them. */
static gboolean
daemon_wire (Daemon *d, GError **error)
{
  d->bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, error);
  if (d->bus == NULL)
    return FALSE;
  /* losing the bus must not kill us with SIGTERM: we report and exit */
  g_dbus_connection_set_exit_on_close (d->bus, FALSE);

  /* one registry for the holds, inhibitors and reverts of every component */
  d->tokens = pp_token_registry_new ();
  daemon_set_token_limits (d);
  d->power_ops = pp_power_ops_new (d->manager, d->tokens);
  /* input activity, lid and dock: not for --oneshot */
  d->activity = pp_activity_new (d->manager, d->tokens);
  /* system sleep and lid actions: before the object is served, so that
   * Backend and VideoQuirks are known from the first call */
  d->sleep = pp_sleep_new (d->manager, d->bus, d->activity);
  pp_sleep_history_set_blocker_hook (pp_sleep_get_history (d->sleep), sleep_blocker_of, d->power_ops);
  d->reverts = pp_reverts_new (d->manager, d->tokens);
  d->service = pp_service_new (d->manager, d->activity, d->sleep, d->power_ops, d->reverts,
                               daemon_reload, d);
  g_signal_connect (d->service, "name-acquired", G_CALLBACK (on_name_acquired), d);
  g_signal_connect (d->service, "name-lost", G_CALLBACK (on_name_lost), d);
  if (!pp_service_start (d->service, d->bus, error))
    return FALSE;
  /* power-profiles-daemon's API, as [Daemon] PowerProfiles= says */
  d->profiles = pp_profiles_new (d->manager, d->tokens);
  return pp_profiles_start (d->profiles, d->bus, error);
}

static void
daemon_clear (Daemon *d)
{
  g_clear_object (&d->profiles);
  g_clear_object (&d->service);
  g_clear_pointer (&d->reverts, pp_reverts_free);
  g_clear_object (&d->power_ops);
  g_clear_object (&d->sleep);
  g_clear_object (&d->activity);
  g_clear_pointer (&d->tokens, pp_token_registry_unref);
  g_clear_object (&d->bus);
  g_clear_pointer (&d->loop, g_main_loop_unref);
}

#define VENDOR_QUIRKS_DIR PP_DATADIR "/" PP_CONFIG_DIR_NAME "/video-quirks"

/* --check-config: read what the daemon would read, print every problem,
 * touch nothing else (no bus, no /sys, no writes). */
static int
check_config (const char *config_path)
{
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PpConfig) config = pp_config_files_load (config_path, problems, &error);
  g_autoptr(GPtrArray) quirk_files = NULL;
  PpQuirkDb *db;
  guint n_problems = 0;

  if (config == NULL)
    {
      g_printerr ("powerpolicyd: %s\n", error->message);
      return EXIT_FAILURE;
    }
  quirk_files = pp_config_files_quirkdb_paths ();
  db = pp_config_files_load_quirkdb (problems);
  pp_quirkdb_free (db);

  for (guint i = 0; i < problems->len; i++)
    {
      const PpConfigProblem *p = g_ptr_array_index (problems, i);
      g_autofree char *s = pp_config_problem_to_string (p);

      /* the vendor database is pm-utils' as it was, faults included (each
       * handled as pm-utils did): shown, but not the administrator's to fix */
      if (g_str_has_prefix (p->file, VENDOR_QUIRKS_DIR "/"))
        {
          g_printerr ("note: %s\n", s);
          continue;
        }
      g_printerr ("%s\n", s);
      n_problems++;
    }
  if (n_problems > 0)
    {
      g_printerr ("powerpolicyd: %u problem%s found\n", n_problems, n_problems == 1 ? "" : "s");
      return EXIT_FAILURE;
    }
  g_print ("powerpolicyd: configuration OK (%u video quirk database file%s)\n",
           quirk_files->len, quirk_files->len == 1 ? "" : "s");
  return EXIT_SUCCESS;
}

/* --oneshot: the policy was applied once; status 1 if a write failed. */
static int
oneshot_status (PpManager *manager)
{
  guint64 failures = pp_manager_get_n_write_failures (manager);

  if (failures > 0)
    g_printerr ("powerpolicyd: %" G_GUINT64_FORMAT " attribute writes failed\n", failures);
  return failures > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Wire the components, serve on the system bus until SIGTERM/SIGINT or
 * the name is lost, then shut down. */
static int
serve (PpManager *manager)
{
  g_autoptr(GError) error = NULL;
  Daemon d = { .exit_status = EXIT_SUCCESS, .manager = manager };

  d.loop = g_main_loop_new (NULL, FALSE);
  g_unix_signal_add (SIGTERM, on_terminate, &d);
  g_unix_signal_add (SIGINT, on_terminate, &d);
  g_unix_signal_add (SIGHUP, on_reload, &d);
  if (!daemon_wire (&d, &error))
    {
      g_printerr ("powerpolicyd: cannot serve on the system bus: %s\n", error->message);
      if (d.profiles != NULL)
        pp_profiles_stop (d.profiles);
      if (d.service != NULL)
        pp_service_stop (d.service);
      pp_manager_shutdown (manager);
      daemon_clear (&d);
      return EXIT_FAILURE;
    }

  g_main_loop_run (d.loop);

  sd_notify (0, "STOPPING=1");
  pp_profiles_stop (d.profiles);
  pp_service_stop (d.service);
  pp_manager_shutdown (manager);
  daemon_clear (&d);
  return d.exit_status;
}

/* Start the manager (it applies the policy), then serve or, with
 * --oneshot, stop. */
static int
run (const PpManagerOptions *options)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PpManager) manager = pp_manager_new (options);

  if (!pp_manager_start (manager, &error))
    {
      g_printerr ("powerpolicyd: %s\n", error->message);
      return EXIT_FAILURE;
    }
  if (options->oneshot)
    return oneshot_status (manager);
  return serve (manager);
}

int
main (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *config_path = NULL;
  g_autofree char *state_dir = NULL;
  g_autofree char *runtime_dir = NULL;
  gboolean no_logind = FALSE;
  gboolean dry_run = FALSE;
  gboolean oneshot = FALSE;
  gboolean check = FALSE;
  gboolean verbose = FALSE;
  gboolean version = FALSE;
  PpManagerOptions options = { 0 };
  const GOptionEntry entries[] = {
    { "config", 'c', 0, G_OPTION_ARG_FILENAME, &config_path,
      "Read FILE instead of " PP_SYSCONFDIR "/powerpolicy/powerpolicy.conf (FILE.d/ still read)", "FILE" },
    { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &state_dir,
      "Persistent state directory (default " PP_STATEDIR ")", "DIR" },
    { "runtime-dir", 0, 0, G_OPTION_ARG_FILENAME, &runtime_dir,
      "Runtime state directory (default " PP_RUNTIMEDIR ")", "DIR" },
    { "no-logind", 0, 0, G_OPTION_ARG_NONE, &no_logind,
      "Never talk to systemd-logind", NULL },
    { "dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run,
      "Log every write, perform none", NULL },
    { "oneshot", '1', 0, G_OPTION_ARG_NONE, &oneshot,
      "Apply the policy once without D-Bus and exit (status 1 if a write failed)", NULL },
    { "check-config", 0, 0, G_OPTION_ARG_NONE, &check,
      "Check the configuration, its drop-ins and the video quirk database: print every problem as FILE:LINE, exit 1 if there is any; writes nothing", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose,
      "Print debug messages", NULL },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &version,
      "Print the version and exit", NULL },
    { NULL }
  };

  setlocale (LC_ALL, "");
  /* a fixed threshold: a big reply (ListDevices at 10,000 devices is
   * megabytes) is mapped and unmapped on its own, instead of raising
   * glibc's dynamic threshold and staying in the heap afterwards */
  mallopt (M_MMAP_THRESHOLD, 256 * 1024);

  context = g_option_context_new ("- the powerpolicy system power-policy daemon");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Applies per-class runtime power policy to every device and serves\n"
    "org.powerpolicy1 on the system bus. See powerpolicyd(8) and\n"
    "powerpolicy.conf(5).");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("powerpolicyd: %s\nTry 'powerpolicyd --help'.\n", error->message);
      return 2;
    }
  if (argc > 1)
    {
      g_printerr ("powerpolicyd: unexpected argument '%s'\nTry 'powerpolicyd --help'.\n", argv[1]);
      return 2;
    }
  if (version)
    {
      g_print ("powerpolicyd %s\n", PACKAGE_VERSION);
      return EXIT_SUCCESS;
    }
  g_log_set_writer_func (pp_log_writer, NULL, NULL);
  if (verbose)
    g_log_set_debug_enabled (TRUE);
  if (check)
    return check_config (config_path);

  options.config_path = config_path;
  options.state_dir = state_dir;
  options.runtime_dir = runtime_dir;
  options.no_logind = no_logind;
  options.dry_run = dry_run;
  options.oneshot = oneshot;
  return run (&options);
}
