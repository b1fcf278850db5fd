/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-sleep"

#include "config.h"

#include <signal.h>
#include <unistd.h>

#include "pp-enums.h"
#include "pp-log.h"
#include "pp-names.h"
#include "pp-quirk-helper.h"

#define HELPER_NAME           "powerpolicy-video-restore"

struct _PpQuirkHelper {
  GObject            parent_instance;
  PpManager         *manager;
  GSubprocess       *helper;
  guint              timeout_id;
  const char        *phase;       /* "suspend" or "resume" (static) */
  PpQuirkHelperDone  done;
  gpointer           done_owner;
  gpointer           done_data;
};

G_DEFINE_TYPE (PpQuirkHelper, pp_quirk_helper, G_TYPE_OBJECT)

static const PpConfig *
config (PpQuirkHelper *self)
{
  return pp_manager_get_config (self->manager);
}

static void
helper_finished (PpQuirkHelper *self)
{
  PpQuirkHelperDone done = self->done;
  gpointer owner = self->done_owner;
  gpointer data = self->done_data;

  g_clear_handle_id (&self->timeout_id, g_source_remove);
  g_clear_object (&self->helper);
  self->done = NULL;
  self->done_owner = NULL;
  self->done_data = NULL;
  if (done)
    done (owner, data);
}

static void
on_helper_exited (GObject *source, GAsyncResult *res, gpointer user_data)
{
  PpQuirkHelper *self = user_data;
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

static char *helper_path (PpQuirkHelper *self);

static gboolean
on_helper_timeout (gpointer user_data)
{
  PpQuirkHelper *self = user_data;

  self->timeout_id = 0;
  if (self->helper != NULL)
    {
      const char *id = g_subprocess_get_identifier (self->helper);
      g_autofree char *path = helper_path (self);

      pp_log_helper_killed (path, self->phase, id ? g_ascii_strtoll (id, NULL, 10) : 0,
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
helper_path (PpQuirkHelper *self)
{
  const char *configured = config (self)->sleep.quirk_helper;

  if (configured != NULL && *configured != '\0')
    return g_strdup (configured);
  return g_build_filename (PP_LIBEXECDIR, HELPER_NAME, NULL);
}

void
pp_quirk_helper_run (PpQuirkHelper      *self,
                     const char         *phase,
                     const char * const *quirks,
                     PpQuirkHelperDone   done,
                     gpointer            owner,
                     gpointer            data)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *state = NULL;
  guint timeout = config (self)->sleep.quirk_timeout_sec;

  g_return_if_fail (self->helper == NULL);

  /* kernel modesetting (no_chvt, no quirk): nothing to save or give
   * back, and a process started and waited for on the way to sleep and
   * back is time the delay inhibitor and the resume wait for */
  if (!pp_video_quirks_helper_has_work (quirks,
                                        g_str_equal (phase, "resume")))
    {
      g_debug ("No video quirk needs the restore helper's %s phase: not started", phase);
      done (owner, data);
      return;
    }
  if (pp_manager_get_dry_run (self->manager))
    {
      g_message ("dry-run: would run the video restore helper for %s", phase);
      done (owner, data);
      return;
    }

  g_ptr_array_add (argv, helper_path (self));
  g_ptr_array_add (argv, g_strdup (phase));
  for (guint i = 0; quirks && quirks[i]; i++)
    g_ptr_array_add (argv, g_strdup (quirks[i]));
  g_ptr_array_add (argv, NULL);

  state = g_build_filename (pp_manager_get_options (self->manager)->runtime_dir, "video-restore", NULL);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_set_child_setup (launcher, helper_child_setup, NULL, NULL);
  g_subprocess_launcher_setenv (launcher, "POWERPOLICY_VIDEO_RESTORE_STATE", state, TRUE);

  self->helper = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  if (self->helper == NULL)
    {
      g_warning ("Cannot run the video restore helper %s: %s",
                 (char *) g_ptr_array_index (argv, 0), error->message);
      done (owner, data);
      return;
    }
  g_debug ("Running %s %s", (char *) g_ptr_array_index (argv, 0), phase);
  self->phase = phase;
  self->done = done;
  self->done_owner = owner;
  self->done_data = data;
  self->timeout_id = g_timeout_add (MAX (timeout, 1) * 1000, on_helper_timeout, self);
  g_subprocess_wait_async (self->helper, NULL, on_helper_exited, g_object_ref (self));
}

gboolean
pp_quirk_helper_is_running (PpQuirkHelper *self)
{
  return self->helper != NULL;
}

PpQuirkHelper *
pp_quirk_helper_new (PpManager *manager)
{
  PpQuirkHelper *self = g_object_new (PP_TYPE_QUIRK_HELPER, NULL);

  self->manager = g_object_ref (manager);
  return self;
}

static void
pp_quirk_helper_dispose (GObject *object)
{
  PpQuirkHelper *self = PP_QUIRK_HELPER (object);

  if (self->helper != NULL)
    {
      kill_helper (self->helper);
      g_clear_object (&self->helper);
    }
  g_clear_handle_id (&self->timeout_id, g_source_remove);
  self->done = NULL;
  g_clear_object (&self->manager);
  G_OBJECT_CLASS (pp_quirk_helper_parent_class)->dispose (object);
}

static void
pp_quirk_helper_class_init (PpQuirkHelperClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = pp_quirk_helper_dispose;
}

static void
pp_quirk_helper_init (PpQuirkHelper *self)
{
}
