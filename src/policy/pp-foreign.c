/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <string.h>

#include "pp-foreign.h"

/* A value seen or written is kept to this many bytes: what another program
 * put into an attribute is not ours to store in full. */
#define VALUE_MAX 256

PpConflict *
pp_conflict_new (const char *subject, const char *what, const char *evidence)
{
  PpConflict *conflict = g_new0 (PpConflict, 1);

  conflict->subject = g_strdup (subject);
  conflict->what = g_strdup (what);
  conflict->evidence = g_strdup (evidence);
  return conflict;
}

void
pp_conflict_free (PpConflict *conflict)
{
  if (conflict == NULL)
    return;
  g_free (conflict->subject);
  g_free (conflict->what);
  g_free (conflict->evidence);
  g_free (conflict);
}

GVariant *
pp_conflicts_to_variant (GPtrArray *first, ...)
{
  GVariantBuilder builder;
  va_list args;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(ss)"));
  va_start (args, first);
  for (GPtrArray *rows = first; rows != NULL; rows = va_arg (args, GPtrArray *))
    {
      for (guint i = 0; i < rows->len; i++)
        {
          const PpConflict *c = g_ptr_array_index (rows, i);
          /* D-Bus strings must be UTF-8, whatever a file or attribute held */
          g_autofree char *subject = g_utf8_make_valid (c->subject ? c->subject : "", -1);
          g_autofree char *what = g_utf8_make_valid (c->what ? c->what : "", -1);

          g_variant_builder_add (&builder, "(ss)", subject, what);
        }
    }
  va_end (args);
  return g_variant_builder_end (&builder);
}

/* The records of one device: a list, not a hash table of its own (a
 * device has a few attributes written, and a table of each of
 * thousands of devices cost more than the records themselves). */
typedef struct Record Record;
struct Record {
  Record   *next;
  char     *attribute;  /* interned (g_ref_string_new_intern()): a few names
                         * shared by every device's records */
  char     *ours;       /* last value written, stripped; interned like
                         * @attribute ("auto", "0", "on" for thousands) */
  char     *theirs;     /* last foreign value seen, stripped */
  guint     count;      /* foreign changes seen */
  /* flags last: no padding between the pointers (one is kept for every
   * attribute written) */
  guint     ours_valid : 1;  /* FALSE after forget_written, until the next write */
  guint     given_up : 1;
};

static void
record_free (Record *record)
{
  g_ref_string_release (record->attribute);
  g_clear_pointer (&record->ours, g_ref_string_release);
  g_free (record->theirs);
  g_free (record);
}

static void
records_free (Record *records)
{
  while (records != NULL)
    {
      Record *next = records->next;

      record_free (records);
      records = next;
    }
}

struct _PpForeignTracker {
  /* device path (interned, g_ref_string_new_intern(): the daemon's
   * other per-device records share the copy) → its list of Record (freed
   * here, not by the table: a list changes its head) */
  GHashTable *devices;
};

static void
free_all_records (PpForeignTracker *tracker)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, tracker->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    records_free (value);
}

PpForeignTracker *
pp_foreign_tracker_new (void)
{
  PpForeignTracker *tracker = g_new0 (PpForeignTracker, 1);

  tracker->devices = g_hash_table_new_full (g_str_hash, g_str_equal,
                                            (GDestroyNotify) g_ref_string_release, NULL);
  return tracker;
}

void
pp_foreign_tracker_free (PpForeignTracker *tracker)
{
  if (tracker == NULL)
    return;
  free_all_records (tracker);
  g_hash_table_unref (tracker->devices);
  g_free (tracker);
}

/* @value without surrounding white space, at most VALUE_MAX bytes; the
 * copy is as long as the value (g_strndup() would allocate VALUE_MAX + 1
 * bytes for every value, and one is kept for every attribute written) */
static char *
value_normalize (const char *value)
{
  g_autofree char *copy = g_strdup (value != NULL ? value : "");

  g_strstrip (copy);
  return g_strndup (copy, MIN (strlen (copy), (gsize) VALUE_MAX));
}

static Record *
record_lookup (PpForeignTracker *tracker, const char *path, const char *attribute)
{
  for (Record *record = g_hash_table_lookup (tracker->devices, path); record != NULL;
       record = record->next)
    if (g_str_equal (record->attribute, attribute))
      return record;
  return NULL;
}

void
pp_foreign_tracker_note_written (PpForeignTracker *tracker,
                                 const char       *path,
                                 const char       *attribute,
                                 const char       *value)
{
  g_autofree char *normalized = NULL;
  Record *record;

  g_return_if_fail (tracker != NULL && path != NULL && attribute != NULL);

  record = record_lookup (tracker, path, attribute);
  if (record == NULL)
    {
      char *key = NULL;
      Record *first = NULL;

      record = g_new0 (Record, 1);
      record->attribute = g_ref_string_new_intern (attribute);
      /* the list moves to its new head: the key stays */
      if (g_hash_table_steal_extended (tracker->devices, path, (gpointer *) &key,
                                       (gpointer *) &first))
        record->next = first;
      else
        key = g_ref_string_new_intern (path);
      g_hash_table_insert (tracker->devices, key, record);
    }
  normalized = value_normalize (value);
  g_clear_pointer (&record->ours, g_ref_string_release);
  record->ours = g_ref_string_new_intern (normalized);
  record->ours_valid = TRUE;
}

PpForeignResult
pp_foreign_tracker_check (PpForeignTracker *tracker,
                          const char       *path,
                          const char       *attribute,
                          const char       *current,
                          const char      **ours,
                          guint            *count)
{
  g_autofree char *normalized = NULL;
  Record *record;

  if (ours != NULL)
    *ours = NULL;
  if (count != NULL)
    *count = 0;
  g_return_val_if_fail (tracker != NULL && path != NULL && attribute != NULL, PP_FOREIGN_NONE);

  record = record_lookup (tracker, path, attribute);
  if (record == NULL)
    return PP_FOREIGN_NONE;
  if (ours != NULL && record->ours_valid)
    *ours = record->ours;
  if (count != NULL)
    *count = record->count;
  if (record->given_up)
    return PP_FOREIGN_GIVEN_UP;
  if (!record->ours_valid)
    return PP_FOREIGN_NONE;

  normalized = value_normalize (current);
  if (g_str_equal (normalized, record->ours))
    return PP_FOREIGN_NONE;

  g_free (record->theirs);
  record->theirs = g_steal_pointer (&normalized);
  record->count++;
  if (count != NULL)
    *count = record->count;
  if (record->count >= PP_FOREIGN_GIVE_UP_AFTER)
    {
      record->given_up = TRUE;
      return PP_FOREIGN_GIVE_UP;
    }
  return PP_FOREIGN_CHANGED;
}

gboolean
pp_foreign_tracker_is_given_up (PpForeignTracker *tracker,
                                const char       *path,
                                const char       *attribute)
{
  Record *record;

  g_return_val_if_fail (tracker != NULL && path != NULL && attribute != NULL, FALSE);
  record = record_lookup (tracker, path, attribute);
  return record != NULL && record->given_up;
}

void
pp_foreign_tracker_reset (PpForeignTracker *tracker)
{
  g_return_if_fail (tracker != NULL);
  free_all_records (tracker);
  g_hash_table_remove_all (tracker->devices);
}

void
pp_foreign_tracker_forget_written (PpForeignTracker *tracker)
{
  GHashTableIter iter;
  gpointer value;

  g_return_if_fail (tracker != NULL);
  g_hash_table_iter_init (&iter, tracker->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Record *kept = NULL, **tail = &kept;

      for (Record *record = value, *next; record != NULL; record = next)
        {
          next = record->next;
          record->next = NULL;
          /* nothing left to remember about an attribute never changed */
          if (record->count == 0 && !record->given_up)
            record_free (record);
          else
            {
              record->ours_valid = FALSE;
              *tail = record;
              tail = &record->next;
            }
        }
      if (kept == NULL)
        g_hash_table_iter_remove (&iter);
      else
        g_hash_table_iter_replace (&iter, kept);
    }
}

void
pp_foreign_tracker_forget_device (PpForeignTracker *tracker, const char *path)
{
  char *key;
  Record *records;

  g_return_if_fail (tracker != NULL);
  if (path != NULL &&
      g_hash_table_steal_extended (tracker->devices, path, (gpointer *) &key, (gpointer *) &records))
    {
      g_ref_string_release (key);
      records_free (records);
    }
}

guint
pp_foreign_tracker_size (PpForeignTracker *tracker)
{
  GHashTableIter iter;
  gpointer value;
  guint size = 0;

  g_return_val_if_fail (tracker != NULL, 0);
  g_hash_table_iter_init (&iter, tracker->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    for (const Record *record = value; record != NULL; record = record->next)
      size++;
  return size;
}

typedef struct {
  char         *key;     /* "PATH/ATTRIBUTE" */
  const Record *record;
} ConflictKey;

static gint
conflict_key_compare (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (((const ConflictKey *) a)->key, ((const ConflictKey *) b)->key);
}

static void
conflict_key_clear (gpointer data)
{
  g_free (((ConflictKey *) data)->key);
}

GPtrArray *
pp_foreign_tracker_list_conflicts (PpForeignTracker *tracker)
{
  g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (ConflictKey));
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_conflict_free);
  GHashTableIter iter;
  gpointer path, value;

  g_return_val_if_fail (tracker != NULL, rows);
  g_array_set_clear_func (keys, conflict_key_clear);

  /* every attribute changed by someone else, sorted by path and attribute */
  g_hash_table_iter_init (&iter, tracker->devices);
  while (g_hash_table_iter_next (&iter, &path, &value))
    for (const Record *record = value; record != NULL; record = record->next)
      {
        ConflictKey key = { NULL, record };

        if (record->count == 0)
          continue;
        key.key = g_strconcat (path, "/", record->attribute, NULL);
        g_array_append_val (keys, key);
      }
  g_array_sort (keys, conflict_key_compare);

  for (guint i = 0; i < keys->len && i < PP_FOREIGN_MAX_ROWS; i++)
    {
      const ConflictKey *key = &g_array_index (keys, ConflictKey, i);
      const Record *record = key->record;
      g_autofree char *what = NULL;

      what = g_strdup_printf ("changed by another program %u %s (ours '%s', found '%s')%s",
                              record->count, record->count == 1 ? "time" : "times",
                              record->ours != NULL ? record->ours : "",
                              record->theirs != NULL ? record->theirs : "",
                              record->given_up ? "; no longer written until Reload" : "");
      g_ptr_array_add (rows, pp_conflict_new (key->key, what, NULL));
    }
  if (keys->len > PP_FOREIGN_MAX_ROWS)
    {
      g_autofree char *what = g_strdup_printf ("%u more attributes changed by another program",
                                               keys->len - PP_FOREIGN_MAX_ROWS);
      g_ptr_array_add (rows, pp_conflict_new ("(more)", what, NULL));
    }
  return rows;
}
