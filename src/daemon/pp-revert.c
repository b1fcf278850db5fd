/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-revert"

#include "config.h"

#include <unistd.h>

#include "pp-error.h"
#include "pp-log.h"
#include "pp-revert.h"
#include "pp-util.h"

typedef struct {
  PpReverts  *self;          /* NULL once the Reverts are being freed */
  PpToken    *token;
  char       *who;
  char       *why;
  guint32     pid;
  GPtrArray  *paths;         /* the devices' syspaths, sorted, each once */
} Revert;

struct _PpReverts {
  PpManager  *manager;
  PpTokenRegistry *tokens;   /* the reverts are counted here */
  GPtrArray  *reverts;       /* Revert*, oldest first */
  guint       n_entries;     /* device entries of all Reverts */
};

static void
log_revert (const Revert *revert, gboolean taken)
{
  g_autofree char *who = pp_escape_text (revert->who, PP_LOG_CALLER_TEXT_MAX);
  g_autofree char *why = pp_escape_text (revert->why, PP_LOG_CALLER_TEXT_MAX);

  g_info ("Revert of %u device%s to their original values %s by %s (%s), pid %u",
          revert->paths->len, revert->paths->len == 1 ? "" : "s",
          taken ? "taken" : "released", who, why, revert->pid);
}

static void
revert_free (Revert *revert)
{
  pp_token_free (revert->token);
  g_free (revert->who);
  g_free (revert->why);
  g_ptr_array_unref (revert->paths);
  g_free (revert);
}

/* Leaving the array: the policy returns to the devices, unless the
 * daemon is on its way out. */
static void
reverts_element_free (gpointer data)
{
  Revert *revert = data;

  if (revert->self != NULL)
    {
      g_autoptr(GError) error = NULL;

      revert->self->n_entries -= revert->paths->len;
      if (!pp_manager_set_reverted (revert->self->manager, revert->paths, FALSE, &error))
        g_warning ("Ending a revert of %u device%s: %s", revert->paths->len,
                   revert->paths->len == 1 ? "" : "s", error->message);
    }
  revert_free (revert);
}

/* The caller closed its descriptor, exited or was killed. */
static void
on_revert_released (gpointer user_data)
{
  Revert *revert = user_data;

  log_revert (revert, FALSE);
  /* frees @revert */
  g_ptr_array_remove (revert->self->reverts, revert);
}

/* Release now the Reverts whose holders are gone but whose release the
 * main loop has not dispatched yet. */
static void
reap_released (PpReverts *self)
{
  for (guint i = self->reverts->len; i > 0; i--)
    {
      Revert *revert = g_ptr_array_index (self->reverts, i - 1);

      if (pp_token_is_released (revert->token))
        on_revert_released (revert);
    }
}

#define EXPLAIN_MAX_REVERTS 8

/* Explain's origin of the revert layer of @syspath. */
static char *
describe_reverts (PpManager *manager, const char *syspath, gpointer user_data)
{
  PpReverts *self = user_data;
  g_autoptr(GString) s = NULL;
  guint n = 0;

  for (guint i = 0; i < self->reverts->len; i++)
    {
      Revert *revert = g_ptr_array_index (self->reverts, i);

      if (!g_ptr_array_find_with_equal_func (revert->paths, syspath, g_str_equal, NULL))
        continue;
      /* bounded whatever callers do */
      if (++n > EXPLAIN_MAX_REVERTS)
        continue;
      if (s == NULL)
        s = g_string_new (NULL);
      else
        g_string_append (s, "; ");
      g_string_append_printf (s, "reverted by %s (%s), pid %u", revert->who, revert->why,
                              revert->pid);
    }
  if (n > EXPLAIN_MAX_REVERTS)
    g_string_append_printf (s, "; and %u more reverts", n - EXPLAIN_MAX_REVERTS);
  return s != NULL ? g_string_free (g_steal_pointer (&s), FALSE) : NULL;
}

PpReverts *
pp_reverts_new (PpManager *manager, PpTokenRegistry *tokens)
{
  PpReverts *self = g_new0 (PpReverts, 1);

  self->manager = g_object_ref (manager);
  self->tokens = pp_token_registry_ref (tokens);
  self->reverts = g_ptr_array_new_with_free_func (reverts_element_free);
  pp_manager_set_revert_hook (manager, describe_reverts, self);
  return self;
}

void
pp_reverts_free (PpReverts *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->reverts->len; i++)
    ((Revert *) g_ptr_array_index (self->reverts, i))->self = NULL;
  g_ptr_array_unref (self->reverts);
  pp_manager_set_revert_hook (self->manager, NULL, NULL);
  g_object_unref (self->manager);
  pp_token_registry_unref (self->tokens);
  g_free (self);
}

guint
pp_reverts_count (PpReverts *self)
{
  return self->reverts->len;
}

guint
pp_reverts_n_entries (PpReverts *self)
{
  return self->n_entries;
}

/* The devices' syspaths, each once, sorted; NULL with the error of the
 * first argument that is no managed device. */
static GPtrArray *
resolve_devices (PpReverts *self, const char * const *devices, GError **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; devices[i] != NULL; i++)
    {
      PpDevice *dev = pp_manager_resolve_device (self->manager, devices[i], error);

      if (dev == NULL)
        return NULL;
      if (g_hash_table_add (seen, dev->info->syspath))
        g_ptr_array_add (paths, g_strdup (dev->info->syspath));
    }
  g_ptr_array_sort (paths, pp_compare_strings);
  return g_steal_pointer (&paths);
}

gboolean
pp_reverts_add (PpReverts            *self,
                const char * const   *devices,
                const PpTokenRequest *request,
                int                  *out_fd,
                GError              **error)
{
  g_autoptr(GPtrArray) paths = NULL;
  g_autoptr(GError) apply_error = NULL;
  guint n = devices != NULL ? g_strv_length ((char **) devices) : 0;
  Revert *revert;

  if (!pp_token_check_text (request->who, request->why, error))
    return FALSE;
  if (n == 0)
    {
      g_set_error_literal (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT, "no device to revert");
      return FALSE;
    }
  if (n > PP_REVERT_MAX_DEVICES)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                   "%u devices: one revert takes at most %d", n, PP_REVERT_MAX_DEVICES);
      return FALSE;
    }
  /* the previous round's revert of a caller that closed it just now */
  reap_released (self);
  paths = resolve_devices (self, devices, error);
  if (paths == NULL)
    return FALSE;
  if (self->n_entries + paths->len > PP_REVERT_MAX_TOTAL)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_REFUSED,
                   "too many devices reverted: %u in force, %u asked, at most %d together",
                   self->n_entries, paths->len, PP_REVERT_MAX_TOTAL);
      return FALSE;
    }

  revert = g_new0 (Revert, 1);
  revert->token = pp_token_new (self->tokens, request->uid, on_revert_released, revert, out_fd, error);
  if (revert->token == NULL)
    {
      g_free (revert);
      return FALSE;
    }
  revert->who = g_strdup (request->who);
  revert->why = g_strdup (request->why);
  revert->pid = request->pid;
  revert->paths = g_steal_pointer (&paths);

  /* in force for Explain's origin while it is applied */
  revert->self = self;
  g_ptr_array_add (self->reverts, revert);
  self->n_entries += revert->paths->len;
  if (!pp_manager_set_reverted (self->manager, revert->paths, TRUE, &apply_error))
    {
      /* a check run now would not test what the caller asked: nothing
       * stays reverted (this puts the policy back) */
      g_ptr_array_remove (self->reverts, revert);
      close (*out_fd);
      *out_fd = -1;
      g_set_error (error, PP_ERROR, PP_ERROR_FAILED,
                   "cannot put the devices back to their original values: %s",
                   apply_error->message);
      return FALSE;
    }
  log_revert (revert, TRUE);
  return TRUE;
}
