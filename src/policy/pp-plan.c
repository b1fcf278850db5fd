/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-plan"

#include "config.h"

#include <string.h>

#include "pp-plan.h"
#include "pp-util.h"

const char *
pp_plan_layer_to_string (PpPlanLayer layer)
{
  switch (layer)
    {
    case PP_PLAN_LAYER_POLICY:
      return "policy";
    case PP_PLAN_LAYER_SLEEP:
      return "sleep";
    case PP_PLAN_LAYER_LID:
      return "lid";
    case PP_PLAN_LAYER_POWER_OFF:
      return "power-off";
    case PP_PLAN_LAYER_RESTORE:
      return "restore";
    default:
      return "unknown";
    }
}

void
pp_plan_write_free (PpPlanWrite *w)
{
  if (w == NULL)
    return;
  g_free (w->dir);
  g_free (w->path);
  g_free (w->relpath);
  g_free (w->value);
  g_free (w->current);
  g_free (w);
}

GPtrArray *
pp_plan_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) pp_plan_write_free);
}

/* One entry for @relpath of @dir unless the attribute is missing. */
static void
plan_one (GPtrArray          *plan,
          gpointer            dev,
          const char         *dir,
          const char         *relpath,
          const char         *value,
          const PpPlanValues *values)
{
  g_autofree char *path = g_build_filename (dir, relpath, NULL);
  gboolean unreadable = FALSE;
  g_autofree char *current = values->read (path, &unreadable, values->user_data);
  PpPlanWrite *w;

  /* the device does not have it (or vanished): nothing to do */
  if (current == NULL)
    return;
  w = g_new0 (PpPlanWrite, 1);
  w->dev = dev;
  w->dir = g_strdup (dir);
  w->path = g_steal_pointer (&path);
  w->relpath = g_strdup (relpath);
  w->value = g_strdup (value);
  w->unreadable = unreadable;
  w->current = unreadable ? g_strdup ("") : g_steal_pointer (&current);
  w->in_place = !unreadable && g_str_equal (w->current, value);
  g_ptr_array_add (plan, w);
}

static gboolean
settings_mention (GPtrArray *settings, const char *relpath)
{
  for (guint j = 0; j < settings->len; j++)
    if (g_str_equal (((PpSetting *) g_ptr_array_index (settings, j))->key, relpath))
      return TRUE;
  return FALSE;
}

void
pp_plan_settings (GPtrArray          *plan,
                  gpointer            dev,
                  const char         *dir,
                  GPtrArray          *settings,
                  GHashTable         *touched,
                  const PpPlanValues *values)
{
  g_autoptr(GPtrArray) relpaths = NULL;

  for (guint i = 0; i < settings->len; i++)
    {
      PpSetting *s = g_ptr_array_index (settings, i);
      plan_one (plan, dev, dir, s->key, s->value, values);
    }
  if (touched == NULL)
    return;
  relpaths = pp_hash_table_sorted_keys (touched);
  for (guint i = 0; i < relpaths->len; i++)
    {
      const char *relpath = g_ptr_array_index (relpaths, i);
      g_autofree char *path = NULL;
      const char *original;

      if (settings_mention (settings, relpath))
        continue;
      path = g_build_filename (dir, relpath, NULL);
      original = values->original (path, values->user_data);
      if (original != NULL)
        plan_one (plan, dev, dir, relpath, original, values);
    }
}

typedef struct {
  char     *value;           /* NULL: absent */
  gboolean  unreadable;
} CurrentValue;

struct _PpPlanCurrent {
  GHashTable   *values;      /* path -> CurrentValue* */
  GHashTable   *devices;     /* syspath -> opaque device, or NULL */
  PpPlanValues  lookup;      /* reads from @values */
  PpPlanRequestValues request_lookup;  /* reads from @values and @devices */
  const char *(*original) (const char *path, gpointer user_data);
  gpointer      original_data;
};

static void
current_value_free (CurrentValue *v)
{
  g_free (v->value);
  g_free (v);
}

static char *
current_read (const char *path, gboolean *unreadable, gpointer user_data)
{
  PpPlanCurrent *current = user_data;
  CurrentValue *v = g_hash_table_lookup (current->values, path);

  if (v == NULL || v->value == NULL)
    return NULL;
  *unreadable = v->unreadable;
  return g_strdup (v->value);
}

static const char *
current_original (const char *path, gpointer user_data)
{
  PpPlanCurrent *current = user_data;

  return current->original != NULL ? current->original (path, current->original_data) : NULL;
}

/* A standing request's path: its value, NULL when it was absent or
 * could not be read (the request is skipped this time). */
static char *
current_request_read (const char *path, PpPlanFlags flags, gpointer user_data)
{
  PpPlanCurrent *current = user_data;
  CurrentValue *v = g_hash_table_lookup (current->values, path);

  if (v == NULL || v->value == NULL || v->unreadable)
    return NULL;
  return g_strdup (v->value);
}

static gpointer
current_request_device (const char *syspath, gpointer user_data)
{
  PpPlanCurrent *current = user_data;

  return g_hash_table_lookup (current->devices, syspath);
}

PpPlanCurrent *
pp_plan_current_new (const char *(*original) (const char *path, gpointer user_data),
                     gpointer     original_data)
{
  PpPlanCurrent *current = g_new0 (PpPlanCurrent, 1);

  current->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) current_value_free);
  current->original = original;
  current->original_data = original_data;
  current->lookup.read = current_read;
  current->lookup.original = current_original;
  current->lookup.user_data = current;
  current->devices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  current->request_lookup.read = current_request_read;
  current->request_lookup.device = current_request_device;
  current->request_lookup.user_data = current;
  return current;
}

void
pp_plan_current_free (PpPlanCurrent *current)
{
  if (current == NULL)
    return;
  g_hash_table_unref (current->values);
  g_hash_table_unref (current->devices);
  g_free (current);
}

void
pp_plan_current_set (PpPlanCurrent *current,
                     const char    *path,
                     const char    *value,
                     gboolean       unreadable)
{
  CurrentValue *v = g_new0 (CurrentValue, 1);

  v->value = unreadable ? g_strdup ("") : g_strdup (value);
  v->unreadable = unreadable;
  g_hash_table_replace (current->values, g_strdup (path), v);
}

static void
add_path (GPtrArray *paths, GHashTable *seen, const char *dir, const char *relpath)
{
  char *path = g_build_filename (dir, relpath, NULL);

  if (g_hash_table_contains (seen, path))
    {
      g_free (path);
      return;
    }
  g_hash_table_add (seen, path);
  g_ptr_array_add (paths, path);
}

GPtrArray *
pp_plan_settings_paths (PpPlanCurrent *current,
                        const char    *dir,
                        GPtrArray     *settings,
                        GHashTable    *touched)
{
  GPtrArray *paths = g_ptr_array_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) relpaths = NULL;

  /* @seen owns the strings; @paths hands them over at the end */
  for (guint i = 0; i < settings->len; i++)
    add_path (paths, seen, dir, ((PpSetting *) g_ptr_array_index (settings, i))->key);
  if (touched != NULL)
    {
      relpaths = pp_hash_table_sorted_keys (touched);
      for (guint i = 0; i < relpaths->len; i++)
        {
          const char *relpath = g_ptr_array_index (relpaths, i);
          g_autofree char *path = NULL;

          if (settings_mention (settings, relpath))
            continue;
          path = g_build_filename (dir, relpath, NULL);
          if (current->original (path, current->original_data) != NULL)
            add_path (paths, seen, dir, relpath);
        }
    }
  g_hash_table_steal_all (seen);
  g_ptr_array_set_free_func (paths, g_free);
  return paths;
}

const PpPlanValues *
pp_plan_current_values (PpPlanCurrent *current)
{
  return &current->lookup;
}

void
pp_plan_current_set_device (PpPlanCurrent *current, const char *syspath, gpointer dev)
{
  g_hash_table_replace (current->devices, g_strdup (syspath), dev);
}

const PpPlanRequestValues *
pp_plan_current_request_values (PpPlanCurrent *current)
{
  return &current->request_lookup;
}

PpPlanWrite *
pp_plan_write_new (gpointer    dev,
                   const char *path,
                   const char *relpath,
                   const char *value,
                   const char *current,
                   PpPlanFlags flags)
{
  PpPlanWrite *w = g_new0 (PpPlanWrite, 1);

  w->dev = dev;
  w->path = g_strdup (path);
  w->relpath = g_strdup (relpath);
  w->value = g_strdup (value);
  w->current = g_strdup (current);
  w->flags = flags;
  return w;
}

gboolean
pp_plan_request (GPtrArray   *plan,
                 PpPlanLayer  layer,
                 gpointer     dev,
                 const char  *dev_syspath,
                 const char  *path,
                 const char  *value,
                 const char  *current,
                 PpPlanFlags  flags)
{
  PpPlanWrite *w;
  gsize n = dev_syspath != NULL ? strlen (dev_syspath) : 0;

  /* a setting already in place needs no write; an action always does */
  if (!(flags & PP_PLAN_ACTION) && g_str_equal (current, value))
    return FALSE;
  if (dev != NULL && n > 0 && strncmp (path, dev_syspath, n) == 0 && path[n] == '/')
    w = pp_plan_write_new (dev, path, path + n + 1, value, current, flags);
  else
    w = pp_plan_write_new (NULL, path, path, value, current, flags);
  w->layer = layer;
  g_ptr_array_add (plan, w);
  return TRUE;
}

PpPlanRequest *
pp_plan_request_new (PpPlanLayer  layer,
                     const char  *dev_syspath,
                     const char  *path,
                     const char  *value,
                     PpPlanFlags  flags)
{
  PpPlanRequest *r;

  if (flags & PP_PLAN_ACTION)
    return NULL;
  r = g_new0 (PpPlanRequest, 1);
  r->layer = layer;
  r->dev_syspath = g_strdup (dev_syspath);
  r->path = g_strdup (path);
  r->value = g_strdup (value);
  r->flags = flags;
  return r;
}

void
pp_plan_request_free (PpPlanRequest *request)
{
  if (request == NULL)
    return;
  g_free (request->dev_syspath);
  g_free (request->path);
  g_free (request->value);
  g_free (request);
}

GPtrArray *
pp_plan_requests_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) pp_plan_request_free);
}

static gboolean
request_find (GPtrArray *requests, const char *path, guint *index)
{
  for (guint i = 0; i < requests->len; i++)
    {
      PpPlanRequest *r = g_ptr_array_index (requests, i);

      if (g_str_equal (r->path, path))
        {
          *index = i;
          return TRUE;
        }
    }
  return FALSE;
}

void
pp_plan_requests_set (GPtrArray *requests, PpPlanRequest *request)
{
  guint i;

  if (request_find (requests, request->path, &i))
    {
      pp_plan_request_free (g_ptr_array_index (requests, i));
      g_ptr_array_index (requests, i) = request;
    }
  else
    g_ptr_array_add (requests, request);
}

gboolean
pp_plan_requests_withdraw (GPtrArray *requests, const char *path)
{
  guint i;

  if (!request_find (requests, path, &i))
    return FALSE;
  g_ptr_array_remove_index (requests, i);
  return TRUE;
}

const PpPlanRequest *
pp_plan_requests_lookup (GPtrArray *requests, const char *path)
{
  guint i;

  return request_find (requests, path, &i) ? g_ptr_array_index (requests, i) : NULL;
}

void
pp_plan_requests (GPtrArray                 *plan,
                  GPtrArray                 *requests,
                  const PpPlanRequestValues *values)
{
  for (guint i = 0; i < requests->len; i++)
    {
      PpPlanRequest *r = g_ptr_array_index (requests, i);
      g_autofree char *current = values->read (r->path, r->flags, values->user_data);
      gpointer dev = NULL;

      if (current == NULL)
        continue;
      if (r->dev_syspath != NULL && values->device != NULL)
        dev = values->device (r->dev_syspath, values->user_data);
      pp_plan_request (plan, r->layer, dev, dev != NULL ? r->dev_syspath : NULL, r->path,
                       r->value, current, r->flags);
    }
}

void
pp_plan_restore (GPtrArray *plan, const char *path, const char *value, const char *current)
{
  PpPlanWrite *w = pp_plan_write_new (NULL, path, path, value, current, PP_PLAN_SETTING);

  w->layer = PP_PLAN_LAYER_RESTORE;
  w->in_place = current != NULL && g_str_equal (current, value);
  g_ptr_array_add (plan, w);
}

PpPlanWrite *
pp_plan_lookup (GPtrArray *plan, const char *relpath)
{
  for (guint i = 0; i < plan->len; i++)
    {
      PpPlanWrite *w = g_ptr_array_index (plan, i);
      if (g_str_equal (w->relpath, relpath))
        return w;
    }
  return NULL;
}

guint
pp_plan_count_writes (GPtrArray *plan)
{
  guint n = 0;

  for (guint i = 0; i < plan->len; i++)
    if (!((PpPlanWrite *) g_ptr_array_index (plan, i))->in_place)
      n++;
  return n;
}
