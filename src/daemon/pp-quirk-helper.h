/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The video restore helper (powerpolicyd(8), VIDEO QUIRKS;
 * powerpolicy.conf(5), [Sleep] QuirkHelper= and QuirkTimeoutSec=): one
 * run per sleep phase, in its own process group, killed with everything
 * it started when the timeout is over. */
#pragma once

#include <gio/gio.h>

#include "pp-manager.h"

G_BEGIN_DECLS

#define PP_TYPE_QUIRK_HELPER (pp_quirk_helper_get_type ())
G_DECLARE_FINAL_TYPE (PpQuirkHelper, pp_quirk_helper, PP, QUIRK_HELPER, GObject)

/* What runs when the helper's phase is over: @owner and @data as given
 * to pp_quirk_helper_run(). */
typedef void (*PpQuirkHelperDone) (gpointer owner, gpointer data);

PpQuirkHelper      *pp_quirk_helper_new           (PpManager          *manager);

/* Run the helper for @phase ("suspend" or "resume", static) with
 * @quirks; @done runs when it exits or, at the latest, QuirkTimeoutSec
 * later (the helper is killed). Not started (and @done run at once)
 * when no quirk needs the phase, under dry-run, or when it cannot be
 * started. Not while it runs already. */
void                pp_quirk_helper_run           (PpQuirkHelper      *self,
                                                   const char         *phase,
                                                   const char * const *quirks,
                                                   PpQuirkHelperDone   done,
                                                   gpointer            owner,
                                                   gpointer            data);

/* TRUE from the start of a run until its @done ran. */
gboolean            pp_quirk_helper_is_running    (PpQuirkHelper      *self);

G_END_DECLS
