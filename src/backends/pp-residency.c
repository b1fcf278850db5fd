/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-residency"

#include "config.h"

#include <string.h>

#include "pp-error.h"
#include "pp-residency.h"
#include "pp-sysfs.h"

struct _PpResidencyBook {
  GHashTable *bases;          /* syspath -> PpResidencySample */
  guint64     min_window_ms;
};

/* One counter file; FALSE when missing, unreadable or not a number. */
static gboolean
read_ms (const char *syspath,
         const char *rel,
         guint64    *out)
{
  g_autofree char *path = g_strconcat (syspath, "/", rel, NULL);
  g_autofree char *text = pp_sysfs_read (path, NULL);

  return pp_stats_parse_ms (text, out);
}

gboolean
pp_residency_read (const char         *syspath,
                   PpResidencySample  *out,
                   GError            **error)
{
  g_autofree char *status = NULL;
  g_autofree char *control = NULL;
  g_autofree char *status_path = NULL;
  g_autofree char *control_path = NULL;
  guint64 active, other;

  pp_residency_sample_zero (out, PP_RESIDENCY_SOURCE_NONE);
  if (read_ms (syspath, "power/runtime_active_time", &active) &&
      read_ms (syspath, "power/runtime_suspended_time", &other))
    {
      out->source = PP_RESIDENCY_SOURCE_RUNTIME;
      out->active_ms = active;
      out->suspended_ms = other;
    }
  else if (read_ms (syspath, "power/active_duration", &active) &&
           read_ms (syspath, "power/connected_duration", &other))
    {
      out->source = PP_RESIDENCY_SOURCE_USB;
      out->active_ms = active;
      out->suspended_ms = other > active ? other - active : 0;
    }
  else if (!g_file_test (syspath, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *printable = g_strescape (syspath, NULL);

      g_set_error (error, PP_ERROR, PP_ERROR_NO_SUCH_DEVICE,
                   "%s: no such device", printable);
      return FALSE;
    }
  else
    {
      g_autofree char *printable = g_strescape (syspath, NULL);

      g_set_error (error, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                   "%s: no runtime PM counters", printable);
      return FALSE;
    }

  status_path = g_strconcat (syspath, "/power/runtime_status", NULL);
  status = pp_sysfs_read (status_path, NULL);
  out->status = pp_runtime_status_from_string (status);
  control_path = g_strconcat (syspath, "/power/control", NULL);
  control = pp_sysfs_read (control_path, NULL);
  out->control_auto = g_strcmp0 (control, "auto") == 0;
  return TRUE;
}

PpResidencyBook *
pp_residency_book_new (guint64 min_window_ms)
{
  PpResidencyBook *book = g_new0 (PpResidencyBook, 1);

  book->bases = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  book->min_window_ms = min_window_ms != 0 ? min_window_ms : PP_STATS_MIN_WINDOW_MS_DEFAULT;
  return book;
}

void
pp_residency_book_free (PpResidencyBook *book)
{
  if (book == NULL)
    return;
  g_hash_table_unref (book->bases);
  g_free (book);
}

void
pp_residency_book_set_base (PpResidencyBook *book,
                            const char      *syspath)
{
  PpResidencySample sample;

  if (!pp_residency_read (syspath, &sample, NULL))
    {
      g_hash_table_remove (book->bases, syspath);
      return;
    }
  g_hash_table_insert (book->bases, g_strdup (syspath),
                       g_memdup2 (&sample, sizeof sample));
}

void
pp_residency_book_set_base_all (PpResidencyBook    *book,
                                const char * const *paths,
                                guint               n_paths)
{
  for (guint i = 0; i < n_paths; i++)
    pp_residency_book_set_base (book, paths[i]);
}

void
pp_residency_book_forget (PpResidencyBook *book,
                          const char      *syspath)
{
  g_hash_table_remove (book->bases, syspath);
}

guint
pp_residency_book_get_n_bases (PpResidencyBook *book)
{
  return g_hash_table_size (book->bases);
}

gboolean
pp_residency_book_query (PpResidencyBook    *book,
                         const char         *syspath,
                         PpResidency        *out,
                         PpResidencySample  *out_now,
                         GError            **error)
{
  PpResidencySample now;
  PpResidencySample *base;

  memset (out, 0, sizeof *out);
  if (!pp_residency_read (syspath, &now, error))
    return FALSE;
  base = g_hash_table_lookup (book->bases, syspath);
  pp_stats_compute (base, &now, book->min_window_ms, out);
  if (out->rebased)
    {
      g_debug ("%s: runtime PM counters went backwards, counting from 0", syspath);
      pp_stats_rebase (base, &now);
    }
  if (out_now != NULL)
    *out_now = now;
  return TRUE;
}

GVariant *
pp_residency_book_get_statistics (PpResidencyBook    *book,
                                  const char * const *paths,
                                  guint               n_paths)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sdtt)"));
  for (guint i = 0; i < n_paths; i++)
    {
      PpResidency r;

      if (!pp_residency_book_query (book, paths[i], &r, NULL, NULL))
        continue;
      g_variant_builder_add (&builder, "(sdtt)", paths[i], r.suspended_share,
                             (guint64) r.active_ms, (guint64) r.suspended_ms);
    }
  return g_variant_builder_end (&builder);
}
