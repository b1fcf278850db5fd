/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Power profiles (data/dbus/org.freedesktop.UPower.PowerProfiles.xml):
 * which profile is active given the chosen one and the holds, and how a
 * [Platform] word maps onto what the firmware offers. Pure. */
#pragma once

#include <glib.h>

#include "pp-config.h"

G_BEGIN_DECLS

/* The profile in force: the chosen one, unless a hold exists: then
 * power-saver if any hold asks for it (saving power wins, as
 * power-profiles-daemon decides), else performance. @holds: the held
 * profiles (only PP_PROFILE_POWER_SAVER and PP_PROFILE_PERFORMANCE can
 * be held), @n_holds of them. */
PpProfile    pp_profile_effective         (PpProfile        chosen,
                                           const PpProfile *holds,
                                           gsize            n_holds);

/* The platform_profile word to write for the configured @wanted, given
 * the firmware's @choices (platform_profile_choices, NULL-terminated):
 * @wanted itself when offered, else its nearest neighbour as
 * power-profiles-daemon maps its profiles (low-power, quiet and cool
 * stand in for each other; performance and balanced-performance); NULL
 * when the firmware offers nothing close. */
const char  *pp_platform_profile_map      (const char         *wanted,
                                           const char * const *choices);

/* The persisted profile file's text ("power-saver\n") parsed; FALSE for
 * anything else (then balanced applies). */
gboolean     pp_profile_parse_saved       (const char      *text,
                                           PpProfile       *profile);

G_END_DECLS
