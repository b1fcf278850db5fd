/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The power-dependency tree, read from sysfs when needed
 * (powerpolicyd(8), POWER-DEPENDENCY TREE). The manager keeps only the
 * devices it manages; the tree (every device of /sys/devices, its
 * parent, the device links) is read when an operation needs it, kept
 * while it is in use, and dropped a few seconds after its last use, or
 * at once when a uevent adds, removes or moves a device. */
#pragma once

#include <glib.h>

#include "pp-manager.h"
#include "pp-tree.h"

G_BEGIN_DECLS

typedef struct _PpPowerTree PpPowerTree;

/* Follows @manager's topology changes; @manager outlives it. */
PpPowerTree *pp_power_tree_new           (PpManager   *manager);
void         pp_power_tree_free          (PpPowerTree *self);

/* The tree, read now if it is not at hand; valid until the main loop
 * runs again. */
PpTree      *pp_power_tree_get           (PpPowerTree *self);

/* Whether @path was found without power/control while this tree lives;
 * _note_no_control() records it (@path is the tree's string). The
 * kernel makes the attribute when it adds a device, and any add, remove
 * or move drops the tree. */
gboolean     pp_power_tree_lacks_control (PpPowerTree *self,
                                          const char  *path);
void         pp_power_tree_note_no_control (PpPowerTree *self,
                                            const char  *path);

G_END_DECLS
