/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-device overrides set over D-Bus, persisted in the state directory. */
#pragma once

#include <glib.h>

#include "pp-policy.h"

G_BEGIN_DECLS

typedef struct _PpOverrides PpOverrides;

PpOverrides      *pp_overrides_new     (const char   *state_dir);
void              pp_overrides_free    (PpOverrides  *overrides);

/* Read the state file. A missing file is no overrides (TRUE). A corrupt
 * one is moved aside (its new name in the message) and an unreadable one
 * ignored: FALSE with @error, and no overrides. Device paths GKeyFile
 * cannot hold as a group name are stored escaped. */
gboolean          pp_overrides_load    (PpOverrides  *overrides,
                                        GError      **error);

/* The same from the @length bytes at @data (the file's contents): FALSE
 * with @error naming the cause when they are corrupt, and no overrides;
 * nothing is moved or read. */
gboolean          pp_overrides_load_data (PpOverrides *overrides,
                                          const char  *data,
                                          gsize        length,
                                          GError     **error);

/* The state file's contents for the current overrides, as saved. */
char             *pp_overrides_to_data (PpOverrides  *overrides,
                                        gsize        *length);

/* FALSE (dry-run): changes stay in memory, nothing is saved. */
void              pp_overrides_set_persist (PpOverrides *overrides,
                                            gboolean     persist);

/* The override of a device, or NULL. */
const PpOverride *pp_overrides_lookup  (PpOverrides  *overrides,
                                        const char   *syspath);

/* Set one key ("Control", "AutosuspendDelayMs", "Wakeup") after
 * validating it, and save. On a failed save nothing changes. */
gboolean          pp_overrides_set     (PpOverrides  *overrides,
                                        const char   *syspath,
                                        const char   *key,
                                        const char   *value,
                                        GError      **error);

/* Put back a device's earlier override (@previous NULL: none) and save. */
gboolean          pp_overrides_replace (PpOverrides       *overrides,
                                        const char        *syspath,
                                        const PpOverride  *previous,
                                        GError           **error);

/* A copy of an override, for pp_overrides_replace(); free with
 * pp_override_free(). */
PpOverride       *pp_override_copy     (const PpOverride  *override);
void              pp_override_free     (PpOverride        *override);

/* Drop every override of a device and save. */
gboolean          pp_overrides_clear   (PpOverrides  *overrides,
                                        const char   *syspath,
                                        GError      **error);

/* Every override as (device path, key, value) rows: an array of
 * PpOverrideRow, sorted by path, then in the order Control,
 * AutosuspendDelayMs, Wakeup. */
typedef struct {
  char *path;
  char *key;
  char *value;
} PpOverrideRow;

GPtrArray        *pp_overrides_list    (PpOverrides  *overrides);
void              pp_override_row_free (PpOverrideRow *row);

/* Map a D-Bus key to its sysfs attribute, or NULL if not a key. */
const char       *pp_overrides_key_to_attr (const char *key);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpOverrides, pp_overrides_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpOverride, pp_override_free)

G_END_DECLS
