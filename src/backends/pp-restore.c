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

struct _PpRestore {
  char       *dir;          /* <runtime_dir>/originals */
  GHashTable *recorded;     /* path -> original value (this run) */
  GPtrArray  *order;        /* PpOriginal*, recording order */
  guint       next_serial;
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

PpRestore *
pp_restore_new (const char *runtime_dir)
{
  PpRestore *r = g_new0 (PpRestore, 1);

  r->dir = g_build_filename (runtime_dir, "originals", NULL);
  r->recorded = g_hash_table_new (g_str_hash, g_str_equal);
  r->order = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_original_free);
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

GPtrArray *
pp_restore_load (PpRestore *restore, GError **error)
{
  g_autoptr(GPtrArray) files = list_record_files (restore);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_original_free);

  for (guint i = 0; i < files->len; i++)
    {
      const char *file = g_ptr_array_index (files, i);
      g_autofree char *contents = NULL;
      g_auto(GStrv) lines = NULL;
      g_autoptr(GError) local_error = NULL;

      if (!g_file_get_contents (file, &contents, NULL, &local_error))
        {
          g_warning ("Cannot read the record of original values %s: %s",
                     file, local_error->message);
          continue;
        }
      lines = g_strsplit (contents, "\n", -1);
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
              g_warning ("%s:%u: malformed record line, skipping it", file, j + 1);
              continue;
            }
          path = g_strcompress (fields[0]);
          value = g_strcompress (fields[1]);
          /* the first record of a path holds the true original */
          if (g_hash_table_contains (seen, path))
            continue;
          g_hash_table_add (seen, g_strdup (path));
          g_ptr_array_add (out, pp_original_new (path, value));
        }
    }
  (void) error;
  return out;
}

gboolean
pp_restore_contains (PpRestore *restore, const char *path)
{
  return g_hash_table_contains (restore->recorded, path);
}

gboolean
pp_restore_record (PpRestore *restore, GPtrArray *originals, GError **error)
{
  g_autoptr(GString) text = g_string_new (RECORD_HEADER);
  g_autofree char *file = NULL;
  g_autofree char *name = NULL;
  guint added = 0;

  for (guint i = 0; i < originals->len; i++)
    {
      PpOriginal *o = g_ptr_array_index (originals, i);
      g_autofree char *p = NULL;
      g_autofree char *v = NULL;

      if (g_hash_table_contains (restore->recorded, o->path))
        continue;
      p = g_strescape (o->path, NULL);
      v = g_strescape (o->value, NULL);
      /* a line that begins with '#' is a comment: such a path goes as
       * "\043...", which g_strcompress() reads back as '#' */
      g_string_append_printf (text, "%s%s\t%s\n", p[0] == '#' ? "\\043" : "",
                              p[0] == '#' ? p + 1 : p, v);
      added++;
    }
  if (added == 0)
    return TRUE;

  if (g_mkdir_with_parents (restore->dir, 0700) < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot create %s: %s", restore->dir, g_strerror (saved));
      return FALSE;
    }

  /* A new file per batch: the record never has to be rewritten, and a
   * crash leaves either the whole batch or none of it. */
  do
    {
      g_free (name);
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

  for (guint i = 0; i < originals->len; i++)
    {
      PpOriginal *o = g_ptr_array_index (originals, i);
      PpOriginal *copy;

      if (g_hash_table_contains (restore->recorded, o->path))
        continue;
      copy = pp_original_new (o->path, o->value);
      g_ptr_array_add (restore->order, copy);
      g_hash_table_insert (restore->recorded, copy->path, copy->value);
    }
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

void
pp_restore_clear (PpRestore *restore)
{
  g_autoptr(GPtrArray) files = list_record_files (restore);

  for (guint i = 0; i < files->len; i++)
    {
      const char *file = g_ptr_array_index (files, i);
      if (g_unlink (file) < 0 && errno != ENOENT)
        g_warning ("Cannot remove %s: %s", file, g_strerror (errno));
    }
  g_hash_table_remove_all (restore->recorded);
  g_ptr_array_set_size (restore->order, 0);
}
