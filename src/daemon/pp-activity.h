/* SPDX-License-Identifier: GPL-2.0-or-later */
/* User activity, lid and dock (powerpolicyd(8), USER ACTIVITY, LID
 * AND DOCK): owns the evdev
 * input backend, the DRM connector watcher, the idle state machine and
 * the idle/lid inhibitors, and tells the manager when to apply the :idle
 * layers. Knows the manager; the manager does not know it.
 *
 * Properties (all read-only, with notify), for the D-Bus service and for
 * the lid/sleep component:
 *   "user-idle"        b  no input for IdleTimeoutSec (inhibitors aside)
 *   "idle-timeout-sec" u  IdleTimeoutSec in force (0: not tracked)
 *   "lid-closed"       b  some lid switch says closed
 *   "has-lid"          b  a lid switch exists
 *   "docked"           b  SW_DOCK set, or an external display connected
 *   "lid-inhibited"    b  a "lid" inhibitor is held */
#pragma once

#include <glib-object.h>

#include "pp-manager.h"
#include "pp-token.h"

G_BEGIN_DECLS

#define PP_TYPE_ACTIVITY (pp_activity_get_type ())
G_DECLARE_FINAL_TYPE (PpActivity, pp_activity, PP, ACTIVITY, GObject)

/* Watches the manager's input and drm devices (present ones at once,
 * then through "device-added"/"device-removed"). Inhibitors are counted
 * in @tokens (a reference is kept). */
PpActivity  *pp_activity_new                (PpManager             *manager,
                                             PpTokenRegistry       *tokens);

gboolean     pp_activity_get_user_idle      (PpActivity            *self);
guint        pp_activity_get_idle_timeout_sec (PpActivity          *self);
gboolean     pp_activity_get_lid_closed     (PpActivity            *self);
gboolean     pp_activity_get_docked         (PpActivity            *self);
gboolean     pp_activity_get_lid_inhibited  (PpActivity            *self);

/* The configuration was reloaded: take IdleTimeoutSec again. */
void         pp_activity_reload             (PpActivity            *self);

/* Inhibit (org.powerpolicy1.Manager.xml) for @request: @what a colon list of
 * "idle" and "lid"; the inhibitor ends when every copy of *@out_fd (owned by
 * the caller) is closed or its holder dies. FALSE with InvalidArgument (what,
 * who, why) or Refused (limits). */
gboolean     pp_activity_inhibit            (PpActivity            *self,
                                             const char            *what,
                                             const PpTokenRequest  *request,
                                             int                   *out_fd,
                                             GError               **error);

/* The inhibitors as PpTokenInfo (what, who, why, "", pid). */
GPtrArray   *pp_activity_list_inhibitors    (PpActivity            *self);

G_END_DECLS
