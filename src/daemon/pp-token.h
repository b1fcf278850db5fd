/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Release tokens: the file descriptor Hold and Inhibit return. The caller
 * keeps its end open for as long as it wants the hold or inhibitor; when
 * every copy is closed (or the holder dies) the daemon is told once. */
#pragma once

#include <gio/gio.h>
#include <gio/gunixfdlist.h>

G_BEGIN_DECLS

/* who and why of a hold or inhibitor: free text, but bounded */
#define PP_TOKEN_TEXT_MAX 1024

typedef struct _PpToken PpToken;

typedef void (*PpTokenReleased) (gpointer user_data);

/* A new token; the caller's end is at index 0 of *@fd_list. @released is
 * called once, from the main loop, when the caller's end is closed. */
PpToken  *pp_token_new        (PpTokenReleased   released,
                               gpointer          user_data,
                               GUnixFDList     **fd_list,
                               GError          **error);
/* Stop watching and close our end, without calling @released. */
void      pp_token_free       (PpToken          *token);

/* Check who/why against PP_TOKEN_TEXT_MAX; on failure the invocation has
 * been answered with InvalidArgument. */
gboolean  pp_token_check_text (GDBusMethodInvocation *invocation,
                               const char            *who,
                               const char            *why);

typedef void (*PpCallerPidReady) (guint32       pid,
                                  const GError *error,
                                  gpointer      user_data);

/* The pid of the invocation's sender, asked of the bus without blocking;
 * pid 0 and @error set when it cannot be known. */
void      pp_token_get_caller_pid (GDBusMethodInvocation *invocation,
                                   PpCallerPidReady       ready,
                                   gpointer               user_data);

G_END_DECLS
