/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Revert (org.powerpolicy1.Manager.xml, Revert; for `pmctl bisect`): put a set
 * of devices back to the values they had before the daemon changed them, for as
 * long as the caller keeps the returned file descriptor open. A layer of the
 * policy ("revert" in Explain), above the overrides and below PowerDown and
 * holds, applied through the manager's one write path; never persisted: it ends
 * when the caller closes the descriptor, exits or is killed, and with the
 * daemon. Plain C: the D-Bus side is pp-service.c. */
#pragma once

#include <glib.h>

#include "pp-manager.h"
#include "pp-token.h"

G_BEGIN_DECLS

/* Bounds on what a caller may make the daemon keep (documented in
 * powerpolicyd(8)): devices named by one Revert (each at most
 * PP_DEVICE_ARG_MAX bytes, and together within PP_REVERT_ARGS_MAX, the
 * size limit of Revert's arguments), and device entries of every Revert
 * in force together. Each Revert is also a token, counted against
 * MaxInhibitorsPerUser= and MaxInhibitors= like a hold. */
#define PP_REVERT_MAX_DEVICES 8192
#define PP_REVERT_MAX_TOTAL   65536
#define PP_REVERT_ARGS_MAX    (1024 * 1024)

typedef struct _PpReverts PpReverts;

/* The Reverts of @manager; sets its revert hook (Explain's origin).
 * Each Revert is counted in @tokens (a reference is kept). */
PpReverts  *pp_reverts_new        (PpManager            *manager,
                                   PpTokenRegistry      *tokens);
/* Forget every Revert without writing: at exit the manager restores the
 * originals or keeps the policy itself. */
void        pp_reverts_free       (PpReverts            *reverts);

/* Revert the devices @devices (device arguments as for GetDevice,
 * NULL-terminated; duplicates count once) for @request until every copy
 * of *@out_fd is closed; the caller owns *@out_fd. Returns once the
 * writes are done. Reverts whose holders have closed their descriptors
 * already are released first, so that a caller that closes one and asks
 * for the next never sees both in force. FALSE with InvalidArgument (no
 * device, too many, who/why), NoSuchDevice (nothing is reverted), Refused
 * (limits) or Failed (a write failed: nothing stays reverted). */
gboolean    pp_reverts_add        (PpReverts            *reverts,
                                   const char * const   *devices,
                                   const PpTokenRequest *request,
                                   int                  *out_fd,
                                   GError              **error);

/* Reverts in force, and device entries in them. */
guint       pp_reverts_count      (PpReverts            *reverts);
guint       pp_reverts_n_entries  (PpReverts            *reverts);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpReverts, pp_reverts_free)

G_END_DECLS
