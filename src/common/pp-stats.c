/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-stats"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pp-stats.h"

gboolean
pp_stats_parse_ms (const char *text,
                   guint64    *out_ms)
{
  guint64 value = 0;
  const char *p = text;

  if (text == NULL || !g_ascii_isdigit (*p))
    return FALSE;
  for (; g_ascii_isdigit (*p); p++)
    {
      guint digit = (guint) (*p - '0');

      if (value > (G_MAXUINT64 - digit) / 10)
        return FALSE;
      value = value * 10 + digit;
    }
  /* sysfs ends the value with one newline; nothing else may follow */
  if (*p == '\n')
    p++;
  if (*p != '\0')
    return FALSE;
  *out_ms = value;
  return TRUE;
}

void
pp_residency_sample_zero (PpResidencySample *sample,
                          PpResidencySource  source)
{
  memset (sample, 0, sizeof *sample);
  sample->source = source;
  sample->status = PP_RUNTIME_STATUS_UNSUPPORTED;
}

static gboolean
went_backwards (const PpResidencySample *base,
                const PpResidencySample *now)
{
  return base->source != now->source ||
         now->active_ms < base->active_ms ||
         now->suspended_ms < base->suspended_ms;
}

gboolean
pp_stats_compute (const PpResidencySample *base,
                  const PpResidencySample *now,
                  guint64                  min_window_ms,
                  PpResidency             *out)
{
  guint64 window;

  memset (out, 0, sizeof *out);
  if (now == NULL || now->source == PP_RESIDENCY_SOURCE_NONE)
    return FALSE;

  if (base == NULL || base->source == PP_RESIDENCY_SOURCE_NONE)
    {
      /* no base: counted since the device appeared */
      out->active_ms = now->active_ms;
      out->suspended_ms = now->suspended_ms;
    }
  else if (went_backwards (base, now))
    {
      out->rebased = TRUE;
      out->active_ms = now->active_ms;
      out->suspended_ms = now->suspended_ms;
    }
  else
    {
      out->active_ms = now->active_ms - base->active_ms;
      out->suspended_ms = now->suspended_ms - base->suspended_ms;
    }

  /* the sum of two counters of at most G_MAXUINT64 each: saturate */
  window = out->active_ms > G_MAXUINT64 - out->suspended_ms ?
           G_MAXUINT64 : out->active_ms + out->suspended_ms;
  out->suspended_share = window == 0 ? 0.0 :
                         (double) out->suspended_ms /
                         ((double) out->active_ms + (double) out->suspended_ms);
  out->never_suspends = now->control_auto &&
                        now->status == PP_RUNTIME_STATUS_ACTIVE &&
                        out->suspended_ms == 0 &&
                        window > 0 && window >= min_window_ms;
  return TRUE;
}

void
pp_stats_rebase (PpResidencySample       *base,
                 const PpResidencySample *now)
{
  pp_residency_sample_zero (base, now->source);
}

static gint
compare_totals (gconstpointer a, gconstpointer b)
{
  const PpStatsClassTotal *ta = a, *tb = b;

  return strcmp (ta->class, tb->class);
}

GArray *
pp_stats_class_totals (const PpStatsRow *rows,
                       guint             n_rows)
{
  g_autoptr(GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
  GArray *totals = g_array_new (FALSE, TRUE, sizeof (PpStatsClassTotal));

  for (guint i = 0; i < n_rows; i++)
    {
      const char *class = rows[i].class != NULL ? rows[i].class : "";
      const PpResidency *r = &rows[i].residency;
      gpointer slot;
      PpStatsClassTotal *t;

      if (g_hash_table_lookup_extended (index, class, NULL, &slot))
        {
          t = &g_array_index (totals, PpStatsClassTotal, GPOINTER_TO_UINT (slot));
        }
      else
        {
          PpStatsClassTotal fresh = { .class = class };

          g_hash_table_insert (index, (gpointer) class, GUINT_TO_POINTER (totals->len));
          g_array_append_val (totals, fresh);
          t = &g_array_index (totals, PpStatsClassTotal, totals->len - 1);
        }
      t->n_devices++;
      if (r->never_suspends)
        t->n_never_suspends++;
      t->active_ms = r->active_ms > G_MAXUINT64 - t->active_ms ?
                     G_MAXUINT64 : t->active_ms + r->active_ms;
      t->suspended_ms = r->suspended_ms > G_MAXUINT64 - t->suspended_ms ?
                        G_MAXUINT64 : t->suspended_ms + r->suspended_ms;
    }

  for (guint i = 0; i < totals->len; i++)
    {
      PpStatsClassTotal *t = &g_array_index (totals, PpStatsClassTotal, i);
      double sum = (double) t->active_ms + (double) t->suspended_ms;

      t->suspended_share = sum == 0.0 ? 0.0 : (double) t->suspended_ms / sum;
    }
  g_array_sort (totals, compare_totals);
  return totals;
}

gint
pp_stats_compare_rows (const PpStatsRow *ra, const PpStatsRow *rb)
{
  if (ra->residency.active_ms != rb->residency.active_ms)
    return ra->residency.active_ms > rb->residency.active_ms ? -1 : 1;
  return g_strcmp0 (ra->path, rb->path);
}

static gint
compare_rows (gconstpointer a, gconstpointer b)
{
  return pp_stats_compare_rows (a, b);
}

void
pp_stats_sort_rows (PpStatsRow *rows,
                    guint       n_rows)
{
  if (n_rows > 1)
    qsort (rows, n_rows, sizeof *rows, compare_rows);
}
