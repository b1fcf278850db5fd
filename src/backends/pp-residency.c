/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-residency"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "pp-residency.h"

struct _PpResidencyBook {
  GHashTable *bases;          /* syspath -> PpResidencySample */
  guint64     min_window_ms;
};

/* Counter and status files are a few bytes; anything longer is not one. */
#define ATTR_MAX 64

/* Read @name in the directory @dfd into @buf (NUL-terminated); FALSE when
 * missing, unreadable, empty or too long. Relative to the power/ directory:
 * one path walk per device instead of one per attribute. */
static gboolean
read_at (int dfd, const char *name, char buf[ATTR_MAX])
{
  ssize_t n;
  int fd = openat (dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);

  if (fd < 0)
    return FALSE;
  do
    n = read (fd, buf, ATTR_MAX - 1);
  while (n < 0 && errno == EINTR);
  close (fd);
  if (n <= 0 || n == ATTR_MAX - 1)
    return FALSE;
  buf[n] = '\0';
  return TRUE;
}

static gboolean
read_ms_at (int dfd, const char *name, guint64 *out)
{
  char buf[ATTR_MAX];

  return read_at (dfd, name, buf) && pp_stats_parse_ms (buf, out);
}

static gboolean
no_counters (const char *syspath, GError **error)
{
  g_autofree char *printable = g_strescape (syspath, NULL);

  if (!g_file_test (syspath, G_FILE_TEST_IS_DIR))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s: no such device", printable);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "%s: no runtime PM counters", printable);
  return FALSE;
}

gboolean
pp_residency_read (const char         *syspath,
                   PpResidencySample  *out,
                   GError            **error)
{
  g_autofree char *power = g_strconcat (syspath, "/power", NULL);
  char buf[ATTR_MAX];
  guint64 active, other;
  int dfd;

  pp_residency_sample_zero (out, PP_RESIDENCY_SOURCE_NONE);
  dfd = open (power, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    return no_counters (syspath, error);

  if (read_ms_at (dfd, "runtime_active_time", &active) &&
      read_ms_at (dfd, "runtime_suspended_time", &other))
    {
      out->source = PP_RESIDENCY_SOURCE_RUNTIME;
      out->active_ms = active;
      out->suspended_ms = other;
    }
  else if (read_ms_at (dfd, "active_duration", &active) &&
           read_ms_at (dfd, "connected_duration", &other))
    {
      out->source = PP_RESIDENCY_SOURCE_USB;
      out->active_ms = active;
      out->suspended_ms = other > active ? other - active : 0;
    }
  else
    {
      close (dfd);
      return no_counters (syspath, error);
    }

  /* missing or unreadable: as the kernel says of a device without runtime PM */
  if (!read_at (dfd, "runtime_status", buf) ||
      !pp_runtime_status_from_string (g_strchomp (buf), &out->status))
    out->status = PP_RUNTIME_STATUS_UNSUPPORTED;
  out->control_auto = read_at (dfd, "control", buf) &&
                      (g_str_equal (buf, "auto\n") || g_str_equal (buf, "auto"));
  close (dfd);
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
