/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl explain: why each attribute of a device has its value. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include "pmctl.h"
#include "pmctl-output.h"

static int
run_explain (Pmctl *ctl, char **args, char **command_argv)
{
  const char *device = args[0];
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) rows = NULL;
  const char *attribute, *current, *decided, *layer, *origin;
  GVariantIter iter;

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_explain_sync (ctl->manager, device, &rows, NULL, &error))
    {
      pmctl_report_error (error, "explain the device", device);
      return PMCTL_EXIT_FAILURE;
    }

  g_variant_iter_init (&iter, rows);
  if (ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      pmctl_json_add_explain_rows (b, rows);
      pmctl_json_print_builder (ctl, b);
    }
  else
    {
      static const char * const header[] = {
        "ATTRIBUTE", "CURRENT", "DECIDED", "LAYER", "ORIGIN", NULL,
      };
      g_autoptr(PmctlTable) t = pmctl_table_new (5);

      while (g_variant_iter_next (&iter, "(&s&s&s&s&s)", &attribute, &current, &decided, &layer,
                                  &origin))
        {
          /* a decided value not (yet) in place stands out on a terminal */
          gboolean differs = *decided != '\0' && !g_str_equal (decided, current);

          pmctl_table_add_row (t, g_strdup (attribute), g_strdup (*current ? current : "-"),
                               g_strdup (*decided ? decided : "-"), g_strdup (*layer ? layer : "-"),
                               g_strdup (*origin ? origin : "-"));
          if (differs)
            pmctl_table_colour (t, ctl, 2, 0, PMCTL_SGR_YELLOW);
        }
      pmctl_table_print (t, ctl, header);
    }
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_explain = {
  "explain", "explain DEVICE",
  "Why each attribute of a device has its value (layer and origin)",
  "Print one line per attribute the policy touches on DEVICE: the attribute,\n"
  "its current value, the value the daemon decided (- when it leaves the\n"
  "attribute alone), the layer that decided (class, battery, low-battery,\n"
  "idle, hwdb, udev, override, power-down, hold, excluded, ignored, revert,\n"
  "quirk, sleep, own: the device's own value) and its\n"
  "origin: the FILE:LINE of the configuration line, the udev property, the\n"
  "override, the hold (who, why, pid), the excluded driver, the NVMe APST\n"
  "quirk; for a knob the device lacks, why (\"firmware controls ASPM\").",
  NULL, 1, 1, FALSE, run_explain,
};
