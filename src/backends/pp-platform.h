/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The platform and CPU energy knobs of [Platform] (powerpolicy.conf(5)):
 * the firmware's platform profile and the cpufreq policies' energy
 * performance preference, found once (at start and on Reload). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PP_FIRMWARE_ACPI_DIR          "/sys/firmware/acpi"
#define PP_FIRMWARE_PLATFORM_PROFILE  PP_FIRMWARE_ACPI_DIR "/platform_profile"
#define PP_CPUFREQ_DIR                "/sys/devices/system/cpu/cpufreq"
#define PP_EPP_ATTR                   "energy_performance_preference"

/* At most this many cpufreq policies and platform-profile class devices
 * are looked at (a machine has one policy per CPU at most). */
#define PP_PLATFORM_MAX_POLICIES  8192
#define PP_PLATFORM_MAX_PROFILES  16

typedef struct {
  char  *dir;       /* the directory the attribute is in */
  char  *attr;      /* "platform_profile", "profile" or PP_EPP_ATTR */
  char **choices;   /* the words it offers (NULL-terminated, may be empty) */
} PpPlatformKnob;

typedef struct {
  GPtrArray *profiles;       /* PpPlatformKnob*: the firmware's, else the class's */
  GPtrArray *epp;            /* PpPlatformKnob*: one per cpufreq policy */
  char      *platform_driver; /* "platform_profile", or NULL without one */
  char      *cpu_driver;      /* "intel_pstate", "amd_pstate", or NULL */
} PpPlatformKnobs;

/* Look at /sys: /sys/firmware/acpi/platform_profile with
 * platform_profile_choices (else every /sys/class/platform-profile/ * /profile
 * with its choices), and every cpufreq policy*'s
 * energy_performance_preference when intel_pstate or amd_pstate runs in
 * active mode (scaling_driver intel_pstate or amd-pstate-epp). */
PpPlatformKnobs *pp_platform_knobs_read (void);
void             pp_platform_knobs_free (PpPlatformKnobs *knobs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpPlatformKnobs, pp_platform_knobs_free)

G_END_DECLS
