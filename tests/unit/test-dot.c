/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Graphviz rendering of the tree (pp-dot.c): the output is parsed
 * back by a small parser of the DOT subset written here and checked node
 * by node and edge by edge. `test-dot --graphviz` runs the real `dot
 * -Tplain` on it and checks the edges Graphviz saw (exit 77 without
 * graphviz). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <gio/gio.h>

#include "pp-test.h"
#include "pp-dot.h"
#include "pp-util.h"

/* ---- fixture: the demo laptop (tests/system/ppharness.py Laptop) plus
 * the GPU -> audio device link of tests/system/test_tree.py ------------- */

#define PCI   "/sys/devices/pci0000:00"
#define XHCI  PCI "/0000:00:14.0"
#define RHUB  XHCI "/usb1"
#define HUB   RHUB "/1-1"
#define MOUSE HUB "/1-1.1"
#define DISK  HUB "/1-1.2"
#define AHCI  PCI "/0000:00:17.0"
#define ATA   AHCI "/ata1"
#define HOST  ATA "/host0"
#define SHOST HOST "/scsi_host/host0"
#define HDA   PCI "/0000:00:1f.3"
#define GPU   PCI "/0000:00:02.0"

static const PpDotNode laptop_nodes[] = {
  { XHCI, NULL, "pci", "active", FALSE, FALSE },
  { RHUB, NULL, "usb-hub", "active", FALSE, FALSE },
  { HUB, NULL, "usb-hub", "active", FALSE, TRUE },     /* keeps the root hub up */
  { MOUSE, NULL, "usb-hid", "active", TRUE, FALSE },   /* held */
  { DISK, NULL, "usb-storage", "suspended", FALSE, FALSE },
  { AHCI, NULL, "pci", "suspended", FALSE, FALSE },
  { ATA, NULL, NULL, "unsupported", FALSE, FALSE },
  { HOST, NULL, NULL, "unsupported", FALSE, FALSE },
  { SHOST, "host0", "sata-host", NULL, FALSE, FALSE },
  { HDA, "HDA audio", "pci-audio", "suspended", FALSE, FALSE },
  { GPU, NULL, "pci", "error", FALSE, FALSE },
};

static const PpDotEdge laptop_edges[] = {
  { XHCI, RHUB, PP_DOT_EDGE_PARENT },
  { RHUB, HUB, PP_DOT_EDGE_PARENT },
  { HUB, MOUSE, PP_DOT_EDGE_PARENT },
  { HUB, DISK, PP_DOT_EDGE_PARENT },
  { AHCI, ATA, PP_DOT_EDGE_PARENT },
  { ATA, HOST, PP_DOT_EDGE_PARENT },
  { HOST, SHOST, PP_DOT_EDGE_PARENT },
  { GPU, HDA, PP_DOT_EDGE_LINK },
};

/* ---- a parser of the DOT subset pp-dot writes ---------------------------- */

typedef struct {
  char       *id;
  GHashTable *attrs;    /* name -> value (unescaped) */
  gboolean    legend;
} Node;

typedef struct {
  char       *from;
  char       *to;
  GHashTable *attrs;
  gboolean    legend;
} Edge;

typedef struct {
  GHashTable *nodes;    /* id -> Node */
  GPtrArray  *edges;    /* of Edge */
} Graph;

static void
node_free (Node *n)
{
  g_free (n->id);
  g_hash_table_unref (n->attrs);
  g_free (n);
}

static void
edge_free (Edge *e)
{
  g_free (e->from);
  g_free (e->to);
  g_hash_table_unref (e->attrs);
  g_free (e);
}

static void
graph_free (Graph *g)
{
  g_hash_table_unref (g->nodes);
  g_ptr_array_unref (g->edges);
  g_free (g);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Graph, graph_free)

/* Tokens: quoted strings come back unescaped with a leading '"' marker;
 * punctuation and bare words as they are. */
static GPtrArray *
tokenize (const char *text)
{
  GPtrArray *tokens = g_ptr_array_new_with_free_func (g_free);
  const char *p = text;

  while (*p != '\0')
    {
      if (g_ascii_isspace (*p))
        {
          p++;
        }
      else if (*p == '"')
        {
          GString *s = g_string_new ("\"");

          for (p++; *p != '"'; p++)
            {
              assert_true (*p != '\0');            /* unterminated string */
              assert_true (*p != '\n');            /* we never write raw newlines */
              if (*p == '\\')
                {
                  p++;
                  if (*p == 'n')
                    g_string_append_c (s, '\n');
                  else if (*p == '\\' || *p == '"')
                    g_string_append_c (s, *p);
                  else
                    fail_msg ("unexpected escape \\%c", *p);
                }
              else
                {
                  assert_true ((guchar) *p >= 0x20);
                  g_string_append_c (s, *p);
                }
            }
          p++;
          g_ptr_array_add (tokens, g_string_free (s, FALSE));
        }
      else if (g_str_has_prefix (p, "->"))
        {
          g_ptr_array_add (tokens, g_strdup ("->"));
          p += 2;
        }
      else if (strchr ("{}[]=;,", *p) != NULL)
        {
          g_ptr_array_add (tokens, g_strndup (p, 1));
          p++;
        }
      else
        {
          const char *start = p;

          while (g_ascii_isalnum (*p) || *p == '_' || *p == '.' || *p == '#')
            p++;
          assert_true (p > start);                  /* a character we do not write */
          g_ptr_array_add (tokens, g_strndup (start, p - start));
        }
    }
  return tokens;
}

static const char *
tok (GPtrArray *t, guint i)
{
  assert_true (i < t->len);
  return t->pdata[i];
}

static gboolean
is_id (const char *t)
{
  return t[0] == '"' || g_ascii_isalnum (t[0]);
}

static const char *
id_text (const char *t)
{
  return t[0] == '"' ? t + 1 : t;
}

/* [a=b, c="d"] starting at @i; returns the index after ']' */
static guint
parse_attrs (GPtrArray *t, guint i, GHashTable *attrs)
{
  assert_string_equal (tok (t, i), "[");
  i++;
  while (!g_str_equal (tok (t, i), "]"))
    {
      const char *name = tok (t, i);
      const char *value;

      assert_true (is_id (name));
      assert_string_equal (tok (t, i + 1), "=");
      value = tok (t, i + 2);
      assert_true (is_id (value));
      g_hash_table_insert (attrs, g_strdup (id_text (name)), g_strdup (id_text (value)));
      i += 3;
      if (g_str_equal (tok (t, i), ","))
        i++;
    }
  return i + 1;
}

static Graph *
parse_dot (const char *text)
{
  g_autoptr(GPtrArray) t = tokenize (text);
  Graph *g = g_new0 (Graph, 1);
  guint depth = 0;
  gboolean in_legend = FALSE;
  guint i = 0;

  g->nodes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) node_free);
  g->edges = g_ptr_array_new_with_free_func ((GDestroyNotify) edge_free);

  assert_string_equal (tok (t, 0), "digraph");
  assert_true (is_id (tok (t, 1)));
  assert_string_equal (tok (t, 2), "{");
  depth = 1;
  i = 3;
  while (depth > 0)
    {
      const char *a = tok (t, i);

      if (g_str_equal (a, "}"))
        {
          depth--;
          in_legend = FALSE;
          i++;
        }
      else if (g_str_equal (a, "subgraph"))
        {
          in_legend = g_str_equal (id_text (tok (t, i + 1)), "cluster_legend");
          assert_string_equal (tok (t, i + 2), "{");
          depth++;
          i += 3;
        }
      else if (g_str_equal (a, "graph") || g_str_equal (a, "node") || g_str_equal (a, "edge"))
        {
          g_autoptr(GHashTable) defaults = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

          i = parse_attrs (t, i + 1, defaults);
          assert_string_equal (tok (t, i), ";");
          i++;
        }
      else if (is_id (a) && g_str_equal (tok (t, i + 1), "="))
        {
          /* graph attribute: label="legend"; */
          assert_true (is_id (tok (t, i + 2)));
          assert_string_equal (tok (t, i + 3), ";");
          i += 4;
        }
      else if (is_id (a) && g_str_equal (tok (t, i + 1), "->"))
        {
          Edge *e = g_new0 (Edge, 1);

          e->from = g_strdup (id_text (a));
          e->to = g_strdup (id_text (tok (t, i + 2)));
          e->attrs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
          e->legend = in_legend;
          i += 3;
          if (g_str_equal (tok (t, i), "["))
            i = parse_attrs (t, i, e->attrs);
          assert_string_equal (tok (t, i), ";");
          i++;
          g_ptr_array_add (g->edges, e);
        }
      else if (is_id (a))
        {
          Node *n = g_new0 (Node, 1);

          n->id = g_strdup (id_text (a));
          n->attrs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
          n->legend = in_legend;
          i++;
          if (g_str_equal (tok (t, i), "["))
            i = parse_attrs (t, i, n->attrs);
          assert_string_equal (tok (t, i), ";");
          i++;
          /* each node is declared once */
          assert_false (g_hash_table_contains (g->nodes, n->id));
          g_hash_table_insert (g->nodes, n->id, n);
        }
      else
        {
          fail_msg ("unexpected token %s", a);
        }
    }
  assert_int_equal (i, t->len);     /* nothing after the closing brace */
  return g;
}

static Node *
node_of (Graph *g, const char *id)
{
  Node *n = g_hash_table_lookup (g->nodes, id);

  if (n == NULL)
    fail_msg ("no node %s", id);
  return n;
}

static guint
n_device_nodes (Graph *g)
{
  GHashTableIter iter;
  Node *n;
  guint count = 0;

  g_hash_table_iter_init (&iter, g->nodes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &n))
    count += !n->legend;
  return count;
}

/* The device edges of @g as "from -> to solid|dashed" lines, sorted. */
static char *
device_edges (Graph *g)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < g->edges->len; i++)
    {
      Edge *e = g->edges->pdata[i];
      const char *style = g_hash_table_lookup (e->attrs, "style");

      if (e->legend)
        continue;
      /* both ends are declared device nodes */
      assert_false (node_of (g, e->from)->legend);
      assert_false (node_of (g, e->to)->legend);
      g_ptr_array_add (lines, g_strdup_printf ("%s -> %s %s", e->from, e->to,
                                               style != NULL ? style : "solid"));
    }
  g_ptr_array_sort (lines, pp_compare_strings);
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (out, "%s\n", (char *) lines->pdata[i]);
  return g_strdup (out->str);
}

static char *
expected_edges (const PpDotEdge *edges, guint n)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (lines, g_strdup_printf ("%s -> %s %s", edges[i].from, edges[i].to,
                                             edges[i].kind == PP_DOT_EDGE_LINK ? "dashed" : "solid"));
  g_ptr_array_sort (lines, pp_compare_strings);
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (out, "%s\n", (char *) lines->pdata[i]);
  return g_strdup (out->str);
}

/* ---- tests ------------------------------------------------------------------ */

static void
test_laptop (void **state)
{
  g_autofree char *text = pp_dot_format (laptop_nodes, G_N_ELEMENTS (laptop_nodes),
                                         laptop_edges, G_N_ELEMENTS (laptop_edges));
  g_autoptr(Graph) g = parse_dot (text);
  g_autofree char *edges = device_edges (g);
  g_autofree char *want = expected_edges (laptop_edges, G_N_ELEMENTS (laptop_edges));
  Node *n;

  (void) state;
  assert_true (g_str_has_prefix (text, "digraph powerpolicy {\n"));
  assert_true (g_str_has_suffix (text, "}\n"));
  assert_int_equal (n_device_nodes (g), G_N_ELEMENTS (laptop_nodes));
  assert_string_equal (edges, want);

  for (gsize i = 0; i < G_N_ELEMENTS (laptop_nodes); i++)
    {
      const PpDotNode *d = &laptop_nodes[i];
      const char *label;

      n = node_of (g, d->path);
      label = g_hash_table_lookup (n->attrs, "label");
      assert_non_null (label);
      /* coloured by status */
      assert_string_equal (g_hash_table_lookup (n->attrs, "fillcolor"),
                           pp_dot_status_color (d->runtime_status != NULL ? d->runtime_status : "unknown"));
      assert_string_equal (g_hash_table_lookup (n->attrs, "tooltip"), d->path);
      /* the status is in the label too (colour is not the only cue) */
      assert_non_null (strstr (label, d->runtime_status != NULL ? d->runtime_status : "unknown"));
      if (d->class != NULL)
        assert_non_null (strstr (label, d->class));
      /* held: bold, double border; blocker: doubleoctagon */
      assert_int_equal (g_strcmp0 (g_hash_table_lookup (n->attrs, "peripheries"), "2") == 0, d->held);
      assert_int_equal (g_strcmp0 (g_hash_table_lookup (n->attrs, "shape"), "doubleoctagon") == 0,
                        d->blocker);
    }
  n = node_of (g, MOUSE);
  assert_string_equal (g_hash_table_lookup (n->attrs, "label"), "1-1.1\nusb-hid\nactive (held)");
  n = node_of (g, HDA);
  assert_string_equal (g_hash_table_lookup (n->attrs, "label"), "HDA audio\npci-audio\nsuspended");
  n = node_of (g, ATA);
  assert_string_equal (g_hash_table_lookup (n->attrs, "label"), "ata1\nunsupported");

  /* every status colour differs, and the legend names them all */
  for (const char * const *s = (const char * const[]) { "active", "suspended", "suspending",
                                                        "resuming", "error", "unsupported",
                                                        "unknown", NULL }; *s != NULL; s++)
    {
      g_autofree char *legend_id = g_strconcat ("legend:", *s, NULL);

      n = node_of (g, legend_id);
      assert_true (n->legend);
      assert_string_equal (g_hash_table_lookup (n->attrs, "fillcolor"), pp_dot_status_color (*s));
      for (const char * const *o = s + 1; *o != NULL; o++)
        assert_string_not_equal (pp_dot_status_color (*s), pp_dot_status_color (*o));
    }
  assert_true (node_of (g, "legend:held")->legend);
  assert_true (node_of (g, "legend:blocker")->legend);
}

/* The tree of one DEVICE: edges to devices not shown are left out. */
static void
test_subtree_drops_dangling_edges (void **state)
{
  g_autofree char *text = pp_dot_format (laptop_nodes + 1, 4, laptop_edges, G_N_ELEMENTS (laptop_edges));
  g_autoptr(Graph) g = parse_dot (text);
  g_autofree char *edges = device_edges (g);

  (void) state;
  assert_int_equal (n_device_nodes (g), 4);
  assert_string_equal (edges,
                       RHUB " -> " HUB " solid\n"
                       HUB " -> " MOUSE " solid\n"
                       HUB " -> " DISK " solid\n");
}

static void
test_duplicates_and_nulls (void **state)
{
  const PpDotNode nodes[] = {
    { "/sys/devices/a", NULL, NULL, "active", FALSE, FALSE },
    { "/sys/devices/a", "again", NULL, "suspended", TRUE, TRUE },
    { NULL, NULL, NULL, NULL, FALSE, FALSE },
    { "/sys/devices/b", NULL, NULL, NULL, FALSE, FALSE },
  };
  const PpDotEdge edges[] = {
    { "/sys/devices/a", "/sys/devices/b", PP_DOT_EDGE_PARENT },
    { NULL, "/sys/devices/b", PP_DOT_EDGE_PARENT },
    { "/sys/devices/a", NULL, PP_DOT_EDGE_LINK },
  };
  g_autofree char *text = pp_dot_format (nodes, G_N_ELEMENTS (nodes), edges, G_N_ELEMENTS (edges));
  g_autoptr(Graph) g = parse_dot (text);
  g_autofree char *got = device_edges (g);

  (void) state;
  assert_int_equal (n_device_nodes (g), 2);
  assert_string_equal (g_hash_table_lookup (node_of (g, "/sys/devices/a")->attrs, "label"), "a\nactive");
  assert_string_equal (g_hash_table_lookup (node_of (g, "/sys/devices/b")->attrs, "fillcolor"),
                       pp_dot_status_color ("unknown"));
  assert_string_equal (got, "/sys/devices/a -> /sys/devices/b solid\n");
}

static void
test_empty (void **state)
{
  g_autofree char *text = pp_dot_format (NULL, 0, NULL, 0);
  g_autoptr(Graph) g = parse_dot (text);

  (void) state;
  assert_int_equal (n_device_nodes (g), 0);
}

/* Names from a hostile udev rule or driver: quoted and escaped, and read
 * back as the same text. */
typedef struct {
  const char *name;
  const char *path;
  const char *label;
  const char *expected_label;
} EscapeCase;

static const EscapeCase escape_cases[] = {
  { "quote", "/sys/devices/a\"b", "say \"hi\"", "say \"hi\"\nactive" },
  { "backslash", "/sys/devices/a\\b", "C:\\N\\l", "C:\\N\\l\nactive" },
  { "trailing-backslash", "/sys/devices/ab\\", "x\\", "x\\\nactive" },
  { "newline", "/sys/devices/a\nb", "two\nlines", "two\nlines\nactive" },
  { "braces", "/sys/devices/a}b{c;d", "[x=y]", "[x=y]\nactive" },
  { "arrow", "/sys/devices/a -> b", "-- b", "-- b\nactive" },
  { "utf8", "/sys/devices/caméra", "caméra", "caméra\nactive" },
  { "control-chars-dropped", "/sys/devices/a\tb", "a\x01" "b", "ab\nactive" },
  { "invalid-utf8", "/sys/devices/x", "bad\xff", "bad\xef\xbf\xbd\nactive" },
};

static void
test_escape (void **state)
{
  const EscapeCase *c = *state;
  const PpDotNode nodes[] = {
    { c->path, c->label, NULL, "active", FALSE, FALSE },
    { "/sys/devices/other", NULL, NULL, "active", FALSE, FALSE },
  };
  const PpDotEdge edges[] = { { "/sys/devices/other", c->path, PP_DOT_EDGE_LINK } };
  g_autofree char *text = pp_dot_format (nodes, 2, edges, 1);
  g_autoptr(Graph) g = parse_dot (text);
  g_autofree char *id = NULL;
  g_autofree char *want = NULL;
  g_autofree char *got = NULL;
  GString *clean = g_string_new (NULL);

  /* the id is the path, minus the control characters we drop */
  for (const char *p = c->path; *p != '\0'; p++)
    if ((guchar) *p >= 0x20 || *p == '\n')
      g_string_append_c (clean, *p);
  id = g_string_free (clean, FALSE);
  assert_string_equal (g_hash_table_lookup (node_of (g, id)->attrs, "label"), c->expected_label);
  want = g_strdup_printf ("/sys/devices/other -> %s dashed\n", id);
  got = device_edges (g);
  assert_string_equal (got, want);
}

static void
test_label_bounded (void **state)
{
  g_autoptr(GString) longname = g_string_new ("/sys/devices/");
  g_autoptr(GString) longlabel = g_string_new ("x");
  PpDotNode node = { NULL, NULL, NULL, "active", FALSE, FALSE };
  g_autofree char *text = NULL;
  g_autoptr(Graph) g = NULL;
  const char *label;
  g_auto(GStrv) lines = NULL;

  (void) state;
  for (guint i = 0; i < 500; i++)
    g_string_append (longlabel, "é");
  g_string_append (longname, longlabel->str);
  node.path = longname->str;
  node.class = longlabel->str;
  text = pp_dot_format (&node, 1, NULL, 0);
  g = parse_dot (text);
  label = g_hash_table_lookup (node_of (g, longname->str)->attrs, "label");
  assert_true (g_utf8_validate (label, -1, NULL));
  lines = g_strsplit (label, "\n", -1);
  assert_int_equal (g_strv_length (lines), 3);
  for (guint i = 0; i < 2; i++)
    {
      assert_true (strlen (lines[i]) <= PP_DOT_MAX_LABEL);
      assert_true (strlen (lines[i]) >= PP_DOT_MAX_LABEL - 1);
      assert_true (g_str_has_prefix (longlabel->str, lines[i]));
    }
}

/* ---- graphviz ---------------------------------------------------------------- */

/* Unquote one -Tplain name ("..." with \" inside, or bare). */
static char *
plain_name (const char **p)
{
  GString *s = g_string_new (NULL);

  while (**p == ' ')
    (*p)++;
  if (**p == '"')
    {
      for ((*p)++; **p != '"' && **p != '\0'; (*p)++)
        {
          /* a backslash pair stays a pair, \" is a quote */
          if (**p == '\\' && (*p)[1] == '\\')
            g_string_append_c (s, *(*p)++);
          else if (**p == '\\' && (*p)[1] == '"')
            (*p)++;
          g_string_append_c (s, **p);
        }
      if (**p == '"')
        (*p)++;
    }
  else
    {
      while (**p != ' ' && **p != '\0')
        g_string_append_c (s, *(*p)++);
    }
  return g_string_free (s, FALSE);
}

/* Run `dot -Tplain` on @text; NULL (and a message) on any failure. */
static char *
run_dot (const char *dot, const char *text)
{
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *plain = NULL;
  g_autofree char *errors = NULL;

  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                           G_SUBPROCESS_FLAGS_STDERR_PIPE, &error, dot, "-Tplain", NULL);
  if (proc == NULL || !g_subprocess_communicate_utf8 (proc, text, NULL, &plain, &errors, &error))
    {
      fprintf (stderr, "dot: %s\n", error->message);
      return NULL;
    }
  if (!g_subprocess_get_if_exited (proc) || g_subprocess_get_exit_status (proc) != 0 ||
      (errors != NULL && errors[0] != '\0'))
    {
      fprintf (stderr, "dot failed: %s\n--- input:\n%s", errors, text);
      return NULL;
    }
  return g_steal_pointer (&plain);
}

/* The device nodes and edges Graphviz saw, edges as sorted lines. */
static guint
plain_graph (const char *plain, GString *edge_lines)
{
  g_autoptr(GPtrArray) edges = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) lines = g_strsplit (plain, "\n", -1);
  guint n_nodes = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *p = lines[i];

      if (g_str_has_prefix (p, "node "))
        {
          g_autofree char *name = NULL;

          p += 5;
          name = plain_name (&p);
          n_nodes += !g_str_has_prefix (name, "legend:");
        }
      else if (g_str_has_prefix (p, "edge "))
        {
          g_auto(GStrv) rest = NULL;
          g_autofree char *from = NULL;
          g_autofree char *to = NULL;
          guint n;

          p += 5;
          from = plain_name (&p);
          to = plain_name (&p);
          if (g_str_has_prefix (from, "legend:"))
            continue;
          /* n x1 y1 ... xn yn [label xl yl] style color */
          rest = g_strsplit (p + 1, " ", -1);
          n = g_strv_length (rest);
          g_ptr_array_add (edges, g_strdup_printf ("%s -> %s %s", from, to,
                                                   n >= 3 ? rest[n - 2] : "?"));
        }
    }
  g_ptr_array_sort (edges, pp_compare_strings);
  for (guint i = 0; i < edges->len; i++)
    g_string_append_printf (edge_lines, "%s\n", (char *) edges->pdata[i]);
  return n_nodes;
}

static int
run_graphviz (void)
{
  g_autofree char *dot = g_find_program_in_path ("dot");
  g_autofree char *text = pp_dot_format (laptop_nodes, G_N_ELEMENTS (laptop_nodes),
                                         laptop_edges, G_N_ELEMENTS (laptop_edges));
  g_autofree char *want = expected_edges (laptop_edges, G_N_ELEMENTS (laptop_edges));
  g_autofree char *plain = NULL;
  g_autoptr(GString) got = g_string_new (NULL);
  guint n_nodes;

  if (dot == NULL)
    {
      printf ("graphviz dot not installed (apt-get install graphviz): skipped\n");
      return 77;
    }
  plain = run_dot (dot, text);
  if (plain == NULL)
    return 1;
  n_nodes = plain_graph (plain, got);
  if (n_nodes != G_N_ELEMENTS (laptop_nodes) || !g_str_equal (got->str, want))
    {
      fprintf (stderr, "graphviz saw %u nodes (want %u) and edges:\n%s--- want:\n%s",
               n_nodes, (guint) G_N_ELEMENTS (laptop_nodes), got->str, want);
      return 1;
    }
  printf ("graphviz: demo laptop, %u nodes, %u edges as drawn\n", n_nodes,
          (guint) G_N_ELEMENTS (laptop_edges));

  /* hostile names: Graphviz's own lexer reads two nodes and one edge */
  for (gsize i = 0; i < G_N_ELEMENTS (escape_cases); i++)
    {
      const PpDotNode nodes[] = {
        { escape_cases[i].path, escape_cases[i].label, NULL, "active", FALSE, FALSE },
        { "/sys/devices/other", NULL, NULL, "active", FALSE, FALSE },
      };
      const PpDotEdge edges[] = { { "/sys/devices/other", escape_cases[i].path, PP_DOT_EDGE_LINK } };
      g_autofree char *t = pp_dot_format (nodes, 2, edges, 1);
      g_autofree char *pl = run_dot (dot, t);
      g_autoptr(GString) e = g_string_new (NULL);

      if (pl == NULL)
        return 1;
      n_nodes = plain_graph (pl, e);
      if (n_nodes != 2 || !g_str_has_suffix (e->str, " dashed\n") ||
          strchr (e->str, '\n') != e->str + e->len - 1)
        {
          fprintf (stderr, "%s: graphviz saw %u nodes and edges:\n%s", escape_cases[i].name,
                   n_nodes, e->str);
          return 1;
        }
      printf ("graphviz: %s ok\n", escape_cases[i].name);
    }
  return 0;
}

int
main (int argc, char **argv)
{
  PpTestList *list;

  if (argc == 2 && g_str_equal (argv[1], "--graphviz"))
    return run_graphviz ();
  if (argc == 2 && g_str_equal (argv[1], "--print"))
    {
      g_autofree char *text = pp_dot_format (laptop_nodes, G_N_ELEMENTS (laptop_nodes),
                                             laptop_edges, G_N_ELEMENTS (laptop_edges));
      fputs (text, stdout);
      return fflush (stdout) != 0 ? 1 : 0;
    }

  list = pp_test_list_new ();
  pp_test_list_add (list, "dot", "laptop", test_laptop, NULL, NULL, NULL);
  pp_test_list_add (list, "dot", "subtree-drops-dangling-edges", test_subtree_drops_dangling_edges,
                    NULL, NULL, NULL);
  pp_test_list_add (list, "dot", "duplicates-and-nulls", test_duplicates_and_nulls, NULL, NULL, NULL);
  pp_test_list_add (list, "dot", "empty", test_empty, NULL, NULL, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (escape_cases); i++)
    pp_test_list_add (list, "dot/escape", escape_cases[i].name, test_escape, NULL, NULL,
                      &escape_cases[i]);
  pp_test_list_add (list, "dot", "label-bounded", test_label_bounded, NULL, NULL, NULL);
  return pp_test_list_run (list, "dot");
}
