/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The client of systemd-logind (org.freedesktop.login1): sleep delay and
 * lid-switch block inhibitors, PrepareForSleep, and the sleep and lock
 * calls. Emits "prepare-for-sleep" (gboolean start). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define PP_TYPE_LOGIND (pp_logind_get_type ())
G_DECLARE_FINAL_TYPE (PpLogind, pp_logind, PP, LOGIND, GObject)

/* NULL (with @error) when logind is not on @bus. */
PpLogind   *pp_logind_new                 (GDBusConnection *bus,
                                           GError         **error);
/* Without asking the bus: for a caller that knows logind is there (a
 * name watch saw it appear). */
PpLogind   *pp_logind_new_present         (GDBusConnection *bus);

/* Take the "sleep" delay inhibitor (asynchronously; a no-op when held
 * or being taken). */
void        pp_logind_take_sleep_delay    (PpLogind     *self);
/* Close the delay fd: logind may go on with the sleep. */
void        pp_logind_release_sleep_delay (PpLogind     *self);

/* Hold (or drop) the "handle-lid-switch" block inhibitor. */
void        pp_logind_set_lid_block       (PpLogind     *self,
                                           gboolean      block);

/* Call Suspend, Hibernate, HybridSleep, SuspendThenHibernate (with
 * @interactive) or LockSessions. */
void        pp_logind_call                (PpLogind            *self,
                                           const char          *method,
                                           gboolean             interactive,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
gboolean    pp_logind_call_finish         (PpLogind            *self,
                                           GAsyncResult        *result,
                                           GError             **error);

G_END_DECLS
