/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-overrides"

#include "config.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "pp-config.h"
#include "pp-error.h"
#include "pp-overrides.h"
#include "pp-util.h"

#define OVERRIDES_FILE "overrides"
#define KEY_CONTROL    "Control"
#define KEY_DELAY      "AutosuspendDelayMs"
#define KEY_WAKEUP     "Wakeup"
/* A group name GKeyFile cannot hold ('[', ']', control characters) is
 * written as this prefix and the path %-escaped; other groups are the
 * path itself, as the files of earlier versions have them. */
#define ESCAPED_PREFIX "escaped:"

struct _PpOverrides {
  char       *state_dir;
  char       *path;
  GHashTable *by_device;   /* syspath -> PpOverride* */
  gboolean    persist;     /* FALSE under dry-run: kept in memory only */
};


static PpOverride *
override_new (void)
{
  PpOverride *o = g_new0 (PpOverride, 1);

  o->delay_ms = PP_DELAY_UNSET;
  return o;
}

PpOverride *
pp_override_copy (const PpOverride *src)
{
  PpOverride *o = override_new ();

  o->control = g_strdup (src->control);
  o->delay_ms = src->delay_ms;
  o->wakeup = g_strdup (src->wakeup);
  return o;
}

void
pp_override_free (PpOverride *o)
{
  if (o == NULL)
    return;
  g_free (o->control);
  g_free (o->wakeup);
  g_free (o);
}

static gboolean
override_is_empty (const PpOverride *o)
{
  return o->control == NULL && o->delay_ms == PP_DELAY_UNSET && o->wakeup == NULL;
}

PpOverrides *
pp_overrides_new (const char *state_dir)
{
  PpOverrides *self = g_new0 (PpOverrides, 1);

  self->state_dir = g_strdup (state_dir);
  self->persist = TRUE;
  self->path = g_build_filename (state_dir, OVERRIDES_FILE, NULL);
  self->by_device = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) pp_override_free);
  return self;
}

void
pp_overrides_free (PpOverrides *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->by_device);
  g_free (self->path);
  g_free (self->state_dir);
  g_free (self);
}

const char *
pp_overrides_key_to_attr (const char *key)
{
  if (g_strcmp0 (key, KEY_CONTROL) == 0)
    return PP_ATTR_CONTROL;
  if (g_strcmp0 (key, KEY_DELAY) == 0)
    return PP_ATTR_DELAY;
  if (g_strcmp0 (key, KEY_WAKEUP) == 0)
    return PP_ATTR_WAKEUP;
  return NULL;
}

/* Validate and store into @o. */
static gboolean
override_apply_key (PpOverride *o, const char *key, const char *value, GError **error)
{
  g_autoptr(GError) local_error = NULL;

  if (g_strcmp0 (key, KEY_CONTROL) == 0)
    {
      if (!pp_config_parse_control (value, &local_error))
        goto invalid;
      g_free (o->control);
      o->control = g_strdup (value);
    }
  else if (g_strcmp0 (key, KEY_DELAY) == 0)
    {
      gint delay = 0;
      if (!pp_config_parse_delay_ms (value, &delay, &local_error))
        goto invalid;
      o->delay_ms = delay;
    }
  else if (g_strcmp0 (key, KEY_WAKEUP) == 0)
    {
      if (!pp_config_parse_wakeup (value, &local_error))
        goto invalid;
      g_free (o->wakeup);
      o->wakeup = g_strdup (value);
    }
  else
    {
      g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                   "unknown key '%s' (expected Control, AutosuspendDelayMs or Wakeup)", key);
      return FALSE;
    }
  return TRUE;

invalid:
  g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT, "%s: %s", key, local_error->message);
  return FALSE;
}

void
pp_overrides_set_persist (PpOverrides *self, gboolean persist)
{
  self->persist = persist;
}

static gboolean
needs_escape (guchar c)
{
  return c == '%' || c == '[' || c == ']' || c <= 0x20 || c >= 0x7f;
}

/* The group name of a device path (see ESCAPED_PREFIX). */
static char *
group_from_path (const char *path)
{
  GString *group;
  gboolean plain = TRUE;

  for (const char *p = path; *p && plain; p++)
    plain = !needs_escape ((guchar) *p) || *p == '%';
  if (plain)
    return g_strdup (path);
  group = g_string_new (ESCAPED_PREFIX);
  for (const char *p = path; *p; p++)
    {
      if (needs_escape ((guchar) *p))
        g_string_append_printf (group, "%%%02X", (guchar) *p);
      else
        g_string_append_c (group, *p);
    }
  return g_string_free (group, FALSE);
}

/* The device path of a group name; NULL if the escaping is malformed. */
static char *
path_from_group (const char *group)
{
  g_autoptr(GString) path = NULL;

  if (!g_str_has_prefix (group, ESCAPED_PREFIX))
    return g_strdup (group);
  path = g_string_new (NULL);
  for (const char *p = group + strlen (ESCAPED_PREFIX); *p; p++)
    {
      int hi, lo;

      if (*p != '%')
        {
          g_string_append_c (path, *p);
          continue;
        }
      hi = g_ascii_xdigit_value (p[1]);
      lo = hi < 0 ? -1 : g_ascii_xdigit_value (p[2]);
      if (lo < 0 || (hi == 0 && lo == 0))
        return NULL;
      g_string_append_c (path, (char) (hi * 16 + lo));
      p += 2;
    }
  return g_string_free (g_steal_pointer (&path), FALSE);
}

static char *
table_to_data (GHashTable *table, gsize *length)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GPtrArray) paths = pp_hash_table_sorted_keys (table);   /* a stable file */

  g_key_file_set_comment (kf, NULL, NULL,
                          " powerpolicyd: per-device overrides set over D-Bus (pmctl set).\n"
                          " Written by the daemon; use 'pmctl reset DEVICE' to remove one.", NULL);
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      const PpOverride *o = g_hash_table_lookup (table, path);
      g_autofree char *group = group_from_path (path);

      if (o->control)
        g_key_file_set_string (kf, group, KEY_CONTROL, o->control);
      if (o->delay_ms != PP_DELAY_UNSET)
        g_key_file_set_integer (kf, group, KEY_DELAY, o->delay_ms);
      if (o->wakeup)
        g_key_file_set_string (kf, group, KEY_WAKEUP, o->wakeup);
    }
  return g_key_file_to_data (kf, length, NULL);
}

char *
pp_overrides_to_data (PpOverrides *self, gsize *length)
{
  return table_to_data (self->by_device, length);
}

static gboolean
save (PpOverrides *self, GHashTable *table, GError **error)
{
  gsize length = 0;
  g_autofree char *data = table_to_data (table, &length);

  if (!self->persist)
    {
      g_message ("dry-run: would save the overrides to %s", self->path);
      return TRUE;
    }

  if (g_mkdir_with_parents (self->state_dir, 0755) < 0)
    return pp_error_set_from_errno (error, errno, "cannot create %s", self->state_dir);
  if (!g_file_set_contents_full (self->path, data, (gssize) length,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                 0644, error))
    {
      g_prefix_error (error, "cannot save overrides: ");
      if (error && *error && (*error)->domain != PP_ERROR)
        {
          GError *e = *error;
          *error = g_error_new_literal (PP_ERROR, PP_ERROR_FAILED, e->message);
          g_error_free (e);
        }
      return FALSE;
    }
  return TRUE;
}

/* Move a corrupt state file aside so it can be inspected, and start over. */
static void
move_aside (PpOverrides *self, const char *why, GError **error)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%dT%H%M%SZ");
  g_autofree char *aside = g_strdup_printf ("%s.corrupt-%s", self->path, stamp);

  if (!self->persist)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_FAILED,
                   "%s is corrupt (%s); dry-run: leaving it in place, starting without overrides",
                   self->path, why);
      return;
    }
  if (g_rename (self->path, aside) < 0)
    g_set_error (error, PP_ERROR, PP_ERROR_FAILED,
                 "%s is corrupt (%s) and cannot be moved aside: %s; ignoring it",
                 self->path, why, g_strerror (errno));
  else
    g_set_error (error, PP_ERROR, PP_ERROR_FAILED,
                 "%s is corrupt (%s); moved it to %s and starting without overrides",
                 self->path, why, aside);
}

/* The overrides of a parsed state file, or NULL with the reason in @why
 * (the file is corrupt). */
static GHashTable *
parse_key_file (GKeyFile *kf, char **why)
{
  g_autoptr(GHashTable) table = NULL;
  g_auto(GStrv) groups = NULL;

  table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) pp_override_free);
  groups = g_key_file_get_groups (kf, NULL);
  for (guint i = 0; groups[i]; i++)
    {
      g_auto(GStrv) keys = g_key_file_get_keys (kf, groups[i], NULL, NULL);
      g_autofree char *path = path_from_group (groups[i]);
      PpOverride *o;

      if (path == NULL || !g_str_has_prefix (path, "/sys/devices/"))
        {
          *why = g_strdup_printf ("'%s' is not a device path", groups[i]);
          return NULL;
        }
      o = override_new ();
      g_hash_table_insert (table, g_strdup (path), o);
      for (guint j = 0; keys && keys[j]; j++)
        {
          g_autofree char *value = g_key_file_get_string (kf, groups[i], keys[j], NULL);
          g_autoptr(GError) key_error = NULL;

          if (value == NULL || !override_apply_key (o, keys[j], value, &key_error))
            {
              *why = g_strdup_printf ("[%s] %s", groups[i],
                                      key_error ? key_error->message : keys[j]);
              return NULL;
            }
        }
    }
  return g_steal_pointer (&table);
}

gboolean
pp_overrides_load_data (PpOverrides *self, const char *data, gsize length, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GError) local_error = NULL;
  g_autofree char *why = NULL;
  GHashTable *table;

  g_hash_table_remove_all (self->by_device);
  if (!g_key_file_load_from_data (kf, data, length, G_KEY_FILE_NONE, &local_error))
    {
      g_autofree char *safe = pp_escape_text (local_error->message, PP_ESCAPE_SHOWN_MAX);

      g_set_error (error, PP_ERROR, PP_ERROR_FAILED, "corrupt overrides (%s)", safe);
      return FALSE;
    }
  table = parse_key_file (kf, &why);
  if (table == NULL)
    {
      g_autofree char *safe = pp_escape_text (why, PP_ESCAPE_SHOWN_MAX);

      g_set_error (error, PP_ERROR, PP_ERROR_FAILED, "corrupt overrides (%s)", safe);
      return FALSE;
    }
  g_hash_table_unref (self->by_device);
  self->by_device = table;
  return TRUE;
}

gboolean
pp_overrides_load (PpOverrides *self, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GError) local_error = NULL;
  g_autofree char *why = NULL;
  GHashTable *table;

  g_hash_table_remove_all (self->by_device);
  if (!g_key_file_load_from_file (kf, self->path, G_KEY_FILE_NONE, &local_error))
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      if (local_error->domain == G_KEY_FILE_ERROR)
        {
          g_autofree char *safe = pp_escape_text (local_error->message, PP_ESCAPE_SHOWN_MAX);

          move_aside (self, safe, error);
          return FALSE;
        }
      g_set_error (error, PP_ERROR, PP_ERROR_FAILED, "cannot read %s: %s",
                   self->path, local_error->message);
      return FALSE;
    }
  table = parse_key_file (kf, &why);
  if (table == NULL)
    {
      g_autofree char *safe = pp_escape_text (why, PP_ESCAPE_SHOWN_MAX);

      move_aside (self, safe, error);
      return FALSE;
    }
  g_hash_table_unref (self->by_device);
  self->by_device = table;
  return TRUE;
}

const PpOverride *
pp_overrides_lookup (PpOverrides *self, const char *syspath)
{
  return g_hash_table_lookup (self->by_device, syspath);
}

void
pp_override_row_free (PpOverrideRow *row)
{
  if (row == NULL)
    return;
  g_free (row->path);
  g_free (row->key);
  g_free (row->value);
  g_free (row);
}

static void
add_row (GPtrArray *rows, const char *path, const char *key, char *value)
{
  PpOverrideRow *row = g_new0 (PpOverrideRow, 1);

  row->path = g_strdup (path);
  row->key = g_strdup (key);
  row->value = value;
  g_ptr_array_add (rows, row);
}

GPtrArray *
pp_overrides_list (PpOverrides *self)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_override_row_free);
  g_autoptr(GPtrArray) paths = pp_hash_table_sorted_keys (self->by_device);
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      const PpOverride *o = g_hash_table_lookup (self->by_device, path);

      if (o->control != NULL)
        add_row (rows, path, KEY_CONTROL, g_strdup (o->control));
      if (o->delay_ms != PP_DELAY_UNSET)
        add_row (rows, path, KEY_DELAY, g_strdup_printf ("%d", o->delay_ms));
      if (o->wakeup != NULL)
        add_row (rows, path, KEY_WAKEUP, g_strdup (o->wakeup));
    }
  return rows;
}

static GHashTable *
copy_table (PpOverrides *self)
{
  GHashTable *copy = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                            (GDestroyNotify) pp_override_free);
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->by_device);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (copy, g_strdup (key), pp_override_copy (value));
  return copy;
}

/* Save @next (taken) and make it current; on failure nothing changes. */
static gboolean
commit (PpOverrides *self, GHashTable *next, GError **error)
{
  g_autoptr(GHashTable) table = next;

  if (!save (self, table, error))
    return FALSE;
  g_hash_table_unref (self->by_device);
  self->by_device = g_steal_pointer (&table);
  return TRUE;
}

gboolean
pp_overrides_set (PpOverrides *self,
                  const char  *syspath,
                  const char  *key,
                  const char  *value,
                  GError     **error)
{
  g_autoptr(GHashTable) next = copy_table (self);
  PpOverride *o = g_hash_table_lookup (next, syspath);

  if (o == NULL)
    {
      o = override_new ();
      g_hash_table_insert (next, g_strdup (syspath), o);
    }
  if (!override_apply_key (o, key, value, error))
    return FALSE;
  return commit (self, g_steal_pointer (&next), error);
}

gboolean
pp_overrides_clear (PpOverrides *self, const char *syspath, GError **error)
{
  g_autoptr(GHashTable) next = NULL;
  const PpOverride *o = g_hash_table_lookup (self->by_device, syspath);

  if (o == NULL || override_is_empty (o))
    return TRUE;
  next = copy_table (self);
  g_hash_table_remove (next, syspath);
  return commit (self, g_steal_pointer (&next), error);
}

gboolean
pp_overrides_replace (PpOverrides      *self,
                      const char       *syspath,
                      const PpOverride *previous,
                      GError          **error)
{
  g_autoptr(GHashTable) next = copy_table (self);

  if (previous == NULL || override_is_empty (previous))
    g_hash_table_remove (next, syspath);
  else
    g_hash_table_replace (next, g_strdup (syspath), pp_override_copy (previous));
  return commit (self, g_steal_pointer (&next), error);
}
