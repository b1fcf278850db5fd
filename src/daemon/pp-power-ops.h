/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The power-dependency tree at work (powerpolicyd(8), POWER-DEPENDENCY
 * TREE): PowerDown and PowerUp on top of the manager, with the switches
 * PowerDown(mode=off) turned off. It owns the tree cache (pp-power-tree.c)
 * and the holds (pp-power-holds.c), and is the C API for them and for the
 * tree fields of a device's dictionary (pp-power-fields.c). Plain C: the
 * D-Bus side is pp-service.c. */
#pragma once

#include <glib-object.h>

#include "pp-manager.h"
#include "pp-token.h"
#include "pp-tree.h"

G_BEGIN_DECLS

#define PP_TYPE_POWER_OPS (pp_power_ops_get_type ())
G_DECLARE_FINAL_TYPE (PpPowerOps, pp_power_ops, PP, POWER_OPS, GObject)

/* One row of PowerDown/PowerUp (org.powerpolicy1.Manager.xml): the device, what
 * happened (suspended|off|on|skipped|failed) and why. */
typedef struct {
  char *path;
  char *status;
  char *detail;
} PpPowerResult;

void        pp_power_result_free        (PpPowerResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpPowerResult, pp_power_result_free)

/* Builds the tree from the manager's current devices and the devlinks
 * when it is needed, and follows the manager's topology changes. Holds
 * are counted in @tokens (a reference is kept). */
PpPowerOps *pp_power_ops_new            (PpManager       *manager,
                                         PpTokenRegistry *tokens);

/* PowerDown (org.powerpolicy1.Manager.xml) of the device argument @device (a
 * path or a name, resolved by the manager): PpPowerResult rows in walk order.
 * NULL with InvalidArgument for a bad @mode, NoSuchDevice, ... */
GPtrArray  *pp_power_ops_power_down     (PpPowerOps  *self,
                                         const char  *device,
                                         gboolean     subtree,
                                         const char  *mode,
                                         GError     **error);
/* PowerUp: rows (on|skipped|failed). Each device is resumed
 * (power/control=on), then handed back to the policy at once. A device
 * PowerDown(off) switched off and that left sysfs still answers to its
 * path or name. */
GPtrArray  *pp_power_ops_power_up       (PpPowerOps  *self,
                                         const char  *device,
                                         gboolean     subtree,
                                         GError     **error);

/* Hold @device (and what it depends on) up for @request until every
 * copy of *@out_fd is closed; the caller owns *@out_fd. FALSE with
 * InvalidArgument (who/why), NoSuchDevice or Refused (limits). */
gboolean    pp_power_ops_hold           (PpPowerOps           *self,
                                         const char           *device,
                                         const PpTokenRequest *request,
                                         int                  *out_fd,
                                         GError              **error);

/* The holds, as PpTokenInfo ("hold", who, why, device, pid). */
GPtrArray  *pp_power_ops_list_holds     (PpPowerOps  *self);

/* The power-dependency fields of a device whose power/control and
 * power/runtime_status were just read (@control, @runtime_status):
 * @suppliers/@consumers (sorted; the tree's strings) and *@blocker, the
 * device that keeps an active, suspendable device up (the tree's string),
 * or NULL. @memo: NULL, or a memo from pp_power_ops_blocking_memo_new()
 * kept across the devices of one answer, so that each device's state is
 * read once and no part of the tree is searched twice for nothing; it
 * must not outlive the answer (the tree may change once the main loop
 * runs). The strings are valid until the main loop runs again. */
typedef struct _PpBlockingMemo PpBlockingMemo;

PpBlockingMemo *pp_power_ops_blocking_memo_new  (void);
void            pp_power_ops_blocking_memo_free (PpBlockingMemo *memo);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpBlockingMemo, pp_power_ops_blocking_memo_free)
/* What the caller read of @syspath (kept as long as @memo). */
void        pp_power_ops_blocking_memo_add (PpBlockingMemo *memo,
                                            const char     *syspath,
                                            const char     *runtime_status,
                                            const char     *control,
                                            gboolean        held);
void        pp_power_ops_get_tree_fields (PpPowerOps   *self,
                                          const char   *syspath,
                                          const char   *control,
                                          const char   *runtime_status,
                                          PpBlockingMemo *memo,
                                          GPtrArray   **suppliers,
                                          GPtrArray   **consumers,
                                          const char  **blocker);

G_END_DECLS
