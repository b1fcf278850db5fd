/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the configuration parser (powerpolicy.conf(5)): pp-config.c
 * alone, linked against the pure policy library and nothing else. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-config.h"

#define MAX_CHECKS 8

/* One expectation on the parsed model, "field" as understood by
 * config_get() below. */
typedef struct {
  const char *field;
  const char *expected;
} Check;

/* A text that parses without a single problem. */
typedef struct {
  const char *name;
  const char *text;
  Check       checks[MAX_CHECKS];
} GoodCase;

/* A text with exactly one problem, at @line, whose message contains
 * @needle1 and @needle2; @checks show the bad line was skipped and the
 * rest applied. */
typedef struct {
  const char *name;
  const char *text;
  guint       line;
  const char *needle1;
  const char *needle2;
  Check       checks[MAX_CHECKS];
} BadCase;

typedef struct {
  const void *row;
  PpConfig   *config;
  GPtrArray  *problems;
} State;

static int
setup (void **state)
{
  State *st = g_new0 (State, 1);

  st->row = *state;
  st->config = pp_config_new ();
  st->problems = pp_config_problems_new ();
  *state = st;
  return 0;
}

static int
teardown (void **state)
{
  State *st = *state;

  pp_config_free (st->config);
  g_ptr_array_unref (st->problems);
  g_free (st);
  return 0;
}

static void
load (State *st, const char *file, const char *text)
{
  pp_config_load_data (st->config, file, text, strlen (text), st->problems);
}

static char *
problems_to_string (GPtrArray *problems)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < problems->len; i++)
    {
      g_autofree char *p = pp_config_problem_to_string (g_ptr_array_index (problems, i));
      g_string_append_printf (s, "%s\n", p);
    }
  return g_string_free (s, FALSE);
}

static void
assert_no_problems (State *st)
{
  if (st->problems->len != 0)
    {
      g_autofree char *all = problems_to_string (st->problems);
      fail_msg ("unexpected problems:\n%s", all);
    }
}

static const char *
bool_str (gboolean b)
{
  return b ? "true" : "false";
}

static int
layer_from_name (const char *name)
{
  if (g_str_equal (name, "base"))
    return PP_LAYER_BASE;
  if (g_str_equal (name, "battery"))
    return PP_LAYER_BATTERY;
  if (g_str_equal (name, "low-battery"))
    return PP_LAYER_LOW_BATTERY;
  if (g_str_equal (name, "idle"))
    return PP_LAYER_IDLE;
  fail_msg ("bad layer name '%s' in the test table", name);
  return -1;
}

static char *
layered_get (const PpLayeredSettings *ls, const char *layer_name, const char *key)
{
  GPtrArray *layer;

  if (ls == NULL)
    return g_strdup ("(no section)");
  layer = ls->layers[layer_from_name (layer_name)];
  if (key == NULL)
    return g_strdup_printf ("%u", layer->len);
  for (guint i = 0; i < layer->len; i++)
    {
      const PpSetting *s = g_ptr_array_index (layer, i);
      if (g_str_equal (s->key, key))
        return g_strdup (s->value);
    }
  return g_strdup ("(unset)");
}

static char *
layered_keys (const PpLayeredSettings *ls, const char *layer_name)
{
  GString *out = g_string_new (NULL);
  GPtrArray *layer;

  if (ls == NULL)
    return g_string_free (out, FALSE);
  layer = ls->layers[layer_from_name (layer_name)];
  for (guint i = 0; i < layer->len; i++)
    {
      const PpSetting *s = g_ptr_array_index (layer, i);
      g_string_append_printf (out, "%s%s", i ? " " : "", s->key);
    }
  return g_string_free (out, FALSE);
}

/* Fields:
 *   daemon.idle daemon.restore daemon.dryrun
 *   lid.handle lid.close lid.close_ext lid.close_docked lid.holdoff
 *   sleep.mem sleep.hibernate sleep.quirks sleep.helper sleep.quirk_timeout
 *   sleep.mem.battery sleep.mem.low sleep.hibernate.battery sleep.hibernate.low ("(unset)")
 *   daemon.low_battery
 *   classes modules                  (number of sections)
 *   class|NAME|LAYER|RELPATH         (a value, "(unset)", "(no section)")
 *   class|NAME|LAYER                 (number of settings in the layer)
 *   class-keys|NAME|LAYER            (keys in order)
 *   module|NAME|LAYER|PARAM, module|NAME|LAYER, module-keys|NAME|LAYER
 *   daemon.max_per_user daemon.max
 *   class-exclude|NAME               (ExcludeDrivers, space-joined, or "(none)")
 *   class-exclude-origin|NAME        ("file:line" of ExcludeDrivers)
 *   class-origin|NAME|LAYER|RELPATH, module-origin|NAME|LAYER|PARAM  ("file:line")
 */
static char *
config_get (const PpConfig *c, const char *field)
{
  g_auto(GStrv) parts = NULL;

  if (g_str_equal (field, "daemon.idle"))
    return g_strdup_printf ("%u", c->idle_timeout_sec);
  if (g_str_equal (field, "daemon.restore"))
    return g_strdup (bool_str (c->restore_on_exit));
  if (g_str_equal (field, "daemon.dryrun"))
    return g_strdup (bool_str (c->dry_run));
  if (g_str_equal (field, "lid.handle"))
    return g_strdup (bool_str (c->lid.handle_lid));
  if (g_str_equal (field, "lid.close"))
    return g_strdup (pp_lid_action_to_string (c->lid.on_close));
  if (g_str_equal (field, "lid.close_ext"))
    return g_strdup (pp_lid_action_to_string (c->lid.on_close_external_power));
  if (g_str_equal (field, "lid.close_docked"))
    return g_strdup (pp_lid_action_to_string (c->lid.on_close_docked));
  if (g_str_equal (field, "lid.holdoff"))
    return g_strdup_printf ("%u", c->lid.holdoff_sec);
  if (g_str_equal (field, "sleep.mem"))
    return g_strdup (c->sleep.mem_sleep);
  if (g_str_equal (field, "sleep.hibernate"))
    return g_strdup (c->sleep.hibernate_mode);
  if (g_str_equal (field, "sleep.quirks"))
    return c->sleep.video_quirks ? g_strjoinv (",", c->sleep.video_quirks) : g_strdup ("(auto)");
  if (g_str_equal (field, "sleep.helper"))
    return g_strdup (c->sleep.quirk_helper ? c->sleep.quirk_helper : "(unset)");
  if (g_str_equal (field, "sleep.quirk_timeout"))
    return g_strdup_printf ("%u", c->sleep.quirk_timeout_sec);
  if (g_str_has_prefix (field, "sleep.mem.") || g_str_has_prefix (field, "sleep.hibernate."))
    {
      gboolean mem = g_str_has_prefix (field, "sleep.mem.");
      gboolean low = g_str_has_suffix (field, ".low");
      const char *v = mem ? (low ? c->sleep.mem_sleep_low_battery : c->sleep.mem_sleep_battery)
                          : (low ? c->sleep.hibernate_mode_low_battery : c->sleep.hibernate_mode_battery);
      return g_strdup (v ? v : "(unset)");
    }
  if (g_str_equal (field, "daemon.low_battery"))
    return g_strdup_printf ("%u", c->low_battery_percent);
  if (g_str_equal (field, "daemon.power_source"))
    return g_strdup (pp_power_source_to_string (c->power_source));
  if (g_str_equal (field, "daemon.power_source_origin"))
    return g_strdup_printf ("%s:%u", c->power_source_file ? c->power_source_file : "(null)",
                            c->power_source_line);
  if (g_str_equal (field, "daemon.max_per_user"))
    return g_strdup_printf ("%u", c->max_inhibitors_per_user);
  if (g_str_equal (field, "daemon.max"))
    return g_strdup_printf ("%u", c->max_inhibitors);
  if (g_str_equal (field, "classes"))
    return g_strdup_printf ("%u", g_hash_table_size (c->classes));
  if (g_str_equal (field, "modules"))
    return g_strdup_printf ("%u", g_hash_table_size (c->modules));

  parts = g_strsplit (field, "|", 4);
  if (g_strv_length (parts) == 2 && g_str_equal (parts[0], "class-exclude"))
    {
      const PpLayeredSettings *ls = pp_config_get_class (c, parts[1]);
      if (ls == NULL)
        return g_strdup ("(no section)");
      return ls->exclude_drivers ? g_strjoinv (" ", ls->exclude_drivers) : g_strdup ("(none)");
    }
  if (g_strv_length (parts) == 2 && g_str_equal (parts[0], "class-exclude-origin"))
    {
      const PpLayeredSettings *ls = pp_config_get_class (c, parts[1]);
      if (ls == NULL)
        return g_strdup ("(no section)");
      return g_strdup_printf ("%s:%u", ls->exclude_drivers_file ? ls->exclude_drivers_file : "(null)",
                              ls->exclude_drivers_line);
    }
  if (g_strv_length (parts) == 4 && (g_str_equal (parts[0], "class-origin") ||
                                     g_str_equal (parts[0], "module-origin")))
    {
      const PpLayeredSettings *ls = g_str_equal (parts[0], "class-origin")
        ? pp_config_get_class (c, parts[1]) : pp_config_get_module (c, parts[1]);
      GPtrArray *layer;

      if (ls == NULL)
        return g_strdup ("(no section)");
      layer = ls->layers[layer_from_name (parts[2])];
      for (guint i = 0; i < layer->len; i++)
        {
          const PpSetting *set = g_ptr_array_index (layer, i);
          if (g_str_equal (set->key, parts[3]))
            return g_strdup_printf ("%s:%u", set->file ? set->file : "(null)", set->line);
        }
      return g_strdup ("(unset)");
    }
  if (g_strv_length (parts) >= 3)
    {
      if (g_str_equal (parts[0], "class"))
        return layered_get (pp_config_get_class (c, parts[1]), parts[2], parts[3]);
      if (g_str_equal (parts[0], "module"))
        return layered_get (pp_config_get_module (c, parts[1]), parts[2], parts[3]);
      if (g_str_equal (parts[0], "class-keys"))
        return layered_keys (pp_config_get_class (c, parts[1]), parts[2]);
      if (g_str_equal (parts[0], "module-keys"))
        return layered_keys (pp_config_get_module (c, parts[1]), parts[2]);
    }
  fail_msg ("bad field '%s' in the test table", field);
  return NULL;
}

static void
assert_checks (const PpConfig *config, const Check *checks)
{
  for (guint i = 0; i < MAX_CHECKS && checks[i].field != NULL; i++)
    {
      g_autofree char *actual = config_get (config, checks[i].field);

      if (g_strcmp0 (actual, checks[i].expected) != 0)
        fail_msg ("%s: expected '%s', got '%s'", checks[i].field, checks[i].expected, actual);
    }
}

/* ---- good texts --------------------------------------------------------- */

static const GoodCase good_cases[] = {
  { "defaults", "",
    { { "daemon.idle", "300" }, { "daemon.restore", "true" }, { "daemon.dryrun", "false" },
      { "lid.handle", "true" }, { "lid.close", "suspend" }, { "lid.close_ext", "suspend" },
      { "lid.close_docked", "ignore" }, { "lid.holdoff", "30" } } },
  { "defaults-sleep", "",
    { { "sleep.mem", "auto" }, { "sleep.hibernate", "auto" }, { "sleep.quirks", "(auto)" },
      { "sleep.helper", "(unset)" }, { "sleep.quirk_timeout", "5" }, { "classes", "0" },
      { "modules", "0" } } },
  { "only-comments-and-blanks", "# a comment\n\n   \n\t# indented comment\n",
    { { "daemon.idle", "300" }, { "classes", "0" } } },
  { "daemon-all-keys",
    "[Daemon]\nIdleTimeoutSec=120\nRestoreOnExit=false\nDryRun=true\n",
    { { "daemon.idle", "120" }, { "daemon.restore", "false" }, { "daemon.dryrun", "true" } } },
  { "daemon-idle-zero", "[Daemon]\nIdleTimeoutSec=0\n", { { "daemon.idle", "0" } } },
  { "daemon-idle-max", "[Daemon]\nIdleTimeoutSec=4294967295\n", { { "daemon.idle", "4294967295" } } },
  { "daemon-bool-1-0", "[Daemon]\nRestoreOnExit=0\nDryRun=1\n",
    { { "daemon.restore", "false" }, { "daemon.dryrun", "true" } } },
  { "daemon-bool-yes-no", "[Daemon]\nRestoreOnExit=no\nDryRun=yes\n",
    { { "daemon.restore", "false" }, { "daemon.dryrun", "true" } } },
  { "spaces-around-equals", "[Daemon]\n  IdleTimeoutSec =  42  \n",
    { { "daemon.idle", "42" } } },
  { "header-trailing-space", "[Daemon]   \nIdleTimeoutSec=7\n", { { "daemon.idle", "7" } } },
  { "header-leading-space", "   [Daemon]\nIdleTimeoutSec=8\n", { { "daemon.idle", "8" } } },
  { "no-final-newline", "[Daemon]\nIdleTimeoutSec=9", { { "daemon.idle", "9" } } },
  { "crlf",
    "[Daemon]\r\nIdleTimeoutSec=60\r\n[Class usb]\r\nControl=auto\r\nAttr.a/b=x y\r\n",
    { { "daemon.idle", "60" }, { "class|usb|base|power/control", "auto" },
      { "class|usb|base|a/b", "x y" } } },
  { "crlf-no-final-newline", "[Lid]\r\nOnClose=lock\r", { { "lid.close", "lock" } } },
  { "class-base-all-keys",
    "[Class usb]\nControl=auto\nAutosuspendDelayMs=2000\nWakeup=disabled\n"
    "LinkPowerPolicy=med_power_with_dipm\nAttr.device/power_dpm=low\n",
    { { "class|usb|base|power/control", "auto" },
      { "class|usb|base|power/autosuspend_delay_ms", "2000" },
      { "class|usb|base|power/wakeup", "disabled" },
      { "class|usb|base|link_power_management_policy", "med_power_with_dipm" },
      { "class|usb|base|device/power_dpm", "low" },
      { "class-keys|usb|base",
        "power/control power/autosuspend_delay_ms power/wakeup link_power_management_policy device/power_dpm" },
      { "class|usb|battery", "0" }, { "class|usb|idle", "0" } } },
  { "class-control-on-wakeup-enabled", "[Class c]\nControl=on\nWakeup=enabled\n",
    { { "class|c|base|power/control", "on" }, { "class|c|base|power/wakeup", "enabled" } } },
  { "class-delay-minus-one", "[Class c]\nAutosuspendDelayMs=-1\n",
    { { "class|c|base|power/autosuspend_delay_ms", "-1" } } },
  { "class-delay-zero", "[Class c]\nAutosuspendDelayMs=0\n",
    { { "class|c|base|power/autosuspend_delay_ms", "0" } } },
  { "class-delay-spaces", "[Class c]\nAutosuspendDelayMs=  7  \n",
    { { "class|c|base|power/autosuspend_delay_ms", "7" } } },
  { "daemon-max-inhibitors", "[Daemon]\nMaxInhibitorsPerUser=1\nMaxInhibitors=4096\n",
    { { "daemon.max_per_user", "1" }, { "daemon.max", "4096" } } },
  { "daemon-max-inhibitors-defaults", "",
    { { "daemon.max_per_user", "64" }, { "daemon.max", "4096" } } },
  { "exclude-drivers", "[Class pci]\nControl=on\nExcludeDrivers=mei_me nouveau radeon\n"
    "[Class pci:idle]\nControl=auto\n",
    { { "class-exclude|pci", "mei_me nouveau radeon" },
      { "class-exclude-origin|pci", "good.conf:3" }, { "class|pci|base", "1" },
      { "class|pci|idle|power/control", "auto" } } },
  { "exclude-drivers-tabs-dups", "[Class pci]\nExcludeDrivers=\ta  b\ta snd-hda.x\n",
    { { "class-exclude|pci", "a b snd-hda.x" }, { "class|pci|base", "0" } } },
  { "exclude-drivers-empty", "[Class pci]\nExcludeDrivers=\n",
    { { "class-exclude|pci", "(none)" } } },
  { "exclude-drivers-unset", "[Class pci]\nControl=on\n", { { "class-exclude|pci", "(none)" } } },
  /* an empty assignment: kept as "", it leaves the attribute alone */
  { "empty-assignments", "[Class usb]\nControl=\nAutosuspendDelayMs=\nWakeup=\nLinkPowerPolicy=\n"
    "Attr.device/x=\n",
    { { "class|usb|base|power/control", "" }, { "class|usb|base|power/autosuspend_delay_ms", "" },
      { "class|usb|base|power/wakeup", "" }, { "class|usb|base|link_power_management_policy", "" },
      { "class|usb|base|device/x", "" }, { "class|usb|base", "5" } } },
  { "empty-assignment-in-layer", "[Class pci-gpu:battery]\nControl=\n",
    { { "class|pci-gpu|battery|power/control", "" }, { "class|pci-gpu|base", "0" } } },
  /* :low-battery */
  { "class-low-battery-layer", "[Class usb:low-battery]\nAutosuspendDelayMs=300\nControl=auto\n",
    { { "class|usb|low-battery|power/autosuspend_delay_ms", "300" },
      { "class|usb|low-battery|power/control", "auto" }, { "class|usb|base", "0" },
      { "class|usb|battery", "0" }, { "class|usb|idle", "0" }, { "classes", "1" } } },
  { "module-low-battery-layer", "[Module snd_hda_intel:low-battery]\npower_save=1\n",
    { { "module|snd_hda_intel|low-battery|power_save", "1" },
      { "module|snd_hda_intel|battery", "0" } } },
  { "low-battery-percent", "[Daemon]\nLowBatteryPercent=15\n", { { "daemon.low_battery", "15" } } },
  { "low-battery-percent-default", "", { { "daemon.low_battery", "20" } } },
  { "low-battery-percent-zero", "[Daemon]\nLowBatteryPercent=0\n", { { "daemon.low_battery", "0" } } },
  { "power-source-default", "", { { "daemon.power_source", "auto" },
    { "daemon.power_source_origin", "(null):0" } } },
  { "power-source-battery", "[Daemon]\n\nPowerSource=battery\n",
    { { "daemon.power_source", "battery" }, { "daemon.power_source_origin", "good.conf:3" } } },
  { "power-source-ac", "[Daemon]\nPowerSource=ac\n", { { "daemon.power_source", "ac" } } },
  { "power-source-auto", "[Daemon]\nPowerSource=auto\n",
    { { "daemon.power_source", "auto" } } },
  { "low-battery-percent-hundred", "[Daemon]\nLowBatteryPercent=100\n",
    { { "daemon.low_battery", "100" } } },
  /* [Sleep] by power source */
  { "sleep-layers", "[Sleep]\nMemSleep=deep\n[Sleep:battery]\nMemSleep=s2idle\nHibernateMode=shutdown\n"
    "[Sleep:low-battery]\nMemSleep=shallow\nHibernateMode=platform\n",
    { { "sleep.mem", "deep" }, { "sleep.mem.battery", "s2idle" }, { "sleep.mem.low", "shallow" },
      { "sleep.hibernate", "auto" }, { "sleep.hibernate.battery", "shutdown" },
      { "sleep.hibernate.low", "platform" } } },
  { "sleep-layers-unset", "[Sleep]\nMemSleep=deep\n",
    { { "sleep.mem.battery", "(unset)" }, { "sleep.mem.low", "(unset)" },
      { "sleep.hibernate.battery", "(unset)" } } },
  { "class-delay-int32-max", "[Class c]\nAutosuspendDelayMs=2147483647\n",
    { { "class|c|base|power/autosuspend_delay_ms", "2147483647" } } },
  { "class-battery-layer", "[Class usb:battery]\nAutosuspendDelayMs=1000\n",
    { { "class|usb|battery|power/autosuspend_delay_ms", "1000" }, { "class|usb|base", "0" },
      { "class|usb|idle", "0" }, { "classes", "1" } } },
  { "class-idle-layer", "[Class usb:idle]\nAutosuspendDelayMs=200\nControl=auto\n",
    { { "class|usb|idle|power/autosuspend_delay_ms", "200" },
      { "class|usb|idle|power/control", "auto" }, { "class|usb|base", "0" },
      { "class|usb|battery", "0" } } },
  { "class-three-layers",
    "[Class usb]\nAutosuspendDelayMs=2000\n[Class usb:battery]\nAutosuspendDelayMs=1000\n"
    "[Class usb:idle]\nAutosuspendDelayMs=200\n",
    { { "class|usb|base|power/autosuspend_delay_ms", "2000" },
      { "class|usb|battery|power/autosuspend_delay_ms", "1000" },
      { "class|usb|idle|power/autosuspend_delay_ms", "200" }, { "classes", "1" } } },
  { "class-sata-link-policies",
    "[Class sata-host]\nLinkPowerPolicy=med_power_with_dipm\n[Class sata-host:battery]\n"
    "LinkPowerPolicy=min_power\n[Class sata-host:idle]\nLinkPowerPolicy=max_performance\n",
    { { "class|sata-host|base|link_power_management_policy", "med_power_with_dipm" },
      { "class|sata-host|battery|link_power_management_policy", "min_power" },
      { "class|sata-host|idle|link_power_management_policy", "max_performance" } } },
  { "link-policy-medium_power", "[Class s]\nLinkPowerPolicy=medium_power\n",
    { { "class|s|base|link_power_management_policy", "medium_power" } } },
  { "link-policy-keep_firmware_settings", "[Class s]\nLinkPowerPolicy=keep_firmware_settings\n",
    { { "class|s|base|link_power_management_policy", "keep_firmware_settings" } } },
  { "class-name-chars", "[Class pci-gpu_2.x]\nControl=on\n",
    { { "class|pci-gpu_2.x|base|power/control", "on" } } },
  { "class-name-stripped", "[Class  usb ]\nControl=on\n",
    { { "class|usb|base|power/control", "on" } } },
  { "attr-power-control-same-key", "[Class pci-gpu]\nAttr.power/control=auto\n",
    { { "class|pci-gpu|base|power/control", "auto" } } },
  { "attr-and-control-later-wins", "[Class c]\nControl=on\nAttr.power/control=auto\n",
    { { "class|c|base|power/control", "auto" }, { "class|c|base", "1" } } },
  { "control-after-attr-later-wins", "[Class c]\nAttr.power/control=auto\nControl=on\n",
    { { "class|c|base|power/control", "on" }, { "class|c|base", "1" } } },
  { "attr-deep-path-and-chars", "[Class c]\nAttr.port/usb3_lpm_permit=0\nAttr.a-b.c/d:e_f=1\n",
    { { "class|c|base|port/usb3_lpm_permit", "0" }, { "class|c|base|a-b.c/d:e_f", "1" } } },
  { "attr-value-free-text", "[Class c]\nAttr.x=some value with = sign\n",
    { { "class|c|base|x", "some value with = sign" } } },
  { "attr-dotted-component", "[Class c]\nAttr.a/.hidden=1\nAttr.a/b..c=2\n",
    { { "class|c|base|a/.hidden", "1" }, { "class|c|base|a/b..c", "2" } } },
  { "module-layers",
    "[Module snd_hda_intel]\npower_save=10\npower_save_controller=Y\n"
    "[Module snd_hda_intel:battery]\npower_save=5\n[Module snd_hda_intel:idle]\npower_save=1\n",
    { { "module|snd_hda_intel|base|power_save", "10" },
      { "module|snd_hda_intel|base|power_save_controller", "Y" },
      { "module|snd_hda_intel|battery|power_save", "5" },
      { "module|snd_hda_intel|idle|power_save", "1" },
      { "module-keys|snd_hda_intel|base", "power_save power_save_controller" },
      { "modules", "1" }, { "classes", "0" } } },
  { "module-and-class-same-name", "[Module usb]\np=1\n[Class usb]\nControl=on\n",
    { { "module|usb|base|p", "1" }, { "class|usb|base|power/control", "on" },
      { "modules", "1" }, { "classes", "1" } } },
  { "module-value-free-text", "[Module m]\np=a b,c\n", { { "module|m|base|p", "a b,c" } } },
  { "module-empty-value", "[Module m]\np=\n", { { "module|m|base|p", "" } } },
  { "lid-all-keys",
    "[Lid]\nHandleLid=false\nOnClose=hibernate\nOnCloseExternalPower=lock\n"
    "OnCloseDocked=power-off-display\nHoldoffSec=0\n",
    { { "lid.handle", "false" }, { "lid.close", "hibernate" }, { "lid.close_ext", "lock" },
      { "lid.close_docked", "power-off-display" }, { "lid.holdoff", "0" } } },
  { "lid-action-suspend", "[Lid]\nOnCloseDocked=suspend\n", { { "lid.close_docked", "suspend" } } },
  { "lid-action-hybrid-sleep", "[Lid]\nOnClose=hybrid-sleep\n", { { "lid.close", "hybrid-sleep" } } },
  { "lid-action-suspend-then-hibernate", "[Lid]\nOnClose=suspend-then-hibernate\n",
    { { "lid.close", "suspend-then-hibernate" } } },
  { "lid-action-ignore", "[Lid]\nOnClose=ignore\nOnCloseExternalPower=ignore\n",
    { { "lid.close", "ignore" }, { "lid.close_ext", "ignore" } } },
  { "lid-holdoff-max", "[Lid]\nHoldoffSec=86400\n", { { "lid.holdoff", "86400" } } },
  { "sleep-all-keys",
    "[Sleep]\nMemSleep=deep\nHibernateMode=platform\nVideoQuirks=vbe_post,dpms_on\n"
    "QuirkHelper=/usr/libexec/pp-quirk-helper\nQuirkTimeoutSec=10\n",
    { { "sleep.mem", "deep" }, { "sleep.hibernate", "platform" },
      { "sleep.quirks", "vbe_post,dpms_on" }, { "sleep.helper", "/usr/libexec/pp-quirk-helper" },
      { "sleep.quirk_timeout", "10" } } },
  { "sleep-mem-s2idle", "[Sleep]\nMemSleep=s2idle\n", { { "sleep.mem", "s2idle" } } },
  { "sleep-mem-shallow", "[Sleep]\nMemSleep=shallow\n", { { "sleep.mem", "shallow" } } },
  { "sleep-hibernate-shutdown", "[Sleep]\nHibernateMode=shutdown\n", { { "sleep.hibernate", "shutdown" } } },
  { "sleep-hibernate-reboot", "[Sleep]\nHibernateMode=reboot\n", { { "sleep.hibernate", "reboot" } } },
  { "sleep-hibernate-suspend", "[Sleep]\nHibernateMode=suspend\n", { { "sleep.hibernate", "suspend" } } },
  { "sleep-quirks-none", "[Sleep]\nVideoQuirks=none\n", { { "sleep.quirks", "none" } } },
  { "sleep-quirks-spaces", "[Sleep]\nVideoQuirks= s3_bios , s3_mode ,,pci-save\n",
    { { "sleep.quirks", "s3_bios,s3_mode,pci-save" } } },
  { "sleep-quirk-timeout-bounds", "[Sleep]\nQuirkTimeoutSec=1\n", { { "sleep.quirk_timeout", "1" } } },
  { "sleep-quirk-timeout-600", "[Sleep]\nQuirkTimeoutSec=600\n", { { "sleep.quirk_timeout", "600" } } },
  /* values unescaped as GKeyFile does */
  { "escape-leading-space", "[Module m]\np=\\sx\n", { { "module|m|base|p", " x" } } },
  { "escape-trailing-space", "[Module m]\np=x\\s\n", { { "module|m|base|p", "x " } } },
  { "escape-tab-newline-cr", "[Module m]\np=a\\tb\\nc\\rd\n", { { "module|m|base|p", "a\tb\nc\rd" } } },
  { "escape-backslash", "[Module m]\np=a\\\\sb\n", { { "module|m|base|p", "a\\sb" } } },
  { "escape-in-attr", "[Class c]\nAttr.x=\\s\\s2\n", { { "class|c|base|x", "  2" } } },
  { "utf8-value", "[Module m]\np=\xc3\xa9t\xc3\xa9\n", { { "module|m|base|p", "\xc3\xa9t\xc3\xa9" } } },
  { "full-example",
    "# Comments stand on their own lines\n"
    "[Daemon]\nIdleTimeoutSec=300\nRestoreOnExit=true\nDryRun=false\n\n"
    "[Class usb]\nControl=auto\nAutosuspendDelayMs=2000\nWakeup=disabled\n"
    "[Class usb:battery]\nAutosuspendDelayMs=1000\n"
    "[Class usb:idle]\nAutosuspendDelayMs=200\n"
    "[Class sata-host]\nLinkPowerPolicy=med_power_with_dipm\n"
    "[Class sata-host:battery]\nLinkPowerPolicy=min_power\n"
    "[Class pci-gpu]\nAttr.power/control=auto\n"
    "[Module snd_hda_intel]\npower_save=10\n[Module snd_hda_intel:idle]\npower_save=1\n"
    "[Lid]\nHandleLid=true\nOnClose=suspend\nOnCloseExternalPower=suspend\n"
    "OnCloseDocked=ignore\nHoldoffSec=30\n"
    "[Sleep]\nMemSleep=auto\nHibernateMode=auto\nVideoQuirks=auto\nQuirkHelper=\nQuirkTimeoutSec=5\n",
    { { "classes", "3" }, { "modules", "1" },
      { "class|usb|idle|power/autosuspend_delay_ms", "200" },
      { "class|sata-host|battery|link_power_management_policy", "min_power" },
      { "class|pci-gpu|base|power/control", "auto" },
      { "module|snd_hda_intel|idle|power_save", "1" }, { "lid.close_docked", "ignore" },
      { "sleep.quirk_timeout", "5" } } },
};

static void
test_good (void **state)
{
  State *st = *state;
  const GoodCase *c = st->row;

  load (st, "good.conf", c->text);
  assert_no_problems (st);
  assert_checks (st->config, c->checks);
}

/* ---- bad texts: one problem each, the rest applied ----------------------- */

#define D "[Daemon]\n"

static const BadCase bad_cases[] = {
  /* [Daemon] */
  { "idle-word", D "IdleTimeoutSec=abc\nDryRun=true\n", 2, "IdleTimeoutSec", "'abc'",
    { { "daemon.idle", "300" }, { "daemon.dryrun", "true" } } },
  { "idle-negative", D "IdleTimeoutSec=-1\nDryRun=true\n", 2, "IdleTimeoutSec", "'-1'",
    { { "daemon.idle", "300" }, { "daemon.dryrun", "true" } } },
  { "idle-unit", D "IdleTimeoutSec=5s\nDryRun=true\n", 2, "IdleTimeoutSec", "'5s'",
    { { "daemon.idle", "300" }, { "daemon.dryrun", "true" } } },
  { "idle-empty", D "IdleTimeoutSec=\nDryRun=true\n", 2, "IdleTimeoutSec", "''",
    { { "daemon.idle", "300" }, { "daemon.dryrun", "true" } } },
  { "idle-too-big", D "IdleTimeoutSec=4294967296\nDryRun=true\n", 2, "IdleTimeoutSec", "4294967296",
    { { "daemon.idle", "300" }, { "daemon.dryrun", "true" } } },
  { "idle-hex", D "IdleTimeoutSec=0x10\nDryRun=true\n", 2, "IdleTimeoutSec", "0x10",
    { { "daemon.idle", "300" }, { "daemon.dryrun", "true" } } },
  { "idle-plus", D "IdleTimeoutSec=+5\nDryRun=true\n", 2, "IdleTimeoutSec", "+5",
    { { "daemon.idle", "300" }, { "daemon.dryrun", "true" } } },
  { "idle-two-numbers", D "IdleTimeoutSec=1 2\nDryRun=true\n", 2, "IdleTimeoutSec", "'1 2'",
    { { "daemon.idle", "300" }, { "daemon.dryrun", "true" } } },
  { "restore-maybe", D "RestoreOnExit=maybe\nIdleTimeoutSec=1\n", 2, "RestoreOnExit", "'maybe'",
    { { "daemon.restore", "true" }, { "daemon.idle", "1" } } },
  { "restore-2", D "RestoreOnExit=2\nIdleTimeoutSec=1\n", 2, "RestoreOnExit", "'2'",
    { { "daemon.restore", "true" }, { "daemon.idle", "1" } } },
  { "restore-empty", D "RestoreOnExit=\nIdleTimeoutSec=1\n", 2, "RestoreOnExit", "''",
    { { "daemon.restore", "true" }, { "daemon.idle", "1" } } },
  { "dryrun-bad", D "DryRun=sure\nIdleTimeoutSec=1\n", 2, "DryRun", "'sure'",
    { { "daemon.dryrun", "false" }, { "daemon.idle", "1" } } },
  { "daemon-unknown-key", D "Verbose=true\nIdleTimeoutSec=1\n", 2, "unknown key", "'Verbose'",
    { { "daemon.idle", "1" } } },
  { "daemon-key-case", D "idletimeoutsec=5\nDryRun=true\n", 2, "unknown key", "idletimeoutsec",
    { { "daemon.idle", "300" }, { "daemon.dryrun", "true" } } },

  /* [Lid] */
  { "handle-lid-bad", "[Lid]\nHandleLid=sometimes\nHoldoffSec=3\n", 2, "HandleLid", "'sometimes'",
    { { "lid.handle", "true" }, { "lid.holdoff", "3" } } },
  { "holdoff-negative", "[Lid]\nHoldoffSec=-1\nOnClose=lock\n", 2, "HoldoffSec", "'-1'",
    { { "lid.holdoff", "30" }, { "lid.close", "lock" } } },
  { "holdoff-too-big", "[Lid]\nHoldoffSec=86401\nOnClose=lock\n", 2, "HoldoffSec", "'86401'",
    { { "lid.holdoff", "30" }, { "lid.close", "lock" } } },
  { "holdoff-word", "[Lid]\nHoldoffSec=half\nOnClose=lock\n", 2, "HoldoffSec", "'half'",
    { { "lid.holdoff", "30" }, { "lid.close", "lock" } } },
  { "lid-unknown-key", "[Lid]\nOnOpen=suspend\nOnClose=lock\n", 2, "unknown key", "'OnOpen'",
    { { "lid.close", "lock" } } },

  /* [Sleep] */
  { "mem-sleep-bad", "[Sleep]\nMemSleep=mem\nQuirkTimeoutSec=9\n", 2, "MemSleep", "'mem'",
    { { "sleep.mem", "auto" }, { "sleep.quirk_timeout", "9" } } },
  { "mem-sleep-empty", "[Sleep]\nMemSleep=\nQuirkTimeoutSec=9\n", 2, "MemSleep", "''",
    { { "sleep.mem", "auto" }, { "sleep.quirk_timeout", "9" } } },
  { "hibernate-mode-bad", "[Sleep]\nHibernateMode=s4\nQuirkTimeoutSec=9\n", 2, "HibernateMode", "'s4'",
    { { "sleep.hibernate", "auto" }, { "sleep.quirk_timeout", "9" } } },
  { "quirk-helper-relative", "[Sleep]\nQuirkHelper=bin/helper\nQuirkTimeoutSec=9\n", 2,
    "QuirkHelper", "'bin/helper'",
    { { "sleep.helper", "(unset)" }, { "sleep.quirk_timeout", "9" } } },
  { "quirk-timeout-zero", "[Sleep]\nQuirkTimeoutSec=0\nMemSleep=deep\n", 2, "QuirkTimeoutSec", "'0'",
    { { "sleep.quirk_timeout", "5" }, { "sleep.mem", "deep" } } },
  { "quirk-timeout-too-big", "[Sleep]\nQuirkTimeoutSec=601\nMemSleep=deep\n", 2,
    "QuirkTimeoutSec", "'601'",
    { { "sleep.quirk_timeout", "5" }, { "sleep.mem", "deep" } } },
  { "quirk-timeout-word", "[Sleep]\nQuirkTimeoutSec=x\nMemSleep=deep\n", 2, "QuirkTimeoutSec", "'x'",
    { { "sleep.quirk_timeout", "5" }, { "sleep.mem", "deep" } } },
  { "video-quirk-bad-name", "[Sleep]\nVideoQuirks=vbe_post,dpms on\nMemSleep=deep\n", 2,
    "VideoQuirks", "'dpms on'",
    { { "sleep.quirks", "vbe_post" }, { "sleep.mem", "deep" } } },
  { "video-quirk-slash", "[Sleep]\nVideoQuirks=a/b,dpms_on\n", 2, "VideoQuirks", "'a/b'",
    { { "sleep.quirks", "dpms_on" } } },
  { "power-source-word", "[Daemon]\nPowerSource=mains\nDryRun=true\n", 2, "PowerSource",
    "auto|ac|battery", { { "daemon.power_source", "auto" }, { "daemon.dryrun", "true" } } },
  { "power-source-case", "[Daemon]\nPowerSource=Battery\n", 2, "PowerSource", "'Battery'",
    { { "daemon.power_source", "auto" } } },
  { "power-source-empty", "[Daemon]\nPowerSource=\n", 2, "PowerSource", "auto|ac|battery",
    { { "daemon.power_source", "auto" } } },
  { "low-battery-percent-over", "[Daemon]\nLowBatteryPercent=101\nDryRun=true\n", 2,
    "LowBatteryPercent", "0 to 100", { { "daemon.low_battery", "20" }, { "daemon.dryrun", "true" } } },
  { "low-battery-percent-negative", "[Daemon]\nLowBatteryPercent=-5\n", 2, "LowBatteryPercent",
    "'-5'", { { "daemon.low_battery", "20" } } },
  { "low-battery-percent-sign", "[Daemon]\nLowBatteryPercent=20%\n", 2, "LowBatteryPercent",
    "'20%'", { { "daemon.low_battery", "20" } } },
  { "low-battery-percent-empty", "[Daemon]\nLowBatteryPercent=\n", 2, "LowBatteryPercent",
    "''", { { "daemon.low_battery", "20" } } },
  { "sleep-battery-other-key", "[Sleep:battery]\nVideoQuirks=none\nMemSleep=s2idle\n", 2,
    "unknown key 'VideoQuirks' in [Sleep:battery]", "belong in [Sleep]",
    { { "sleep.quirks", "(auto)" }, { "sleep.mem.battery", "s2idle" } } },
  { "sleep-battery-bad-value", "[Sleep:low-battery]\nMemSleep=deeper\nHibernateMode=shutdown\n", 2,
    "MemSleep", "'deeper'", { { "sleep.mem.low", "(unset)" }, { "sleep.hibernate.low", "shutdown" } } },
  { "sleep-unknown-layer", "[Sleep:idle]\nMemSleep=s2idle\n[Sleep]\nMemSleep=deep\n", 1,
    "unknown layer 'idle' in [Sleep:idle]", ":low-battery",
    { { "sleep.mem", "deep" }, { "sleep.mem.battery", "(unset)" } } },
  { "exclude-drivers-in-low-battery", "[Class pci:low-battery]\nExcludeDrivers=nouveau\n", 2,
    "ExcludeDrivers", ":low-battery", { { "class-exclude|pci", "(none)" } } },
  { "sleep-unknown-key", "[Sleep]\nSuspendState=mem\nMemSleep=deep\n", 2, "unknown key",
    "'SuspendState'", { { "sleep.mem", "deep" } } },

  /* [Class X] keys */
  { "control-off", "[Class usb]\nControl=off\nWakeup=enabled\n", 2, "Control", "'off'",
    { { "class|usb|base|power/control", "(unset)" }, { "class|usb|base|power/wakeup", "enabled" } } },
  { "control-case", "[Class usb]\nControl=Auto\nWakeup=enabled\n", 2, "Control", "'Auto'",
    { { "class|usb|base|power/control", "(unset)" }, { "class|usb|base|power/wakeup", "enabled" } } },
  { "control-two-words", "[Class usb]\nControl=on auto\nWakeup=enabled\n", 2, "Control", "'on auto'",
    { { "class|usb|base|power/control", "(unset)" }, { "class|usb|base|power/wakeup", "enabled" } } },
  { "delay-minus-two", "[Class usb]\nAutosuspendDelayMs=-2\nControl=auto\n", 2,
    "AutosuspendDelayMs", "'-2'",
    { { "class|usb|base|power/autosuspend_delay_ms", "(unset)" },
      { "class|usb|base|power/control", "auto" } } },
  { "delay-word", "[Class usb]\nAutosuspendDelayMs=abc\nControl=auto\n", 2,
    "AutosuspendDelayMs", "'abc'",
    { { "class|usb|base|power/autosuspend_delay_ms", "(unset)" },
      { "class|usb|base|power/control", "auto" } } },
  { "delay-overflow", "[Class usb]\nAutosuspendDelayMs=2147483648\nControl=auto\n", 2,
    "AutosuspendDelayMs", "'2147483648'",
    { { "class|usb|base|power/autosuspend_delay_ms", "(unset)" },
      { "class|usb|base|power/control", "auto" } } },
  { "delay-fraction", "[Class usb]\nAutosuspendDelayMs=1.5\nControl=auto\n", 2,
    "AutosuspendDelayMs", "'1.5'",
    { { "class|usb|base|power/autosuspend_delay_ms", "(unset)" },
      { "class|usb|base|power/control", "auto" } } },
  { "delay-unit", "[Class usb]\nAutosuspendDelayMs=2000ms\nControl=auto\n", 2,
    "AutosuspendDelayMs", "'2000ms'",
    { { "class|usb|base|power/autosuspend_delay_ms", "(unset)" },
      { "class|usb|base|power/control", "auto" } } },
  { "wakeup-on", "[Class usb]\nWakeup=on\nControl=auto\n", 2, "Wakeup", "'on'",
    { { "class|usb|base|power/wakeup", "(unset)" }, { "class|usb|base|power/control", "auto" } } },
  { "wakeup-enable", "[Class usb]\nWakeup=enable\nControl=auto\n", 2, "Wakeup", "'enable'",
    { { "class|usb|base|power/wakeup", "(unset)" }, { "class|usb|base|power/control", "auto" } } },
  { "link-policy-bad", "[Class sata-host]\nLinkPowerPolicy=max\nControl=auto\n", 2,
    "LinkPowerPolicy", "'max'",
    { { "class|sata-host|base|link_power_management_policy", "(unset)" },
      { "class|sata-host|base|power/control", "auto" } } },
  { "link-policy-typo", "[Class sata-host]\nLinkPowerPolicy=minpower\nControl=auto\n", 2,
    "LinkPowerPolicy", "'minpower'",
    { { "class|sata-host|base|link_power_management_policy", "(unset)" },
      { "class|sata-host|base|power/control", "auto" } } },
  { "battery-layer-bad-value", "[Class usb:battery]\nControl=maybe\nAutosuspendDelayMs=5\n", 2,
    "Control", "'maybe'",
    { { "class|usb|battery|power/control", "(unset)" },
      { "class|usb|battery|power/autosuspend_delay_ms", "5" } } },
  { "idle-layer-bad-value", "[Class usb:idle]\nWakeup=maybe\nAutosuspendDelayMs=5\n", 2,
    "Wakeup", "'maybe'",
    { { "class|usb|idle|power/wakeup", "(unset)" },
      { "class|usb|idle|power/autosuspend_delay_ms", "5" } } },
  { "class-unknown-key", "[Class usb]\nAutosuspend=yes\nControl=auto\n", 2, "unknown key",
    "'Autosuspend'", { { "class|usb|base|power/control", "auto" }, { "class|usb|base", "1" } } },
  { "class-key-case", "[Class usb]\ncontrol=on\nWakeup=enabled\n", 2, "unknown key", "'control'",
    { { "class|usb|base|power/control", "(unset)" }, { "class|usb|base", "1" } } },
  { "class-locale-key", "[Class usb]\nControl[de]=on\nWakeup=enabled\n", 2, "unknown key",
    "Control[de]", { { "class|usb|base|power/control", "(unset)" } } },

  /* Attr.<relpath> */
  { "attr-empty", "[Class c]\nAttr.=1\nControl=on\n", 2, "attribute path", "''",
    { { "class|c|base", "1" }, { "class|c|base|power/control", "on" } } },
  { "attr-dotdot", "[Class c]\nAttr.../x=1\nControl=on\n", 2, "attribute path", "'../x'",
    { { "class|c|base", "1" }, { "class|c|base|power/control", "on" } } },
  { "attr-dotdot-middle", "[Class c]\nAttr.power/../../../power/state=mem\nControl=on\n", 2,
    "attribute path", "'power/../../../power/state'",
    { { "class|c|base", "1" }, { "class|c|base|power/control", "on" } } },
  { "attr-dotdot-alone", "[Class c]\nAttr...=1\nControl=on\n", 2, "attribute path", "'..'",
    { { "class|c|base", "1" } } },
  { "attr-dot", "[Class c]\nAttr..=1\nControl=on\n", 2, "attribute path", "'.'",
    { { "class|c|base", "1" } } },
  { "attr-dot-component", "[Class c]\nAttr.power/./control=1\nControl=on\n", 2, "attribute path",
    "'power/./control'", { { "class|c|base", "1" }, { "class|c|base|power/control", "on" } } },
  { "attr-absolute", "[Class c]\nAttr./sys/power/state=mem\nControl=on\n", 2, "attribute path",
    "'/sys/power/state'", { { "class|c|base", "1" } } },
  { "attr-empty-component", "[Class c]\nAttr.power//control=on\nWakeup=enabled\n", 2,
    "attribute path", "'power//control'",
    { { "class|c|base", "1" }, { "class|c|base|power/control", "(unset)" } } },
  { "attr-trailing-slash", "[Class c]\nAttr.power/=on\nWakeup=enabled\n", 2, "attribute path",
    "'power/'", { { "class|c|base", "1" } } },
  { "attr-space", "[Class c]\nAttr.power control=on\nWakeup=enabled\n", 2, "attribute path",
    "'power control'", { { "class|c|base", "1" } } },
  { "attr-star", "[Class c]\nAttr.power/*=on\nWakeup=enabled\n", 2, "attribute path", "'power/*'",
    { { "class|c|base", "1" } } },
  { "attr-backslash", "[Class c]\nAttr.a\\b=on\nWakeup=enabled\n", 2, "attribute path", "'a\\b'",
    { { "class|c|base", "1" } } },
  { "attr-shell", "[Class c]\nAttr.$(reboot)=on\nWakeup=enabled\n", 2, "attribute path",
    "'$(reboot)'", { { "class|c|base", "1" } } },
  { "attr-semicolon", "[Class c]\nAttr.a;b=on\nWakeup=enabled\n", 2, "attribute path", "'a;b'",
    { { "class|c|base", "1" } } },
  { "attr-tilde", "[Class c]\nAttr.~/x=on\nWakeup=enabled\n", 2, "attribute path", "'~/x'",
    { { "class|c|base", "1" } } },
  { "attr-non-ascii", "[Class c]\nAttr.\xc3\xa9t\xc3\xa9=on\nWakeup=enabled\n", 2, "attribute path",
    "\xc3\xa9t\xc3\xa9", { { "class|c|base", "1" } } },
  { "attr-too-long",
    "[Class c]\nAttr.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/b=1\n"
    "Wakeup=enabled\n", 2, "attribute path", "/b'", { { "class|c|base", "1" } } },

  /* [Module X] */
  { "module-param-space", "[Module m]\nbad name=1\ngood=2\n", 2, "parameter", "'bad name'",
    { { "module|m|base", "1" }, { "module|m|base|good", "2" } } },
  { "module-param-slash", "[Module m]\na/b=1\ngood=2\n", 2, "parameter", "'a/b'",
    { { "module|m|base", "1" }, { "module|m|base|good", "2" } } },
  { "module-param-traversal", "[Module m]\n../../power/state=mem\ngood=2\n", 2, "parameter",
    "'../../power/state'", { { "module|m|base", "1" }, { "module|m|base|good", "2" } } },
  { "module-param-star", "[Module m]\np*=1\ngood=2\n", 2, "parameter", "'p*'",
    { { "module|m|base", "1" } } },

  /* sections */
  { "unknown-section", "[Power]\nFoo=1\nBar=2\n[Daemon]\nIdleTimeoutSec=5\n", 1, "unknown section",
    "[Power]", { { "daemon.idle", "5" } } },
  { "lowercase-section", "[daemon]\nIdleTimeoutSec=5\n[Lid]\nOnClose=lock\n", 1, "unknown section",
    "[daemon]", { { "daemon.idle", "300" }, { "lid.close", "lock" } } },
  { "class-without-name", "[Class]\nControl=on\n[Daemon]\nIdleTimeoutSec=5\n", 1, "unknown section",
    "[Class]", { { "classes", "0" }, { "daemon.idle", "5" } } },
  { "class-empty-name", "[Class ]\nControl=on\n[Daemon]\nIdleTimeoutSec=5\n", 1, "invalid class name",
    "[Class ]", { { "classes", "0" }, { "daemon.idle", "5" } } },
  { "class-name-slash", "[Class a/b]\nControl=on\n[Class ok]\nControl=auto\n", 1, "invalid class name",
    "'a/b'", { { "classes", "1" }, { "class|ok|base|power/control", "auto" } } },
  { "class-name-space", "[Class a b]\nControl=on\n[Class ok]\nControl=auto\n", 1, "invalid class name",
    "'a b'", { { "classes", "1" } } },
  { "class-unknown-layer", "[Class usb:awake]\nControl=on\n[Class usb]\nControl=auto\n", 1,
    "unknown layer", "'awake'",
    { { "class|usb|base|power/control", "auto" }, { "class|usb|base", "1" },
      { "class|usb|battery", "0" }, { "class|usb|idle", "0" } } },
  { "class-empty-layer", "[Class usb:]\nControl=on\n[Class usb]\nControl=auto\n", 1, "unknown layer",
    "[Class usb:]", { { "class|usb|base|power/control", "auto" } } },
  { "class-two-layers", "[Class usb:battery:idle]\nControl=on\n[Class usb]\nControl=auto\n", 1,
    "invalid class name", "'usb:battery'",
    { { "class|usb|base|power/control", "auto" }, { "class|usb|battery", "0" },
      { "class|usb|idle", "0" } } },
  { "module-name-space", "[Module snd hda]\np=1\n[Module ok]\np=2\n", 1, "invalid module name",
    "'snd hda'", { { "modules", "1" }, { "module|ok|base|p", "2" } } },
  { "module-unknown-layer", "[Module m:ac]\np=1\n[Module m]\np=2\n", 1, "unknown layer", "'ac'",
    { { "module|m|base|p", "2" }, { "module|m|battery", "0" } } },
  { "module-name-traversal", "[Module ../power]\nstate=mem\n[Module ok]\np=2\n", 1,
    "invalid module name", "'../power'", { { "modules", "1" } } },

  /* malformed lines */
  { "header-unterminated", "[Daemon\nIdleTimeoutSec=5\n[Lid]\nOnClose=lock\n", 1, "malformed section",
    "[Daemon", { { "daemon.idle", "300" }, { "lid.close", "lock" } } },
  { "header-empty", "[]\nIdleTimeoutSec=5\n[Lid]\nOnClose=lock\n", 1, "malformed section", "'[]'",
    { { "daemon.idle", "300" }, { "lid.close", "lock" } } },
  { "header-trailing-text", "[Daemon] x\nIdleTimeoutSec=5\n[Lid]\nOnClose=lock\n", 1,
    "malformed section", "[Daemon] x", { { "daemon.idle", "300" }, { "lid.close", "lock" } } },
  { "header-trailing-comment", "[Daemon] # x\nIdleTimeoutSec=5\n[Lid]\nOnClose=lock\n", 1,
    "malformed section", "# x", { { "daemon.idle", "300" }, { "lid.close", "lock" } } },
  { "no-equals", D "IdleTimeoutSec\nDryRun=true\n", 2, "malformed line", "'IdleTimeoutSec'",
    { { "daemon.idle", "300" }, { "daemon.dryrun", "true" } } },
  { "no-equals-text", "[Class usb]\nControl auto\nWakeup=enabled\n", 2, "malformed line",
    "'Control auto'",
    { { "class|usb|base|power/control", "(unset)" }, { "class|usb|base|power/wakeup", "enabled" } } },
  { "closing-bracket-only", "Daemon]\n[Daemon]\nIdleTimeoutSec=5\n", 1, "malformed line", "Daemon]",
    { { "daemon.idle", "5" } } },
  { "missing-key", D "=5\nIdleTimeoutSec=6\n", 2, "missing key", "",
    { { "daemon.idle", "6" } } },
  { "key-before-group", "IdleTimeoutSec=5\n[Daemon]\nDryRun=true\n", 1, "outside of any section",
    "'IdleTimeoutSec'", { { "daemon.idle", "300" }, { "daemon.dryrun", "true" } } },
  { "key-before-group-after-comment", "# hello\n\nControl=on\n[Class usb]\nControl=auto\n", 3,
    "outside of any section", "'Control'", { { "class|usb|base|power/control", "auto" } } },
  { "semicolon-comment", D "; not a comment\nIdleTimeoutSec=5\n", 2, "malformed line", "; not",
    { { "daemon.idle", "5" } } },

  { "header-dropped-keys-not-moved",
    "[Class usb]\nControl=auto\n[Class usb-hid\nControl=on\n[Daemon]\nDryRun=true\n", 3,
    "malformed section header", "'[Class usb-hid'",
    { { "class|usb|base|power/control", "auto" }, { "daemon.dryrun", "true" },
      { "classes", "1" } } },
  { "header-control-char", "[Class usb]\nControl=auto\n[Class u\tsb]\nControl=on\n", 3,
    "malformed section header", "'[Class u\\tsb]'",
    { { "class|usb|base|power/control", "auto" }, { "classes", "1" } } },
  { "key-name-bracket", D "Idle]Timeout=5\nDryRun=true\n", 2, "invalid key name", "'Idle]Timeout'",
    { { "daemon.dryrun", "true" } } },
  { "key-name-control-char", D "Idle\x1b[2JTimeoutSec=5\nDryRun=true\n", 2, "invalid key name",
    "'Idle\\x1b[2JTimeoutSec'", { { "daemon.dryrun", "true" } } },
  { "key-name-bad-locale", D "Idle[a b]=5\nDryRun=true\n", 2, "invalid key name", "'Idle[a b]'",
    { { "daemon.dryrun", "true" } } },
  /* GKeyFile rejected a whole file for this; to our parser it is just an
   * unknown key */
  { "encoding-in-first-group", D "Encoding=latin1\nDryRun=true\n", 2, "unknown key", "'Encoding'",
    { { "daemon.dryrun", "true" } } },
  { "escape-unknown", "[Module m]\np=a\\qb\nq=1\n", 2, "invalid escape", "'a\\qb'",
    { { "module|m|base|p", "(unset)" }, { "module|m|base|q", "1" } } },
  { "escape-trailing-backslash", "[Module m]\np=ab\\\nq=1\n", 2, "invalid escape", "of p",
    { { "module|m|base|p", "(unset)" }, { "module|m|base|q", "1" } } },
  { "delay-plus", "[Class usb]\nAutosuspendDelayMs=+5\nControl=auto\n", 2,
    "AutosuspendDelayMs", "'+5'",
    { { "class|usb|base|power/autosuspend_delay_ms", "(unset)" },
      { "class|usb|base|power/control", "auto" } } },
  { "delay-leading-zero", "[Class usb]\nAutosuspendDelayMs=010\nControl=auto\n", 2,
    "AutosuspendDelayMs", "'010'",
    { { "class|usb|base|power/autosuspend_delay_ms", "(unset)" },
      { "class|usb|base|power/control", "auto" } } },

  /* new keys */
  { "max-per-user-zero", D "MaxInhibitorsPerUser=0\nDryRun=true\n", 2, "MaxInhibitorsPerUser", "'0'",
    { { "daemon.max_per_user", "64" }, { "daemon.dryrun", "true" } } },
  { "max-per-user-too-big", D "MaxInhibitorsPerUser=4097\nDryRun=true\n", 2,
    "MaxInhibitorsPerUser", "1 to 4096", { { "daemon.max_per_user", "64" } } },
  { "max-total-zero", D "MaxInhibitors=0\nDryRun=true\n", 2, "MaxInhibitors", "'0'",
    { { "daemon.max", "4096" }, { "daemon.dryrun", "true" } } },
  { "max-total-too-big", D "MaxInhibitors=4097\nMaxInhibitorsPerUser=3\n", 2, "MaxInhibitors",
    "'4097'", { { "daemon.max", "4096" }, { "daemon.max_per_user", "3" } } },
  { "max-total-negative", D "MaxInhibitors=-1\n", 2, "MaxInhibitors", "'-1'",
    { { "daemon.max", "4096" } } },
  { "max-total-word", D "MaxInhibitors=many\n", 2, "MaxInhibitors", "'many'",
    { { "daemon.max", "4096" } } },
  { "exclude-drivers-in-idle", "[Class pci:idle]\nExcludeDrivers=nouveau\nControl=auto\n", 2,
    "ExcludeDrivers", ":idle",
    { { "class-exclude|pci", "(none)" }, { "class|pci|idle|power/control", "auto" },
      { "class|pci|idle", "1" } } },
  { "exclude-drivers-in-battery", "[Class pci]\nExcludeDrivers=a\n[Class pci:battery]\n"
    "ExcludeDrivers=b\n", 4, "ExcludeDrivers", ":battery",
    { { "class-exclude|pci", "a" }, { "class|pci|battery", "0" } } },
  { "exclude-drivers-bad-name", "[Class pci]\nExcludeDrivers=nouveau a/b radeon\n", 2,
    "ExcludeDrivers", "'a/b'", { { "class-exclude|pci", "nouveau radeon" } } },

  /* line numbers */
  { "line-after-blank-and-comments", "\n# c\n\n[Daemon]\n# c\n\nDryRun=perhaps\nIdleTimeoutSec=1\n", 7,
    "DryRun", "'perhaps'", { { "daemon.dryrun", "false" }, { "daemon.idle", "1" } } },
  { "line-crlf", "[Daemon]\r\n\r\nIdleTimeoutSec=1\r\nDryRun=perhaps\r\n", 4, "DryRun", "'perhaps'",
    { { "daemon.dryrun", "false" }, { "daemon.idle", "1" } } },
  { "line-last-no-newline", "[Daemon]\nIdleTimeoutSec=1\n\nDryRun=perhaps", 4, "DryRun", "'perhaps'",
    { { "daemon.dryrun", "false" }, { "daemon.idle", "1" } } },
};

/* Texts with several problems (duplicates above all): each expected in
 * this order at its line, with its needle in the message. */
typedef struct {
  guint       line;
  const char *needle;
} Expect;

typedef struct {
  const char *name;
  const char *text;
  gsize       length;
  Expect      expect[4];
  Check       checks[MAX_CHECKS];
} MultiCase;

#define TEXT_LEN(s) s, sizeof (s) - 1
#define AGAIN "set again"

static const MultiCase multi_cases[] = {
  { "duplicate-key-later-wins", TEXT_LEN ("[Daemon]\nIdleTimeoutSec=1\nIdleTimeoutSec=2\n"),
    { { 3, "IdleTimeoutSec set again in [Daemon] (before at line 2), the later value wins" } },
    { { "daemon.idle", "2" } } },
  { "duplicate-key-three-times", TEXT_LEN ("[Lid]\nHoldoffSec=1\nHoldoffSec=2\nHoldoffSec=3\n"),
    { { 3, "(before at line 2)" }, { 4, "(before at line 3)" } }, { { "lid.holdoff", "3" } } },
  { "duplicate-key-bad-later-value", TEXT_LEN ("[Daemon]\nIdleTimeoutSec=60\nIdleTimeoutSec=x\n"),
    { { 3, AGAIN }, { 3, "'x'" } }, { { "daemon.idle", "300" } } },
  { "daemon-bool-back-to-true", TEXT_LEN ("[Daemon]\nRestoreOnExit=false\nRestoreOnExit=true\n"),
    { { 3, AGAIN } }, { { "daemon.restore", "true" } } },
  { "sleep-mem-back-to-auto", TEXT_LEN ("[Sleep]\nMemSleep=deep\nMemSleep=auto\n"),
    { { 3, AGAIN } }, { { "sleep.mem", "auto" } } },
  { "sleep-quirks-back-to-auto", TEXT_LEN ("[Sleep]\nVideoQuirks=none\nVideoQuirks=auto\n"),
    { { 3, AGAIN } }, { { "sleep.quirks", "(auto)" } } },
  { "sleep-quirks-empty-is-auto", TEXT_LEN ("[Sleep]\nVideoQuirks=none\nVideoQuirks=\n"),
    { { 3, AGAIN } }, { { "sleep.quirks", "(auto)" } } },
  { "sleep-helper-empty", TEXT_LEN ("[Sleep]\nQuirkHelper=/bin/x\nQuirkHelper=\n"),
    { { 3, AGAIN } }, { { "sleep.helper", "(unset)" } } },
  { "section-twice-merged",
    TEXT_LEN ("[Class usb]\nControl=auto\n[Daemon]\nDryRun=true\n[Class usb]\nAutosuspendDelayMs=5\n"),
    { { 5, "section [Class usb] appears again (first at line 1)" } },
    { { "class|usb|base|power/control", "auto" },
      { "class|usb|base|power/autosuspend_delay_ms", "5" }, { "daemon.dryrun", "true" },
      { "class-keys|usb|base", "power/control power/autosuspend_delay_ms" } } },
  /* the example: a second [Class usb-hid] autosuspending every mouse */
  { "section-twice-key-twice",
    TEXT_LEN ("[Class usb-hid]\nControl=on\n[Class usb]\nControl=auto\n[Class usb-hid]\nControl=auto\n"),
    { { 5, "[Class usb-hid] appears again (first at line 1)" },
      { 6, "Control set again in [Class usb-hid] (before at line 2)" } },
    { { "class|usb-hid|base|power/control", "auto" }, { "class|usb|base|power/control", "auto" },
      { "class-origin|usb-hid|base|power/control", "multi.conf:6" } } },
  /* the GKeyFile-based parser let this through and lost the whole file */
  { "encoding-in-first-section-repeated",
    TEXT_LEN ("[Daemon]\nIdleTimeoutSec=5\n[Lid]\nOnClose=lock\n[Daemon]\nEncoding=latin1\n"),
    { { 5, "section [Daemon] appears again" }, { 6, "unknown key 'Encoding' in [Daemon]" } },
    { { "daemon.idle", "5" }, { "lid.close", "lock" } } },
  /* bad lines: dropped alone, the rest applies */
  { "nul-byte", TEXT_LEN ("[Daemon]\nIdleTimeoutSec=5\nx\0y\nDryRun=true\n"),
    { { 3, "line contains a NUL byte: 'x\\x00y', ignoring the line" } },
    { { "daemon.idle", "5" }, { "daemon.dryrun", "true" } } },
  { "nul-first", TEXT_LEN ("\0[Daemon]\nIdleTimeoutSec=5\n[Lid]\nOnClose=lock\n"),
    { { 1, "NUL" }, { 2, "outside of any section" } }, { { "daemon.idle", "300" }, { "lid.close", "lock" } } },
  { "nul-in-header", TEXT_LEN ("[Class usb]\nControl=auto\n[Class usb-hid\0]\nControl=on\n[Lid]\nOnClose=lock\n"),
    { { 3, "NUL byte: '[Class usb-hid\\x00]', ignoring the section" } },
    { { "class|usb|base|power/control", "auto" }, { "classes", "1" }, { "lid.close", "lock" } } },
  { "nul-last", TEXT_LEN ("[Daemon]\nIdleTimeoutSec=5\n\0"), { { 3, "NUL" } }, { { "daemon.idle", "5" } } },
  { "invalid-utf8-header", TEXT_LEN ("[Daemon]\nIdleTimeoutSec=5\n[Class \xff\xfe]\nControl=on\n[Lid]\nOnClose=lock\n"),
    { { 3, "not valid UTF-8: '[Class \\xff\\xfe]', ignoring the section" } },
    { { "daemon.idle", "5" }, { "classes", "0" }, { "lid.close", "lock" } } },
  { "invalid-utf8-value", TEXT_LEN ("[Module m]\np=caf\xe9\nq=1\n"),
    { { 2, "not valid UTF-8: 'p=caf\\xe9', ignoring the line" } },
    { { "module|m|base|p", "(unset)" }, { "module|m|base|q", "1" } } },
  { "truncated-utf8", TEXT_LEN ("[Daemon]\nIdleTimeoutSec=5\n# caf\xc3"), { { 3, "UTF-8" } },
    { { "daemon.idle", "5" } } },
  { "overlong-utf8", TEXT_LEN ("[Daemon]\nIdleTimeoutSec=5\n# \xc0\xaf\n"), { { 3, "UTF-8" } },
    { { "daemon.idle", "5" } } },
  { "no-equals-quoted-escaped", TEXT_LEN ("[Daemon]\nfoo\tbar\\baz\nDryRun=true\n"),
    { { 2, "malformed line (expected KEY=VALUE): 'foo\\tbar\\baz', ignoring the line" } },
    { { "daemon.dryrun", "true" } } },
  { "crlf-bad-line", TEXT_LEN ("[Daemon]\r\nbroken\r\nDryRun=true\r\n"),
    { { 2, "'broken', ignoring" } }, { { "daemon.dryrun", "true" } } },
};

static void
test_multi (void **state)
{
  State *st = *state;
  const MultiCase *c = st->row;
  g_autofree char *all = NULL;
  guint n = 0;

  pp_config_load_data (st->config, "multi.conf", c->text, c->length, st->problems);
  all = problems_to_string (st->problems);
  while (n < G_N_ELEMENTS (c->expect) && c->expect[n].needle != NULL)
    n++;
  if (st->problems->len != n)
    fail_msg ("expected %u problems, got %u:\n%s", n, st->problems->len, all);
  for (guint i = 0; i < n; i++)
    {
      const PpConfigProblem *p = g_ptr_array_index (st->problems, i);
      if (p->line != c->expect[i].line || strstr (p->message, c->expect[i].needle) == NULL ||
          g_strcmp0 (p->file, "multi.conf") != 0)
        fail_msg ("problem %u: expected multi.conf:%u with '%s', got:\n%s",
                  i, c->expect[i].line, c->expect[i].needle, all);
    }
  assert_checks (st->config, c->checks);
}

/* Over-long lines are dropped and quoted in part; a line of exactly the
 * maximum is accepted. */
static void
test_long_lines (void **state)
{
  State *st = *state;
  g_autofree char *value_ok = g_strnfill (PP_CONFIG_MAX_LINE - 2, 'x');
  g_autofree char *value_long = g_strnfill (PP_CONFIG_MAX_LINE - 1, 'y');
  g_autofree char *text = g_strdup_printf ("[Module m]\np=%s\nq=%s\n[Bogus %s]\nr=1\n[Module n]\ns=1\n",
                                           value_ok, value_long, value_long);
  /* PP_CONFIG_MAX_QUOTE bytes, the last three the ellipsis (U+2026) */
  g_autofree char *quote = g_strdup_printf ("'q=%.*s\xe2\x80\xa6'", PP_CONFIG_MAX_QUOTE - 5, value_long);
  const PpConfigProblem *p;

  load (st, "long.conf", text);
  assert_int_equal (st->problems->len, 2);
  p = g_ptr_array_index (st->problems, 0);
  assert_int_equal (p->line, 3);
  assert_non_null (strstr (p->message, "longer than 4096 bytes"));
  assert_non_null (strstr (p->message, quote));
  /* the report stays short whatever the line */
  assert_true (strlen (p->message) < 200);
  p = g_ptr_array_index (st->problems, 1);
  assert_int_equal (p->line, 4);
  assert_non_null (strstr (p->message, "ignoring the section"));
  assert_checks (st->config, (const Check[MAX_CHECKS]) {
    { "module|m|base", "1" }, { "module|m|base|q", "(unset)" }, { "module|n|base|s", "1" },
    { "modules", "2" } });
  assert_checks (st->config, (const Check[MAX_CHECKS]) { { "module|m|base|p", value_ok } });
}

/* Every setting knows the file and line that set it. */
static void
test_origins (void **state)
{
  State *st = *state;
  static const Check checks[MAX_CHECKS] = {
    { "class-origin|usb|base|power/control", "main.conf:2" },
    { "class-origin|usb|base|power/autosuspend_delay_ms", "main.conf.d/10-x.conf:3" },
    { "class-origin|usb|battery|power/autosuspend_delay_ms", "main.conf:6" },
    { "class-origin|usb|base|device/x", "main.conf:4" },
    { "module-origin|m|idle|p", "main.conf.d/10-x.conf:5" },
    { "class-exclude-origin|pci", "main.conf.d/10-x.conf:7" },
    { "class-exclude|pci", "nouveau" },
    { "class-origin|usb|base|power/wakeup", "(unset)" },
  };

  load (st, "main.conf",
        "[Class usb]\nControl=auto\nAutosuspendDelayMs=2000\nAttr.device/x=1\n"
        "[Class usb:battery]\nAutosuspendDelayMs=1000\n"
        "[Class pci]\nExcludeDrivers=mei_me\n");
  load (st, "main.conf.d/10-x.conf",
        "# a drop-in\n[Class usb]\nAutosuspendDelayMs=500\n[Module m:idle]\np=1\n"
        "[Class pci]\nExcludeDrivers=nouveau\n");
  assert_no_problems (st);
  assert_checks (st->config, checks);
}

static void
test_exclude_drivers_dropin_clears (void **state)
{
  State *st = *state;

  load (st, "a.conf", "[Class pci]\nExcludeDrivers=mei_me nouveau\n");
  load (st, "b.conf", "[Class pci]\nExcludeDrivers=\n");
  assert_no_problems (st);
  assert_checks (st->config, (const Check[MAX_CHECKS]) {
    { "class-exclude|pci", "(none)" }, { "class-exclude-origin|pci", "b.conf:2" } });
}

/* An invalid lid action once crashed the parser (the list of valid
 * names it prints had no NULL terminator). */
static const BadCase lid_action_cases[] = {
  { "on-close-bad", "[Lid]\nOnClose=sleep\nHoldoffSec=3\n", 2, "OnClose", "'sleep'",
    { { "lid.close", "suspend" }, { "lid.holdoff", "3" } } },
  { "on-close-case", "[Lid]\nOnClose=Suspend\nOnCloseDocked=lock\n", 2, "OnClose", "'Suspend'",
    { { "lid.close", "suspend" }, { "lid.close_docked", "lock" } } },
  { "on-close-empty", "[Lid]\nOnClose=\nHoldoffSec=3\n", 2, "OnClose", "''",
    { { "lid.close", "suspend" }, { "lid.holdoff", "3" } } },
  { "on-close-ext-bad", "[Lid]\nOnCloseExternalPower=shutdown\nHoldoffSec=3\n", 2,
    "OnCloseExternalPower", "'shutdown'",
    { { "lid.close_ext", "suspend" }, { "lid.holdoff", "3" } } },
  { "on-close-docked-bad", "[Lid]\nOnCloseDocked=dock\nHoldoffSec=3\n", 2, "OnCloseDocked", "'dock'",
    { { "lid.close_docked", "ignore" }, { "lid.holdoff", "3" } } },
};

static void
test_bad (void **state)
{
  State *st = *state;
  const BadCase *c = st->row;
  const PpConfigProblem *p;
  g_autofree char *all = NULL;
  g_autofree char *str = NULL;
  g_autofree char *expected_prefix = NULL;

  load (st, "bad.conf", c->text);
  all = problems_to_string (st->problems);
  if (st->problems->len != 1)
    fail_msg ("expected exactly one problem, got %u:\n%s", st->problems->len, all);
  p = g_ptr_array_index (st->problems, 0);
  assert_string_equal (p->file, "bad.conf");
  if (p->line != c->line)
    fail_msg ("expected the problem at line %u, got: %s", c->line, all);
  if (strstr (p->message, c->needle1) == NULL || strstr (p->message, c->needle2) == NULL)
    fail_msg ("expected '%s' and '%s' in the message, got: %s", c->needle1, c->needle2, all);
  /* "file:line: message", as systemd's parsers report */
  str = pp_config_problem_to_string (p);
  expected_prefix = g_strdup_printf ("bad.conf:%u: ", c->line);
  if (!g_str_has_prefix (str, expected_prefix))
    fail_msg ("expected '%s...', got '%s'", expected_prefix, str);
  assert_checks (st->config, c->checks);
}

/* ---- several problems in one file ------------------------------------------ */

static void
test_many_problems (void **state)
{
  State *st = *state;
  const char *text =
    "Orphan=1\n"                  /* 1 */
    "[Daemon]\n"                  /* 2 */
    "IdleTimeoutSec=soon\n"       /* 3 */
    "RestoreOnExit=false\n"       /* 4 */
    "[Class usb]\n"               /* 5 */
    "Control=sometimes\n"         /* 6 */
    "AutosuspendDelayMs=750\n"    /* 7 */
    "Attr.../../x=1\n"            /* 8 */
    "[Nope]\n"                    /* 9 */
    "Ignored=1\n"                 /* 10 */
    "[Lid]\n"                     /* 11 */
    "HoldoffSec=never\n"          /* 12 */
    "HoldoffSec=12\n"             /* 13 */
    "garbage\n"                   /* 14 */
    "[Sleep\n"                    /* 15 */
    "MemSleep=deep\n"             /* 16 */
    "[Sleep]\n"                   /* 17 */
    "HibernateMode=shutdown\n";   /* 18 */
  static const guint expected_lines[] = { 1, 3, 6, 8, 9, 13, 14, 15 };
  static const Check checks[MAX_CHECKS] = {
    { "daemon.idle", "300" }, { "daemon.restore", "false" },
    { "class|usb|base|power/control", "(unset)" },
    { "class|usb|base|power/autosuspend_delay_ms", "750" }, { "classes", "1" },
    { "lid.holdoff", "12" }, { "sleep.mem", "auto" }, { "sleep.hibernate", "shutdown" },
  };
  g_autofree char *all = NULL;

  load (st, "many.conf", text);
  all = problems_to_string (st->problems);
  if (st->problems->len != G_N_ELEMENTS (expected_lines))
    fail_msg ("expected %u problems, got:\n%s", (guint) G_N_ELEMENTS (expected_lines), all);
  for (guint i = 0; i < G_N_ELEMENTS (expected_lines); i++)
    {
      const PpConfigProblem *p = g_ptr_array_index (st->problems, i);
      if (p->line != expected_lines[i] || g_strcmp0 (p->file, "many.conf") != 0)
        fail_msg ("problem %u: expected many.conf:%u, got:\n%s", i, expected_lines[i], all);
    }
  assert_checks (st->config, checks);
}

static void
test_empty_text (void **state)
{
  State *st = *state;

  pp_config_load_data (st->config, "empty.conf", "", 0, st->problems);
  pp_config_load_data (st->config, "null.conf", NULL, 0, st->problems);
  /* a length shorter than the string: only that prefix is parsed */
  pp_config_load_data (st->config, "prefix.conf", "[Daemon]\nIdleTimeoutSec=12345", 27,
                       st->problems);
  assert_no_problems (st);
  assert_int_equal (st->config->idle_timeout_sec, 123);
}

static void
test_null_problems (void **state)
{
  State *st = *state;
  const char *text = "[Daemon]\nIdleTimeoutSec=bad\nDryRun=true\n[Nope]\nx\n";

  /* problems are optional: valid parts still apply */
  pp_config_load_data (st->config, "x.conf", text, strlen (text), NULL);
  assert_int_equal (st->config->idle_timeout_sec, 300);
  assert_true (st->config->dry_run);
  pp_config_load_data (st->config, "x.conf", "\xff", 1, NULL);
}

/* ---- drop-ins: several texts into one PpConfig --------------------------- */

static void
test_dropin_key_by_key (void **state)
{
  State *st = *state;
  static const Check checks[][MAX_CHECKS] = {
    { { "daemon.idle", "200" }, { "daemon.restore", "false" }, { "daemon.dryrun", "false" },
      { "lid.close", "lock" }, { "lid.close_ext", "hibernate" }, { "sleep.mem", "deep" },
      { "sleep.quirks", "none" } },
    { { "class|usb|base|power/control", "auto" },
      { "class|usb|base|power/autosuspend_delay_ms", "500" },
      { "class-keys|usb|base", "power/control power/autosuspend_delay_ms power/wakeup" },
      { "class|usb|base|power/wakeup", "enabled" },
      { "class|usb|battery|power/autosuspend_delay_ms", "1000" },
      { "class|usb|idle|power/autosuspend_delay_ms", "100" },
      { "class|pci|base|power/control", "on" }, { "classes", "2" } },
    { { "module|m|base|p", "1" }, { "module|m|base|q", "3" }, { "module|m|base|r", "4" },
      { "module-keys|m|base", "p q r" }, { "module|n|idle|x", "y" }, { "modules", "2" } },
  };

  load (st, "powerpolicy.conf",
        "[Daemon]\nIdleTimeoutSec=100\nRestoreOnExit=false\n"
        "[Class usb]\nControl=auto\nAutosuspendDelayMs=2000\n"
        "[Class usb:battery]\nAutosuspendDelayMs=1000\n"
        "[Module m]\np=1\nq=2\n"
        "[Lid]\nOnClose=lock\nOnCloseExternalPower=suspend\n"
        "[Sleep]\nVideoQuirks=none\n");
  load (st, "powerpolicy.conf.d/10-local.conf",
        "[Daemon]\nIdleTimeoutSec=200\n"
        "[Class usb]\nAutosuspendDelayMs=500\nWakeup=enabled\n"
        "[Class usb:idle]\nAutosuspendDelayMs=100\n"
        "[Class pci]\nControl=on\n"
        "[Module m]\nq=3\nr=4\n[Module n:idle]\nx=y\n"
        "[Lid]\nOnCloseExternalPower=hibernate\n"
        "[Sleep]\nMemSleep=deep\n");
  assert_no_problems (st);
  for (guint i = 0; i < G_N_ELEMENTS (checks); i++)
    assert_checks (st->config, checks[i]);
}

static void
test_dropin_three_files_last_wins (void **state)
{
  State *st = *state;

  load (st, "a.conf", "[Class usb]\nControl=on\n");
  load (st, "b.conf", "[Class usb]\nAttr.power/control=auto\n");
  load (st, "c.conf", "[Class usb]\nControl=on\n[Daemon]\nIdleTimeoutSec=3\n");
  load (st, "d.conf", "[Daemon]\nIdleTimeoutSec=4\n");
  assert_no_problems (st);
  assert_checks (st->config, (const Check[MAX_CHECKS]) {
    { "class|usb|base|power/control", "on" }, { "class|usb|base", "1" }, { "daemon.idle", "4" } });
}

static void
test_dropin_bad_value_keeps_earlier (void **state)
{
  State *st = *state;
  const PpConfigProblem *p;

  load (st, "main.conf", "[Daemon]\nIdleTimeoutSec=100\n[Class usb]\nControl=auto\n");
  load (st, "main.conf.d/50-bad.conf", "[Daemon]\nIdleTimeoutSec=forever\n[Class usb]\nControl=never\n");
  assert_int_equal (st->problems->len, 2);
  p = g_ptr_array_index (st->problems, 0);
  assert_string_equal (p->file, "main.conf.d/50-bad.conf");
  assert_int_equal (p->line, 2);
  p = g_ptr_array_index (st->problems, 1);
  assert_string_equal (p->file, "main.conf.d/50-bad.conf");
  assert_int_equal (p->line, 4);
  assert_checks (st->config, (const Check[MAX_CHECKS]) {
    { "daemon.idle", "100" }, { "class|usb|base|power/control", "auto" } });
}

static void
test_dropin_section_does_not_continue (void **state)
{
  State *st = *state;
  const PpConfigProblem *p;

  /* a drop-in starts outside any section, whatever the previous file
   * ended with */
  load (st, "a.conf", "[Daemon]\nIdleTimeoutSec=10\n");
  load (st, "b.conf", "IdleTimeoutSec=20\n");
  assert_int_equal (st->problems->len, 1);
  p = g_ptr_array_index (st->problems, 0);
  assert_string_equal (p->file, "b.conf");
  assert_int_equal (p->line, 1);
  assert_int_equal (st->config->idle_timeout_sec, 10);
}

static void
test_dropin_bad_line_rest_applies (void **state)
{
  State *st = *state;
  static const char bad[] = "[Daemon]\nIdleTimeoutSec=20\n\xff\nRestoreOnExit=false\n";
  const PpConfigProblem *p;

  load (st, "a.conf", "[Daemon]\nIdleTimeoutSec=10\n");
  pp_config_load_data (st->config, "b.conf", bad, sizeof bad - 1, st->problems);
  load (st, "c.conf", "[Daemon]\nDryRun=true\n");
  assert_int_equal (st->problems->len, 1);
  p = g_ptr_array_index (st->problems, 0);
  assert_string_equal (p->file, "b.conf");
  assert_int_equal (p->line, 3);
  assert_int_equal (st->config->idle_timeout_sec, 20);
  assert_false (st->config->restore_on_exit);
  assert_true (st->config->dry_run);
}

static void
test_list_modules_sorted (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) names = NULL;

  load (st, "m.conf",
        "[Module zz]\na=1\n[Module snd_hda_intel]\na=1\n[Module aa:idle]\na=1\n"
        "[Module snd_ac97_codec:battery]\na=1\n[Module b]\na=1\n");
  assert_no_problems (st);
  names = pp_config_list_modules (st->config);
  assert_int_equal (names->len, 5);
  assert_string_equal (g_ptr_array_index (names, 0), "aa");
  assert_string_equal (g_ptr_array_index (names, 1), "b");
  assert_string_equal (g_ptr_array_index (names, 2), "snd_ac97_codec");
  assert_string_equal (g_ptr_array_index (names, 3), "snd_hda_intel");
  assert_string_equal (g_ptr_array_index (names, 4), "zz");
  assert_null (pp_config_get_module (st->config, "missing"));
  assert_null (pp_config_get_class (st->config, "zz"));
  assert_non_null (pp_config_get_module (st->config, "aa"));
}

/* ---- single-value validators ------------------------------------------------ */

typedef struct {
  const char *value;
  gboolean    valid;
} ValueCase;

static const ValueCase relpath_cases[] = {
  { "power/control", TRUE }, { "link_power_management_policy", TRUE },
  { "device/power_dpm_force_performance_level", TRUE }, { "a", TRUE },
  { "a-b_c.d:e/f", TRUE }, { "a/.b", TRUE }, { "a..b", TRUE }, { "...", TRUE },
  { "", FALSE }, { NULL, FALSE }, { "/power/control", FALSE }, { "..", FALSE }, { ".", FALSE },
  { "../x", FALSE }, { "x/..", FALSE }, { "x/../y", FALSE }, { "x/./y", FALSE }, { "./x", FALSE },
  { "x//y", FALSE }, { "x/", FALSE }, { "/", FALSE }, { "x y", FALSE }, { "x\ty", FALSE },
  { "x\ny", FALSE }, { "x*", FALSE }, { "x?", FALSE }, { "x\\y", FALSE }, { "x;y", FALSE },
  { "$x", FALSE }, { "~", FALSE }, { "\xc3\xa9", FALSE },
};

static void
test_relpath (void **state)
{
  State *st = *state;
  const ValueCase *c = st->row;

  if (pp_config_relpath_is_valid (c->value) != c->valid)
    fail_msg ("relpath '%s': expected %s", c->value ? c->value : "(null)", c->valid ? "valid" : "invalid");
}

static void
test_relpath_length (void **state)
{
  g_autofree char *ok = g_strnfill (255, 'a');
  g_autofree char *too_long = g_strnfill (256, 'a');

  assert_true (pp_config_relpath_is_valid (ok));
  assert_false (pp_config_relpath_is_valid (too_long));
}

static const ValueCase control_cases[] = {
  { "on", TRUE }, { "auto", TRUE }, { "off", FALSE }, { "", FALSE }, { NULL, FALSE },
  { "ON", FALSE }, { " on", FALSE }, { "auto\n", FALSE },
};
static const ValueCase wakeup_cases[] = {
  { "enabled", TRUE }, { "disabled", TRUE }, { "enable", FALSE }, { "on", FALSE }, { "", FALSE },
  { NULL, FALSE }, { "Enabled", FALSE },
};
static const ValueCase delay_cases[] = {
  { "0", TRUE }, { "-1", TRUE }, { "2000", TRUE }, { "2147483647", TRUE }, { "-2", FALSE },
  { "2147483648", FALSE }, { "", FALSE }, { NULL, FALSE }, { "1e3", FALSE }, { " 5", TRUE },
  { "5 ", TRUE }, { "\t-1\n", TRUE }, { " ", FALSE }, { "-", FALSE }, { "+5", FALSE },
  { "010", FALSE }, { "00", FALSE }, { "-0", FALSE }, { "-01", FALSE }, { "- 1", FALSE },
  { "1 2", FALSE }, { "5ms", FALSE }, { "0x10", FALSE }, { "-2147483648", FALSE },
  { "99999999999999999999", FALSE }, { "\xd9\xa5", FALSE },
};

static void
test_parse_control (void **state)
{
  State *st = *state;
  const ValueCase *c = st->row;
  g_autoptr(GError) error = NULL;
  gboolean ok = pp_config_parse_control (c->value, &error);

  assert_int_equal (ok, c->valid);
  assert_int_equal (error == NULL, c->valid);
}

static void
test_parse_wakeup (void **state)
{
  State *st = *state;
  const ValueCase *c = st->row;
  g_autoptr(GError) error = NULL;
  gboolean ok = pp_config_parse_wakeup (c->value, &error);

  assert_int_equal (ok, c->valid);
  assert_int_equal (error == NULL, c->valid);
}

static void
test_parse_delay (void **state)
{
  State *st = *state;
  const ValueCase *c = st->row;
  g_autoptr(GError) error = NULL;
  gint delay = 12345;
  gboolean ok = pp_config_parse_delay_ms (c->value, &delay, &error);

  assert_int_equal (ok, c->valid);
  assert_int_equal (error == NULL, c->valid);
  if (c->valid)
    assert_int_equal (delay, (gint) g_ascii_strtoll (c->value, NULL, 10));
  else
    assert_int_equal (delay, 12345);
}

static void
test_lid_actions (void **state)
{
  static const char * const names[] = {
    "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "lock",
    "power-off-display", "ignore",
  };
  PpLidAction action;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      assert_true (pp_lid_action_from_string (names[i], &action));
      assert_string_equal (pp_lid_action_to_string (action), names[i]);
    }
  action = PP_LID_ACTION_LOCK;
  assert_false (pp_lid_action_from_string ("sleep", &action));
  assert_false (pp_lid_action_from_string (NULL, &action));
  assert_false (pp_lid_action_from_string ("", &action));
  assert_int_equal (action, PP_LID_ACTION_LOCK);
  assert_string_equal (pp_lid_action_to_string ((PpLidAction) 99), "ignore");
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (guint i = 0; i < G_N_ELEMENTS (good_cases); i++)
    pp_test_list_add (list, "good", good_cases[i].name, test_good, setup, teardown, &good_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    pp_test_list_add (list, "bad", bad_cases[i].name, test_bad, setup, teardown, &bad_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (lid_action_cases); i++)
    pp_test_list_add (list, "lid-action", lid_action_cases[i].name, test_bad, setup, teardown,
                      &lid_action_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (multi_cases); i++)
    pp_test_list_add (list, "multi", multi_cases[i].name, test_multi, setup, teardown,
                      &multi_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (relpath_cases); i++)
    pp_test_list_add (list, "relpath", relpath_cases[i].value ? relpath_cases[i].value : "(null)",
                      test_relpath, setup, teardown, &relpath_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (control_cases); i++)
    pp_test_list_add (list, "control", control_cases[i].value ? control_cases[i].value : "(null)",
                      test_parse_control, setup, teardown, &control_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (wakeup_cases); i++)
    pp_test_list_add (list, "wakeup", wakeup_cases[i].value ? wakeup_cases[i].value : "(null)",
                      test_parse_wakeup, setup, teardown, &wakeup_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (delay_cases); i++)
    pp_test_list_add (list, "delay", delay_cases[i].value ? delay_cases[i].value : "(null)",
                      test_parse_delay, setup, teardown, &delay_cases[i]);

  pp_test_list_add (list, "misc", "many-problems", test_many_problems, setup, teardown, NULL);
  pp_test_list_add (list, "misc", "long-lines", test_long_lines, setup, teardown, NULL);
  pp_test_list_add (list, "misc", "origins", test_origins, setup, teardown, NULL);
  pp_test_list_add (list, "misc", "exclude-drivers-dropin-clears", test_exclude_drivers_dropin_clears,
                    setup, teardown, NULL);
  pp_test_list_add (list, "misc", "empty-text", test_empty_text, setup, teardown, NULL);
  pp_test_list_add (list, "misc", "null-problems", test_null_problems, setup, teardown, NULL);
  pp_test_list_add (list, "misc", "relpath-length", test_relpath_length, setup, teardown, NULL);
  pp_test_list_add (list, "misc", "lid-actions", test_lid_actions, setup, teardown, NULL);
  pp_test_list_add (list, "misc", "list-modules-sorted", test_list_modules_sorted, setup, teardown, NULL);
  pp_test_list_add (list, "dropin", "key-by-key", test_dropin_key_by_key, setup, teardown, NULL);
  pp_test_list_add (list, "dropin", "three-files", test_dropin_three_files_last_wins, setup, teardown, NULL);
  pp_test_list_add (list, "dropin", "bad-value-keeps-earlier", test_dropin_bad_value_keeps_earlier,
                    setup, teardown, NULL);
  pp_test_list_add (list, "dropin", "section-does-not-continue", test_dropin_section_does_not_continue,
                    setup, teardown, NULL);
  pp_test_list_add (list, "dropin", "bad-line-rest-applies", test_dropin_bad_line_rest_applies,
                    setup, teardown, NULL);

  return pp_test_list_run (list, "config");
}
