/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the pure formatters (pp-metrics.c, pp-dot.c) share: text from
 * udev rules or sysfs made valid, bounded and escaped for a quoted
 * string. In the format library. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @text (NULL: "") with invalid UTF-8 replaced (U+FFFD), cut to at most
 * @max_bytes bytes at a character boundary (0: no limit). */
char  *pp_format_valid_cut      (const char *text,
                                 gsize       max_bytes);

/* Append pp_format_valid_cut (@text, @max_bytes) with backslash, double
 * quote and newline backslash-escaped (\\ \" \n, what both the Prometheus
 * exposition format and DOT quoted strings read); when @drop_controls,
 * the other C0 control characters, DEL and the C1 controls (U+0080 to
 * U+009F) are left out, else kept. No
 * quotes are added. */
void   pp_format_append_escaped (GString    *out,
                                 const char *text,
                                 gsize       max_bytes,
                                 gboolean    drop_controls);

G_END_DECLS
