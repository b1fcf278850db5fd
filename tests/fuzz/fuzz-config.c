/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration parser: any bytes as a powerpolicy.conf. Invariant:
 * every problem names the file and a line within it. The policy then
 * decides (the class cascade, every layer) and explains for a few devices
 * in one of the eight situations under that configuration: no crash, no
 * empty value written. */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "pp-config.h"
#include "pp-policy.h"

static const char *
lookup_class (gpointer user_data, const char *key)
{
  return strcmp (key, "POWERPOLICY_CLASS") == 0 ? user_data : NULL;
}

/* One situation of the eight per input (which one, from the input's
 * size): every input still decides for every device, and the run covers
 * every situation, at an eighth of the cost. The modules and the sleep
 * mode do not depend on the device: once per input. */
static void
decide_all (const PpConfig *config, guint sit)
{
  static const char * const devices[][3] = {
    { "usb", "webcam", NULL }, { "usb", NULL, NULL }, { "pci", "pci-gpu", "amdgpu" },
    { "pci", NULL, "mei_me" }, { "scsi_host", "sata-host", NULL },
  };
  PpSituation situation = { sit & 1, (sit >> 2) & 1, (sit >> 1) & 1 };
  g_autoptr(GPtrArray) modules = NULL;

  for (guint d = 0; d < G_N_ELEMENTS (devices); d++)
    {
      PpDeviceState state = { NULL, FALSE, FALSE, NULL, devices[d][2] };
      PpDeviceProps props;
      g_autoptr(PpDecision) decision = NULL;
      g_autoptr(GPtrArray) rows = NULL;

      pp_device_props_init (&props, devices[d][0], lookup_class, (gpointer) devices[d][1], NULL);
      decision = pp_policy_decide (config, &props, &situation, &state);
      rows = pp_policy_explain (config, &props, decision);
      pp_device_props_clear (&props);
      for (guint i = 0; i < decision->settings->len; i++)
        FUZZ_ASSERT (*((PpSetting *) g_ptr_array_index (decision->settings, i))->value != '\0');
    }
  modules = pp_policy_module_settings (config, &situation);
  for (guint i = 0; i < modules->len; i++)
    FUZZ_ASSERT (*((PpSetting *) g_ptr_array_index (modules, i))->value != '\0');
  FUZZ_ASSERT (pp_policy_sleep_mode (config, &situation, FALSE, NULL) != NULL);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(PpConfig) config = pp_config_new ();
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  guint lines;

  fuzz_init_logging ();
  lines = fuzz_count_lines (data, size);
  pp_config_load_data (config, "fuzz.conf", (const char *) data, size, problems);
  for (guint i = 0; i < problems->len; i++)
    {
      PpConfigProblem *p = g_ptr_array_index (problems, i);
      g_autofree char *s = pp_config_problem_to_string (p);

      FUZZ_ASSERT (g_strcmp0 (p->file, "fuzz.conf") == 0);
      FUZZ_ASSERT (p->line <= lines);
      FUZZ_ASSERT (s != NULL);
    }
  decide_all (config, size % 8);
  return 0;
}
