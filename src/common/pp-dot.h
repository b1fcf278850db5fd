/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `pmctl tree --format=dot` (issue 13; pmctl(1)): the power-dependency tree
 * as a Graphviz digraph. Pure: the caller passes the nodes and edges it
 * got from the daemon (ListDevices: parent, suppliers, runtime_status,
 * held, blocker); this only formats.
 *
 * Drawing: parent -> child solid, supplier -> consumer dashed; nodes
 * filled by runtime status; held devices drawn bold with a double
 * border; blockers (devices named by another device's `blocker`) drawn
 * as a red doubleoctagon; a legend explains the marks. Node ids are the
 * device paths, quoted and escaped; labels are the device's name, class
 * and status. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *path;            /* the node id: /sys/devices/... */
  const char *label;           /* NULL: the last component of @path */
  const char *class;           /* NULL or "": not shown */
  const char *runtime_status;  /* "active", "suspended", ...; NULL: "unknown" */
  gboolean    held;            /* kept powered by a Hold */
  gboolean    blocker;         /* keeps another device from suspending */
} PpDotNode;

typedef enum {
  PP_DOT_EDGE_PARENT,          /* parent -> child: solid */
  PP_DOT_EDGE_LINK,            /* supplier -> consumer (device link): dashed */
} PpDotEdgeKind;

typedef struct {
  const char    *from;         /* parent, or supplier */
  const char    *to;           /* child, or consumer */
  PpDotEdgeKind  kind;
} PpDotEdge;

/* Longest label line written; longer text is cut at a character
 * boundary (names come from the kernel and udev rules). */
#define PP_DOT_MAX_LABEL 128

/* Append a complete `digraph powerpolicy { ... }` to @out. Edges whose
 * ends are not among @nodes are left out (the tree of one DEVICE shows
 * its subtree only); a node given twice is drawn once (the first). */
void   pp_dot_format_to   (const PpDotNode *nodes,
                           guint            n_nodes,
                           const PpDotEdge *edges,
                           guint            n_edges,
                           GString         *out);
char  *pp_dot_format      (const PpDotNode *nodes,
                           guint            n_nodes,
                           const PpDotEdge *edges,
                           guint            n_edges);

/* Append @text as a DOT quoted string (with the quotes): backslash,
 * double quote and newline escaped, invalid UTF-8 replaced, control
 * characters dropped, cut to @max_bytes (0: no limit). */
void   pp_dot_append_quoted (GString    *out,
                             const char *text,
                             gsize       max_bytes);

/* The fill colour used for a runtime status ("#rrggbb"). */
const char *pp_dot_status_color (const char *runtime_status);

G_END_DECLS
