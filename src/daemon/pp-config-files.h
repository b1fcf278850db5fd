/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Finding and reading the configuration files (powerpolicy.conf(5),
 * FILES AND SEARCH ORDER). */
#pragma once

#include "pp-config.h"
#include "pp-quirkdb.h"

/* Replaces the video quirk directories (for tests and --check-config of a
 * database being written). */
#define PP_QUIRKS_DIR_ENV "POWERPOLICY_VIDEO_QUIRKS_DIR"

G_BEGIN_DECLS

/* Load the configuration: @main_path (NULL: /etc/powerpolicy/powerpolicy.conf,
 * else the vendor copy, else the built-in defaults), then the drop-ins in
 * "<main_path>.d/\*.conf" in lexical order. Problems (PpConfigProblem*) are
 * appended to @problems. Fails (NULL) only when @main_path is given and
 * cannot be read; otherwise the result is a usable configuration. */
PpConfig    *pp_config_files_load          (const char *main_path,
                                            GPtrArray  *problems,
                                            GError    **error);

/* The video quirk database files, in the order they are read:
 * $POWERPOLICY_VIDEO_QUIRKS_DIR, else /etc/powerpolicy/video-quirks then
 * $datadir/powerpolicy/video-quirks (a name in /etc hides the vendor file). */
GPtrArray   *pp_config_files_quirkdb_paths (void);

/* Read those files into a new database; problems appended to @problems. */
PpQuirkDb   *pp_config_files_load_quirkdb  (GPtrArray  *problems);

/* The built-in defaults (the shipped powerpolicy.conf compiled in). */
const char  *pp_config_files_builtin_text  (gsize      *length);

G_END_DECLS
