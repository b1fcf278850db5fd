/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading the machine facts video quirks match on (powerpolicyd(8), SYSTEM
 * SLEEP, LID AND VIDEO QUIRKS): DMI, the
 * primary video PCI device, its driver and KMS, the kernel version. */
#pragma once

#include "pp-quirkdb.h"

G_BEGIN_DECLS

/* Fill @facts (initialised by this call) from /sys/class/dmi/id, the
 * first PCI device of class 0x030000 in /sys/bus/pci/devices,
 * /sys/module/{nvidia,fglrx} and /proc/sys/kernel/osrelease (uname as
 * fallback). Missing pieces are "". */
void   pp_machine_read_facts   (PpMachineFacts *facts);

/* The syspath of the primary video device, or NULL. */
char  *pp_machine_primary_video_path (void);

G_END_DECLS
