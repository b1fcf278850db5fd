/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lid decision (powerpolicy.conf(5), [Lid]), pure like logind's
 * button_lid_switch_handle_action(): the situation in, the action out. */
#pragma once

#include <glib.h>

#include "pp-config.h"

G_BEGIN_DECLS

typedef struct {
  gboolean closed;          /* SW_LID set */
  gboolean on_ac;           /* external power */
  gboolean docked;          /* SW_DOCK set or an external display connected */
  gboolean lid_inhibited;   /* a "lid" inhibitor is held */
  gboolean in_holdoff;      /* within HoldoffSec of start or resume */
} PpLidSituation;

/* What to do now. IGNORE when the lid is open, HandleLid=false, a lid
 * inhibitor is held or the holdoff runs; else logind's order: docked ->
 * OnCloseDocked, on AC -> OnCloseExternalPower, else OnClose. */
PpLidAction   pp_lid_decide              (const PpLidConfig    *config,
                                          const PpLidSituation *situation);

/* TRUE when the internal panel should be dark (the decision is
 * power-off-display); anything else, lid open included, turns it back on. */
gboolean      pp_lid_display_off         (const PpLidConfig    *config,
                                          const PpLidSituation *situation);

/* TRUE for the actions that put the system to sleep (so a resume is
 * needed before the same closure acts again). */
gboolean      pp_lid_action_is_sleep     (PpLidAction           action);

G_END_DECLS
