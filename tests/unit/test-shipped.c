/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shipped data/powerpolicy.conf under the class cascade
 * (powerpolicy.conf(5), LAYERS): the safety defaults hold against any drop-in for
 * the whole USB subsystem, in every layer and situation; the classes
 * that keep their own value keep it under such a drop-in too; GPUs and
 * hubs keep what their drivers set; the driver denylist reaches every
 * PCI class. And never less than the system's own savings: no line
 * forces runtime PM off, and no module parameter saves less than
 * Debian's default, without a comment above it that names the hazard
 * and its source (docs/shipped-policy.md has the whole comparison). */
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

/* The classes that must never be runtime-suspended, each for a hazard
 * the configuration names: input devices, audio, printers (TLP's
 * exclusions), phones (charging), CDC-ACM serial devices (TLP #794). */
static const char * const safety_classes[] = {
  PP_USB_CLASS_KEYBOARD, PP_USB_CLASS_MOUSE, PP_USB_CLASS_HID, PP_USB_CLASS_AUDIO,
  PP_USB_CLASS_PRINTER, PP_USB_CLASS_PHONE, PP_USB_CLASS_SERIAL,
};

/* The classes that keep their own value in every layer: btusb enables
 * autosuspend itself (CONFIG_BT_HCIBTUSB_AUTOSUSPEND), SANE scanners are
 * left alone as TLP does, the CCID driver's udev rule enables it for
 * smart-card readers. */
static const char * const own_value_classes[] = {
  PP_USB_CLASS_BLUETOOTH, PP_USB_CLASS_SCANNER, PP_USB_CLASS_SMARTCARD,
};

/* A source reference in a comment: a URL, a TLP issue or setting, a
 * kernel commit, bug tracker or documentation file. */
#define SOURCE_PATTERN \
  "https?://|TLP #[0-9]+|TLP's [A-Z_]+=|TLP excludes|kernel commit [0-9a-f]{7,}|" \
  "bugzilla|Documentation/[a-z/_-]+\\.rst"

typedef struct {
  const char *row;
  PpConfig   *config;
  char      **lines;     /* the shipped file, line by line */
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
  {
    g_autofree char *text = NULL;

    if (!g_file_get_contents (PP_TEST_SHIPPED_CONFIG, &text, NULL, NULL))
      fail_msg ("cannot read %s", PP_TEST_SHIPPED_CONFIG);
    st->lines = g_strsplit (text, "\n", -1);
  }
  *state = st;
  return 0;
}

static int
teardown (void **state)
{
  State *st = *state;

  pp_config_free (st->config);
  g_strfreev (st->lines);
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

/* The comment that explains line @index (0-based) of the shipped file:
 * the comment lines of its paragraph (the lines since the last blank
 * line), joined; NULL when the paragraph has none. A group of sections
 * written without blank lines between them ([Class printer] ...
 * [Class printer:idle]) shares the comment above the first. */
static gboolean
line_is_blank (const char *line)
{
  return line[strspn (line, " \t\r")] == '\0';
}

static char *
paragraph_comment (char * const *lines, guint index)
{
  GString *comment = g_string_new (NULL);
  guint first = index;

  while (first > 0 && !line_is_blank (lines[first - 1]))
    first--;
  for (guint i = first; i < index; i++)
    if (lines[i][0] == '#')
      g_string_append_printf (comment, "%s\n", lines[i] + 1);
  if (comment->len == 0)
    {
      g_string_free (comment, TRUE);
      return NULL;
    }
  return g_string_free (comment, FALSE);
}

static gboolean
comment_names_source (const char *comment)
{
  /* a reference may be broken across comment lines: join them */
  g_autofree char *flat = NULL;
  g_auto(GStrv) words = NULL;

  if (comment == NULL)
    return FALSE;
  words = g_strsplit_set (comment, " \n", -1);
  flat = g_strjoinv (" ", words);
  return g_regex_match_simple (SOURCE_PATTERN, flat, 0, 0);
}

/* Does the line say the device's runtime PM is forced off? */
static gboolean
line_forces_on (const char *line)
{
  g_autofree char *copy = g_strstrip (g_strdup (line));

  return g_str_equal (copy, "Control=on") ||
         (g_str_has_prefix (copy, "Attr.") && g_str_has_suffix (copy, "power/control=on"));
}

/* Every line of the shipped file that forces runtime PM off has, above
 * it in its paragraph, a comment with a source reference; and the check
 * can fail: a paragraph without one is caught. */
static void
test_forced_on_names_hazard (void **state)
{
  State *st = *state;
  guint forced = 0;
  char bare0[] = "# no reason given", bare1[] = "[Class x]", bare2[] = "Control=on";
  char *bare[] = { bare0, bare1, bare2, NULL };
  g_autofree char *bare_comment = paragraph_comment (bare, 2);

  assert_true (line_forces_on (bare[2]));
  assert_false (comment_names_source (bare_comment));
  for (guint i = 0; st->lines[i] != NULL; i++)
    {
      g_autofree char *comment = NULL;

      if (!line_forces_on (st->lines[i]))
        continue;
      forced++;
      comment = paragraph_comment (st->lines, i);
      if (!comment_names_source (comment))
        fail_msg ("%s:%u: '%s' saves less than the device's own value, but the comment "
                  "above it names no source for a hazard", PP_TEST_SHIPPED_CONFIG, i + 1,
                  st->lines[i]);
    }
  /* input devices, audio, printers, phones, serial ports: 7 classes
   * in 5 sections each (base, :battery, its :power-saver twin,
   * :low-battery, :idle); the performance profile's disks, ATA ports and
   * Ethernet controllers: 3 */
  assert_int_equal (forced, 7 * 5 + 3);
}

/* The line number in an origin "FILE:LINE [SECTION]"; 0 when none. */
static guint
origin_line (const char *origin)
{
  const char *colon = origin != NULL ? strstr (origin, PP_TEST_SHIPPED_CONFIG ":") : NULL;

  if (colon == NULL)
    return 0;
  return (guint) g_ascii_strtoull (colon + strlen (PP_TEST_SHIPPED_CONFIG ":"), NULL, 10);
}

/* Every class of the shipped file (and its subsystem's), in every
 * situation: a decision that turns runtime PM off comes from a line whose
 * comment names the hazard's source. This follows the cascade: a line
 * reached through the subsystem's section counts too. */
static void
test_decisions_name_hazard (void **state)
{
  State *st = *state;
  static const char * const subsystems[] = { "usb", "pci", "scsi", "ata_port", "scsi_host", "drm" };
  guint checked = 0;

  for (guint i = 0; st->lines[i] != NULL; i++)
    {
      g_autofree char *klass = NULL;
      const char *line = st->lines[i];

      if (!g_str_has_prefix (line, "[Class ") || strchr (line, ':') != NULL)
        continue;
      klass = g_strndup (line + strlen ("[Class "), strcspn (line + strlen ("[Class "), "]"));
      for (guint sub = 0; sub < G_N_ELEMENTS (subsystems); sub++)
        for (guint sit = 0; sit < 8; sit++)
          {
            g_autoptr(PpDecision) d = decide (st->config, subsystems[sub], klass, sit, "driver");

            for (guint k = 0; k < d->settings->len; k++)
              {
                const PpSetting *s = g_ptr_array_index (d->settings, k);
                guint at;
                g_autofree char *comment = NULL;

                if (!g_str_has_suffix (s->key, PP_ATTR_CONTROL) || !g_str_equal (s->value, "on"))
                  continue;
                at = origin_line (s->origin);
                if (at == 0)
                  fail_msg ("class %s (%s) situation %u: %s=on from %s, not from a line of the file",
                            klass, subsystems[sub], sit, s->key, s->origin ? s->origin : "?");
                comment = paragraph_comment (st->lines, at - 1);
                if (!comment_names_source (comment))
                  fail_msg ("class %s (%s) situation %u: %s=on from line %u, whose comment names no source",
                            klass, subsystems[sub], sit, s->key, at);
                checked++;
              }
          }
    }
  assert_true (checked > 0);
}

/* Kinds of device whose driver or udev enables runtime PM on a stock
 * Debian 12 laptop (their own value is auto): the shipped policy never
 * turns it off, on AC or on battery, user active or idle. */
static void
test_kernel_auto_kept (void **state)
{
  State *st = *state;
  static const struct {
    const char *subsystem, *klass, *driver, *what;
  } kinds[] = {
    { "pci", NULL, "pcieport", "PCIe port (portdrv allows D3)" },
    { "pci", NULL, "i801_smbus", "SMBus controller (i2c-i801 allows runtime PM)" },
    { "pci", "pci-audio", "snd_hda_intel", "HD Audio controller" },
    { "pci", "nvme", "nvme", "NVMe controller" },
    { "pci", "pci-net", "e1000e", "Ethernet controller" },
    { "pci", "pci-gpu", "i915", "GPU" },
    { "usb", PP_USB_CLASS_BLUETOOTH, "btusb", "Bluetooth (CONFIG_BT_HCIBTUSB_AUTOSUSPEND=y)" },
    { "usb", PP_USB_CLASS_SMARTCARD, "usb", "CCID reader (libccid's udev rule)" },
    { "usb", PP_USB_CLASS_HUB, "hub", "USB hub" },
    { "scsi", "sata-disk", "sd", "SATA disk" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    for (guint sit = 0; sit < 8; sit++)
      {
        g_autoptr(PpDecision) d = decide (st->config, kinds[i].subsystem, kinds[i].klass, sit,
                                          kinds[i].driver);
        const char *control = decided (d, PP_ATTR_CONTROL);

        if (g_strcmp0 (control, "on") == 0)
          fail_msg ("%s: power/control=on in situation %u, below its own value", kinds[i].what, sit);
      }
}

/* The classes that keep their own value do so in every situation, also
 * under a drop-in that wants every USB device autosuspended. */
static void
test_own_value_class (void **state)
{
  State *st = *state;

  for (guint pass = 0; pass < 2; pass++)
    {
      if (pass == 1)
        load_text (st->config, usb_everywhere);
      for (guint sit = 0; sit < 8; sit++)
        {
          g_autoptr(PpDecision) d = decide (st->config, "usb", st->row, sit, "usb");
          const char *control = decided (d, PP_ATTR_CONTROL);

          if (control != NULL)
            fail_msg ("%s in situation %u (%s): power/control=%s, not its own value", st->row, sit,
                      pass ? "with the drop-in" : "shipped", control);
        }
    }
}

/* Modems autosuspend (TLP's default) with no shorter delay than the
 * kernel's 2 s in any situation, a drop-in's for the whole subsystem
 * included. */
static void
test_wwan (void **state)
{
  State *st = *state;

  for (guint pass = 0; pass < 2; pass++)
    {
      if (pass == 1)
        load_text (st->config, usb_everywhere);
      for (guint sit = 0; sit < 8; sit++)
        {
          g_autoptr(PpDecision) d = decide (st->config, "usb", PP_USB_CLASS_WWAN, sit, "qmi_wwan");

          assert_string_equal (decided (d, PP_ATTR_CONTROL), "auto");
          assert_string_equal (decided (d, PP_ATTR_DELAY), "2000");
        }
    }
}

/* The value the policy gives module parameter @key of @module in
 * situation @sit; NULL: its own value. */
static char *
module_value (const PpConfig *config, const char *module, const char *key, guint sit)
{
  PpSituation situation = { sit & 1, (sit >> 2) & 1, (sit >> 1) & 1 };
  g_autoptr(GPtrArray) settings = pp_policy_module_settings (config, &situation);
  g_autofree char *path = g_strdup_printf ("%s/parameters/%s", module, key);

  for (guint i = 0; i < settings->len; i++)
    {
      const PpSetting *s = g_ptr_array_index (settings, i);
      if (g_str_equal (s->key, path))
        return g_strdup (s->value);
    }
  return NULL;
}

/* snd_hda_intel power_save never longer than Debian's 1 s
 * (CONFIG_SND_HDA_POWER_SAVE_DEFAULT=1) nor 0 (off): its own value on
 * AC, 1 on battery and while idle; the PCIe ASPM policy keeps its own
 * value ("default": the firmware's link states, L1 substates included)
 * in every situation. */
static void
test_modules (void **state)
{
  State *st = *state;

  for (guint sit = 0; sit < 8; sit++)
    {
      g_autofree char *power_save = module_value (st->config, "snd_hda_intel", "power_save", sit);
      g_autofree char *controller = module_value (st->config, "snd_hda_intel", "power_save_controller", sit);
      g_autofree char *aspm = module_value (st->config, "pcie_aspm", "policy", sit);
      gboolean battery_or_idle = (sit & 1) || (sit & 4);

      if (battery_or_idle)
        assert_string_equal (power_save, "1");
      else if (power_save != NULL)
        fail_msg ("power_save=%s on AC while active: not the module's own value", power_save);
      assert_string_equal (controller, "Y");
      if (aspm != NULL)
        fail_msg ("pcie_aspm policy=%s in situation %u: not the kernel's own policy", aspm, sit);
    }
}

/* The settings lines of section @header ("[Class usb:battery]") in the
 * shipped file, joined with newlines; NULL when the section is absent. */
static char *
section_settings (char * const *lines, const char *header)
{
  GString *out = NULL;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (out == NULL)
        {
          if (g_str_equal (lines[i], header))
            out = g_string_new (NULL);
          continue;
        }
      if (lines[i][0] == '[')
        break;
      if (lines[i][0] != '#' && !line_is_blank (lines[i]))
        g_string_append_printf (out, "%s\n", lines[i]);
    }
  return out != NULL ? g_string_free (out, FALSE) : NULL;
}

/* power-saver gives the devices the battery's values also on AC: every
 * [... :battery] section of a class or module has a [... :power-saver]
 * twin with the same lines, and the check can fail. */
static void
test_power_saver_is_battery (void **state)
{
  State *st = *state;
  char l0[] = "[Class x:battery]", l1[] = "Control=auto", l2[] = "[Class x:power-saver]",
       l3[] = "Control=on";
  char *differ[] = { l0, l1, l2, l3, NULL };
  g_autofree char *b = section_settings (differ, l0);
  g_autofree char *ps = section_settings (differ, l2);
  guint twins = 0;

  assert_string_not_equal (b, ps);
  for (guint i = 0; st->lines[i] != NULL; i++)
    {
      const char *line = st->lines[i];
      g_autofree char *name = NULL;
      g_autofree char *twin = NULL;
      g_autofree char *battery = NULL;
      g_autofree char *saver = NULL;

      if (line[0] != '[' || !g_str_has_suffix (line, ":battery]") ||
          !(g_str_has_prefix (line, "[Class ") || g_str_has_prefix (line, "[Module ")))
        continue;
      name = g_strndup (line, strlen (line) - strlen (":battery]"));
      twin = g_strdup_printf ("%s:power-saver]", name);
      battery = section_settings (st->lines, line);
      saver = section_settings (st->lines, twin);
      if (saver == NULL)
        fail_msg ("%s has no %s twin: power-saver would save less than the battery on AC",
                  line, twin);
      if (!g_str_equal (battery, saver))
        fail_msg ("%s differs from %s:\n%s---\n%s", twin, line, saver, battery);
      twins++;
    }
  assert_true (twins > 20);
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (guint i = 0; i < G_N_ELEMENTS (safety_classes); i++)
    pp_test_list_add (list, "safety", safety_classes[i], test_safety_class, setup, teardown,
                      safety_classes[i]);
  for (guint i = 0; i < G_N_ELEMENTS (own_value_classes); i++)
    pp_test_list_add (list, "own", own_value_classes[i], test_own_value_class, setup, teardown,
                      own_value_classes[i]);
  pp_test_list_add (list, "usb", "wwan", test_wwan, setup, teardown, NULL);
  pp_test_list_add (list, "hazard", "forced-on-lines", test_forced_on_names_hazard, setup, teardown, NULL);
  pp_test_list_add (list, "hazard", "decisions", test_decisions_name_hazard, setup, teardown, NULL);
  pp_test_list_add (list, "own", "kernel-auto-kept", test_kernel_auto_kept, setup, teardown, NULL);
  pp_test_list_add (list, "module", "snd-hda-and-aspm", test_modules, setup, teardown, NULL);
  pp_test_list_add (list, "pci", "gpu-and-denylist", test_gpu_and_denylist, setup, teardown, NULL);
  pp_test_list_add (list, "usb", "hub-delay", test_hub_delay, setup, teardown, NULL);
  pp_test_list_add (list, "profile", "power-saver-is-battery", test_power_saver_is_battery,
                    setup, teardown, NULL);
  return pp_test_list_run (list, "shipped");
}
