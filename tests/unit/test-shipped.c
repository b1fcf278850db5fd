/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shipped data/powerpolicy.conf under the class cascade
 * (powerpolicy.conf(5), LAYERS): the safety defaults hold against any drop-in
 * for the whole USB subsystem, in every layer and situation; GPUs and hubs keep
 * what their drivers set; the driver denylist reaches every PCI class. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-config.h"
#include "pp-policy.h"
#include "pp-usbclass.h"

/* An administrator's drop-in that wants every USB device autosuspended,
 * in every layer. */
static const char usb_everywhere[] =
  "[Class usb]\nControl=auto\nAutosuspendDelayMs=0\n"
  "[Class usb:battery]\nControl=auto\n"
  "[Class usb:low-battery]\nControl=auto\n"
  "[Class usb:idle]\nControl=auto\n";

/* The classes that must never be runtime-suspended (TLP's USB_EXCLUDE_*
 * list, scanners, CDC-ACM serial devices, smart-card readers). */
static const char * const safety_classes[] = {
  PP_USB_CLASS_KEYBOARD, PP_USB_CLASS_MOUSE, PP_USB_CLASS_HID, PP_USB_CLASS_AUDIO,
  PP_USB_CLASS_BLUETOOTH, PP_USB_CLASS_WWAN, PP_USB_CLASS_PRINTER, PP_USB_CLASS_PHONE,
  PP_USB_CLASS_SCANNER, PP_USB_CLASS_SERIAL, PP_USB_CLASS_SMARTCARD,
};

typedef struct {
  const char *row;
  PpConfig   *config;
} State;

static void
load_file (PpConfig *config, const char *path)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();

  if (!g_file_get_contents (path, &text, &length, &error))
    fail_msg ("cannot read %s: %s", path, error->message);
  pp_config_load_data (config, path, text, length, problems);
  if (problems->len > 0)
    {
      g_autofree char *p = pp_config_problem_to_string (g_ptr_array_index (problems, 0));
      fail_msg ("the shipped configuration has problems: %s", p);
    }
}

static void
load_text (PpConfig *config, const char *text)
{
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();

  pp_config_load_data (config, "50-local.conf", text, strlen (text), problems);
  assert_int_equal (problems->len, 0);
}

static int
setup (void **state)
{
  State *st = g_new0 (State, 1);

  st->row = *state;
  st->config = pp_config_new ();
  load_file (st->config, PP_TEST_SHIPPED_CONFIG);
  *state = st;
  return 0;
}

static int
teardown (void **state)
{
  State *st = *state;

  pp_config_free (st->config);
  g_free (st);
  return 0;
}

static const char *
lookup_class (gpointer user_data, const char *key)
{
  return g_str_equal (key, "POWERPOLICY_CLASS") ? user_data : NULL;
}

/* The decision for a device of @subsystem and @klass (NULL: the
 * subsystem) in situation @sit (bit 0 battery, 1 low battery, 2 idle). */
static PpDecision *
decide (const PpConfig *config, const char *subsystem, const char *klass, guint sit,
        const char *driver)
{
  PpSituation situation = { sit & 1, (sit >> 2) & 1, (sit >> 1) & 1 };
  PpDeviceState state = { NULL, FALSE, FALSE, NULL, driver };
  PpDeviceProps props;
  PpDecision *d;

  pp_device_props_init (&props, subsystem, lookup_class, (gpointer) klass, NULL);
  d = pp_policy_decide (config, &props, &situation, &state);
  pp_device_props_clear (&props);
  return d;
}

static const char *
decided (const PpDecision *d, const char *key)
{
  for (guint i = 0; i < d->settings->len; i++)
    {
      const PpSetting *s = g_ptr_array_index (d->settings, i);
      if (g_str_equal (s->key, key))
        return s->value;
    }
  return NULL;
}

/* Each safety class stays on in every situation, with the shipped file
 * alone and with a drop-in that sets Control=auto for every USB device
 * in every layer; the same drop-in does reach a USB device of no safety
 * class (so the check can fail). */
static void
test_safety_class (void **state)
{
  State *st = *state;

  for (guint pass = 0; pass < 2; pass++)
    {
      if (pass == 1)
        load_text (st->config, usb_everywhere);
      for (guint sit = 0; sit < 8; sit++)
        {
          g_autoptr(PpDecision) d = decide (st->config, "usb", st->row, sit, "usb");
          g_autoptr(PpDecision) plain = decide (st->config, "usb", "usb-unclassified", sit, "usb");
          const char *control = decided (d, PP_ATTR_CONTROL);

          if (g_strcmp0 (control, "on") != 0)
            fail_msg ("%s in situation %u (%s): power/control=%s", st->row, sit,
                      pass ? "with the drop-in" : "shipped", control ? control : "(left alone)");
          assert_string_equal (decided (plain, PP_ATTR_CONTROL), "auto");
          /* on battery [Class usb:battery] of the shipped file beats
           * the drop-in's base layer */
          if (pass == 1 && !(sit & 1))
            assert_string_equal (decided (plain, PP_ATTR_DELAY), "0");
        }
    }
}

/* GPUs other than the denylisted drivers' keep power/control as their
 * driver set it, even under a drop-in for every PCI device; denylisted
 * drivers are left alone in every class of the subsystem. */
static void
test_gpu_and_denylist (void **state)
{
  State *st = *state;
  static const char * const denied[] = { "mei_me", "nouveau", "radeon", "xhci_hcd", "amdgpu", "nvidia" };

  load_text (st->config, "[Class pci]\nControl=auto\n[Class pci:low-battery]\nControl=auto\n");
  for (guint sit = 0; sit < 8; sit++)
    {
      g_autoptr(PpDecision) gpu = decide (st->config, "pci", "pci-gpu", sit, "i915");
      g_autoptr(PpDecision) wifi = decide (st->config, "pci", NULL, sit, "iwlwifi");

      assert_null (decided (gpu, PP_ATTR_CONTROL));
      assert_int_equal (gpu->skipped, PP_SOURCE_NONE);
      assert_string_equal (decided (wifi, PP_ATTR_CONTROL), "auto");
      for (guint i = 0; i < G_N_ELEMENTS (denied); i++)
        {
          static const char * const classes[] = { NULL, "pci-gpu", "pci-audio", "nvme", "pci-net", "pci-other" };

          for (guint c = 0; c < G_N_ELEMENTS (classes); c++)
            {
              g_autoptr(PpDecision) d = decide (st->config, "pci", classes[c], sit, denied[i]);
              if (d->skipped != PP_SOURCE_EXCLUDED)
                fail_msg ("driver %s in class %s not excluded", denied[i], classes[c] ? classes[c] : "pci");
              assert_non_null (strstr (d->skip_origin, "[Class pci]"));
            }
        }
    }
}

/* Hubs keep the kernel's delay (0) in every situation; other USB
 * classes get the cascaded delays. */
static void
test_hub_delay (void **state)
{
  State *st = *state;

  for (guint sit = 0; sit < 8; sit++)
    {
      g_autoptr(PpDecision) hub = decide (st->config, "usb", PP_USB_CLASS_HUB, sit, "usb");
      g_autoptr(PpDecision) cam = decide (st->config, "usb", PP_USB_CLASS_WEBCAM, sit, "usb");

      assert_string_equal (decided (hub, PP_ATTR_CONTROL), "auto");
      assert_null (decided (hub, PP_ATTR_DELAY));
      assert_non_null (decided (cam, PP_ATTR_DELAY));
    }
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (guint i = 0; i < G_N_ELEMENTS (safety_classes); i++)
    pp_test_list_add (list, "safety", safety_classes[i], test_safety_class, setup, teardown,
                      safety_classes[i]);
  pp_test_list_add (list, "pci", "gpu-and-denylist", test_gpu_and_denylist, setup, teardown, NULL);
  pp_test_list_add (list, "usb", "hub-delay", test_hub_delay, setup, teardown, NULL);
  return pp_test_list_run (list, "shipped");
}
