/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-sleep"

#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "pp-config-files.h"
#include "pp-error.h"
#include "pp-log.h"
#include "pp-lid.h"
#include "pp-logind.h"
#include "pp-machine.h"
#include "pp-names.h"
#include "pp-quirkdb.h"
#include "pp-sleep.h"
#include "pp-sleep-history.h"
#include "pp-sysfs.h"
#include "pp-util.h"

#define ACPI_VIDEO_FLAGS      PP_PROC_ACPI_VIDEO_FLAGS
#define SYS_POWER_STATE       PP_SYSFS_POWER "/state"
#define SYS_POWER_MEM_SLEEP   PP_SYSFS_POWER "/mem_sleep"
#define SYS_POWER_DISK        PP_SYSFS_POWER "/disk"
#define HELPER_NAME           "powerpolicy-video-restore"
#define LOGIND_NAME           "org.freedesktop.login1"
#define LKW_FILE_NAME         "video-quirks-last-known-working"


typedef void (*StepDone) (PpSleep *self, gpointer data);

struct _PpSleep {
  GObject           parent_instance;
  PpManager        *manager;
  GDBusConnection  *bus;
  PpLogind         *logind;       /* NULL: kernel backend */
  guint             logind_watch_id;

  PpQuirkDb        *db;
  PpMachineFacts    facts;
  PpQuirkSelection *selection;
  char            **quirk_names;  /* of @selection */
  PpQuirkSource     used_source;  /* what the last pre-sleep phase used */
  char            **used_names;

  /* the helper */
  GSubprocess      *helper;
  guint             helper_timeout_id;
  StepDone          helper_done;
  gpointer          helper_done_data;

  gboolean          sleeping;     /* between the pre phase and resume */
  gboolean          logind_sleep; /* ... of a sleep logind announced */
  const char       *sleep_state;  /* of the last sleep: "mem", "disk", "logind" (static) */
  const char       *helper_phase; /* "suspend" or "resume" (static) */
  gboolean          resume_pending;
  const char       *requested_state; /* "mem"/"disk" asked of logind by us (static), or NULL */
  PpSleepHistory   *history;      /* a record for every sleep */

  /* lid: the lid, dock and lid-inhibitor state are PpActivity's */
  PpActivity       *activity;     /* or NULL: no lid */
  gboolean          in_holdoff;
  guint             holdoff_id;
  PpLidAction       lid_acted;    /* action taken for this closure, IGNORE: none */
  gboolean          display_off;
};

enum {
  PROP_0,
  PROP_VIDEO_QUIRKS,
  PROP_BACKEND,
  N_PROPS,
};
static GParamSpec *props[N_PROPS];

G_DEFINE_TYPE (PpSleep, pp_sleep, G_TYPE_OBJECT)

static void lid_evaluate (PpSleep *self);

static const PpManagerOptions *
options (PpSleep *self)
{
  return pp_manager_get_options (self->manager);
}

/* The manager's one dry-run switch (--dry-run or DryRun=true). */
static gboolean
dry_run (PpSleep *self)
{
  return pp_manager_get_dry_run (self->manager);
}

static const PpConfig *
config (PpSleep *self)
{
  return pp_manager_get_config (self->manager);
}

/* ---- quirks ----------------------------------------------------------- */

#define VENDOR_QUIRKS_DIR PP_DATADIR "/" PP_CONFIG_DIR_NAME "/video-quirks"

static void
load_database (PpSleep *self, GPtrArray *problem_strings)
{
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  guint n_vendor = 0;

  g_clear_pointer (&self->db, pp_quirkdb_free);
  self->db = pp_config_files_load_quirkdb (problems);
  g_debug ("Video quirk database: %u files", pp_quirkdb_get_n_files (self->db));
  for (guint i = 0; i < problems->len; i++)
    {
      const PpConfigProblem *p = g_ptr_array_index (problems, i);
      char *s = pp_config_problem_to_string (p);

      /* The shipped files are pm-utils' database as pm-utils shipped it,
       * with its broken regular expressions and stray 'endmatch' (read
       * as pm-utils read them): known, and the same on every machine,
       * so not a warning at every start (systemctl status would never be
       * clean). A problem in an administrator's file is. */
      if (p->file != NULL && g_str_has_prefix (p->file, VENDOR_QUIRKS_DIR "/"))
        {
          g_debug ("%s", s);
          n_vendor++;
        }
      else
        g_warning ("%s", s);
      if (problem_strings)
        g_ptr_array_add (problem_strings, s);
      else
        g_free (s);
    }
  if (n_vendor > 0)
    g_info ("Video quirk database: %u entries of the shipped files (as pm-utils shipped them) "
            "never match or match as pm-utils did (--verbose shows them)", n_vendor);
}

static char *
lkw_path (PpSleep *self)
{
  return g_build_filename (options (self)->state_dir, LKW_FILE_NAME, NULL);
}

static void
select_quirks (PpSleep *self)
{
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autofree char *path = lkw_path (self);
  g_autofree char *text = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  PpQuirkLkw lkw = { { 0 }, NULL };
  gboolean have_lkw = FALSE;
  g_autofree const char **names = NULL;

  if (g_file_get_contents (path, &text, NULL, NULL))
    {
      g_autoptr(GError) error = NULL;
      have_lkw = pp_quirk_lkw_from_data (&lkw, text, &error);
      if (!have_lkw)
        g_warning ("%s: %s, ignoring it", path, error->message);
    }

  pp_machine_facts_clear (&self->facts);
  pp_machine_read_facts (&self->facts);
  pp_quirk_selection_free (self->selection);
  self->selection = pp_quirkdb_select (self->db, &self->facts,
                                       (const char * const *) config (self)->sleep.video_quirks,
                                       have_lkw ? &lkw : NULL, problems);
  pp_quirk_lkw_clear (&lkw);
  for (guint i = 0; i < problems->len; i++)
    {
      g_autofree char *s = pp_config_problem_to_string (g_ptr_array_index (problems, i));
      g_warning ("%s", s);
    }

  before = self->quirk_names ? g_strjoinv (" ", self->quirk_names) : NULL;
  names = pp_quirk_selection_names (self->selection);
  g_strfreev (self->quirk_names);
  self->quirk_names = g_strdupv ((char **) names);
  after = g_strjoinv (" ", self->quirk_names);
  if (g_strcmp0 (before, after) != 0)
    {
      g_autofree char *source = g_strdup_printf ("%s: %s",
                                                 pp_quirk_source_to_string (self->selection->source),
                                                 self->selection->summary);

      pp_log_quirks_selected ((const char * const *) self->quirk_names, source);
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_VIDEO_QUIRKS]);
    }
}

static void
save_last_known_working (PpSleep *self)
{
  g_autofree char *path = lkw_path (self);
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;

  if (self->used_names == NULL)
    return;
  if (dry_run (self))
    {
      g_message ("dry-run: would save the last known working video quirks");
      return;
    }
  /* pm-utils keeps only what the database (or its default) chose */
  if (self->used_source != PP_QUIRK_SOURCE_DATABASE &&
      self->used_source != PP_QUIRK_SOURCE_DEFAULT &&
      self->used_source != PP_QUIRK_SOURCE_LAST_KNOWN_WORKING)
    return;
  data = pp_quirk_lkw_to_data (&self->facts, (const char * const *) self->used_names);
  if (g_mkdir_with_parents (options (self)->state_dir, 0755) != 0 ||
      !g_file_set_contents (path, data, -1, &error))
    g_warning ("Cannot save the last known working video quirks in %s: %s", path,
               error ? error->message : g_strerror (errno));
  else
    g_debug ("Saved the last known working video quirks in %s", path);
}

/* ---- sleep steps ------------------------------------------------------ */

static void
write_kernel_flags (PpSleep *self)
{
  guint flags = pp_quirks_acpi_video_flags ((const char * const *) self->quirk_names);
  g_autofree char *value = g_strdup_printf ("%u", flags);
  g_autoptr(GError) error = NULL;

  /* as pm-utils' 99video: written only for s3_bios/s3_mode, so flags
   * set on the kernel command line (acpi_sleep=) are left alone */
  if (flags == 0)
    return;
  if (!g_file_test (ACPI_VIDEO_FLAGS, G_FILE_TEST_EXISTS))
    {
      g_warning ("%s does not exist: s3_bios/s3_mode not applied", ACPI_VIDEO_FLAGS);
      return;
    }
  /* journalled: put back on exit and after a crash */
  if (!pp_manager_request_layer (self->manager, PP_PLAN_LAYER_SLEEP, NULL, ACPI_VIDEO_FLAGS,
                                 value, PP_MANAGER_WRITE_SETTING, &error))
    g_warning ("%s", error->message);
}

static void
helper_finished (PpSleep *self)
{
  StepDone done = self->helper_done;
  gpointer data = self->helper_done_data;

  g_clear_handle_id (&self->helper_timeout_id, g_source_remove);
  g_clear_object (&self->helper);
  self->helper_done = NULL;
  self->helper_done_data = NULL;
  if (done)
    done (self, data);
}

static void
on_helper_exited (GObject *source, GAsyncResult *res, gpointer user_data)
{
  PpSleep *self = user_data;
  GSubprocess *proc = G_SUBPROCESS (source);
  g_autoptr(GError) error = NULL;

  if (!g_subprocess_wait_finish (proc, res, &error))
    g_warning ("Waiting for the video restore helper: %s", error->message);
  else if (self->helper != proc)
    g_debug ("The video restore helper killed at the timeout is gone");
  else if (g_subprocess_get_if_exited (proc) && g_subprocess_get_exit_status (proc) != 0)
    g_warning ("The video restore helper exited with status %d", g_subprocess_get_exit_status (proc));
  else if (g_subprocess_get_if_signaled (proc))
    g_warning ("The video restore helper died of signal %d", g_subprocess_get_term_sig (proc));

  if (self->helper == proc)
    helper_finished (self);
  g_object_unref (self);
}

/* SIGKILL the helper's whole process group (it leads one, see
 * helper_child_setup): tools it started die with it. Only while the
 * helper is not yet reaped, so the group id cannot have been reused. */
static void
kill_helper (GSubprocess *helper)
{
  const char *id = g_subprocess_get_identifier (helper);
  gint64 pid = id ? g_ascii_strtoll (id, NULL, 10) : 0;

  if (pid > 1 && kill (-(pid_t) pid, SIGKILL) == 0)
    return;
  g_subprocess_force_exit (helper);
}

static char *helper_path (PpSleep *self);

static gboolean
on_helper_timeout (gpointer user_data)
{
  PpSleep *self = user_data;

  self->helper_timeout_id = 0;
  if (self->helper != NULL)
    {
      const char *id = g_subprocess_get_identifier (self->helper);
      g_autofree char *path = helper_path (self);

      pp_log_helper_killed (path, self->helper_phase, id ? g_ascii_strtoll (id, NULL, 10) : 0,
                            config (self)->sleep.quirk_timeout_sec);
      kill_helper (self->helper);
      /* the bound holds even for a helper that does not die at once
       * (uninterruptible sleep in a driver): go on now, reap it later */
      helper_finished (self);
    }
  return G_SOURCE_REMOVE;
}

static void
helper_child_setup (gpointer user_data)
{
  /* its own process group, so that a timeout kills what it started */
  setpgid (0, 0);
}

static char *
helper_path (PpSleep *self)
{
  const char *configured = config (self)->sleep.quirk_helper;

  if (configured != NULL && *configured != '\0')
    return g_strdup (configured);
  return g_build_filename (PP_LIBEXECDIR, HELPER_NAME, NULL);
}

/* Run the helper for @phase with the quirks in force; @done runs when it
 * exits or, at the latest, QuirkTimeoutSec later (the helper is killed). */
static void
run_helper (PpSleep *self, const char *phase, StepDone done, gpointer data)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *state = NULL;
  guint timeout = config (self)->sleep.quirk_timeout_sec;

  g_return_if_fail (self->helper == NULL);

  if (dry_run (self))
    {
      g_message ("dry-run: would run the video restore helper for %s", phase);
      done (self, data);
      return;
    }

  g_ptr_array_add (argv, helper_path (self));
  g_ptr_array_add (argv, g_strdup (phase));
  for (guint i = 0; self->quirk_names && self->quirk_names[i]; i++)
    g_ptr_array_add (argv, g_strdup (self->quirk_names[i]));
  g_ptr_array_add (argv, NULL);

  state = g_build_filename (options (self)->runtime_dir, "video-restore", NULL);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_set_child_setup (launcher, helper_child_setup, NULL, NULL);
  g_subprocess_launcher_setenv (launcher, "POWERPOLICY_VIDEO_RESTORE_STATE", state, TRUE);

  self->helper = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  if (self->helper == NULL)
    {
      g_warning ("Cannot run the video restore helper %s: %s",
                 (char *) g_ptr_array_index (argv, 0), error->message);
      done (self, data);
      return;
    }
  g_debug ("Running %s %s", (char *) g_ptr_array_index (argv, 0), phase);
  self->helper_phase = phase;
  self->helper_done = done;
  self->helper_done_data = data;
  self->helper_timeout_id = g_timeout_add (MAX (timeout, 1) * 1000, on_helper_timeout, self);
  g_subprocess_wait_async (self->helper, NULL, on_helper_exited, g_object_ref (self));
}

static void
start_holdoff (PpSleep *self);

static void resume_logind (PpSleep *self);

static void
pre_done_logind (PpSleep *self, gpointer data)
{
  /* as close to the sleep as the daemon gets: logind sleeps once the
   * delay inhibitor is gone (unless the sleep is already over) */
  if (!self->resume_pending)
    pp_sleep_history_refresh (self->history);
  if (self->logind)
    pp_logind_release_sleep_delay (self->logind);
  g_info ("Ready for sleep: delay inhibitor released");
  if (self->resume_pending)
    {
      self->resume_pending = FALSE;
      resume_logind (self);
    }
}

/* Everything before sleep: the sleep layer (AHCI runtime PM on, PCIe
 * ASPM policy default, TLP 1.6's fix for resume freezes), kernel flags
 * and the helper's save phase; the delay inhibitor goes (or the kernel
 * path writes /sys/power/state) only after all of them. */
static void
pre_sleep (PpSleep *self, StepDone done, gpointer data)
{
  g_autoptr(GError) error = NULL;

  self->sleeping = TRUE;
  if (!pp_manager_set_before_sleep (self->manager, TRUE, &error))
    g_warning ("Before sleep: %s", error->message);
  select_quirks (self);
  /* what this sleep uses, for last-known-working */
  self->used_source = self->selection->source;
  g_strfreev (self->used_names);
  self->used_names = g_strdupv (self->quirk_names);
  write_kernel_flags (self);
  run_helper (self, "suspend", done, data);
}

static void
post_resume_done (PpSleep *self, gpointer data)
{
  g_autoptr(GError) error = NULL;

  pp_log_sleep (TRUE, self->sleep_state);
  if (!pp_manager_set_before_sleep (self->manager, FALSE, &error))
    g_warning ("After resume: %s", error->message);
  pp_manager_reapply (self->manager);
  save_last_known_working (self);
  self->sleeping = FALSE;
  self->logind_sleep = FALSE;
  /* a lid still closed acts again once the holdoff is over, as logind */
  self->lid_acted = PP_LID_ACTION_IGNORE;
  start_holdoff (self);
}

static void
resume_done_logind (PpSleep *self, gpointer data)
{
  post_resume_done (self, data);
  if (self->logind)
    pp_logind_take_sleep_delay (self->logind);
}

static void
resume_logind (PpSleep *self)
{
  run_helper (self, "resume", resume_done_logind, NULL);
}

static void
on_prepare_for_sleep (PpLogind *logind, gboolean start, PpSleep *self)
{
  if (start)
    {
      if (self->helper != NULL || self->sleeping)
        {
          g_debug ("PrepareForSleep(true) while a sleep is in progress: nothing to do");
          return;
        }
      self->sleep_state = "logind";
      pp_log_sleep (FALSE, self->sleep_state);
      self->logind_sleep = TRUE;
      pp_sleep_history_begin (self->history, self->requested_state);
      pre_sleep (self, pre_done_logind, NULL);
      return;
    }
  self->logind_sleep = FALSE;
  /* the snapshot after the sleep: before the resume steps change anything */
  pp_sleep_history_end (self->history, NULL);
  self->requested_state = NULL;
  if (self->helper != NULL)
    {
      /* the pre phase still runs (bounded): resume right after it */
      self->resume_pending = TRUE;
      return;
    }
  resume_logind (self);
}

/* ---- the kernel path -------------------------------------------------- */

typedef struct {
  char     *state;
  GError   *error;      /* the write to /sys/power/state failed */
} KernelSleep;

static void
kernel_sleep_free (KernelSleep *k)
{
  g_free (k->state);
  g_clear_error (&k->error);
  g_free (k);
}

static gboolean
state_supported (const char *state, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autofree char *states = pp_sysfs_read (SYS_POWER_STATE, &local);
  g_auto(GStrv) words = NULL;

  if (states == NULL)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                   "%s cannot be read: %s", SYS_POWER_STATE, local->message);
      return FALSE;
    }
  words = g_strsplit_set (states, " \t\n", -1);
  if (!g_strv_contains ((const char * const *) words, state))
    {
      g_set_error (error, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                   "the kernel does not offer '%s' in %s (it offers: %s)",
                   state, SYS_POWER_STATE, states);
      return FALSE;
    }
  return TRUE;
}

/* mem_sleep and disk are settings (journalled, put back on exit);
 * state is the action itself. All through the manager's dry-run gate. */
static gboolean
write_power (PpSleep *self, const char *path, const char *value, GError **error)
{
  PpManagerWriteFlags flags = g_str_equal (path, SYS_POWER_STATE) ? PP_MANAGER_WRITE_ACTION
                                                                  : PP_MANAGER_WRITE_CHOICE;

  return pp_manager_request_layer (self->manager, PP_PLAN_LAYER_SLEEP, NULL, path, value, flags,
                                   error);
}

static void
kernel_resume_done (PpSleep *self, gpointer data)
{
  GTask *task = data;
  KernelSleep *k = g_task_get_task_data (task);

  post_resume_done (self, NULL);
  if (k->error != NULL)
    g_task_return_error (task, g_steal_pointer (&k->error));
  else
    g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static void
kernel_pre_done (PpSleep *self, gpointer data)
{
  GTask *task = data;
  KernelSleep *k = g_task_get_task_data (task);

  /* on real hardware this write returns after resume; a failure still
   * runs the resume phase, which undoes the pre phase */
  pp_sleep_history_refresh (self->history);
  if (!write_power (self, SYS_POWER_STATE, k->state, &k->error))
    g_warning ("Sleep failed: %s", k->error->message);
  pp_sleep_history_end (self->history, k->error != NULL ? k->error->message : NULL);
  run_helper (self, "resume", kernel_resume_done, task);
}

static void
kernel_sleep (PpSleep *self, GTask *task, const char *state)
{
  const PpSituation *situation = pp_manager_get_situation (self->manager);
  const char *mem_layer = NULL, *disk_layer = NULL;
  /* [Sleep], or [Sleep:battery] / [Sleep:low-battery] for the power
   * source now */
  const char *mem_sleep = pp_policy_sleep_mode (config (self), situation, FALSE, &mem_layer);
  const char *hibernate_mode = pp_policy_sleep_mode (config (self), situation, TRUE, &disk_layer);
  g_autofree char *original_mem = NULL;
  g_autofree char *original_disk = NULL;
  g_autoptr(GError) error = NULL;
  KernelSleep *k;

  /* "auto" is the kernel's choice: what was there before the daemon
   * wrote another layer's value (on battery, then on AC again) */
  if (g_strcmp0 (mem_sleep, "auto") == 0)
    mem_sleep = original_mem = g_strdup (pp_manager_lookup_original (self->manager, SYS_POWER_MEM_SLEEP));
  if (g_strcmp0 (hibernate_mode, "auto") == 0)
    hibernate_mode = original_disk = g_strdup (pp_manager_lookup_original (self->manager, SYS_POWER_DISK));

  if (!state_supported (state, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  if (self->sleeping || self->helper != NULL)
    {
      g_task_return_new_error (task, PP_ERROR, PP_ERROR_REFUSED, "a sleep is already in progress");
      g_object_unref (task);
      return;
    }
  if (g_str_equal (state, "mem") && mem_sleep && !g_str_equal (mem_sleep, "auto"))
    {
      g_debug ("MemSleep=%s from [%s]", mem_sleep, mem_layer);
      if (!write_power (self, SYS_POWER_MEM_SLEEP, mem_sleep, &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          g_object_unref (task);
          return;
        }
    }
  if (g_str_equal (state, "disk") && hibernate_mode && !g_str_equal (hibernate_mode, "auto"))
    {
      g_debug ("HibernateMode=%s from [%s]", hibernate_mode, disk_layer);
      if (!write_power (self, SYS_POWER_DISK, hibernate_mode, &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          g_object_unref (task);
          return;
        }
    }
  k = g_new0 (KernelSleep, 1);
  k->state = g_strdup (state);
  g_task_set_task_data (task, k, (GDestroyNotify) kernel_sleep_free);
  self->sleep_state = g_str_equal (state, "disk") ? "disk" : "mem";
  pp_log_sleep (FALSE, self->sleep_state);
  /* under dry-run no sleep happens: nothing to record */
  if (!dry_run (self))
    pp_sleep_history_begin (self->history, self->sleep_state);
  pre_sleep (self, kernel_pre_done, task);
}

static void
on_logind_sleep_reply (GObject *source, GAsyncResult *res, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (!pp_logind_call_finish (PP_LOGIND (source), res, &error))
    {
      PP_SLEEP (g_task_get_source_object (task))->requested_state = NULL;
      g_task_return_error (task, error);
    }
  else
    g_task_return_boolean (task, TRUE);
}

void
pp_sleep_sleep_async (PpSleep            *self,
                      const char         *state,
                      gboolean            interactive,
                      GAsyncReadyCallback callback,
                      gpointer            user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);

  if (self->logind != NULL)
    {
      /* what the PrepareForSleep that follows is, for its record */
      self->requested_state = g_str_equal (state, "disk") ? "disk" : "mem";
      pp_logind_call (self->logind, g_str_equal (state, "disk") ? "Hibernate" : "Suspend",
                      interactive, on_logind_sleep_reply, task);
      return;
    }
  kernel_sleep (self, task, state);
}

gboolean
pp_sleep_sleep_finish (PpSleep *self, GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- lid -------------------------------------------------------------- */

static gboolean
on_holdoff_over (gpointer user_data)
{
  PpSleep *self = user_data;

  self->holdoff_id = 0;
  self->in_holdoff = FALSE;
  g_debug ("Lid holdoff over");
  lid_evaluate (self);
  return G_SOURCE_REMOVE;
}

static void
start_holdoff (PpSleep *self)
{
  guint sec = config (self)->lid.holdoff_sec;

  g_clear_handle_id (&self->holdoff_id, g_source_remove);
  self->in_holdoff = sec > 0;
  if (sec > 0)
    self->holdoff_id = g_timeout_add_seconds (sec, on_holdoff_over, self);
  lid_evaluate (self);
}

/* The internal panel: the backlight of type firmware, else platform,
 * else raw (as desktops choose it). */
static char *
internal_backlight (void)
{
  static const char * const types[] = { "firmware", "platform", "raw" };
  g_autoptr(GPtrArray) names = pp_list_dir_sorted ("/sys/class/backlight", NULL);

  if (names == NULL)
    return NULL;
  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    for (guint i = 0; i < names->len; i++)
      {
        g_autofree char *link = g_build_filename ("/sys/class/backlight", g_ptr_array_index (names, i), NULL);
        g_autofree char *type = g_build_filename (link, "type", NULL);
        g_autofree char *value = pp_sysfs_read (type, NULL);

        if (g_strcmp0 (value, types[t]) == 0)
          {
            char *real = realpath (link, NULL);
            if (real != NULL)
              return real;
          }
      }
  return NULL;
}

static void
set_display_off (PpSleep *self, gboolean off)
{
  g_autofree char *bl = NULL;
  g_autofree char *attr = NULL;
  g_autoptr(GError) error = NULL;

  if (self->display_off == off)
    return;
  self->display_off = off;
  bl = internal_backlight ();
  if (bl == NULL)
    {
      g_info ("Lid: no internal panel backlight to turn %s", off ? "off" : "on");
      return;
    }
  attr = g_build_filename (bl, "bl_power", NULL);
  /* FB_BLANK_POWERDOWN / FB_BLANK_UNBLANK; journalled, so that a crash
   * with the lid closed leaves no panel off after the restart. The panel
   * off is the lid layer's standing request (no policy pass turns it on
   * again); opening the lid ends it */
  if (!(off ? pp_manager_request_layer : pp_manager_end_layer) (self->manager, PP_PLAN_LAYER_LID,
                                                                NULL, attr, off ? "4" : "0",
                                                                PP_MANAGER_WRITE_SETTING, &error))
    g_warning ("Lid: %s", error->message);
  else if (!dry_run (self))
    g_info ("Lid: internal panel %s", off ? "off" : "on");
}

static void
on_lid_action_reply (GObject *source, GAsyncResult *res, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  const char *what = user_data;

  if (PP_IS_LOGIND (source))
    {
      if (!pp_logind_call_finish (PP_LOGIND (source), res, &error))
        g_warning ("Lid: logind %s failed: %s", what, error->message);
    }
  else if (!pp_sleep_sleep_finish (PP_SLEEP (source), res, &error))
    g_warning ("Lid: %s failed: %s", what, error->message);
}

static void
lid_run_action (PpSleep *self, PpLidAction action)
{
  const char *method = NULL;

  switch (action)
    {
    case PP_LID_ACTION_SUSPEND:
      method = "Suspend";
      break;
    case PP_LID_ACTION_HIBERNATE:
      method = "Hibernate";
      break;
    case PP_LID_ACTION_HYBRID_SLEEP:
      method = "HybridSleep";
      break;
    case PP_LID_ACTION_SUSPEND_THEN_HIBERNATE:
      method = "SuspendThenHibernate";
      break;
    case PP_LID_ACTION_LOCK:
      method = "LockSessions";
      break;
    case PP_LID_ACTION_POWER_OFF_DISPLAY:
    case PP_LID_ACTION_IGNORE:
    default:
      return;
    }

  g_info ("Lid closed: %s", pp_lid_action_to_string (action));
  if (self->logind != NULL)
    {
      pp_logind_call (self->logind, method, FALSE, on_lid_action_reply, (gpointer) method);
      return;
    }
  if (action == PP_LID_ACTION_LOCK)
    {
      g_warning ("Lid: locking the sessions needs logind, doing nothing");
      return;
    }
  if (action != PP_LID_ACTION_SUSPEND && action != PP_LID_ACTION_HIBERNATE)
    g_warning ("Lid: %s needs logind, suspending instead", pp_lid_action_to_string (action));
  pp_sleep_sleep_async (self, action == PP_LID_ACTION_HIBERNATE ? "disk" : "mem", FALSE,
                        on_lid_action_reply, (gpointer) pp_lid_action_to_string (action));
}

static void
lid_evaluate (PpSleep *self)
{
  const PpLidConfig *lc = &config (self)->lid;
  PpActivity *activity = self->activity;
  PpLidSituation s = {
    .closed = activity != NULL && pp_activity_get_lid_closed (activity),
    .on_ac = !pp_manager_get_on_battery (self->manager),
    .docked = activity != NULL && pp_activity_get_docked (activity),
    .lid_inhibited = activity != NULL && pp_activity_get_lid_inhibited (activity),
    .in_holdoff = self->in_holdoff,
  };
  PpLidAction action;

  if (self->logind != NULL)
    pp_logind_set_lid_block (self->logind, lc->handle_lid);

  action = pp_lid_decide (lc, &s);
  set_display_off (self, pp_lid_display_off (lc, &s));
  if (!s.closed)
    {
      self->lid_acted = PP_LID_ACTION_IGNORE;
      return;
    }
  if (action == PP_LID_ACTION_IGNORE || action == PP_LID_ACTION_POWER_OFF_DISPLAY)
    return;
  /* once per closure and action; a resume re-arms it */
  if (action == self->lid_acted || self->sleeping)
    return;
  self->lid_acted = action;
  lid_run_action (self, action);
}

/* PpActivity's lid, dock or lid inhibitor changed. */
static void
on_lid_state_changed (PpActivity *activity, GParamSpec *pspec, PpSleep *self)
{
  g_debug ("Lid %s, %sdocked, lid inhibitor %s",
           pp_activity_get_lid_closed (activity) ? "closed" : "open",
           pp_activity_get_docked (activity) ? "" : "not ",
           pp_activity_get_lid_inhibited (activity) ? "held" : "not held");
  lid_evaluate (self);
}

static void
on_on_battery_changed (PpManager *manager, GParamSpec *pspec, PpSleep *self)
{
  lid_evaluate (self);
}

/* ---- logind coming and going ------------------------------------------ */

/* Backend changed: the manager answers Get, and PropertiesChanged is
 * emitted here (pp-service.c does not watch "notify::backend"). */
static void
backend_changed (PpSleep *self)
{
  const char *backend = pp_sleep_get_backend (self);

  g_info ("Sleep backend: %s", backend);
  pp_manager_set_backend (self->manager, backend);
  /* the service turns this into PropertiesChanged */
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BACKEND]);
}

/* Talk to @logind (takes the reference): the sleep delay inhibitor, and
 * the lid-switch block inhibitor with HandleLid=true. */
static void
logind_attach (PpSleep *self, PpLogind *logind)
{
  self->logind = logind;
  g_signal_connect (logind, "prepare-for-sleep", G_CALLBACK (on_prepare_for_sleep), self);
  pp_logind_take_sleep_delay (logind);
  pp_logind_set_lid_block (logind, config (self)->lid.handle_lid);
}

static void
on_logind_appeared (GDBusConnection *bus, const char *name, const char *owner, gpointer user_data)
{
  PpSleep *self = PP_SLEEP (user_data);

  if (self->logind != NULL)
    return;
  g_info ("logind appeared on the system bus (%s)", owner);
  logind_attach (self, pp_logind_new_present (bus));
  backend_changed (self);
}

static void
on_logind_vanished (GDBusConnection *bus, const char *name, gpointer user_data)
{
  PpSleep *self = PP_SLEEP (user_data);

  if (self->logind == NULL)
    return;
  g_info ("logind left the system bus: system sleep through the kernel");
  /* closes the inhibitor fds */
  g_signal_handlers_disconnect_by_data (self->logind, self);
  g_clear_object (&self->logind);
  backend_changed (self);

  /* logind announced a sleep and will never announce the resume: undo
   * the pre phase now (right after it, when it still runs) */
  if (self->logind_sleep)
    {
      pp_sleep_history_end (self->history, NULL);
      self->requested_state = NULL;
      if (self->helper != NULL)
        self->resume_pending = TRUE;
      else
        resume_logind (self);
    }
}

/* ---- public ----------------------------------------------------------- */

void
pp_sleep_reload (PpSleep *self, GPtrArray *problems)
{
  load_database (self, problems);
  select_quirks (self);
  lid_evaluate (self);
}

const char *
pp_sleep_get_backend (PpSleep *self)
{
  return self->logind != NULL ? "logind" : "kernel";
}

const char * const *
pp_sleep_get_video_quirks (PpSleep *self)
{
  static const char * const empty[] = { NULL };

  return self->quirk_names ? (const char * const *) self->quirk_names : empty;
}

const PpQuirkSelection *
pp_sleep_get_quirk_selection (PpSleep *self)
{
  return self->selection;
}

PpSleepHistory *
pp_sleep_get_history (PpSleep *self)
{
  return self->history;
}

PpSleep *
pp_sleep_new (PpManager *manager, GDBusConnection *bus, PpActivity *activity)
{
  PpSleep *self = g_object_new (PP_TYPE_SLEEP, NULL);

  self->manager = g_object_ref (manager);
  self->bus = bus ? g_object_ref (bus) : NULL;
  self->activity = activity ? g_object_ref (activity) : NULL;
  self->history = pp_sleep_history_new (manager);
  pp_machine_facts_init (&self->facts);

  load_database (self, NULL);
  select_quirks (self);

  if (bus != NULL && !options (self)->no_logind)
    {
      g_autoptr(GError) error = NULL;
      PpLogind *logind = pp_logind_new (bus, &error);

      /* known at once, so that Backend is right from the first call;
       * the watch then follows logind coming and going */
      if (logind != NULL)
        logind_attach (self, logind);
      else
        g_info ("No logind (%s): system sleep through the kernel", error->message);
      self->logind_watch_id = g_bus_watch_name_on_connection (bus, LOGIND_NAME,
                                                              G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                              on_logind_appeared,
                                                              on_logind_vanished,
                                                              self, NULL);
    }
  pp_manager_set_backend (manager, pp_sleep_get_backend (self));
  g_info ("Sleep backend: %s", pp_sleep_get_backend (self));

  g_signal_connect (manager, "notify::on-battery", G_CALLBACK (on_on_battery_changed), self);
  if (activity != NULL)
    {
      g_signal_connect (activity, "notify::lid-closed", G_CALLBACK (on_lid_state_changed), self);
      g_signal_connect (activity, "notify::docked", G_CALLBACK (on_lid_state_changed), self);
      g_signal_connect (activity, "notify::lid-inhibited", G_CALLBACK (on_lid_state_changed), self);
    }
  start_holdoff (self);
  return self;
}

static void
pp_sleep_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  PpSleep *self = PP_SLEEP (object);

  switch (prop_id)
    {
    case PROP_VIDEO_QUIRKS:
      g_value_set_boxed (value, pp_sleep_get_video_quirks (self));
      break;
    case PROP_BACKEND:
      g_value_set_string (value, pp_sleep_get_backend (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pp_sleep_dispose (GObject *object)
{
  PpSleep *self = PP_SLEEP (object);

  if (self->helper != NULL)
    {
      kill_helper (self->helper);
      g_clear_object (&self->helper);
    }
  g_clear_handle_id (&self->helper_timeout_id, g_source_remove);
  g_clear_handle_id (&self->holdoff_id, g_source_remove);
  if (self->logind_watch_id != 0)
    {
      g_bus_unwatch_name (self->logind_watch_id);
      self->logind_watch_id = 0;
    }
  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);
  if (self->logind != NULL)
    g_signal_handlers_disconnect_by_data (self->logind, self);
  if (self->activity != NULL)
    g_signal_handlers_disconnect_by_data (self->activity, self);
  g_clear_object (&self->activity);
  g_clear_object (&self->logind);
  g_clear_object (&self->history);
  g_clear_object (&self->manager);
  g_clear_object (&self->bus);
  G_OBJECT_CLASS (pp_sleep_parent_class)->dispose (object);
}

static void
pp_sleep_finalize (GObject *object)
{
  PpSleep *self = PP_SLEEP (object);

  pp_quirkdb_free (self->db);
  pp_quirk_selection_free (self->selection);
  g_strfreev (self->used_names);
  g_strfreev (self->quirk_names);
  pp_machine_facts_clear (&self->facts);
  G_OBJECT_CLASS (pp_sleep_parent_class)->finalize (object);
}

static void
pp_sleep_class_init (PpSleepClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = pp_sleep_get_property;
  object_class->dispose = pp_sleep_dispose;
  object_class->finalize = pp_sleep_finalize;

  props[PROP_VIDEO_QUIRKS] =
    g_param_spec_boxed ("video-quirks", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  props[PROP_BACKEND] =
    g_param_spec_string ("backend", NULL, NULL, "kernel",
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
pp_sleep_init (PpSleep *self)
{
  self->lid_acted = PP_LID_ACTION_IGNORE;
}
