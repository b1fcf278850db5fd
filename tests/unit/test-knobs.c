/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the hardware knobs (issue 19 part 2): the NVMe APST quirk
 * list, lists of choices, the configuration keys, and the decisions they
 * make (the quirk, ASPM L1 and its substates, the sleep layer, the
 * pcie_aspm policy before sleep). Pure: the policy library alone. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-config.h"
#include "pp-knobs.h"
#include "pp-policy.h"

/* ---- the quirk list ------------------------------------------------------- */

typedef struct {
  guint       vendor, device;
  const char *model;
  const char *quirk;          /* expected name, NULL: none */
} QuirkCase;

static const QuirkCase quirk_cases[] = {
  { 0x2646, 0x2263, "KINGSTON SA2000M8500G", "kingston-a2000" },
  { 0x2646, 0x2263, "KINGSTON SA2000M81000G", "kingston-a2000" },
  /* another Kingston drive on the same controller id: not listed */
  { 0x2646, 0x2263, "KINGSTON SKC2000M8250G", NULL },
  /* the same model string behind another controller: not the A2000 */
  { 0x2646, 0x5008, "KINGSTON SA2000M8500G", NULL },
  { 0x144d, 0xa802, "SM951 NVMe SAMSUNG 256GB", "samsung-sm951" },
  { 0x144d, 0xa802, "PM951 NVMe SAMSUNG 512GB", "samsung-pm951" },
  { 0x144d, 0xa802, "Samsung SSD 950 PRO 256GB", NULL },
  { 0x144d, 0xa804, "SM951 NVMe SAMSUNG 256GB", NULL },
  { 0x1987, 0x5012, "Sabrent Rocket Q", "sabrent-rocket-q" },
  /* the Rocket Q4 is another drive (Phison E21T) */
  { 0x1987, 0x5021, "Sabrent Rocket Q4", NULL },
  { 0x1987, 0x5012, "Sabrent Rocket", NULL },
  /* no controller (yet): no model, no model-keyed entry matches */
  { 0x2646, 0x2263, NULL, NULL },
  { 0, 0, NULL, NULL },
};

static void
test_quirk_find (void **state)
{
  for (const QuirkCase *c = quirk_cases; c->vendor != 0 || c->model != NULL; c++)
    {
      const PpNvmeApstQuirk *q = pp_nvme_apst_quirk_find (c->vendor, c->device, c->model);

      if (c->quirk == NULL)
        {
          if (q != NULL)
            fail_msg ("%04x:%04x '%s' matched %s", c->vendor, c->device, c->model, q->name);
        }
      else
        {
          if (q == NULL)
            fail_msg ("%04x:%04x '%s' matched nothing", c->vendor, c->device, c->model);
          assert_string_equal (q->name, c->quirk);
        }
    }
}

static void
test_quirk_table_complete (void **state)
{
  guint n = 0;

  for (const PpNvmeApstQuirk *q = pp_nvme_apst_quirks (); q->name != NULL; q++, n++)
    {
      assert_non_null (q->reason);
      /* every entry names a model: PCI ids alone are shared by many drives */
      assert_non_null (q->model);
    }
  assert_int_equal (n, 4);
}

/* ---- lists of choices ------------------------------------------------------ */

static const char * const choice_cases[][2] = {
  { "default performance [powersave] powersupersave", "powersave" },
  { "[default] performance powersave powersupersave", "default" },
  { "default performance powersave [powersupersave]", "powersupersave" },
  { "s2idle [deep]", "deep" },
  { "[x]", "x" },
  /* a plain value, as a testbed file holds after a write */
  { "powersave", NULL },
  { "", NULL },
  { "a [b] [c]", NULL },
  { "a  [b]", NULL },
  { " [b]", NULL },
  { "[b] ", NULL },
  { "[]", NULL },
  { "a [b]c", NULL },
  { "a[b]", NULL },
  { "[b", NULL },
  { "b]", NULL },
  { "a [b\tc]", NULL },
};

static void
test_choice_selected (void **state)
{
  for (guint i = 0; i < G_N_ELEMENTS (choice_cases); i++)
    {
      g_autofree char *chosen = pp_choice_selected (choice_cases[i][0]);

      if (g_strcmp0 (chosen, choice_cases[i][1]) != 0)
        fail_msg ("'%s': got '%s', expected '%s'", choice_cases[i][0],
                  chosen ? chosen : "(null)", choice_cases[i][1] ? choice_cases[i][1] : "(null)");
    }
  assert_null (pp_choice_selected (NULL));
}

static void
test_absent_reasons (void **state)
{
  assert_non_null (strstr (pp_knob_absent_reason (PP_ATTR_ASPM_L1, FALSE), "firmware controls ASPM"));
  assert_null (strstr (pp_knob_absent_reason (PP_ATTR_ASPM_L1, TRUE), "firmware"));
  assert_non_null (strstr (pp_knob_absent_reason (PP_ATTR_ASPM_CLKPM, FALSE), "firmware controls ASPM"));
  assert_non_null (strstr (pp_knob_absent_reason (PP_ATTR_NVME_APST, FALSE), "NVMe controller"));
  assert_non_null (strstr (pp_knob_absent_reason (PP_ATTR_PANEL_POWER, FALSE), "6.9"));
  assert_null (pp_knob_absent_reason ("power/control", FALSE));
  assert_null (pp_knob_absent_reason ("link/l1_1_pcipm", FALSE));
}

/* ---- configuration ---------------------------------------------------------- */

static PpConfig *
load (const char *text, GPtrArray *problems)
{
  PpConfig *config = pp_config_new ();

  pp_config_load_data (config, "t.conf", text, strlen (text), problems);
  return config;
}

static const char *
layer_value (const PpConfig *config, const char *klass, PpLayer layer, const char *key)
{
  const PpLayeredSettings *ls = pp_config_get_class (config, klass);

  if (ls == NULL)
    return NULL;
  for (guint i = 0; i < ls->layers[layer]->len; i++)
    {
      PpSetting *s = g_ptr_array_index (ls->layers[layer], i);
      if (g_str_equal (s->key, key))
        return s->value;
    }
  return NULL;
}

static void
assert_problem_at (GPtrArray *problems, guint line, const char *needle)
{
  for (guint i = 0; i < problems->len; i++)
    {
      PpConfigProblem *p = g_ptr_array_index (problems, i);
      if (p->line == line && strstr (p->message, needle) != NULL)
        return;
    }
  fail_msg ("no problem at line %u mentioning '%s'", line, needle);
}

static void
test_config_keys (void **state)
{
  static const char text[] =
    "[Class pci]\n"                          /* 1 */
    "AspmL0s=no\n"
    "AspmL1=true\n"
    "AspmL1_1=1\n"
    "AspmL1_2=off\n"                         /* 5: not a boolean here */
    "AspmClockPm=false\n"
    "[Class y]\n"
    "AspmL1=maybe\n"                         /* 8 */
    "[Class nvme]\n"
    "ApstLatencyToleranceUs=5500\n"          /* 10 */
    "ApstQuirks=false\n"                     /* 11 */
    "[Class nvme:battery]\n"
    "ApstLatencyToleranceUs=0100\n"          /* 13: leading zero */
    "ApstQuirks=true\n"                      /* 14: not in a layer */
    "[Class nvme:idle]\n"
    "ApstLatencyToleranceUs=auto\n"
    "[Class nvme:low-battery]\n"
    "ApstLatencyToleranceUs=-1\n"            /* 18 */
    "[Class panel]\n"
    "PanelPowerSavings=0\n"                  /* 20 */
    "[Class panel:battery]\n"
    "PanelPowerSavings=5\n"                  /* 22 */
    "[Class panel:low-battery]\n"
    "PanelPowerSavings=4\n"
    "[Class panel:idle]\n"                   /* 25 */
    "PanelPowerSavings=03\n"                 /* 26 */
    "[Class x]\n"
    "AspmL1=\n";
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autoptr(PpConfig) config = load (text, problems);
  const PpLayeredSettings *nvme = pp_config_get_class (config, "nvme");

  assert_string_equal (layer_value (config, "pci", PP_LAYER_BASE, PP_ATTR_ASPM_L0S), "0");
  assert_string_equal (layer_value (config, "pci", PP_LAYER_BASE, PP_ATTR_ASPM_L1), "1");
  assert_string_equal (layer_value (config, "pci", PP_LAYER_BASE, PP_ATTR_ASPM_L1_1), "1");
  assert_null (layer_value (config, "pci", PP_LAYER_BASE, PP_ATTR_ASPM_L1_2));
  assert_string_equal (layer_value (config, "pci", PP_LAYER_BASE, PP_ATTR_ASPM_CLKPM), "0");
  assert_null (layer_value (config, "y", PP_LAYER_BASE, PP_ATTR_ASPM_L1));
  assert_problem_at (problems, 5, "AspmL1_2");
  assert_problem_at (problems, 8, "AspmL1");

  assert_string_equal (layer_value (config, "nvme", PP_LAYER_BASE, PP_ATTR_NVME_APST), "5500");
  assert_null (layer_value (config, "nvme", PP_LAYER_BATTERY, PP_ATTR_NVME_APST));
  assert_string_equal (layer_value (config, "nvme", PP_LAYER_IDLE, PP_ATTR_NVME_APST), "auto");
  assert_null (layer_value (config, "nvme", PP_LAYER_LOW_BATTERY, PP_ATTR_NVME_APST));
  assert_problem_at (problems, 13, "ApstLatencyToleranceUs");
  assert_problem_at (problems, 14, "base section");
  assert_problem_at (problems, 18, "ApstLatencyToleranceUs");
  assert_int_equal (nvme->apst_quirks, 0);
  assert_int_equal (nvme->apst_quirks_line, 11);

  assert_string_equal (layer_value (config, "panel", PP_LAYER_BASE, PP_ATTR_PANEL_POWER), "0");
  assert_null (layer_value (config, "panel", PP_LAYER_BATTERY, PP_ATTR_PANEL_POWER));
  assert_string_equal (layer_value (config, "panel", PP_LAYER_LOW_BATTERY, PP_ATTR_PANEL_POWER), "4");
  assert_problem_at (problems, 22, "PanelPowerSavings");
  assert_problem_at (problems, 26, "PanelPowerSavings");
  /* an empty assignment leaves the link state alone, as for Control= */
  assert_string_equal (layer_value (config, "x", PP_LAYER_BASE, PP_ATTR_ASPM_L1), "");
  assert_int_equal (problems->len, 7);
}

static void
test_config_sleep_keys (void **state)
{
  static const char text[] =
    "[Sleep]\n"
    "RestoreDefaultsBeforeSleep=no\n"
    "RestoreDefaultsClasses=sata-host  sata-disk sata-host\n"
    "RestoreDefaultsDrivers=\n"
    "[Sleep:battery]\n"
    "RestoreDefaultsBeforeSleep=yes\n";      /* 6: not a layered key */
  static const char bad[] =
    "[Sleep]\n"
    "RestoreDefaultsBeforeSleep=sometimes\n"
    "RestoreDefaultsClasses=../x\n";
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autoptr(PpConfig) defaults = pp_config_new ();
  g_autoptr(PpConfig) config = load (text, problems);
  g_autoptr(PpConfig) broken = NULL;
  const char * const classes[] = { "sata-host", "sata-disk", NULL };

  /* built in: on, for SATA hosts and AHCI controllers */
  assert_true (defaults->sleep.restore_defaults);
  assert_true (g_strv_contains ((const char * const *) defaults->sleep.restore_defaults_classes, "sata-host"));
  assert_true (g_strv_contains ((const char * const *) defaults->sleep.restore_defaults_classes, "ata-port"));
  assert_true (g_strv_contains ((const char * const *) defaults->sleep.restore_defaults_classes, "sata-disk"));
  assert_true (g_strv_contains ((const char * const *) defaults->sleep.restore_defaults_drivers, "ahci"));
  assert_null (defaults->sleep.restore_defaults_file);

  assert_false (config->sleep.restore_defaults);
  assert_int_equal (config->sleep.restore_defaults_line, 2);
  assert_true (g_strv_equal ((const char * const *) config->sleep.restore_defaults_classes, classes));
  assert_int_equal (g_strv_length (config->sleep.restore_defaults_drivers), 0);
  assert_problem_at (problems, 6, "RestoreDefaultsBeforeSleep");
  assert_int_equal (problems->len, 1);

  g_ptr_array_set_size (problems, 0);
  broken = load (bad, problems);
  assert_true (broken->sleep.restore_defaults);
  assert_true (g_strv_contains ((const char * const *) broken->sleep.restore_defaults_classes, "sata-host"));
  assert_problem_at (problems, 2, "RestoreDefaultsBeforeSleep");
  assert_problem_at (problems, 3, "RestoreDefaultsClasses");
}

/* ---- decisions ---------------------------------------------------------------- */

static const PpSetting *
find (GPtrArray *settings, const char *key)
{
  for (guint i = 0; i < settings->len; i++)
    {
      PpSetting *s = g_ptr_array_index (settings, i);
      if (g_str_equal (s->key, key))
        return s;
    }
  return NULL;
}

/* The value decided for @key; fails the test when there is none. */
static const char *
value_of (GPtrArray *settings, const char *key)
{
  const PpSetting *s = find (settings, key);

  if (s == NULL)
    fail_msg ("nothing decided for %s", key);
  return s != NULL ? s->value : "";
}

static const PpSetting *
get (GPtrArray *settings, const char *key)
{
  const PpSetting *s = find (settings, key);

  if (s == NULL)
    {
      fail_msg ("nothing decided for %s", key);
      abort ();  /* fail_msg() does not return; tells the compiler so */
    }
  return s;
}

static gint
index_of (GPtrArray *settings, const char *key)
{
  for (guint i = 0; i < settings->len; i++)
    if (g_str_equal (((PpSetting *) g_ptr_array_index (settings, i))->key, key))
      return (gint) i;
  return -1;
}

static PpDecision *
decide (const PpConfig *config, const char *subsystem, const char *klass,
        const PpSituation *situation, const char *driver, const PpNvmeApstQuirk *quirk)
{
  PpDeviceProps props;
  PpDeviceState st = { .driver = driver, .apst_quirk = quirk };
  PpDecision *d;

  memset (&props, 0, sizeof props);
  props.klass = g_strdup (klass);
  props.subsystem = g_strdup (subsystem);
  props.id_delay_ms = PP_DELAY_UNSET;
  props.delay_ms = PP_DELAY_UNSET;
  props.autosuspend = PP_TRISTATE_UNSET;
  d = pp_policy_decide (config, &props, situation, &st);
  pp_device_props_clear (&props);
  return d;
}

static void
test_apst_quirk_layer (void **state)
{
  static const char text[] =
    "[Class nvme]\nControl=on\nApstLatencyToleranceUs=5500\n"
    "[Class nvme:battery]\nApstLatencyToleranceUs=100000\n";
  static const char off[] =
    "[Class nvme]\nApstLatencyToleranceUs=5500\nApstQuirks=false\n";
  static const char off_by_subsystem[] =
    "[Class pci]\nApstQuirks=false\n[Class nvme]\nApstLatencyToleranceUs=5500\n";
  static const char on_by_class[] =
    "[Class pci]\nApstQuirks=false\n[Class nvme]\nApstQuirks=true\n";
  const PpNvmeApstQuirk *a2000 = pp_nvme_apst_quirk_find (0x2646, 0x2263, "KINGSTON SA2000M8500G");
  PpSituation battery = { TRUE, FALSE, FALSE, FALSE };
  g_autoptr(PpConfig) config = load (text, NULL);
  g_autoptr(PpConfig) config_off = load (off, NULL);
  g_autoptr(PpConfig) config_sub = load (off_by_subsystem, NULL);
  g_autoptr(PpConfig) config_on = load (on_by_class, NULL);
  g_autoptr(PpDecision) plain = decide (config, "pci", "nvme", &battery, "nvme", NULL);
  g_autoptr(PpDecision) quirked = decide (config, "pci", "nvme", &battery, "nvme", a2000);
  g_autoptr(PpDecision) disabled = decide (config_off, "pci", "nvme", &battery, "nvme", a2000);
  g_autoptr(PpDecision) by_sub = decide (config_sub, "pci", "nvme", &battery, "nvme", a2000);
  g_autoptr(PpDecision) by_class = decide (config_on, "pci", "nvme", &battery, "nvme", a2000);
  g_autoptr(PpConfig) empty = pp_config_new ();
  g_autoptr(PpDecision) no_section = decide (empty, "pci", "nvme", &battery, "nvme", a2000);
  g_autoptr(GPtrArray) rows = NULL;
  const PpSetting *s;

  assert_non_null (a2000);
  s = get (plain->settings, PP_ATTR_NVME_APST);
  assert_string_equal (s->value, "100000");
  assert_int_equal (s->source, PP_SOURCE_BATTERY);

  s = get (quirked->settings, PP_ATTR_NVME_APST);
  assert_string_equal (s->value, "0");
  assert_int_equal (s->source, PP_SOURCE_QUIRK);
  assert_non_null (strstr (s->origin, "kingston-a2000"));
  rows = pp_policy_explain (config, &(PpDeviceProps) { .klass = (char *) "nvme", .subsystem = (char *) "pci" },
                            quirked);
  for (guint i = 0; i < rows->len; i++)
    {
      PpExplainRow *r = g_ptr_array_index (rows, i);
      if (g_str_equal (r->attribute, PP_ATTR_NVME_APST))
        {
          assert_string_equal (r->layer, "quirk");
          assert_non_null (strstr (r->origin, "NVMe APST quirk kingston-a2000"));
        }
    }

  s = get (disabled->settings, PP_ATTR_NVME_APST);
  assert_string_equal (s->value, "5500");
  s = get (by_sub->settings, PP_ATTR_NVME_APST);
  assert_string_equal (s->value, "5500");
  s = get (by_class->settings, PP_ATTR_NVME_APST);
  assert_string_equal (s->value, "0");
  /* no section at all: the quirk still applies */
  s = get (no_section->settings, PP_ATTR_NVME_APST);
  assert_string_equal (s->value, "0");
}

static void
test_aspm_l1_and_substates (void **state)
{
  static const char text[] =
    "[Class pci]\nAspmL1_2=1\nAspmL1_1=1\nAspmClockPm=1\n"
    "[Class pci:battery]\nAspmL1=0\n";
  g_autoptr(PpConfig) config = load (text, NULL);
  PpSituation ac = { FALSE, FALSE, FALSE, FALSE };
  PpSituation battery = { TRUE, FALSE, FALSE, FALSE };
  g_autoptr(PpDecision) on_ac = decide (config, "pci", "pci", &ac, NULL, NULL);
  g_autoptr(PpDecision) on_bat = decide (config, "pci", "pci", &battery, NULL, NULL);
  const PpSetting *s;

  assert_null (find (on_ac->settings, PP_ATTR_ASPM_L1));
  assert_string_equal (value_of (on_ac->settings, PP_ATTR_ASPM_L1_2), "1");

  assert_string_equal (value_of (on_bat->settings, PP_ATTR_ASPM_L1), "0");
  s = get (on_bat->settings, PP_ATTR_ASPM_L1_1);
  assert_string_equal (s->value, "0");
  assert_int_equal (s->source, PP_SOURCE_BATTERY);
  assert_non_null (strstr (s->origin, "AspmL1=0"));
  assert_string_equal (value_of (on_bat->settings, PP_ATTR_ASPM_L1_2), "0");
  assert_string_equal (value_of (on_bat->settings, PP_ATTR_ASPM_CLKPM), "1");
  /* L1 is written before its substates */
  assert_true (index_of (on_bat->settings, PP_ATTR_ASPM_L1) < index_of (on_bat->settings, PP_ATTR_ASPM_L1_1));
  assert_true (index_of (on_bat->settings, PP_ATTR_ASPM_L1) < index_of (on_bat->settings, PP_ATTR_ASPM_L1_2));
}

static void
test_sleep_layer (void **state)
{
  static const char text[] =
    "[Class pci]\nControl=on\n[Class pci:battery]\nControl=auto\n"
    "[Class sata-host]\nControl=auto\n"
    "[Sleep]\nRestoreDefaultsClasses=sata-host sata-disk\n";
  static const char disabled[] =
    "[Class pci:battery]\nControl=auto\n[Class sata-host]\nControl=auto\n"
    "[Sleep]\nRestoreDefaultsBeforeSleep=false\n";
  g_autoptr(PpConfig) config = load (text, NULL);
  g_autoptr(PpConfig) config_off = load (disabled, NULL);
  PpSituation battery = { TRUE, FALSE, FALSE, FALSE };
  PpSituation sleeping = { TRUE, FALSE, FALSE, TRUE };
  g_autoptr(PpDecision) ahci_awake = decide (config, "pci", "pci", &battery, "ahci", NULL);
  g_autoptr(PpDecision) ahci = decide (config, "pci", "pci", &sleeping, "ahci", NULL);
  g_autoptr(PpDecision) other = decide (config, "pci", "pci", &sleeping, "e1000e", NULL);
  g_autoptr(PpDecision) host = decide (config, "scsi_host", "sata-host", &sleeping, NULL, NULL);
  g_autoptr(PpDecision) host_off = decide (config_off, "scsi_host", "sata-host", &sleeping, NULL, NULL);
  g_autoptr(PpDecision) ahci_off = decide (config_off, "pci", "pci", &sleeping, "ahci", NULL);
  const PpSetting *s;

  assert_string_equal (value_of (ahci_awake->settings, PP_ATTR_CONTROL), "auto");
  /* the built-in driver list: the AHCI controller */
  s = get (ahci->settings, PP_ATTR_CONTROL);
  assert_string_equal (s->value, "on");
  assert_int_equal (s->source, PP_SOURCE_SLEEP);
  assert_string_equal (pp_setting_source_to_string (s->source), "sleep");
  assert_non_null (strstr (s->origin, "RestoreDefaultsBeforeSleep=true (built-in default)"));
  assert_string_equal (value_of (other->settings, PP_ATTR_CONTROL), "auto");
  assert_string_equal (value_of (host->settings, PP_ATTR_CONTROL), "on");
  assert_string_equal (value_of (host_off->settings, PP_ATTR_CONTROL), "auto");
  assert_string_equal (value_of (ahci_off->settings, PP_ATTR_CONTROL), "auto");
}

static void
test_aspm_policy_before_sleep (void **state)
{
  static const char text[] =
    "[Module pcie_aspm:battery]\npolicy=powersave\n"
    "[Module snd_hda_intel]\npower_save=1\n"
    "[Sleep]\nRestoreDefaultsBeforeSleep=true\n";
  static const char off[] =
    "[Module pcie_aspm:battery]\npolicy=powersave\n"
    "[Sleep]\nRestoreDefaultsBeforeSleep=false\n";
  g_autoptr(PpConfig) config = load (text, NULL);
  g_autoptr(PpConfig) config_off = load (off, NULL);
  PpSituation ac = { FALSE, FALSE, FALSE, FALSE };
  PpSituation ac_sleeping = { FALSE, FALSE, FALSE, TRUE };
  PpSituation battery = { TRUE, FALSE, FALSE, FALSE };
  PpSituation sleeping = { TRUE, FALSE, FALSE, TRUE };
  g_autoptr(GPtrArray) on_ac = pp_policy_module_settings (config, &ac);
  g_autoptr(GPtrArray) on_ac_sleeping = pp_policy_module_settings (config, &ac_sleeping);
  g_autoptr(GPtrArray) on_bat = pp_policy_module_settings (config, &battery);
  g_autoptr(GPtrArray) before = pp_policy_module_settings (config, &sleeping);
  g_autoptr(GPtrArray) before_off = pp_policy_module_settings (config_off, &sleeping);
  const PpSetting *s;

  assert_null (find (on_ac, "pcie_aspm/parameters/policy"));
  /* on AC the configuration does not set it: the sleep layer leaves it too */
  assert_null (find (on_ac_sleeping, "pcie_aspm/parameters/policy"));
  s = get (on_bat, "pcie_aspm/parameters/policy");
  assert_string_equal (s->value, "powersave");
  assert_int_equal (s->source, PP_SOURCE_BATTERY);
  s = get (before, "pcie_aspm/parameters/policy");
  assert_string_equal (s->value, "default");
  assert_int_equal (s->source, PP_SOURCE_SLEEP);
  assert_non_null (strstr (s->origin, "t.conf:6"));
  /* other modules keep their values */
  assert_string_equal (value_of (before, "snd_hda_intel/parameters/power_save"), "1");
  assert_string_equal (value_of (before_off, "pcie_aspm/parameters/policy"), "powersave");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_quirk_find),
    cmocka_unit_test (test_quirk_table_complete),
    cmocka_unit_test (test_choice_selected),
    cmocka_unit_test (test_absent_reasons),
    cmocka_unit_test (test_config_keys),
    cmocka_unit_test (test_config_sleep_keys),
    cmocka_unit_test (test_apst_quirk_layer),
    cmocka_unit_test (test_aspm_l1_and_substates),
    cmocka_unit_test (test_sleep_layer),
    cmocka_unit_test (test_aspm_policy_before_sleep),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
