/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The power-dependency tree at work (issue 4, SPEC §5): keeps a PpTree
 * current with the manager's devices and the device links, and implements
 * PowerDown, PowerUp and Hold on top of the manager. */
#pragma once

#include <gio/gio.h>

#include "pp-manager.h"
#include "pp-tree.h"

G_BEGIN_DECLS

#define PP_TYPE_POWER_OPS (pp_power_ops_get_type ())
G_DECLARE_FINAL_TYPE (PpPowerOps, pp_power_ops, PP, POWER_OPS, GObject)

/* Builds the tree from the manager's current devices and the devlinks,
 * follows its device-added/device-removed signals, and fills the
 * suppliers/consumers/blocker fields of its device dictionaries. */
PpPowerOps *pp_power_ops_new            (PpManager   *manager);

/* PowerDown (SPEC §5): rows (path, suspended|skipped|failed|off, detail)
 * in walk order, as an a(sss) variant; NULL with InvalidArgument for a
 * bad @mode. */
GVariant   *pp_power_ops_power_down     (PpPowerOps  *self,
                                         PpDevice    *device,
                                         gboolean     subtree,
                                         const char  *mode,
                                         GError     **error);
/* PowerUp: rows (path, on|skipped|failed, detail), a(sss). */
GVariant   *pp_power_ops_power_up       (PpPowerOps  *self,
                                         PpDevice    *device,
                                         gboolean     subtree);

/* The D-Bus side of the three methods, called once the caller is
 * authorized: validate the arguments, act, and reply. */
void        pp_power_ops_handle_power_down (PpPowerOps            *self,
                                            GDBusMethodInvocation *invocation);
void        pp_power_ops_handle_power_up   (PpPowerOps            *self,
                                            GDBusMethodInvocation *invocation);
void        pp_power_ops_handle_hold       (PpPowerOps            *self,
                                            GDBusMethodInvocation *invocation);

/* Add a (ssssu) row ("hold", who, why, device, pid) per hold. */
void        pp_power_ops_add_holds      (PpPowerOps      *self,
                                         GVariantBuilder *builder);

G_END_DECLS
