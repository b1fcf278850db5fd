/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl status: the daemon's properties, holds and inhibitors, and the
 * devices counted by runtime status. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <math.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pp-enums.h"
#include "pp-util.h"

/* Properties in the order they are printed; any other property the
 * daemon has follows, sorted by name. */
static const char * const status_property_order[] = {
  "Version", "Backend", "OnBattery", "PowerSource", "LowBattery", "UserIdle", "IdleTimeoutSec",
  "LidClosed", "Docked", "VideoQuirks", "DryRun", "Conflicts",
  "WriteFailures", "LastPolicyPassSec", "PowerProfile", NULL,
};

/* LastPolicyPassSec: "12.3 ms", "1.25 s"; "-" before the first pass. */
static char *
format_pass_duration (double sec)
{
  if (!isfinite (sec) || sec <= 0)
    return g_strdup ("-");
  if (sec < 1)
    return g_strdup_printf ("%.1f ms", sec * 1000);
  return g_strdup_printf ("%.2f s", sec);
}

/* Conflicts a(ss): "-", or "SUBJECT: WHAT" joined with "; ". */
static char *
format_conflicts (GVariant *conflicts)
{
  g_autoptr(GString) s = g_string_new (NULL);
  const char *subject, *what;
  GVariantIter iter;

  if (conflicts == NULL || !g_variant_is_of_type (conflicts, G_VARIANT_TYPE ("a(ss)")) ||
      g_variant_n_children (conflicts) == 0)
    return g_strdup ("-");
  g_variant_iter_init (&iter, conflicts);
  while (g_variant_iter_next (&iter, "(&s&s)", &subject, &what))
    g_string_append_printf (s, "%s%s: %s", s->len ? "; " : "", subject, what);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* Conflicts as [{"subject": ..., "what": ...}]. */
static JsonNode *
conflicts_to_json (GVariant *conflicts)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  const char *subject, *what;
  GVariantIter iter;

  json_builder_begin_array (b);
  if (conflicts != NULL && g_variant_is_of_type (conflicts, G_VARIANT_TYPE ("a(ss)")))
    {
      g_variant_iter_init (&iter, conflicts);
      while (g_variant_iter_next (&iter, "(&s&s)", &subject, &what))
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "subject");
          json_builder_add_string_value (b, subject);
          json_builder_set_member_name (b, "what");
          json_builder_add_string_value (b, what);
          json_builder_end_object (b);
        }
    }
  json_builder_end_array (b);
  return json_builder_get_root (b);
}

/* Count devices by runtime_status into @counts (name -> count, keys owned
 * by the returned array). Returns the status names in print order: the
 * known statuses first (also when none), then any other status sorted. */
static GPtrArray *
count_runtime_statuses (GVariant *devices, GHashTable *counts)
{
  GPtrArray *order = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) extra = g_ptr_array_new ();
  GVariantIter iter;
  GVariant *dict;

  for (PpRuntimeStatus s = 0; s <= PP_RUNTIME_STATUS_LAST; s++)
    {
      char *name = g_strdup (pp_runtime_status_to_string (s));
      g_ptr_array_add (order, name);
      g_hash_table_insert (counts, name, GUINT_TO_POINTER (0));
    }
  g_variant_iter_init (&iter, devices);
  while ((dict = g_variant_iter_next_value (&iter)) != NULL)
    {
      const char *status = pmctl_dict_get_string (dict, PP_DEVICE_KEY_RUNTIME_STATUS);
      gpointer key = NULL;
      gpointer old = NULL;

      if (*status == '\0')
        status = "unknown";
      if (!g_hash_table_lookup_extended (counts, status, &key, &old))
        {
          key = g_strdup (status);
          g_ptr_array_add (extra, key);
        }
      g_hash_table_insert (counts, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (old) + 1));
      g_variant_unref (dict);
    }
  g_ptr_array_sort (extra, pp_compare_strings);
  g_ptr_array_extend (order, extra, NULL, NULL);
  return order;
}

/* "N (what by who[pid] on device: why; ...)" */
static char *
format_inhibitors (GVariant *inhibitors)
{
  g_autoptr(GString) s = g_string_new (NULL);
  GVariantIter iter;
  const char *what, *who, *why, *device;
  guint32 pid;
  guint n = 0;

  g_string_append_printf (s, "%" G_GSIZE_FORMAT, g_variant_n_children (inhibitors));
  g_variant_iter_init (&iter, inhibitors);
  while (g_variant_iter_next (&iter, "(&s&s&s&su)", &what, &who, &why, &device, &pid))
    {
      g_string_append (s, n++ == 0 ? " (" : "; ");
      g_string_append_printf (s, "%s by %s[%u]", what, who, pid);
      if (*device)
        g_string_append_printf (s, " on %s", device);
      if (*why)
        g_string_append_printf (s, ": %s", why);
    }
  if (n > 0)
    g_string_append_c (s, ')');
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* The property names the daemon has: the known ones in order, then the
 * rest sorted. */
static GPtrArray *
property_names (GDBusProxy *proxy)
{
  g_auto(GStrv) cached = g_dbus_proxy_get_cached_property_names (proxy);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) rest = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; status_property_order[i]; i++)
    {
      if (cached != NULL && g_strv_contains ((const char * const *) cached, status_property_order[i]))
        g_ptr_array_add (names, g_strdup (status_property_order[i]));
    }
  for (guint i = 0; cached != NULL && cached[i]; i++)
    {
      if (!g_strv_contains (status_property_order, cached[i]))
        g_ptr_array_add (rest, g_strdup (cached[i]));
    }
  g_ptr_array_sort (rest, pp_compare_strings);
  g_ptr_array_extend_and_steal (names, g_steal_pointer (&rest));
  return names;
}

/* Every property the daemon has is printed, those this pmctl does not
 * know too (a newer daemon's), so the rows go by the cached names; the
 * ones that need more than their value (Conflicts, LastPolicyPassSec,
 * DryRun, WriteFailures) are read through the proxy's typed getters. */
static void
print_status_json (Pmctl *ctl, GPtrArray *names, GVariant *inhibitors, GVariant *devices,
                   GPtrArray *statuses, GHashTable *counts)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  for (guint i = 0; i < names->len; i++)
    {
      g_autoptr(GVariant) value = g_dbus_proxy_get_cached_property (G_DBUS_PROXY (ctl->manager),
                                                                    names->pdata[i]);
      json_builder_set_member_name (b, names->pdata[i]);
      if (g_str_equal (names->pdata[i], "Conflicts"))
        {
          g_autoptr(GVariant) conflicts = pp_dbus_manager_dup_conflicts (ctl->manager);
          json_builder_add_value (b, conflicts_to_json (conflicts));
        }
      else
        json_builder_add_value (b, json_gvariant_serialize (value));
    }
  json_builder_set_member_name (b, "inhibitors");
  pmctl_add_inhibitors_json (b, inhibitors);
  json_builder_set_member_name (b, "devices");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "total");
  json_builder_add_int_value (b, (gint64) g_variant_n_children (devices));
  for (guint i = 0; i < statuses->len; i++)
    {
      const char *status = g_ptr_array_index (statuses, i);
      json_builder_set_member_name (b, status);
      json_builder_add_int_value (b, GPOINTER_TO_UINT (g_hash_table_lookup (counts, status)));
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
  pmctl_json_print_builder (ctl, b);
}

static void
print_status_text (Pmctl *ctl, GPtrArray *names, GVariant *inhibitors, GVariant *devices,
                   GPtrArray *statuses, GHashTable *counts)
{
  g_autoptr(PmctlTable) t = pmctl_table_new (2);
  g_autoptr(GString) summary = g_string_new (NULL);
  const char *separator = ctl->tty ? ", " : ",";

  for (guint i = 0; i < names->len; i++)
    {
      g_autoptr(GVariant) value = g_dbus_proxy_get_cached_property (G_DBUS_PROXY (ctl->manager),
                                                                    names->pdata[i]);
      if (g_str_equal (names->pdata[i], "Conflicts"))
        {
          g_autoptr(GVariant) conflicts = pp_dbus_manager_dup_conflicts (ctl->manager);

          pmctl_table_add_row (t, g_strdup (names->pdata[i]), format_conflicts (conflicts));
          /* another tool at work: worth a look */
          if (conflicts != NULL && g_variant_n_children (conflicts) > 0)
            pmctl_table_colour (t, ctl, 1, 0, PMCTL_SGR_YELLOW);
          continue;
        }
      /* PowerSource: "auto" follows the power supplies; "ac" or
       * "battery" is fixed by [Daemon] PowerSource= (powerpolicy.conf(5)) */
      if (g_str_equal (names->pdata[i], "PowerSource") && value != NULL &&
          g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        {
          const char *source = g_variant_get_string (value, NULL);

          pmctl_table_add_row (t, g_strdup (names->pdata[i]),
                               g_str_equal (source, "auto")
                               ? g_strdup ("auto (from the power supplies)")
                               : g_strdup_printf ("%s (fixed by the configuration, PowerSource=)",
                                                  source));
          continue;
        }
      if (g_str_equal (names->pdata[i], "LastPolicyPassSec"))
        {
          pmctl_table_add_row (t, g_strdup (names->pdata[i]),
                               format_pass_duration (pp_dbus_manager_get_last_policy_pass_sec (ctl->manager)));
          continue;
        }
      pmctl_table_add_row (t, g_strdup (names->pdata[i]), pmctl_format_value (value, separator));
      /* dry run, or writes failing: worth a look */
      if ((g_str_equal (names->pdata[i], "DryRun") && pp_dbus_manager_get_dry_run (ctl->manager)) ||
          (g_str_equal (names->pdata[i], "WriteFailures") &&
           pp_dbus_manager_get_write_failures (ctl->manager) > 0))
        pmctl_table_colour (t, ctl, 1, 0, PMCTL_SGR_YELLOW);
    }
  pmctl_table_add_row (t, g_strdup ("Inhibitors"), format_inhibitors (inhibitors));

  g_string_append_printf (summary, "%" G_GSIZE_FORMAT, g_variant_n_children (devices));
  for (guint i = 0, shown = 0; i < statuses->len; i++)
    {
      const char *status = g_ptr_array_index (statuses, i);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, status));

      if (n == 0)
        continue;
      g_string_append_printf (summary, "%s%u %s", shown++ ? ", " : " (", n, status);
    }
  if (g_variant_n_children (devices) > 0)
    g_string_append_c (summary, ')');
  pmctl_table_add_row (t, g_strdup ("Devices"), g_string_free (g_steal_pointer (&summary), FALSE));
  pmctl_fields_print (t, ctl);
}

static int
run_status (Pmctl *ctl, char **args, char **command_argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) devices = NULL;
  g_autoptr(GVariant) inhibitors = NULL;
  g_autoptr(GPtrArray) statuses = NULL;
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_NONE))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_list_devices_sync (ctl->manager, &devices, NULL, &error))
    {
      pmctl_report_error (error, "list the devices", NULL);
      return PMCTL_EXIT_FAILURE;
    }
  if (!pp_dbus_manager_call_list_inhibitors_sync (ctl->manager, &inhibitors, NULL, &error))
    {
      pmctl_report_error (error, "list the inhibitors", NULL);
      return PMCTL_EXIT_FAILURE;
    }
  names = property_names (G_DBUS_PROXY (ctl->manager));
  if (names->len == 0)
    {
      pmctl_fail ("cannot read the daemon's properties");
      return PMCTL_EXIT_FAILURE;
    }

  statuses = count_runtime_statuses (devices, counts);
  if (ctl->json)
    print_status_json (ctl, names, inhibitors, devices, statuses, counts);
  else
    print_status_text (ctl, names, inhibitors, devices, statuses, counts);
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_status = {
  "status", "status",
  "Show the daemon's state and device counts by runtime status",
  "Print the daemon's properties (version, sleep backend, power source,\n"
  "user idle and the idle timeout, lid, dock, video quirks, dry run, the\n"
  "conflicts with other power tools, and whatever else the running daemon\n"
  "offers), the holds and inhibitors in force, and how many devices are in\n"
  "each runtime power state.",
  NULL, 0, 0, FALSE, run_status,
};
