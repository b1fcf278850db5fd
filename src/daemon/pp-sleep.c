/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-sleep"

#include "config.h"

#include <string.h>

#include "pp-enums.h"
#include "pp-error.h"
#include "pp-log.h"
#include "pp-lid-actions.h"
#include "pp-logind.h"
#include "pp-names.h"
#include "pp-quirk-helper.h"
#include "pp-sleep.h"
#include "pp-video-quirks.h"
#include "pp-sleep-history.h"
#include "pp-sysfs.h"
#include "pp-util.h"

#define SYS_POWER_STATE       PP_SYSFS_POWER "/state"
#define SYS_POWER_MEM_SLEEP   PP_SYSFS_POWER "/mem_sleep"
#define SYS_POWER_DISK        PP_SYSFS_POWER "/disk"
#define LOGIND_NAME           "org.freedesktop.login1"
/* a preparation this long: the sleep record's counters read again */
#define REFRESH_AFTER_MS      500


typedef void (*StepDone) (gpointer owner, gpointer data);

struct _PpSleep {
  GObject           parent_instance;
  PpManager        *manager;
  GDBusConnection  *bus;
  PpLogind         *logind;       /* NULL: kernel backend */
  guint             logind_watch_id;

  PpVideoQuirks    *quirks;
  PpQuirkHelper    *helper;
  PpLidActions     *lid;

  gboolean          sleeping;     /* between the pre phase and resume */
  gboolean          logind_sleep; /* ... of a sleep logind announced */
  const char       *sleep_state;  /* of the last sleep: "mem", "disk", "logind" (static) */
  gboolean          resume_pending;
  const char       *full_pass_after; /* a full policy pass after this sleep, from: "disk",
                                      * "unknown" (static); NULL: no */
  gint64            pre_start_us;   /* when the pre phase began (monotonic) */
  gboolean          policy_resumed; /* the sleep layer undone for this resume */
  const char       *requested_state; /* "mem"/"disk" asked of logind by us (static), or NULL */
  gboolean          hibernation_asked; /* the lid asked logind for a sleep that may
                                        * hibernate (hybrid, suspend-then-hibernate) */
  PpSleepHistory   *history;      /* a record for every sleep */
};

enum {
  PROP_0,
  PROP_VIDEO_QUIRKS,
  PROP_BACKEND,
  N_PROPS,
};
static GParamSpec *props[N_PROPS];

G_DEFINE_TYPE (PpSleep, pp_sleep, G_TYPE_OBJECT)

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

/* The quirks selected again; "video-quirks" notified when they changed. */
static void
select_quirks (PpSleep *self)
{
  if (pp_video_quirks_select (self->quirks))
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_VIDEO_QUIRKS]);
}

/* The helper's @phase with the quirks in force; @done (@self, @data) runs
 * when it is over, at the latest after QuirkTimeoutSec. */
static void
run_helper (PpSleep *self, const char *phase, StepDone done, gpointer data)
{
  pp_quirk_helper_run (self->helper, phase, pp_video_quirks_get_names (self->quirks), done, self,
                       data);
}

/* ---- sleep steps ------------------------------------------------------ */

static void resume_logind (PpSleep *self);

static double
ms_since (gint64 start_us)
{
  return (double) (g_get_monotonic_time () - start_us) / 1000.0;
}

static void
pre_done_logind (gpointer owner, gpointer data)
{
  PpSleep *self = owner;
  /* as close to the sleep as the daemon gets: logind sleeps once the
   * delay inhibitor is gone (unless the sleep is already over) */
  gint64 t0 = g_get_monotonic_time ();

  /* the snapshot of the sleep's beginning is a few ms old, unless the
   * helper's suspend phase ran: its counters read again then (not on
   * the way to the release otherwise) */
  if (!self->resume_pending && ms_since (self->pre_start_us) >= REFRESH_AFTER_MS)
    {
      pp_sleep_history_refresh (self->history);
      g_debug ("Before sleep: record again %.1f ms", ms_since (t0));
    }
  if (self->logind)
    pp_logind_release_sleep_delay (self->logind);
  g_info ("Ready for sleep after %.1f ms: delay inhibitor released", ms_since (self->pre_start_us));
  /* not on the way to the release: the tree may have to be read first */
  if (!self->resume_pending)
    pp_sleep_history_explain_awake (self->history);
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
  gint64 t0 = g_get_monotonic_time (), t1, t2;

  self->sleeping = TRUE;
  pp_lid_actions_set_sleeping (self->lid);
  if (!pp_manager_set_before_sleep (self->manager, TRUE, &error))
    g_warning ("Before sleep: %s", error->message);
  t1 = g_get_monotonic_time ();
  select_quirks (self);
  pp_video_quirks_begin_sleep (self->quirks);
  t2 = g_get_monotonic_time ();
  g_debug ("Before sleep: record %.1f ms, sleep layer %.1f ms, quirks %.1f ms",
           (double) (t0 - self->pre_start_us) / 1000.0, (double) (t1 - t0) / 1000.0,
           (double) (t2 - t1) / 1000.0);
  run_helper (self, "suspend", done, data);
}

/* The policy back after resume, first thing (before the helper's resume
 * phase): the sleep layer's writes undone (AHCI runtime PM, the PCIe ASPM
 * policy), nothing else. What the kernel keeps across a suspend it keeps:
 * every attribute the daemon writes is the kernel's own setting, in
 * memory; a device re-enumerated or whose driver was bound again on
 * resume comes as a uevent and gets its policy then (pp-manager.c). */
static void
resume_policy (PpSleep *self)
{
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  if (self->policy_resumed)
    return;
  self->policy_resumed = TRUE;
  pp_log_sleep (TRUE, self->sleep_state);
  if (!pp_manager_set_before_sleep (self->manager, FALSE, &error))
    g_warning ("After resume: %s", error->message);
  g_debug ("After resume: the sleep layer undone in %.1f ms", ms_since (start));
}

/* After hibernation the machine was off: firmware and a boot kernel
 * initialised the hardware before the image came back, and a driver
 * that does not restore everything from memory leaves it at the
 * firmware's value; resuming from disk takes seconds anyway, so the
 * daemon re-applies everything then. Also when the kind of sleep is
 * unknown (logind's, and the kernel's suspend counters did not move). */
static const char *
resume_needs_full_pass (PpSleep *self, const char *recorded_state)
{
  const char *state = g_strcmp0 (self->sleep_state, "logind") == 0 ? self->requested_state
                                                                   : self->sleep_state;

  if (state == NULL)
    state = self->hibernation_asked ? "disk" : recorded_state;
  if (g_strcmp0 (state, "mem") == 0)
    return NULL;
  return g_strcmp0 (state, "disk") == 0 ? "disk" : "unknown";
}

/* The sleep is over: its record, and whether a full pass follows. */
static void
end_sleep_record (PpSleep *self, const char *error)
{
  gboolean recording = pp_sleep_history_in_progress (self->history);
  GPtrArray *records;
  const char *recorded = NULL;

  pp_sleep_history_end (self->history, error);
  records = pp_sleep_history_get_records (self->history);
  if (recording && records->len > 0)
    recorded = ((PpSleepRecord *) g_ptr_array_index (records, records->len - 1))->state;
  self->full_pass_after = resume_needs_full_pass (self, recorded);
}

static void
post_resume_done (PpSleep *self)
{
  if (self->full_pass_after != NULL)
    {
      g_info ("After resume from %s: re-applying the whole policy",
              g_str_equal (self->full_pass_after, "disk") ? "hibernation" : "a sleep of unknown kind");
      pp_manager_reapply (self->manager);
    }
  self->full_pass_after = NULL;
  self->policy_resumed = FALSE;
  pp_video_quirks_save_last_known_working (self->quirks);
  self->sleeping = FALSE;
  self->logind_sleep = FALSE;
  /* a lid still closed acts again once the holdoff is over, as logind */
  pp_lid_actions_resumed (self->lid);
}

static void
resume_done_logind (gpointer owner, gpointer data)
{
  PpSleep *self = owner;

  post_resume_done (self);
  if (self->logind)
    pp_logind_take_sleep_delay (self->logind);
}

static void
resume_logind (PpSleep *self)
{
  resume_policy (self);
  run_helper (self, "resume", resume_done_logind, NULL);
}

static void
on_prepare_for_sleep (PpLogind *logind, gboolean start, PpSleep *self)
{
  gint64 t0;

  if (start)
    {
      if (pp_quirk_helper_is_running (self->helper) || self->sleeping)
        {
          g_debug ("PrepareForSleep(true) while a sleep is in progress: nothing to do");
          return;
        }
      self->pre_start_us = g_get_monotonic_time ();
      self->sleep_state = "logind";
      pp_log_sleep (FALSE, self->sleep_state);
      self->logind_sleep = TRUE;
      pp_sleep_history_begin (self->history, self->requested_state);
      pre_sleep (self, pre_done_logind, NULL);
      return;
    }
  self->logind_sleep = FALSE;
  /* the policy back first (unless the pre phase still runs); the sleep
   * layer's writes change nothing the record reads after the sleep */
  if (!pp_quirk_helper_is_running (self->helper))
    resume_policy (self);
  t0 = g_get_monotonic_time ();
  /* the snapshot after the sleep: before the helper changes anything */
  end_sleep_record (self, NULL);
  g_debug ("After resume: record %.1f ms", ms_since (t0));
  self->requested_state = NULL;
  self->hibernation_asked = FALSE;
  if (pp_quirk_helper_is_running (self->helper))
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

/* mem_sleep and disk are settings (journalled, put back on exit),
 * through the manager's dry-run gate. */
static gboolean
write_power (PpSleep *self, const char *path, const char *value, GError **error)
{
  return pp_manager_request_layer (self->manager, PP_PLAN_LAYER_SLEEP, NULL, path, value,
                                   PP_MANAGER_WRITE_CHOICE, error);
}

static void
kernel_resume_done (gpointer owner, gpointer data)
{
  PpSleep *self = owner;
  GTask *task = data;
  KernelSleep *k = g_task_get_task_data (task);

  post_resume_done (self);
  if (k->error != NULL)
    g_task_return_error (task, g_steal_pointer (&k->error));
  else
    g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

/* The write to /sys/power/state returned: the machine is awake again
 * (or the sleep failed, and the resume phase undoes the pre phase). */
static void
on_state_written (GObject *source, GAsyncResult *res, gpointer user_data)
{
  GTask *task = user_data;
  PpSleep *self = g_task_get_source_object (task);
  KernelSleep *k = g_task_get_task_data (task);

  if (!pp_manager_request_action_finish (PP_MANAGER (source), res, &k->error))
    g_warning ("Sleep failed: %s", k->error->message);
  resume_policy (self);
  end_sleep_record (self, k->error != NULL ? k->error->message : NULL);
  run_helper (self, "resume", kernel_resume_done, task);
}

static void
kernel_pre_done (gpointer owner, gpointer data)
{
  PpSleep *self = owner;
  GTask *task = data;
  KernelSleep *k = g_task_get_task_data (task);

  pp_sleep_history_explain_awake (self->history);
  pp_sleep_history_refresh (self->history);
  /* on real hardware this write returns after resume: written in a
   * worker thread, so that D-Bus keeps answering meanwhile (a second
   * Suspend is refused: the sleep is in progress) */
  pp_manager_request_action_async (self->manager, PP_PLAN_LAYER_SLEEP, SYS_POWER_STATE, k->state,
                                   on_state_written, task);
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
  if (self->sleeping || pp_quirk_helper_is_running (self->helper))
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
  self->pre_start_us = g_get_monotonic_time ();
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

/* ---- lid actions ------------------------------------------------------ */

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

static const char *
lid_action_method (PpLidAction action)
{
  switch (action)
    {
    case PP_LID_ACTION_SUSPEND:
      return "Suspend";
    case PP_LID_ACTION_HIBERNATE:
      return "Hibernate";
    case PP_LID_ACTION_HYBRID_SLEEP:
      return "HybridSleep";
    case PP_LID_ACTION_SUSPEND_THEN_HIBERNATE:
      return "SuspendThenHibernate";
    case PP_LID_ACTION_LOCK:
      return "LockSessions";
    case PP_LID_ACTION_POWER_OFF_DISPLAY:
    case PP_LID_ACTION_IGNORE:
    default:
      return NULL;
    }
}

/* PpLidActions decided a sleep (or LockSessions) for this closure. */
static void
on_lid_action (PpLidActions *lid, guint action_value, PpSleep *self)
{
  PpLidAction action = action_value;
  const char *method = lid_action_method (action);

  if (method == NULL)
    return;
  if (self->logind != NULL)
    {
      /* the kernel's suspend counters move for these too: the resume
       * after them gets the full pass of a hibernation */
      self->hibernation_asked = action == PP_LID_ACTION_HIBERNATE ||
                                action == PP_LID_ACTION_HYBRID_SLEEP ||
                                action == PP_LID_ACTION_SUSPEND_THEN_HIBERNATE;
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
  pp_lid_actions_set_logind (self->lid, logind);
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
  pp_lid_actions_set_logind (self->lid, NULL);
  g_clear_object (&self->logind);
  backend_changed (self);

  /* logind announced a sleep and will never announce the resume: undo
   * the pre phase now (right after it, when it still runs) */
  if (self->logind_sleep)
    {
      end_sleep_record (self, NULL);
      self->requested_state = NULL;
      self->hibernation_asked = FALSE;
      if (pp_quirk_helper_is_running (self->helper))
        self->resume_pending = TRUE;
      else
        resume_logind (self);
    }
}

/* ---- public ----------------------------------------------------------- */

void
pp_sleep_reload (PpSleep *self, GPtrArray *problems)
{
  pp_video_quirks_load (self->quirks, problems);
  select_quirks (self);
  pp_lid_actions_evaluate (self->lid);
}

const char *
pp_sleep_get_backend (PpSleep *self)
{
  return self->logind != NULL ? "logind" : "kernel";
}

const char * const *
pp_sleep_get_video_quirks (PpSleep *self)
{
  return pp_video_quirks_get_names (self->quirks);
}

const PpQuirkSelection *
pp_sleep_get_quirk_selection (PpSleep *self)
{
  return pp_video_quirks_get_selection (self->quirks);
}

PpSleepHistory *
pp_sleep_get_history (PpSleep *self)
{
  return self->history;
}

/* logind now, and the watch that follows it coming and going. */
static void
watch_logind (PpSleep *self, GDBusConnection *bus)
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

PpSleep *
pp_sleep_new (PpManager *manager, GDBusConnection *bus, PpActivity *activity)
{
  PpSleep *self = g_object_new (PP_TYPE_SLEEP, NULL);

  self->manager = g_object_ref (manager);
  self->bus = bus ? g_object_ref (bus) : NULL;
  self->history = pp_sleep_history_new (manager);
  self->quirks = pp_video_quirks_new (manager);
  self->helper = pp_quirk_helper_new (manager);
  self->lid = pp_lid_actions_new (manager, activity);
  g_signal_connect (self->lid, "action", G_CALLBACK (on_lid_action), self);

  if (bus != NULL && !options (self)->no_logind)
    watch_logind (self, bus);
  pp_manager_set_backend (manager, pp_sleep_get_backend (self));
  g_info ("Sleep backend: %s", pp_sleep_get_backend (self));

  pp_lid_actions_start_holdoff (self->lid);
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

  /* a helper still running is killed, its step never run */
  if (self->helper)
    g_object_run_dispose (G_OBJECT (self->helper));
  g_clear_object (&self->helper);
  if (self->lid != NULL)
    g_signal_handlers_disconnect_by_data (self->lid, self);
  g_clear_object (&self->lid);
  if (self->logind_watch_id != 0)
    {
      g_bus_unwatch_name (self->logind_watch_id);
      self->logind_watch_id = 0;
    }
  if (self->logind != NULL)
    g_signal_handlers_disconnect_by_data (self->logind, self);
  g_clear_object (&self->logind);
  g_clear_object (&self->quirks);
  g_clear_object (&self->history);
  g_clear_object (&self->manager);
  g_clear_object (&self->bus);
  G_OBJECT_CLASS (pp_sleep_parent_class)->dispose (object);
}

static void
pp_sleep_class_init (PpSleepClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = pp_sleep_get_property;
  object_class->dispose = pp_sleep_dispose;

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
}
