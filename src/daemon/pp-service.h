/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The org.powerpolicy1.Manager D-Bus object in front of a PpManager. */
#pragma once

#include <gio/gio.h>

#include "pp-activity.h"
#include "pp-manager.h"

G_BEGIN_DECLS

#define PP_TYPE_SERVICE (pp_service_get_type ())
G_DECLARE_FINAL_TYPE (PpService, pp_service, PP, SERVICE, GObject)

PpService  *pp_service_new      (PpManager  *manager);

/* Serve user activity, lid and dock state and idle/lid inhibitors
 * (UserIdle, IdleTimeoutSec, LidClosed, Docked, Inhibit); before start. */
void        pp_service_set_activity (PpService  *self,
                                     PpActivity *activity);

/* Connect to the system bus, export the object and own the name. Emits
 * "name-acquired" and "name-lost" (with a message) afterwards. */
gboolean    pp_service_start    (PpService  *self,
                                 GError    **error);
void        pp_service_stop     (PpService  *self);

/* Re-read the configuration and the quirk database and re-apply
 * everything (Reload, SIGHUP). Returns the configuration's problems as
 * "file:line: message" strings. */
GPtrArray  *pp_service_reload   (PpService  *self);

G_END_DECLS
