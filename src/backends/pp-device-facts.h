/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a decision needs to know of a device that udev's properties do
 * not say, read from sysfs once, when the device is added or changes
 * (coldplug, a uevent): its PCI ids, its NVMe controllers and APST
 * quirk, and the hard power switch PowerDown(mode=off) would turn
 * (org.powerpolicy1.Manager.xml). The decisions (the policy layers,
 * Explain, PowerDown) then read nothing of these again. */
#pragma once

#include <glib.h>

#include "pp-knobs.h"
#include "pp-udev.h"

G_BEGIN_DECLS

typedef struct {
  guint16                pci_vendor;        /* an NVMe function's (driver nvme); 0 for
                                             * any other device, or unreadable */
  guint16                pci_device;
  GPtrArray             *nvme_controllers;  /* names under nvme/ (nvme0, ...), sorted;
                                             * empty for a device that is no NVMe function */
  const PpNvmeApstQuirk *apst_quirk;        /* an NVMe drive's APST quirk, or NULL */
  char                  *power_switch;      /* the attribute that switches it off, or NULL */
  const char            *switch_off;        /* what it is written to switch off */
  const char            *switch_on;         /* and back on */
  GError                *no_switch;         /* why there is none (power_switch NULL) */
} PpDeviceFacts;

/* Read @info's facts into @facts (which holds none). */
void pp_device_facts_read  (PpDeviceFacts *facts,
                            PpDeviceInfo  *info);
/* Free what @facts holds; it holds none after. */
void pp_device_facts_clear (PpDeviceFacts *facts);

G_END_DECLS
