/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Holds (org.powerpolicy1.Manager.xml, Hold): a device and what it
 * depends on kept up until the holder closes its fd; what Explain says
 * of them. */
#pragma once

#include <glib.h>

#include "pp-manager.h"
#include "pp-power-tree.h"
#include "pp-token.h"

G_BEGIN_DECLS

typedef struct _PpPowerHolds PpPowerHolds;

/* Tells @manager whom a hold is for (Explain); @manager and @tree
 * outlive the holds. The holds are counted in @tokens. */
PpPowerHolds *pp_power_holds_new     (PpManager       *manager,
                                      PpPowerTree     *tree,
                                      PpTokenRegistry *tokens);
/* Frees the holds without another round of writes (at exit the manager
 * restores or keeps the policy itself). */
void          pp_power_holds_free    (PpPowerHolds  *self);

/* As pp_power_ops_hold(). */
gboolean      pp_power_holds_add     (PpPowerHolds          *self,
                                      const char            *device,
                                      const PpTokenRequest  *request,
                                      int                   *out_fd,
                                      GError               **error);
/* As pp_power_ops_list_holds(). */
GPtrArray    *pp_power_holds_list    (PpPowerHolds  *self);

G_END_DECLS
