/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-machine"

#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "pp-machine.h"
#include "pp-util.h"

#define DMI_DIR  "/sys/class/dmi/id"
#define PCI_DIR  "/sys/bus/pci/devices"

static char *
read_trimmed (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text = NULL;
  char *nl;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return g_strdup ("");
  /* pm-utils reads one line and trims the blanks around it */
  nl = strchr (text, '\n');
  if (nl)
    *nl = '\0';
  return g_strdup (g_strstrip (text));
}

char *
pp_machine_primary_video_path (void)
{
  /* sorted, as the shell glob pm-utils walks */
  g_autoptr(GPtrArray) names = pp_list_dir_sorted (PCI_DIR, NULL);

  if (names == NULL)
    return NULL;
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *dev = g_build_filename (PCI_DIR, g_ptr_array_index (names, i), NULL);
      g_autofree char *cls = read_trimmed (dev, "class");

      if (g_str_equal (cls, "0x030000"))
        {
          char *real = realpath (dev, NULL);
          return real ? real : g_steal_pointer (&dev);
        }
    }
  return NULL;
}

static gboolean
has_drm_card (const char *dev)
{
  g_autofree char *drm = g_build_filename (dev, "drm", NULL);
  g_autoptr(GDir) dir = g_dir_open (drm, 0, NULL);
  const char *name;

  if (dir == NULL)
    return FALSE;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, "card"))
      return TRUE;
  return FALSE;
}

static void
replace (char **field, char *value)
{
  g_free (*field);
  *field = value;
}

void
pp_machine_read_facts (PpMachineFacts *facts)
{
  g_autofree char *video = pp_machine_primary_video_path ();
  g_autofree char *osrelease = NULL;

  pp_machine_facts_init (facts);
  replace (&facts->firmware_vendor, read_trimmed (DMI_DIR, "bios_vendor"));
  replace (&facts->firmware_version, read_trimmed (DMI_DIR, "bios_version"));
  replace (&facts->firmware_release_date, read_trimmed (DMI_DIR, "bios_date"));
  replace (&facts->hardware_vendor, read_trimmed (DMI_DIR, "sys_vendor"));
  replace (&facts->hardware_product, read_trimmed (DMI_DIR, "product_name"));
  replace (&facts->hardware_version, read_trimmed (DMI_DIR, "product_version"));
  replace (&facts->board_vendor, read_trimmed (DMI_DIR, "board_vendor"));
  replace (&facts->board_product, read_trimmed (DMI_DIR, "board_name"));
  replace (&facts->board_version, read_trimmed (DMI_DIR, "board_version"));

  facts->nvidia_loaded = g_file_test ("/sys/module/nvidia", G_FILE_TEST_IS_DIR);
  facts->fglrx_loaded = g_file_test ("/sys/module/fglrx", G_FILE_TEST_IS_DIR);

  if (video != NULL)
    {
      g_autofree char *driver_link = g_build_filename (video, "driver", NULL);
      g_autofree char *target = g_file_read_link (driver_link, NULL);

      replace (&facts->video_vendor, read_trimmed (video, "vendor"));
      replace (&facts->video_product, read_trimmed (video, "device"));
      if (target != NULL)
        replace (&facts->video_driver, g_path_get_basename (target));
      else if (facts->nvidia_loaded)
        replace (&facts->video_driver, g_strdup ("nvidia"));
      else if (facts->fglrx_loaded)
        replace (&facts->video_driver, g_strdup ("fglrx"));
      facts->video_using_kms = has_drm_card (video);
    }

  osrelease = read_trimmed ("/proc/sys/kernel", "osrelease");
  if (*osrelease == '\0')
    {
      struct utsname u;
      if (uname (&u) == 0)
        replace (&osrelease, g_strdup (u.release));
    }
  replace (&facts->kernel_version, g_steal_pointer (&osrelease));
}
