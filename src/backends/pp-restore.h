/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The record of original attribute values, kept in the runtime directory
 * so that a restart after a crash can put them back. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _PpRestore PpRestore;

typedef struct {
  char *path;
  char *value;
} PpOriginal;

PpRestore  *pp_restore_new           (const char  *runtime_dir);
void        pp_restore_free          (PpRestore   *restore);

/* TRUE if an earlier run left a record behind (it did not exit cleanly). */
gboolean    pp_restore_has_leftover  (PpRestore   *restore);

/* Originals recorded on disk, oldest record first, each path once. A
 * file that cannot be read or a malformed line is logged and skipped:
 * whatever can be restored is. */
GPtrArray  *pp_restore_load          (PpRestore   *restore);

/* The originals in the contents of one record file (@length bytes at
 * @data, read up to a NUL byte as a file is), each path once, as
 * pp_restore_load() reads each file; malformed lines are logged with
 * @name and skipped. */
GPtrArray  *pp_restore_parse         (const char  *name,
                                      const char  *data,
                                      gsize        length);

/* The text of a record file holding @originals (PpOriginal*), as
 * pp_restore_record() writes it. Free with g_free(). */
char       *pp_restore_format        (GPtrArray   *originals);

/* Whether this run already recorded an original for @path. */
gboolean    pp_restore_contains      (PpRestore   *restore,
                                      const char  *path);

/* Record originals (PpOriginal*) for paths not yet recorded, durably and
 * atomically (one new file per batch: temp file, fsync, rename), before
 * the caller changes them. */
gboolean    pp_restore_record        (PpRestore   *restore,
                                      GPtrArray   *originals,
                                      GError     **error);

/* The original value recorded for @path in this run, or NULL. */
const char *pp_restore_lookup        (PpRestore   *restore,
                                      const char  *path);

/* What this run recorded, in recording order. */
GPtrArray  *pp_restore_get_recorded  (PpRestore   *restore);

/* A clean exit that leaves the daemon's values in place (RestoreOnExit=
 * false): the record files stay, marked kept with @policy_paths (of
 * char*: the attributes the policy's layers changed), so that the next
 * run knows each attribute's own value without writing it back. */
gboolean    pp_restore_keep          (PpRestore   *restore,
                                      GPtrArray   *policy_paths,
                                      GError     **error);

/* TRUE if the record an earlier run left was kept on a clean exit
 * (pp_restore_keep()), not left by a crash. */
gboolean    pp_restore_was_kept      (PpRestore   *restore);

/* Take the kept record (pp_restore_load()) as this run's originals,
 * nothing written back; returns the policy paths the mark names (char*)
 * that have an original. The mark goes, so that a crash from here on
 * restores them. */
GPtrArray  *pp_restore_adopt         (PpRestore   *restore);

/* Forget everything: remove the record files. */
void        pp_restore_clear         (PpRestore   *restore);

/* Forget the originals of every path under @dir (a device that went
 * away: nothing of it can be restored). Returns how many; the files still
 * hold them until pp_restore_compact(). */
guint       pp_restore_forget_under  (PpRestore   *restore,
                                      const char  *dir);

/* Forget the original of @path (written back, or no longer the daemon's
 * to put back); FALSE if none was recorded. The files still hold it until
 * pp_restore_compact(). */
gboolean    pp_restore_forget        (PpRestore   *restore,
                                      const char  *path);

/* More than this many record files written since the last compaction
 * make pp_restore_needs_compaction() TRUE. */
#define PP_RESTORE_MAX_FILES 64

/* TRUE when the files hold forgotten records, or too many files. */
gboolean    pp_restore_needs_compaction (PpRestore *restore);

/* Rewrite the record as one file holding exactly the originals this run
 * still keeps (none: no file), then remove the older files. On failure
 * (the directory is full) nothing is removed and FALSE is returned. */
gboolean    pp_restore_compact       (PpRestore   *restore,
                                      GError     **error);

PpOriginal *pp_original_new          (const char  *path,
                                      const char  *value);
void        pp_original_free         (PpOriginal  *original);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpRestore, pp_restore_free)

G_END_DECLS
