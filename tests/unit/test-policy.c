/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the pure policy decisions (powerpolicy.conf(5), LAYERS):
 * classification, layering, write order, module parameters and the power
 * source. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-config.h"
#include "pp-policy.h"

#define MAX_PROPS 8

/* The configuration most rows run against. */
static const char shared_config[] =
  "[Class usb]\n"
  "Control=auto\n"
  "AutosuspendDelayMs=2000\n"
  "Wakeup=disabled\n"
  "[Class usb:battery]\n"
  "AutosuspendDelayMs=1000\n"
  "[Class usb:idle]\n"
  "AutosuspendDelayMs=200\n"
  "Wakeup=enabled\n"
  "[Class usb-hid]\n"
  "AutosuspendDelayMs=5000\n"
  "[Class sata-host]\n"
  "LinkPowerPolicy=med_power_with_dipm\n"
  "[Class sata-host:battery]\n"
  "LinkPowerPolicy=min_power\n"
  "[Class pci-gpu]\n"
  "Attr.power/control=auto\n"
  "Attr.device/foo=1\n"
  "[Class battonly:battery]\n"
  "Control=auto\n"
  "[Class idleonly:idle]\n"
  "Control=auto\n"
  "AutosuspendDelayMs=0\n"
  "[Class noctl]\n"
  "AutosuspendDelayMs=3000\n"
  "[Class explicit-on]\n"
  "Control=on\n"
  "[Class onbatt-on:battery]\n"
  "Control=on\n"
  "[Class attrs]\n"
  "Attr.z=1\n"
  "Control=auto\n"
  "Attr.a=2\n"
  "AutosuspendDelayMs=7\n"
  "Wakeup=enabled\n"
  "LinkPowerPolicy=min_power\n"
  "[Class attrs:idle]\n"
  "Attr.m=3\n"
  "Attr.z=9\n";

typedef struct {
  const char *name;
  const char *config;            /* NULL: shared_config */
  const char *subsystem;
  const char *props[MAX_PROPS];  /* "KEY=VALUE" udev properties */
  gboolean    battery;
  gboolean    idle;
  gboolean    with_override;
  const char *ov_control;
  const char *ov_delay;          /* NULL: unset */
  const char *ov_wakeup;
  gboolean    held;
  const char *expected;          /* "relpath=value ..." in write order */
  gboolean    low;               /* low battery (the :low-battery layer needs battery too) */
} DeviceCase;

typedef struct {
  const void *row;
  PpConfig   *config;
  GPtrArray  *problems;
  GPtrArray  *warnings;
} State;

static int
setup (void **state)
{
  State *st = g_new0 (State, 1);

  st->row = *state;
  st->config = pp_config_new ();
  st->problems = pp_config_problems_new ();
  st->warnings = g_ptr_array_new_with_free_func (g_free);
  *state = st;
  return 0;
}

static int
teardown (void **state)
{
  State *st = *state;

  pp_config_free (st->config);
  g_ptr_array_unref (st->problems);
  g_ptr_array_unref (st->warnings);
  g_free (st);
  return 0;
}

static void
load_config (State *st, const char *text)
{
  pp_config_load_data (st->config, "test.conf", text, strlen (text), st->problems);
  if (st->problems->len > 0)
    {
      g_autofree char *p = pp_config_problem_to_string (g_ptr_array_index (st->problems, 0));
      fail_msg ("the test configuration has problems: %s", p);
    }
}

/* PpPropertyLookup over a NULL-terminated array of "KEY=VALUE". */
static const char *
lookup_props (gpointer user_data, const char *key)
{
  const char * const *props = user_data;
  gsize len = strlen (key);

  for (guint i = 0; i < MAX_PROPS && props[i] != NULL; i++)
    {
      if (strncmp (props[i], key, len) == 0 && props[i][len] == '=')
        return props[i] + len + 1;
    }
  return NULL;
}

static char *
join_settings (GPtrArray *settings)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < settings->len; i++)
    {
      const PpSetting *p = g_ptr_array_index (settings, i);
      g_string_append_printf (s, "%s%s=%s", i ? " " : "", p->key, p->value);
    }
  return g_string_free (s, FALSE);
}

/* ---- layering --------------------------------------------------------------- */

#define P(...) { __VA_ARGS__ }
#define OV(c, d, w) TRUE, c, d, w

static const DeviceCase device_cases[] = {
  /* class layers */
  { "usb-base", NULL, "usb", P (NULL), FALSE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=2000 power/wakeup=disabled power/control=auto" },
  { "usb-battery", NULL, "usb", P (NULL), TRUE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=1000 power/wakeup=disabled power/control=auto" },
  { "usb-idle", NULL, "usb", P (NULL), FALSE, TRUE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=200 power/wakeup=enabled power/control=auto" },
  { "usb-battery-idle", NULL, "usb", P (NULL), TRUE, TRUE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=200 power/wakeup=enabled power/control=auto" },
  { "battery-above-base",
    "[Class c]\nAutosuspendDelayMs=10\n[Class c:battery]\nAutosuspendDelayMs=20\n",
    "c", P (NULL), TRUE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=20" },
  { "idle-above-battery",
    "[Class c:idle]\nControl=on\n[Class c:battery]\nControl=auto\n",
    "c", P (NULL), TRUE, TRUE, FALSE, NULL, NULL, NULL, FALSE, "power/control=on" },
  { "battery-only-layer-on-ac", NULL, "battonly", P (NULL), FALSE, FALSE, FALSE, NULL, NULL, NULL,
    FALSE, "" },
  { "battery-only-layer-idle-on-ac", NULL, "battonly", P (NULL), FALSE, TRUE, FALSE, NULL, NULL,
    NULL, FALSE, "" },
  { "battery-only-layer-on-battery", NULL, "battonly", P (NULL), TRUE, FALSE, FALSE, NULL, NULL,
    NULL, FALSE, "power/control=auto" },
  { "idle-only-layer-active", NULL, "idleonly", P (NULL), TRUE, FALSE, FALSE, NULL, NULL, NULL,
    FALSE, "" },
  { "idle-only-layer-idle", NULL, "idleonly", P (NULL), FALSE, TRUE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=0 power/control=auto" },
  { "sata-base", NULL, "sata-host", P (NULL), FALSE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "link_power_management_policy=med_power_with_dipm" },
  { "sata-battery", NULL, "sata-host", P (NULL), TRUE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "link_power_management_policy=min_power" },
  { "attr-control-still-last", NULL, "pci-gpu", P (NULL), FALSE, FALSE, FALSE, NULL, NULL, NULL,
    FALSE, "device/foo=1 power/control=auto" },
  { "write-order-all-kinds", NULL, "attrs", P (NULL), FALSE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=7 power/wakeup=enabled z=1 a=2 link_power_management_policy=min_power "
    "power/control=auto" },
  { "write-order-idle-layer", NULL, "attrs", P (NULL), FALSE, TRUE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=7 power/wakeup=enabled z=9 a=2 link_power_management_policy=min_power "
    "m=3 power/control=auto" },
  { "class-absent", NULL, "foo", P (NULL), TRUE, TRUE, FALSE, NULL, NULL, NULL, FALSE, "" },
  { "no-subsystem-no-class", NULL, NULL, P (NULL), FALSE, FALSE, FALSE, NULL, NULL, NULL, FALSE, "" },
  { "empty-config", "", "usb", P (NULL), TRUE, TRUE, FALSE, NULL, NULL, NULL, FALSE, "" },

  /* classification feeds the class lookup */
  /* the cascade: [Class usb] reaches a classified USB device, its class
   * section refines it */
  { "powerpolicy-class-refines-subsystem", NULL, "usb", P ("POWERPOLICY_CLASS=usb-hid"), FALSE,
    FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=5000 power/wakeup=disabled power/control=auto" },
  { "powerpolicy-class-without-section-gets-subsystem", NULL, "usb",
    P ("POWERPOLICY_CLASS=nothing"), FALSE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=2000 power/wakeup=disabled power/control=auto" },
  { "powerpolicy-class-other-subsystem-no-section", NULL, "pci", P ("POWERPOLICY_CLASS=nothing"),
    FALSE, FALSE, FALSE, NULL, NULL, NULL, FALSE, "" },
  { "powerpolicy-class-empty", NULL, "usb", P ("POWERPOLICY_CLASS="), FALSE, FALSE, FALSE, NULL, NULL,
    NULL, FALSE, "power/autosuspend_delay_ms=2000 power/wakeup=disabled power/control=auto" },

  /* systemd hwdb hints */
  { "id-autosuspend-no-class", NULL, "foo", P ("ID_AUTOSUSPEND=1"), FALSE, FALSE, FALSE, NULL, NULL,
    NULL, FALSE, "power/control=auto" },
  /* the hwdb's device knowledge sits above every class layer */
  { "id-autosuspend-beats-class-explicit-on", NULL, "explicit-on", P ("ID_AUTOSUSPEND=1"), FALSE,
    FALSE, FALSE, NULL, NULL, NULL, FALSE, "power/control=auto" },
  { "id-autosuspend-class-without-control", NULL, "noctl", P ("ID_AUTOSUSPEND=1"), FALSE, FALSE,
    FALSE, NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=3000 power/control=auto" },
  { "id-autosuspend-battery-layer-on-ac", NULL, "onbatt-on", P ("ID_AUTOSUSPEND=1"), FALSE, FALSE,
    FALSE, NULL, NULL, NULL, FALSE, "power/control=auto" },
  { "id-autosuspend-beats-battery-layer", NULL, "onbatt-on", P ("ID_AUTOSUSPEND=1"), TRUE,
    FALSE, FALSE, NULL, NULL, NULL, FALSE, "power/control=auto" },
  { "id-autosuspend-zero", NULL, "foo", P ("ID_AUTOSUSPEND=0"), FALSE, FALSE, FALSE, NULL, NULL,
    NULL, FALSE, "" },
  { "id-autosuspend-zero-class-auto", NULL, "usb", P ("ID_AUTOSUSPEND=0"), FALSE, FALSE, FALSE,
    NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=2000 power/wakeup=disabled power/control=auto" },
  { "id-delay-no-class", NULL, "foo", P ("ID_AUTOSUSPEND_DELAY_MS=4000"), FALSE, FALSE, FALSE,
    NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=4000" },
  /* the hwdb delay is the model's safe minimum: a shorter class delay
   * does not apply, in any layer */
  { "id-delay-beats-class", NULL, "usb", P ("ID_AUTOSUSPEND_DELAY_MS=4000"), FALSE, FALSE, FALSE,
    NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=4000 power/wakeup=disabled power/control=auto" },
  { "id-delay-beats-class-battery", NULL, "usb", P ("ID_AUTOSUSPEND_DELAY_MS=4000"), TRUE, FALSE,
    FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=4000 power/wakeup=disabled power/control=auto" },
  { "id-delay-beats-class-idle", NULL, "usb", P ("ID_AUTOSUSPEND_DELAY_MS=7000"), TRUE, TRUE,
    FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=7000 power/wakeup=enabled power/control=auto" },
  { "id-delay-class-without-delay", NULL, "explicit-on", P ("ID_AUTOSUSPEND_DELAY_MS=4000"), FALSE,
    FALSE, FALSE, NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=4000 power/control=on" },
  { "id-both-order", NULL, "foo", P ("ID_AUTOSUSPEND=1", "ID_AUTOSUSPEND_DELAY_MS=1500"), FALSE,
    FALSE, FALSE, NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=1500 power/control=auto" },

  /* POWERPOLICY_AUTOSUSPEND beats every class layer */
  { "pp-autosuspend-0-base", NULL, "usb", P ("POWERPOLICY_AUTOSUSPEND=0"), FALSE, FALSE, FALSE,
    NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=2000 power/wakeup=disabled power/control=on" },
  { "pp-autosuspend-0-battery-idle", NULL, "usb", P ("POWERPOLICY_AUTOSUSPEND=0"), TRUE, TRUE,
    FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=200 power/wakeup=enabled power/control=on" },
  { "pp-autosuspend-0-idle-layer-control", NULL, "idleonly", P ("POWERPOLICY_AUTOSUSPEND=0"), FALSE,
    TRUE, FALSE, NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=0 power/control=on" },
  { "pp-autosuspend-0-beats-id-autosuspend", NULL, "foo",
    P ("ID_AUTOSUSPEND=1", "POWERPOLICY_AUTOSUSPEND=0"), FALSE, FALSE, FALSE, NULL, NULL, NULL,
    FALSE, "power/control=on" },
  { "pp-autosuspend-0-no-class", NULL, "foo", P ("POWERPOLICY_AUTOSUSPEND=0"), FALSE, FALSE, FALSE,
    NULL, NULL, NULL, FALSE, "power/control=on" },
  { "pp-autosuspend-1-beats-class-on", NULL, "explicit-on", P ("POWERPOLICY_AUTOSUSPEND=1"), FALSE,
    FALSE, FALSE, NULL, NULL, NULL, FALSE, "power/control=auto" },
  { "pp-autosuspend-1-beats-battery-on", NULL, "onbatt-on", P ("POWERPOLICY_AUTOSUSPEND=1"), TRUE,
    TRUE, FALSE, NULL, NULL, NULL, FALSE, "power/control=auto" },
  { "pp-autosuspend-1-no-class", NULL, "foo", P ("POWERPOLICY_AUTOSUSPEND=1"), FALSE, FALSE, FALSE,
    NULL, NULL, NULL, FALSE, "power/control=auto" },
  { "pp-autosuspend-bad-ignored", NULL, "explicit-on", P ("POWERPOLICY_AUTOSUSPEND=yes"), FALSE,
    FALSE, FALSE, NULL, NULL, NULL, FALSE, "power/control=on" },
  { "pp-delay-beats-layers", NULL, "usb", P ("POWERPOLICY_AUTOSUSPEND_DELAY_MS=50"), TRUE, TRUE,
    FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=50 power/wakeup=enabled power/control=auto" },
  { "pp-delay-minus-one", NULL, "usb", P ("POWERPOLICY_AUTOSUSPEND_DELAY_MS=-1"), FALSE, FALSE,
    FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=-1 power/wakeup=disabled power/control=auto" },
  { "pp-delay-beats-id-delay", NULL, "foo",
    P ("POWERPOLICY_AUTOSUSPEND_DELAY_MS=60", "ID_AUTOSUSPEND_DELAY_MS=4000"), FALSE, FALSE, FALSE,
    NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=60" },
  { "pp-delay-no-class", NULL, "foo", P ("POWERPOLICY_AUTOSUSPEND_DELAY_MS=0"), FALSE, FALSE, FALSE,
    NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=0" },
  { "pp-delay-bad-ignored", NULL, "noctl", P ("POWERPOLICY_AUTOSUSPEND_DELAY_MS=soon"), FALSE, FALSE,
    FALSE, NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=3000" },
  { "pp-wakeup-enabled-beats-class", NULL, "usb", P ("POWERPOLICY_WAKEUP=enabled"), FALSE, FALSE,
    FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=2000 power/wakeup=enabled power/control=auto" },
  { "pp-wakeup-disabled-beats-idle", NULL, "usb", P ("POWERPOLICY_WAKEUP=disabled"), FALSE, TRUE,
    FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=200 power/wakeup=disabled power/control=auto" },
  { "pp-wakeup-no-class", NULL, "foo", P ("POWERPOLICY_WAKEUP=enabled"), FALSE, FALSE, FALSE, NULL,
    NULL, NULL, FALSE, "power/wakeup=enabled" },
  { "pp-wakeup-bad-ignored", NULL, "usb", P ("POWERPOLICY_WAKEUP=on"), FALSE, FALSE, FALSE, NULL,
    NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=2000 power/wakeup=disabled power/control=auto" },
  { "pp-all-properties", NULL, "usb",
    P ("POWERPOLICY_AUTOSUSPEND=0", "POWERPOLICY_AUTOSUSPEND_DELAY_MS=1", "POWERPOLICY_WAKEUP=enabled",
       "ID_AUTOSUSPEND=1", "ID_AUTOSUSPEND_DELAY_MS=2"), TRUE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=1 power/wakeup=enabled power/control=on" },

  /* POWERPOLICY_IGNORE=1: nothing at all */
  { "ignore", NULL, "usb", P ("POWERPOLICY_IGNORE=1"), FALSE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "" },
  { "ignore-with-properties", NULL, "usb",
    P ("POWERPOLICY_IGNORE=1", "POWERPOLICY_AUTOSUSPEND=0", "ID_AUTOSUSPEND=1",
       "POWERPOLICY_WAKEUP=enabled"), TRUE, TRUE, FALSE, NULL, NULL, NULL, FALSE, "" },
  { "ignore-with-override", NULL, "usb", P ("POWERPOLICY_IGNORE=1"), FALSE, FALSE,
    OV ("on", "5", "enabled"), FALSE, "" },
  { "ignore-held", NULL, "usb", P ("POWERPOLICY_IGNORE=1"), FALSE, FALSE, FALSE, NULL, NULL, NULL,
    TRUE, "" },
  { "ignore-0", NULL, "usb", P ("POWERPOLICY_IGNORE=0"), FALSE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=2000 power/wakeup=disabled power/control=auto" },
  { "ignore-bad-value-not-ignored", NULL, "usb", P ("POWERPOLICY_IGNORE=yes"), FALSE, FALSE, FALSE,
    NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=2000 power/wakeup=disabled power/control=auto" },

  /* overrides set over D-Bus sit above udev properties */
  { "override-all-unset", NULL, "usb", P (NULL), FALSE, FALSE, OV (NULL, NULL, NULL), FALSE,
    "power/autosuspend_delay_ms=2000 power/wakeup=disabled power/control=auto" },
  { "override-control", NULL, "usb", P (NULL), TRUE, TRUE, OV ("on", NULL, NULL), FALSE,
    "power/autosuspend_delay_ms=200 power/wakeup=enabled power/control=on" },
  { "override-control-beats-pp-autosuspend", NULL, "usb", P ("POWERPOLICY_AUTOSUSPEND=1"), FALSE,
    FALSE, OV ("on", NULL, NULL), FALSE,
    "power/autosuspend_delay_ms=2000 power/wakeup=disabled power/control=on" },
  { "override-auto-beats-pp-autosuspend-0", NULL, "usb", P ("POWERPOLICY_AUTOSUSPEND=0"), FALSE,
    FALSE, OV ("auto", NULL, NULL), FALSE,
    "power/autosuspend_delay_ms=2000 power/wakeup=disabled power/control=auto" },
  { "override-delay-beats-pp-delay", NULL, "usb", P ("POWERPOLICY_AUTOSUSPEND_DELAY_MS=50"), FALSE,
    FALSE, OV (NULL, "10", NULL), FALSE,
    "power/autosuspend_delay_ms=10 power/wakeup=disabled power/control=auto" },
  { "override-delay-minus-one", NULL, "usb", P (NULL), FALSE, TRUE, OV (NULL, "-1", NULL), FALSE,
    "power/autosuspend_delay_ms=-1 power/wakeup=enabled power/control=auto" },
  { "override-delay-zero", NULL, "usb", P (NULL), FALSE, FALSE, OV (NULL, "0", NULL), FALSE,
    "power/autosuspend_delay_ms=0 power/wakeup=disabled power/control=auto" },
  { "override-wakeup-beats-pp-wakeup", NULL, "usb", P ("POWERPOLICY_WAKEUP=disabled"), FALSE, FALSE,
    OV (NULL, NULL, "enabled"), FALSE,
    "power/autosuspend_delay_ms=2000 power/wakeup=enabled power/control=auto" },
  { "override-no-class-order", NULL, "foo", P (NULL), FALSE, FALSE, OV ("auto", "100", "disabled"),
    FALSE, "power/autosuspend_delay_ms=100 power/wakeup=disabled power/control=auto" },
  { "override-leaves-other-attrs", NULL, "sata-host", P (NULL), TRUE, FALSE, OV ("on", NULL, NULL),
    FALSE, "link_power_management_policy=min_power power/control=on" },

  /* a hold keeps control=on above everything */
  { "held", NULL, "usb", P (NULL), TRUE, TRUE, FALSE, NULL, NULL, NULL, TRUE,
    "power/autosuspend_delay_ms=200 power/wakeup=enabled power/control=on" },
  { "held-beats-override", NULL, "usb", P (NULL), FALSE, FALSE, OV ("auto", "5", NULL), TRUE,
    "power/autosuspend_delay_ms=5 power/wakeup=disabled power/control=on" },
  { "held-beats-pp-autosuspend-1", NULL, "usb", P ("POWERPOLICY_AUTOSUSPEND=1"), FALSE, FALSE, FALSE,
    NULL, NULL, NULL, TRUE,
    "power/autosuspend_delay_ms=2000 power/wakeup=disabled power/control=on" },
  { "held-beats-id-autosuspend", NULL, "foo", P ("ID_AUTOSUSPEND=1"), FALSE, FALSE, FALSE, NULL,
    NULL, NULL, TRUE, "power/control=on" },
  { "held-no-class", NULL, "foo", P (NULL), TRUE, TRUE, FALSE, NULL, NULL, NULL, TRUE,
    "power/control=on" },
  { "held-attr-control", NULL, "pci-gpu", P (NULL), FALSE, FALSE, FALSE, NULL, NULL, NULL, TRUE,
    "device/foo=1 power/control=on" },

  /* the cascade runs inside each layer: a higher layer of the subsystem
   * beats a lower layer of the class, so a safety class pins every layer */
#define HID_CASCADE "[Class usb]\nControl=auto\n[Class usb:battery]\nControl=auto\n" \
                    "[Class usb-hid]\nControl=on\n"
  { "cascade-class-base-beats-subsystem-base", HID_CASCADE, "usb", P ("POWERPOLICY_CLASS=usb-hid"),
    FALSE, TRUE, FALSE, NULL, NULL, NULL, FALSE, "power/control=on" },
  { "cascade-subsystem-battery-beats-class-base", HID_CASCADE, "usb",
    P ("POWERPOLICY_CLASS=usb-hid"), TRUE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "power/control=auto" },
  { "cascade-class-pinned-per-layer", HID_CASCADE "[Class usb-hid:battery]\nControl=on\n", "usb",
    P ("POWERPOLICY_CLASS=usb-hid"), TRUE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "power/control=on" },
  { "cascade-class-is-subsystem-one-section", HID_CASCADE, "usb", P (NULL), TRUE, FALSE, FALSE,
    NULL, NULL, NULL, FALSE, "power/control=auto" },
  { "cascade-subsystem-keys-merge-with-class-keys",
    "[Class usb]\nAutosuspendDelayMs=2000\nWakeup=disabled\n[Class webcam]\nControl=auto\n"
    "[Class webcam:idle]\nAutosuspendDelayMs=500\n", "usb", P ("POWERPOLICY_CLASS=webcam"), FALSE,
    TRUE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=500 power/wakeup=disabled power/control=auto" },
  { "cascade-not-across-subsystems", "[Class pci]\nControl=auto\n", "usb",
    P ("POWERPOLICY_CLASS=pci-gpu"), TRUE, TRUE, FALSE, NULL, NULL, NULL, FALSE, "" },
  { "cascade-udev-above-every-section", HID_CASCADE "[Class usb-hid:battery]\nControl=on\n", "usb",
    P ("POWERPOLICY_CLASS=usb-hid", "POWERPOLICY_AUTOSUSPEND=1"), TRUE, FALSE, FALSE, NULL, NULL,
    NULL, FALSE, "power/control=auto" },
  { "cascade-subsystem-attr-order", "[Class pci]\nAttr.z=1\n[Class pci-x]\nAttr.a=2\nAttr.z=3\n",
    "pci", P ("POWERPOLICY_CLASS=pci-x"), FALSE, FALSE, FALSE, NULL, NULL, NULL, FALSE, "z=3 a=2" },

  /* an empty assignment leaves the attribute alone */
#define GPU_CASCADE "[Class pci]\nControl=on\nAttr.x=1\n[Class pci:battery]\nControl=auto\n" \
                    "[Class pci-gpu]\nControl=\n"
  { "empty-clears-subsystem", GPU_CASCADE, "pci", P ("POWERPOLICY_CLASS=pci-gpu"), FALSE, FALSE,
    FALSE, NULL, NULL, NULL, FALSE, "x=1" },
  { "empty-higher-layer-sets-again", GPU_CASCADE, "pci", P ("POWERPOLICY_CLASS=pci-gpu"), TRUE,
    FALSE, FALSE, NULL, NULL, NULL, FALSE, "x=1 power/control=auto" },
  { "empty-every-layer", GPU_CASCADE "[Class pci-gpu:battery]\nControl=\nAttr.x=\n", "pci",
    P ("POWERPOLICY_CLASS=pci-gpu"), TRUE, TRUE, FALSE, NULL, NULL, NULL, FALSE, "" },
  { "empty-in-same-section-subsystem", "[Class usb]\nControl=auto\n[Class usb:idle]\nControl=\n",
    "usb", P (NULL), FALSE, TRUE, FALSE, NULL, NULL, NULL, FALSE, "" },
  { "empty-does-not-clear-hwdb", "[Class foo]\nControl=\n", "foo", P ("ID_AUTOSUSPEND=1"), FALSE,
    FALSE, FALSE, NULL, NULL, NULL, FALSE, "power/control=auto" },
  { "empty-override-above", GPU_CASCADE, "pci", P ("POWERPOLICY_CLASS=pci-gpu"), FALSE, FALSE,
    OV ("auto", NULL, NULL), FALSE, "x=1 power/control=auto" },
  { "empty-held-above", GPU_CASCADE, "pci", P ("POWERPOLICY_CLASS=pci-gpu"), FALSE, FALSE, FALSE,
    NULL, NULL, NULL, TRUE, "x=1 power/control=on" },

  /* :low-battery: on battery at or below LowBatteryPercent, between
   * :battery and :idle */
#define LOW_CONFIG "[Class usb]\nAutosuspendDelayMs=2000\n[Class usb:battery]\nAutosuspendDelayMs=1000\n" \
                   "[Class usb:low-battery]\nAutosuspendDelayMs=300\nControl=auto\n" \
                   "[Class usb:idle]\nAutosuspendDelayMs=100\n" \
                   "[Class webcam:low-battery]\nAutosuspendDelayMs=50\n"
  { "low-battery-on-ac-not-used", LOW_CONFIG, "usb", P (NULL), FALSE, FALSE, FALSE, NULL, NULL, NULL,
    FALSE, "power/autosuspend_delay_ms=2000", TRUE },
  { "low-battery-not-low", LOW_CONFIG, "usb", P (NULL), TRUE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=1000", FALSE },
  { "low-battery-above-battery", LOW_CONFIG, "usb", P (NULL), TRUE, FALSE, FALSE, NULL, NULL, NULL,
    FALSE, "power/autosuspend_delay_ms=300 power/control=auto", TRUE },
  { "low-battery-below-idle", LOW_CONFIG, "usb", P (NULL), TRUE, TRUE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=100 power/control=auto", TRUE },
  { "low-battery-class-refines", LOW_CONFIG, "usb", P ("POWERPOLICY_CLASS=webcam"), TRUE, FALSE,
    FALSE, NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=50 power/control=auto", TRUE },
  { "low-battery-class-below-subsystem-idle", LOW_CONFIG, "usb", P ("POWERPOLICY_CLASS=webcam"), TRUE,
    TRUE, FALSE, NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=100 power/control=auto", TRUE },
  { "low-battery-override-above", LOW_CONFIG, "usb", P (NULL), TRUE, FALSE, OV ("on", NULL, NULL),
    FALSE, "power/autosuspend_delay_ms=300 power/control=on", TRUE },
  { "low-battery-udev-above", LOW_CONFIG, "usb", P ("POWERPOLICY_AUTOSUSPEND=0"), TRUE, FALSE, FALSE,
    NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=300 power/control=on", TRUE },
  { "low-battery-held", LOW_CONFIG, "usb", P (NULL), TRUE, FALSE, FALSE, NULL, NULL, NULL, TRUE,
    "power/autosuspend_delay_ms=300 power/control=on", TRUE },

  /* the precedence of the hwdb (powerpolicy.conf(5)): above every class
   * layer, below the administrator's POWERPOLICY_*, overrides and holds */
#define HWDB_CONFIG "[Class usb]\nControl=on\nAutosuspendDelayMs=2000\n" \
                    "[Class usb:battery]\nControl=on\nAutosuspendDelayMs=1000\n" \
                    "[Class usb:low-battery]\nControl=on\nAutosuspendDelayMs=500\n" \
                    "[Class usb:idle]\nControl=on\nAutosuspendDelayMs=100\n" \
                    "[Class modem]\nControl=on\nAutosuspendDelayMs=1\n"
#define HWDB_PROPS P ("ID_AUTOSUSPEND=1", "ID_AUTOSUSPEND_DELAY_MS=7000")
  { "hwdb-above-class", HWDB_CONFIG, "usb", HWDB_PROPS, FALSE, FALSE, FALSE, NULL, NULL, NULL,
    FALSE, "power/autosuspend_delay_ms=7000 power/control=auto" },
  { "hwdb-above-class-section", HWDB_CONFIG, "usb", P ("POWERPOLICY_CLASS=modem", "ID_AUTOSUSPEND=1",
    "ID_AUTOSUSPEND_DELAY_MS=7000"), FALSE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=7000 power/control=auto" },
  { "hwdb-above-battery", HWDB_CONFIG, "usb", HWDB_PROPS, TRUE, FALSE, FALSE, NULL, NULL, NULL,
    FALSE, "power/autosuspend_delay_ms=7000 power/control=auto" },
  { "hwdb-above-low-battery", HWDB_CONFIG, "usb", HWDB_PROPS, TRUE, FALSE, FALSE, NULL, NULL, NULL,
    FALSE, "power/autosuspend_delay_ms=7000 power/control=auto", TRUE },
  { "hwdb-above-idle", HWDB_CONFIG, "usb", HWDB_PROPS, TRUE, TRUE, FALSE, NULL, NULL, NULL,
    FALSE, "power/autosuspend_delay_ms=7000 power/control=auto", TRUE },
  { "hwdb-control-only-class-delay-stays", HWDB_CONFIG, "usb", P ("ID_AUTOSUSPEND=1"), TRUE, FALSE,
    FALSE, NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=1000 power/control=auto" },
  { "hwdb-delay-only-class-control-stays", HWDB_CONFIG, "usb", P ("ID_AUTOSUSPEND_DELAY_MS=7000"),
    TRUE, FALSE, FALSE, NULL, NULL, NULL, FALSE,
    "power/autosuspend_delay_ms=7000 power/control=on" },
  { "hwdb-below-pp-autosuspend-0", HWDB_CONFIG, "usb",
    P ("ID_AUTOSUSPEND=1", "ID_AUTOSUSPEND_DELAY_MS=7000", "POWERPOLICY_AUTOSUSPEND=0"), FALSE,
    FALSE, FALSE, NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=7000 power/control=on" },
  { "hwdb-below-pp-delay", HWDB_CONFIG, "usb",
    P ("ID_AUTOSUSPEND=1", "ID_AUTOSUSPEND_DELAY_MS=7000", "POWERPOLICY_AUTOSUSPEND_DELAY_MS=3"),
    TRUE, TRUE, FALSE, NULL, NULL, NULL, FALSE, "power/autosuspend_delay_ms=3 power/control=auto" },
  { "hwdb-below-override", HWDB_CONFIG, "usb", HWDB_PROPS, TRUE, FALSE, OV ("on", "5", NULL), FALSE,
    "power/autosuspend_delay_ms=5 power/control=on" },
  { "hwdb-below-hold", HWDB_CONFIG, "usb", HWDB_PROPS, TRUE, TRUE, FALSE, NULL, NULL, NULL, TRUE,
    "power/autosuspend_delay_ms=7000 power/control=on" },
};

static void
test_device_settings (void **state)
{
  State *st = *state;
  const DeviceCase *c = st->row;
  PpDeviceProps props;
  PpSituation situation = { c->battery, c->idle, c->low };
  PpOverride override = { (char *) c->ov_control, PP_DELAY_UNSET, (char *) c->ov_wakeup };
  g_autoptr(GPtrArray) settings = NULL;
  g_autofree char *actual = NULL;

  load_config (st, c->config ? c->config : shared_config);
  if (c->ov_delay != NULL)
    override.delay_ms = (gint) g_ascii_strtoll (c->ov_delay, NULL, 10);
  pp_device_props_init (&props, c->subsystem, lookup_props, (gpointer) c->props, NULL);
  settings = pp_policy_device_settings (st->config, &props, &situation,
                                        c->with_override ? &override : NULL, c->held);
  pp_device_props_clear (&props);
  actual = join_settings (settings);
  if (!g_str_equal (actual, c->expected))
    fail_msg ("expected\n  '%s'\ngot\n  '%s'", c->expected, actual);
}

/* The configuration is not modified by computing settings, and the
 * result is a fresh list each time. */
static void
test_device_settings_pure (void **state)
{
  State *st = *state;
  const char *props[] = { "POWERPOLICY_AUTOSUSPEND=0", NULL };
  PpDeviceProps dp;
  PpSituation idle = { TRUE, TRUE };
  PpSituation active = { FALSE, FALSE };
  g_autoptr(GPtrArray) a = NULL;
  g_autoptr(GPtrArray) b = NULL;
  g_autoptr(GPtrArray) c = NULL;
  g_autofree char *sa = NULL;
  g_autofree char *sc = NULL;

  load_config (st, shared_config);
  pp_device_props_init (&dp, "usb", lookup_props, props, NULL);
  a = pp_policy_device_settings (st->config, &dp, &active, NULL, FALSE);
  b = pp_policy_device_settings (st->config, &dp, &idle, NULL, TRUE);
  c = pp_policy_device_settings (st->config, &dp, &active, NULL, FALSE);
  pp_device_props_clear (&dp);
  sa = join_settings (a);
  sc = join_settings (c);
  assert_string_equal (sa, sc);
  assert_string_equal (sa, "power/autosuspend_delay_ms=2000 power/wakeup=disabled power/control=on");
  assert_ptr_not_equal (g_ptr_array_index (a, 0), g_ptr_array_index (c, 0));
  assert_string_equal (((PpSetting *) g_ptr_array_index (
                         pp_config_get_class (st->config, "usb")->layers[PP_LAYER_BASE], 0))->value,
                       "auto");
}


/* ---- decisions with layers and origins (Explain) ---------------------------- */

static const char explain_config[] =
  "[Class usb]\n"                                  /* 1 */
  "Control=auto\n"                                 /* 2 */
  "AutosuspendDelayMs=2000\n"                      /* 3 */
  "[Class usb:battery]\n"                          /* 4 */
  "AutosuspendDelayMs=1000\n"                      /* 5 */
  "[Class usb:idle]\n"                             /* 6 */
  "Wakeup=disabled\n"                              /* 7 */
  "[Class pci]\n"                                  /* 8 */
  "Control=on\n"                                   /* 9 */
  "ExcludeDrivers=mei_me nouveau radeon\n"         /* 10 */
  "[Class pci:battery]\n"                          /* 11 */
  "Control=auto\n"                                 /* 12 */
  "[Class sata-host]\n"                            /* 13 */
  "LinkPowerPolicy=med_power_with_dipm\n"          /* 14 */
  "[Class bare]\n"                                 /* 15 */
  "[Class gpu]\n"                                  /* 16 */
  "ExcludeDrivers=nouveau\n"                       /* 17 */
  "Attr.device/power_dpm=low\n"                    /* 18 */
  "[Class gpu:idle]\n"                             /* 19 */
  "Control=auto\n";                                /* 20 */

typedef struct {
  const char *name;
  const char *subsystem;
  const char *props[MAX_PROPS];
  gboolean    battery;
  gboolean    idle;
  gboolean    with_override;
  const char *ov_control;
  const char *ov_delay;
  const char *ov_wakeup;
  gboolean    powered_down;
  gboolean    held;
  const char *held_by;
  const char *driver;
  PpSettingSource skipped;
  const char *expected;          /* "ATTR=DECIDED|LAYER|ORIGIN" rows, ';'-separated */
} ExplainCase;

#define NO_OV FALSE, NULL, NULL, NULL
#define UNSET_USB_WAKEUP "power/wakeup=|own|not set by [Class usb]"

static const ExplainCase explain_cases[] = {
  /* class layers, FILE:LINE of each line */
  { "class", "usb", P (NULL), FALSE, FALSE, NO_OV, FALSE, FALSE, NULL, NULL, PP_SOURCE_NONE,
    "power/control=auto|class|test.conf:2 [Class usb];power/autosuspend_delay_ms=2000|class|test.conf:3 [Class usb];"
    UNSET_USB_WAKEUP },
  { "battery", "usb", P (NULL), TRUE, FALSE, NO_OV, FALSE, FALSE, NULL, NULL, PP_SOURCE_NONE,
    "power/control=auto|class|test.conf:2 [Class usb];power/autosuspend_delay_ms=1000|battery|test.conf:5 [Class usb:battery];"
    UNSET_USB_WAKEUP },
  { "idle", "usb", P (NULL), FALSE, TRUE, NO_OV, FALSE, FALSE, NULL, NULL, PP_SOURCE_NONE,
    "power/control=auto|class|test.conf:2 [Class usb];power/autosuspend_delay_ms=2000|class|test.conf:3 [Class usb];"
    "power/wakeup=disabled|idle|test.conf:7 [Class usb:idle]" },
  { "battery-and-idle", "pci", P (NULL), TRUE, TRUE, NO_OV, FALSE, FALSE, NULL, "e1000e",
    PP_SOURCE_NONE,
    "power/control=auto|battery|test.conf:12 [Class pci:battery];power/autosuspend_delay_ms=|own|not set by [Class pci];"
    "power/wakeup=|own|not set by [Class pci]" },
  { "no-section", "foo", P (NULL), FALSE, FALSE, NO_OV, FALSE, FALSE, NULL, NULL, PP_SOURCE_NONE,
    "power/control=|own|no [Class foo] section;"
    "power/autosuspend_delay_ms=|own|no [Class foo] section;"
    "power/wakeup=|own|no [Class foo] section" },
  { "other-attribute-after-power", "scsi_host", P ("POWERPOLICY_CLASS=sata-host"), FALSE, FALSE,
    NO_OV, FALSE, FALSE, NULL, NULL, PP_SOURCE_NONE,
    "power/control=|own|not set by [Class sata-host];"
    "power/autosuspend_delay_ms=|own|not set by [Class sata-host];"
    "power/wakeup=|own|not set by [Class sata-host];"
    "link_power_management_policy=med_power_with_dipm|class|test.conf:14 [Class sata-host]" },

  /* udev properties: the property and its value */
  { "udev-autosuspend-0", "usb", P ("POWERPOLICY_AUTOSUSPEND=0"), TRUE, TRUE, NO_OV, FALSE, FALSE,
    NULL, NULL, PP_SOURCE_NONE,
    "power/control=on|udev|POWERPOLICY_AUTOSUSPEND=0;"
    "power/autosuspend_delay_ms=1000|battery|test.conf:5 [Class usb:battery];power/wakeup=disabled|idle|test.conf:7 [Class usb:idle]" },
  { "udev-autosuspend-1-delay-wakeup", "usb",
    P ("POWERPOLICY_AUTOSUSPEND=1", "POWERPOLICY_AUTOSUSPEND_DELAY_MS=-1",
       "POWERPOLICY_WAKEUP=enabled"), FALSE, TRUE, NO_OV, FALSE, FALSE, NULL, NULL, PP_SOURCE_NONE,
    "power/control=auto|udev|POWERPOLICY_AUTOSUSPEND=1;"
    "power/autosuspend_delay_ms=-1|udev|POWERPOLICY_AUTOSUSPEND_DELAY_MS=-1;"
    "power/wakeup=enabled|udev|POWERPOLICY_WAKEUP=enabled" },
  { "udev-hwdb-hints", "bare", P ("ID_AUTOSUSPEND=1", "ID_AUTOSUSPEND_DELAY_MS=500"), FALSE, FALSE,
    NO_OV, FALSE, FALSE, NULL, NULL, PP_SOURCE_NONE,
    "power/control=auto|hwdb|ID_AUTOSUSPEND=1;"
    "power/autosuspend_delay_ms=500|hwdb|ID_AUTOSUSPEND_DELAY_MS=500;"
    "power/wakeup=|own|not set by [Class bare]" },
  /* the hwdb above every class layer: the Fibocom L850's 7000 ms on
   * battery, not the class's 1000 */
  { "hwdb-beats-class", "usb", P ("ID_AUTOSUSPEND_DELAY_MS=7000"), TRUE, FALSE, NO_OV,
    FALSE, FALSE, NULL, NULL, PP_SOURCE_NONE,
    "power/control=auto|class|test.conf:2 [Class usb];power/autosuspend_delay_ms=7000|hwdb|ID_AUTOSUSPEND_DELAY_MS=7000;"
    UNSET_USB_WAKEUP },
  { "hwdb-beats-class-control", "pci", P ("ID_AUTOSUSPEND=1"), FALSE, TRUE, NO_OV,
    FALSE, FALSE, NULL, NULL, PP_SOURCE_NONE,
    "power/control=auto|hwdb|ID_AUTOSUSPEND=1;"
    "power/autosuspend_delay_ms=|own|not set by [Class pci];"
    "power/wakeup=|own|not set by [Class pci]" },
  { "udev-above-hwdb", "pci", P ("ID_AUTOSUSPEND=1", "POWERPOLICY_AUTOSUSPEND=0"), FALSE,
    FALSE, NO_OV, FALSE, FALSE, NULL, NULL, PP_SOURCE_NONE,
    "power/control=on|udev|POWERPOLICY_AUTOSUSPEND=0;"
    "power/autosuspend_delay_ms=|own|not set by [Class pci];"
    "power/wakeup=|own|not set by [Class pci]" },
  { "hold-above-hwdb", "bare", P ("ID_AUTOSUSPEND=1"), FALSE, FALSE, NO_OV, FALSE, TRUE, "held by me",
    NULL, PP_SOURCE_NONE,
    "power/control=on|hold|held by me;"
    "power/autosuspend_delay_ms=|own|not set by [Class bare];"
    "power/wakeup=|own|not set by [Class bare]" },

  /* overrides, PowerDown, holds */
  { "override", "usb", P ("POWERPOLICY_AUTOSUSPEND=1"), TRUE, TRUE, TRUE, "on", "5", "enabled",
    FALSE, FALSE, NULL, NULL, PP_SOURCE_NONE,
    "power/control=on|override|override set over D-Bus;"
    "power/autosuspend_delay_ms=5|override|override set over D-Bus;"
    "power/wakeup=enabled|override|override set over D-Bus" },
  { "override-one-key", "usb", P (NULL), FALSE, FALSE, TRUE, NULL, NULL, "enabled", FALSE, FALSE,
    NULL, NULL, PP_SOURCE_NONE,
    "power/control=auto|class|test.conf:2 [Class usb];power/autosuspend_delay_ms=2000|class|test.conf:3 [Class usb];"
    "power/wakeup=enabled|override|override set over D-Bus" },
  { "power-down-above-override", "usb", P (NULL), FALSE, FALSE, TRUE, "on", "5", "enabled", TRUE,
    FALSE, NULL, NULL, PP_SOURCE_NONE,
    "power/control=auto|power-down|PowerDown (auto) over D-Bus, until PowerUp;"
    "power/autosuspend_delay_ms=0|power-down|PowerDown (auto) over D-Bus, until PowerUp;"
    "power/wakeup=enabled|override|override set over D-Bus" },
  { "power-down-no-class", "foo", P (NULL), FALSE, FALSE, NO_OV, TRUE, FALSE, NULL, NULL,
    PP_SOURCE_NONE,
    "power/control=auto|power-down|PowerDown (auto) over D-Bus, until PowerUp;"
    "power/autosuspend_delay_ms=0|power-down|PowerDown (auto) over D-Bus, until PowerUp;"
    "power/wakeup=|own|no [Class foo] section" },
  { "hold", "usb", P (NULL), TRUE, FALSE, NO_OV, FALSE, TRUE, "held by me (test), pid 7", NULL,
    PP_SOURCE_NONE,
    "power/control=on|hold|held by me (test), pid 7;"
    "power/autosuspend_delay_ms=1000|battery|test.conf:5 [Class usb:battery];" UNSET_USB_WAKEUP },
  { "hold-without-who", "usb", P (NULL), FALSE, FALSE, NO_OV, FALSE, TRUE, NULL, NULL,
    PP_SOURCE_NONE,
    "power/control=on|hold|held;power/autosuspend_delay_ms=2000|class|test.conf:3 [Class usb];"
    UNSET_USB_WAKEUP },
  { "hold-above-power-down-and-override", "usb", P (NULL), FALSE, FALSE, TRUE, "auto", NULL, NULL,
    TRUE, TRUE, "held by a (b), pid 1", NULL, PP_SOURCE_NONE,
    "power/control=on|hold|held by a (b), pid 1;"
    "power/autosuspend_delay_ms=0|power-down|PowerDown (auto) over D-Bus, until PowerUp;"
    UNSET_USB_WAKEUP },

  /* ExcludeDrivers: nothing decided, every attribute says why */
  { "excluded-mei-me", "pci", P (NULL), TRUE, TRUE, NO_OV, FALSE, FALSE, NULL, "mei_me",
    PP_SOURCE_EXCLUDED,
    "power/control=|excluded|driver mei_me excluded by test.conf:10 [Class pci];"
    "power/autosuspend_delay_ms=|excluded|driver mei_me excluded by test.conf:10 [Class pci];"
    "power/wakeup=|excluded|driver mei_me excluded by test.conf:10 [Class pci]" },
  { "excluded-last-of-list", "pci", P (NULL), FALSE, FALSE, NO_OV, FALSE, FALSE, NULL, "radeon",
    PP_SOURCE_EXCLUDED,
    "power/control=|excluded|driver radeon excluded by test.conf:10 [Class pci];"
    "power/autosuspend_delay_ms=|excluded|driver radeon excluded by test.conf:10 [Class pci];"
    "power/wakeup=|excluded|driver radeon excluded by test.conf:10 [Class pci]" },
  { "excluded-beats-override-and-hold", "pci", P (NULL), FALSE, FALSE, TRUE, "auto", "5", NULL,
    TRUE, TRUE, "held by a (b), pid 1", "nouveau", PP_SOURCE_EXCLUDED,
    "power/control=|excluded|driver nouveau excluded by test.conf:10 [Class pci];"
    "power/autosuspend_delay_ms=|excluded|driver nouveau excluded by test.conf:10 [Class pci];"
    "power/wakeup=|excluded|driver nouveau excluded by test.conf:10 [Class pci]" },
  { "excluded-other-attributes-listed", "pci", P ("POWERPOLICY_CLASS=gpu"), FALSE, TRUE, NO_OV,
    FALSE, FALSE, NULL, "nouveau", PP_SOURCE_EXCLUDED,
    "power/control=|excluded|driver nouveau excluded by test.conf:17 [Class gpu];"
    "power/autosuspend_delay_ms=|excluded|driver nouveau excluded by test.conf:17 [Class gpu];"
    "power/wakeup=|excluded|driver nouveau excluded by test.conf:17 [Class gpu];"
    "device/power_dpm=|excluded|driver nouveau excluded by test.conf:17 [Class gpu]" },
  { "not-excluded-other-driver", "pci", P (NULL), FALSE, FALSE, NO_OV, FALSE, FALSE, NULL,
    "mei", PP_SOURCE_NONE,
    "power/control=on|class|test.conf:9 [Class pci];power/autosuspend_delay_ms=|own|not set by [Class pci];"
    "power/wakeup=|own|not set by [Class pci]" },
  { "not-excluded-no-driver", "pci", P (NULL), FALSE, FALSE, NO_OV, FALSE, FALSE, NULL, NULL,
    PP_SOURCE_NONE,
    "power/control=on|class|test.conf:9 [Class pci];power/autosuspend_delay_ms=|own|not set by [Class pci];"
    "power/wakeup=|own|not set by [Class pci]" },
  { "not-excluded-other-class", "usb", P (NULL), FALSE, FALSE, NO_OV, FALSE, FALSE, NULL, "mei_me",
    PP_SOURCE_NONE,
    "power/control=auto|class|test.conf:2 [Class usb];power/autosuspend_delay_ms=2000|class|test.conf:3 [Class usb];"
    UNSET_USB_WAKEUP },
  { "gpu-not-excluded-idle-attr", "pci", P ("POWERPOLICY_CLASS=gpu"), FALSE, TRUE, NO_OV, FALSE,
    FALSE, NULL, "amdgpu", PP_SOURCE_NONE,
    "power/control=auto|idle|test.conf:20 [Class gpu:idle];"
    "power/autosuspend_delay_ms=|own|not set by [Class pci] or [Class gpu];"
    "power/wakeup=|own|not set by [Class pci] or [Class gpu];"
    "device/power_dpm=low|class|test.conf:18 [Class gpu]" },

  /* POWERPOLICY_IGNORE=1: above everything, an excluded driver too */
  { "ignored", "usb", P ("POWERPOLICY_IGNORE=1", "POWERPOLICY_AUTOSUSPEND=0"), TRUE, TRUE, TRUE,
    "on", NULL, NULL, FALSE, TRUE, "held by a (b), pid 1", NULL, PP_SOURCE_IGNORED,
    "power/control=|ignored|POWERPOLICY_IGNORE=1;"
    "power/autosuspend_delay_ms=|ignored|POWERPOLICY_IGNORE=1;"
    "power/wakeup=|ignored|POWERPOLICY_IGNORE=1" },
  { "ignored-beats-excluded", "pci", P ("POWERPOLICY_IGNORE=1"), FALSE, FALSE, NO_OV, FALSE,
    FALSE, NULL, "mei_me", PP_SOURCE_IGNORED,
    "power/control=|ignored|POWERPOLICY_IGNORE=1;"
    "power/autosuspend_delay_ms=|ignored|POWERPOLICY_IGNORE=1;"
    "power/wakeup=|ignored|POWERPOLICY_IGNORE=1" },
};

static void
test_explain (void **state)
{
  State *st = *state;
  const ExplainCase *c = st->row;
  PpDeviceProps props;
  PpSituation situation = { c->battery, c->idle };
  PpOverride override = { (char *) c->ov_control, PP_DELAY_UNSET, (char *) c->ov_wakeup };
  PpDeviceState dstate = {
    c->with_override ? &override : NULL, c->powered_down, c->held, c->held_by, c->driver,
  };
  g_autoptr(PpDecision) decision = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GString) actual = g_string_new (NULL);
  g_autoptr(GPtrArray) settings = NULL;
  g_autofree char *decided = NULL;
  g_autofree char *plain = NULL;

  load_config (st, explain_config);
  if (c->ov_delay != NULL)
    override.delay_ms = (gint) g_ascii_strtoll (c->ov_delay, NULL, 10);
  pp_device_props_init (&props, c->subsystem, lookup_props, (gpointer) c->props, NULL);
  decision = pp_policy_decide (st->config, &props, &situation, &dstate);
  rows = pp_policy_explain (st->config, &props, decision);

  for (guint i = 0; i < rows->len; i++)
    {
      const PpExplainRow *r = g_ptr_array_index (rows, i);
      assert_null (r->current);
      g_string_append_printf (actual, "%s%s=%s|%s|%s", i ? ";" : "", r->attribute, r->decided,
                              r->layer, r->origin);
    }
  if (!g_str_equal (actual->str, c->expected))
    fail_msg ("expected\n  '%s'\ngot\n  '%s'", c->expected, actual->str);

  /* nothing to write when skipped; what would be written is kept */
  assert_int_equal (decision->skipped, c->skipped);
  if (c->skipped != PP_SOURCE_NONE)
    {
      assert_int_equal (decision->settings->len, 0);
      assert_non_null (decision->skip_origin);
    }
  else
    {
      assert_int_equal (decision->left_alone->len, 0);
      assert_null (decision->skip_origin);
    }

  /* the old entry point is the same computation: without a driver and
   * PowerDown it decides what pp_policy_decide() does */
  if (!c->powered_down && c->driver == NULL && c->held_by == NULL)
    {
      settings = pp_policy_device_settings (st->config, &props, &situation,
                                            c->with_override ? &override : NULL, c->held);
      decided = join_settings (decision->settings);
      plain = join_settings (settings);
      assert_string_equal (decided, plain);
    }
  pp_device_props_clear (&props);
}

static void
test_source_names (void **state)
{
  static const char * const names[] = {
    "", "class", "battery", "idle", "udev", "override", "power-down", "hold", "excluded", "ignored",
    "low-battery",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    assert_string_equal (pp_setting_source_to_string ((PpSettingSource) i), names[i]);
  assert_string_equal (pp_setting_source_to_string ((PpSettingSource) 99), "");
}

/* A configuration built without files still names where a line is. */
static void
test_explain_origin_without_file (void **state)
{
  State *st = *state;
  const char text[] = "[Class usb]\nControl=auto\n[Class usb:battery]\nControl=on\n";
  const char *props[] = { NULL };
  PpDeviceProps dp;
  PpSituation battery = { TRUE, FALSE };
  g_autoptr(PpDecision) d = NULL;
  const PpSetting *s;

  pp_config_load_data (st->config, NULL, text, strlen (text), st->problems);
  pp_device_props_init (&dp, "usb", lookup_props, props, NULL);
  d = pp_policy_decide (st->config, &dp, &battery, NULL);
  pp_device_props_clear (&dp);
  assert_int_equal (d->settings->len, 1);
  s = g_ptr_array_index (d->settings, 0);
  assert_int_equal (s->source, PP_SOURCE_BATTERY);
  assert_non_null (s->origin);
  assert_true (g_str_has_suffix (s->origin, ":4") || g_str_equal (s->origin, "[Class usb:battery]"));
}

/* The revert layer asks only what the daemon knows (the journal of
 * originals, here a table): an attribute with a journalled original goes
 * back to it; one the daemon never changed is left alone (it has its
 * original still), nothing read; PowerDown and holds stay above. */
typedef struct {
  GHashTable *originals;   /* relpath -> original */
  GHashTable *asked;       /* relpaths looked up */
} Journal;

static const char *
journal_lookup (gpointer user_data, const char *relpath)
{
  Journal *journal = user_data;

  g_hash_table_add (journal->asked, g_strdup (relpath));
  return g_hash_table_lookup (journal->originals, relpath);
}

static void
test_revert_layer (void **state)
{
  State *st = *state;
  const char *props[] = { NULL };
  g_autoptr(GHashTable) originals = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) asked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Journal journal = { originals, asked };
  PpDeviceProps dp;
  PpSituation ac = { FALSE, FALSE };
  PpDeviceState dstate = { 0 };
  g_autoptr(PpDecision) d = NULL;
  g_autoptr(PpDecision) held = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  const PpSetting *s;

  g_hash_table_insert (originals, (gpointer) PP_ATTR_CONTROL, (gpointer) "on");
  pp_config_load_data (st->config, NULL, shared_config, strlen (shared_config), st->problems);
  pp_device_props_init (&dp, "usb", lookup_props, props, NULL);
  dstate.reverted = TRUE;
  dstate.reverted_by = "reverted by me (why), pid 1";
  dstate.original = journal_lookup;
  dstate.original_data = &journal;
  d = pp_policy_decide (st->config, &dp, &ac, &dstate);

  /* control back to its journalled original */
  assert_int_equal (d->settings->len, 1);
  s = g_ptr_array_index (d->settings, 0);
  assert_string_equal (s->key, PP_ATTR_CONTROL);
  assert_string_equal (s->value, "on");
  assert_int_equal (s->source, PP_SOURCE_REVERT);
  assert_string_equal (s->origin, "reverted by me (why), pid 1");
  /* delay and wakeup never changed: left alone by the revert */
  assert_int_equal (d->cleared->len, 2);
  for (guint i = 0; i < d->cleared->len; i++)
    {
      s = g_ptr_array_index (d->cleared, i);
      assert_int_equal (s->source, PP_SOURCE_REVERT);
      assert_string_equal (s->value, "");
    }
  /* each attribute the layers below decide was looked up */
  assert_int_equal (g_hash_table_size (asked), 3);
  rows = pp_policy_explain (st->config, &dp, d);
  for (guint i = 0; i < rows->len; i++)
    {
      PpExplainRow *row = g_ptr_array_index (rows, i);

      assert_string_equal (row->layer, "revert");
      if (g_str_equal (row->attribute, PP_ATTR_CONTROL))
        assert_string_equal (row->decided, "on");
      else
        assert_string_equal (row->decided, "");
    }

  /* PowerDown above it; a hold above that */
  dstate.powered_down = TRUE;
  dstate.held = TRUE;
  held = pp_policy_decide (st->config, &dp, &ac, &dstate);
  pp_device_props_clear (&dp);
  assert_int_equal (held->settings->len, 2);
  for (guint i = 0; i < held->settings->len; i++)
    {
      s = g_ptr_array_index (held->settings, i);
      if (g_str_equal (s->key, PP_ATTR_CONTROL))
        {
          assert_string_equal (s->value, "on");
          assert_int_equal (s->source, PP_SOURCE_HOLD);
        }
      else
        {
          assert_string_equal (s->key, PP_ATTR_DELAY);
          assert_string_equal (s->value, "0");
          assert_int_equal (s->source, PP_SOURCE_POWER_DOWN);
        }
    }

  /* without a journal (NULL @original) the revert leaves everything alone */
  {
    g_autoptr(PpDecision) none = NULL;

    pp_device_props_init (&dp, "usb", lookup_props, props, NULL);
    dstate.powered_down = FALSE;
    dstate.held = FALSE;
    dstate.original = NULL;
    none = pp_policy_decide (st->config, &dp, &ac, &dstate);
    pp_device_props_clear (&dp);
    assert_int_equal (none->settings->len, 0);
    assert_int_equal (none->cleared->len, 3);
  }
}

/* ---- classification ------------------------------------------------------------ */

typedef struct {
  const char *name;
  const char *subsystem;
  const char *props[MAX_PROPS];
  const char *klass;
  gboolean    ignore;
  gboolean    id_autosuspend;
  gint        id_delay_ms;
  PpTristate  autosuspend;
  gint        delay_ms;
  const char *wakeup;
  guint       n_warnings;
  const char *warning;        /* substring of the first warning */
} PropsCase;

#define U PP_DELAY_UNSET
#define T_UNSET PP_TRISTATE_UNSET

static const PropsCase props_cases[] = {
  { "nothing", "usb", P (NULL), "usb", FALSE, FALSE, U, T_UNSET, U, NULL, 0, NULL },
  { "class-beats-subsystem", "usb", P ("POWERPOLICY_CLASS=usb-hid"), "usb-hid", FALSE, FALSE, U,
    T_UNSET, U, NULL, 0, NULL },
  { "class-empty-falls-back", "usb", P ("POWERPOLICY_CLASS="), "usb", FALSE, FALSE, U, T_UNSET, U,
    NULL, 0, NULL },
  { "no-subsystem", NULL, P (NULL), "", FALSE, FALSE, U, T_UNSET, U, NULL, 0, NULL },
  { "no-subsystem-class", NULL, P ("POWERPOLICY_CLASS=bluetooth"), "bluetooth", FALSE, FALSE, U,
    T_UNSET, U, NULL, 0, NULL },
  { "ignore-1", "usb", P ("POWERPOLICY_IGNORE=1"), "usb", TRUE, FALSE, U, T_UNSET, U, NULL, 0, NULL },
  { "ignore-0", "usb", P ("POWERPOLICY_IGNORE=0"), "usb", FALSE, FALSE, U, T_UNSET, U, NULL, 0, NULL },
  { "ignore-yes", "usb", P ("POWERPOLICY_IGNORE=yes"), "usb", FALSE, FALSE, U, T_UNSET, U, NULL, 1,
    "POWERPOLICY_IGNORE=yes" },
  { "ignore-empty", "usb", P ("POWERPOLICY_IGNORE="), "usb", FALSE, FALSE, U, T_UNSET, U, NULL, 1,
    "POWERPOLICY_IGNORE=" },
  { "id-autosuspend-1", "usb", P ("ID_AUTOSUSPEND=1"), "usb", FALSE, TRUE, U, T_UNSET, U, NULL, 0,
    NULL },
  { "id-autosuspend-0", "usb", P ("ID_AUTOSUSPEND=0"), "usb", FALSE, FALSE, U, T_UNSET, U, NULL, 0,
    NULL },
  { "id-autosuspend-2", "usb", P ("ID_AUTOSUSPEND=2"), "usb", FALSE, FALSE, U, T_UNSET, U, NULL, 1,
    "ID_AUTOSUSPEND=2" },
  { "id-delay", "usb", P ("ID_AUTOSUSPEND_DELAY_MS=4000"), "usb", FALSE, FALSE, 4000, T_UNSET, U,
    NULL, 0, NULL },
  { "id-delay-minus-one", "usb", P ("ID_AUTOSUSPEND_DELAY_MS=-1"), "usb", FALSE, FALSE, -1, T_UNSET,
    U, NULL, 0, NULL },
  { "id-delay-minus-two", "usb", P ("ID_AUTOSUSPEND_DELAY_MS=-2"), "usb", FALSE, FALSE, U, T_UNSET,
    U, NULL, 1, "ID_AUTOSUSPEND_DELAY_MS=-2" },
  { "id-delay-word", "usb", P ("ID_AUTOSUSPEND_DELAY_MS=long"), "usb", FALSE, FALSE, U, T_UNSET, U,
    NULL, 1, "ID_AUTOSUSPEND_DELAY_MS=long" },
  { "id-delay-empty", "usb", P ("ID_AUTOSUSPEND_DELAY_MS="), "usb", FALSE, FALSE, U, T_UNSET, U,
    NULL, 1, "ID_AUTOSUSPEND_DELAY_MS=" },
  { "id-delay-overflow", "usb", P ("ID_AUTOSUSPEND_DELAY_MS=2147483648"), "usb", FALSE, FALSE, U,
    T_UNSET, U, NULL, 1, "2147483648" },
  { "pp-autosuspend-1", "usb", P ("POWERPOLICY_AUTOSUSPEND=1"), "usb", FALSE, FALSE, U,
    PP_TRISTATE_YES, U, NULL, 0, NULL },
  { "pp-autosuspend-0", "usb", P ("POWERPOLICY_AUTOSUSPEND=0"), "usb", FALSE, FALSE, U,
    PP_TRISTATE_NO, U, NULL, 0, NULL },
  { "pp-autosuspend-yes", "usb", P ("POWERPOLICY_AUTOSUSPEND=yes"), "usb", FALSE, FALSE, U, T_UNSET,
    U, NULL, 1, "POWERPOLICY_AUTOSUSPEND=yes" },
  { "pp-autosuspend-empty", "usb", P ("POWERPOLICY_AUTOSUSPEND="), "usb", FALSE, FALSE, U, T_UNSET,
    U, NULL, 1, "POWERPOLICY_AUTOSUSPEND=" },
  { "pp-delay", "usb", P ("POWERPOLICY_AUTOSUSPEND_DELAY_MS=100"), "usb", FALSE, FALSE, U, T_UNSET,
    100, NULL, 0, NULL },
  { "pp-delay-zero", "usb", P ("POWERPOLICY_AUTOSUSPEND_DELAY_MS=0"), "usb", FALSE, FALSE, U,
    T_UNSET, 0, NULL, 0, NULL },
  { "pp-delay-word", "usb", P ("POWERPOLICY_AUTOSUSPEND_DELAY_MS=x"), "usb", FALSE, FALSE, U,
    T_UNSET, U, NULL, 1, "POWERPOLICY_AUTOSUSPEND_DELAY_MS=x" },
  { "pp-delay-space", "usb", P ("POWERPOLICY_AUTOSUSPEND_DELAY_MS= 5"), "usb", FALSE, FALSE, U,
    T_UNSET, U, NULL, 1, "POWERPOLICY_AUTOSUSPEND_DELAY_MS= 5" },
  { "pp-wakeup-enabled", "usb", P ("POWERPOLICY_WAKEUP=enabled"), "usb", FALSE, FALSE, U, T_UNSET, U,
    "enabled", 0, NULL },
  { "pp-wakeup-disabled", "usb", P ("POWERPOLICY_WAKEUP=disabled"), "usb", FALSE, FALSE, U, T_UNSET,
    U, "disabled", 0, NULL },
  { "pp-wakeup-on", "usb", P ("POWERPOLICY_WAKEUP=on"), "usb", FALSE, FALSE, U, T_UNSET, U, NULL, 1,
    "POWERPOLICY_WAKEUP=on" },
  { "pp-wakeup-case", "usb", P ("POWERPOLICY_WAKEUP=Enabled"), "usb", FALSE, FALSE, U, T_UNSET, U,
    NULL, 1, "POWERPOLICY_WAKEUP=Enabled" },
  { "everything", "pci",
    P ("POWERPOLICY_CLASS=pci-audio", "POWERPOLICY_IGNORE=1", "ID_AUTOSUSPEND=1",
       "ID_AUTOSUSPEND_DELAY_MS=10", "POWERPOLICY_AUTOSUSPEND=0",
       "POWERPOLICY_AUTOSUSPEND_DELAY_MS=20", "POWERPOLICY_WAKEUP=disabled"),
    "pci-audio", TRUE, TRUE, 10, PP_TRISTATE_NO, 20, "disabled", 0, NULL },
  { "everything-bad", "pci",
    P ("POWERPOLICY_IGNORE=2", "ID_AUTOSUSPEND=x", "ID_AUTOSUSPEND_DELAY_MS=x",
       "POWERPOLICY_AUTOSUSPEND=x", "POWERPOLICY_AUTOSUSPEND_DELAY_MS=x", "POWERPOLICY_WAKEUP=x"),
    "pci", FALSE, FALSE, U, T_UNSET, U, NULL, 6, "POWERPOLICY_IGNORE=2" },
  { "unrelated-properties", "usb", P ("ID_VENDOR=foo", "DEVTYPE=usb_device", "POWERPOLICY_FOO=1"),
    "usb", FALSE, FALSE, U, T_UNSET, U, NULL, 0, NULL },
};

static void
test_props (void **state)
{
  State *st = *state;
  const PropsCase *c = st->row;
  PpDeviceProps props;
  g_autofree char *warnings = NULL;

  pp_device_props_init (&props, c->subsystem, lookup_props, (gpointer) c->props, st->warnings);
  g_ptr_array_add (st->warnings, NULL);
  warnings = g_strjoinv ("\n", (char **) st->warnings->pdata);
  g_ptr_array_remove_index (st->warnings, st->warnings->len - 1);

  assert_string_equal (props.klass, c->klass);
  assert_int_equal (props.ignore, c->ignore);
  assert_int_equal (props.id_autosuspend, c->id_autosuspend);
  assert_int_equal (props.id_delay_ms, c->id_delay_ms);
  assert_int_equal (props.autosuspend, c->autosuspend);
  assert_int_equal (props.delay_ms, c->delay_ms);
  if (g_strcmp0 (props.wakeup, c->wakeup) != 0)
    fail_msg ("wakeup: expected %s, got %s", c->wakeup ? c->wakeup : "NULL",
              props.wakeup ? props.wakeup : "NULL");
  if (st->warnings->len != c->n_warnings)
    fail_msg ("expected %u warnings, got %u:\n%s", c->n_warnings, st->warnings->len, warnings);
  if (c->warning != NULL && strstr (g_ptr_array_index (st->warnings, 0), c->warning) == NULL)
    fail_msg ("expected '%s' in the first warning, got:\n%s", c->warning, warnings);

  /* the same without a warnings array, and clear twice is harmless */
  pp_device_props_clear (&props);
  pp_device_props_clear (&props);
  pp_device_props_init (&props, c->subsystem, lookup_props, (gpointer) c->props, NULL);
  assert_string_equal (props.klass, c->klass);
  pp_device_props_clear (&props);
  assert_null (props.klass);
  assert_null (props.wakeup);
}

/* ---- module parameters ------------------------------------------------------------- */

static const char module_config[] =
  "[Module snd_hda_intel]\n"
  "power_save=10\n"
  "power_save_controller=Y\n"
  "[Module snd_hda_intel:battery]\n"
  "power_save=5\n"
  "[Module snd_hda_intel:idle]\n"
  "power_save=1\n"
  "[Module iwlwifi:battery]\n"
  "power_save=1\n"
  "[Module aaa]\n"
  "x=1\n"
  "[Module zzz:idle]\n"
  "y=2\n"
  "z=3\n";

typedef struct {
  const char *name;
  const char *config;
  const char *dropin;
  gboolean    battery;
  gboolean    idle;
  const char *expected;
} ModuleCase;

static const ModuleCase module_cases[] = {
  { "ac-active", module_config, NULL, FALSE, FALSE,
    "aaa/parameters/x=1 snd_hda_intel/parameters/power_save=10 "
    "snd_hda_intel/parameters/power_save_controller=Y" },
  { "battery", module_config, NULL, TRUE, FALSE,
    "aaa/parameters/x=1 iwlwifi/parameters/power_save=1 snd_hda_intel/parameters/power_save=5 "
    "snd_hda_intel/parameters/power_save_controller=Y" },
  { "idle", module_config, NULL, FALSE, TRUE,
    "aaa/parameters/x=1 snd_hda_intel/parameters/power_save=1 "
    "snd_hda_intel/parameters/power_save_controller=Y zzz/parameters/y=2 zzz/parameters/z=3" },
  { "battery-idle", module_config, NULL, TRUE, TRUE,
    "aaa/parameters/x=1 iwlwifi/parameters/power_save=1 snd_hda_intel/parameters/power_save=1 "
    "snd_hda_intel/parameters/power_save_controller=Y zzz/parameters/y=2 zzz/parameters/z=3" },
  { "empty", "", NULL, TRUE, TRUE, "" },
  { "classes-are-not-modules", "[Class snd_hda_intel]\nControl=auto\n", NULL, FALSE, FALSE, "" },
  { "dropin-overrides-key", module_config, "[Module snd_hda_intel]\npower_save=0\n[Module b]\np=q\n",
    FALSE, FALSE,
    "aaa/parameters/x=1 b/parameters/p=q snd_hda_intel/parameters/power_save=0 "
    "snd_hda_intel/parameters/power_save_controller=Y" },
  { "dropin-idle-still-above", module_config, "[Module snd_hda_intel]\npower_save=0\n", FALSE, TRUE,
    "aaa/parameters/x=1 snd_hda_intel/parameters/power_save=1 "
    "snd_hda_intel/parameters/power_save_controller=Y zzz/parameters/y=2 zzz/parameters/z=3" },
  { "only-battery-layer-on-ac", "[Module m:battery]\np=1\n", NULL, FALSE, TRUE, "" },
  /* an empty value leaves the parameter alone */
  { "empty-leaves-alone", module_config, "[Module snd_hda_intel:battery]\npower_save=\n", TRUE, FALSE,
    "aaa/parameters/x=1 iwlwifi/parameters/power_save=1 "
    "snd_hda_intel/parameters/power_save_controller=Y" },
  { "empty-idle-sets-again", module_config, "[Module snd_hda_intel:battery]\npower_save=\n", TRUE, TRUE,
    "aaa/parameters/x=1 iwlwifi/parameters/power_save=1 snd_hda_intel/parameters/power_save=1 "
    "snd_hda_intel/parameters/power_save_controller=Y zzz/parameters/y=2 zzz/parameters/z=3" },
};

/* :low-battery for modules: between :battery and :idle, only on battery */
static const ModuleCase module_low_cases[] = {
  { "low-on-ac-not-used", "[Module m]\np=1\n[Module m:low-battery]\np=2\n", NULL, FALSE, FALSE,
    "m/parameters/p=1" },
  { "low-above-battery", "[Module m:battery]\np=1\n[Module m:low-battery]\np=2\n", NULL, TRUE, FALSE,
    "m/parameters/p=2" },
  { "idle-above-low", "[Module m:idle]\np=3\n[Module m:low-battery]\np=2\n", NULL, TRUE, TRUE,
    "m/parameters/p=3" },
};

static void
test_modules_low (void **state)
{
  State *st = *state;
  const ModuleCase *c = st->row;
  PpSituation situation = { c->battery, c->idle, TRUE };
  g_autoptr(GPtrArray) settings = NULL;
  g_autofree char *actual = NULL;

  load_config (st, c->config);
  settings = pp_policy_module_settings (st->config, &situation);
  actual = join_settings (settings);
  if (!g_str_equal (actual, c->expected))
    fail_msg ("expected\n  '%s'\ngot\n  '%s'", c->expected, actual);
}

static void
test_modules (void **state)
{
  State *st = *state;
  const ModuleCase *c = st->row;
  PpSituation situation = { c->battery, c->idle };
  g_autoptr(GPtrArray) settings = NULL;
  g_autofree char *actual = NULL;

  load_config (st, c->config);
  if (c->dropin)
    load_config (st, c->dropin);
  settings = pp_policy_module_settings (st->config, &situation);
  actual = join_settings (settings);
  if (!g_str_equal (actual, c->expected))
    fail_msg ("expected\n  '%s'\ngot\n  '%s'", c->expected, actual);
}

/* ---- power source ------------------------------------------------------------------ */

#define MAX_SUPPLIES 4

typedef struct {
  const char         *name;
  PpPowerSupplyFacts  supplies[MAX_SUPPLIES];
  gsize               n;
  gboolean            on_battery;
} SupplyCase;

#define AC(online)      { "Mains", online, NULL }
#define USBSUP(online)  { "USB", online, NULL }
#define BAT             { "Battery", -1, "System" }
#define BAT_NOSCOPE     { "Battery", -1, NULL }
#define BAT_DEVICE      { "Battery", -1, "Device" }

static const SupplyCase supply_cases[] = {
  { "no-supplies", { { NULL, 0, NULL } }, 0, FALSE },
  { "ac-online-battery", { AC (1), BAT }, 2, FALSE },
  { "ac-offline-battery", { AC (0), BAT }, 2, TRUE },
  { "battery-before-ac-online", { BAT, AC (1) }, 2, FALSE },
  { "battery-before-ac-offline", { BAT, AC (0) }, 2, TRUE },
  { "battery-only-no-adapter", { BAT }, 1, TRUE },
  { "battery-without-scope", { BAT_NOSCOPE }, 1, TRUE },
  { "battery-scope-unknown", { { "Battery", -1, "Unknown" } }, 1, TRUE },
  { "two-batteries-ac-offline", { BAT, AC (0), BAT_NOSCOPE }, 3, TRUE },
  { "ac-unknown-counts-as-ac", { AC (-1), BAT }, 2, FALSE },
  { "ac-only-online", { AC (1) }, 1, FALSE },
  { "ac-only-offline", { AC (0) }, 1, FALSE },
  { "usb-online-battery", { AC (0), USBSUP (1), BAT }, 3, FALSE },
  { "usb-unknown-battery", { USBSUP (-1), BAT }, 2, FALSE },
  { "usb-offline-ac-offline-battery", { USBSUP (0), AC (0), BAT }, 3, TRUE },
  { "one-of-two-adapters-online", { AC (0), AC (1), BAT }, 3, FALSE },
  { "mouse-battery-only", { BAT_DEVICE }, 1, FALSE },
  { "mouse-battery-ac-offline", { AC (0), BAT_DEVICE }, 2, FALSE },
  { "mouse-and-system-battery", { BAT_DEVICE, AC (0), BAT }, 3, TRUE },
  { "ups-only", { { "UPS", 0, NULL } }, 1, FALSE },
  { "ups-and-battery-ac-offline", { { "UPS", 1, NULL }, AC (0), BAT }, 3, TRUE },
  { "unknown-type-ignored", { { "Wireless", 0, NULL }, BAT }, 2, TRUE },
  { "null-type-ignored", { { NULL, 1, NULL }, BAT }, 2, TRUE },
  { "n-limits-the-array", { BAT, AC (1) }, 1, TRUE },
};

static void
test_on_battery (void **state)
{
  State *st = *state;
  const SupplyCase *c = st->row;

  assert_int_equal (pp_policy_on_battery (c->supplies, c->n), c->on_battery);
}

static void
test_on_battery_null (void **state)
{
  assert_false (pp_policy_on_battery (NULL, 0));
}

/* ---- the cascade, every combination ----------------------------------------- */

/* The eight sections of a device of subsystem usb and class webcam, in
 * cascade order: for each layer the subsystem, then the class. */
static const struct {
  const char     *section;
  PpLayer         layer;
  PpSettingSource source;
} cascade_order[] = {
  { "usb",                PP_LAYER_BASE,        PP_SOURCE_CLASS },
  { "webcam",             PP_LAYER_BASE,        PP_SOURCE_CLASS },
  { "usb:battery",        PP_LAYER_BATTERY,     PP_SOURCE_BATTERY },
  { "webcam:battery",     PP_LAYER_BATTERY,     PP_SOURCE_BATTERY },
  { "usb:low-battery",    PP_LAYER_LOW_BATTERY, PP_SOURCE_LOW_BATTERY },
  { "webcam:low-battery", PP_LAYER_LOW_BATTERY, PP_SOURCE_LOW_BATTERY },
  { "usb:idle",           PP_LAYER_IDLE,        PP_SOURCE_IDLE },
  { "webcam:idle",        PP_LAYER_IDLE,        PP_SOURCE_IDLE },
};

static gboolean
layer_active (PpLayer layer, gboolean battery, gboolean low, gboolean idle)
{
  return layer == PP_LAYER_BASE || (layer == PP_LAYER_BATTERY && battery) ||
         (layer == PP_LAYER_LOW_BATTERY && battery && low) || (layer == PP_LAYER_IDLE && idle);
}

/* Every subset of the eight sections setting AutosuspendDelayMs (to its
 * index + 1), written to the file in reverse order (file order does not
 * matter), in every situation, for a webcam and for a plain USB device
 * (whose class is its subsystem: only the usb sections): the winner is
 * the last section in cascade order that is in the subset and whose
 * layer applies, and Explain names it. */
static void
test_cascade_exhaustive (void **state)
{
  State *st = *state;
  const char *webcam_props[] = { "POWERPOLICY_CLASS=webcam", NULL };
  const char *usb_props[] = { NULL };

  for (guint mask = 0; mask < 256; mask++)
    {
      g_autoptr(GString) text = g_string_new (NULL);
      g_autoptr(PpConfig) config = pp_config_new ();
      g_autoptr(GPtrArray) problems = pp_config_problems_new ();

      for (guint i = G_N_ELEMENTS (cascade_order); i > 0; i--)
        if (mask & (1u << (i - 1)))
          g_string_append_printf (text, "[Class %s]\nAutosuspendDelayMs=%u\n",
                                  cascade_order[i - 1].section, i);
      pp_config_load_data (config, "c.conf", text->str, text->len, problems);
      assert_int_equal (problems->len, 0);

      for (guint sit = 0; sit < 8; sit++)
        for (guint dev = 0; dev < 2; dev++)
          {
            gboolean battery = sit & 1, low = (sit >> 1) & 1, idle = (sit >> 2) & 1;
            PpSituation situation = { battery, idle, low };
            PpDeviceProps props;
            g_autoptr(PpDecision) d = NULL;
            g_autoptr(GPtrArray) rows = NULL;
            const PpExplainRow *row;
            int winner = -1;

            for (guint i = 0; i < G_N_ELEMENTS (cascade_order); i++)
              {
                if (dev == 1 && !g_str_has_prefix (cascade_order[i].section, "usb"))
                  continue;
                if ((mask & (1u << i)) && layer_active (cascade_order[i].layer, battery, low, idle))
                  winner = (int) i;
              }
            pp_device_props_init (&props, "usb", lookup_props,
                                  dev == 0 ? (gpointer) webcam_props : (gpointer) usb_props, NULL);
            d = pp_policy_decide (config, &props, &situation, NULL);
            rows = pp_policy_explain (config, &props, d);
            pp_device_props_clear (&props);
            row = g_ptr_array_index (rows, 1);
            assert_string_equal (row->attribute, PP_ATTR_DELAY);
            if (winner < 0)
              {
                if (d->settings->len != 0)
                  fail_msg ("mask %#x situation %u device %u: expected nothing", mask, sit, dev);
                assert_string_equal (row->decided, "");
                continue;
              }
            {
              const PpSetting *s;
              g_autofree char *value = g_strdup_printf ("%d", winner + 1);
              g_autofree char *section = g_strdup_printf ("[Class %s]", cascade_order[winner].section);

              if (d->settings->len != 1)
                fail_msg ("mask %#x situation %u device %u: %u settings", mask, sit, dev,
                          d->settings->len);
              s = g_ptr_array_index (d->settings, 0);
              if (!g_str_equal (s->value, value))
                fail_msg ("mask %#x situation %u (battery %d low %d idle %d) device %u: expected %s from %s, got %s (%s)",
                          mask, sit, battery, low, idle, dev, value, section, s->value, s->origin);
              assert_int_equal (s->source, cascade_order[winner].source);
              assert_string_equal (row->decided, value);
              assert_string_equal (row->layer, pp_setting_source_to_string (cascade_order[winner].source));
              if (!g_str_has_prefix (row->origin, "c.conf:") || !g_str_has_suffix (row->origin, section))
                fail_msg ("origin '%s' does not name c.conf and %s", row->origin, section);
            }
          }
    }
  (void) st;
}

/* Explain names the section an empty assignment came from, and the
 * sections that do not set an attribute. */
static void
test_explain_cascade (void **state)
{
  State *st = *state;
  const char text[] =
    "[Class pci]\n"            /* 1 */
    "Control=on\n"             /* 2 */
    "[Class pci:battery]\n"    /* 3 */
    "Control=auto\n"           /* 4 */
    "[Class pci-gpu]\n"        /* 5 */
    "Control=\n"               /* 6 */
    "[Class pci-gpu:battery]\n"/* 7 */
    "Control=\n"               /* 8 */
    "[Class usb]\n"            /* 9 */
    "Wakeup=enabled\n";        /* 10 */
  const char *gpu[] = { "POWERPOLICY_CLASS=pci-gpu", NULL };
  const char *cam[] = { "POWERPOLICY_CLASS=webcam", NULL };
  const char *net[] = { "POWERPOLICY_CLASS=net", NULL };
  PpSituation battery = { TRUE, FALSE, FALSE };
  PpDeviceProps props;
  g_autoptr(PpDecision) d = NULL;
  g_autoptr(PpDecision) d2 = NULL;
  g_autoptr(PpDecision) d3 = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) rows2 = NULL;
  g_autoptr(GPtrArray) rows3 = NULL;
  const PpExplainRow *r;

  load_config (st, text);
  pp_device_props_init (&props, "pci", lookup_props, gpu, NULL);
  d = pp_policy_decide (st->config, &props, &battery, NULL);
  rows = pp_policy_explain (st->config, &props, d);
  pp_device_props_clear (&props);
  assert_int_equal (d->settings->len, 0);
  r = g_ptr_array_index (rows, 0);
  assert_string_equal (r->decided, "");
  assert_string_equal (r->layer, "own");
  assert_string_equal (r->origin, "left alone by test.conf:8 [Class pci-gpu:battery]");
  r = g_ptr_array_index (rows, 1);
  assert_string_equal (r->origin, "not set by [Class pci] or [Class pci-gpu]");

  pp_device_props_init (&props, "usb", lookup_props, cam, NULL);
  d2 = pp_policy_decide (st->config, &props, &battery, NULL);
  rows2 = pp_policy_explain (st->config, &props, d2);
  pp_device_props_clear (&props);
  r = g_ptr_array_index (rows2, 0);
  assert_string_equal (r->origin, "not set by [Class usb]");
  r = g_ptr_array_index (rows2, 2);
  assert_string_equal (r->decided, "enabled");
  assert_string_equal (r->origin, "test.conf:10 [Class usb]");

  pp_device_props_init (&props, "input", lookup_props, net, NULL);
  d3 = pp_policy_decide (st->config, &props, &battery, NULL);
  rows3 = pp_policy_explain (st->config, &props, d3);
  pp_device_props_clear (&props);
  r = g_ptr_array_index (rows3, 0);
  assert_string_equal (r->origin, "no [Class input] or [Class net] section");
}

/* An empty assignment is the device's own value: what the journal
 * recorded before the daemon first wrote the attribute comes back when
 * the layer that changed it no longer applies; an attribute the daemon
 * never wrote is left alone. */
static const char *
own_journal_lookup (gpointer user_data, const char *relpath)
{
  return g_hash_table_lookup (user_data, relpath);
}

static void
test_explain_own_value (void **state)
{
  State *st = *state;
  static const char text[] =
    "[Class pci]\n"            /* 1 */
    "Control=\n"               /* 2 */
    "AutosuspendDelayMs=\n"    /* 3 */
    "Attr.x=\n"                /* 4 */
    "[Class pci:battery]\n"    /* 5 */
    "Control=auto\n"           /* 6 */
    "Attr.x=1\n";              /* 7 */
  PpSituation ac = { FALSE, FALSE, FALSE };
  PpSituation battery = { TRUE, FALSE, FALSE };
  g_autoptr(GHashTable) journal = g_hash_table_new (g_str_hash, g_str_equal);
  PpDeviceState dstate = { 0 };
  PpDeviceProps props;
  const char *none[] = { NULL };
  g_autoptr(PpDecision) on_ac = NULL;
  g_autoptr(PpDecision) on_batt = NULL;
  g_autoptr(PpDecision) fresh = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) fresh_rows = NULL;
  g_autofree char *joined = NULL;
  const PpExplainRow *r;

  load_config (st, text);
  /* the :battery layer wrote control and x: their originals */
  g_hash_table_insert (journal, (gpointer) PP_ATTR_CONTROL, (gpointer) "on");
  g_hash_table_insert (journal, (gpointer) "x", (gpointer) "0");
  dstate.original = own_journal_lookup;
  dstate.original_data = journal;
  pp_device_props_init (&props, "pci", lookup_props, none, NULL);

  on_batt = pp_policy_decide (st->config, &props, &battery, &dstate);
  joined = join_settings (on_batt->settings);
  assert_string_equal (joined, "x=1 power/control=auto");
  g_clear_pointer (&joined, g_free);

  /* back on AC: both go back to the device's own values, layer own */
  on_ac = pp_policy_decide (st->config, &props, &ac, &dstate);
  joined = join_settings (on_ac->settings);
  assert_string_equal (joined, "x=0 power/control=on");
  for (guint i = 0; i < on_ac->settings->len; i++)
    assert_int_equal (((PpSetting *) g_ptr_array_index (on_ac->settings, i))->source,
                      PP_SOURCE_OWN);
  rows = pp_policy_explain (st->config, &props, on_ac);
  r = g_ptr_array_index (rows, 0);
  assert_string_equal (r->attribute, PP_ATTR_CONTROL);
  assert_string_equal (r->decided, "on");
  assert_string_equal (r->layer, "own");
  assert_string_equal (r->origin, "test.conf:2 [Class pci]");
  /* the delay was never written: nothing decided */
  r = g_ptr_array_index (rows, 1);
  assert_string_equal (r->attribute, PP_ATTR_DELAY);
  assert_string_equal (r->decided, "");
  assert_string_equal (r->layer, "own");
  assert_string_equal (r->origin, "left alone by test.conf:3 [Class pci]");
  r = g_ptr_array_index (rows, 3);
  assert_string_equal (r->attribute, "x");
  assert_string_equal (r->decided, "0");
  assert_string_equal (r->layer, "own");

  /* nothing journalled (the daemon never wrote them): left alone */
  fresh = pp_policy_decide (st->config, &props, &ac, NULL);
  assert_int_equal (fresh->settings->len, 0);
  fresh_rows = pp_policy_explain (st->config, &props, fresh);
  r = g_ptr_array_index (fresh_rows, 0);
  assert_string_equal (r->decided, "");
  assert_string_equal (r->layer, "own");
  pp_device_props_clear (&props);

  /* an attribute no layer mentions (an override since cleared wrote it):
   * back to its own value too */
  {
    g_autoptr(PpDecision) unset = NULL;
    g_autoptr(GPtrArray) unset_rows = NULL;

    pp_device_props_init (&props, "foo", lookup_props, none, NULL);
    unset = pp_policy_decide (st->config, &props, &ac, &dstate);
    g_clear_pointer (&joined, g_free);
    joined = join_settings (unset->settings);
    assert_string_equal (joined, "power/control=on");
    unset_rows = pp_policy_explain (st->config, &props, unset);
    pp_device_props_clear (&props);
    r = g_ptr_array_index (unset_rows, 0);
    assert_string_equal (r->decided, "on");
    assert_string_equal (r->layer, "own");
    assert_string_equal (r->origin, "no [Class foo] section");
    r = g_ptr_array_index (unset_rows, 1);
    assert_string_equal (r->decided, "");
    assert_string_equal (r->layer, "own");
  }
}

/* With PowerSource= fixing the source, the :battery layer says so. */
static void
test_explain_forced_battery (void **state)
{
  State *st = *state;
  PpSituation forced = { TRUE, FALSE, FALSE };
  PpDeviceProps props;
  const char *none[] = { NULL };
  g_autoptr(PpDecision) d = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  const PpExplainRow *r;

  forced.power_source_origin = "PowerSource=battery a.conf:3";
  load_config (st, explain_config);
  pp_device_props_init (&props, "usb", lookup_props, none, NULL);
  d = pp_policy_decide (st->config, &props, &forced, NULL);
  rows = pp_policy_explain (st->config, &props, d);
  pp_device_props_clear (&props);
  r = g_ptr_array_index (rows, 1);
  assert_string_equal (r->decided, "1000");
  assert_string_equal (r->layer, "battery");
  assert_string_equal (r->origin,
                       "test.conf:5 [Class usb:battery], on battery by PowerSource=battery a.conf:3");
  /* the base layer is no battery layer */
  r = g_ptr_array_index (rows, 0);
  assert_string_equal (r->origin, "test.conf:2 [Class usb]");
}

/* ---- ExcludeDrivers= through the cascade ------------------------------------ */

typedef struct {
  const char *name;
  const char *config;
  const char *subsystem;
  const char *klass;               /* NULL: the subsystem */
  const char *driver;
  const char *skip_origin;         /* NULL: not excluded */
  const char *expected;            /* settings when not excluded */
} ExcludeCase;

static const ExcludeCase exclude_cases[] = {
  { "subsystem-list-reaches-class", "[Class pci]\nExcludeDrivers=nouveau amdgpu\n[Class pci-gpu]\nControl=auto\n",
    "pci", "pci-gpu", "amdgpu", "driver amdgpu excluded by test.conf:2 [Class pci]", NULL },
  { "subsystem-list-other-driver", "[Class pci]\nExcludeDrivers=nouveau amdgpu\n[Class pci-gpu]\nControl=auto\n",
    "pci", "pci-gpu", "i915", NULL, "power/control=auto" },
  { "subsystem-list-device-of-subsystem", "[Class pci]\nControl=on\nExcludeDrivers=mei_me\n",
    "pci", NULL, "mei_me", "driver mei_me excluded by test.conf:3 [Class pci]", NULL },
  { "class-list-replaces", "[Class pci]\nExcludeDrivers=nouveau\n[Class pci-gpu]\nExcludeDrivers=amdgpu\nControl=auto\n",
    "pci", "pci-gpu", "nouveau", NULL, "power/control=auto" },
  { "class-list-own-driver", "[Class pci]\nExcludeDrivers=nouveau\n[Class pci-gpu]\nExcludeDrivers=amdgpu\nControl=auto\n",
    "pci", "pci-gpu", "amdgpu", "driver amdgpu excluded by test.conf:4 [Class pci-gpu]", NULL },
  { "class-empty-list-cancels", "[Class pci]\nExcludeDrivers=nouveau\n[Class pci-gpu]\nExcludeDrivers=\nControl=auto\n",
    "pci", "pci-gpu", "nouveau", NULL, "power/control=auto" },
  { "class-without-key-inherits", "[Class pci]\nExcludeDrivers=xhci_hcd\n[Class pci-usb]\nControl=auto\n",
    "pci", "pci-usb", "xhci_hcd", "driver xhci_hcd excluded by test.conf:2 [Class pci]", NULL },
  { "class-without-section-inherits", "[Class pci]\nExcludeDrivers=xhci_hcd\n",
    "pci", "pci-usb", "xhci_hcd", "driver xhci_hcd excluded by test.conf:2 [Class pci]", NULL },
  { "not-across-subsystems", "[Class pci]\nExcludeDrivers=btusb\n[Class bluetooth]\nControl=on\n",
    "usb", "bluetooth", "btusb", NULL, "power/control=on" },
  { "no-driver", "[Class pci]\nExcludeDrivers=nouveau\n[Class pci-gpu]\nControl=auto\n",
    "pci", "pci-gpu", NULL, NULL, "power/control=auto" },
  { "dropin-subsystem-list-replaced", "[Class pci]\nExcludeDrivers=nouveau\n[Class pci]\nExcludeDrivers=radeon\n",
    "pci", "pci-gpu", "nouveau", NULL, "" },
};

static void
test_exclude_cascade (void **state)
{
  State *st = *state;
  const ExcludeCase *c = st->row;
  g_autofree char *klass = c->klass ? g_strdup_printf ("POWERPOLICY_CLASS=%s", c->klass) : NULL;
  const char *props_list[] = { klass, NULL };
  PpSituation situation = { FALSE, FALSE, FALSE };
  PpDeviceState dstate = { NULL, FALSE, FALSE, NULL, c->driver };
  PpDeviceProps props;
  g_autoptr(PpDecision) d = NULL;
  g_autofree char *actual = NULL;

  pp_config_load_data (st->config, "test.conf", c->config, strlen (c->config), st->problems);
  pp_device_props_init (&props, c->subsystem, lookup_props, props_list, NULL);
  d = pp_policy_decide (st->config, &props, &situation, &dstate);
  pp_device_props_clear (&props);
  if (c->skip_origin != NULL)
    {
      assert_int_equal (d->skipped, PP_SOURCE_EXCLUDED);
      assert_string_equal (d->skip_origin, c->skip_origin);
      assert_int_equal (d->settings->len, 0);
      return;
    }
  assert_int_equal (d->skipped, PP_SOURCE_NONE);
  actual = join_settings (d->settings);
  assert_string_equal (actual, c->expected);
}

/* ---- battery charge and the low-battery layer ------------------------------- */

#define NA (-1)

typedef struct {
  const char     *name;
  PpBatteryFacts  batteries[3];
  gsize           n;
  gint            percent;
} PercentCase;

static const PercentCase percent_cases[] = {
  { "none", { { NULL, NA, NA, NA, NA, NA } }, 0, -1 },
  { "capacity-only", { { "System", 42, NA, NA, NA, NA } }, 1, 42 },
  { "energy-beats-capacity", { { "System", 42, 15000000, 50000000, NA, NA } }, 1, 30 },
  { "charge", { { NULL, NA, NA, NA, 2000000, 4000000 } }, 1, 50 },
  { "energy-rounds", { { NULL, NA, 1995, 10000, NA, NA } }, 1, 20 },
  { "now-above-full-clamped", { { NULL, NA, 60, 50, NA, NA } }, 1, 100 },
  { "capacity-above-100-clamped", { { NULL, 104, NA, NA, NA, NA } }, 1, 100 },
  { "nothing-readable", { { "System", NA, NA, NA, NA, NA } }, 1, -1 },
  { "full-zero-not-used", { { "System", 7, 5, 0, NA, NA } }, 1, 7 },
  /* two batteries (a ThinkPad's internal and external one): combined
   * energy, not the mean of the percentages (10% of 24 Wh + 90% of 72 Wh) */
  { "two-combined-energy", { { "System", 10, 2400000, 24000000, NA, NA },
                             { "System", 90, 64800000, 72000000, NA, NA } }, 2, 70 },
  { "two-combined-charge", { { NULL, NA, NA, NA, 100000, 2000000 },
                             { NULL, NA, NA, NA, 1900000, 2000000 } }, 2, 50 },
  { "two-mixed-mean-capacity", { { NULL, 10, 2400000, 24000000, NA, NA },
                                 { NULL, 31, NA, NA, 1900000, 2000000 } }, 2, 20 },
  { "two-one-unknown", { { NULL, 10, NA, NA, NA, NA }, { NULL, NA, NA, NA, NA, NA } }, 2, -1 },
  { "device-scope-ignored", { { "Device", 5, NA, NA, NA, NA }, { "System", 80, NA, NA, NA, NA } }, 2, 80 },
  { "only-device-scope", { { "Device", 5, NA, NA, NA, NA } }, 1, -1 },
  { "empty", { { "System", 0, 0, 50000000, NA, NA } }, 1, 0 },
};

static void
test_battery_percent (void **state)
{
  State *st = *state;
  const PercentCase *c = st->row;

  assert_int_equal (pp_policy_battery_percent (c->batteries, c->n), c->percent);
}

static void
test_low_battery (void **state)
{
  /* at or below the threshold, on battery, charge known */
  assert_true (pp_policy_low_battery (TRUE, 20, 20));
  assert_true (pp_policy_low_battery (TRUE, 0, 20));
  assert_false (pp_policy_low_battery (TRUE, 21, 20));
  assert_false (pp_policy_low_battery (FALSE, 5, 20));
  assert_false (pp_policy_low_battery (TRUE, -1, 20));
  assert_true (pp_policy_low_battery (TRUE, 0, 0));
  assert_false (pp_policy_low_battery (TRUE, 1, 0));
  assert_true (pp_policy_low_battery (TRUE, 100, 100));
}

/* ---- [Sleep] by power source -------------------------------------------------- */

typedef struct {
  const char *name;
  const char *config;
  gboolean    battery;
  gboolean    low;
  gboolean    hibernate;
  const char *value;
  const char *layer;
} SleepCase;

#define SLEEP_LAYERS "[Sleep]\nMemSleep=deep\nHibernateMode=platform\n" \
                     "[Sleep:battery]\nMemSleep=s2idle\n[Sleep:low-battery]\nHibernateMode=shutdown\n"

static const SleepCase sleep_cases[] = {
  { "default", "", FALSE, FALSE, FALSE, "auto", "Sleep" },
  { "default-battery", "", TRUE, TRUE, FALSE, "auto", "Sleep" },
  { "ac", SLEEP_LAYERS, FALSE, FALSE, FALSE, "deep", "Sleep" },
  { "ac-low-flag-ignored", SLEEP_LAYERS, FALSE, TRUE, FALSE, "deep", "Sleep" },
  { "battery", SLEEP_LAYERS, TRUE, FALSE, FALSE, "s2idle", "Sleep:battery" },
  { "low-battery-falls-to-battery", SLEEP_LAYERS, TRUE, TRUE, FALSE, "s2idle", "Sleep:battery" },
  { "hibernate-ac", SLEEP_LAYERS, FALSE, FALSE, TRUE, "platform", "Sleep" },
  { "hibernate-battery-falls-to-base", SLEEP_LAYERS, TRUE, FALSE, TRUE, "platform", "Sleep" },
  { "hibernate-low-battery", SLEEP_LAYERS, TRUE, TRUE, TRUE, "shutdown", "Sleep:low-battery" },
  { "low-battery-only", "[Sleep:low-battery]\nMemSleep=s2idle\n", TRUE, TRUE, FALSE, "s2idle",
    "Sleep:low-battery" },
  { "battery-only-layer-on-ac", "[Sleep:battery]\nMemSleep=shallow\n", FALSE, FALSE, FALSE, "auto",
    "Sleep" },
};

static void
test_sleep_mode (void **state)
{
  State *st = *state;
  const SleepCase *c = st->row;
  PpSituation situation = { c->battery, FALSE, c->low };
  const char *layer = NULL;

  load_config (st, c->config);
  assert_string_equal (pp_policy_sleep_mode (st->config, &situation, c->hibernate, &layer), c->value);
  assert_string_equal (layer, c->layer);
  assert_string_equal (pp_policy_sleep_mode (st->config, &situation, c->hibernate, NULL), c->value);
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (guint i = 0; i < G_N_ELEMENTS (device_cases); i++)
    pp_test_list_add (list, "device", device_cases[i].name, test_device_settings, setup, teardown,
                      &device_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (props_cases); i++)
    pp_test_list_add (list, "props", props_cases[i].name, test_props, setup, teardown,
                      &props_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (module_cases); i++)
    pp_test_list_add (list, "module", module_cases[i].name, test_modules, setup, teardown,
                      &module_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (module_low_cases); i++)
    pp_test_list_add (list, "module-low-battery", module_low_cases[i].name, test_modules_low, setup,
                      teardown, &module_low_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (supply_cases); i++)
    pp_test_list_add (list, "on-battery", supply_cases[i].name, test_on_battery, setup, teardown,
                      &supply_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (explain_cases); i++)
    pp_test_list_add (list, "explain", explain_cases[i].name, test_explain, setup, teardown,
                      &explain_cases[i]);
  pp_test_list_add (list, "explain", "source-names", test_source_names, setup, teardown, NULL);
  pp_test_list_add (list, "explain", "origin-without-file", test_explain_origin_without_file,
                    setup, teardown, NULL);
  pp_test_list_add (list, "device", "pure", test_device_settings_pure, setup, teardown, NULL);
  pp_test_list_add (list, "revert", "layer", test_revert_layer, setup, teardown, NULL);
  pp_test_list_add (list, "on-battery", "null", test_on_battery_null, setup, teardown, NULL);
  pp_test_list_add (list, "cascade", "exhaustive", test_cascade_exhaustive, setup, teardown, NULL);
  pp_test_list_add (list, "explain", "cascade", test_explain_cascade, setup, teardown, NULL);
  pp_test_list_add (list, "explain", "own-value", test_explain_own_value, setup, teardown, NULL);
  pp_test_list_add (list, "explain", "forced-battery", test_explain_forced_battery, setup, teardown,
                    NULL);
  for (guint i = 0; i < G_N_ELEMENTS (exclude_cases); i++)
    pp_test_list_add (list, "exclude-cascade", exclude_cases[i].name, test_exclude_cascade, setup,
                      teardown, &exclude_cases[i]);
  for (guint i = 0; i < G_N_ELEMENTS (percent_cases); i++)
    pp_test_list_add (list, "battery-percent", percent_cases[i].name, test_battery_percent, setup,
                      teardown, &percent_cases[i]);
  pp_test_list_add (list, "low-battery", "threshold", test_low_battery, setup, teardown, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (sleep_cases); i++)
    pp_test_list_add (list, "sleep-mode", sleep_cases[i].name, test_sleep_mode, setup, teardown,
                      &sleep_cases[i]);

  return pp_test_list_run (list, "policy");
}
