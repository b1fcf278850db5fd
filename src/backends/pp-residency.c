/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-residency"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
  g_autofree char *printable = NULL;

  /* a caller that does not ask why (GetStatistics("") over every
   * device) pays no stat() and no copy for the devices without counters */
  if (error == NULL)
    return FALSE;
  printable = g_strescape (syspath, NULL);
  if (!g_file_test (syspath, G_FILE_TEST_IS_DIR))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s: no such device", printable);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "%s: no runtime PM counters", printable);
  return FALSE;
}

/* @syspath's power/ directory, opened once for the reads below (no
 * allocation: the path is built on the stack); -1 when missing. */
static int
open_power_dir (const char *syspath)
{
  char power[PATH_MAX];

  if (g_snprintf (power, sizeof power, "%s/power", syspath) >= (int) sizeof power)
    return -1;
  return open (power, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* The two counters, relative to the open power/ directory. */
static gboolean
read_counters_at (int dfd, PpResidencySample *out)
{
  guint64 active, other;

  if (read_ms_at (dfd, "runtime_active_time", &active) &&
      read_ms_at (dfd, "runtime_suspended_time", &other))
    {
      out->source = PP_RESIDENCY_SOURCE_RUNTIME;
      out->active_ms = active;
      out->suspended_ms = other;
      return TRUE;
    }
  if (read_ms_at (dfd, "active_duration", &active) &&
      read_ms_at (dfd, "connected_duration", &other))
    {
      out->source = PP_RESIDENCY_SOURCE_USB;
      out->active_ms = active;
      out->suspended_ms = other > active ? other - active : 0;
      return TRUE;
    }
  return FALSE;
}

/* runtime_status and control, relative to the open power/ directory. */
static void
read_state_at (int dfd, PpResidencySample *out)
{
  char buf[ATTR_MAX];

  /* missing or unreadable: as the kernel says of a device without runtime PM */
  if (!read_at (dfd, "runtime_status", buf) ||
      !pp_runtime_status_from_string (g_strchomp (buf), &out->status))
    out->status = PP_RUNTIME_STATUS_UNSUPPORTED;
  out->control_auto = read_at (dfd, "control", buf) &&
                      (g_str_equal (buf, "auto\n") || g_str_equal (buf, "auto"));
}

gboolean
pp_residency_read (const char         *syspath,
                   PpResidencySample  *out,
                   GError            **error)
{
  int dfd;

  pp_residency_sample_zero (out, PP_RESIDENCY_SOURCE_NONE);
  dfd = open_power_dir (syspath);
  if (dfd < 0)
    return no_counters (syspath, error);
  if (!read_counters_at (dfd, out))
    {
      close (dfd);
      return no_counters (syspath, error);
    }
  read_state_at (dfd, out);
  close (dfd);
  return TRUE;
}

PpResidencyBook *
pp_residency_book_new (guint64 min_window_ms)
{
  PpResidencyBook *book = g_new0 (PpResidencyBook, 1);

  /* the paths interned (g_ref_string_new_intern()): one copy shared
   * with the daemon's other per-device records */
  book->bases = g_hash_table_new_full (g_str_hash, g_str_equal,
                                       (GDestroyNotify) g_ref_string_release, g_free);
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
  g_hash_table_insert (book->bases, g_ref_string_new_intern (syspath),
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
pp_residency_book_query_fields (PpResidencyBook    *book,
                                const char         *syspath,
                                PpResidencyFields   fields,
                                PpResidency        *out,
                                PpResidencySample  *out_now,
                                GError            **error)
{
  PpResidencySample now;
  PpResidencySample *base;
  int dfd;

  memset (out, 0, sizeof *out);
  pp_residency_sample_zero (&now, PP_RESIDENCY_SOURCE_NONE);
  base = g_hash_table_lookup (book->bases, syspath);
  dfd = open_power_dir (syspath);
  if (dfd < 0)
    return no_counters (syspath, error);
  if (!read_counters_at (dfd, &now))
    {
      close (dfd);
      return no_counters (syspath, error);
    }
  if (fields & PP_RESIDENCY_STATE)
    read_state_at (dfd, &now);
  else if (fields & PP_RESIDENCY_NEVER_SUSPENDS)
    {
      /* the flag needs control and runtime_status only when the
       * counters allow it: computed first as if both said yes */
      PpResidency maybe;

      now.control_auto = TRUE;
      now.status = PP_RUNTIME_STATUS_ACTIVE;
      pp_stats_compute (base, &now, book->min_window_ms, &maybe);
      if (maybe.never_suspends)
        read_state_at (dfd, &now);
      else
        {
          now.control_auto = FALSE;
          now.status = PP_RUNTIME_STATUS_UNSUPPORTED;
        }
    }
  close (dfd);

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

gboolean
pp_residency_book_query (PpResidencyBook    *book,
                         const char         *syspath,
                         PpResidency        *out,
                         PpResidencySample  *out_now,
                         GError            **error)
{
  return pp_residency_book_query_fields (book, syspath, PP_RESIDENCY_STATE, out, out_now, error);
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
