/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lid (powerpolicyd(8), LID; powerpolicy.conf(5), [Lid]): the
 * action for a closed lid decided by pp_lid_decide() from PpActivity's
 * lid, dock and lid inhibitor, the power source and the holdoff; the
 * internal panel off; logind's lid-switch block inhibitor. The sleep
 * actions themselves are the owner's: "action" tells it. */
#pragma once

#include <gio/gio.h>

#include "pp-activity.h"
#include "pp-lid.h"
#include "pp-logind.h"
#include "pp-manager.h"

G_BEGIN_DECLS

#define PP_TYPE_LID_ACTIONS (pp_lid_actions_get_type ())
G_DECLARE_FINAL_TYPE (PpLidActions, pp_lid_actions, PP, LID_ACTIONS, GObject)

/* Follows @activity's "lid-closed", "docked" and "lid-inhibited" and the
 * manager's "on-battery" (@activity NULL: no lid). Nothing is evaluated
 * before pp_lid_actions_start_holdoff(). Signal "action" (a PpLidAction
 * as guint): a sleep or LockSessions for this closure, once per closure
 * and action. */
PpLidActions       *pp_lid_actions_new            (PpManager      *manager,
                                                   PpActivity     *activity);

/* logind to hold the lid-switch block inhibitor with (HandleLid=true),
 * or NULL when it is gone. */
void                pp_lid_actions_set_logind     (PpLidActions   *self,
                                                   PpLogind       *logind);

/* The holdoff after start and resume ([Lid] HoldoffSec=), then evaluate. */
void                pp_lid_actions_start_holdoff  (PpLidActions   *self);
/* Decide again (the configuration was reloaded). */
void                pp_lid_actions_evaluate       (PpLidActions   *self);

/* A sleep began: no action until pp_lid_actions_resumed(). */
void                pp_lid_actions_set_sleeping   (PpLidActions   *self);
/* The sleep is over: a lid still closed acts again once the holdoff is
 * over, as logind. */
void                pp_lid_actions_resumed        (PpLidActions   *self);

G_END_DECLS
