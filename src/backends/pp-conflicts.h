/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Other power tools installed on the machine that write the attributes the
 * daemon manages: TLP, laptop-mode-tools, tuned, a unit that runs
 * `powertop --auto-tune`. Found from what systemd and the tools leave in
 * the file system, below a root directory (unit tests pass a fake one; the
 * system tests mount theirs over these paths in the daemon's namespace):
 *
 *  - a unit is enabled when an enablement symlink for it exists in a
 *    *.wants/ or *.requires/ directory of etc/systemd/system,
 *    run/systemd/system, usr/lib/systemd/system or lib/systemd/system, and
 *    it is not masked (etc/ or run/systemd/system/NAME linked to /dev/null);
 *  - tlp: tlp.service enabled, or its run state run/tlp/;
 *  - laptop-mode-tools: laptop-mode.service enabled, or its run state
 *    run/laptop-mode-tools/, or etc/laptop-mode/laptop-mode.conf together
 *    with an installed, unmasked laptop-mode.service;
 *  - tuned: tuned.service enabled, or run/tuned/tuned.pid;
 *  - powertop: an enabled .service whose ExecStart=, ExecStartPre= or
 *    ExecStartPost= line runs powertop with --auto-tune.
 *
 * power-profiles-daemon is not a conflict: it writes no device attribute.
 * The scan is bounded (directories, names, files read, bytes per file). */
#pragma once

#include <glib.h>

#include "pp-foreign.h"

G_BEGIN_DECLS

#define PP_CONFLICTS_MAX_DIR_ENTRIES    16384   /* entries of one unit directory */
#define PP_CONFLICTS_MAX_DIRS           256     /* *.wants and *.requires dirs */
#define PP_CONFLICTS_MAX_NAMES          4096    /* enablement links looked at */
#define PP_CONFLICTS_MAX_UNIT_FILES     512     /* unit files read */
#define PP_CONFLICTS_MAX_FILE_SIZE      65536   /* bytes read of one unit file */

/* The tools found below @root (NULL: "/"), one row
 * each, in the order tlp, laptop-mode-tools, tuned, powertop: subject the
 * tool, what the attributes it touches, evidence the file that showed it
 * (relative to @root). Never NULL; unreadable directories count as empty. */
GPtrArray   *pp_conflicts_detect        (const char *root);

/* Whether @text (a unit file) has an ExecStart*= line that runs powertop
 * with --auto-tune. */
gboolean     pp_conflicts_unit_runs_powertop_auto_tune (const char *text);

/* Log (PP_LOG_CONFLICT_DETECTED, warning) each row of @current whose
 * subject is not in @previous (NULL: log all): "once" across Reloads.
 * Returns the number logged. */
guint        pp_conflicts_log_new       (GPtrArray  *previous,
                                         GPtrArray  *current);

G_END_DECLS
