/* SPDX-License-Identifier: GPL-2.0-or-later */
/* power-profiles-daemon's D-Bus API in front of the manager's profile
 * layer (data/dbus/org.powerpolicy1.PowerProfiles.xml): the chosen
 * profile, holds, both bus names as [Daemon] PowerProfiles= says. */
#pragma once

#include <gio/gio.h>

#include "pp-manager.h"
#include "pp-token.h"

G_BEGIN_DECLS

#define PP_TYPE_PROFILES (pp_profiles_get_type ())
G_DECLARE_FINAL_TYPE (PpProfiles, pp_profiles, PP, PROFILES, GObject)

/* HoldProfile's holds are counted in @tokens (a reference is kept). */
PpProfiles *pp_profiles_new    (PpManager        *manager,
                                PpTokenRegistry  *tokens);

/* Export both objects on @bus (they answer under the daemon's own name
 * too, for pmctl) and ask for the names as the configuration says;
 * nothing at all with PowerProfiles=false. */
gboolean    pp_profiles_start  (PpProfiles       *self,
                                GDBusConnection  *bus,
                                GError          **error);
void        pp_profiles_stop   (PpProfiles       *self);

/* Reload: the offered profiles may have changed (the knobs are found
 * again); announced when they did. */
void        pp_profiles_reload (PpProfiles       *self);

G_END_DECLS
