/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-activity"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib-unix.h>

#include "pp-activity.h"
#include "pp-token.h"
#include "pp-util.h"
#include "pp-dock.h"
#include "pp-drm.h"
#include "pp-error.h"
#include "pp-log.h"
#include "pp-idle.h"
#include "pp-input.h"

typedef struct {
  PpActivity *self;        /* unowned: inhibitors die with it */
  char       *what;
  gboolean    idle;
  gboolean    lid;
  char       *who;
  char       *why;
  guint32     pid;
  PpToken    *token;
} Inhibitor;

struct _PpActivity {
  GObject     parent_instance;
  PpManager  *manager;
  PpTokenRegistry *tokens;   /* the inhibitors are counted here */
  PpInput    *input;
  PpDrm      *drm;

  PpIdle      idle;
  guint       deadline_id;

  gboolean    user_idle;
  gboolean    docked;       /* dock switch or external display (the lid is PpInput's) */

  GPtrArray  *inhibitors;   /* Inhibitor* */
  guint       n_lid_inhibitors;
};

enum {
  PROP_0,
  PROP_USER_IDLE,
  PROP_IDLE_TIMEOUT_SEC,
  PROP_LID_CLOSED,
  PROP_HAS_LID,
  PROP_DOCKED,
  PROP_LID_INHIBITED,
  N_PROPS,
};
static GParamSpec *props[N_PROPS];

G_DEFINE_TYPE (PpActivity, pp_activity, G_TYPE_OBJECT)

/* ---- idle ------------------------------------------------------------- */

static gboolean on_deadline (gpointer user_data);

static void
schedule_deadline (PpActivity *self, gint64 deadline)
{
  gint64 delay_us;

  g_clear_handle_id (&self->deadline_id, g_source_remove);
  if (deadline < 0)
    return;
  delay_us = MAX (0, deadline - g_get_monotonic_time ());
  /* round up: waking a little early would only mean a second wakeup;
   * an IdleTimeoutSec beyond 49 days is looked at again after 49 days */
  self->deadline_id = g_timeout_add ((guint) MIN ((delay_us + 999) / 1000, (gint64) G_MAXUINT),
                                     on_deadline, self);
}

static void
apply_decision (PpActivity *self, PpIdleDecision d)
{
  if (self->user_idle != d.user_idle)
    {
      self->user_idle = d.user_idle;
      g_debug ("User %s", d.user_idle ? "idle" : "active");
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_USER_IDLE]);
    }
  pp_manager_set_user_idle (self->manager, d.apply_idle);
  /* while the user is active nobody needs to hear every key press: the
   * activity devices are read in one go at the deadline; once idle, the
   * first event must wake us at once */
  pp_input_set_lazy (self->input, !d.user_idle);
  schedule_deadline (self, d.deadline);
}

static gboolean
on_deadline (gpointer user_data)
{
  PpActivity *self = user_data;
  gint64 latest, now;

  self->deadline_id = 0;
  latest = pp_input_drain (self->input);
  now = g_get_monotonic_time ();
  if (latest >= 0)
    pp_idle_activity (&self->idle, latest, now);
  apply_decision (self, pp_idle_check (&self->idle, now));
  return G_SOURCE_REMOVE;
}

static void
on_input_activity (PpInput *input, gint64 when, PpActivity *self)
{
  apply_decision (self, pp_idle_activity (&self->idle, when, g_get_monotonic_time ()));
}

/* ---- lid and dock ----------------------------------------------------- */

static void
update_docked (PpActivity *self)
{
  gboolean docked = pp_dock_is_docked (pp_input_get_dock_switch (self->input),
                                       pp_drm_get_external_displays (self->drm));

  if (self->docked != docked)
    {
      self->docked = docked;
      g_info ("%s", docked ? "Docked" : "Undocked");
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_DOCKED]);
    }
}

static void
on_dock_changed (GObject *object, GParamSpec *pspec, PpActivity *self)
{
  update_docked (self);
}

/* The lid is the input backend's: passed on, not copied. */
static void
on_lid_changed (PpInput *input, GParamSpec *pspec, PpActivity *self)
{
  if (g_str_equal (pspec->name, "has-lid"))
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_HAS_LID]);
  else
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LID_CLOSED]);
}

/* ---- devices ---------------------------------------------------------- */

static void
track_device (PpActivity *self, PpDevice *dev, gboolean refresh_drm)
{
  const char *subsystem = dev->info->subsystem;

  if (g_str_equal (subsystem, "input"))
    pp_input_add_device (self->input, dev->info);
  else if (g_str_equal (subsystem, "drm"))
    {
      pp_drm_add_connector (self->drm, dev->info->syspath, dev->info->sysname);
      /* a hotplug arrives as a "change" of the card: look at them all */
      if (refresh_drm)
        pp_drm_refresh (self->drm);
    }
}

static void
on_device_added (PpManager *manager, PpDevice *dev, gboolean is_new, PpActivity *self)
{
  track_device (self, dev, TRUE);
}

static void
on_device_removed (PpManager *manager, const char *syspath, PpActivity *self)
{
  pp_input_remove_device (self->input, syspath);
  pp_drm_remove_connector (self->drm, syspath);
  pp_drm_refresh (self->drm);
}

/* ---- inhibitors ------------------------------------------------------- */

static void
inhibitor_free (Inhibitor *inh)
{
  pp_token_free (inh->token);
  g_free (inh->what);
  g_free (inh->who);
  g_free (inh->why);
  g_free (inh);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Inhibitor, inhibitor_free)

static void
notify_lid_inhibited (PpActivity *self, guint before)
{
  if ((before > 0) != (self->n_lid_inhibitors > 0))
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LID_INHIBITED]);
}

/* The holder closed its fd or died. */
static void
inhibitor_release (gpointer user_data)
{
  Inhibitor *inh = user_data;
  PpActivity *self = inh->self;
  guint lid_before = self->n_lid_inhibitors;
  gboolean idle = inh->idle;

  pp_log_inhibitor (FALSE, inh->what, inh->who, inh->why, inh->pid);
  if (inh->lid)
    self->n_lid_inhibitors--;
  /* frees @inh */
  g_ptr_array_remove_fast (self->inhibitors, inh);
  if (idle)
    apply_decision (self, pp_idle_inhibit (&self->idle, FALSE));
  notify_lid_inhibited (self, lid_before);
}

static void
inhibitor_add (PpActivity *self, Inhibitor *inh)
{
  guint lid_before = self->n_lid_inhibitors;

  inh->self = self;
  pp_log_inhibitor (TRUE, inh->what, inh->who, inh->why, inh->pid);
  if (inh->lid)
    self->n_lid_inhibitors++;
  g_ptr_array_add (self->inhibitors, inh);
  if (inh->idle)
    apply_decision (self, pp_idle_inhibit (&self->idle, TRUE));
  notify_lid_inhibited (self, lid_before);
}

gboolean
pp_activity_inhibit (PpActivity            *self,
                     const char            *what,
                     const PpTokenRequest  *request,
                     int                   *out_fd,
                     GError               **error)
{
  g_autoptr(Inhibitor) inh = NULL;
  gboolean idle, lid;

  if (!pp_token_parse_what (what, &idle, &lid, error))
    return FALSE;
  if (!pp_token_check_text (request->who, request->why, error))
    return FALSE;

  inh = g_new0 (Inhibitor, 1);
  inh->what = g_strdup (what);
  inh->idle = idle;
  inh->lid = lid;
  inh->who = g_strdup (request->who);
  inh->why = g_strdup (request->why);
  inh->pid = request->pid;
  inh->token = pp_token_new (self->tokens, request->uid, inhibitor_release, inh, out_fd, error);
  if (inh->token == NULL)
    return FALSE;
  inhibitor_add (self, g_steal_pointer (&inh));
  return TRUE;
}

GPtrArray *
pp_activity_list_inhibitors (PpActivity *self)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_token_info_free);

  for (guint i = 0; i < self->inhibitors->len; i++)
    {
      Inhibitor *inh = g_ptr_array_index (self->inhibitors, i);

      g_ptr_array_add (out, pp_token_info_new (inh->what, inh->who, inh->why, "", inh->pid));
    }
  return out;
}

/* ---- public ----------------------------------------------------------- */

gboolean
pp_activity_get_user_idle (PpActivity *self)
{
  return self->user_idle;
}

guint
pp_activity_get_idle_timeout_sec (PpActivity *self)
{
  return (guint) (self->idle.timeout_us / G_USEC_PER_SEC);
}

gboolean
pp_activity_get_lid_closed (PpActivity *self)
{
  return pp_input_get_lid_closed (self->input);
}

gboolean
pp_activity_get_docked (PpActivity *self)
{
  return self->docked;
}

gboolean
pp_activity_get_lid_inhibited (PpActivity *self)
{
  return self->n_lid_inhibitors > 0;
}

void
pp_activity_reload (PpActivity *self)
{
  guint timeout = pp_manager_get_config (self->manager)->idle_timeout_sec;
  gint64 latest, now;

  if (timeout == pp_activity_get_idle_timeout_sec (self))
    return;
  g_info ("Idle timeout: %us", timeout);
  /* while the user was active (or tracking was off) the activity devices
   * were not read: what they queued counts before idleness is judged */
  latest = pp_input_drain (self->input);
  now = g_get_monotonic_time ();
  if (latest >= 0)
    pp_idle_activity (&self->idle, latest, now);
  apply_decision (self, pp_idle_set_timeout (&self->idle, timeout, now));
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_IDLE_TIMEOUT_SEC]);
}

static void
pp_activity_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  PpActivity *self = PP_ACTIVITY (object);

  switch (prop_id)
    {
    case PROP_USER_IDLE:
      g_value_set_boolean (value, self->user_idle);
      break;
    case PROP_IDLE_TIMEOUT_SEC:
      g_value_set_uint (value, pp_activity_get_idle_timeout_sec (self));
      break;
    case PROP_LID_CLOSED:
      g_value_set_boolean (value, pp_input_get_lid_closed (self->input));
      break;
    case PROP_HAS_LID:
      g_value_set_boolean (value, pp_input_get_has_lid (self->input));
      break;
    case PROP_DOCKED:
      g_value_set_boolean (value, self->docked);
      break;
    case PROP_LID_INHIBITED:
      g_value_set_boolean (value, self->n_lid_inhibitors > 0);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pp_activity_dispose (GObject *object)
{
  PpActivity *self = PP_ACTIVITY (object);

  g_clear_handle_id (&self->deadline_id, g_source_remove);
  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);
  if (self->input != NULL)
    g_signal_handlers_disconnect_by_data (self->input, self);
  if (self->drm != NULL)
    g_signal_handlers_disconnect_by_data (self->drm, self);
  g_clear_pointer (&self->inhibitors, g_ptr_array_unref);
  g_clear_object (&self->input);
  g_clear_object (&self->drm);
  g_clear_object (&self->manager);
  g_clear_pointer (&self->tokens, pp_token_registry_unref);
  G_OBJECT_CLASS (pp_activity_parent_class)->dispose (object);
}

static void
pp_activity_class_init (PpActivityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->get_property = pp_activity_get_property;
  object_class->dispose = pp_activity_dispose;

  props[PROP_USER_IDLE] = g_param_spec_boolean ("user-idle", NULL, NULL, FALSE, flags);
  props[PROP_IDLE_TIMEOUT_SEC] = g_param_spec_uint ("idle-timeout-sec", NULL, NULL,
                                                    0, G_MAXUINT, 0, flags);
  props[PROP_LID_CLOSED] = g_param_spec_boolean ("lid-closed", NULL, NULL, FALSE, flags);
  props[PROP_HAS_LID] = g_param_spec_boolean ("has-lid", NULL, NULL, FALSE, flags);
  props[PROP_DOCKED] = g_param_spec_boolean ("docked", NULL, NULL, FALSE, flags);
  props[PROP_LID_INHIBITED] = g_param_spec_boolean ("lid-inhibited", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
pp_activity_init (PpActivity *self)
{
  self->inhibitors = g_ptr_array_new_with_free_func ((GDestroyNotify) inhibitor_free);
}

PpActivity *
pp_activity_new (PpManager *manager, PpTokenRegistry *tokens)
{
  PpActivity *self = g_object_new (PP_TYPE_ACTIVITY, NULL);
  GPtrArray *devices;

  self->manager = g_object_ref (manager);
  self->tokens = pp_token_registry_ref (tokens);
  self->input = pp_input_new ();
  self->drm = pp_drm_new ();
  pp_idle_init (&self->idle, pp_manager_get_config (manager)->idle_timeout_sec,
                g_get_monotonic_time ());

  devices = pp_manager_list_devices (manager);
  for (guint i = 0; i < devices->len; i++)
    track_device (self, g_ptr_array_index (devices, i), FALSE);
  pp_drm_refresh (self->drm);
  g_info ("Watching %u input devices for activity; idle after %us%s",
          pp_input_get_n_devices (self->input), pp_activity_get_idle_timeout_sec (self),
          pp_activity_get_idle_timeout_sec (self) == 0 ? " (disabled)" : "");

  g_signal_connect (self->input, "activity", G_CALLBACK (on_input_activity), self);
  g_signal_connect (self->input, "notify::lid-closed", G_CALLBACK (on_lid_changed), self);
  g_signal_connect (self->input, "notify::has-lid", G_CALLBACK (on_lid_changed), self);
  g_signal_connect (self->input, "notify::dock-switch", G_CALLBACK (on_dock_changed), self);
  g_signal_connect (self->drm, "notify::external-displays", G_CALLBACK (on_dock_changed), self);
  g_signal_connect (manager, "device-added", G_CALLBACK (on_device_added), self);
  g_signal_connect (manager, "device-removed", G_CALLBACK (on_device_removed), self);

  update_docked (self);
  apply_decision (self, pp_idle_get (&self->idle));
  return self;
}
