/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-power-ops"

#include "config.h"

#include "pp-log.h"
#include "pp-power-holds.h"

typedef struct {
  PpPowerHolds *self;        /* unowned: the hold lives in self->holds; NULL at exit */
  char         *device;
  char         *who;
  char         *why;
  guint32       pid;
  GPtrArray    *paths;       /* what the hold keeps up, as given to the manager */
  PpToken      *token;
} Hold;

struct _PpPowerHolds {
  PpManager   *manager;      /* unowned: it outlives the holds */
  PpPowerTree *tree;         /* unowned, likewise */
  PpTokenRegistry *tokens;   /* the holds are counted here */
  GPtrArray   *holds;        /* Hold* */
};

static void
hold_free (Hold *hold)
{
  pp_token_free (hold->token);
  g_free (hold->device);
  g_free (hold->who);
  g_free (hold->why);
  g_ptr_array_unref (hold->paths);
  g_free (hold);
}

/* The holder closed its fd or died. */
static void
on_hold_released (gpointer user_data)
{
  Hold *hold = user_data;

  pp_log_hold (FALSE, hold->device, hold->who, hold->why, hold->pid);
  /* the policy returns; this frees @hold */
  g_ptr_array_remove (hold->self->holds, hold);
}

static void
holds_element_free (gpointer data)
{
  Hold *hold = data;
  g_autoptr(GError) error = NULL;

  if (hold->self != NULL &&
      !pp_manager_set_held (hold->self->manager, hold->paths, FALSE, &error))
    g_warning ("Releasing the hold on %s: %s", hold->device, error->message);
  hold_free (hold);
}

/* The device and every device it depends on (its prerequisites). */
static GPtrArray *
held_paths (PpPowerHolds *self, const char *device)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) prerequisites = pp_tree_get_prerequisites (pp_power_tree_get (self->tree),
                                                                  device);

  g_ptr_array_add (paths, g_strdup (device));
  for (guint i = 0; i < prerequisites->len; i++)
    g_ptr_array_add (paths, g_strdup (g_ptr_array_index (prerequisites, i)));
  return paths;
}

gboolean
pp_power_holds_add (PpPowerHolds          *self,
                    const char            *device_arg,
                    const PpTokenRequest  *request,
                    int                   *out_fd,
                    GError               **error)
{
  g_autoptr(GError) local_error = NULL;
  PpDevice *dev;
  Hold *hold;

  if (!pp_token_check_text (request->who, request->why, error))
    return FALSE;
  dev = pp_manager_resolve_device (self->manager, device_arg, error);
  if (dev == NULL)
    return FALSE;

  hold = g_new0 (Hold, 1);
  hold->token = pp_token_new (self->tokens, request->uid, on_hold_released, hold, out_fd, error);
  if (hold->token == NULL)
    {
      g_free (hold);
      return FALSE;
    }
  hold->device = g_strdup (dev->info->syspath);
  hold->who = g_strdup (request->who);
  hold->why = g_strdup (request->why);
  hold->pid = request->pid;
  hold->paths = held_paths (self, hold->device);

  if (!pp_manager_set_held (self->manager, hold->paths, TRUE, &local_error))
    g_warning ("Hold on %s: %s (the hold stays, the policy retries)", hold->device,
               local_error->message);
  hold->self = self;
  g_ptr_array_add (self->holds, hold);
  pp_log_hold (TRUE, hold->device, hold->who, hold->why, hold->pid);
  g_debug ("The hold on %s keeps %u devices it depends on on", hold->device,
           hold->paths->len - 1);
  return TRUE;
}

GPtrArray *
pp_power_holds_list (PpPowerHolds *self)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_token_info_free);

  for (guint i = 0; i < self->holds->len; i++)
    {
      Hold *hold = g_ptr_array_index (self->holds, i);

      g_ptr_array_add (out, pp_token_info_new ("hold", hold->who, hold->why,
                                               hold->device, hold->pid));
    }
  return out;
}

#define EXPLAIN_MAX_HOLDS 8

static gboolean
hold_covers (Hold *hold, const char *syspath)
{
  for (guint j = 0; j < hold->paths->len; j++)
    if (g_str_equal (g_ptr_array_index (hold->paths, j), syspath))
      return TRUE;
  return FALSE;
}

/* Explain's origin of a hold on @syspath: every hold that keeps it on,
 * the device itself held or something that depends on it. */
static char *
describe_holds (PpManager *manager, const char *syspath, gpointer user_data)
{
  PpPowerHolds *self = user_data;
  g_autoptr(GString) s = NULL;
  guint n = 0;

  for (guint i = 0; i < self->holds->len; i++)
    {
      Hold *hold = g_ptr_array_index (self->holds, i);

      if (!hold_covers (hold, syspath))
        continue;
      /* holds are many only when callers make them so: a bounded answer */
      if (++n > EXPLAIN_MAX_HOLDS)
        continue;
      if (s == NULL)
        s = g_string_new (NULL);
      else
        g_string_append (s, "; ");
      g_string_append_printf (s, "held by %s (%s), pid %u", hold->who, hold->why, hold->pid);
      if (!g_str_equal (hold->device, syspath))
        g_string_append_printf (s, ", for %s", hold->device);
    }
  if (n > EXPLAIN_MAX_HOLDS)
    g_string_append_printf (s, "; and %u more holds", n - EXPLAIN_MAX_HOLDS);
  return s != NULL ? g_string_free (g_steal_pointer (&s), FALSE) : NULL;
}

PpPowerHolds *
pp_power_holds_new (PpManager *manager, PpPowerTree *tree, PpTokenRegistry *tokens)
{
  PpPowerHolds *self = g_new0 (PpPowerHolds, 1);

  self->manager = manager;
  self->tree = tree;
  self->tokens = pp_token_registry_ref (tokens);
  self->holds = g_ptr_array_new_with_free_func (holds_element_free);
  pp_manager_set_hold_hook (manager, describe_holds, self);
  return self;
}

void
pp_power_holds_free (PpPowerHolds *self)
{
  if (self == NULL)
    return;
  /* at exit the manager restores or keeps the policy itself: holds go
   * without another round of writes */
  for (guint i = 0; i < self->holds->len; i++)
    ((Hold *) g_ptr_array_index (self->holds, i))->self = NULL;
  g_ptr_array_unref (self->holds);
  pp_manager_set_hold_hook (self->manager, NULL, NULL);
  pp_token_registry_unref (self->tokens);
  g_free (self);
}
