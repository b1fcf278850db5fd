/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-sleep"

#include "config.h"

#include "pp-drm.h"
#include "pp-enums.h"
#include "pp-lid-actions.h"

struct _PpLidActions {
  GObject           parent_instance;
  PpManager        *manager;
  PpActivity       *activity;     /* or NULL: no lid */
  PpLogind         *logind;       /* or NULL */
  gboolean          sleeping;     /* between a sleep's pre phase and its resume */
  gboolean          in_holdoff;
  guint             holdoff_id;
  PpLidAction       lid_acted;    /* action taken for this closure, IGNORE: none */
  gboolean          display_off;
};

enum {
  SIGNAL_ACTION,
  N_SIGNALS,
};
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (PpLidActions, pp_lid_actions, G_TYPE_OBJECT)

static void lid_evaluate (PpLidActions *self);

static const PpConfig *
config (PpLidActions *self)
{
  return pp_manager_get_config (self->manager);
}

static gboolean
on_holdoff_over (gpointer user_data)
{
  PpLidActions *self = user_data;

  self->holdoff_id = 0;
  self->in_holdoff = FALSE;
  g_debug ("Lid holdoff over");
  lid_evaluate (self);
  return G_SOURCE_REMOVE;
}

void
pp_lid_actions_start_holdoff (PpLidActions *self)
{
  guint sec = config (self)->lid.holdoff_sec;

  g_clear_handle_id (&self->holdoff_id, g_source_remove);
  self->in_holdoff = sec > 0;
  if (sec > 0)
    self->holdoff_id = g_timeout_add_seconds (sec, on_holdoff_over, self);
  lid_evaluate (self);
}

static void
set_display_off (PpLidActions *self, gboolean off)
{
  g_autofree char *bl = NULL;
  g_autofree char *attr = NULL;
  g_autoptr(GError) error = NULL;

  if (self->display_off == off)
    return;
  self->display_off = off;
  bl = pp_drm_internal_backlight ();
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
  else if (!pp_manager_get_dry_run (self->manager))
    g_info ("Lid: internal panel %s", off ? "off" : "on");
}

static void
lid_evaluate (PpLidActions *self)
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
  g_info ("Lid closed: %s", pp_lid_action_to_string (action));
  g_signal_emit (self, signals[SIGNAL_ACTION], 0, (guint) action);
}

/* PpActivity's lid, dock or lid inhibitor changed. */
static void
on_lid_state_changed (PpActivity *activity, GParamSpec *pspec, PpLidActions *self)
{
  g_debug ("Lid %s, %sdocked, lid inhibitor %s",
           pp_activity_get_lid_closed (activity) ? "closed" : "open",
           pp_activity_get_docked (activity) ? "" : "not ",
           pp_activity_get_lid_inhibited (activity) ? "held" : "not held");
  lid_evaluate (self);
}

static void
on_on_battery_changed (PpManager *manager, GParamSpec *pspec, PpLidActions *self)
{
  lid_evaluate (self);
}

void
pp_lid_actions_evaluate (PpLidActions *self)
{
  lid_evaluate (self);
}

void
pp_lid_actions_set_logind (PpLidActions *self, PpLogind *logind)
{
  g_set_object (&self->logind, logind);
}

void
pp_lid_actions_set_sleeping (PpLidActions *self)
{
  self->sleeping = TRUE;
}

void
pp_lid_actions_resumed (PpLidActions *self)
{
  self->sleeping = FALSE;
  self->lid_acted = PP_LID_ACTION_IGNORE;
  pp_lid_actions_start_holdoff (self);
}

PpLidActions *
pp_lid_actions_new (PpManager *manager, PpActivity *activity)
{
  PpLidActions *self = g_object_new (PP_TYPE_LID_ACTIONS, NULL);

  self->manager = g_object_ref (manager);
  self->activity = activity ? g_object_ref (activity) : NULL;
  g_signal_connect (manager, "notify::on-battery", G_CALLBACK (on_on_battery_changed), self);
  if (activity != NULL)
    {
      g_signal_connect (activity, "notify::lid-closed", G_CALLBACK (on_lid_state_changed), self);
      g_signal_connect (activity, "notify::docked", G_CALLBACK (on_lid_state_changed), self);
      g_signal_connect (activity, "notify::lid-inhibited", G_CALLBACK (on_lid_state_changed), self);
    }
  return self;
}

static void
pp_lid_actions_dispose (GObject *object)
{
  PpLidActions *self = PP_LID_ACTIONS (object);

  g_clear_handle_id (&self->holdoff_id, g_source_remove);
  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);
  if (self->activity != NULL)
    g_signal_handlers_disconnect_by_data (self->activity, self);
  g_clear_object (&self->activity);
  g_clear_object (&self->logind);
  g_clear_object (&self->manager);
  G_OBJECT_CLASS (pp_lid_actions_parent_class)->dispose (object);
}

static void
pp_lid_actions_class_init (PpLidActionsClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = pp_lid_actions_dispose;

  signals[SIGNAL_ACTION] =
    g_signal_new ("action", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
pp_lid_actions_init (PpLidActions *self)
{
  self->lid_acted = PP_LID_ACTION_IGNORE;
}
