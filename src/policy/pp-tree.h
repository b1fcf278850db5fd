/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The power-dependency tree (powerpolicyd(8), POWER-DEPENDENCY TREE): nodes are
 * devices under /sys/devices, edges are sysfs parent -> child and device links
 * supplier -> consumer. Pure: it is told what exists and asked for walk orders
 * and decisions; it never looks at sysfs itself.
 *
 * A device "depends on" its parent and its suppliers; its "dependents" are its
 * children and its consumers. Device links can form cycles on a broken or
 * hostile system: every walk detects them, reports them and terminates. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _PpTree PpTree;

PpTree     *pp_tree_new              (void);
void        pp_tree_free             (PpTree      *tree);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpTree, pp_tree_free)

/* Add (or re-parent) a device. @parent may be NULL (a root) or a path not
 * in the tree yet: the child is attached when the parent arrives.
 * Cost: O(number of children waiting for @path). */
void        pp_tree_add_node         (PpTree      *tree,
                                      const char  *path,
                                      const char  *parent);
/* Remove a device and every device link that ends at it; its children
 * stay in the tree and wait for it to come back. Cost: O(degree). */
void        pp_tree_remove_node      (PpTree      *tree,
                                      const char  *path);
gboolean    pp_tree_contains         (PpTree      *tree,
                                      const char  *path);
guint       pp_tree_get_n_nodes      (PpTree      *tree);

/* A device link named @id (the devlink's own path, or any stable key).
 * FALSE (and nothing added) when an end is not in the tree or both ends
 * are the same device. Re-adding an id with other ends moves it. */
gboolean    pp_tree_add_link         (PpTree      *tree,
                                      const char  *id,
                                      const char  *supplier,
                                      const char  *consumer);
void        pp_tree_remove_link      (PpTree      *tree,
                                      const char  *id);
guint       pp_tree_get_n_links      (PpTree      *tree);

/* The parent in the tree, or NULL at a root (or when the parent is not
 * in the tree). */
const char *pp_tree_get_parent       (PpTree      *tree,
                                      const char  *path);
/* Sorted arrays of paths (owned by the tree's nodes, valid until the
 * next change; the array itself is the caller's). Empty when unknown. */
GPtrArray  *pp_tree_get_children     (PpTree      *tree,
                                      const char  *path);
GPtrArray  *pp_tree_get_suppliers    (PpTree      *tree,
                                      const char  *path);
GPtrArray  *pp_tree_get_consumers    (PpTree      *tree,
                                      const char  *path);

/* What the caller knows of one device when a walk asks. */
typedef struct {
  gboolean    exists;        /* FALSE: the device vanished */
  gboolean    can_suspend;   /* it has runtime PM (power/control) */
  gboolean    down;          /* runtime suspend already allowed, or suspended */
  const char *stay_up;       /* why it must stay up (held, ...), or NULL */
} PpTreeNodeState;

typedef void (*PpTreeStateFunc) (const char      *path,
                                 PpTreeNodeState *state,
                                 gpointer         user_data);

typedef enum {
  PP_TREE_STEP_DOWN,         /* power it down */
  PP_TREE_STEP_SKIP,         /* it stays up, and so do its parent and suppliers */
  PP_TREE_STEP_PASS,         /* nothing to do, it does not keep anything up */
} PpTreeStepAction;

typedef struct {
  char             *path;
  PpTreeStepAction  action;
  char             *reason;  /* for SKIP and PASS */
} PpTreeStep;

void        pp_tree_step_free        (PpTreeStep  *step);

/* The PowerDown walk (org.powerpolicy1.Manager.xml, PowerDown). With @subtree:
 * @root, every descendant and every consumer (transitively), post-order:
 * whatever depends on a device comes before it. Without: @root alone.
 * Bubble-up: a device goes down only when nothing that depends on it stays up —
 * a device that must stay up (state.stay_up) is skipped and keeps its parent
 * and suppliers up; dependents outside the walk count by their state (up when
 * they can suspend and are not down, or when something of theirs is up).
 * Returns PpTreeStep*, one per device acted on, in walk order; NULL when @root
 * is not in the tree. Cycles met are described in @cycles (char*), if given.
 * Linear in the size of @root's dependent closure. */
GPtrArray  *pp_tree_plan_power_down  (PpTree          *tree,
                                      const char      *root,
                                      gboolean         subtree,
                                      PpTreeStateFunc  state_func,
                                      gpointer         user_data,
                                      GPtrArray       *cycles);

/* The devices pp_tree_plan_power_down() asks @state_func about for
 * @root, with or without its subtree: @root and everything that depends
 * on it, transitively, each once (paths owned by the tree, in no
 * particular order); NULL when @root is not in the tree. The caller
 * reads their states before the walk and answers from what it read. */
GPtrArray  *pp_tree_get_dependent_closure (PpTree     *tree,
                                           const char *root);

/* The PowerUp order: every ancestor and supplier (transitively) of @root
 * before what depends on it, then @root, then (with @subtree) each
 * descendant and consumer, each after its own parent and suppliers.
 * Paths (owned by the tree), or NULL when @root is not in the tree. */
GPtrArray  *pp_tree_plan_power_up    (PpTree          *tree,
                                      const char      *root,
                                      gboolean         subtree,
                                      GPtrArray       *cycles);

/* The devices @root depends on: every ancestor and supplier,
 * transitively, @root excluded (what a Hold keeps up). Paths owned by
 * the tree. */
GPtrArray  *pp_tree_get_prerequisites (PpTree         *tree,
                                       const char     *root);

typedef gboolean (*PpTreeBlockingFunc) (const char *path,
                                        gpointer    user_data);

/* The nearest descendant or consumer of @path (breadth first, children
 * before consumers, sorted) for which @is_blocking returns TRUE, or NULL.
 * The caller decides whether @path needs a blocker at all. @clear: NULL,
 * or a set (g_str_hash, keys the tree's paths, not owned) kept across
 * searches for which @is_blocking gives the same answers: the devices
 * from which nothing blocking can be reached (themselves not asked about).
 * A search adds what it learns and does not walk below them again; its
 * answer is the same as without. */
const char *pp_tree_find_blocker     (PpTree             *tree,
                                      const char         *path,
                                      PpTreeBlockingFunc  is_blocking,
                                      gpointer            user_data,
                                      GHashTable         *clear);

/* Device link names (sysfs-class-devlink). The kernel has used three
 * forms for /sys/class/devlink/NAME: "supplier:consumer" (5.9-rc),
 * "supplier--consumer" and "bus:supplier--bus:consumer" (since 5.11);
 * device names may themselves contain ':' and '--'. */
typedef struct {
  char *supplier_bus;        /* NULL in the older forms */
  char *supplier;
  char *consumer_bus;
  char *consumer;
} PpDevlinkName;

void        pp_devlink_name_clear    (PpDevlinkName *name);

/* Does device @name (on bus or class @bus, NULL if unknown) exist? */
typedef gboolean (*PpDevlinkKnownFunc) (const char *bus,
                                        const char *name,
                                        gpointer    user_data);

/* Split a devlink name. Each possible reading is tried, newest form
 * first; with @known, the first reading whose two ends both exist wins;
 * without, a reading is taken only when the text alone decides it (a bus
 * prefix starts with a letter; "supplier:consumer" must have exactly one
 * ':'). FALSE when no reading fits. */
gboolean    pp_devlink_name_parse    (const char         *text,
                                      PpDevlinkKnownFunc  known,
                                      gpointer            user_data,
                                      PpDevlinkName      *out);

/* The end named in a per-device link "supplier:X" / "consumer:X"
 * (X = "bus:device" since 5.11, "device" before): sets @bus (or NULL)
 * and @name. With @known, the reading that exists wins. */
gboolean    pp_devlink_end_parse     (const char         *text,
                                      PpDevlinkKnownFunc  known,
                                      gpointer            user_data,
                                      char              **bus,
                                      char              **name);

G_END_DECLS
