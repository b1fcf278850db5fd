/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The power profile as a layer: parsing the :power-saver/:performance
 * sections, [Platform] and [Daemon] PowerProfiles=, the layer order
 * (battery < profile < low-battery < idle), holds and the
 * platform_profile mapping. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-config.h"
#include "pp-policy.h"
#include "pp-profile.h"

static PpConfig *
load (const char *text, GPtrArray *problems)
{
  PpConfig *config = pp_config_new ();

  pp_config_load_data (config, "t.conf", text, strlen (text), problems);
  return config;
}

static const char *
lookup_none (gpointer user_data, const char *key)
{
  return NULL;
}

/* The value and layer decided for power/control of a usb device of
 * class "webcam" in @situation. */
static char *
decide_control (const PpConfig *config, const PpSituation *situation, const char **layer)
{
  PpDeviceProps props;
  PpDeviceState state = { 0 };
  g_autoptr(PpDecision) d = NULL;
  char *value = NULL;

  pp_device_props_init (&props, "usb", lookup_none, NULL, NULL);
  g_free (props.klass);
  props.klass = g_strdup ("webcam");
  d = pp_policy_decide (config, &props, situation, &state);
  for (guint i = 0; i < d->settings->len; i++)
    {
      PpSetting *s = g_ptr_array_index (d->settings, i);

      if (g_str_equal (s->key, PP_ATTR_CONTROL))
        {
          value = g_strdup (s->value);
          *layer = pp_setting_source_to_string (s->source);
        }
    }
  pp_device_props_clear (&props);
  return value;
}

static const char layered[] =
  "[Class usb]\nControl=on\n"
  "[Class usb:battery]\nControl=auto\n"
  "[Class webcam:power-saver]\nControl=auto\n"
  "[Class webcam:performance]\nControl=on\n"
  "[Class usb:low-battery]\nControl=auto\n"
  "[Class usb:idle]\nAutosuspendDelayMs=100\n";

static void
test_layer_order (void **state)
{
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autoptr(PpConfig) config = load (layered, problems);
  const struct {
    gboolean    battery, low;
    PpProfile   profile;
    const char *value, *layer;
  } rows[] = {
    { FALSE, FALSE, PP_PROFILE_BALANCED,    "on",   "class" },
    { FALSE, FALSE, PP_PROFILE_POWER_SAVER, "auto", "power-saver" },
    { FALSE, FALSE, PP_PROFILE_PERFORMANCE, "on",   "performance" },
    { TRUE,  FALSE, PP_PROFILE_BALANCED,    "auto", "battery" },
    /* the profile is above :battery ... */
    { TRUE,  FALSE, PP_PROFILE_PERFORMANCE, "on",   "performance" },
    /* ... and a low battery above the profile */
    { TRUE,  TRUE,  PP_PROFILE_PERFORMANCE, "auto", "low-battery" },
  };

  assert_int_equal (problems->len, 0);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      PpSituation situation = { .on_battery = rows[i].battery, .low_battery = rows[i].low,
                                .profile = rows[i].profile };
      const char *layer = NULL;
      g_autofree char *value = decide_control (config, &situation, &layer);

      assert_string_equal (value, rows[i].value);
      assert_string_equal (layer, rows[i].layer);
    }
}

static void
test_module_and_sleep_layers (void **state)
{
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autoptr(PpConfig) config = load ("[Module snd_hda_intel]\npower_save=10\n"
                                     "[Module snd_hda_intel:power-saver]\npower_save=1\n"
                                     "[Sleep]\nMemSleep=s2idle\n"
                                     "[Sleep:power-saver]\nMemSleep=deep\n"
                                     "[Sleep:low-battery]\nMemSleep=shallow\n", problems);
  PpSituation saver = { .profile = PP_PROFILE_POWER_SAVER };
  PpSituation balanced = { 0 };
  PpSituation low = { .on_battery = TRUE, .low_battery = TRUE, .profile = PP_PROFILE_POWER_SAVER };
  g_autoptr(GPtrArray) m1 = pp_policy_module_settings (config, &saver);
  g_autoptr(GPtrArray) m2 = pp_policy_module_settings (config, &balanced);
  const char *layer = NULL;

  assert_int_equal (problems->len, 0);
  assert_int_equal (m1->len, 1);
  assert_string_equal (((PpSetting *) g_ptr_array_index (m1, 0))->value, "1");
  assert_int_equal (((PpSetting *) g_ptr_array_index (m1, 0))->source, PP_SOURCE_POWER_SAVER);
  assert_string_equal (((PpSetting *) g_ptr_array_index (m2, 0))->value, "10");
  assert_string_equal (pp_policy_sleep_mode (config, &saver, FALSE, &layer), "deep");
  assert_string_equal (layer, "Sleep:power-saver");
  assert_string_equal (pp_policy_sleep_mode (config, &balanced, FALSE, &layer), "s2idle");
  assert_string_equal (pp_policy_sleep_mode (config, &low, FALSE, &layer), "shallow");
}

static void
test_platform (void **state)
{
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autoptr(PpConfig) config = load ("[Platform:power-saver]\nPlatformProfile=low-power\n"
                                     "EnergyPerformancePreference=power\n"
                                     "[Platform:performance]\nPlatformProfile=performance\n"
                                     "EnergyPerformancePreference=performance\n"
                                     "[Platform:low-battery]\nPlatformProfile=\n"
                                     "[Platform:turbo]\nPlatformProfile=performance\n"
                                     "[Platform]\nPlatformProfile=fast\nNoSuchKey=1\n", problems);
  PpSituation perf = { .profile = PP_PROFILE_PERFORMANCE };
  PpSituation low = { .on_battery = TRUE, .low_battery = TRUE, .profile = PP_PROFILE_POWER_SAVER };
  PpSituation balanced = { 0 };
  g_autoptr(GPtrArray) s1 = pp_policy_platform_settings (config, &perf);
  g_autoptr(GPtrArray) s2 = pp_policy_platform_settings (config, &low);
  g_autoptr(GPtrArray) s3 = pp_policy_platform_settings (config, &balanced);

  /* the unknown layer, the bad value, the unknown key */
  assert_int_equal (problems->len, 3);
  assert_int_equal (s1->len, 2);
  assert_string_equal (((PpSetting *) g_ptr_array_index (s1, 0))->value, "performance");
  assert_int_equal (((PpSetting *) g_ptr_array_index (s1, 0))->source, PP_SOURCE_PERFORMANCE);
  assert_non_null (strstr (((PpSetting *) g_ptr_array_index (s1, 0))->origin, "t.conf:5 [Platform:performance]"));
  /* low battery clears the platform profile (the firmware's own) and
   * keeps power-saver's EPP */
  assert_int_equal (s2->len, 1);
  assert_string_equal (((PpSetting *) g_ptr_array_index (s2, 0))->key, PP_PLATFORM_EPP_KEY);
  assert_string_equal (((PpSetting *) g_ptr_array_index (s2, 0))->value, "power");
  assert_int_equal (s3->len, 0);
}

static void
test_daemon_key (void **state)
{
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autoptr(PpConfig) c1 = load ("[Daemon]\nPowerProfiles=false\n", problems);
  g_autoptr(PpConfig) c2 = load ("[Daemon]\nPowerProfiles=true\n", problems);
  g_autoptr(PpConfig) c3 = load ("[Daemon]\nPowerProfiles=maybe\n", problems);

  assert_int_equal (c1->power_profiles, PP_POWER_PROFILES_FALSE);
  assert_int_equal (c2->power_profiles, PP_POWER_PROFILES_TRUE);
  assert_int_equal (c3->power_profiles, PP_POWER_PROFILES_AUTO);
  assert_int_equal (problems->len, 1);
}

static void
test_holds (void **state)
{
  PpProfile saver_and_perf[] = { PP_PROFILE_PERFORMANCE, PP_PROFILE_POWER_SAVER };
  PpProfile perf[] = { PP_PROFILE_PERFORMANCE };

  assert_int_equal (pp_profile_effective (PP_PROFILE_BALANCED, NULL, 0), PP_PROFILE_BALANCED);
  assert_int_equal (pp_profile_effective (PP_PROFILE_BALANCED, perf, 1), PP_PROFILE_PERFORMANCE);
  assert_int_equal (pp_profile_effective (PP_PROFILE_PERFORMANCE, saver_and_perf, 2),
                    PP_PROFILE_POWER_SAVER);
}

static void
test_mapping (void **state)
{
  const char * const acpi[] = { "low-power", "balanced", "performance", NULL };
  const char * const quiet[] = { "quiet", "balanced", "balanced-performance", NULL };
  const char * const cool[] = { "cool", "balanced", NULL };
  PpProfile p = PP_PROFILE_BALANCED;

  assert_string_equal (pp_platform_profile_map ("low-power", acpi), "low-power");
  assert_string_equal (pp_platform_profile_map ("low-power", quiet), "quiet");
  assert_string_equal (pp_platform_profile_map ("low-power", cool), "cool");
  assert_string_equal (pp_platform_profile_map ("performance", quiet), "balanced-performance");
  assert_null (pp_platform_profile_map ("performance", cool));
  assert_null (pp_platform_profile_map ("custom", acpi));
  assert_true (pp_profile_parse_saved ("power-saver\n", &p));
  assert_int_equal (p, PP_PROFILE_POWER_SAVER);
  assert_false (pp_profile_parse_saved ("turbo", &p));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_layer_order),
    cmocka_unit_test (test_module_and_sleep_layers),
    cmocka_unit_test (test_platform),
    cmocka_unit_test (test_daemon_key),
    cmocka_unit_test (test_holds),
    cmocka_unit_test (test_mapping),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
