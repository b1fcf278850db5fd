/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Backend tests of pp_devlinks_walk_devices(): the device tree of sysfs,
 * read for the power-dependency tree, against a umockdev testbed. Run
 * under umockdev-wrapper. */
#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <umockdev.h>

#include "pp-test.h"
#include "pp-devlinks.h"

#define PCI      "/sys/devices/pci0000:00/0000:00:17.0"
#define ATA      PCI "/ata1"
#define HOST     ATA "/host0"
#define SHOST    HOST "/scsi_host/host0"
#define GPU      "/sys/devices/pci0000:00/0000:00:02.0"
#define DEVLINK  "/sys/devices/virtual/devlink/pci:0000:00:02.0--pci:0000:00:17.0"

typedef struct {
  char     *syspath;
  char     *parent;
  gboolean  has_links;
} Seen;

static void
seen_free (Seen *s)
{
  g_free (s->syspath);
  g_free (s->parent);
  g_free (s);
}

static void
on_device (const char *syspath, const char *parent, gboolean has_links, gpointer user_data)
{
  GPtrArray *seen = user_data;
  Seen *s = g_new0 (Seen, 1);

  s->syspath = g_strdup (syspath);
  s->parent = g_strdup (parent);
  s->has_links = has_links;
  g_ptr_array_add (seen, s);
}

static Seen *
find (GPtrArray *seen, const char *syspath, guint *index)
{
  for (guint i = 0; i < seen->len; i++)
    {
      Seen *s = g_ptr_array_index (seen, i);
      if (g_str_equal (s->syspath, syspath))
        {
          if (index)
            *index = i;
          return s;
        }
    }
  return NULL;
}

static Seen *
get (GPtrArray *seen, const char *syspath, guint *index)
{
  Seen *s = find (seen, syspath, index);

  if (s == NULL)
    {
      fail_msg ("%s not walked", syspath);
      g_abort ();
    }
  return s;
}

static void
test_walk (void **state)
{
  g_autoptr(UMockdevTestbed) tb = umockdev_testbed_new ();
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func ((GDestroyNotify) seen_free);
  g_autofree char *path = NULL;
  g_autofree char *root = umockdev_testbed_get_root_dir (tb);
  g_autofree char *plain_dir = g_build_filename (root, PCI, "firmware_node_like", NULL);
  Seen *s;
  guint i_pci = 0, i_shost = 0;

  path = umockdev_testbed_add_device (tb, "pci", "pci0000:00/0000:00:17.0", NULL,
                                      "power/control", "on\n", NULL, NULL);
  assert_string_equal (path, PCI);
  g_free (path);
  path = umockdev_testbed_add_device (tb, "ata_port", "ata1", PCI, NULL, NULL);
  g_free (path);
  path = umockdev_testbed_add_device (tb, "scsi", "host0", ATA, NULL, "DEVTYPE", "scsi_host", NULL);
  g_free (path);
  /* a class device below a directory that is no device */
  path = umockdev_testbed_add_device (tb, "scsi_host", "scsi_host/host0", HOST,
                                      "link_power_management_policy", "max_performance\n", NULL,
                                      NULL);
  assert_string_equal (path, SHOST);
  g_free (path);
  path = umockdev_testbed_add_device (tb, "pci", "pci0000:00/0000:00:02.0", NULL, NULL, NULL);
  assert_string_equal (path, GPU);
  g_free (path);
  /* a device link: an edge, not a device */
  path = umockdev_testbed_add_device (tb, "devlink", "virtual/devlink/pci:0000:00:02.0--pci:0000:00:17.0",
                                      NULL, "status", "active\n", NULL, NULL);
  assert_string_equal (path, DEVLINK);
  umockdev_testbed_set_attribute_link (tb, GPU, "consumer:pci:0000:00:17.0",
                                       "../../virtual/devlink/pci:0000:00:02.0--pci:0000:00:17.0");
  /* a directory with neither uevent nor subsystem */
  assert_int_equal (g_mkdir_with_parents (plain_dir, 0755), 0);

  pp_devlinks_walk_devices ("/sys/devices", on_device, seen);

  s = get (seen, PCI, &i_pci);
  assert_null (s->parent);          /* pci0000:00 has no subsystem */
  assert_false (s->has_links);
  s = get (seen, ATA, NULL);
  assert_string_equal (s->parent, PCI);
  s = get (seen, HOST, NULL);
  assert_string_equal (s->parent, ATA);
  /* the nearest device above, across the scsi_host/ directory */
  s = get (seen, SHOST, &i_shost);
  assert_string_equal (s->parent, HOST);
  assert_true (i_pci < i_shost);    /* parents before children */
  s = get (seen, GPU, NULL);
  assert_true (s->has_links);
  assert_null (find (seen, DEVLINK, NULL));
  assert_null (find (seen, "/sys/devices/pci0000:00", NULL));
  assert_null (find (seen, plain_dir + strlen (root), NULL));
  assert_int_equal (seen->len, 5);

  /* a missing root: nothing, no crash */
  g_ptr_array_set_size (seen, 0);
  pp_devlinks_walk_devices ("/sys/devices/nonexistent", on_device, seen);
  assert_int_equal (seen->len, 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_walk),
  };
  g_autoptr(UMockdevTestbed) probe = umockdev_testbed_new ();

  if (!umockdev_in_mock_environment ())
    {
      g_printerr ("SKIP: not running under umockdev-wrapper (the preload library is not active)\n");
      return 77;
    }
  g_clear_object (&probe);
  return cmocka_run_group_tests_name ("devlinks", tests, NULL, NULL) == 0 ? 0 : 1;
}
