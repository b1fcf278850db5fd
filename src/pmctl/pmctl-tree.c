/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl tree: the power-dependency tree by sysfs parent and child, with
 * device links and what keeps each device awake. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pp-dot.h"


typedef struct _TreeNode TreeNode;

struct _TreeNode {
  const char *path;       /* in dict */
  GVariant   *dict;
  TreeNode   *parent;     /* NULL: a root */
  GPtrArray  *children;   /* TreeNode*, not owned, sorted by path */
  gboolean    is_blocker; /* some device names it as its blocker */
  gboolean    visited;
};

static void
tree_node_free (TreeNode *node)
{
  g_variant_unref (node->dict);
  g_ptr_array_unref (node->children);
  g_free (node);
}

typedef struct {
  GHashTable *nodes;      /* path -> TreeNode (owned) */
  GPtrArray  *order;      /* TreeNode*, in ListDevices order */
  const char *branch;     /* tree drawing: "├─ " or "|- " ... */
  const char *last;
  const char *through;
  const char *space;
  const char *link_through;  /* beside a device link line, children follow */
  const char *to_consumer;
  const char *from_supplier;
} Tree;

static int
compare_nodes (gconstpointer a, gconstpointer b)
{
  const TreeNode *x = *(TreeNode * const *) a;
  const TreeNode *y = *(TreeNode * const *) b;

  return g_strcmp0 (x->path, y->path);
}

/* The managed device nearest above @path: @path itself if the daemon
 * lists it, else each directory above it in turn (the daemon does not
 * manage every device, e.g. an ata port between a SATA controller and its
 * SCSI host). */
static TreeNode *
tree_nearest_listed (Tree *tree, const char *path)
{
  g_autofree char *p = g_strdup (path);

  while (p[0] == '/' && p[1] != '\0')
    {
      TreeNode *node = g_hash_table_lookup (tree->nodes, p);
      char *slash;

      if (node != NULL)
        return node;
      slash = strrchr (p, '/');
      if (slash == p)
        break;
      *slash = '\0';
    }
  return NULL;
}

static void
tree_init (Tree *tree, GVariant *devices)
{
  gboolean utf8 = g_get_charset (NULL);
  GVariantIter iter;
  GVariant *dict;

  tree->nodes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                       (GDestroyNotify) tree_node_free);
  tree->order = g_ptr_array_new ();
  tree->branch = utf8 ? "├─ " : "|- ";
  tree->last = utf8 ? "└─ " : "`- ";
  tree->through = utf8 ? "│  " : "|  ";
  tree->space = "   ";
  tree->link_through = utf8 ? "│ " : "| ";
  tree->to_consumer = utf8 ? "→ consumer " : "-> consumer ";
  tree->from_supplier = utf8 ? "← supplier " : "<- supplier ";

  g_variant_iter_init (&iter, devices);
  while ((dict = g_variant_iter_next_value (&iter)) != NULL)
    {
      const char *path = pmctl_dict_get_string (dict, PP_DEVICE_KEY_PATH);
      TreeNode *node;

      /* a nameless or repeated entry cannot be placed: the first wins */
      if (*path == '\0' || g_hash_table_contains (tree->nodes, path))
        {
          g_variant_unref (dict);
          continue;
        }
      node = g_new0 (TreeNode, 1);
      node->dict = dict;
      node->path = path;
      node->children = g_ptr_array_new ();
      g_hash_table_insert (tree->nodes, (gpointer) path, node);
      g_ptr_array_add (tree->order, node);
    }

  for (guint i = 0; i < tree->order->len; i++)
    {
      TreeNode *node = g_ptr_array_index (tree->order, i);
      const char *parent = pmctl_dict_get_string (node->dict, PP_DEVICE_KEY_PARENT);
      const char *blocker = pmctl_dict_get_string (node->dict, PP_DEVICE_KEY_BLOCKER);
      TreeNode *up = NULL;

      /* a parent the daemon does not list: the nearest listed device
       * above it, else a root */
      if (*parent != '\0')
        up = tree_nearest_listed (tree, parent);
      if (up != node)
        node->parent = up;
      if (node->parent != NULL)
        g_ptr_array_add (node->parent->children, node);
      if (*blocker != '\0')
        {
          TreeNode *b = g_hash_table_lookup (tree->nodes, blocker);
          if (b != NULL)
            b->is_blocker = TRUE;
        }
    }
  for (guint i = 0; i < tree->order->len; i++)
    {
      TreeNode *node = g_ptr_array_index (tree->order, i);
      g_ptr_array_sort (node->children, compare_nodes);
    }
}

static void
tree_clear (Tree *tree)
{
  g_clear_pointer (&tree->order, g_ptr_array_unref);
  g_clear_pointer (&tree->nodes, g_hash_table_unref);
}

/* A child is named by its path below its parent's; a root by its path. */
static const char *
tree_node_name (TreeNode *node, gboolean as_root)
{
  gsize len;

  if (as_root || node->parent == NULL)
    return node->path;
  len = strlen (node->parent->path);
  if (strncmp (node->path, node->parent->path, len) == 0 && node->path[len] == '/')
    return node->path + len + 1;
  return node->path;
}

static void
tree_add_rows (Pmctl *ctl, Tree *tree, PmctlTable *t, TreeNode *node,
               const char *prefix, gboolean is_root, gboolean is_last)
{
  g_autofree char *branch = NULL;
  g_autofree char *child_prefix = NULL;
  g_autofree const char **consumers = NULL;
  g_autofree const char **suppliers = NULL;
  g_autoptr(GVariant) control = g_variant_lookup_value (node->dict, PP_DEVICE_KEY_CONTROL, NULL);
  g_autoptr(GVariant) status = g_variant_lookup_value (node->dict, PP_DEVICE_KEY_RUNTIME_STATUS, NULL);
  g_autoptr(GVariant) klass = g_variant_lookup_value (node->dict, PP_DEVICE_KEY_CLASS, NULL);
  g_autoptr(GVariant) held = g_variant_lookup_value (node->dict, PP_DEVICE_KEY_HELD, NULL);
  const char *blocker = pmctl_dict_get_string (node->dict, PP_DEVICE_KEY_BLOCKER);
  const char *link_bar;
  guint n_children = 0;

  node->visited = TRUE;

  branch = g_strconcat (prefix, is_root ? "" : (is_last ? tree->last : tree->branch), NULL);
  pmctl_table_add_row (t,
                 g_strconcat (branch, tree_node_name (node, is_root), NULL),
                 pmctl_format_value (klass, ","),
                 pmctl_format_value (control, ","),
                 pmctl_format_value (status, ","),
                 pmctl_format_value (held, ","),
                 *blocker ? g_strdup_printf ("[blocked by %s]", blocker) : g_strdup (""));
  if (node->is_blocker)
    pmctl_table_colour (t, ctl, 0, strlen (branch), PMCTL_SGR_BOLD_RED);
  pmctl_table_colour (t, ctl, 5, 0, PMCTL_SGR_YELLOW);

  child_prefix = g_strconcat (prefix, is_root ? "" : (is_last ? tree->space : tree->through), NULL);
  for (guint i = 0; i < node->children->len; i++)
    {
      TreeNode *child = g_ptr_array_index (node->children, i);
      if (!child->visited)
        n_children++;
    }

  /* device links under the device, before its children; they are edges
   * only, never walked, so a cycle of links cannot loop */
  link_bar = n_children > 0 ? tree->link_through : "  ";
  if (!g_variant_lookup (node->dict, PP_DEVICE_KEY_CONSUMERS, "^a&s", &consumers))
    consumers = NULL;
  if (!g_variant_lookup (node->dict, PP_DEVICE_KEY_SUPPLIERS, "^a&s", &suppliers))
    suppliers = NULL;
  for (guint i = 0; suppliers && suppliers[i]; i++)
    pmctl_table_add_row (t, g_strconcat (child_prefix, link_bar, tree->from_supplier, suppliers[i], NULL),
                   g_strdup (""), g_strdup (""), g_strdup (""), g_strdup (""), g_strdup (""));
  for (guint i = 0; consumers && consumers[i]; i++)
    pmctl_table_add_row (t, g_strconcat (child_prefix, link_bar, tree->to_consumer, consumers[i], NULL),
                   g_strdup (""), g_strdup (""), g_strdup (""), g_strdup (""), g_strdup (""));

  for (guint i = 0, shown = 0; i < node->children->len; i++)
    {
      TreeNode *child = g_ptr_array_index (node->children, i);

      /* a parent cycle (a broken daemon) must not loop */
      if (child->visited)
        continue;
      shown++;
      tree_add_rows (ctl, tree, t, child, child_prefix, FALSE, shown == n_children);
    }
}

static void
json_add_strv (JsonBuilder *b, const char *name, GVariant *dict, const char *key)
{
  g_autofree const char **strv = NULL;

  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  if (g_variant_lookup (dict, key, "^a&s", &strv))
    {
      for (guint i = 0; strv[i]; i++)
        json_builder_add_string_value (b, strv[i]);
    }
  json_builder_end_array (b);
}

static void
tree_add_json (Tree *tree, JsonBuilder *b, TreeNode *node)
{
  gboolean held = FALSE;

  node->visited = TRUE;
  if (!g_variant_lookup (node->dict, PP_DEVICE_KEY_HELD, "b", &held))
    held = FALSE;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "path");
  json_builder_add_string_value (b, node->path);
  json_builder_set_member_name (b, "class");
  json_builder_add_string_value (b, pmctl_dict_get_string (node->dict, PP_DEVICE_KEY_CLASS));
  json_builder_set_member_name (b, "control");
  json_builder_add_string_value (b, pmctl_dict_get_string (node->dict, PP_DEVICE_KEY_CONTROL));
  json_builder_set_member_name (b, "runtime_status");
  json_builder_add_string_value (b, pmctl_dict_get_string (node->dict, PP_DEVICE_KEY_RUNTIME_STATUS));
  json_builder_set_member_name (b, "held");
  json_builder_add_boolean_value (b, held);
  json_builder_set_member_name (b, "blocker");
  json_builder_add_string_value (b, pmctl_dict_get_string (node->dict, PP_DEVICE_KEY_BLOCKER));
  json_add_strv (b, "suppliers", node->dict, PP_DEVICE_KEY_SUPPLIERS);
  json_add_strv (b, "consumers", node->dict, PP_DEVICE_KEY_CONSUMERS);
  json_builder_set_member_name (b, "children");
  json_builder_begin_array (b);
  for (guint i = 0; i < node->children->len; i++)
    {
      TreeNode *child = g_ptr_array_index (node->children, i);
      if (!child->visited)
        tree_add_json (tree, b, child);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

/* The nodes below (and with) @node, for the dot picture. */
static void
tree_collect (TreeNode *node, GPtrArray *out)
{
  node->visited = TRUE;
  g_ptr_array_add (out, node);
  for (guint i = 0; i < node->children->len; i++)
    {
      TreeNode *child = g_ptr_array_index (node->children, i);
      if (!child->visited)
        tree_collect (child, out);
    }
}

/* `--format=dot`: parent -> child and supplier -> consumer edges between
 * the devices shown (pp-dot.c drops edges leaving them). */
static void
tree_print_dot (Tree *tree, GPtrArray *roots, gboolean all)
{
  g_autoptr(GPtrArray) shown = g_ptr_array_new ();
  g_autoptr(GArray) nodes = g_array_new (FALSE, TRUE, sizeof (PpDotNode));
  g_autoptr(GArray) edges = g_array_new (FALSE, TRUE, sizeof (PpDotEdge));
  g_autoptr(GPtrArray) strvs = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *text = NULL;

  for (guint i = 0; i < roots->len; i++)
    tree_collect (g_ptr_array_index (roots, i), shown);
  for (guint i = 0; all && i < tree->order->len; i++)
    {
      TreeNode *node = g_ptr_array_index (tree->order, i);
      if (!node->visited)
        tree_collect (node, shown);
    }

  for (guint i = 0; i < shown->len; i++)
    {
      TreeNode *node = g_ptr_array_index (shown, i);
      PpDotNode n = { 0 };
      const char **consumers = NULL;
      gboolean held = FALSE;

      if (!g_variant_lookup (node->dict, PP_DEVICE_KEY_HELD, "b", &held))
        held = FALSE;
      n.path = node->path;
      n.class = pmctl_dict_get_string (node->dict, PP_DEVICE_KEY_CLASS);
      n.runtime_status = pmctl_dict_get_string (node->dict, PP_DEVICE_KEY_RUNTIME_STATUS);
      if (*n.runtime_status == '\0')
        n.runtime_status = NULL;
      n.held = held;
      n.blocker = node->is_blocker;
      g_array_append_val (nodes, n);

      if (node->parent != NULL)
        {
          PpDotEdge e = { node->parent->path, node->path, PP_DOT_EDGE_PARENT };
          g_array_append_val (edges, e);
        }
      /* each link once, from its supplier's consumers list */
      if (g_variant_lookup (node->dict, PP_DEVICE_KEY_CONSUMERS, "^a&s", &consumers))
        {
          g_ptr_array_add (strvs, consumers);
          for (guint j = 0; consumers[j] != NULL; j++)
            {
              PpDotEdge e = { node->path, consumers[j], PP_DOT_EDGE_LINK };
              g_array_append_val (edges, e);
            }
        }
    }
  text = pp_dot_format ((const PpDotNode *) (gpointer) nodes->data, nodes->len,
                        (const PpDotEdge *) (gpointer) edges->data, edges->len);
  fputs (text, stdout);
}

/* The canonical path of @device as the daemon resolves it; NULL on
 * failure (reported). */
static char *
resolve_device (Pmctl *ctl, const char *device)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) dict = NULL;

  if (!pp_dbus_manager_call_get_device_sync (ctl->manager, device, &dict, NULL, &error))
    {
      pmctl_report_error (error, "get the device", device);
      return NULL;
    }
  return g_strdup (pmctl_dict_get_string (dict, PP_DEVICE_KEY_PATH));
}

static char *opt_format;

static const GOptionEntry tree_entries[] = {
  { "format", 0, 0, G_OPTION_ARG_STRING, &opt_format,
    "Output format: text (the default) or dot (Graphviz)", "FORMAT" },
  { NULL }
};

/* --json: one array of the roots' subtrees; with @cycles, the devices in
 * a parent cycle too (they have no root above them: each cycle shows
 * once, from its first device). */
static void
tree_print_json (Pmctl *ctl, Tree *tree, GPtrArray *roots, gboolean cycles)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_array (b);
  for (guint i = 0; i < roots->len; i++)
    tree_add_json (tree, b, g_ptr_array_index (roots, i));
  for (guint i = 0; cycles && i < tree->order->len; i++)
    {
      TreeNode *node = g_ptr_array_index (tree->order, i);
      if (!node->visited)
        tree_add_json (tree, b, node);
    }
  json_builder_end_array (b);
  root = json_builder_get_root (b);
  pmctl_json_print (ctl, root);
}

/* The table: the roots' subtrees, then (with @cycles) the parent cycles. */
static void
tree_print_table (Pmctl *ctl, Tree *tree, GPtrArray *roots, gboolean cycles)
{
  static const char * const header[] = {
    "DEVICE", "CLASS", "CONTROL", "STATUS", "HELD", "BLOCKER", NULL,
  };
  g_autoptr(PmctlTable) t = pmctl_table_new (6);

  for (guint i = 0; i < roots->len; i++)
    tree_add_rows (ctl, tree, t, g_ptr_array_index (roots, i), "", TRUE, TRUE);
  for (guint i = 0; cycles && i < tree->order->len; i++)
    {
      TreeNode *node = g_ptr_array_index (tree->order, i);
      if (!node->visited)
        tree_add_rows (ctl, tree, t, node, "", TRUE, TRUE);
    }
  pmctl_table_print (t, ctl, header);
}

static int
run_tree (Pmctl *ctl, char **args, char **command_argv)
{
  const char *device = args[0];
  gboolean dot = FALSE;
  g_autoptr(GError) error = NULL;
  g_autofree char *top_path = NULL;
  g_autoptr(GVariant) devices = NULL;
  g_autoptr(GPtrArray) roots = g_ptr_array_new ();
  Tree tree = { 0 };

  if (opt_format != NULL && g_str_equal (opt_format, "dot"))
    dot = TRUE;
  else if (opt_format != NULL && !g_str_equal (opt_format, "text"))
    return pmctl_usage_error ("unknown --format '%s' (text or dot)", opt_format);
  if (dot && ctl->json)
    return pmctl_usage_error ("--json and --format=dot exclude each other");
  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return PMCTL_EXIT_FAILURE;
  if (device != NULL)
    {
      top_path = resolve_device (ctl, device);
      if (top_path == NULL)
        return PMCTL_EXIT_FAILURE;
    }
  if (!pp_dbus_manager_call_list_devices_sync (ctl->manager, &devices, NULL, &error))
    {
      pmctl_report_error (error, "list the devices", NULL);
      return PMCTL_EXIT_FAILURE;
    }
  tree_init (&tree, devices);

  if (top_path != NULL)
    {
      TreeNode *top = g_hash_table_lookup (tree.nodes, top_path);

      if (top == NULL)
        {
          /* removed between the two calls */
          pmctl_fail ("no such device: %s", device);
          tree_clear (&tree);
          return PMCTL_EXIT_FAILURE;
        }
      g_ptr_array_add (roots, top);
    }
  else
    {
      for (guint i = 0; i < tree.order->len; i++)
        {
          TreeNode *node = g_ptr_array_index (tree.order, i);
          if (node->parent == NULL)
            g_ptr_array_add (roots, node);
        }
      g_ptr_array_sort (roots, compare_nodes);
    }

  if (dot)
    tree_print_dot (&tree, roots, top_path == NULL);
  else if (ctl->json)
    tree_print_json (ctl, &tree, roots, top_path == NULL);
  else
    tree_print_table (ctl, &tree, roots, top_path == NULL);
  tree_clear (&tree);
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_tree = {
  "tree", "tree [--format=dot] [DEVICE]",
  "Show the power-dependency tree, with device links and blockers",
  "Print the managed devices as a tree by sysfs parent and child, one line\n"
  "per device: class, power/control, runtime status, held, and what keeps\n"
  "it awake ([blocked by PATH]). Device links are shown under each device:\n"
  "'-> consumer PATH' for a device that depends on it, '<- supplier PATH'\n"
  "for one it depends on (with Unicode arrows in a UTF-8 locale). With\n"
  "DEVICE, only that device and what lies below it.\n"
  "--format=dot prints a Graphviz digraph instead (pipe it to dot -Tsvg):\n"
  "parent -> child solid, supplier -> consumer dashed, nodes filled by\n"
  "runtime status, held devices bold, blockers red.",
  tree_entries, 0, 1, FALSE, run_tree,
};
