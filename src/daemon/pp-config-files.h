/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Finding and reading the configuration files (SPEC §2, §4). */
#pragma once

#include "pp-config.h"

G_BEGIN_DECLS

/* Load the configuration: @main_path (NULL: /etc/powerpolicy/powerpolicy.conf,
 * else the vendor copy, else the built-in defaults), then the drop-ins in
 * "<main_path>.d/\*.conf" in lexical order. Problems (PpConfigProblem*) are
 * appended to @problems; the result is always a usable configuration. */
PpConfig    *pp_config_files_load          (const char *main_path,
                                            GPtrArray  *problems);

/* The built-in defaults (the shipped powerpolicy.conf compiled in). */
const char  *pp_config_files_builtin_text  (gsize      *length);

G_END_DECLS
