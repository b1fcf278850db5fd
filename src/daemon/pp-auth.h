/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Authorization of D-Bus callers, never blocking the main loop. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Decide whether @invocation's sender may perform @action_id: uid 0 may
 * do anything; anyone else is refused. Completes asynchronously. */
void      pp_auth_check        (GDBusMethodInvocation *invocation,
                                const char            *action_id,
                                GAsyncReadyCallback    callback,
                                gpointer               user_data);
gboolean  pp_auth_check_finish (GAsyncResult          *result,
                                GError               **error);

G_END_DECLS
