/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-platform"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pp-names.h"
#include "pp-platform.h"
#include "pp-sysfs.h"

#define PP_CLASS_PLATFORM_PROFILE "/sys/class/platform-profile"

static void
knob_free (PpPlatformKnob *knob)
{
  g_free (knob->dir);
  g_free (knob->attr);
  g_strfreev (knob->choices);
  g_free (knob);
}

/* The words of a choices attribute ("low-power balanced performance");
 * pp_sysfs_read() reads at most a page. */
static char **
read_choices (const char *dir, const char *attr)
{
  g_autofree char *text = pp_sysfs_read_opt (dir, attr);
  g_autoptr(GPtrArray) words = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) parts = NULL;

  if (text == NULL)
    return NULL;
  parts = g_strsplit_set (text, " \n\t", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      /* a word the kernel would print: [a-z_-], short */
      gboolean ok = *parts[i] != '\0' && strlen (parts[i]) < 64;

      for (const char *p = parts[i]; ok && *p; p++)
        ok = g_ascii_isalnum (*p) || *p == '-' || *p == '_';
      if (ok)
        g_ptr_array_add (words, g_strdup (parts[i]));
    }
  g_ptr_array_add (words, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&words), FALSE);
}

static PpPlatformKnob *
knob_new (const char *dir, const char *attr, char **choices)
{
  PpPlatformKnob *knob = g_new0 (PpPlatformKnob, 1);

  knob->dir = g_strdup (dir);
  knob->attr = g_strdup (attr);
  knob->choices = choices;
  return knob;
}

static gboolean
attr_exists (const char *dir, const char *attr)
{
  g_autofree char *path = g_build_filename (dir, attr, NULL);

  return g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

/* platform_profile offers what power-profiles-daemon asks of it: balanced
 * and a performance profile at least */
static gboolean
choices_usable (char **choices)
{
  const char * const *c = (const char * const *) choices;

  return c != NULL && g_strv_contains (c, "balanced") &&
         (g_strv_contains (c, "performance") || g_strv_contains (c, "balanced-performance"));
}

static void
read_platform_profiles (PpPlatformKnobs *knobs)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;
  guint n = 0;

  if (attr_exists (PP_FIRMWARE_ACPI_DIR, "platform_profile"))
    {
      char **choices = read_choices (PP_FIRMWARE_ACPI_DIR, "platform_profile_choices");

      if (choices_usable (choices))
        {
          g_ptr_array_add (knobs->profiles, knob_new (PP_FIRMWARE_ACPI_DIR, "platform_profile", choices));
          return;
        }
      g_strfreev (choices);
    }
  /* kernels with the platform-profile class: one device per provider,
   * under /sys/devices (the firmware's file is then the aggregate) */
  dir = g_dir_open (PP_CLASS_PLATFORM_PROFILE, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL && n < PP_PLATFORM_MAX_PROFILES)
    {
      g_autofree char *link = g_build_filename (PP_CLASS_PLATFORM_PROFILE, name, NULL);
      g_autofree char *real = realpath (link, NULL);
      char **choices;

      n++;
      if (real == NULL || !pp_sysfs_path_is_under (real, PP_SYSFS_DEVICES) ||
          !attr_exists (real, "profile"))
        continue;
      choices = read_choices (real, "choices");
      if (!choices_usable (choices))
        {
          g_strfreev (choices);
          continue;
        }
      g_ptr_array_add (knobs->profiles, knob_new (real, "profile", choices));
    }
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

static void
read_epp (PpPlatformKnobs *knobs)
{
  g_autoptr(GDir) dir = g_dir_open (PP_CPUFREQ_DIR, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL &&
         names->len < PP_PLATFORM_MAX_POLICIES)
    {
      if (g_str_has_prefix (name, "policy"))
        g_ptr_array_add (names, g_strdup (name));
    }
  g_ptr_array_sort (names, compare_strings);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *policy = g_build_filename (PP_CPUFREQ_DIR, g_ptr_array_index (names, i), NULL);
      g_autofree char *driver = pp_sysfs_read_opt (policy, "scaling_driver");
      const char *cpu_driver;

      /* EPP is the active mode's (intel_pstate's own governor,
       * amd-pstate-epp); in passive mode the file is absent or ignored */
      if (g_strcmp0 (driver, "intel_pstate") == 0)
        cpu_driver = "intel_pstate";
      else if (g_strcmp0 (driver, "amd-pstate-epp") == 0)
        cpu_driver = "amd_pstate";
      else
        continue;
      if (!attr_exists (policy, PP_EPP_ATTR))
        continue;
      if (knobs->cpu_driver == NULL)
        knobs->cpu_driver = g_strdup (cpu_driver);
      g_ptr_array_add (knobs->epp, knob_new (policy, PP_EPP_ATTR,
                                             read_choices (policy, "energy_performance_available_preferences")));
    }
}

PpPlatformKnobs *
pp_platform_knobs_read (void)
{
  PpPlatformKnobs *knobs = g_new0 (PpPlatformKnobs, 1);

  knobs->profiles = g_ptr_array_new_with_free_func ((GDestroyNotify) knob_free);
  knobs->epp = g_ptr_array_new_with_free_func ((GDestroyNotify) knob_free);
  read_platform_profiles (knobs);
  if (knobs->profiles->len > 0)
    knobs->platform_driver = g_strdup ("platform_profile");
  read_epp (knobs);
  g_debug ("platform knobs: %u platform profile(s), %u cpufreq policies with EPP (%s)",
           knobs->profiles->len, knobs->epp->len,
           knobs->cpu_driver != NULL ? knobs->cpu_driver : "no CPU driver");
  return knobs;
}

void
pp_platform_knobs_free (PpPlatformKnobs *knobs)
{
  if (knobs == NULL)
    return;
  g_ptr_array_unref (knobs->profiles);
  g_ptr_array_unref (knobs->epp);
  g_free (knobs->platform_driver);
  g_free (knobs->cpu_driver);
  g_free (knobs);
}
