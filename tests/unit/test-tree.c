/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The power-dependency tree: walk orders on many shapes, bubble-up
 * decisions, blockers, incremental updates, devlink names. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-tree.h"
#include "pp-util.h"

/* ---- fixture ---------------------------------------------------------- */

typedef struct {
  PpTree     *tree;
  GHashTable *stay_up;      /* path -> reason */
  GHashTable *no_pm;        /* paths without runtime PM */
  GHashTable *down;         /* paths already allowed to suspend */
  GHashTable *gone;         /* paths that vanished */
  GHashTable *blocking;     /* paths that block (for find_blocker) */
  GPtrArray  *cycles;
} Fixture;

static int
setup (void **state)
{
  Fixture *f = g_new0 (Fixture, 1);

  f->tree = pp_tree_new ();
  f->stay_up = g_hash_table_new (g_str_hash, g_str_equal);
  f->no_pm = g_hash_table_new (g_str_hash, g_str_equal);
  f->down = g_hash_table_new (g_str_hash, g_str_equal);
  f->gone = g_hash_table_new (g_str_hash, g_str_equal);
  f->blocking = g_hash_table_new (g_str_hash, g_str_equal);
  f->cycles = g_ptr_array_new_with_free_func (g_free);
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  Fixture *f = *state;

  pp_tree_free (f->tree);
  g_hash_table_unref (f->stay_up);
  g_hash_table_unref (f->no_pm);
  g_hash_table_unref (f->down);
  g_hash_table_unref (f->gone);
  g_hash_table_unref (f->blocking);
  g_ptr_array_unref (f->cycles);
  g_free (f);
  return 0;
}

static void
set_flag (GHashTable *table, const char *path, const char *value)
{
  g_hash_table_insert (table, (gpointer) path, (gpointer) value);
}

static void
node_state (const char *path, PpTreeNodeState *st, gpointer user_data)
{
  Fixture *f = user_data;

  st->exists = !g_hash_table_contains (f->gone, path);
  st->can_suspend = !g_hash_table_contains (f->no_pm, path);
  st->down = g_hash_table_contains (f->down, path);
  st->stay_up = g_hash_table_lookup (f->stay_up, path);
}

static gboolean
node_blocking (const char *path, gpointer user_data)
{
  Fixture *f = user_data;

  return g_hash_table_contains (f->blocking, path);
}

/* "a b c": nodes; "a/b" gets parent "a" (everything before the last '/'). */
static void
add_nodes (Fixture *f, const char *spec)
{
  g_auto(GStrv) names = g_strsplit (spec, " ", -1);

  for (guint i = 0; names[i]; i++)
    {
      const char *slash = strrchr (names[i], '/');
      g_autofree char *parent = slash ? g_strndup (names[i], slash - names[i]) : NULL;

      if (*names[i] == '\0')
        continue;
      pp_tree_add_node (f->tree, names[i], parent);
    }
}

static void
add_link_edge (Fixture *f, const char *supplier, const char *consumer)
{
  g_autofree char *id = g_strdup_printf ("%s--%s", supplier, consumer);

  assert_true (pp_tree_add_link (f->tree, id, supplier, consumer));
}

/* The walk as "path:D path:S path:P" (Down, Skip, Pass). */
static char *
down_walk (Fixture *f, const char *root, gboolean subtree)
{
  g_autoptr(GPtrArray) steps = pp_tree_plan_power_down (f->tree, root, subtree,
                                                        node_state, f, f->cycles);
  GString *s = g_string_new (NULL);

  assert_non_null (steps);
  for (guint i = 0; i < steps->len; i++)
    {
      PpTreeStep *step = g_ptr_array_index (steps, i);
      const char *a = step->action == PP_TREE_STEP_DOWN ? "D" :
                      step->action == PP_TREE_STEP_SKIP ? "S" : "P";
      g_string_append_printf (s, "%s%s:%s", i ? " " : "", step->path, a);
    }
  return g_string_free (s, FALSE);
}

static char *
join (GPtrArray *paths)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < paths->len; i++)
    g_string_append_printf (s, "%s%s", i ? " " : "", (char *) g_ptr_array_index (paths, i));
  return g_string_free (s, FALSE);
}

static char *
up_walk (Fixture *f, const char *root, gboolean subtree)
{
  g_autoptr(GPtrArray) order = pp_tree_plan_power_up (f->tree, root, subtree, f->cycles);

  assert_non_null (order);
  return join (order);
}

static const char *
step_reason (Fixture *f, const char *root, gboolean subtree, const char *path)
{
  static char buf[512];
  g_autoptr(GPtrArray) steps = pp_tree_plan_power_down (f->tree, root, subtree,
                                                        node_state, f, NULL);

  for (guint i = 0; i < steps->len; i++)
    {
      PpTreeStep *step = g_ptr_array_index (steps, i);
      if (g_str_equal (step->path, path))
        {
          g_strlcpy (buf, step->reason ? step->reason : "", sizeof buf);
          return buf;
        }
    }
  fail_msg ("%s not in the walk", path);
  return NULL;
}

/* ---- shapes ----------------------------------------------------------- */

static void
test_single (void **state)
{
  Fixture *f = *state;
  g_autofree char *down = NULL;
  g_autofree char *up = NULL;

  add_nodes (f, "r");
  down = down_walk (f, "r", TRUE);
  assert_string_equal (down, "r:D");
  up = up_walk (f, "r", TRUE);
  assert_string_equal (up, "r");
  assert_null (pp_tree_plan_power_down (f->tree, "nope", TRUE, node_state, f, NULL));
  assert_null (pp_tree_plan_power_up (f->tree, "nope", TRUE, NULL));
}

static void
test_deep_chain (void **state)
{
  Fixture *f = *state;
  const guint depth = 200000;   /* deeper than a recursive walk could go */
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) steps = NULL;
  g_autoptr(GPtrArray) up = NULL;

  for (guint i = 0; i < depth; i++)
    {
      g_ptr_array_add (paths, g_strdup_printf ("n%06u", i));
      pp_tree_add_node (f->tree, g_ptr_array_index (paths, i),
                        i ? g_ptr_array_index (paths, i - 1) : NULL);
    }

  steps = pp_tree_plan_power_down (f->tree, "n000000", TRUE, node_state, f, NULL);
  assert_int_equal (steps->len, depth);
  for (guint i = 0; i < depth; i++)
    {
      PpTreeStep *step = g_ptr_array_index (steps, i);
      /* deepest first */
      assert_string_equal (step->path, g_ptr_array_index (paths, depth - 1 - i));
      assert_int_equal (step->action, PP_TREE_STEP_DOWN);
    }

  up = pp_tree_plan_power_up (f->tree, g_ptr_array_index (paths, depth - 1), FALSE, NULL);
  assert_int_equal (up->len, depth);
  for (guint i = 0; i < depth; i++)
    assert_string_equal (g_ptr_array_index (up, i), g_ptr_array_index (paths, i));
}

static void
test_wide_hub (void **state)
{
  Fixture *f = *state;
  g_autoptr(GPtrArray) steps = NULL;
  g_autoptr(GPtrArray) up = NULL;
  g_autofree char *last = NULL;

  pp_tree_add_node (f->tree, "hub", NULL);
  /* added in reverse: the walk is sorted, not in insertion order */
  for (int i = 99; i >= 0; i--)
    {
      g_autofree char *p = g_strdup_printf ("hub/p%02d", i);
      pp_tree_add_node (f->tree, p, "hub");
    }
  steps = pp_tree_plan_power_down (f->tree, "hub", TRUE, node_state, f, NULL);
  assert_int_equal (steps->len, 101);
  for (guint i = 0; i < 100; i++)
    {
      g_autofree char *p = g_strdup_printf ("hub/p%02u", i);
      assert_string_equal (((PpTreeStep *) g_ptr_array_index (steps, i))->path, p);
    }
  assert_string_equal (((PpTreeStep *) g_ptr_array_index (steps, 100))->path, "hub");

  up = pp_tree_plan_power_up (f->tree, "hub", TRUE, NULL);
  assert_int_equal (up->len, 101);
  assert_string_equal (g_ptr_array_index (up, 0), "hub");
  assert_string_equal (g_ptr_array_index (up, 1), "hub/p00");
  assert_string_equal (g_ptr_array_index (up, 100), "hub/p99");
  /* alone, it waits for its ports' devices */
  last = down_walk (f, "hub", FALSE);
  assert_string_equal (last, "hub:S");
  for (int i = 0; i < 100; i++)
    set_flag (f->down, g_ptr_array_index (up, i + 1), "1");
  g_free (last);
  last = down_walk (f, "hub", FALSE);
  assert_string_equal (last, "hub:D");
}

static void
test_links_across_branches (void **state)
{
  Fixture *f = *state;
  g_autofree char *down = NULL;
  g_autofree char *down_b = NULL;
  g_autofree char *up = NULL;
  g_autofree char *up_sub = NULL;

  add_nodes (f, "r r/a r/a/a1 r/b r/b/b1 r/b/b1/x");
  add_link_edge (f, "r/a/a1", "r/b/b1");     /* a GPU supplying an HDA controller */

  /* the consumer and its children go before the supplier */
  down = down_walk (f, "r/a", TRUE);
  assert_string_equal (down, "r/b/b1/x:D r/b/b1:D r/a/a1:D r/a:D");
  /* the other branch does not pull the supplier in */
  down_b = down_walk (f, "r/b", TRUE);
  assert_string_equal (down_b, "r/b/b1/x:D r/b/b1:D r/b:D");

  /* suppliers and ancestors first */
  up = up_walk (f, "r/b/b1", FALSE);
  assert_string_equal (up, "r r/b r/a r/a/a1 r/b/b1");
  /* a subtree's consumer comes after its own suppliers */
  up_sub = up_walk (f, "r/a", TRUE);
  assert_string_equal (up_sub, "r r/a r/a/a1 r/b r/b/b1 r/b/b1/x");
  assert_int_equal (f->cycles->len, 0);
}

static void
test_diamond (void **state)
{
  Fixture *f = *state;
  g_autofree char *down = NULL;
  g_autofree char *up = NULL;
  g_autofree char *up_z = NULL;

  /* z is x's child and y's consumer; y is also x's consumer */
  add_nodes (f, "r r/x r/y r/x/z");
  add_link_edge (f, "r/y", "r/x/z");
  add_link_edge (f, "r/x", "r/y");
  down = down_walk (f, "r", TRUE);
  assert_string_equal (down, "r/x/z:D r/y:D r/x:D r:D");
  up = up_walk (f, "r", TRUE);
  assert_string_equal (up, "r r/x r/y r/x/z");
  up_z = up_walk (f, "r/x/z", FALSE);
  assert_string_equal (up_z, "r r/x r/y r/x/z");
  assert_int_equal (f->cycles->len, 0);
}

static void
test_cycle_links (void **state)
{
  Fixture *f = *state;
  g_autofree char *down = NULL;
  g_autofree char *up = NULL;

  add_nodes (f, "r r/a r/b r/c");
  add_link_edge (f, "r/a", "r/b");
  add_link_edge (f, "r/b", "r/c");
  add_link_edge (f, "r/c", "r/a");
  down = down_walk (f, "r/a", TRUE);
  /* every device exactly once, and the walk ends */
  assert_string_equal (down, "r/c:D r/b:D r/a:D");
  assert_int_equal (f->cycles->len, 1);
  assert_string_equal (g_ptr_array_index (f->cycles, 0), "r/a -> r/b -> r/c -> r/a");

  g_ptr_array_set_size (f->cycles, 0);
  up = up_walk (f, "r/a", TRUE);
  assert_string_equal (up, "r r/b r/c r/a");
  assert_true (f->cycles->len >= 1);
}

static void
test_cycle_through_parent (void **state)
{
  Fixture *f = *state;
  g_autofree char *down = NULL;
  g_autofree char *up = NULL;
  g_autoptr(GPtrArray) pre = NULL;
  g_autofree char *pre_s = NULL;

  /* a child that supplies its own parent */
  add_nodes (f, "p p/c");
  add_link_edge (f, "p/c", "p");
  down = down_walk (f, "p", TRUE);
  assert_string_equal (down, "p/c:D p:D");
  assert_int_equal (f->cycles->len, 1);
  up = up_walk (f, "p/c", TRUE);
  assert_string_equal (up, "p p/c");
  pre = pp_tree_get_prerequisites (f->tree, "p");
  pre_s = join (pre);
  assert_string_equal (pre_s, "p/c");
}

static void
test_self_link_refused (void **state)
{
  Fixture *f = *state;

  add_nodes (f, "a");
  assert_false (pp_tree_add_link (f->tree, "x", "a", "a"));
  assert_false (pp_tree_add_link (f->tree, "y", "a", "missing"));
  assert_false (pp_tree_add_link (f->tree, "z", "missing", "a"));
  assert_int_equal (pp_tree_get_n_links (f->tree), 0);
}

/* ---- bubble-up decisions ---------------------------------------------- */

static void
test_skip_keeps_ancestors_up (void **state)
{
  Fixture *f = *state;
  g_autofree char *down = NULL;

  add_nodes (f, "x x/root x/root/hub x/root/hub/mouse x/root/hub/disk x/other");
  set_flag (f->stay_up, "x/root/hub/mouse", "input device the policy keeps on");
  down = down_walk (f, "x", TRUE);
  assert_string_equal (down,
                       "x/other:D x/root/hub/disk:D x/root/hub/mouse:S x/root/hub:S x/root:S x:S");
  assert_string_equal (step_reason (f, "x", TRUE, "x/root/hub/mouse"),
                       "input device the policy keeps on");
  assert_string_equal (step_reason (f, "x", TRUE, "x/root/hub"), "kept up by x/root/hub/mouse");
  assert_string_equal (step_reason (f, "x", TRUE, "x/root"), "kept up by x/root/hub");
}

static void
test_skipped_consumer_keeps_supplier_up (void **state)
{
  Fixture *f = *state;
  g_autofree char *down = NULL;

  add_nodes (f, "r r/gpu r/hda");
  add_link_edge (f, "r/gpu", "r/hda");
  set_flag (f->stay_up, "r/hda", "held");
  down = down_walk (f, "r/gpu", TRUE);
  assert_string_equal (down, "r/hda:S r/gpu:S");
  assert_string_equal (step_reason (f, "r/gpu", TRUE, "r/gpu"), "kept up by r/hda");
}

static void
test_held_device_itself (void **state)
{
  Fixture *f = *state;
  g_autofree char *down = NULL;

  add_nodes (f, "a a/b");
  set_flag (f->stay_up, "a", "POWERPOLICY_AUTOSUSPEND=0");
  down = down_walk (f, "a", TRUE);
  assert_string_equal (down, "a/b:D a:S");
  assert_string_equal (step_reason (f, "a", TRUE, "a"), "POWERPOLICY_AUTOSUSPEND=0");
}

static void
test_no_subtree_checks_dependents (void **state)
{
  Fixture *f = *state;
  g_autofree char *w1 = NULL;
  g_autofree char *w2 = NULL;
  g_autofree char *w3 = NULL;
  g_autofree char *w4 = NULL;

  add_nodes (f, "h h/if h/if/dev h/s");
  set_flag (f->no_pm, "h/if", "1");       /* a USB interface: no runtime PM */
  set_flag (f->down, "h/if/dev", "1");
  set_flag (f->down, "h/s", "1");
  w1 = down_walk (f, "h", FALSE);
  assert_string_equal (w1, "h:D");

  /* a dependent that may not suspend yet keeps it up... */
  g_hash_table_remove (f->down, "h/s");
  w2 = down_walk (f, "h", FALSE);
  assert_string_equal (w2, "h:S");
  assert_string_equal (step_reason (f, "h", FALSE, "h"), "kept up by h/s");

  /* ...also through a device without runtime PM */
  set_flag (f->down, "h/s", "1");
  g_hash_table_remove (f->down, "h/if/dev");
  w3 = down_walk (f, "h", FALSE);
  assert_string_equal (w3, "h:S");
  assert_string_equal (step_reason (f, "h", FALSE, "h"), "kept up by h/if");

  /* with the subtree, the same devices are powered down by this call */
  w4 = down_walk (f, "h", TRUE);
  assert_string_equal (w4, "h/if/dev:D h/if:P h/s:D h:D");
}

static void
test_vanished_does_not_block (void **state)
{
  Fixture *f = *state;
  g_autofree char *down = NULL;

  add_nodes (f, "a a/gone a/gone/kid");
  set_flag (f->gone, "a/gone", "1");
  set_flag (f->stay_up, "a/gone/kid", "held");
  down = down_walk (f, "a", TRUE);
  /* a vanished device keeps nothing up, whatever is below it */
  assert_string_equal (down, "a/gone/kid:S a/gone:P a:D");
  assert_string_equal (step_reason (f, "a", TRUE, "a/gone"), "device vanished");
}

static void
test_diamond_bubble (void **state)
{
  Fixture *f = *state;
  g_autofree char *down = NULL;

  /* z depends on x (parent) and y (supplier): held z keeps both up */
  add_nodes (f, "r r/x r/y r/x/z");
  add_link_edge (f, "r/y", "r/x/z");
  set_flag (f->stay_up, "r/x/z", "held");
  down = down_walk (f, "r", TRUE);
  assert_string_equal (down, "r/x/z:S r/x:S r/y:S r:S");
}

/* ---- blockers --------------------------------------------------------- */

static void
test_blocker (void **state)
{
  Fixture *f = *state;

  add_nodes (f, "xhci xhci/usb1 xhci/usb1/hub xhci/usb1/hub/mouse xhci/usb1/hub/disk gpu hda");
  add_link_edge (f, "gpu", "hda");
  assert_null (pp_tree_find_blocker (f->tree, "xhci", node_blocking, f, NULL));
  set_flag (f->blocking, "xhci/usb1/hub/mouse", "1");
  assert_string_equal (pp_tree_find_blocker (f->tree, "xhci", node_blocking, f, NULL),
                       "xhci/usb1/hub/mouse");
  /* the nearest one wins */
  set_flag (f->blocking, "xhci/usb1/hub", "1");
  assert_string_equal (pp_tree_find_blocker (f->tree, "xhci", node_blocking, f, NULL),
                       "xhci/usb1/hub");
  /* consumers count */
  set_flag (f->blocking, "hda", "1");
  assert_string_equal (pp_tree_find_blocker (f->tree, "gpu", node_blocking, f, NULL), "hda");
  assert_null (pp_tree_find_blocker (f->tree, "hda", node_blocking, f, NULL));
  assert_null (pp_tree_find_blocker (f->tree, "missing", node_blocking, f, NULL));
}

static void
test_blocker_cycle (void **state)
{
  Fixture *f = *state;

  add_nodes (f, "a b c");
  add_link_edge (f, "a", "b");
  add_link_edge (f, "b", "c");
  add_link_edge (f, "c", "a");
  assert_null (pp_tree_find_blocker (f->tree, "a", node_blocking, f, NULL));
  set_flag (f->blocking, "c", "1");
  assert_string_equal (pp_tree_find_blocker (f->tree, "a", node_blocking, f, NULL), "c");
  /* the device itself is never its own blocker, even round a cycle */
  set_flag (f->blocking, "a", "1");
  assert_string_equal (pp_tree_find_blocker (f->tree, "a", node_blocking, f, NULL), "c");
}

/* is_blocking that counts how often it is asked */
typedef struct {
  Fixture *f;
  guint    asked;
} Counting;

static gboolean
counting_blocking (const char *path, gpointer user_data)
{
  Counting *c = user_data;

  c->asked++;
  return node_blocking (path, c->f);
}

/* A failed search teaches the set; later searches below it ask nothing */
static void
test_blocker_clear_prunes (void **state)
{
  Fixture *f = *state;
  g_autoptr(GHashTable) clear = g_hash_table_new (g_str_hash, g_str_equal);
  Counting c = { f, 0 };

  add_nodes (f, "pci pci/xhci pci/xhci/usb1 pci/xhci/usb1/hub pci/xhci/usb1/hub/mouse "
                "pci/xhci/usb1/hub/disk pci/gpu pci/hda");
  add_link_edge (f, "pci/gpu", "pci/hda");
  assert_null (pp_tree_find_blocker (f->tree, "pci", counting_blocking, &c, clear));
  /* seven devices below, and the root itself when the search is over */
  assert_int_equal (c.asked, 8);
  c.asked = 0;
  assert_null (pp_tree_find_blocker (f->tree, "pci/xhci", counting_blocking, &c, clear));
  assert_null (pp_tree_find_blocker (f->tree, "pci/xhci/usb1/hub", counting_blocking, &c, clear));
  assert_null (pp_tree_find_blocker (f->tree, "pci/gpu", counting_blocking, &c, clear));
  assert_int_equal (c.asked, 0);

  /* a found blocker teaches nothing */
  g_hash_table_remove_all (clear);
  set_flag (f->blocking, "pci/xhci/usb1/hub/disk", "1");
  assert_string_equal (pp_tree_find_blocker (f->tree, "pci", counting_blocking, &c, clear),
                       "pci/xhci/usb1/hub/disk");
  assert_int_equal (g_hash_table_size (clear), 0);
}

/* A blocking root round a cycle: what leads back to it is not clear */
static void
test_blocker_clear_blocking_root (void **state)
{
  Fixture *f = *state;
  g_autoptr(GHashTable) clear = g_hash_table_new (g_str_hash, g_str_equal);

  add_nodes (f, "a b c");
  add_link_edge (f, "a", "b");
  add_link_edge (f, "b", "c");
  add_link_edge (f, "c", "a");
  set_flag (f->blocking, "a", "1");
  assert_null (pp_tree_find_blocker (f->tree, "a", node_blocking, f, clear));
  assert_true (g_hash_table_contains (clear, "a"));
  assert_false (g_hash_table_contains (clear, "b"));
  assert_string_equal (pp_tree_find_blocker (f->tree, "b", node_blocking, f, clear), "a");
  assert_string_equal (pp_tree_find_blocker (f->tree, "c", node_blocking, f, clear), "a");
}

/* With a set kept across searches, every answer is the one without: random
 * trees with links (cycles included), random blocking devices, searches in
 * random orders. */
static void
test_blocker_clear_same_answers (void **state)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (29);

  (void) state;
  for (guint round = 0; round < 300; round++)
    {
      PpTree *tree = pp_tree_new ();
      g_autoptr(GHashTable) blocking = g_hash_table_new (g_str_hash, g_str_equal);
      g_autoptr(GHashTable) clear = g_hash_table_new (g_str_hash, g_str_equal);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      Fixture f = { .tree = tree, .blocking = blocking };
      guint n = g_rand_int_range (rand, 1, 40);
      guint links = g_rand_int_range (rand, 0, 10);

      for (guint i = 0; i < n; i++)
        {
          const char *parent = i ? g_ptr_array_index (names, g_rand_int_range (rand, 0, i)) : NULL;
          char *name = parent ? g_strdup_printf ("%s/%u", parent, i) : g_strdup_printf ("%u", i);

          pp_tree_add_node (tree, name, parent);
          g_ptr_array_add (names, name);
          if (g_rand_int_range (rand, 0, 6) == 0)
            g_hash_table_add (blocking, name);
        }
      for (guint i = 0; i < links; i++)
        {
          const char *a = g_ptr_array_index (names, g_rand_int_range (rand, 0, n));
          const char *b = g_ptr_array_index (names, g_rand_int_range (rand, 0, n));
          g_autofree char *id = g_strdup_printf ("l%u:%s--%s", i, a, b);

          if (a != b)
            (void) pp_tree_add_link (tree, id, a, b);
        }
      for (guint k = 0; k < 2 * n; k++)
        {
          const char *path = g_ptr_array_index (names, g_rand_int_range (rand, 0, n));
          const char *want = pp_tree_find_blocker (tree, path, node_blocking, &f, NULL);
          const char *got = pp_tree_find_blocker (tree, path, node_blocking, &f, clear);

          if (g_strcmp0 (want, got) != 0)
            fail_msg ("round %u, %s: %s without the set, %s with it", round, path,
                      want ? want : "none", got ? got : "none");
        }
      pp_tree_free (tree);
    }
}

/* ---- incremental updates ---------------------------------------------- */

static void
test_child_before_parent (void **state)
{
  Fixture *f = *state;
  g_autoptr(GPtrArray) kids = NULL;
  g_autofree char *down = NULL;

  pp_tree_add_node (f->tree, "p/c", "p");
  assert_null (pp_tree_get_parent (f->tree, "p/c"));
  pp_tree_add_node (f->tree, "p", NULL);
  assert_string_equal (pp_tree_get_parent (f->tree, "p/c"), "p");
  kids = pp_tree_get_children (f->tree, "p");
  assert_int_equal (kids->len, 1);
  down = down_walk (f, "p", TRUE);
  assert_string_equal (down, "p/c:D p:D");
}

/* A node attached to its parent shares the parent's path: the parent
 * path it was told must outlive the parent (removed, re-added, the node
 * moved elsewhere and back), and the strings passed in are copied. */
static void
test_parent_path_outlives_parent (void **state)
{
  Fixture *f = *state;
  g_autofree char *parent = g_strdup ("r/hub");
  g_autofree char *child = g_strdup ("r/hub/a");
  g_autoptr(GPtrArray) kids = NULL;

  pp_tree_add_node (f->tree, "r", NULL);
  pp_tree_add_node (f->tree, parent, "r");
  pp_tree_add_node (f->tree, child, parent);
  /* the caller's strings may go at once */
  memset (parent, 'x', strlen (parent));
  memset (child, 'x', strlen (child));
  assert_string_equal (pp_tree_get_parent (f->tree, "r/hub/a"), "r/hub");

  /* the parent goes: the child waits for "r/hub", told before */
  pp_tree_remove_node (f->tree, "r/hub");
  assert_null (pp_tree_get_parent (f->tree, "r/hub/a"));
  /* the same parent again: no change, the child still waits */
  pp_tree_add_node (f->tree, "r/hub/a", "r/hub");
  assert_null (pp_tree_get_parent (f->tree, "r/hub/a"));
  pp_tree_add_node (f->tree, "r/hub", "r");
  assert_string_equal (pp_tree_get_parent (f->tree, "r/hub/a"), "r/hub");

  /* moved under another parent and back */
  pp_tree_add_node (f->tree, "r/other", "r");
  pp_tree_add_node (f->tree, "r/hub/a", "r/other");
  assert_string_equal (pp_tree_get_parent (f->tree, "r/hub/a"), "r/other");
  kids = pp_tree_get_children (f->tree, "r/hub");
  assert_int_equal (kids->len, 0);
  pp_tree_remove_node (f->tree, "r/other");
  assert_null (pp_tree_get_parent (f->tree, "r/hub/a"));
  pp_tree_add_node (f->tree, "r/hub/a", "r/hub");
  assert_string_equal (pp_tree_get_parent (f->tree, "r/hub/a"), "r/hub");
  pp_tree_add_node (f->tree, "r/other", "r");
  assert_string_equal (pp_tree_get_parent (f->tree, "r/hub/a"), "r/hub");
  /* the tree is freed with nodes attached and waiting (teardown) */
  pp_tree_remove_node (f->tree, "r");
  assert_null (pp_tree_get_parent (f->tree, "r/hub"));
}

static void
test_remove_and_readd (void **state)
{
  Fixture *f = *state;
  g_autoptr(GPtrArray) s = NULL;
  g_autoptr(GPtrArray) c = NULL;
  g_autofree char *down = NULL;

  add_nodes (f, "r r/hub r/hub/a r/hub/b r/gpu");
  add_link_edge (f, "r/gpu", "r/hub/a");
  assert_int_equal (pp_tree_get_n_links (f->tree), 1);

  pp_tree_remove_node (f->tree, "r/hub");
  assert_false (pp_tree_contains (f->tree, "r/hub"));
  assert_null (pp_tree_get_parent (f->tree, "r/hub/a"));
  pp_tree_remove_node (f->tree, "r/hub/a");
  /* its link went with it */
  assert_int_equal (pp_tree_get_n_links (f->tree), 0);
  c = pp_tree_get_consumers (f->tree, "r/gpu");
  assert_int_equal (c->len, 0);

  pp_tree_add_node (f->tree, "r/hub", "r");
  /* the children waited for it */
  assert_string_equal (pp_tree_get_parent (f->tree, "r/hub/b"), "r/hub");
  down = down_walk (f, "r", TRUE);
  assert_string_equal (down, "r/gpu:D r/hub/b:D r/hub:D r:D");
  s = pp_tree_get_suppliers (f->tree, "r/hub/b");
  assert_int_equal (s->len, 0);
  assert_int_equal (pp_tree_get_n_nodes (f->tree), 4);
  pp_tree_remove_node (f->tree, "never-there");
}

static void
test_link_ids (void **state)
{
  Fixture *f = *state;
  g_autoptr(GPtrArray) c1 = NULL;
  g_autoptr(GPtrArray) c2 = NULL;
  g_autoptr(GPtrArray) c3 = NULL;
  g_autofree char *c3s = NULL;

  add_nodes (f, "s c d");
  /* the class entry and a per-device entry naming the same link */
  assert_true (pp_tree_add_link (f->tree, "id1", "s", "c"));
  assert_true (pp_tree_add_link (f->tree, "id1", "s", "c"));
  assert_true (pp_tree_add_link (f->tree, "id2", "s", "c"));
  assert_int_equal (pp_tree_get_n_links (f->tree), 2);
  c1 = pp_tree_get_consumers (f->tree, "s");
  assert_int_equal (c1->len, 1);
  pp_tree_remove_link (f->tree, "id1");
  c2 = pp_tree_get_consumers (f->tree, "s");
  assert_int_equal (c2->len, 1);
  /* an id re-added with other ends moves */
  assert_true (pp_tree_add_link (f->tree, "id2", "s", "d"));
  c3 = pp_tree_get_consumers (f->tree, "s");
  c3s = join (c3);
  assert_string_equal (c3s, "d");
  pp_tree_remove_link (f->tree, "id2");
  pp_tree_remove_link (f->tree, "unknown");
  assert_int_equal (pp_tree_get_n_links (f->tree), 0);
}

static void
test_reparent (void **state)
{
  Fixture *f = *state;
  g_autoptr(GPtrArray) a = NULL;
  g_autoptr(GPtrArray) b = NULL;

  add_nodes (f, "a b x");
  pp_tree_add_node (f->tree, "x", "a");
  pp_tree_add_node (f->tree, "x", "b");
  a = pp_tree_get_children (f->tree, "a");
  b = pp_tree_get_children (f->tree, "b");
  assert_int_equal (a->len, 0);
  assert_int_equal (b->len, 1);
  assert_string_equal (pp_tree_get_parent (f->tree, "x"), "b");
}

static void
test_many_devices (void **state)
{
  Fixture *f = *state;
  const guint n = 3000;
  g_autoptr(GPtrArray) steps = NULL;
  GTimer *timer = g_timer_new ();

  /* a wide and deep tree with a link from each leaf to the next one */
  pp_tree_add_node (f->tree, "root", NULL);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *hub = g_strdup_printf ("root/h%u", i);
      g_autofree char *leaf = g_strdup_printf ("root/h%u/l", i);
      pp_tree_add_node (f->tree, hub, "root");
      pp_tree_add_node (f->tree, leaf, hub);
      if (i > 0)
        {
          g_autofree char *prev = g_strdup_printf ("root/h%u/l", i - 1);
          g_autofree char *id = g_strdup_printf ("l%u", i);
          assert_true (pp_tree_add_link (f->tree, id, prev, leaf));
        }
    }
  steps = pp_tree_plan_power_down (f->tree, "root", TRUE, node_state, f, NULL);
  assert_int_equal (steps->len, 2 * n + 1);
  /* the last leaf consumes every earlier one: it goes first */
  {
    g_autofree char *last = g_strdup_printf ("root/h%u/l", n - 1);
    assert_string_equal (((PpTreeStep *) g_ptr_array_index (steps, 0))->path, last);
  }
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *hub = g_strdup_printf ("root/h%u", i);
      pp_tree_remove_node (f->tree, hub);
    }
  assert_int_equal (pp_tree_get_n_nodes (f->tree), n + 1);
  /* generous: the point is that nothing is quadratic */
  assert_true (g_timer_elapsed (timer, NULL) < 10.0);
  g_timer_destroy (timer);
}

/* ---- devlink names ---------------------------------------------------- */

typedef struct {
  const char *text;
  const char *known;          /* "bus|name bus|name ..." ("-" for no bus), NULL = no callback */
  gboolean    ok;
  const char *s_bus, *s, *c_bus, *c;
} NameRow;

static gboolean
known_in (const char *bus, const char *name, gpointer user_data)
{
  g_auto(GStrv) items = g_strsplit (user_data, " ", -1);
  g_autofree char *key = g_strdup_printf ("%s|%s", bus ? bus : "-", name);

  return g_strv_contains ((const char * const *) items, key);
}

static const NameRow name_rows[] = {
  /* since 5.11 */
  { "pci:0000:00:02.0--pci:0000:00:1f.3", NULL, TRUE, "pci", "0000:00:02.0", "pci", "0000:00:1f.3" },
  { "pci:0000:00:02.0--pci:0000:00:1f.3", "pci|0000:00:02.0 pci|0000:00:1f.3",
    TRUE, "pci", "0000:00:02.0", "pci", "0000:00:1f.3" },
  { "platform:regulator--i2c:1-0050", NULL, TRUE, "platform", "regulator", "i2c", "1-0050" },
  /* a device name with "--" in it: only the callback can tell */
  { "platform:a--b--platform:c", "platform|a--b platform|c", TRUE, "platform", "a--b", "platform", "c" },
  /* 5.9: supplier--consumer */
  { "0000:00:02.0--0000:00:1f.3", NULL, TRUE, NULL, "0000:00:02.0", NULL, "0000:00:1f.3" },
  { "0000:00:02.0--0000:00:1f.3", "-|0000:00:02.0 -|0000:00:1f.3",
    TRUE, NULL, "0000:00:02.0", NULL, "0000:00:1f.3" },
  { "regulator.1--spi0.0", NULL, TRUE, NULL, "regulator.1", NULL, "spi0.0" },
  /* a 5.9 name that looks like a bus prefix: the callback decides */
  { "usb1--sound:card0", "-|usb1 -|sound:card0", TRUE, NULL, "usb1", NULL, "sound:card0" },
  /* 5.9-rc: supplier:consumer */
  { "regulator.1:spi0.0", NULL, TRUE, NULL, "regulator.1", NULL, "spi0.0" },
  { "0000:00:02.0:0000:00:1f.3", "-|0000:00:02.0 -|0000:00:1f.3",
    TRUE, NULL, "0000:00:02.0", NULL, "0000:00:1f.3" },
  /* ambiguous without a callback */
  { "0000:00:02.0:0000:00:1f.3", NULL, FALSE, NULL, NULL, NULL, NULL },
  /* nothing exists */
  { "pci:a--pci:b", "pci|a", FALSE, NULL, NULL, NULL, NULL },
  /* malformed */
  { "", NULL, FALSE, NULL, NULL, NULL, NULL },
  { "--", NULL, FALSE, NULL, NULL, NULL, NULL },
  { "a--", NULL, FALSE, NULL, NULL, NULL, NULL },
  { ":x", NULL, FALSE, NULL, NULL, NULL, NULL },
  { "novelty", NULL, FALSE, NULL, NULL, NULL, NULL },
};

static int
setup_row (void **state)
{
  return 0;
}

static void
test_devlink_name (void **state)
{
  const NameRow *row = *state;
  PpDevlinkName name;
  gboolean ok = pp_devlink_name_parse (row->text, row->known ? known_in : NULL,
                                       (gpointer) row->known, &name);

  assert_int_equal (ok, row->ok);
  if (ok)
    {
      if (row->s_bus)
        assert_string_equal (name.supplier_bus, row->s_bus);
      else
        assert_null (name.supplier_bus);
      if (row->c_bus)
        assert_string_equal (name.consumer_bus, row->c_bus);
      else
        assert_null (name.consumer_bus);
      assert_string_equal (name.supplier, row->s);
      assert_string_equal (name.consumer, row->c);
    }
  else
    {
      assert_null (name.supplier);
      assert_null (name.consumer);
    }
  pp_devlink_name_clear (&name);
}

static void
test_devlink_end (void **state)
{
  g_autofree char *bus = NULL;
  g_autofree char *name = NULL;

  assert_true (pp_devlink_end_parse ("pci:0000:00:02.0", NULL, NULL, &bus, &name));
  assert_string_equal (bus, "pci");
  assert_string_equal (name, "0000:00:02.0");
  g_clear_pointer (&bus, g_free);
  g_clear_pointer (&name, g_free);

  /* the pre-5.11 form names the device alone */
  assert_true (pp_devlink_end_parse ("0000:00:02.0", NULL, NULL, &bus, &name));
  assert_null (bus);
  assert_string_equal (name, "0000:00:02.0");
  g_clear_pointer (&name, g_free);

  /* "sound:card0" is a bus reading or a bare name: what exists decides */
  assert_true (pp_devlink_end_parse ("sound:card0", known_in, (gpointer) "-|sound:card0", &bus, &name));
  assert_null (bus);
  assert_string_equal (name, "sound:card0");
  g_clear_pointer (&name, g_free);
  assert_true (pp_devlink_end_parse ("sound:card0", known_in, (gpointer) "sound|card0", &bus, &name));
  assert_string_equal (bus, "sound");
  assert_string_equal (name, "card0");
  g_clear_pointer (&bus, g_free);
  g_clear_pointer (&name, g_free);

  assert_false (pp_devlink_end_parse ("pci:x", known_in, (gpointer) "", &bus, &name));
  assert_false (pp_devlink_end_parse ("", NULL, NULL, &bus, &name));
  assert_null (bus);
  assert_null (name);
}

/* pp_tree_get_dependent_closure() names exactly the devices the
 * PowerDown walk asks about, each once, so that their states can be read
 * before it: through a diamond, a link cycle and a consumer outside the
 * root's subtree; NULL for a device not in the tree. */
static gint
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
record_asked (const char *path, PpTreeNodeState *st, gpointer user_data)
{
  GHashTable *asked = user_data;

  g_assert_true (g_hash_table_add (asked, g_strdup (path)));
  st->exists = TRUE;
  st->can_suspend = TRUE;
  st->down = FALSE;
  st->stay_up = NULL;
}

static void
test_closure_is_what_the_walk_asks (void **state)
{
  Fixture *f = *state;
  g_autoptr(GHashTable) asked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  add_nodes (f, "r r/x r/y r/x/z q q/c other");
  add_link_edge (f, "r/y", "r/x/z");
  add_link_edge (f, "r/x", "r/y");
  add_link_edge (f, "r/x/z", "q/c");
  add_link_edge (f, "q/c", "r/x");
  for (guint subtree = 0; subtree < 2; subtree++)
    {
      g_autoptr(GPtrArray) closure = pp_tree_get_dependent_closure (f->tree, "r/x");
      g_autoptr(GPtrArray) steps = NULL;
      g_autofree char *closure_text = NULL;
      g_autoptr(GPtrArray) asked_paths = NULL;
      g_autofree char *asked_text = NULL;

      g_hash_table_remove_all (asked);
      steps = pp_tree_plan_power_down (f->tree, "r/x", subtree, record_asked, asked, NULL);
      assert_non_null (closure);
      g_ptr_array_sort (closure, compare_paths);
      asked_paths = pp_hash_table_sorted_keys (asked);
      closure_text = join (closure);
      asked_text = join (asked_paths);
      assert_string_equal (closure_text, "q/c r/x r/x/z r/y");
      assert_string_equal (asked_text, closure_text);
    }
  assert_null (pp_tree_get_dependent_closure (f->tree, "missing"));
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();
  static const struct {
    const char         *name;
    CMUnitTestFunction  func;
  } cases[] = {
    { "single", test_single },
    { "deep-chain", test_deep_chain },
    { "wide-hub", test_wide_hub },
    { "links-across-branches", test_links_across_branches },
    { "diamond", test_diamond },
    { "cycle-links", test_cycle_links },
    { "cycle-through-parent", test_cycle_through_parent },
    { "self-link-refused", test_self_link_refused },
    { "skip-keeps-ancestors-up", test_skip_keeps_ancestors_up },
    { "skipped-consumer-keeps-supplier-up", test_skipped_consumer_keeps_supplier_up },
    { "held-device-itself", test_held_device_itself },
    { "no-subtree-checks-dependents", test_no_subtree_checks_dependents },
    { "vanished-does-not-block", test_vanished_does_not_block },
    { "diamond-bubble", test_diamond_bubble },
    { "blocker", test_blocker },
    { "blocker-cycle", test_blocker_cycle },
    { "blocker-clear-prunes", test_blocker_clear_prunes },
    { "blocker-clear-blocking-root", test_blocker_clear_blocking_root },
    { "blocker-clear-same-answers", test_blocker_clear_same_answers },
    { "child-before-parent", test_child_before_parent },
    { "remove-and-readd", test_remove_and_readd },
    { "parent-path-outlives-parent", test_parent_path_outlives_parent },
    { "link-ids", test_link_ids },
    { "reparent", test_reparent },
    { "many-devices", test_many_devices },
    { "closure-is-what-the-walk-asks", test_closure_is_what_the_walk_asks },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    pp_test_list_add (list, "tree", cases[i].name, cases[i].func, setup, teardown, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (name_rows); i++)
    pp_test_list_add (list, "devlink-name", name_rows[i].text, test_devlink_name,
                      setup_row, NULL, &name_rows[i]);
  pp_test_list_add (list, "devlink-end", "forms", test_devlink_end, NULL, NULL, NULL);
  return pp_test_list_run (list, "tree");
}
