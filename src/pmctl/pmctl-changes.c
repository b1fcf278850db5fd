/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl diff: what the daemon changed (ListChanges); pmctl overrides: the
 * overrides set over D-Bus (ListOverrides). Both are open to everyone. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <stdio.h>

#include "pmctl.h"
#include "pmctl-output.h"

/* ---- diff ---------------------------------------------------------------------- */

static int
run_diff (Pmctl *ctl, char **args, char **command_argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) changes = NULL;
  const char *path, *attribute, *original, *current;
  GVariantIter iter;

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_list_changes_sync (ctl->manager, &changes, NULL, &error))
    {
      pmctl_report_error (error, "list what the daemon changed", NULL);
      return PMCTL_EXIT_FAILURE;
    }

  if (ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_array (b);
      g_variant_iter_init (&iter, changes);
      while (g_variant_iter_next (&iter, "(&s&s&s&s)", &path, &attribute, &original, &current))
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "path");
          json_builder_add_string_value (b, path);
          json_builder_set_member_name (b, "attribute");
          json_builder_add_string_value (b, attribute);
          json_builder_set_member_name (b, "original");
          json_builder_add_string_value (b, original);
          json_builder_set_member_name (b, "current");
          json_builder_add_string_value (b, current);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      pmctl_json_print_builder (ctl, b);
    }
  else
    {
      static const char * const header[] = { "DEVICE", "ATTRIBUTE", "ORIGINAL", "CURRENT", NULL };
      g_autoptr(PmctlTable) t = pmctl_table_new (4);

      g_variant_iter_init (&iter, changes);
      while (g_variant_iter_next (&iter, "(&s&s&s&s)", &path, &attribute, &original, &current))
        {
          pmctl_table_add_row (t, g_strdup (path), g_strdup (attribute),
                               g_strdup (*original ? original : "-"),
                               g_strdup (*current ? current : "-"));
          /* the daemon's value stands out on a terminal */
          pmctl_table_colour (t, ctl, 3, 0, PMCTL_SGR_YELLOW);
        }
      if (pmctl_table_n_rows (t) == 0 && ctl->tty)
        printf ("Nothing changed: every attribute has its original value.\n");
      pmctl_table_print (t, ctl, header);
    }
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_diff = {
  "diff", "diff",
  "Show what the daemon changed: original and current values",
  "Print one line per attribute the daemon changed and would put back when\n"
  "it stops (RestoreOnExit=true) or after a crash: the device, the\n"
  "attribute, the value it had before the daemon changed it, and the value\n"
  "it has now. An attribute back at its original value (a layer left,\n"
  "PowerUp, an override to the original) is not listed. On a terminal the\n"
  "current values are highlighted.",
  NULL, 0, 0, FALSE, run_diff,
};

/* ---- overrides ----------------------------------------------------------------- */

static int
run_overrides (Pmctl *ctl, char **args, char **command_argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) overrides = NULL;
  const char *path, *key, *value;
  GVariantIter iter;

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_list_overrides_sync (ctl->manager, &overrides, NULL, &error))
    {
      pmctl_report_error (error, "list the overrides", NULL);
      return PMCTL_EXIT_FAILURE;
    }

  if (ctl->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_array (b);
      g_variant_iter_init (&iter, overrides);
      while (g_variant_iter_next (&iter, "(&s&s&s)", &path, &key, &value))
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "path");
          json_builder_add_string_value (b, path);
          json_builder_set_member_name (b, "key");
          json_builder_add_string_value (b, key);
          json_builder_set_member_name (b, "value");
          json_builder_add_string_value (b, value);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      pmctl_json_print_builder (ctl, b);
    }
  else
    {
      static const char * const header[] = { "DEVICE", "KEY", "VALUE", NULL };
      g_autoptr(PmctlTable) t = pmctl_table_new (3);

      g_variant_iter_init (&iter, overrides);
      while (g_variant_iter_next (&iter, "(&s&s&s)", &path, &key, &value))
        pmctl_table_add_row (t, g_strdup (path), g_strdup (key), g_strdup (value));
      if (pmctl_table_n_rows (t) == 0 && ctl->tty)
        printf ("No overrides.\n");
      pmctl_table_print (t, ctl, header);
    }
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_overrides = {
  "overrides", "overrides",
  "List the overrides set with 'pmctl set'",
  "Print one line per override set over D-Bus ('pmctl set'): the device,\n"
  "the key (Control, AutosuspendDelayMs, Wakeup) and the value. Overrides\n"
  "sit above the configuration and the udev properties and are kept across\n"
  "restarts; 'pmctl reset DEVICE' removes those of a device.",
  NULL, 0, 0, FALSE, run_overrides,
};
