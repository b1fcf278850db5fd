/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Authorization of D-Bus callers (powerpolicyd(8), D-BUS INTERFACE), never
 * blocking the main loop: uid 0 may do anything; anyone else needs the polkit
 * action, asked over D-Bus with a bounded wait. Without polkit on the bus only
 * uid 0 may change state, but holds and inhibitors are open to every local
 * user. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* How long polkit may take before the call is refused. */
#define PP_AUTH_TIMEOUT_MS 5000

void      pp_auth_check        (GDBusMethodInvocation *invocation,
                                const char            *action_id,
                                gboolean               allow_interaction,
                                GAsyncReadyCallback    callback,
                                gpointer               user_data);
/* The same for a caller known by its unique bus name on @connection (a
 * message the daemon answers itself, such as a property Set). */
void      pp_auth_check_sender (GDBusConnection       *connection,
                                const char            *sender,
                                const char            *action_id,
                                gboolean               allow_interaction,
                                GAsyncReadyCallback    callback,
                                gpointer               user_data);
gboolean  pp_auth_check_finish (GAsyncResult          *result,
                                GError               **error);

G_END_DECLS
