/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Release tokens: the file descriptor Hold and Inhibit return. The caller
 * keeps its end open for as long as it wants the hold or inhibitor; when
 * every copy is closed (or the holder dies) the daemon is told once. */
#pragma once

#include <glib.h>

#include "pp-config.h"

G_BEGIN_DECLS

/* Limits on what a caller may make the daemon keep (powerpolicyd(8), D-BUS
 * INTERFACE, Limits):
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
#define PP_TOKEN_TOTAL_CEILING    PP_MAX_INHIBITORS_LIMIT

typedef struct _PpToken PpToken;

/* The registry of every hold and inhibitor: the limits and the counts
 * per caller uid. The daemon makes one (main.c) and passes it to each
 * component that gives out holds and inhibitors, so one caller's tokens
 * are counted together whichever method gave them out. Reference
 * counted: each token keeps its registry. One main loop, no locking. */
typedef struct _PpTokenRegistry PpTokenRegistry;

typedef void (*PpTokenReleased) (gpointer user_data);

/* A registry with the default limits and no tokens. */
PpTokenRegistry *pp_token_registry_new   (void);
PpTokenRegistry *pp_token_registry_ref   (PpTokenRegistry  *self);
void             pp_token_registry_unref (PpTokenRegistry  *self);
/* Set the limits (clamped to PP_TOKEN_TOTAL_CEILING; per user to the
 * total). 0 refuses every new token. Tokens already given out stay. */
void      pp_token_registry_set_limits (PpTokenRegistry *self,
                                        guint            per_user,
                                        guint            total);
/* How many tokens exist now, in total and for @uid. */
guint     pp_token_registry_count      (PpTokenRegistry *self);
guint     pp_token_registry_count_for_uid (PpTokenRegistry *self,
                                           guint32          uid);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpTokenRegistry, pp_token_registry_unref)

/* Counted against this uid when the bus could not tell the caller's. */
#define PP_TOKEN_UID_UNKNOWN G_MAXUINT32

/* A new token of @registry for a caller of @uid (PP_TOKEN_UID_UNKNOWN:
 * unknown uids share one count). The caller's end in *@out_fd (the
 * caller of this function owns it and passes it on). @released is
 * called once, from the main loop, when the caller's end is closed.
 * Over a limit: NULL and PP_ERROR_REFUSED naming the limit. */
PpToken  *pp_token_new        (PpTokenRegistry  *registry,
                               guint32           uid,
                               PpTokenReleased   released,
                               gpointer          user_data,
                               int              *out_fd,
                               GError          **error);
/* A hold that is not a file descriptor (a power profile hold, released
 * by ReleaseProfile or its holder leaving the bus) counted against the
 * same limits: FALSE and PP_ERROR_REFUSED over a limit. Each successful
 * reserve is ended by one unreserve on the same registry. */
gboolean  pp_token_reserve    (PpTokenRegistry  *registry,
                               guint32           uid,
                               GError          **error);
void      pp_token_unreserve  (PpTokenRegistry  *registry,
                               guint32           uid);

/* Stop watching and close our end, without calling @released. */
void      pp_token_free       (PpToken          *token);
/* TRUE when the holder has closed every copy of its end already, whether
 * or not the main loop has dispatched the release yet: for a caller that
 * must not count a token its holder has just given up (a client that
 * closes one fd and at once asks for the next). Does not call @released. */
gboolean  pp_token_is_released (PpToken         *token);

/* Check who/why against PP_TOKEN_TEXT_MAX and that they are UTF-8; FALSE
 * and PP_ERROR_INVALID_ARGUMENT otherwise. */
gboolean  pp_token_check_text (const char       *who,
                               const char       *why,
                               GError          **error);

/* Parse Inhibit's what: a non-empty colon list of "idle" and "lid", each
 * at most once. FALSE and InvalidArgument otherwise. */
gboolean  pp_token_parse_what (const char       *what,
                               gboolean         *idle,
                               gboolean         *lid,
                               GError          **error);

/* Who asks for a hold or an inhibitor, and why (org.powerpolicy1.Manager.xml,
 * Hold and Inhibit). */
typedef struct {
  const char *who;   /* free text (PP_TOKEN_TEXT_MAX) */
  const char *why;
  guint32     uid;   /* counted against the limits; PP_TOKEN_UID_UNKNOWN */
  guint32     pid;   /* shown by ListInhibitors; 0 when unknown */
} PpTokenRequest;

/* A hold or an inhibitor, as ListInhibitors lists it
 * (org.powerpolicy1.Manager.xml). */
typedef struct {
  char    *what;     /* "hold", or Inhibit's what */
  char    *who;
  char    *why;
  char    *device;   /* the held device; "" for an inhibitor */
  guint32  pid;      /* 0 when unknown */
} PpTokenInfo;

PpTokenInfo *pp_token_info_new  (const char  *what,
                                 const char  *who,
                                 const char  *why,
                                 const char  *device,
                                 guint32      pid);
void         pp_token_info_free (PpTokenInfo *info);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpTokenInfo, pp_token_info_free)

G_END_DECLS
