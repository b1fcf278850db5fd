/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-power-ops"

#include "config.h"

#include "pp-power-fields.h"
#include "pp-power-ops.h"
#include "pp-power-state.h"

struct _PpBlockingMemo {
  GHashTable *state;         /* path -> BLOCKING_YES/NO */
  GHashTable *clear;         /* the tree's paths nothing blocking is below (pp_tree_find_blocker()) */
};

typedef struct {
  PpPowerTree *tree;
  PpManager   *manager;
  GHashTable  *memo;         /* the memo's state, or NULL */
} BlockerCtx;

enum { BLOCKING_NO = 1, BLOCKING_YES = 2 };

PpBlockingMemo *
pp_power_ops_blocking_memo_new (void)
{
  PpBlockingMemo *memo = g_new (PpBlockingMemo, 1);

  memo->state = g_hash_table_new (g_str_hash, g_str_equal);
  memo->clear = g_hash_table_new (g_str_hash, g_str_equal);
  return memo;
}

void
pp_power_ops_blocking_memo_free (PpBlockingMemo *memo)
{
  g_hash_table_unref (memo->state);
  g_hash_table_unref (memo->clear);
  g_free (memo);
}

static gboolean
state_blocks (const char *runtime_status, const char *control, gboolean held)
{
  return g_strcmp0 (runtime_status, "active") == 0 && (held || g_strcmp0 (control, "on") == 0);
}

void
pp_power_ops_blocking_memo_add (PpBlockingMemo *memo,
                                const char     *syspath,
                                const char     *runtime_status,
                                const char     *control,
                                gboolean        held)
{
  g_hash_table_insert (memo->state, (gpointer) syspath,
                       GINT_TO_POINTER (state_blocks (runtime_status, control, held) ?
                                        BLOCKING_YES : BLOCKING_NO));
}

/* Active and not allowed to suspend. */
static gboolean
is_blocking (const char *path, gpointer user_data)
{
  BlockerCtx *ctx = user_data;
  char control[PP_POWER_STATE_MAX], status[PP_POWER_STATE_MAX];
  gboolean blocking;
  gpointer known;

  if (ctx->memo != NULL && (known = g_hash_table_lookup (ctx->memo, path)) != NULL)
    return GPOINTER_TO_INT (known) == BLOCKING_YES;
  /* control first: most devices the policy does not manage (USB
   * interfaces, SCSI targets, block devices) have none, and then one
   * read answers. That a device has no power/control is kept while the
   * tree lives: later answers do not look again. Values are never kept. */
  if (pp_manager_is_held (ctx->manager, path))
    blocking = TRUE;
  else if (pp_power_tree_lacks_control (ctx->tree, path))
    blocking = FALSE;
  else if (!pp_power_state_read_one (path, "control", control))
    {
      /* @path is the tree's */
      pp_power_tree_note_no_control (ctx->tree, path);
      blocking = FALSE;
    }
  else
    blocking = g_str_equal (control, "on");
  if (blocking)
    blocking = pp_power_state_read_one (path, "runtime_status", status) &&
               g_str_equal (status, "active");
  /* @path is the tree's: it lives as long as the tree, longer than @memo */
  if (ctx->memo != NULL)
    g_hash_table_insert (ctx->memo, (gpointer) path,
                         GINT_TO_POINTER (blocking ? BLOCKING_YES : BLOCKING_NO));
  return blocking;
}

void
pp_power_fields_get (PpPowerTree  *power_tree,
                     PpManager    *manager,
                     const char   *syspath,
                     const char   *control,
                     const char   *runtime_status,
                     PpBlockingMemo *memo,
                     GPtrArray   **suppliers,
                     GPtrArray   **consumers,
                     const char  **blocker)
{
  PpTree *tree = pp_power_tree_get (power_tree);

  *suppliers = pp_tree_get_suppliers (tree, syspath);
  *consumers = pp_tree_get_consumers (tree, syspath);
  *blocker = NULL;
  if (g_strcmp0 (control, "auto") == 0 && g_strcmp0 (runtime_status, "active") == 0)
    {
      BlockerCtx ctx = { power_tree, manager, memo ? memo->state : NULL };

      *blocker = pp_tree_find_blocker (tree, syspath, is_blocking, &ctx,
                                       memo ? memo->clear : NULL);
    }
}
