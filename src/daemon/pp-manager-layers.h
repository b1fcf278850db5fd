/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The layers of the manager (pp-manager-layers.c): the one decision for
 * a device (policy layers, overrides, Reverts, PowerDown, holds,
 * PowerUp), what it plans, and what is told about it (Explain, the
 * decided value, the exclusion, ListChanges). It owns the holds,
 * Reverts and PowerDown(auto) per device and Explain's hooks; it plans
 * and never executes: the manager (pp-manager.c) executes the plans and
 * announces what was written. Owned by the manager, its state its own. */
#pragma once

#include "pp-device-table.h"
#include "pp-executor.h"
#include "pp-manager-profile.h"
#include "pp-overrides.h"

G_BEGIN_DECLS

typedef struct _PpLayers PpLayers;

/* Everything given is the manager's, which owns this and outlives it;
 * @manager is only passed to the hooks. */
PpLayers    *pp_layers_new               (PpManager         *manager,
                                          PpDeviceTable     *table,
                                          PpExecutor        *executor,
                                          PpOverrides       *overrides,
                                          PpProfileState    *profile,
                                          const PpSituation *situation);
void         pp_layers_free              (PpLayers          *self);
/* The configuration in force (the manager's; set again at each load). */
void         pp_layers_set_config        (PpLayers          *self,
                                          const PpConfig    *config);

/* A device's writes into @plan (nothing for an ignored device or a link). */
void         pp_layers_plan_device       (PpLayers  *self,
                                          GPtrArray *plan,
                                          PpDevice  *dev);
/* The module parameters and the [Platform] knobs into @plan. */
void         pp_layers_plan_modules      (PpLayers  *self,
                                          GPtrArray *plan);
/* The sleep layer's writes into @plan (the situation's before_sleep
 * already set): nothing with RestoreDefaultsBeforeSleep=false. */
void         pp_layers_plan_sleep        (PpLayers  *self,
                                          GPtrArray *plan,
                                          gboolean   before_sleep);
/* PowerUp's pass of @dev into @plan (PowerDown's layer ends): returns
 * "relpath=value" strings of what it decided. */
GPtrArray   *pp_layers_plan_power_up     (PpLayers  *self,
                                          GPtrArray *plan,
                                          PpDevice  *dev);

/* One hold (@held TRUE) more or less on each of @syspaths; one Revert
 * more or less; PowerDown(auto) in force or not. Nothing planned. */
void         pp_layers_count_held        (PpLayers  *self,
                                          GPtrArray *syspaths,
                                          gboolean   held);
void         pp_layers_count_reverted    (PpLayers  *self,
                                          GPtrArray *syspaths,
                                          gboolean   reverted);
void         pp_layers_set_powered_down  (PpLayers   *self,
                                          const char *syspath,
                                          gboolean    down);
gboolean     pp_layers_is_held           (PpLayers   *self,
                                          const char *syspath);
gboolean     pp_layers_is_reverted       (PpLayers   *self,
                                          const char *syspath);
void         pp_layers_set_hold_hook     (PpLayers          *self,
                                          PpManagerHoldHook  hook,
                                          gpointer           user_data);
void         pp_layers_set_revert_hook   (PpLayers          *self,
                                          PpManagerHoldHook  hook,
                                          gpointer           user_data);

/* The answers of pp_manager_get_decided_value(), pp_manager_explain(),
 * pp_manager_get_exclusion() and pp_manager_list_changes(). */
char        *pp_layers_get_decided_value (PpLayers   *self,
                                          PpDevice   *dev,
                                          const char *relpath);
GPtrArray   *pp_layers_explain           (PpLayers   *self,
                                          PpDevice   *dev);
char        *pp_layers_get_exclusion     (PpLayers   *self,
                                          PpDevice   *dev);
GPtrArray   *pp_layers_list_changes      (PpLayers   *self);

G_END_DECLS
