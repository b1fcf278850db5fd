/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Words of the public interface (org.powerpolicy1.Manager.xml,
 * powerpolicyd(8)) that the daemon, pmctl and
 * the restore helper share, as enums with their one spelling each. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A device's power/runtime_status, as in the device field
 * "runtime_status". */
typedef enum {
  PP_RUNTIME_STATUS_ACTIVE,
  PP_RUNTIME_STATUS_SUSPENDED,
  PP_RUNTIME_STATUS_SUSPENDING,
  PP_RUNTIME_STATUS_RESUMING,
  PP_RUNTIME_STATUS_ERROR,
  PP_RUNTIME_STATUS_UNSUPPORTED,
} PpRuntimeStatus;
#define PP_RUNTIME_STATUS_LAST PP_RUNTIME_STATUS_UNSUPPORTED

/* The result column of PowerDown's and PowerUp's rows. */
typedef enum {
  PP_POWER_RESULT_SUSPENDED,
  PP_POWER_RESULT_OFF,
  PP_POWER_RESULT_ON,
  PP_POWER_RESULT_SKIPPED,
  PP_POWER_RESULT_FAILED,
} PpPowerResult;
#define PP_POWER_RESULT_LAST PP_POWER_RESULT_FAILED

/* PowerDown's mode argument. */
typedef enum {
  PP_POWER_DOWN_MODE_AUTO,
  PP_POWER_DOWN_MODE_OFF,
} PpPowerDownMode;
#define PP_POWER_DOWN_MODE_LAST PP_POWER_DOWN_MODE_OFF

/* The words of Inhibit's colon-separated what argument. */
typedef enum {
  PP_INHIBIT_IDLE = 1 << 0,
  PP_INHIBIT_LID  = 1 << 1,
} PpInhibitFlags;

/* The video quirks of pm-utils' quirk database the restore helper knows
 * (powerpolicyd(8), SYSTEM SLEEP, LID AND VIDEO QUIRKS), NULL-terminated. */
extern const char * const pp_video_quirk_names[];

const char *pp_runtime_status_to_string   (PpRuntimeStatus   status);
gboolean    pp_runtime_status_from_string (const char       *text,
                                           PpRuntimeStatus  *status);
const char *pp_power_result_to_string     (PpPowerResult     result);
gboolean    pp_power_result_from_string   (const char       *text,
                                           PpPowerResult    *result);
const char *pp_power_down_mode_to_string  (PpPowerDownMode   mode);
gboolean    pp_power_down_mode_from_string (const char      *text,
                                            PpPowerDownMode *mode);
/* "idle", "lid", "idle:lid"; and back, FALSE for an empty list or an
 * unknown word. */
char       *pp_inhibit_flags_to_string    (PpInhibitFlags    flags);
gboolean    pp_inhibit_flags_from_string  (const char       *text,
                                           PpInhibitFlags   *flags);
gboolean    pp_video_quirk_is_known       (const char       *name);
/* Whether the restore helper has anything to do in its suspend (@resume
 * FALSE) or resume phase with @quirks in force: the VT switch (unless
 * no_chvt), or a quirk it acts on in that phase (not the kernel-flag
 * quirks s3_bios/s3_mode, which are the daemon's). */
gboolean    pp_video_quirks_helper_has_work (const char * const *quirks,
                                             gboolean            resume);

G_END_DECLS
