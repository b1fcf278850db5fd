/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The power-dependency fields of a device's D-Bus dictionary
 * (org.powerpolicy1.Manager.xml, GetDevice and ListDevices: suppliers,
 * consumers, blocker), from the tree. pp-power-ops.h declares the
 * blocking memo this file implements. */
#pragma once

#include <glib.h>

#include "pp-manager.h"
#include "pp-power-ops.h"
#include "pp-power-tree.h"

G_BEGIN_DECLS

/* As pp_power_ops_get_tree_fields(). */
void pp_power_fields_get (PpPowerTree  *tree,
                          PpManager    *manager,
                          const char   *syspath,
                          const char   *control,
                          const char   *runtime_status,
                          PpBlockingMemo *memo,
                          GPtrArray   **suppliers,
                          GPtrArray   **consumers,
                          const char  **blocker);

G_END_DECLS
