/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-sleep-record"

#include "config.h"

#include <math.h>
#include <string.h>

#include "pp-sleep-record.h"
#include "pp-util.h"

#define FORMAT_TAG   "v1"
#define MAX_WAKE_SOURCES 4096

/* ---- snapshots ------------------------------------------------------------ */

void
pp_sleep_snapshot_init (PpSleepSnapshot *s)
{
  memset (s, 0, sizeof *s);
  s->last_failed_dev = g_strdup ("");
  s->last_failed_step = g_strdup ("");
  s->mem_sleep = g_strdup ("");
  s->wake_irq = g_strdup ("");
  s->energy_mwh = -1;
  s->energy_full_mwh = -1;
  s->wake_counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  s->awake_devices = g_ptr_array_new_with_free_func (g_free);
  s->awake_blockers = g_ptr_array_new_with_free_func (g_free);
}

void
pp_sleep_snapshot_clear (PpSleepSnapshot *s)
{
  g_clear_pointer (&s->last_failed_dev, g_free);
  g_clear_pointer (&s->last_failed_step, g_free);
  g_clear_pointer (&s->mem_sleep, g_free);
  g_clear_pointer (&s->wake_irq, g_free);
  g_clear_pointer (&s->wake_counts, g_hash_table_unref);
  g_clear_pointer (&s->awake_devices, g_ptr_array_unref);
  g_clear_pointer (&s->awake_blockers, g_ptr_array_unref);
}

void
pp_sleep_snapshot_add_wake (PpSleepSnapshot *s, const char *name, const PpWakeCount *count)
{
  if (name == NULL || *name == '\0' || g_hash_table_contains (s->wake_counts, name) ||
      g_hash_table_size (s->wake_counts) >= MAX_WAKE_SOURCES)
    return;
  g_hash_table_insert (s->wake_counts, g_strdup (name), g_memdup2 (count, sizeof *count));
}

/* ---- records -------------------------------------------------------------- */

/* @text bounded and valid UTF-8 (D-Bus strings), "" for NULL. */
static char *
bounded_text (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text != NULL ? text : "", -1);
  const char *end;

  if (strlen (valid) <= PP_SLEEP_STRING_MAX)
    return g_steal_pointer (&valid);
  end = g_utf8_find_prev_char (valid, valid + PP_SLEEP_STRING_MAX + 1);
  return g_strndup (valid, end - valid);
}

static char **
empty_strv (void)
{
  return g_new0 (char *, 1);
}

PpSleepRecord *
pp_sleep_record_new (void)
{
  PpSleepRecord *r = g_new0 (PpSleepRecord, 1);

  r->state = g_strdup ("unknown");
  r->mem_sleep = g_strdup ("");
  r->result = g_strdup ("ok");
  r->failed_step = g_strdup ("");
  r->failed_device = g_strdup ("");
  r->error = g_strdup ("");
  r->wake_irq = g_strdup ("");
  r->hw_sleep_share = -1;
  r->energy_before_mwh = -1;
  r->energy_after_mwh = -1;
  r->woken_by = empty_strv ();
  r->awake_devices = empty_strv ();
  r->awake_blockers = empty_strv ();
  return r;
}

void
pp_sleep_record_free (PpSleepRecord *r)
{
  if (r == NULL)
    return;
  g_free (r->state);
  g_free (r->mem_sleep);
  g_free (r->result);
  g_free (r->failed_step);
  g_free (r->failed_device);
  g_free (r->error);
  g_free (r->wake_irq);
  g_strfreev (r->woken_by);
  g_strfreev (r->awake_devices);
  g_strfreev (r->awake_blockers);
  g_free (r);
}

PpSleepRecord *
pp_sleep_record_copy (const PpSleepRecord *src)
{
  PpSleepRecord *r = g_memdup2 (src, sizeof *src);

  r->state = g_strdup (src->state);
  r->mem_sleep = g_strdup (src->mem_sleep);
  r->result = g_strdup (src->result);
  r->failed_step = g_strdup (src->failed_step);
  r->failed_device = g_strdup (src->failed_device);
  r->error = g_strdup (src->error);
  r->wake_irq = g_strdup (src->wake_irq);
  r->woken_by = g_strdupv (src->woken_by);
  r->awake_devices = g_strdupv (src->awake_devices);
  r->awake_blockers = g_strdupv (src->awake_blockers);
  return r;
}

guint64
pp_sleep_counter_delta (guint64 before, guint64 after, guint bits)
{
  guint64 mask, half;

  if (after >= before)
    return after - before;
  bits = CLAMP (bits, 1, 64);
  mask = bits == 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << bits) - 1;
  half = G_GUINT64_CONSTANT (1) << (bits - 1);
  if (before > mask || before < half)
    return after;               /* reset: counting again from 0 */
  return (after - before) & mask;
}

static gboolean
parse_u64 (const char *text, guint64 *out)
{
  return text != NULL && g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, out, NULL);
}

double
pp_sleep_battery_mwh (const char *energy,
                      const char *charge,
                      const char *voltage_now,
                      const char *voltage_min_design)
{
  guint64 e, c, v = 0;

  if (parse_u64 (energy, &e))
    return e / 1000.0;                          /* µWh -> mWh */
  if (!parse_u64 (charge, &c))
    return -1;
  if (!parse_u64 (voltage_now, &v) || v == 0)
    {
      if (!parse_u64 (voltage_min_design, &v) || v == 0)
        return -1;
    }
  /* µAh × µV = 10^-12 Wh */
  return (double) c * (double) v / 1e9;
}

gboolean
pp_sleep_step_is_device (const char *step)
{
  static const char * const steps[] = {
    "prepare", "suspend", "suspend_late", "suspend_noirq",
    "resume_noirq", "resume_early", "resume", NULL
  };

  return step != NULL && g_strv_contains (steps, step);
}

/* The names whose count of @kind grew, sorted, at most PP_SLEEP_LIST_MAX. */
static GPtrArray *
grown_sources (const PpSleepSnapshot *before, const PpSleepSnapshot *after, gboolean wakeup_count)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) keys = pp_hash_table_sorted_keys (after->wake_counts);

  for (guint i = 0; i < keys->len && names->len < PP_SLEEP_LIST_MAX; i++)
    {
      const char *name = g_ptr_array_index (keys, i);
      const PpWakeCount *a = g_hash_table_lookup (after->wake_counts, name);
      const PpWakeCount *b = g_hash_table_lookup (before->wake_counts, name);
      gboolean has_a = wakeup_count ? a->has_wakeup_count : a->has_event_count;
      gboolean has_b = b != NULL && (wakeup_count ? b->has_wakeup_count : b->has_event_count);
      guint64 va = wakeup_count ? a->wakeup_count : a->event_count;
      guint64 vb = has_b ? (wakeup_count ? b->wakeup_count : b->event_count) : 0;

      /* a source that appeared meanwhile counts from 0 */
      if (has_a && pp_sleep_counter_delta (vb, va, 64) > 0)
        g_ptr_array_add (names, bounded_text (name));
    }
  return names;
}

static char **
strv_from_array (GPtrArray *array, guint limit)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; array != NULL && i < array->len && i < limit; i++)
    g_ptr_array_add (out, bounded_text (g_ptr_array_index (array, i)));
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

static void
compute_hw_sleep (PpSleepRecord *r, const PpSleepSnapshot *before, const PpSleepSnapshot *after,
                  guint64 duration_us)
{
  gboolean known = FALSE;
  guint64 hw_us = 0;
  guint64 limit;

  /* the total grows over every s2idle round of one sleep and is never
   * stale; last_hw_sleep is the last round's, or an older sleep's */
  if (before->has_total_hw_sleep && after->has_total_hw_sleep)
    {
      hw_us = pp_sleep_counter_delta (before->total_hw_sleep_us, after->total_hw_sleep_us, 64);
      known = TRUE;
    }
  else if (after->has_last_hw_sleep)
    {
      hw_us = after->last_hw_sleep_us;
      known = TRUE;
    }
  if (!known || duration_us == 0)
    {
      r->hw_sleep_share = -1;
      r->hw_sleep_reliable = FALSE;
      r->hw_sleep_ms = 0;
      return;
    }
  limit = after->max_hw_sleep_us > 0 ? after->max_hw_sleep_us : PP_SLEEP_HW_COUNTER_LIMIT_US;
  r->hw_sleep_ms = hw_us / 1000;
  r->hw_sleep_share = MIN (1.0, (double) hw_us / (double) duration_us);
  r->hw_sleep_reliable = duration_us <= limit;
}

static void
compute_energy (PpSleepRecord *r, const PpSleepSnapshot *before, const PpSleepSnapshot *after)
{
  double full = before->energy_full_mwh > 0 ? before->energy_full_mwh : after->energy_full_mwh;
  double hours = r->duration_ms / 3600000.0;

  r->energy_before_mwh = before->energy_mwh >= 0 ? before->energy_mwh : -1;
  r->energy_after_mwh = after->energy_mwh >= 0 ? after->energy_mwh : -1;
  r->drain_mw = 0;
  r->drain_percent_per_hour = 0;
  if (r->energy_before_mwh < 0 || r->energy_after_mwh < 0 || hours <= 0)
    return;
  r->drain_mw = (r->energy_before_mwh - r->energy_after_mwh) / hours;
  if (full > 0)
    r->drain_percent_per_hour = r->drain_mw / full * 100.0;
}

PpSleepRecord *
pp_sleep_record_compute (const PpSleepSnapshot *before,
                         const PpSleepSnapshot *after,
                         const char            *state,
                         const char            *error)
{
  PpSleepRecord *r = pp_sleep_record_new ();
  guint64 success = 0, fail = 0;
  guint64 duration_us;
  g_autoptr(GPtrArray) woken = NULL;
  gboolean failed;

  r->start_us = before->realtime_us > 0 ? (guint64) before->realtime_us : 0;
  r->end_us = after->realtime_us > 0 ? (guint64) after->realtime_us : 0;
  duration_us = after->boottime_us > before->boottime_us
                ? (guint64) (after->boottime_us - before->boottime_us) : 0;
  r->duration_ms = duration_us / 1000;

  if (before->has_stats && after->has_stats)
    {
      /* the kernel keeps them in an int */
      success = pp_sleep_counter_delta (before->success, after->success, 32);
      fail = pp_sleep_counter_delta (before->fail, after->fail, 32);
    }
  g_free (r->state);
  if (state != NULL)
    r->state = bounded_text (state);
  else
    r->state = g_strdup (success + fail > 0 ? "mem" : "unknown");
  g_free (r->mem_sleep);
  r->mem_sleep = bounded_text (before->mem_sleep);

  failed = (error != NULL) || (fail > 0 && success == 0);
  g_free (r->result);
  r->result = g_strdup (failed ? "failed" : "ok");
  if (fail > 0)
    {
      g_free (r->failed_step);
      r->failed_step = bounded_text (after->last_failed_step);
      r->failed_errno = (gint32) CLAMP (after->last_failed_errno, G_MININT32, G_MAXINT32);
      /* last_failed_dev keeps an older failure's device: this sleep's
       * only when it changed or the step was a device's */
      if (g_strcmp0 (after->last_failed_dev, before->last_failed_dev) != 0 ||
          pp_sleep_step_is_device (after->last_failed_step))
        {
          g_free (r->failed_device);
          r->failed_device = bounded_text (after->last_failed_dev);
        }
    }
  if (error != NULL)
    {
      g_free (r->error);
      r->error = bounded_text (error);
    }

  compute_hw_sleep (r, before, after, duration_us);
  compute_energy (r, before, after);

  g_free (r->wake_irq);
  r->wake_irq = bounded_text (after->wake_irq);
  /* wakeup_count grows only for events while the system suspends or
   * sleeps; event_count for any, the answer when no wakeup_count grew */
  woken = grown_sources (before, after, TRUE);
  if (woken->len == 0)
    {
      g_ptr_array_unref (woken);
      woken = grown_sources (before, after, FALSE);
    }
  g_strfreev (r->woken_by);
  r->woken_by = strv_from_array (woken, PP_SLEEP_LIST_MAX);
  g_strfreev (r->awake_devices);
  g_strfreev (r->awake_blockers);
  r->awake_devices = strv_from_array (before->awake_devices, PP_SLEEP_LIST_MAX);
  r->awake_blockers = strv_from_array (before->awake_blockers,
                                       g_strv_length (r->awake_devices));
  /* the lists stay parallel */
  while (g_strv_length (r->awake_blockers) < g_strv_length (r->awake_devices))
    {
      guint n = g_strv_length (r->awake_blockers);
      r->awake_blockers = g_renew (char *, r->awake_blockers, n + 2);
      r->awake_blockers[n] = g_strdup ("");
      r->awake_blockers[n + 1] = NULL;
    }
  return r;
}

/* ---- the file --------------------------------------------------------------- */

typedef enum {
  FIELD_U64,
  FIELD_I32,
  FIELD_DOUBLE,
  FIELD_BOOL,
  FIELD_STRING,
  FIELD_STRV,
} FieldType;

typedef struct {
  const char *name;
  FieldType   type;
  gsize       offset;
  gboolean    required;
} Field;

#define F(name, type, member, req) { name, type, G_STRUCT_OFFSET (PpSleepRecord, member), req }
static const Field fields[] = {
  F ("start", FIELD_U64, start_us, TRUE),
  F ("end", FIELD_U64, end_us, FALSE),
  F ("duration_ms", FIELD_U64, duration_ms, TRUE),
  F ("state", FIELD_STRING, state, TRUE),
  F ("mem_sleep", FIELD_STRING, mem_sleep, FALSE),
  F ("result", FIELD_STRING, result, TRUE),
  F ("failed_step", FIELD_STRING, failed_step, FALSE),
  F ("failed_device", FIELD_STRING, failed_device, FALSE),
  F ("failed_errno", FIELD_I32, failed_errno, FALSE),
  F ("error", FIELD_STRING, error, FALSE),
  F ("hw_sleep_share", FIELD_DOUBLE, hw_sleep_share, FALSE),
  F ("hw_sleep_reliable", FIELD_BOOL, hw_sleep_reliable, FALSE),
  F ("hw_sleep_ms", FIELD_U64, hw_sleep_ms, FALSE),
  F ("energy_before_mwh", FIELD_DOUBLE, energy_before_mwh, FALSE),
  F ("energy_after_mwh", FIELD_DOUBLE, energy_after_mwh, FALSE),
  F ("drain_mw", FIELD_DOUBLE, drain_mw, FALSE),
  F ("drain_percent_per_hour", FIELD_DOUBLE, drain_percent_per_hour, FALSE),
  F ("wake_irq", FIELD_STRING, wake_irq, FALSE),
  F ("woken_by", FIELD_STRV, woken_by, FALSE),
  F ("awake_devices", FIELD_STRV, awake_devices, FALSE),
  F ("awake_blockers", FIELD_STRV, awake_blockers, FALSE),
};
#undef F

#define MEMBER(r, f, type) ((type *) (gpointer) ((guint8 *) (r) + (f)->offset))

static gboolean
needs_escape (guchar c)
{
  return c <= 0x20 || c >= 0x7f || c == '%' || c == '=' || c == ',';
}

static void
append_escaped (GString *out, const char *text)
{
  for (const char *p = text; *p; p++)
    {
      if (needs_escape ((guchar) *p))
        g_string_append_printf (out, "%%%02X", (guchar) *p);
      else
        g_string_append_c (out, *p);
    }
}

/* %XX-decoding of @len bytes; NULL when malformed or it decodes a NUL. */
static char *
unescape (const char *text, gsize len)
{
  g_autoptr(GString) out = g_string_sized_new (len);

  for (gsize i = 0; i < len; i++)
    {
      int hi, lo;

      if (text[i] != '%')
        {
          g_string_append_c (out, text[i]);
          continue;
        }
      if (i + 2 >= len)
        return NULL;
      hi = g_ascii_xdigit_value (text[i + 1]);
      lo = g_ascii_xdigit_value (text[i + 2]);
      if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
        return NULL;
      g_string_append_c (out, (char) (hi * 16 + lo));
      i += 2;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
append_double (GString *out, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (out, g_ascii_dtostr (buf, sizeof buf, value));
}

char *
pp_sleep_record_to_line (const PpSleepRecord *r)
{
  GString *out = g_string_new (FORMAT_TAG);

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      const Field *f = &fields[i];

      g_string_append_printf (out, " %s=", f->name);
      switch (f->type)
        {
        case FIELD_U64:
          g_string_append_printf (out, "%" G_GUINT64_FORMAT, *MEMBER (r, f, guint64));
          break;
        case FIELD_I32:
          g_string_append_printf (out, "%" G_GINT32_FORMAT, *MEMBER (r, f, gint32));
          break;
        case FIELD_DOUBLE:
          append_double (out, *MEMBER (r, f, double));
          break;
        case FIELD_BOOL:
          g_string_append (out, *MEMBER (r, f, gboolean) ? "1" : "0");
          break;
        case FIELD_STRING:
          append_escaped (out, *MEMBER (r, f, char *));
          break;
        case FIELD_STRV:
          {
            char **v = *MEMBER (r, f, char **);
            for (guint j = 0; v != NULL && v[j] != NULL; j++)
              {
                if (j > 0)
                  g_string_append_c (out, ',');
                /* an empty item is "-", an item "-" is "%2D" */
                if (*v[j] == '\0')
                  g_string_append_c (out, '-');
                else if (g_str_equal (v[j], "-"))
                  g_string_append (out, "%2D");
                else
                  append_escaped (out, v[j]);
              }
          }
          break;
        default:
          g_assert_not_reached ();
        }
    }
  return g_string_free (out, FALSE);
}

/* A FIELD_STRV value: comma-separated escaped items, "-" for an empty
 * one; at most PP_SLEEP_LIST_MAX kept. */
static gboolean
parse_strv_field (PpSleepRecord *r, const Field *f, const char *value, gsize len, GError **error)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_free);
  gsize start = 0;

  for (gsize i = 0; len > 0 && i <= len; i++)
    {
      g_autofree char *item = NULL;
      gboolean empty;

      if (i < len && value[i] != ',')
        continue;
      empty = i - start == 1 && value[start] == '-';
      item = empty ? g_strdup ("") : unescape (value + start, i - start);
      start = i + 1;
      if (item == NULL)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       "bad escape in %s", f->name);
          return FALSE;
        }
      if (items->len >= PP_SLEEP_LIST_MAX)
        continue;
      g_ptr_array_add (items, bounded_text (item));
    }
  g_ptr_array_add (items, NULL);
  g_strfreev (*MEMBER (r, f, char **));
  *MEMBER (r, f, char **) = (char **) g_ptr_array_steal (items, NULL);
  return TRUE;
}

static gboolean
parse_field (PpSleepRecord *r, const Field *f, const char *value, gsize len, GError **error)
{
  g_autofree char *text = NULL;

  if (f->type == FIELD_STRV)
    return parse_strv_field (r, f, value, len, error);

  text = unescape (value, len);
  if (text == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "bad escape in %s", f->name);
      return FALSE;
    }
  switch (f->type)
    {
    case FIELD_U64:
      if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, MEMBER (r, f, guint64), NULL))
        break;
      return TRUE;
    case FIELD_I32:
      {
        gint64 v;
        if (!g_ascii_string_to_signed (text, 10, G_MININT32, G_MAXINT32, &v, NULL))
          break;
        *MEMBER (r, f, gint32) = (gint32) v;
        return TRUE;
      }
    case FIELD_DOUBLE:
      {
        char *end = NULL;
        double v = g_ascii_strtod (text, &end);
        if (*text == '\0' || end == NULL || *end != '\0' || !isfinite (v))
          break;
        *MEMBER (r, f, double) = v;
        return TRUE;
      }
    case FIELD_BOOL:
      if (!g_str_equal (text, "0") && !g_str_equal (text, "1"))
        break;
      *MEMBER (r, f, gboolean) = g_str_equal (text, "1");
      return TRUE;
    case FIELD_STRING:
      g_free (*MEMBER (r, f, char *));
      *MEMBER (r, f, char *) = bounded_text (text);
      return TRUE;
    case FIELD_STRV:
    default:
      g_assert_not_reached ();
    }
  {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                 "bad value for %s", f->name);
    return FALSE;
  }
}

/* The required fields @seen, and the values consistent with each other. */
static gboolean
record_is_complete (const PpSleepRecord *r, const gboolean *seen, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      if (fields[i].required && !seen[i])
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       "%s missing", fields[i].name);
          return FALSE;
        }
    }
  if (!g_str_equal (r->result, "ok") && !g_str_equal (r->result, "failed"))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "result is neither ok nor failed");
      return FALSE;
    }
  if (r->hw_sleep_share > 1 || (r->hw_sleep_share < 0 && r->hw_sleep_share != -1))
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           "hw_sleep_share out of range");
      return FALSE;
    }
  /* the blockers stay parallel to the devices */
  if (g_strv_length (r->awake_blockers) != g_strv_length (r->awake_devices))
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           "awake_blockers does not match awake_devices");
      return FALSE;
    }
  return TRUE;
}

PpSleepRecord *
pp_sleep_record_from_line (const char *line, GError **error)
{
  g_autoptr(PpSleepRecord) r = pp_sleep_record_new ();
  gboolean seen[G_N_ELEMENTS (fields)] = { FALSE };
  gsize len = strlen (line);
  const char *p;

  if (len > PP_SLEEP_LINE_MAX)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "longer than %d bytes", PP_SLEEP_LINE_MAX);
      return NULL;
    }
  if (!g_str_has_prefix (line, FORMAT_TAG " "))
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           "not a " FORMAT_TAG " record");
      return NULL;
    }
  p = line + strlen (FORMAT_TAG);
  while (*p != '\0')
    {
      const char *word, *eq;
      gsize wlen;

      while (*p == ' ')
        p++;
      if (*p == '\0')
        break;
      word = p;
      while (*p != '\0' && *p != ' ')
        p++;
      wlen = p - word;
      eq = memchr (word, '=', wlen);
      if (eq == NULL)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       "field without '=' at byte %u", (guint) (word - line));
          return NULL;
        }
      for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
        {
          if (strlen (fields[i].name) != (gsize) (eq - word) ||
              strncmp (fields[i].name, word, eq - word) != 0)
            continue;
          if (seen[i])
            {
              g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           "%s given twice", fields[i].name);
              return NULL;
            }
          seen[i] = TRUE;
          if (!parse_field (r, &fields[i], eq + 1, wlen - (eq + 1 - word), error))
            return NULL;
          break;
        }
      /* an unknown field is a newer version's: ignored */
    }
  if (!record_is_complete (r, seen, error))
    return NULL;
  return g_steal_pointer (&r);
}

char *
pp_sleep_history_to_data (GPtrArray *records)
{
  GString *out = g_string_new ("# powerpolicyd: system sleep records (pmctl sleep-history), "
                               "oldest first. Written by the daemon.\n");

  for (guint i = 0; records != NULL && i < records->len; i++)
    {
      g_autofree char *line = pp_sleep_record_to_line (g_ptr_array_index (records, i));

      g_string_append (out, line);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

void
pp_sleep_history_push (GPtrArray *records, PpSleepRecord *record)
{
  g_ptr_array_add (records, record);
  if (records->len > PP_SLEEP_HISTORY_MAX)
    g_ptr_array_remove_range (records, 0, records->len - PP_SLEEP_HISTORY_MAX);
}

GPtrArray *
pp_sleep_history_parse (const char *data, gsize length, GPtrArray *problems)
{
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_sleep_record_free);
  gsize pos = 0;
  guint lineno = 0;

  while (pos < length)
    {
      const char *start = data + pos;
      const char *nl = memchr (start, '\n', length - pos);
      gsize len = nl != NULL ? (gsize) (nl - start) : length - pos;
      g_autoptr(GError) error = NULL;
      g_autofree char *line = NULL;
      PpSleepRecord *r;

      lineno++;
      pos += len + (nl != NULL ? 1 : 0);
      if (len == 0 || *start == '#')
        continue;
      if (nl == NULL)
        {
          if (problems != NULL)
            g_ptr_array_add (problems, g_strdup_printf ("line %u: truncated record", lineno));
          break;
        }
      if (memchr (start, '\0', len) != NULL)
        {
          if (problems != NULL)
            g_ptr_array_add (problems, g_strdup_printf ("line %u: NUL byte", lineno));
          continue;
        }
      if (len > PP_SLEEP_LINE_MAX)
        {
          if (problems != NULL)
            g_ptr_array_add (problems, g_strdup_printf ("line %u: longer than %d bytes",
                                                        lineno, PP_SLEEP_LINE_MAX));
          continue;
        }
      line = g_strndup (start, len);
      r = pp_sleep_record_from_line (line, &error);
      if (r == NULL)
        {
          if (problems != NULL)
            g_ptr_array_add (problems, g_strdup_printf ("line %u: %s", lineno, error->message));
          continue;
        }
      pp_sleep_history_push (records, r);
    }
  return records;
}

/* ---- D-Bus ------------------------------------------------------------------ */

/* The entry {key: <value>} made directly: the same value as
 * g_variant_builder_add (b, "{sv}", ...), without parsing a format string
 * for each of the 21 entries of each record. */
static void
add (GVariantBuilder *b, const char *key, GVariant *value)
{
  g_variant_builder_add_value (b, g_variant_new_dict_entry (g_variant_new_string (key),
                                                            g_variant_new_variant (value)));
}

GVariant *
pp_sleep_record_to_variant (const PpSleepRecord *r)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  add (&b, "start", g_variant_new_uint64 (r->start_us));
  add (&b, "end", g_variant_new_uint64 (r->end_us));
  add (&b, "duration_ms", g_variant_new_uint64 (r->duration_ms));
  add (&b, "state", g_variant_new_string (r->state));
  add (&b, "mem_sleep", g_variant_new_string (r->mem_sleep));
  add (&b, "result", g_variant_new_string (r->result));
  add (&b, "failed_step", g_variant_new_string (r->failed_step));
  add (&b, "failed_device", g_variant_new_string (r->failed_device));
  add (&b, "failed_errno", g_variant_new_int32 (r->failed_errno));
  add (&b, "error", g_variant_new_string (r->error));
  add (&b, "hw_sleep_share", g_variant_new_double (r->hw_sleep_share));
  add (&b, "hw_sleep_reliable", g_variant_new_boolean (r->hw_sleep_reliable));
  add (&b, "hw_sleep_ms", g_variant_new_uint64 (r->hw_sleep_ms));
  add (&b, "energy_before_mwh", g_variant_new_double (r->energy_before_mwh));
  add (&b, "energy_after_mwh", g_variant_new_double (r->energy_after_mwh));
  add (&b, "drain_mw", g_variant_new_double (r->drain_mw));
  add (&b, "drain_percent_per_hour", g_variant_new_double (r->drain_percent_per_hour));
  add (&b, "wake_irq", g_variant_new_string (r->wake_irq));
  add (&b, "woken_by", g_variant_new_strv ((const char * const *) r->woken_by, -1));
  add (&b, "awake_devices", g_variant_new_strv ((const char * const *) r->awake_devices, -1));
  add (&b, "awake_blockers", g_variant_new_strv ((const char * const *) r->awake_blockers, -1));
  return g_variant_builder_end (&b);
}
