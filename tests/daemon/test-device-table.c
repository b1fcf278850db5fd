/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The manager's device table (pp-device-table.c) through its plain C API:
 * device arguments by name. No testbed: the devices are block devices,
 * of which nothing is read from sysfs when they are added. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-device-table.h"
#include "pp-error.h"

/* A PpDeviceInfo as pp-udev makes one (its identity strings interned). */
static PpDeviceInfo *
block_info (const char *syspath)
{
  PpDeviceInfo *info = g_new0 (PpDeviceInfo, 1);

  info->ref_count = 1;
  info->syspath = g_ref_string_new_intern (syspath);
  info->subsystem = g_ref_string_new_intern ("block");
  info->sysname = g_path_get_basename (syspath);
  info->tagged = TRUE;
  return info;
}

static void
add (PpDeviceTable *table, const char *syspath)
{
  g_autoptr(PpDeviceInfo) info = block_info (syspath);

  pp_device_table_set (table, info);
}

/* One device per name is found without a list of its own; a name two
 * devices have is ambiguous (all listed in the order added) until all
 * but one go. */
static void
test_same_sysname (void **state)
{
  PpDeviceTable *table = pp_device_table_new ();
  g_autoptr(GError) error = NULL;
  PpDevice *dev;

  (void) state;
  add (table, "/sys/devices/a/sda");
  add (table, "/sys/devices/b/sda");
  add (table, "/sys/devices/c/sdb");
  add (table, "/sys/devices/d/sda");

  dev = pp_device_table_resolve (table, "sdb", &error);
  assert_non_null (dev);
  assert_string_equal (dev->info->syspath, "/sys/devices/c/sdb");
  assert_null (pp_device_table_resolve (table, "sda", &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT));
  assert_non_null (strstr (error->message, "use one of: /sys/devices/a/sda, "
                                           "/sys/devices/b/sda, /sys/devices/d/sda"));
  g_clear_error (&error);

  /* replaced (a "change"): still one entry for the path, now the last */
  add (table, "/sys/devices/b/sda");
  assert_null (pp_device_table_resolve (table, "sda", &error));
  assert_non_null (strstr (error->message, "use one of: /sys/devices/a/sda, "
                                           "/sys/devices/d/sda, /sys/devices/b/sda"));
  g_clear_error (&error);

  pp_device_table_remove (table, "/sys/devices/a/sda");
  pp_device_table_remove (table, "/sys/devices/d/sda");
  dev = pp_device_table_resolve (table, "sda", &error);
  assert_null (error);
  assert_non_null (dev);
  assert_string_equal (dev->info->syspath, "/sys/devices/b/sda");

  pp_device_table_remove (table, "/sys/devices/b/sda");
  assert_null (pp_device_table_resolve (table, "sda", &error));
  assert_true (g_error_matches (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE));
  g_clear_error (&error);
  /* a name that came back after it went */
  add (table, "/sys/devices/e/sda");
  dev = pp_device_table_resolve (table, "sda", &error);
  assert_non_null (dev);
  assert_string_equal (dev->info->syspath, "/sys/devices/e/sda");
  assert_non_null (pp_device_table_resolve (table, "sdb", NULL));
  pp_device_table_free (table);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_same_sysname),
  };

  return cmocka_run_group_tests_name ("device-table", tests, NULL, NULL) == 0 ? 0 : 1;
}
