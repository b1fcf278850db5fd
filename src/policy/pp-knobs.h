/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The hardware knobs beyond runtime PM (issue 19 part 2): PCIe ASPM link
 * states, NVMe APST latency tolerance and its quirk list, amdgpu panel
 * power savings; and reading a sysfs list of choices. Pure: no I/O. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Per-link ASPM states of a PCIe device (kernel >= 5.5; the kernel hides
 * link/ when the OS does not control ASPM, and each file when the link
 * cannot do the state). */
#define PP_ATTR_ASPM_L0S       "link/l0s_aspm"
#define PP_ATTR_ASPM_L1        "link/l1_aspm"
#define PP_ATTR_ASPM_L1_1      "link/l1_1_aspm"
#define PP_ATTR_ASPM_L1_2      "link/l1_2_aspm"
#define PP_ATTR_ASPM_CLKPM     "link/clkpm"
#define PP_ASPM_LINK_DIR       "link"

/* The APST latency tolerance of the NVMe controller below an NVMe PCI
 * function (nvme/nvmeN/power/...). The only setting key with a '*': the
 * manager expands it to the controllers the device has. */
#define PP_ATTR_NVME_APST      "nvme/*/power/pm_qos_latency_tolerance_us"
#define PP_NVME_DIR            "nvme"
#define PP_NVME_APST_TAIL      "power/pm_qos_latency_tolerance_us"

/* amdgpu's panel power savings on an eDP connector (kernel >= 6.9). */
#define PP_ATTR_PANEL_POWER    "amdgpu/panel_power_savings"
#define PP_PANEL_POWER_MAX     4

/* The PCIe ASPM policy, a module parameter. */
#define PP_ASPM_MODULE         "pcie_aspm"
#define PP_ASPM_POLICY_PARAM   "policy"

/* A drive whose APST is known broken: the daemon turns APST off on it
 * (latency tolerance 0) unless the class says ApstQuirks=false. A field
 * 0/NULL matches anything; @model_exact: @model must be the whole model
 * string, else a prefix of it. */
typedef struct {
  const char *name;
  guint16     vendor;         /* PCI vendor of the NVMe function */
  guint16     device;         /* PCI device */
  const char *model;          /* the controller's model (nvme/nvmeN/model) */
  gboolean    model_exact;
  const char *reason;         /* one line: what breaks, where it was reported */
} PpNvmeApstQuirk;

/* The quirk matching a drive, or NULL. @model may be NULL (the controller
 * is not there yet): then only entries without a model can match. */
const PpNvmeApstQuirk *pp_nvme_apst_quirk_find (guint        vendor,
                                                guint        device,
                                                const char  *model);
/* The whole list, NULL-name terminated (for tests and documentation). */
const PpNvmeApstQuirk *pp_nvme_apst_quirks     (void);

/* The chosen word of a sysfs list of choices, as the kernel shows
 * /sys/module/pcie_aspm/parameters/policy ("default performance
 * [powersave] powersupersave"): words separated by single spaces, exactly
 * one of them in brackets. NULL when @text is not such a list (a plain
 * value is compared as it is). */
char                  *pp_choice_selected      (const char  *text);

/* Is @relpath one of the per-link ASPM files? */
gboolean               pp_knob_is_aspm_link    (const char  *relpath);

/* Why a knob attribute the policy decided is absent from a device, for
 * Explain; NULL for an attribute that is not one of these knobs.
 * @link_dir_exists: the device has a link/ directory (ASPM files). */
const char            *pp_knob_absent_reason   (const char  *relpath,
                                                gboolean     link_dir_exists);

G_END_DECLS
