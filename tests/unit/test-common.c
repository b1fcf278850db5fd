/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The common library: the error domain as D-Bus errors, the shared
 * enums' one spelling, the generated interface's names. */
#include "config.h"

#include <errno.h>
#include <gio/gio.h>

#include "pp-test.h"
#include "pp-dbus.h"
#include "pp-enums.h"
#include "pp-error.h"

/* Every PP_ERROR code travels as org.powerpolicy1.Error.<Name>
 * (powerpolicyd(8), D-BUS INTERFACE) and comes back as the same code. */
static void
test_error_names (void **state)
{
  static const struct {
    PpError     code;
    const char *name;
  } errors[] = {
    /* as powerpolicyd(8) and the D-Bus XML spell them */
    { PP_ERROR_NO_SUCH_DEVICE, "org.powerpolicy1.Error.NoSuchDevice" },
    { PP_ERROR_INVALID_ARGUMENT, "org.powerpolicy1.Error.InvalidArgument" },
    { PP_ERROR_NOT_AUTHORIZED, "org.powerpolicy1.Error.NotAuthorized" },
    { PP_ERROR_REFUSED, "org.powerpolicy1.Error.Refused" },
    { PP_ERROR_FAILED, "org.powerpolicy1.Error.Failed" },
    { PP_ERROR_NOT_SUPPORTED, "org.powerpolicy1.Error.NotSupported" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (errors); i++)
    {
      g_autoptr(GError) error = g_error_new (PP_ERROR, errors[i].code, "why");
      g_autofree char *name = g_dbus_error_encode_gerror (error);
      g_autoptr(GError) back = g_dbus_error_new_for_dbus_error (errors[i].name, "why");

      assert_string_equal (name, errors[i].name);
      assert_true (g_error_matches (back, PP_ERROR, errors[i].code));
    }
}

static void
test_error_from_errno (void **state)
{
  g_autoptr(GError) gone = NULL;
  g_autoptr(GError) other = NULL;

  assert_false (pp_error_set_from_errno (&gone, ENODEV, "writing %s", "x"));
  assert_true (g_error_matches (gone, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE));
  assert_true (g_str_has_prefix (gone->message, "writing x: "));
  assert_false (pp_error_set_from_errno (&other, EACCES, "writing"));
  assert_true (g_error_matches (other, PP_ERROR, PP_ERROR_FAILED));
}

/* The bus carries PP_ERROR only: the backends' G_IO_ERROR codes mapped
 * to the nearest name, the message kept. */
static void
test_error_to_bus (void **state)
{
  static const struct { int code; int expected; } rows[] = {
    { G_IO_ERROR_NOT_FOUND,         PP_ERROR_NO_SUCH_DEVICE },
    { G_IO_ERROR_NO_SUCH_DEVICE,    PP_ERROR_NO_SUCH_DEVICE },
    { G_IO_ERROR_PERMISSION_DENIED, PP_ERROR_REFUSED },
    { G_IO_ERROR_NOT_SUPPORTED,     PP_ERROR_NOT_SUPPORTED },
    { G_IO_ERROR_NO_SPACE,          PP_ERROR_FAILED },
    { G_IO_ERROR_IS_DIRECTORY,      PP_ERROR_FAILED },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GError) io = g_error_new (G_IO_ERROR, rows[i].code, "row %u", i);
      g_autoptr(GError) bus = pp_error_to_bus (io);
      g_autofree char *expected = g_strdup_printf ("row %u", i);

      assert_true (g_error_matches (bus, PP_ERROR, rows[i].expected));
      assert_string_equal (bus->message, expected);
    }
  {
    g_autoptr(GError) pp = g_error_new_literal (PP_ERROR, PP_ERROR_INVALID_ARGUMENT, "bad");
    g_autoptr(GError) file = g_error_new_literal (G_FILE_ERROR, G_FILE_ERROR_NOENT, "other");
    g_autoptr(GError) bus_pp = pp_error_to_bus (pp);
    g_autoptr(GError) bus_file = pp_error_to_bus (file);

    assert_true (g_error_matches (bus_pp, PP_ERROR, PP_ERROR_INVALID_ARGUMENT));
    assert_string_equal (bus_pp->message, "bad");
    assert_true (g_error_matches (bus_file, PP_ERROR, PP_ERROR_FAILED));
  }
}

static void
test_enum_names (void **state)
{
  static const char * const statuses[] = {
    "active", "suspended", "suspending", "resuming", "error", "unsupported",
  };
  static const char * const results[] = { "suspended", "off", "on", "skipped", "failed" };
  PpRuntimeStatus status;
  PpPowerResult result;
  PpPowerDownMode mode;

  for (guint i = 0; i < G_N_ELEMENTS (statuses); i++)
    {
      assert_true (pp_runtime_status_from_string (statuses[i], &status));
      assert_int_equal (status, i);
      assert_string_equal (pp_runtime_status_to_string (status), statuses[i]);
    }
  assert_int_equal (PP_RUNTIME_STATUS_LAST + 1, G_N_ELEMENTS (statuses));
  for (guint i = 0; i < G_N_ELEMENTS (results); i++)
    {
      assert_true (pp_power_result_from_string (results[i], &result));
      assert_string_equal (pp_power_result_to_string (result), results[i]);
    }
  assert_true (pp_power_down_mode_from_string ("off", &mode));
  assert_int_equal (mode, PP_POWER_DOWN_MODE_OFF);
  assert_string_equal (pp_power_down_mode_to_string (PP_POWER_DOWN_MODE_AUTO), "auto");
  /* only the exact words */
  assert_false (pp_runtime_status_from_string ("Active", &status));
  assert_false (pp_power_result_from_string ("", &result));
  assert_false (pp_power_down_mode_from_string (NULL, &mode));
}

static void
test_inhibit_flags (void **state)
{
  static const struct {
    const char    *text;
    gboolean       valid;
    PpInhibitFlags flags;
  } cases[] = {
    { "idle", TRUE, PP_INHIBIT_IDLE },
    { "lid", TRUE, PP_INHIBIT_LID },
    { "idle:lid", TRUE, PP_INHIBIT_IDLE | PP_INHIBIT_LID },
    { "lid:idle", TRUE, PP_INHIBIT_IDLE | PP_INHIBIT_LID },
    { "idle:idle", TRUE, PP_INHIBIT_IDLE },
    { "", FALSE, 0 },
    { ":", FALSE, 0 },
    { "idle:", FALSE, 0 },
    { "sleep", FALSE, 0 },
    { "IDLE", FALSE, 0 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      PpInhibitFlags flags = 0;

      assert_int_equal (pp_inhibit_flags_from_string (cases[i].text, &flags), cases[i].valid);
      if (cases[i].valid)
        assert_int_equal (flags, cases[i].flags);
    }
  {
    g_autofree char *both = pp_inhibit_flags_to_string (PP_INHIBIT_LID | PP_INHIBIT_IDLE);
    assert_string_equal (both, "idle:lid");
  }
}

static void
test_video_quirks_helper_work (void **state)
{
  const char *kms[] = { "no_chvt", NULL };
  const char *vt_only[] = { "none", NULL };
  const char *none_no_vt[] = { "none", "no_chvt", "vbe_post", NULL };
  const char *flags_only[] = { "s3_bios", "s3_mode", "no_chvt", NULL };
  const char *post[] = { "vbe_post", "no_chvt", NULL };
  const char *post_no_fb[] = { "vbe_post", "no_fb", "no_chvt", NULL };
  const char *state_save[] = { "vbestate_restore", "no_fb", "no_chvt", NULL };
  const char *suspend_dpms[] = { "dpms_suspend", "no_fb", "no_chvt", NULL };

  (void) state;
  /* no list: the VT switch is pm-utils' default */
  assert_true (pp_video_quirks_helper_has_work (NULL, FALSE));
  /* nothing to do: not started */
  assert_false (pp_video_quirks_helper_has_work (kms, FALSE));
  assert_false (pp_video_quirks_helper_has_work (kms, TRUE));
  assert_false (pp_video_quirks_helper_has_work (flags_only, FALSE));
  assert_false (pp_video_quirks_helper_has_work (flags_only, TRUE));
  assert_false (pp_video_quirks_helper_has_work (none_no_vt, FALSE));
  assert_false (pp_video_quirks_helper_has_work (none_no_vt, TRUE));
  /* the VT switch, both phases */
  assert_true (pp_video_quirks_helper_has_work (vt_only, FALSE));
  assert_true (pp_video_quirks_helper_has_work (vt_only, TRUE));
  /* vbe_post: the console off before sleep, POST and console on after */
  assert_true (pp_video_quirks_helper_has_work (post, FALSE));
  assert_true (pp_video_quirks_helper_has_work (post, TRUE));
  assert_false (pp_video_quirks_helper_has_work (post_no_fb, FALSE));
  assert_true (pp_video_quirks_helper_has_work (post_no_fb, TRUE));
  assert_true (pp_video_quirks_helper_has_work (state_save, FALSE));
  assert_true (pp_video_quirks_helper_has_work (state_save, TRUE));
  assert_true (pp_video_quirks_helper_has_work (suspend_dpms, FALSE));
  assert_false (pp_video_quirks_helper_has_work (suspend_dpms, TRUE));
}

static void
test_video_quirk_names (void **state)
{
  assert_true (pp_video_quirk_is_known ("dpms_on"));
  assert_true (pp_video_quirk_is_known ("none"));
  assert_false (pp_video_quirk_is_known ("DPMS_ON"));
  assert_false (pp_video_quirk_is_known (NULL));
}

/* The generated interface is the XML's, with its names. */
static void
test_generated_interface (void **state)
{
  GDBusInterfaceInfo *info = pp_dbus_manager_interface_info ();

  assert_string_equal (info->name, "org.powerpolicy1.Manager");
  assert_non_null (g_dbus_interface_info_lookup_method (info, "ListDevices"));
  assert_non_null (g_dbus_interface_info_lookup_method (info, "Hold"));
  assert_non_null (g_dbus_interface_info_lookup_signal (info, "DeviceChanged"));
  assert_non_null (g_dbus_interface_info_lookup_property (info, "VideoQuirks"));
  assert_true (g_type_is_a (PP_DBUS_TYPE_MANAGER_PROXY, G_TYPE_DBUS_PROXY));
  assert_true (g_type_is_a (PP_DBUS_TYPE_MANAGER_SKELETON, G_TYPE_DBUS_INTERFACE_SKELETON));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_error_names),
    cmocka_unit_test (test_error_from_errno),
    cmocka_unit_test (test_error_to_bus),
    cmocka_unit_test (test_enum_names),
    cmocka_unit_test (test_inhibit_flags),
    cmocka_unit_test (test_video_quirk_names),
    cmocka_unit_test (test_video_quirks_helper_work),
    cmocka_unit_test (test_generated_interface),
  };

  return cmocka_run_group_tests_name ("common", tests, NULL, NULL);
}
