/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The power profile's state of the manager (pp-manager-profile.c): the
 * [Platform] knobs found on this machine, planned through the one write
 * path and explained, and the chosen profile kept in the state
 * directory. Owned by the manager, its state its own. */
#pragma once

#include "pp-config.h"
#include "pp-executor.h"
#include "pp-platform.h"
#include "pp-policy.h"
#include "pp-profile.h"

G_BEGIN_DECLS

typedef struct _PpProfileState PpProfileState;

/* @executor and @situation are the manager's, which outlives this. */
PpProfileState        *pp_profile_state_new        (PpExecutor        *executor,
                                                    const PpSituation *situation,
                                                    const char        *state_dir);
void                   pp_profile_state_free       (PpProfileState    *self);
/* The configuration in force (the manager's; set again at each load). */
void                   pp_profile_state_set_config (PpProfileState    *self,
                                                    const PpConfig    *config);
/* Find the knobs again (start, Reload). */
void                   pp_profile_state_read_platform (PpProfileState *self);
const PpPlatformKnobs *pp_profile_state_get_platform (PpProfileState  *self);
/* Their writes for the situation into @plan. */
void                   pp_profile_state_plan        (PpProfileState  *self,
                                                     GPtrArray       *plan);
GPtrArray             *pp_profile_state_explain     (PpProfileState  *self);
PpProfile              pp_profile_state_load_saved  (PpProfileState  *self);
gboolean               pp_profile_state_save        (PpProfileState  *self,
                                                     PpProfile        profile,
                                                     GError         **error);

G_END_DECLS
