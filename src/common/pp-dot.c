/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-dot"

#include "config.h"

#include <string.h>

#include "pp-dot.h"
#include "pp-format.h"

/* ColorBrewer RdBu-like: suspended blue (good), active orange, error red */
static const struct {
  const char *status;
  const char *color;
} status_colors[] = {
  { "suspended", "#92c5de" },
  { "suspending", "#d1e5f0" },
  { "resuming", "#fddbc7" },
  { "active", "#f4a582" },
  { "error", "#d6604d" },
  { "unsupported", "#e0e0e0" },
  { "unknown", "#ffffff" },
};

const char *
pp_dot_status_color (const char *runtime_status)
{
  for (guint i = 0; i < G_N_ELEMENTS (status_colors); i++)
    if (g_strcmp0 (runtime_status, status_colors[i].status) == 0)
      return status_colors[i].color;
  return "#ffffff";
}

void
pp_dot_append_quoted (GString    *out,
                      const char *text,
                      gsize       max_bytes)
{
  g_string_append_c (out, '"');
  pp_format_append_escaped (out, text, max_bytes, TRUE);
  g_string_append_c (out, '"');
}

static const char *
basename_of (const char *path)
{
  const char *slash = path != NULL ? strrchr (path, '/') : NULL;

  if (path == NULL)
    return "";
  return slash != NULL && slash[1] != '\0' ? slash + 1 : path;
}

/* @text made valid UTF-8 and cut to PP_DOT_MAX_LABEL bytes at a
 * character boundary */
static void
append_bounded (GString *out, const char *text)
{
  g_autofree char *valid = pp_format_valid_cut (text, PP_DOT_MAX_LABEL);

  g_string_append (out, valid);
}

static void
append_node (GString *out, const PpDotNode *n)
{
  g_autoptr(GString) label = g_string_new (NULL);
  const char *status = n->runtime_status != NULL ? n->runtime_status : "unknown";

  /* name, class and status: one bounded line each */
  append_bounded (label, n->label != NULL ? n->label : basename_of (n->path));
  if (n->class != NULL && n->class[0] != '\0')
    {
      g_string_append_c (label, '\n');
      append_bounded (label, n->class);
    }
  g_string_append_c (label, '\n');
  append_bounded (label, status);
  if (n->held)
    g_string_append (label, " (held)");

  g_string_append (out, "  ");
  pp_dot_append_quoted (out, n->path, 0);
  g_string_append (out, " [label=");
  pp_dot_append_quoted (out, label->str, 0);
  g_string_append (out, ", tooltip=");
  pp_dot_append_quoted (out, n->path, 0);
  g_string_append_printf (out, ", fillcolor=\"%s\"", pp_dot_status_color (status));
  if (n->held)
    g_string_append (out, ", style=\"rounded,filled,bold\", penwidth=2.5, peripheries=2");
  if (n->blocker)
    g_string_append (out, ", shape=doubleoctagon, color=\"#b2182b\", penwidth=2.5");
  g_string_append (out, "];\n");
}

static void
append_legend (GString *out)
{
  g_string_append (out,
                   "  subgraph cluster_legend {\n"
                   "    label=\"legend\"; fontsize=10; color=\"#999999\";\n");
  for (guint i = 0; i < G_N_ELEMENTS (status_colors); i++)
    g_string_append_printf (out,
                            "    \"legend:%s\" [label=\"%s\", fillcolor=\"%s\"];\n",
                            status_colors[i].status, status_colors[i].status,
                            status_colors[i].color);
  g_string_append (out,
                   "    \"legend:held\" [label=\"held\", style=\"rounded,filled,bold\", penwidth=2.5, peripheries=2];\n"
                   "    \"legend:blocker\" [label=\"blocker\", shape=doubleoctagon, color=\"#b2182b\", penwidth=2.5];\n"
                   "    \"legend:parent\" [label=\"parent\"];\n"
                   "    \"legend:child\" [label=\"child\"];\n"
                   "    \"legend:supplier\" [label=\"supplier\"];\n"
                   "    \"legend:consumer\" [label=\"consumer\"];\n"
                   "    \"legend:parent\" -> \"legend:child\";\n"
                   "    \"legend:supplier\" -> \"legend:consumer\" [style=dashed, color=\"#2166ac\"];\n"
                   "    \"legend:held\" -> \"legend:blocker\" [style=invis];\n");
  /* the colours in one row (left to right is the layout's direction) */
  for (guint i = 0; i + 1 < G_N_ELEMENTS (status_colors); i++)
    g_string_append_printf (out, "    \"legend:%s\" -> \"legend:%s\" [style=invis];\n",
                            status_colors[i].status, status_colors[i + 1].status);
  g_string_append (out, "  }\n");
}

void
pp_dot_format_to (const PpDotNode *nodes,
                  guint            n_nodes,
                  const PpDotEdge *edges,
                  guint            n_edges,
                  GString         *out)
{
  g_autoptr(GHashTable) known = g_hash_table_new (g_str_hash, g_str_equal);

  g_string_append (out,
                   "digraph powerpolicy {\n"
                   "  graph [rankdir=LR, fontname=\"sans-serif\", fontsize=10];\n"
                   "  node [shape=box, style=\"rounded,filled\", fontname=\"sans-serif\", fontsize=9, fillcolor=\"#ffffff\"];\n"
                   "  edge [arrowsize=0.6];\n");
  for (guint i = 0; i < n_nodes; i++)
    {
      if (nodes[i].path == NULL || !g_hash_table_add (known, (gpointer) nodes[i].path))
        continue;
      append_node (out, &nodes[i]);
    }
  for (guint i = 0; i < n_edges; i++)
    {
      const PpDotEdge *e = &edges[i];

      if (e->from == NULL || e->to == NULL ||
          !g_hash_table_contains (known, e->from) || !g_hash_table_contains (known, e->to))
        continue;
      g_string_append (out, "  ");
      pp_dot_append_quoted (out, e->from, 0);
      g_string_append (out, " -> ");
      pp_dot_append_quoted (out, e->to, 0);
      if (e->kind == PP_DOT_EDGE_LINK)
        g_string_append (out, " [style=dashed, color=\"#2166ac\"]");
      g_string_append (out, ";\n");
    }
  append_legend (out);
  g_string_append (out, "}\n");
}

char *
pp_dot_format (const PpDotNode *nodes,
               guint            n_nodes,
               const PpDotEdge *edges,
               guint            n_edges)
{
  GString *out = g_string_sized_new (256 + 160 * (gsize) n_nodes);

  pp_dot_format_to (nodes, n_nodes, edges, n_edges, out);
  return g_string_free (out, FALSE);
}
