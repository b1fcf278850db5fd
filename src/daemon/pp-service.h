/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The org.powerpolicy1.Manager D-Bus object in front of a PpManager. */
#pragma once

#include <gio/gio.h>

#include "pp-activity.h"
#include "pp-manager.h"
#include "pp-power-ops.h"
#include "pp-revert.h"
#include "pp-sleep.h"

G_BEGIN_DECLS

#define PP_TYPE_SERVICE (pp_service_get_type ())
G_DECLARE_FINAL_TYPE (PpService, pp_service, PP, SERVICE, GObject)

/* Reload (org.powerpolicy1.Manager.xml): re-read everything and re-apply;
 * returns the configuration's problems as "file:line: message" strings. */
typedef GPtrArray *(*PpServiceReloadFunc) (gpointer user_data);

/* The object in front of the daemon's components, made and connected by
 * the caller (main.c): the service only turns calls into calls on them.
 * @reverts is borrowed and must outlive the service. */
PpService  *pp_service_new      (PpManager           *manager,
                                 PpActivity          *activity,
                                 PpSleep             *sleep,
                                 PpPowerOps          *power_ops,
                                 PpReverts           *reverts,
                                 PpServiceReloadFunc  reload,
                                 gpointer             reload_data);

/* Export the object on @bus and own the name. Emits "name-acquired" and
 * "name-lost" (with a message) afterwards. */
gboolean    pp_service_start    (PpService        *self,
                                 GDBusConnection  *bus,
                                 GError          **error);
void        pp_service_stop     (PpService        *self);

G_END_DECLS
