/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Release tokens: the file descriptor Hold and Inhibit return. The caller
 * keeps its end open for as long as it wants the hold or inhibitor; when
 * every copy is closed (or the holder dies) the daemon is told once. */
#pragma once

#include <gio/gio.h>
#include <gio/gunixfdlist.h>

G_BEGIN_DECLS

/* Limits on what a caller may make the daemon keep (SPEC §5, documented in
 * powerpolicyd(8)):
 *
 * who and why of a hold or inhibitor: free text, but bounded. */
#define PP_TOKEN_TEXT_MAX 256
/* Inhibit's what: a colon list of the known words, each at most once, so
 * a valid one is never longer than "idle:lid" (8 bytes); a longer one than
 * this is refused before its words are looked at. */
#define PP_TOKEN_WHAT_MAX 32
/* Holds and inhibitors together, per caller uid and in total
 * ([Daemon] MaxInhibitorsPerUser=, MaxInhibitors=). The total is capped at
 * PP_TOKEN_TOTAL_CEILING whatever the configuration says: each token is a
 * file descriptor (the unit's LimitNOFILE= leaves room for them), and
 * ListInhibitors must stay far below the bus's 32 MiB message limit. Worst
 * case per entry (ssssu): what 8 + who 256 + why 256 + device (a syspath,
 * < PATH_MAX 4096) + 5 length words, 5 NULs, padding < 40 bytes = 4,656;
 * × 4,096 = 18.2 MiB. With real syspaths (< 256 bytes) it is < 3.2 MiB. */
#define PP_TOKEN_DEFAULT_PER_USER 64
#define PP_TOKEN_DEFAULT_TOTAL    4096
#define PP_TOKEN_TOTAL_CEILING    4096

typedef struct _PpToken PpToken;

typedef void (*PpTokenReleased) (gpointer user_data);

/* Set the limits (clamped to PP_TOKEN_TOTAL_CEILING; per user to the
 * total). 0 refuses every new token. Tokens already given out stay. */
void      pp_token_set_limits (guint             per_user,
                               guint             total);
/* How many tokens exist now, in total and for @uid. */
guint     pp_token_count      (void);
guint     pp_token_count_for_uid (guint32        uid);

/* A new token for the caller of @invocation, counted against its uid (known
 * once pp_token_get_caller_pid() has answered for @invocation; unknown uids
 * share one count). The caller's end is at index 0 of *@fd_list. @released
 * is called once, from the main loop, when the caller's end is closed. Over
 * a limit: NULL and PP_ERROR_REFUSED naming the limit. */
PpToken  *pp_token_new        (GDBusMethodInvocation *invocation,
                               PpTokenReleased   released,
                               gpointer          user_data,
                               GUnixFDList     **fd_list,
                               GError          **error);
/* Stop watching and close our end, without calling @released. */
void      pp_token_free       (PpToken          *token);

/* Check who/why against PP_TOKEN_TEXT_MAX (and that they are UTF-8); on
 * failure the invocation has been answered with InvalidArgument. */
gboolean  pp_token_check_text (GDBusMethodInvocation *invocation,
                               const char            *who,
                               const char            *why);

/* Parse Inhibit's what: a non-empty colon list of "idle" and "lid", each
 * at most once. FALSE and InvalidArgument otherwise. */
gboolean  pp_token_parse_what (const char       *what,
                               gboolean         *idle,
                               gboolean         *lid,
                               GError          **error);

typedef void (*PpCallerPidReady) (guint32       pid,
                                  const GError *error,
                                  gpointer      user_data);

/* The pid of the invocation's sender, asked of the bus without blocking;
 * pid 0 and @error set when it cannot be known. The uid is asked in the
 * same call and kept with @invocation for pp_token_new(). */
void      pp_token_get_caller_pid (GDBusMethodInvocation *invocation,
                                   PpCallerPidReady       ready,
                                   gpointer               user_data);

G_END_DECLS
