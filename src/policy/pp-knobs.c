/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-knobs"

#include "config.h"

#include <string.h>

#include "pp-knobs.h"

/* Drives reported to hang, drop off the bus or lose I/O with APST on.
 * The kernel itself keeps the deepest power state off for some of them
 * (NVME_QUIRK_NO_DEEPEST_PS, on some machines only); the reports in the
 * nvme-cli and distribution trackers end with APST off
 * (nvme_core.default_ps_max_latency_us=0), which is what the daemon does
 * at run time. PCI ids from the kernel's nvme-pci table, models as the
 * controllers report them (nvme list, /sys/class/nvme/nvmeN/model). */
static const PpNvmeApstQuirk nvme_apst_quirks[] = {
  {
    "kingston-a2000", 0x2646, 0x2263, "KINGSTON SA2000M8", FALSE,
    "Kingston A2000 (Silicon Motion SM2263): I/O errors and a controller that stops "
    "answering after leaving APST's deepest state (kernel quirk NO_DEEPEST_PS for 2646:2263)",
  },
  {
    "samsung-sm951", 0x144d, 0xa802, "SM951 NVMe SAMSUNG", FALSE,
    "Samsung SM951 NVMe: drops off the PCIe bus with APST's deepest state "
    "(kernel quirk for 144d:a802; Ubuntu bug 1678184)",
  },
  {
    "samsung-pm951", 0x144d, 0xa802, "PM951 NVMe SAMSUNG", FALSE,
    "Samsung PM951 NVMe: drops off the PCIe bus with APST's deepest state "
    "(kernel quirk for 144d:a802; Ubuntu bug 1678184)",
  },
  {
    "sabrent-rocket-q", 0, 0, "Sabrent Rocket Q", TRUE,
    "Sabrent Rocket Q (Phison E12S): random failures entering and leaving PS4, "
    "failed resume (pop-os/linux#35)",
  },
  { NULL, 0, 0, NULL, FALSE, NULL },
};

const PpNvmeApstQuirk *
pp_nvme_apst_quirks (void)
{
  return nvme_apst_quirks;
}

const PpNvmeApstQuirk *
pp_nvme_apst_quirk_find (guint vendor, guint device, const char *model)
{
  for (const PpNvmeApstQuirk *q = nvme_apst_quirks; q->name != NULL; q++)
    {
      if (q->vendor != 0 && q->vendor != vendor)
        continue;
      if (q->device != 0 && q->device != device)
        continue;
      if (q->model != NULL)
        {
          if (model == NULL)
            continue;
          if (q->model_exact ? !g_str_equal (model, q->model) : !g_str_has_prefix (model, q->model))
            continue;
        }
      return q;
    }
  return NULL;
}

char *
pp_choice_selected (const char *text)
{
  const char *open = NULL;
  const char *close = NULL;
  gboolean word_start = TRUE;

  if (text == NULL || *text == '\0')
    return NULL;
  for (const char *p = text; *p; p++)
    {
      if (*p == ' ')
        {
          /* one space between words, none at the ends */
          if (word_start || p[1] == '\0')
            return NULL;
          word_start = TRUE;
          continue;
        }
      if (*p == '[')
        {
          if (!word_start || open != NULL)
            return NULL;
          open = p;
        }
      else if (*p == ']')
        {
          if (open == NULL || close != NULL || p == open + 1 || (p[1] != ' ' && p[1] != '\0'))
            return NULL;
          close = p;
        }
      else if (g_ascii_iscntrl (*p))
        {
          return NULL;
        }
      word_start = FALSE;
    }
  if (open == NULL || close == NULL)
    return NULL;
  return g_strndup (open + 1, close - open - 1);
}

gboolean
pp_knob_is_aspm_link (const char *relpath)
{
  static const char * const files[] = {
    PP_ATTR_ASPM_L0S, PP_ATTR_ASPM_L1, PP_ATTR_ASPM_L1_1, PP_ATTR_ASPM_L1_2,
    PP_ATTR_ASPM_CLKPM, NULL,
  };

  return relpath != NULL && g_strv_contains (files, relpath);
}

const char *
pp_knob_absent_reason (const char *relpath, gboolean link_dir_exists)
{
  if (pp_knob_is_aspm_link (relpath))
    {
      if (!link_dir_exists)
        return "firmware controls ASPM (the kernel shows no link/ directory: the OS was not "
               "given ASPM control, pcie_aspm=off, or the device has no PCIe link of its own); "
               "nothing written";
      return "the link cannot do this state (the kernel shows no such file under link/); "
             "nothing written";
    }
  if (relpath != NULL && g_str_equal (relpath, PP_ATTR_NVME_APST))
    return "no NVMe controller below the device (nvme/nvmeN/power/pm_qos_latency_tolerance_us); "
           "nothing written";
  if (relpath != NULL && g_str_equal (relpath, PP_ATTR_PANEL_POWER))
    return "no amdgpu/panel_power_savings (not an amdgpu eDP panel, or a kernel older than 6.9); "
           "nothing written";
  return NULL;
}
