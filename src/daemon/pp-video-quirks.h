/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The video quirks in force (powerpolicyd(8), VIDEO QUIRKS;
 * powerpolicy.conf(5), [Sleep] VideoQuirks=): the quirk database, the
 * last-known-working file in the state directory, the selection for this
 * machine, and the kernel's acpi_video_flags they ask for. */
#pragma once

#include <gio/gio.h>

#include "pp-manager.h"
#include "pp-quirkdb.h"

G_BEGIN_DECLS

#define PP_TYPE_VIDEO_QUIRKS (pp_video_quirks_get_type ())
G_DECLARE_FINAL_TYPE (PpVideoQuirks, pp_video_quirks, PP, VIDEO_QUIRKS, GObject)

/* Loads the database and selects the quirks for this machine. */
PpVideoQuirks      *pp_video_quirks_new           (PpManager      *manager);

/* Read the database again. Its problems are logged and appended to
 * @problems (of "file:line: message" strings) when it is not NULL. */
void                pp_video_quirks_load          (PpVideoQuirks  *self,
                                                   GPtrArray      *problems);
/* Select the quirks again (the machine, the configuration, the
 * last-known-working file); TRUE when the names in force changed. */
gboolean            pp_video_quirks_select        (PpVideoQuirks  *self);

/* The quirks in force (NULL-terminated, owned by @self). */
const char * const *pp_video_quirks_get_names     (PpVideoQuirks  *self);
/* Their source and a reason per quirk; valid until the next select. */
const PpQuirkSelection *pp_video_quirks_get_selection (PpVideoQuirks *self);

/* A sleep begins with the quirks in force: remembered for
 * last-known-working, and acpi_video_flags written for s3_bios/s3_mode
 * (the sleep layer's request: journalled, put back on exit). */
void                pp_video_quirks_begin_sleep   (PpVideoQuirks  *self);
/* The sleep went well: the quirks it used saved as last known working
 * (only those the database or its default chose, as pm-utils). */
void                pp_video_quirks_save_last_known_working (PpVideoQuirks *self);

G_END_DECLS
