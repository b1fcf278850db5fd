/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl profile [NAME]: the power profile in force, the ones offered,
 * the holds and the [Platform] knobs (ExplainPlatform); with NAME, choose
 * it. It talks to powerpolicyd under its own name, so that it reaches
 * powerpolicyd's profiles also when another program owns
 * power-profiles-daemon's names (data/dbus/org.powerpolicy1.PowerProfiles.xml). */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include "pmctl.h"
#include "pmctl-output.h"
#include "pp-names.h"

static const char * const profile_names[] = { "power-saver", "balanced", "performance", NULL };

/* GetAll of the PowerProfiles interface, or NULL with @error (the
 * daemon serves no profiles: PowerProfiles=false). */
static GVariant *
get_all (Pmctl *ctl, GError **error)
{
  g_autoptr(GVariant) reply =
    g_dbus_connection_call_sync (ctl->bus, PP_DBUS_NAME, PP_PROFILES_PATH,
                                 "org.freedesktop.DBus.Properties", "GetAll",
                                 g_variant_new ("(s)", PP_PROFILES_NAME), G_VARIANT_TYPE ("(a{sv})"),
                                 G_DBUS_CALL_FLAGS_NONE, PMCTL_CALL_TIMEOUT_MS, NULL, error);

  return reply != NULL ? g_variant_get_child_value (reply, 0) : NULL;
}

static char *
join_offered (GVariant *profiles)
{
  g_autoptr(GString) s = g_string_new (NULL);
  GVariantIter iter;
  GVariant *dict;

  g_variant_iter_init (&iter, profiles);
  while ((dict = g_variant_iter_next_value (&iter)) != NULL)
    {
      g_string_append_printf (s, "%s%s", s->len ? " " : "", pmctl_dict_get_string (dict, "Profile"));
      g_variant_unref (dict);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static char *
join_holds (GVariant *holds)
{
  g_autoptr(GString) s = g_string_new (NULL);
  GVariantIter iter;
  GVariant *dict;

  g_variant_iter_init (&iter, holds);
  while ((dict = g_variant_iter_next_value (&iter)) != NULL)
    {
      g_string_append_printf (s, "%s%s by %s", s->len ? "; " : "",
                              pmctl_dict_get_string (dict, "Profile"),
                              pmctl_dict_get_string (dict, "ApplicationId"));
      if (*pmctl_dict_get_string (dict, "Reason") != '\0')
        g_string_append_printf (s, " (%s)", pmctl_dict_get_string (dict, "Reason"));
      g_variant_unref (dict);
    }
  return s->len ? g_string_free (g_steal_pointer (&s), FALSE) : g_strdup ("-");
}

static void
print_json (Pmctl *ctl, const char *profile, GVariant *all, GVariant *rows)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(GVariant) profiles = all ? g_variant_lookup_value (all, "Profiles", G_VARIANT_TYPE ("aa{sv}")) : NULL;
  g_autoptr(GVariant) holds = all ? g_variant_lookup_value (all, "ActiveProfileHolds", G_VARIANT_TYPE ("aa{sv}")) : NULL;
  GVariantIter iter;
  GVariant *dict;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "profile");
  json_builder_add_string_value (b, profile);
  json_builder_set_member_name (b, "served");
  json_builder_add_boolean_value (b, all != NULL);
  json_builder_set_member_name (b, "profiles");
  json_builder_begin_array (b);
  if (profiles != NULL)
    {
      g_variant_iter_init (&iter, profiles);
      while ((dict = g_variant_iter_next_value (&iter)) != NULL)
        {
          json_builder_begin_object (b);
          for (guint i = 0; i < 4; i++)
            {
              static const char * const keys[] = { "Profile", "Driver", "PlatformDriver", "CpuDriver" };
              static const char * const names[] = { "profile", "driver", "platform_driver", "cpu_driver" };

              json_builder_set_member_name (b, names[i]);
              json_builder_add_string_value (b, pmctl_dict_get_string (dict, keys[i]));
            }
          json_builder_end_object (b);
          g_variant_unref (dict);
        }
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "holds");
  json_builder_begin_array (b);
  if (holds != NULL)
    {
      g_variant_iter_init (&iter, holds);
      while ((dict = g_variant_iter_next_value (&iter)) != NULL)
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "profile");
          json_builder_add_string_value (b, pmctl_dict_get_string (dict, "Profile"));
          json_builder_set_member_name (b, "application_id");
          json_builder_add_string_value (b, pmctl_dict_get_string (dict, "ApplicationId"));
          json_builder_set_member_name (b, "reason");
          json_builder_add_string_value (b, pmctl_dict_get_string (dict, "Reason"));
          json_builder_end_object (b);
          g_variant_unref (dict);
        }
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "platform");
  pmctl_json_add_explain_rows (b, rows);
  json_builder_end_object (b);
  pmctl_json_print_builder (ctl, b);
}

static int
show_profile (Pmctl *ctl)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) all = NULL;
  g_autoptr(GVariant) rows = NULL;
  g_autoptr(PmctlTable) fields = pmctl_table_new (2);
  g_autoptr(PmctlTable) knobs = pmctl_table_new (5);
  const char *profile;
  static const char * const header[] = { "ATTRIBUTE", "CURRENT", "DECIDED", "LAYER", "ORIGIN", NULL };
  GVariantIter iter;
  const char *attribute, *current, *decided, *layer, *origin;

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_NONE))
    return PMCTL_EXIT_FAILURE;
  profile = pp_dbus_manager_get_power_profile (ctl->manager);
  if (profile == NULL)
    {
      pmctl_fail ("the daemon does not report a power profile (an older powerpolicyd?)");
      return PMCTL_EXIT_FAILURE;
    }
  if (!pp_dbus_manager_call_explain_platform_sync (ctl->manager, &rows, NULL, &error))
    {
      pmctl_report_error (error, "explain the platform knobs", NULL);
      return PMCTL_EXIT_FAILURE;
    }
  /* absent with PowerProfiles=false */
  all = get_all (ctl, NULL);
  if (ctl->json)
    {
      print_json (ctl, profile, all, rows);
      return PMCTL_EXIT_OK;
    }
  pmctl_table_add_row (fields, g_strdup ("Profile"), g_strdup (profile));
  if (all != NULL)
    {
      g_autoptr(GVariant) profiles = g_variant_lookup_value (all, "Profiles", G_VARIANT_TYPE ("aa{sv}"));
      g_autoptr(GVariant) holds = g_variant_lookup_value (all, "ActiveProfileHolds", G_VARIANT_TYPE ("aa{sv}"));

      pmctl_table_add_row (fields, g_strdup ("Offered"),
                           profiles ? join_offered (profiles) : g_strdup ("-"));
      pmctl_table_add_row (fields, g_strdup ("Holds"), holds ? join_holds (holds) : g_strdup ("-"));
    }
  else
    {
      pmctl_table_add_row (fields, g_strdup ("Offered"),
                           g_strdup ("- (the daemon does not serve power profiles: PowerProfiles=false)"));
    }
  pmctl_fields_print (fields, ctl);
  g_variant_iter_init (&iter, rows);
  while (g_variant_iter_next (&iter, "(&s&s&s&s&s)", &attribute, &current, &decided, &layer, &origin))
    pmctl_table_add_row (knobs, g_strdup (attribute), g_strdup (*current ? current : "-"),
                         g_strdup (*decided ? decided : "-"), g_strdup (layer), g_strdup (origin));
  if (pmctl_table_n_rows (knobs) > 0)
    {
      g_print ("\n");
      pmctl_table_print (knobs, ctl, header);
    }
  return PMCTL_EXIT_OK;
}

static int
run_profile (Pmctl *ctl, char **args, char **command_argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *what = NULL;

  if (args[0] == NULL)
    return show_profile (ctl);
  if (!g_strv_contains (profile_names, args[0]))
    return pmctl_usage_error ("unknown profile '%s' (expected power-saver, balanced or performance)",
                              args[0]);
  if (!pmctl_connect_bus (ctl))
    return PMCTL_EXIT_FAILURE;
  what = g_strdup_printf ("set the power profile %s", args[0]);
  reply = g_dbus_connection_call_sync (ctl->bus, PP_DBUS_NAME, PP_PROFILES_PATH,
                                       "org.freedesktop.DBus.Properties", "Set",
                                       g_variant_new ("(ssv)", PP_PROFILES_NAME, "ActiveProfile",
                                                      g_variant_new_string (args[0])),
                                       NULL, G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                                       PMCTL_AUTH_TIMEOUT_MS, NULL, &error);
  if (reply == NULL)
    {
      pmctl_report_error (error, what, NULL);
      return PMCTL_EXIT_FAILURE;
    }
  return PMCTL_EXIT_OK;
}

const PmctlCommand pmctl_command_profile = {
  "profile", "profile [power-saver|balanced|performance]",
  "Show or choose the power profile",
  "Without NAME: the power profile in force, the profiles offered (performance\n"
  "only where a platform profile or CPU energy preference exists), the holds\n"
  "(powerprofilesctl launch, desktop applications) and the [Platform] knobs\n"
  "with the layer that decided each. With NAME: choose that profile, as a\n"
  "desktop's power-mode switch does; it releases every hold and is kept\n"
  "across restarts. Needs root or the polkit action\n"
  PP_POLKIT_ACTION_SWITCH_PROFILE ".",
  NULL, 0, 1, FALSE, run_profile,
};
