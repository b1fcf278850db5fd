/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-restore"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "pp-restore.h"
#include "pp-util.h"


#define RECORD_HEADER "# powerpolicy original attribute values v1\n"
#define RECORD_SUFFIX ".orig"
/* beside the record files: they were kept on a clean exit */
#define KEPT_MARK "kept"

struct _PpRestore {
  char       *dir;          /* <runtime_dir>/originals */
  GHashTable *recorded;     /* path -> original value (this run) */
  GPtrArray  *order;        /* PpOriginal*, recording order (each one block,
                             * original_new_packed()) */
  guint       next_serial;
  guint       n_files;      /* record files this run wrote since the last compaction */
  gboolean    stale;        /* the files hold records forgotten since */
};

PpOriginal *
pp_original_new (const char *path, const char *value)
{
  PpOriginal *o = g_new0 (PpOriginal, 1);

  o->path = g_strdup (path);
  o->value = g_strdup (value);
  return o;
}

void
pp_original_free (PpOriginal *original)
{
  if (original == NULL)
    return;
  g_free (original->path);
  g_free (original->value);
  g_free (original);
}

/* A PpOriginal and its two strings in one block (g_free() frees it): one
 * is kept for every attribute written, thousands at 10,000 devices, and
 * three small blocks each cost a third more and spread over the heap. */
static PpOriginal *
original_new_packed (const char *path, const char *value)
{
  gsize path_size = strlen (path) + 1;
  gsize value_size = value != NULL ? strlen (value) + 1 : 0;
  PpOriginal *o = g_malloc (sizeof (PpOriginal) + path_size + value_size);
  char *strings = (char *) (o + 1);

  o->path = memcpy (strings, path, path_size);
  o->value = value != NULL ? memcpy (strings + path_size, value, value_size) : NULL;
  return o;
}

PpRestore *
pp_restore_new (const char *runtime_dir)
{
  PpRestore *r = g_new0 (PpRestore, 1);

  r->dir = g_build_filename (runtime_dir, "originals", NULL);
  r->recorded = g_hash_table_new (g_str_hash, g_str_equal);
  r->order = g_ptr_array_new_with_free_func (g_free);
  return r;
}

void
pp_restore_free (PpRestore *restore)
{
  if (restore == NULL)
    return;
  g_hash_table_unref (restore->recorded);
  g_ptr_array_unref (restore->order);
  g_free (restore->dir);
  g_free (restore);
}

static GPtrArray *
list_record_files (PpRestore *restore)
{
  g_autoptr(GPtrArray) names = pp_list_dir_sorted (restore->dir, RECORD_SUFFIX);
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; names != NULL && i < names->len; i++)
    g_ptr_array_add (files, g_build_filename (restore->dir, g_ptr_array_index (names, i), NULL));
  return files;
}

gboolean
pp_restore_has_leftover (PpRestore *restore)
{
  g_autoptr(GPtrArray) files = list_record_files (restore);

  return files->len > 0;
}

/* The lines of one record file: @seen holds the paths already loaded
 * (the first record of a path holds the true original). */
static void
parse_record (const char *name, const char *data, gsize length, GHashTable *seen, GPtrArray *out)
{
  g_autofree char *contents = g_strndup (data, length);   /* up to a NUL, as a file reads */
  g_auto(GStrv) lines = g_strsplit (contents, "\n", -1);

  for (guint j = 0; lines[j]; j++)
    {
      g_auto(GStrv) fields = NULL;
      g_autofree char *path = NULL;
      g_autofree char *value = NULL;

      if (*lines[j] == '\0' || *lines[j] == '#')
        continue;
      fields = g_strsplit (lines[j], "\t", 2);
      if (g_strv_length (fields) != 2)
        {
          g_autofree char *safe = pp_escape_text (name, 0);

          g_warning ("%s:%u: malformed record line, skipping it", safe, j + 1);
          continue;
        }
      path = g_strcompress (fields[0]);
      value = g_strcompress (fields[1]);
      if (g_hash_table_contains (seen, path))
        continue;
      g_hash_table_add (seen, g_strdup (path));
      g_ptr_array_add (out, pp_original_new (path, value));
    }
}

GPtrArray *
pp_restore_parse (const char *name, const char *data, gsize length)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_original_free);

  parse_record (name, data, length, seen, out);
  return out;
}

GPtrArray *
pp_restore_load (PpRestore *restore)
{
  g_autoptr(GPtrArray) files = list_record_files (restore);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_original_free);

  for (guint i = 0; i < files->len; i++)
    {
      const char *file = g_ptr_array_index (files, i);
      g_autofree char *contents = NULL;
      gsize length = 0;
      g_autoptr(GError) local_error = NULL;

      if (!g_file_get_contents (file, &contents, &length, &local_error))
        {
          g_warning ("Cannot read the record of original values %s: %s",
                     file, local_error->message);
          continue;
        }
      parse_record (file, contents, length, seen, out);
    }
  return out;
}

/* One field of a record line: C escapes (g_strescape) for control
 * characters, tabs, newlines and backslashes, and a leading '#' as \043
 * so that no record reads back as a comment. */
static char *
encode_field (const char *text)
{
  g_autofree char *escaped = g_strescape (text, NULL);

  if (escaped[0] == '#')
    return g_strconcat ("\\043", escaped + 1, NULL);
  return g_steal_pointer (&escaped);
}

static void
append_record (GString *text, const char *path, const char *value)
{
  g_autofree char *p = encode_field (path);
  g_autofree char *v = encode_field (value);

  g_string_append_printf (text, "%s\t%s\n", p, v);
}

gboolean
pp_restore_contains (PpRestore *restore, const char *path)
{
  return g_hash_table_contains (restore->recorded, path);
}

/* A new file (temp file, fsync, rename): the record never has to be
 * rewritten in place, and a crash leaves either the whole batch or none
 * of it. Its path in @out_file. */
static gboolean
write_record_file (PpRestore *restore, GString *text, char **out_file, GError **error)
{
  g_autofree char *file = NULL;

  if (g_mkdir_with_parents (restore->dir, 0700) < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot create %s: %s", restore->dir, g_strerror (saved));
      return FALSE;
    }
  do
    {
      g_autofree char *name = NULL;

      g_free (file);
      /* names sort by age, across runs too */
      name = g_strdup_printf ("%016" G_GINT64_FORMAT "-%06u-%d%s", g_get_real_time (),
                              restore->next_serial++, (int) getpid (), RECORD_SUFFIX);
      file = g_build_filename (restore->dir, name, NULL);
    }
  while (g_file_test (file, G_FILE_TEST_EXISTS));

  if (!g_file_set_contents_full (file, text->str, (gssize) text->len,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                 0600, error))
    return FALSE;
  restore->n_files++;
  if (out_file)
    *out_file = g_steal_pointer (&file);
  return TRUE;
}

char *
pp_restore_format (GPtrArray *originals)
{
  GString *text = g_string_new (RECORD_HEADER);

  for (guint i = 0; i < originals->len; i++)
    {
      PpOriginal *o = g_ptr_array_index (originals, i);

      append_record (text, o->path, o->value);
    }
  return g_string_free (text, FALSE);
}

/* @originals (PpOriginal*) in memory too, in order; a path recorded
 * before keeps its first original. */
static void
remember_originals (PpRestore *restore, GPtrArray *originals)
{
  for (guint i = 0; i < originals->len; i++)
    {
      PpOriginal *o = g_ptr_array_index (originals, i);
      PpOriginal *copy;

      if (g_hash_table_contains (restore->recorded, o->path))
        continue;
      copy = original_new_packed (o->path, o->value);
      g_ptr_array_add (restore->order, copy);
      g_hash_table_insert (restore->recorded, copy->path, copy->value);
    }
}

gboolean
pp_restore_record (PpRestore *restore, GPtrArray *originals, GError **error)
{
  g_autoptr(GPtrArray) added = g_ptr_array_new ();
  g_autofree char *data = NULL;
  g_autoptr(GString) text = NULL;

  for (guint i = 0; i < originals->len; i++)
    {
      PpOriginal *o = g_ptr_array_index (originals, i);

      if (!g_hash_table_contains (restore->recorded, o->path))
        g_ptr_array_add (added, o);
    }
  if (added->len == 0)
    return TRUE;
  data = pp_restore_format (added);
  text = g_string_new (data);

  if (!write_record_file (restore, text, NULL, error))
    return FALSE;

  remember_originals (restore, originals);
  return TRUE;
}

const char *
pp_restore_lookup (PpRestore *restore, const char *path)
{
  return g_hash_table_lookup (restore->recorded, path);
}

GPtrArray *
pp_restore_get_recorded (PpRestore *restore)
{
  return restore->order;
}

static char *
kept_mark (PpRestore *restore)
{
  return g_build_filename (restore->dir, KEPT_MARK, NULL);
}

gboolean
pp_restore_keep (PpRestore *restore, GPtrArray *policy_paths, GError **error)
{
  g_autofree char *mark = kept_mark (restore);
  g_autoptr(GString) text = g_string_new (RECORD_HEADER);

  if (g_mkdir_with_parents (restore->dir, 0700) < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot create %s: %s", restore->dir, g_strerror (saved));
      return FALSE;
    }
  for (guint i = 0; policy_paths != NULL && i < policy_paths->len; i++)
    {
      g_autofree char *p = encode_field (g_ptr_array_index (policy_paths, i));
      g_string_append_printf (text, "%s\n", p);
    }
  return g_file_set_contents_full (mark, text->str, (gssize) text->len,
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                   0600, error);
}

gboolean
pp_restore_was_kept (PpRestore *restore)
{
  g_autofree char *mark = kept_mark (restore);

  return g_file_test (mark, G_FILE_TEST_EXISTS);
}

GPtrArray *
pp_restore_adopt (PpRestore *restore)
{
  g_autoptr(GPtrArray) originals = pp_restore_load (restore);
  g_autofree char *mark = kept_mark (restore);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);

  remember_originals (restore, originals);
  if (g_file_get_contents (mark, &contents, NULL, &error))
    {
      g_auto(GStrv) lines = g_strsplit (contents, "\n", -1);

      for (guint j = 0; lines[j] != NULL; j++)
        {
          g_autofree char *path = NULL;

          if (*lines[j] == '\0' || *lines[j] == '#')
            continue;
          path = g_strcompress (lines[j]);
          /* only what the record can give back */
          if (g_hash_table_contains (restore->recorded, path))
            g_ptr_array_add (paths, g_steal_pointer (&path));
        }
    }
  else
    g_warning ("Cannot read %s: %s", mark, error->message);
  /* the files hold them already; a compaction makes one of them */
  restore->stale = TRUE;
  if (g_unlink (mark) < 0 && errno != ENOENT)
    g_warning ("Cannot remove %s: %s", mark, g_strerror (errno));
  return paths;
}

void
pp_restore_clear (PpRestore *restore)
{
  g_autoptr(GPtrArray) files = list_record_files (restore);
  g_autofree char *mark = kept_mark (restore);

  for (guint i = 0; i < files->len; i++)
    {
      const char *file = g_ptr_array_index (files, i);
      if (g_unlink (file) < 0 && errno != ENOENT)
        g_warning ("Cannot remove %s: %s", file, g_strerror (errno));
    }
  if (g_unlink (mark) < 0 && errno != ENOENT)
    g_warning ("Cannot remove %s: %s", mark, g_strerror (errno));
  g_hash_table_remove_all (restore->recorded);
  g_ptr_array_set_size (restore->order, 0);
  restore->n_files = 0;
  restore->stale = FALSE;
}

guint
pp_restore_forget_under (PpRestore *restore, const char *dir)
{
  guint forgotten = 0;

  for (guint i = restore->order->len; i > 0; i--)
    {
      PpOriginal *o = g_ptr_array_index (restore->order, i - 1);
      gsize n = strlen (dir);

      if (strncmp (o->path, dir, n) != 0 || o->path[n] != '/')
        continue;
      g_hash_table_remove (restore->recorded, o->path);
      g_ptr_array_remove_index (restore->order, i - 1);
      forgotten++;
    }
  if (forgotten > 0)
    restore->stale = TRUE;
  return forgotten;
}

gboolean
pp_restore_forget (PpRestore *restore, const char *path)
{
  for (guint i = 0; i < restore->order->len; i++)
    {
      PpOriginal *o = g_ptr_array_index (restore->order, i);

      if (!g_str_equal (o->path, path))
        continue;
      g_hash_table_remove (restore->recorded, path);
      g_ptr_array_remove_index (restore->order, i);
      restore->stale = TRUE;
      return TRUE;
    }
  return FALSE;
}

gboolean
pp_restore_needs_compaction (PpRestore *restore)
{
  return restore->stale || restore->n_files > PP_RESTORE_MAX_FILES;
}

gboolean
pp_restore_compact (PpRestore *restore, GError **error)
{
  g_autoptr(GPtrArray) files = list_record_files (restore);
  g_autoptr(GString) text = g_string_new (RECORD_HEADER);
  g_autofree char *kept = NULL;

  if (restore->order->len > 0)
    {
      for (guint i = 0; i < restore->order->len; i++)
        {
          PpOriginal *o = g_ptr_array_index (restore->order, i);
          append_record (text, o->path, o->value);
        }
      /* the new file first: a crash in between leaves duplicates of the
       * same originals, never fewer */
      if (!write_record_file (restore, text, &kept, error))
        return FALSE;
    }
  for (guint i = 0; i < files->len; i++)
    {
      const char *file = g_ptr_array_index (files, i);

      if (g_unlink (file) < 0 && errno != ENOENT)
        g_warning ("Cannot remove %s: %s", file, g_strerror (errno));
    }
  restore->n_files = kept != NULL ? 1 : 0;
  restore->stale = FALSE;
  return TRUE;
}
