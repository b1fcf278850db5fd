/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A device's runtime-PM state as ListDevices and GetDevice show it
 * (org.powerpolicy1.Manager.xml, GetDevice): power/runtime_status,
 * power/control, power/autosuspend_delay_ms and power/wakeup, read with one
 * path walk (the power/ directory opened once, each attribute relative to it).
 * These change without a uevent (the kernel suspends and resumes, other
 * programs write), so they are read when asked, never kept. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  PP_POWER_STATE_RUNTIME_STATUS = 1 << 0,
  PP_POWER_STATE_CONTROL        = 1 << 1,
  PP_POWER_STATE_DELAY          = 1 << 2,
  PP_POWER_STATE_WAKEUP         = 1 << 3,
  PP_POWER_STATE_ALL            = 0xf,
} PpPowerStateFields;

/* Longest value kept (the kernel's are a few bytes). */
#define PP_POWER_STATE_MAX 32

typedef struct {
  char   runtime_status[PP_POWER_STATE_MAX];  /* "unsupported" when missing or empty */
  char   control[PP_POWER_STATE_MAX];         /* "" when missing */
  char   wakeup[PP_POWER_STATE_MAX];          /* "" when missing */
  gint32 autosuspend_delay_ms;                /* -1 when missing or not a 32-bit number */
} PpPowerState;

/* Read @fields of the device directory @syspath into @out (the others
 * get their "missing" value). Values are valid UTF-8, without the
 * trailing newline; one longer than PP_POWER_STATE_MAX - 1 bytes counts
 * as missing. */
void pp_power_state_read (const char         *syspath,
                          PpPowerStateFields  fields,
                          PpPowerState       *out);

/* One attribute of the power/ directory (@name: "control", ...) into
 * @buf, as above: one path walk, no directory opened; FALSE (and @buf
 * "") when missing. For a caller that usually needs only one. */
gboolean pp_power_state_read_one (const char *syspath,
                                  const char *name,
                                  char        buf[PP_POWER_STATE_MAX]);

G_END_DECLS
