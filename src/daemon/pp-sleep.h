/* SPDX-License-Identifier: GPL-2.0-or-later */
/* System sleep (powerpolicyd(8), SYSTEM SLEEP, LID AND VIDEO QUIRKS;
 * powerpolicy.conf(5), [Lid] and [Sleep]): the sleep state machine.
 * logind's delay inhibitor around PrepareForSleep and the watch that
 * follows logind coming and going, the kernel path without logind (its
 * write of /sys/power/state off the main loop), the pre and resume
 * phases, re-application of the policy after resume, the lid's sleep
 * actions. Owns the video quirks (pp-video-quirks.h), the restore helper
 * (pp-quirk-helper.h), the lid decision (pp-lid-actions.h) and the sleep
 * records (pp-sleep-history.h). */
#pragma once

#include <gio/gio.h>

#include "pp-activity.h"
#include "pp-manager.h"
#include "pp-quirkdb.h"
#include "pp-sleep-history.h"

G_BEGIN_DECLS

#define PP_TYPE_SLEEP (pp_sleep_get_type ())
G_DECLARE_FINAL_TYPE (PpSleep, pp_sleep, PP, SLEEP, GObject)

/* @bus may be NULL (no logind then). Talks to logind only when it is on
 * @bus and the manager was not started with --no-logind; sets the
 * manager's Backend accordingly. The lid action follows @activity's
 * "lid-closed", "docked" and "lid-inhibited" (@activity NULL: no lid). */
PpSleep            *pp_sleep_new                  (PpManager        *manager,
                                                   GDBusConnection  *bus,
                                                   PpActivity       *activity);

/* Re-read the quirk database, re-select the quirks, re-evaluate the lid
 * with the (already reloaded) configuration. Database problems are
 * logged and appended to @problems (of "file:line: message" strings)
 * when it is not NULL. */
void                pp_sleep_reload               (PpSleep          *self,
                                                   GPtrArray        *problems);

const char         *pp_sleep_get_backend          (PpSleep          *self);
/* The quirks in force (NULL-terminated, owned by @self). */
const char * const *pp_sleep_get_video_quirks     (PpSleep          *self);
/* Why the quirks in force were chosen: their source and a reason per
 * quirk (GetVideoQuirks). Owned by @self, valid until the next reload. */
const PpQuirkSelection *pp_sleep_get_quirk_selection (PpSleep      *self);

/* The records of the sleeps (GetSleepHistory, LastSleep), owned by @self. */
PpSleepHistory     *pp_sleep_get_history          (PpSleep          *self);

/* Suspend (@state "mem") or hibernate ("disk"): through logind when it
 * is the backend, else the kernel path with the pre/post steps.
 * NotSupported when /sys/power/state lacks @state (kernel path);
 * Refused while another sleep is in progress. */
void                pp_sleep_sleep_async          (PpSleep            *self,
                                                   const char         *state,
                                                   gboolean            interactive,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);
gboolean            pp_sleep_sleep_finish         (PpSleep          *self,
                                                   GAsyncResult     *result,
                                                   GError          **error);

G_END_DECLS
