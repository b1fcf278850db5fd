/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-sleep-check"

#include "config.h"

#include <string.h>

#include "pp-sleep-check.h"

void
pp_sleep_check_input_clear (PpSleepCheckInput *in)
{
  g_clear_pointer (&in->state, g_free);
  g_clear_pointer (&in->mem_sleep, g_free);
  g_clear_pointer (&in->disk, g_free);
  g_clear_pointer (&in->resume, g_free);
  g_clear_pointer (&in->lockdown, g_free);
  g_clear_pointer (&in->swaps, g_free);
  g_clear_pointer (&in->meminfo, g_free);
}

void
pp_sleep_check_row_free (PpSleepCheckRow *row)
{
  if (row == NULL)
    return;
  g_free (row->state);
  g_free (row->used_by);
  g_free (row->reason);
  g_free (row);
}

static void
add_row (GPtrArray *rows, const char *state, gboolean available, const char *used_by, char *reason)
{
  PpSleepCheckRow *row = g_new0 (PpSleepCheckRow, 1);

  row->state = g_strdup (state);
  row->available = available;
  row->used_by = g_strdup (used_by);
  row->reason = g_utf8_make_valid (reason, -1);
  g_free (reason);
  g_ptr_array_add (rows, row);
}

/* The words of a choice attribute, brackets removed; @selected: the one
 * in brackets (NULL when none). */
static GStrv
choice_words (const char *text, char **selected)
{
  g_auto(GStrv) raw = g_strsplit_set (text != NULL ? text : "", " \t\n", -1);
  GPtrArray *words = g_ptr_array_new ();

  if (selected != NULL)
    *selected = NULL;
  for (guint i = 0; raw[i] != NULL; i++)
    {
      gsize len = strlen (raw[i]);

      if (len == 0)
        continue;
      if (raw[i][0] == '[' && len > 2 && raw[i][len - 1] == ']')
        {
          char *word = g_strndup (raw[i] + 1, len - 2);
          if (selected != NULL && *selected == NULL)
            *selected = g_strdup (word);
          g_ptr_array_add (words, word);
        }
      else
        g_ptr_array_add (words, g_strdup (raw[i]));
    }
  g_ptr_array_add (words, NULL);
  return (GStrv) g_ptr_array_free (words, FALSE);
}

static gboolean
configured (const char *value)
{
  return value != NULL && *value != '\0' && !g_str_equal (value, "auto");
}

gboolean
pp_sleep_check_swap_free_kib (const char *swaps, guint64 *out_kib)
{
  g_auto(GStrv) lines = NULL;
  guint64 total = 0;

  if (swaps == NULL || !g_str_has_prefix (swaps, "Filename"))
    return FALSE;
  lines = g_strsplit (swaps, "\n", 4097);
  /* "Filename Type Size Used Priority", sizes in KiB */
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit_set (lines[i], " \t", -1);
      const char *tokens[4] = { NULL };
      guint n = 0;
      guint64 size, used;

      for (guint j = 0; f[j] != NULL && n < 4; j++)
        if (*f[j] != '\0')
          tokens[n++] = f[j];
      if (n < 4 ||
          !g_ascii_string_to_unsigned (tokens[2], 10, 0, G_MAXUINT64 / 4096, &size, NULL) ||
          !g_ascii_string_to_unsigned (tokens[3], 10, 0, G_MAXUINT64 / 4096, &used, NULL))
        continue;
      if (size > used)
        total += size - used;
    }
  *out_kib = total;
  return TRUE;
}

static gboolean
meminfo_value (const char *meminfo, const char *key, guint64 *out)
{
  g_autofree char *needle = g_strconcat ("\n", key, ":", NULL);
  g_autofree char *text = g_strconcat ("\n", meminfo, NULL);
  const char *p = strstr (text, needle);

  if (p == NULL)
    return FALSE;
  p += strlen (needle);
  while (*p == ' ' || *p == '\t')
    p++;
  {
    g_autofree char *digits = g_strndup (p, strspn (p, "0123456789"));
    return g_ascii_string_to_unsigned (digits, 10, 0, G_MAXUINT64 / 2, out, NULL);
  }
}

gboolean
pp_sleep_check_anon_kib (const char *meminfo, guint64 *out_kib)
{
  guint64 active, inactive;

  if (meminfo == NULL ||
      !meminfo_value (meminfo, "Active(anon)", &active) ||
      !meminfo_value (meminfo, "Inactive(anon)", &inactive))
    return FALSE;
  *out_kib = active + inactive;
  return TRUE;
}

static void
check_mem (GPtrArray *rows, const PpSleepCheckInput *in, const char *mem_sleep_config)
{
  static const char * const modes[] = { "s2idle", "shallow", "deep" };
  g_auto(GStrv) states = choice_words (in->state, NULL);
  g_autofree char *selected = NULL;
  g_auto(GStrv) offered = choice_words (in->mem_sleep, &selected);
  gboolean has_mem = g_strv_contains ((const char * const *) states, "mem");
  const char *used = configured (mem_sleep_config) ? mem_sleep_config : selected;

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      const char *mode = modes[i];
      gboolean listed = g_strv_contains ((const char * const *) offered, mode);
      gboolean is_used = has_mem && g_strcmp0 (used, mode) == 0;

      if (in->state == NULL)
        add_row (rows, mode, FALSE, "", g_strdup ("/sys/power/state cannot be read (no system sleep support in this kernel)"));
      else if (!has_mem)
        {
          /* s2idle alone is still there as "freeze" */
          if (g_str_equal (mode, "s2idle") &&
              g_strv_contains ((const char * const *) states, "freeze"))
            add_row (rows, mode, TRUE, "",
                     g_strdup ("\"freeze\" in /sys/power/state; no \"mem\", so suspend cannot use it"));
          else
            add_row (rows, mode, FALSE, "",
                     g_strdup_printf ("/sys/power/state offers no \"mem\" (%s)", in->state));
        }
      else if (in->mem_sleep == NULL)
        add_row (rows, mode, g_str_equal (mode, "deep"), g_str_equal (mode, "deep") ? "suspend" : "",
                 g_strdup ("/sys/power/mem_sleep cannot be read: \"mem\" is the kernel's one mode"));
      else if (!listed && g_strcmp0 (mem_sleep_config, mode) == 0)
        add_row (rows, mode, FALSE, "suspend",
                 g_strdup_printf ("not in /sys/power/mem_sleep (%s), but [Sleep] MemSleep=%s: "
                                  "a suspend through the kernel fails", in->mem_sleep, mode));
      else if (!listed)
        add_row (rows, mode, FALSE, "",
                 g_strdup_printf ("not in /sys/power/mem_sleep (%s)%s", in->mem_sleep,
                                  g_str_equal (mode, "deep")
                                  ? ": the firmware offers no S3 (or it is disabled in its setup)" : ""));
      else if (is_used && configured (mem_sleep_config))
        add_row (rows, mode, TRUE, "suspend",
                 g_strdup_printf ("[Sleep] MemSleep=%s", mem_sleep_config));
      else if (is_used)
        add_row (rows, mode, TRUE, "suspend",
                 g_strdup ("the kernel's default ([Sleep] MemSleep=auto)"));
      else
        add_row (rows, mode, TRUE, "", g_strdup ("offered in /sys/power/mem_sleep"));
    }
}

static void
check_hibernate (GPtrArray *rows, const PpSleepCheckInput *in, const char *hibernate_mode_config)
{
  g_auto(GStrv) states = choice_words (in->state, NULL);
  g_autofree char *mode = NULL;
  g_auto(GStrv) modes = choice_words (in->disk, &mode);
  g_autofree char *lock = NULL;
  g_auto(GStrv) lock_words = choice_words (in->lockdown, &lock);
  g_autofree char *resume = g_strstrip (g_strdup (in->resume != NULL ? in->resume : ""));
  guint64 swap_free = 0, anon = 0;
  const char *used_mode = configured (hibernate_mode_config) ? hibernate_mode_config : mode;

  if (!g_strv_contains ((const char * const *) states, "disk"))
    {
      if (lock != NULL && !g_str_equal (lock, "none"))
        add_row (rows, "hibernate", FALSE, "",
                 g_strdup_printf ("the kernel is locked down (%s): hibernation is disabled", lock));
      else
        add_row (rows, "hibernate", FALSE, "",
                 g_strdup_printf ("/sys/power/state offers no \"disk\" (%s)",
                                  in->state != NULL ? in->state : "unreadable"));
      return;
    }
  if (*resume == '\0' || g_str_equal (resume, "0:0"))
    {
      add_row (rows, "hibernate", FALSE, "",
               g_strdup ("no resume device configured (/sys/power/resume is 0:0: "
                         "set resume= on the kernel command line)"));
      return;
    }
  if (!pp_sleep_check_swap_free_kib (in->swaps, &swap_free) || swap_free == 0)
    {
      add_row (rows, "hibernate", FALSE, "", g_strdup ("no swap space is active (/proc/swaps)"));
      return;
    }
  if (pp_sleep_check_anon_kib (in->meminfo, &anon) && anon > swap_free / 100 * 98)
    {
      add_row (rows, "hibernate", FALSE, "",
               g_strdup_printf ("not enough free swap: %" G_GUINT64_FORMAT " MiB free, %"
                                G_GUINT64_FORMAT " MiB of memory in use to save",
                                swap_free / 1024, anon / 1024));
      return;
    }
  if (configured (hibernate_mode_config) &&
      !g_strv_contains ((const char * const *) modes, hibernate_mode_config))
    {
      add_row (rows, "hibernate", FALSE, "hibernate",
               g_strdup_printf ("[Sleep] HibernateMode=%s is not in /sys/power/disk (%s)",
                                hibernate_mode_config, in->disk != NULL ? in->disk : "unreadable"));
      return;
    }
  add_row (rows, "hibernate", TRUE, "hibernate",
           g_strdup_printf ("resume device %s, %" G_GUINT64_FORMAT " MiB swap free for %"
                            G_GUINT64_FORMAT " MiB in use, mode %s", resume, swap_free / 1024,
                            anon / 1024, used_mode != NULL ? used_mode : "default"));
}

GPtrArray *
pp_sleep_check (const PpSleepCheckInput *in,
                const char              *mem_sleep_config,
                const char              *hibernate_mode_config)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_sleep_check_row_free);

  check_mem (rows, in, mem_sleep_config);
  check_hibernate (rows, in, hibernate_mode_config);
  return rows;
}
