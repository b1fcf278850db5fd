/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl power-down, pmctl power-up: one device or a subtree, in
 * dependency order, one result row per device. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include "pmctl.h"
#include "pmctl-output.h"
#include "pp-enums.h"
#include "pp-names.h"

static gboolean opt_subtree;
static gboolean opt_off;

static const GOptionEntry power_down_entries[] = {
  { "subtree", 0, 0, G_OPTION_ARG_NONE, &opt_subtree, "also every device below", NULL },
  { "off", 0, 0, G_OPTION_ARG_NONE, &opt_off, "switch off (USB port, PCI slot)", NULL },
  { NULL }
};

static const GOptionEntry power_up_entries[] = {
  { "subtree", 0, 0, G_OPTION_ARG_NONE, &opt_subtree, "also every device below", NULL },
  { NULL }
};

static gboolean
result_failed (const char *result)
{
  PpPowerResult r;

  return pp_power_result_from_string (result, &r) && r == PP_POWER_RESULT_FAILED;
}

/* Print PowerDown's or PowerUp's a(sss) rows; the number of "failed". */
static guint
print_power_results (Pmctl *ctl, GVariant *rows)
{
  static const char * const header[] = { "PATH", "RESULT", "DETAIL", NULL };
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(PmctlTable) t = pmctl_table_new (3);
  GVariantIter iter;
  const char *path, *result, *detail;
  guint failed = 0;

  json_builder_begin_array (b);
  g_variant_iter_init (&iter, rows);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &path, &result, &detail))
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "path");
      json_builder_add_string_value (b, path);
      json_builder_set_member_name (b, "result");
      json_builder_add_string_value (b, result);
      json_builder_set_member_name (b, "detail");
      json_builder_add_string_value (b, detail);
      json_builder_end_object (b);

      pmctl_table_add_row (t, g_strdup (path), g_strdup (result), g_strdup (*detail ? detail : "-"));
      if (result_failed (result))
        {
          failed++;
          pmctl_table_colour (t, ctl, 1, 0, PMCTL_SGR_BOLD_RED);
        }
    }
  json_builder_end_array (b);

  if (ctl->json)
    pmctl_json_print_builder (ctl, b);
  else
    pmctl_table_print (t, ctl, header);
  return failed;
}

/* PowerDown (@down) or PowerUp of @device; exit status 1 if any device
 * failed. */
static int
run_power (Pmctl *ctl, const char *device, gboolean down)
{
  PpPowerDownMode mode = opt_off ? PP_POWER_DOWN_MODE_OFF : PP_POWER_DOWN_MODE_AUTO;
  g_autofree char *what = g_strdup_printf ("%s %s", down ? "power down" : "power up", device);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) rows = NULL;
  gboolean ok;
  guint failed;

  if (!pmctl_connect_to_change (ctl))
    return PMCTL_EXIT_FAILURE;
  if (down)
    ok = pp_dbus_manager_call_power_down_sync (ctl->manager, device, opt_subtree,
                                               pp_power_down_mode_to_string (mode),
                                               &rows, NULL, &error);
  else
    ok = pp_dbus_manager_call_power_up_sync (ctl->manager, device, opt_subtree, &rows,
                                             NULL, &error);
  if (!ok)
    {
      pmctl_report_error (error, what, device);
      return PMCTL_EXIT_FAILURE;
    }
  failed = print_power_results (ctl, rows);
  if (failed > 0)
    {
      pmctl_fail ("%s: %u of %" G_GSIZE_FORMAT " device%s failed", what, failed,
                  g_variant_n_children (rows), g_variant_n_children (rows) == 1 ? "" : "s");
      return pmctl_finish_output (PMCTL_EXIT_FAILURE);
    }
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

static int
run_power_down (Pmctl *ctl, char **args, char **command_argv)
{
  return run_power (ctl, args[0], TRUE);
}

static int
run_power_up (Pmctl *ctl, char **args, char **command_argv)
{
  return run_power (ctl, args[0], FALSE);
}

const PmctlCommand pmctl_command_power_down = {
  "power-down", "power-down DEVICE [--subtree] [--off]",
  "Let a device suspend now, or switch it off",
  "Allow runtime suspend of DEVICE now (power/control=auto, no autosuspend\n"
  "delay); the kernel suspends it when it is idle. --subtree: every\n"
  "descendant and consumer first, and a device only once nothing that\n"
  "depends on it stays up. --off: switch the device off where the hardware\n"
  "allows (USB port, PCI slot) until 'pmctl power-up'. Prints one line per\n"
  "device: path, result (suspended, off, skipped, failed), detail. Exit\n"
  "status 1 if any device failed. Needs root or the polkit action\n"
  PP_POLKIT_ACTION_MANAGE ".",
  power_down_entries, 1, 1, FALSE, run_power_down,
};

const PmctlCommand pmctl_command_power_up = {
  "power-up", "power-up DEVICE [--subtree]",
  "Power a device up, suppliers and ancestors first",
  "Resume DEVICE (power/control=on) after its suppliers and ancestors, and\n"
  "switch back on a port or slot that 'pmctl power-down --off' switched\n"
  "off. --subtree: then every descendant and consumer. Once all are up the\n"
  "policy applies again at once (a device it lets autosuspend is auto with\n"
  "its delay); 'pmctl hold' keeps a device on. Prints one line per\n"
  "device: path, result (on, skipped, failed), detail. Exit status 1 if\n"
  "any device failed. Needs root or the polkit action " PP_POLKIT_ACTION_MANAGE ".",
  power_up_entries, 1, 1, FALSE, run_power_up,
};
