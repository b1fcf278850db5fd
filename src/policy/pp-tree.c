/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-tree"

#include "config.h"

#include <string.h>

#include "pp-tree.h"

typedef struct _PpTreeNode PpTreeNode;

typedef struct {
  char       *id;
  PpTreeNode *supplier;
  PpTreeNode *consumer;
} PpTreeLink;

/* A node's list of other nodes or links: in the node, its array
 * allocated at the first entry. Not a GPtrArray: with GLib's slice
 * allocator, four of those per node of a 10,000-device tree stay in its
 * caches after the tree is dropped (the daemon drops it when unused). */
typedef struct {
  gpointer *pdata;
  guint     len;
  guint     alloc;
} PtrList;

struct _PpTreeNode {
  char       *path;
  char       *parent_path;   /* as told, even while the parent is absent:
                              * while attached (@parent set) the parent's
                              * own @path, else a copy of its own (one
                              * copy fewer of ~10,000 paths a tree) */
  PpTreeNode *parent;
  PtrList     children;      /* PpTreeNode* */
  PtrList     suppliers;     /* PpTreeNode*, one entry per linked device */
  PtrList     consumers;     /* PpTreeNode* */
  PtrList     links;         /* PpTreeLink* ending here (unowned) */
};

static void
ptr_list_add (PtrList *list, gpointer p)
{
  if (list->len == list->alloc)
    {
      list->alloc = MAX (4, list->alloc * 2);
      list->pdata = g_renew (gpointer, list->pdata, list->alloc);
    }
  list->pdata[list->len++] = p;
}

static void
ptr_list_remove_fast (PtrList *list, gpointer p)
{
  for (guint i = 0; i < list->len; i++)
    if (list->pdata[i] == p)
      {
        list->pdata[i] = list->pdata[--list->len];
        return;
      }
}

/* A new GPtrArray of @list's entries. */
static GPtrArray *
ptr_list_copy (const PtrList *list, guint reserve)
{
  GPtrArray *out = g_ptr_array_sized_new (list->len + reserve);

  for (guint i = 0; i < list->len; i++)
    g_ptr_array_add (out, list->pdata[i]);
  return out;
}

struct _PpTree {
  GHashTable *nodes;         /* path -> PpTreeNode* (owned) */
  GHashTable *orphans;       /* parent path -> GPtrArray of PpTreeNode* waiting */
  GHashTable *links;         /* id -> PpTreeLink* (owned) */
};

/* ---- structure -------------------------------------------------------- */

static void
pp_tree_node_free (PpTreeNode *node)
{
  g_free (node->path);
  if (node->parent == NULL)
    g_free (node->parent_path);
  g_free (node->children.pdata);
  g_free (node->suppliers.pdata);
  g_free (node->consumers.pdata);
  g_free (node->links.pdata);
  g_free (node);
}

static void
pp_tree_link_free (PpTreeLink *link)
{
  g_free (link->id);
  g_free (link);
}

PpTree *
pp_tree_new (void)
{
  PpTree *tree = g_new0 (PpTree, 1);

  tree->nodes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                       (GDestroyNotify) pp_tree_node_free);
  tree->orphans = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) g_ptr_array_unref);
  tree->links = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                       (GDestroyNotify) pp_tree_link_free);
  return tree;
}

void
pp_tree_free (PpTree *tree)
{
  if (tree == NULL)
    return;
  /* links first: they point into nodes */
  g_hash_table_unref (tree->links);
  g_hash_table_unref (tree->orphans);
  g_hash_table_unref (tree->nodes);
  g_free (tree);
}

static PpTreeNode *
lookup (PpTree *tree, const char *path)
{
  return path ? g_hash_table_lookup (tree->nodes, path) : NULL;
}

static void
orphan_add (PpTree *tree, PpTreeNode *node)
{
  GPtrArray *waiting = g_hash_table_lookup (tree->orphans, node->parent_path);

  if (waiting == NULL)
    {
      waiting = g_ptr_array_new ();
      g_hash_table_insert (tree->orphans, g_strdup (node->parent_path), waiting);
    }
  g_ptr_array_add (waiting, node);
}

static void
orphan_remove (PpTree *tree, PpTreeNode *node)
{
  GPtrArray *waiting;

  if (node->parent_path == NULL)
    return;
  waiting = g_hash_table_lookup (tree->orphans, node->parent_path);
  if (waiting == NULL)
    return;
  g_ptr_array_remove_fast (waiting, node);
  if (waiting->len == 0)
    g_hash_table_remove (tree->orphans, node->parent_path);
}

static void
detach_from_parent (PpTree *tree, PpTreeNode *node)
{
  if (node->parent != NULL)
    {
      ptr_list_remove_fast (&node->parent->children, node);
      node->parent_path = g_strdup (node->parent_path);
    }
  else
    orphan_remove (tree, node);
  node->parent = NULL;
}

static void
attach_to_parent (PpTree *tree, PpTreeNode *node)
{
  PpTreeNode *parent;

  if (node->parent_path == NULL)
    return;
  parent = lookup (tree, node->parent_path);
  if (parent != NULL && parent != node)
    {
      g_free (node->parent_path);
      node->parent_path = parent->path;
      node->parent = parent;
      ptr_list_add (&parent->children, node);
    }
  else
    {
      orphan_add (tree, node);
    }
}

void
pp_tree_add_node (PpTree *tree, const char *path, const char *parent)
{
  PpTreeNode *node = lookup (tree, path);
  GPtrArray *waiting;

  g_return_if_fail (path != NULL);

  if (node != NULL)
    {
      if (g_strcmp0 (node->parent_path, parent) == 0)
        return;
      detach_from_parent (tree, node);
      g_free (node->parent_path);
      node->parent_path = g_strdup (parent);
      attach_to_parent (tree, node);
      return;
    }

  node = g_new0 (PpTreeNode, 1);
  node->path = g_strdup (path);
  node->parent_path = g_strdup (parent);
  g_hash_table_insert (tree->nodes, node->path, node);
  attach_to_parent (tree, node);

  /* children that arrived first */
  waiting = g_hash_table_lookup (tree->orphans, path);
  if (waiting != NULL)
    {
      for (guint i = 0; i < waiting->len; i++)
        {
          PpTreeNode *child = g_ptr_array_index (waiting, i);
          g_free (child->parent_path);
          child->parent_path = node->path;
          child->parent = node;
          ptr_list_add (&node->children, child);
        }
      g_hash_table_remove (tree->orphans, path);
    }
}

static gboolean
has_other_link (PpTreeLink *link)
{
  const PtrList *links = &link->supplier->links;

  for (guint i = 0; i < links->len; i++)
    {
      PpTreeLink *other = links->pdata[i];
      if (other != link && other->supplier == link->supplier && other->consumer == link->consumer)
        return TRUE;
    }
  return FALSE;
}

static void
unlink_link (PpTreeLink *link)
{
  if (!has_other_link (link))
    {
      ptr_list_remove_fast (&link->supplier->consumers, link->consumer);
      ptr_list_remove_fast (&link->consumer->suppliers, link->supplier);
    }
  ptr_list_remove_fast (&link->supplier->links, link);
  ptr_list_remove_fast (&link->consumer->links, link);
}

void
pp_tree_remove_link (PpTree *tree, const char *id)
{
  PpTreeLink *link = id ? g_hash_table_lookup (tree->links, id) : NULL;

  if (link == NULL)
    return;
  unlink_link (link);
  g_hash_table_remove (tree->links, id);
}

void
pp_tree_remove_node (PpTree *tree, const char *path)
{
  PpTreeNode *node = lookup (tree, path);

  if (node == NULL)
    return;
  while (node->links.len > 0)
    {
      PpTreeLink *link = node->links.pdata[node->links.len - 1];
      pp_tree_remove_link (tree, link->id);
    }
  detach_from_parent (tree, node);
  /* the children wait for the parent to come back */
  for (guint i = 0; i < node->children.len; i++)
    {
      PpTreeNode *child = node->children.pdata[i];
      child->parent_path = g_strdup (child->parent_path);
      child->parent = NULL;
      orphan_add (tree, child);
    }
  g_hash_table_remove (tree->nodes, path);
}

gboolean
pp_tree_contains (PpTree *tree, const char *path)
{
  return lookup (tree, path) != NULL;
}

guint
pp_tree_get_n_nodes (PpTree *tree)
{
  return g_hash_table_size (tree->nodes);
}

guint
pp_tree_get_n_links (PpTree *tree)
{
  return g_hash_table_size (tree->links);
}

gboolean
pp_tree_add_link (PpTree     *tree,
                  const char *id,
                  const char *supplier,
                  const char *consumer)
{
  PpTreeNode *s = lookup (tree, supplier);
  PpTreeNode *c = lookup (tree, consumer);
  PpTreeLink *link;

  g_return_val_if_fail (id != NULL, FALSE);

  link = g_hash_table_lookup (tree->links, id);
  if (link != NULL && link->supplier == s && link->consumer == c)
    return TRUE;
  pp_tree_remove_link (tree, id);
  if (s == NULL || c == NULL || s == c)
    return FALSE;

  link = g_new0 (PpTreeLink, 1);
  link->id = g_strdup (id);
  link->supplier = s;
  link->consumer = c;
  if (!has_other_link (link))
    {
      ptr_list_add (&s->consumers, c);
      ptr_list_add (&c->suppliers, s);
    }
  ptr_list_add (&s->links, link);
  ptr_list_add (&c->links, link);
  g_hash_table_insert (tree->links, link->id, link);
  return TRUE;
}

const char *
pp_tree_get_parent (PpTree *tree, const char *path)
{
  PpTreeNode *node = lookup (tree, path);

  return node && node->parent ? node->parent->path : NULL;
}

static gint
compare_nodes (gconstpointer a, gconstpointer b)
{
  const PpTreeNode *na = *(PpTreeNode * const *) a;
  const PpTreeNode *nb = *(PpTreeNode * const *) b;

  return strcmp (na->path, nb->path);
}

static GPtrArray *
paths_of (const PtrList *nodes)
{
  g_autoptr(GPtrArray) sorted = ptr_list_copy (nodes, 0);
  GPtrArray *out = g_ptr_array_sized_new (nodes->len);

  g_ptr_array_sort (sorted, compare_nodes);
  for (guint i = 0; i < sorted->len; i++)
    g_ptr_array_add (out, ((PpTreeNode *) g_ptr_array_index (sorted, i))->path);
  return out;
}

GPtrArray *
pp_tree_get_children (PpTree *tree, const char *path)
{
  PpTreeNode *node = lookup (tree, path);

  return node ? paths_of (&node->children) : g_ptr_array_new ();
}

GPtrArray *
pp_tree_get_suppliers (PpTree *tree, const char *path)
{
  PpTreeNode *node = lookup (tree, path);

  return node ? paths_of (&node->suppliers) : g_ptr_array_new ();
}

GPtrArray *
pp_tree_get_consumers (PpTree *tree, const char *path)
{
  PpTreeNode *node = lookup (tree, path);

  return node ? paths_of (&node->consumers) : g_ptr_array_new ();
}

/* ---- walks ------------------------------------------------------------ */

/* What depends on @node: children, then consumers, each sorted. */
static GPtrArray *
dependents_of (PpTreeNode *node)
{
  GPtrArray *out = g_ptr_array_sized_new (node->children.len + node->consumers.len);
  g_autoptr(GPtrArray) consumers = ptr_list_copy (&node->consumers, 0);

  for (guint i = 0; i < node->children.len; i++)
    g_ptr_array_add (out, node->children.pdata[i]);
  g_ptr_array_sort (out, compare_nodes);
  g_ptr_array_sort (consumers, compare_nodes);
  for (guint i = 0; i < consumers->len; i++)
    g_ptr_array_add (out, g_ptr_array_index (consumers, i));
  return out;
}

/* What @node depends on: its parent, then its suppliers, sorted. */
static GPtrArray *
prerequisites_of (PpTreeNode *node)
{
  GPtrArray *out = g_ptr_array_sized_new (node->suppliers.len + 1);

  for (guint i = 0; i < node->suppliers.len; i++)
    g_ptr_array_add (out, node->suppliers.pdata[i]);
  g_ptr_array_sort (out, compare_nodes);
  if (node->parent != NULL)
    g_ptr_array_insert (out, 0, node->parent);
  return out;
}

typedef enum {
  COLOR_WHITE = 0,
  COLOR_GRAY,
  COLOR_BLACK,
} Color;

typedef struct {
  PpTreeNode *node;
  GPtrArray  *next_nodes;
  guint       next;
} Frame;

typedef GPtrArray *(*EdgesFunc) (PpTreeNode *node);

/* An iterative depth-first walk: deep chains do not grow the C stack. */
typedef struct {
  GArray     *stack;   /* Frame */
  GHashTable *color;   /* PpTreeNode* -> Color */
  EdgesFunc   edges;
  GPtrArray  *cycles;
} Dfs;

static void
dfs_init (Dfs *dfs, EdgesFunc edges, GPtrArray *cycles)
{
  dfs->stack = g_array_new (FALSE, FALSE, sizeof (Frame));
  dfs->color = g_hash_table_new (g_direct_hash, g_direct_equal);
  dfs->edges = edges;
  dfs->cycles = cycles;
}

static void
dfs_clear (Dfs *dfs)
{
  for (guint i = 0; i < dfs->stack->len; i++)
    g_ptr_array_unref (g_array_index (dfs->stack, Frame, i).next_nodes);
  g_array_unref (dfs->stack);
  g_hash_table_unref (dfs->color);
}

static Color
dfs_color (Dfs *dfs, PpTreeNode *node)
{
  return GPOINTER_TO_INT (g_hash_table_lookup (dfs->color, node));
}

static void
dfs_push (Dfs *dfs, PpTreeNode *node)
{
  Frame f = { node, dfs->edges (node), 0 };

  g_hash_table_insert (dfs->color, node, GINT_TO_POINTER (COLOR_GRAY));
  g_array_append_val (dfs->stack, f);
}

static void
dfs_report_cycle (Dfs *dfs, PpTreeNode *back_to)
{
  g_autoptr(GString) s = g_string_new (NULL);
  guint start = 0;

  for (guint i = 0; i < dfs->stack->len; i++)
    if (g_array_index (dfs->stack, Frame, i).node == back_to)
      start = i;
  for (guint i = start; i < dfs->stack->len; i++)
    g_string_append_printf (s, "%s -> ", g_array_index (dfs->stack, Frame, i).node->path);
  g_string_append (s, back_to->path);
  g_debug ("device link cycle: %s", s->str);
  if (dfs->cycles != NULL)
    g_ptr_array_add (dfs->cycles, g_string_free (g_steal_pointer (&s), FALSE));
}

/* Advance; returns the node that just finished (post-order), or NULL when
 * the walk is over. */
static PpTreeNode *
dfs_next_finished (Dfs *dfs)
{
  while (dfs->stack->len > 0)
    {
      Frame *f = &g_array_index (dfs->stack, Frame, dfs->stack->len - 1);

      if (f->next < f->next_nodes->len)
        {
          PpTreeNode *next = g_ptr_array_index (f->next_nodes, f->next++);

          switch (dfs_color (dfs, next))
            {
            case COLOR_WHITE:
              dfs_push (dfs, next);
              break;
            case COLOR_GRAY:
              dfs_report_cycle (dfs, next);
              break;
            case COLOR_BLACK:
            default:
              break;
            }
          continue;
        }
      else
        {
          PpTreeNode *done = f->node;

          g_ptr_array_unref (f->next_nodes);
          g_array_set_size (dfs->stack, dfs->stack->len - 1);
          g_hash_table_insert (dfs->color, done, GINT_TO_POINTER (COLOR_BLACK));
          return done;
        }
    }
  return NULL;
}

void
pp_tree_step_free (PpTreeStep *step)
{
  g_free (step->path);
  g_free (step->reason);
  g_free (step);
}

static void
add_step (GPtrArray *steps, PpTreeNode *node, PpTreeStepAction action, char *reason)
{
  PpTreeStep *step = g_new0 (PpTreeStep, 1);

  step->path = g_strdup (node->path);
  step->action = action;
  step->reason = reason;
  g_ptr_array_add (steps, step);
}

GPtrArray *
pp_tree_plan_power_down (PpTree          *tree,
                         const char      *root,
                         gboolean         subtree,
                         PpTreeStateFunc  state_func,
                         gpointer         user_data,
                         GPtrArray       *cycles)
{
  PpTreeNode *root_node = lookup (tree, root);
  g_autoptr(GHashTable) up = NULL;   /* PpTreeNode* -> why it stays up */
  GPtrArray *steps;
  PpTreeNode *node;
  Dfs dfs;

  if (root_node == NULL)
    return NULL;

  steps = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_tree_step_free);
  up = g_hash_table_new (g_direct_hash, g_direct_equal);
  dfs_init (&dfs, dependents_of, cycles);
  dfs_push (&dfs, root_node);
  /* The whole dependent closure is walked even without @subtree: whether
   * @root may go down depends on everything below and beside it. */
  while ((node = dfs_next_finished (&dfs)) != NULL)
    {
      gboolean act = subtree || node == root_node;
      PpTreeNodeState state = { TRUE, TRUE, FALSE, NULL };
      PpTreeNode *kept_by = NULL;
      g_autoptr(GPtrArray) deps = NULL;

      state_func (node->path, &state, user_data);
      if (!state.exists)
        {
          if (act)
            add_step (steps, node, PP_TREE_STEP_PASS, g_strdup ("device vanished"));
          continue;
        }
      if (state.stay_up != NULL)
        {
          g_hash_table_insert (up, node, node);
          if (act)
            add_step (steps, node, PP_TREE_STEP_SKIP, g_strdup (state.stay_up));
          continue;
        }
      deps = dependents_of (node);
      for (guint i = 0; i < deps->len && kept_by == NULL; i++)
        {
          PpTreeNode *dep = g_ptr_array_index (deps, i);
          if (g_hash_table_contains (up, dep))
            kept_by = dep;
        }
      if (kept_by != NULL)
        {
          g_hash_table_insert (up, node, kept_by);
          if (act)
            add_step (steps, node, PP_TREE_STEP_SKIP,
                      g_strdup_printf ("kept up by %s", kept_by->path));
          continue;
        }
      if (act)
        {
          if (state.can_suspend)
            add_step (steps, node, PP_TREE_STEP_DOWN, NULL);
          else
            add_step (steps, node, PP_TREE_STEP_PASS,
                      g_strdup ("no runtime power management"));
        }
      else if (state.can_suspend && !state.down)
        {
          g_hash_table_insert (up, node, node);
        }
    }
  dfs_clear (&dfs);
  return steps;
}

GPtrArray *
pp_tree_get_dependent_closure (PpTree *tree, const char *root)
{
  PpTreeNode *root_node = lookup (tree, root);
  g_autoptr(GHashTable) seen = NULL;
  g_autoptr(GPtrArray) todo = NULL;
  GPtrArray *out;

  if (root_node == NULL)
    return NULL;
  out = g_ptr_array_new ();
  seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  todo = g_ptr_array_new ();
  g_hash_table_add (seen, root_node);
  g_ptr_array_add (todo, root_node);
  while (todo->len > 0)
    {
      PpTreeNode *node = g_ptr_array_steal_index (todo, todo->len - 1);
      g_autoptr(GPtrArray) deps = dependents_of (node);

      g_ptr_array_add (out, node->path);
      /* a device reached twice (a diamond, a cycle) is listed once */
      for (guint i = 0; i < deps->len; i++)
        if (g_hash_table_add (seen, g_ptr_array_index (deps, i)))
          g_ptr_array_add (todo, g_ptr_array_index (deps, i));
    }
  return out;
}

/* Emit @node's prerequisites not yet emitted, then @node. */
static void
ensure_up (Dfs *dfs, PpTreeNode *node, GPtrArray *out)
{
  PpTreeNode *done;

  if (dfs_color (dfs, node) != COLOR_WHITE)
    return;
  dfs_push (dfs, node);
  while ((done = dfs_next_finished (dfs)) != NULL)
    g_ptr_array_add (out, done->path);
}

GPtrArray *
pp_tree_plan_power_up (PpTree     *tree,
                       const char *root,
                       gboolean    subtree,
                       GPtrArray  *cycles)
{
  PpTreeNode *root_node = lookup (tree, root);
  GPtrArray *out;
  Dfs dfs;

  if (root_node == NULL)
    return NULL;
  out = g_ptr_array_new ();
  dfs_init (&dfs, prerequisites_of, cycles);
  ensure_up (&dfs, root_node, out);

  if (subtree)
    {
      /* pre-order over what depends on @root; each dependent comes after
       * its own parent and suppliers */
      g_autoptr(GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
      g_autoptr(GPtrArray) todo = g_ptr_array_new ();

      g_hash_table_add (seen, root_node);
      g_ptr_array_add (todo, root_node);
      while (todo->len > 0)
        {
          PpTreeNode *node = g_ptr_array_steal_index (todo, todo->len - 1);
          g_autoptr(GPtrArray) deps = dependents_of (node);

          ensure_up (&dfs, node, out);
          /* reversed onto the stack, so they come off in order */
          for (guint i = deps->len; i > 0; i--)
            {
              PpTreeNode *dep = g_ptr_array_index (deps, i - 1);
              /* a device reached twice (a diamond, a cycle) is handled once */
              if (g_hash_table_add (seen, dep))
                g_ptr_array_add (todo, dep);
            }
        }
    }
  dfs_clear (&dfs);
  return out;
}

GPtrArray *
pp_tree_get_prerequisites (PpTree *tree, const char *root)
{
  GPtrArray *order = pp_tree_plan_power_up (tree, root, FALSE, NULL);

  if (order == NULL)
    return g_ptr_array_new ();
  /* the walk ends with @root itself */
  if (order->len > 0)
    g_ptr_array_set_size (order, order->len - 1);
  return order;
}

const char *
pp_tree_find_blocker (PpTree             *tree,
                      const char         *path,
                      PpTreeBlockingFunc  is_blocking,
                      gpointer            user_data,
                      GHashTable         *clear)
{
  PpTreeNode *root = lookup (tree, path);
  g_autoptr(GHashTable) seen = NULL;
  g_autoptr(GQueue) queue = NULL;
  const char *found = NULL;
  GHashTableIter iter;
  gpointer key;

  if (root == NULL || (clear != NULL && g_hash_table_contains (clear, root->path)))
    return NULL;
  seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  queue = g_queue_new ();
  g_hash_table_add (seen, root);
  g_queue_push_tail (queue, root);
  while (found == NULL && !g_queue_is_empty (queue))
    {
      PpTreeNode *node = g_queue_pop_head (queue);
      g_autoptr(GPtrArray) deps = dependents_of (node);

      for (guint i = 0; i < deps->len && found == NULL; i++)
        {
          PpTreeNode *dep = g_ptr_array_index (deps, i);

          if (!g_hash_table_add (seen, dep))
            continue;
          if (is_blocking (dep->path, user_data))
            found = dep->path;
          /* nothing below @dep blocks: what it reaches cannot be found
           * first (or at all), and it is not walked again */
          else if (clear == NULL || !g_hash_table_contains (clear, dep->path))
            g_queue_push_tail (queue, dep);
        }
    }
  if (found != NULL || clear == NULL)
    return found;
  /* Found nothing: every device reached reaches only devices reached,
   * none of them blocking, and @root, which the search does not ask
   * about. Unless @root blocks (a cycle could lead back to it), none of
   * them has a blocker. */
  g_hash_table_add (clear, root->path);
  if (g_hash_table_size (seen) > 1 && !is_blocking (root->path, user_data))
    {
      g_hash_table_iter_init (&iter, seen);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_hash_table_add (clear, ((PpTreeNode *) key)->path);
    }
  return NULL;
}

/* ---- device link names ------------------------------------------------ */

void
pp_devlink_name_clear (PpDevlinkName *name)
{
  g_clear_pointer (&name->supplier_bus, g_free);
  g_clear_pointer (&name->supplier, g_free);
  g_clear_pointer (&name->consumer_bus, g_free);
  g_clear_pointer (&name->consumer, g_free);
}

/* A bus or class name: a letter, then letters, digits, '_' or '-'. */
static gboolean
valid_bus (const char *s, gsize len)
{
  if (len == 0 || !g_ascii_isalpha (s[0]))
    return FALSE;
  for (gsize i = 1; i < len; i++)
    if (!g_ascii_isalnum (s[i]) && s[i] != '_' && s[i] != '-')
      return FALSE;
  return TRUE;
}

/* "bus:device" -> (bus, device); FALSE when there is no valid bus prefix. */
static gboolean
split_bus (const char *s, gsize len, char **bus, char **name)
{
  const char *colon = memchr (s, ':', len);

  if (colon == NULL || !valid_bus (s, colon - s) || colon + 1 == s + len)
    return FALSE;
  *bus = g_strndup (s, colon - s);
  *name = g_strndup (colon + 1, s + len - colon - 1);
  return TRUE;
}

static gboolean
reading_known (PpDevlinkKnownFunc known, gpointer user_data, const PpDevlinkName *r)
{
  return known (r->supplier_bus, r->supplier, user_data) &&
         known (r->consumer_bus, r->consumer, user_data);
}

static guint
count_substr (const char *s, const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (s, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

gboolean
pp_devlink_name_parse (const char         *text,
                       PpDevlinkKnownFunc  known,
                       gpointer            user_data,
                       PpDevlinkName      *out)
{
  gsize len;
  guint n_dashes, n_colons;

  memset (out, 0, sizeof (*out));
  if (text == NULL || *text == '\0')
    return FALSE;
  len = strlen (text);
  n_dashes = count_substr (text, "--");
  n_colons = count_substr (text, ":");

  /* "bus:supplier--bus:consumer", then "supplier--consumer", at each "--" */
  for (int form = 3; form >= 2; form--)
    {
      for (const char *p = strstr (text, "--"); p != NULL; p = strstr (p + 1, "--"))
        {
          gsize left = p - text;
          gsize right = len - left - 2;
          PpDevlinkName r = { NULL, NULL, NULL, NULL };

          if (left == 0 || right == 0)
            continue;
          if (form == 3)
            {
              if (!split_bus (text, left, &r.supplier_bus, &r.supplier) ||
                  !split_bus (p + 2, right, &r.consumer_bus, &r.consumer))
                {
                  pp_devlink_name_clear (&r);
                  continue;
                }
            }
          else
            {
              r.supplier = g_strndup (text, left);
              r.consumer = g_strndup (p + 2, right);
            }
          if (known != NULL ? reading_known (known, user_data, &r)
                            : (form == 3 || n_dashes == 1))
            {
              *out = r;
              return TRUE;
            }
          pp_devlink_name_clear (&r);
        }
    }

  /* "supplier:consumer" (5.9-rc): ambiguous by nature */
  for (const char *p = strchr (text, ':'); p != NULL; p = strchr (p + 1, ':'))
    {
      PpDevlinkName r = { NULL, NULL, NULL, NULL };

      if (p == text || p[1] == '\0')
        continue;
      r.supplier = g_strndup (text, p - text);
      r.consumer = g_strdup (p + 1);
      if (known != NULL ? reading_known (known, user_data, &r)
                        : (n_colons == 1 && n_dashes == 0))
        {
          *out = r;
          return TRUE;
        }
      pp_devlink_name_clear (&r);
    }
  return FALSE;
}

gboolean
pp_devlink_end_parse (const char         *text,
                      PpDevlinkKnownFunc  known,
                      gpointer            user_data,
                      char              **bus,
                      char              **name)
{
  g_autofree char *b = NULL;
  g_autofree char *n = NULL;

  *bus = NULL;
  *name = NULL;
  if (text == NULL || *text == '\0')
    return FALSE;
  if (split_bus (text, strlen (text), &b, &n) &&
      (known == NULL || known (b, n, user_data)))
    {
      *bus = g_steal_pointer (&b);
      *name = g_steal_pointer (&n);
      return TRUE;
    }
  if (known == NULL || known (NULL, text, user_data))
    {
      *name = g_strdup (text);
      return TRUE;
    }
  return FALSE;
}
