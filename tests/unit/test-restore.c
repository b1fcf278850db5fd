/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Backend tests of the record of original values (pp-restore.c), in a
 * private temporary runtime directory. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "pp-test.h"
#include "pp-restore.h"

typedef struct {
  char      *runtime_dir;
  char      *originals_dir;
  PpRestore *restore;
} State;

static int
setup (void **state)
{
  State *st = g_new0 (State, 1);

  st->runtime_dir = g_dir_make_tmp ("pp-test-restore-XXXXXX", NULL);
  assert_non_null (st->runtime_dir);
  st->originals_dir = g_build_filename (st->runtime_dir, "originals", NULL);
  st->restore = pp_restore_new (st->runtime_dir);
  *state = st;
  return 0;
}

static int
teardown (void **state)
{
  State *st = *state;

  pp_restore_free (st->restore);
  pp_test_remove_tree (st->runtime_dir);
  g_free (st->runtime_dir);
  g_free (st->originals_dir);
  g_free (st);
  return 0;
}

/* Originals from "path=value" pairs. */
static GPtrArray *
originals_new (const char *first, ...)
{
  GPtrArray *array = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_original_free);
  va_list args;

  va_start (args, first);
  for (const char *pair = first; pair != NULL; pair = va_arg (args, const char *))
    {
      const char *eq = strchr (pair, '=');
      g_autofree char *path = g_strndup (pair, eq - pair);
      g_ptr_array_add (array, pp_original_new (path, eq + 1));
    }
  va_end (args);
  return array;
}

static char *
originals_to_string (GPtrArray *originals)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < originals->len; i++)
    {
      const PpOriginal *o = g_ptr_array_index (originals, i);
      g_string_append_printf (s, "%s%s=%s", i ? " " : "", o->path, o->value);
    }
  return g_string_free (s, FALSE);
}

static char *
load_to_string (PpRestore *restore)
{
  g_autoptr(GPtrArray) loaded = pp_restore_load (restore);

  assert_non_null (loaded);
  return originals_to_string (loaded);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/* Sorted names of the files in the record directory. */
static char *
list_dir (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (dir == NULL)
    return g_strdup ("(none)");
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static guint
count_records (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;
  guint n = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      /* a leftover temporary file would mean the write was not atomic */
      if (!g_str_has_suffix (name, ".orig"))
        fail_msg ("unexpected file %s in the record directory", name);
      n++;
    }
  return n;
}

#define A "/sys/devices/pci0000:00/0000:00:14.0/power/control"
#define B "/sys/devices/pci0000:00/0000:00:14.0/power/autosuspend_delay_ms"
#define C "/sys/module/snd_hda_intel/parameters/power_save"
#define D "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/scsi_host/host0/link_power_management_policy"

static void
test_fresh (void **state)
{
  State *st = *state;
  g_autofree char *loaded = NULL;

  assert_false (pp_restore_has_leftover (st->restore));
  loaded = load_to_string (st->restore);
  assert_string_equal (loaded, "");
  assert_int_equal (pp_restore_get_recorded (st->restore)->len, 0);
  assert_false (pp_restore_contains (st->restore, A));
  /* nothing created until there is something to record */
  assert_false (g_file_test (st->originals_dir, G_FILE_TEST_EXISTS));
}

static void
test_record_one_batch (void **state)
{
  State *st = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) batch = originals_new (A "=auto", B "=2000", C "=1", NULL);
  g_autofree char *recorded = NULL;
  g_autofree char *loaded = NULL;
  g_autofree char *names = NULL;
  g_autofree char *file = NULL;
  g_autofree char *contents = NULL;
  GStatBuf sb;

  assert_true (pp_restore_record (st->restore, batch, &error));
  assert_null (error);
  assert_true (pp_restore_has_leftover (st->restore));
  assert_true (pp_restore_contains (st->restore, A));
  assert_true (pp_restore_contains (st->restore, B));
  assert_true (pp_restore_contains (st->restore, C));
  assert_false (pp_restore_contains (st->restore, D));
  recorded = originals_to_string (pp_restore_get_recorded (st->restore));
  assert_string_equal (recorded, A "=auto " B "=2000 " C "=1");
  loaded = load_to_string (st->restore);
  assert_string_equal (loaded, A "=auto " B "=2000 " C "=1");

  /* one file per batch, private, and no temporary left behind */
  assert_int_equal (count_records (st->originals_dir), 1);
  names = list_dir (st->originals_dir);
  file = g_build_filename (st->originals_dir, names, NULL);
  assert_int_equal (g_stat (file, &sb), 0);
  assert_int_equal (sb.st_mode & 0777, 0600);
  assert_int_equal (g_stat (st->originals_dir, &sb), 0);
  assert_int_equal (sb.st_mode & 0077, 0);
  assert_true (g_file_get_contents (file, &contents, NULL, NULL));
  assert_true (g_str_has_prefix (contents, "#"));
  assert_non_null (strstr (contents, A "\tauto\n"));
}

static void
test_record_skips_recorded (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) first = originals_new (A "=auto", B "=2000", NULL);
  g_autoptr(GPtrArray) second = originals_new (B "=999", C "=1", A "=on", NULL);
  g_autoptr(GPtrArray) third = originals_new (A "=x", C "=y", NULL);
  g_autoptr(GPtrArray) empty = g_ptr_array_new ();
  g_autofree char *recorded = NULL;
  g_autofree char *loaded = NULL;

  assert_true (pp_restore_record (st->restore, first, NULL));
  assert_true (pp_restore_record (st->restore, second, NULL));
  assert_int_equal (count_records (st->originals_dir), 2);
  /* nothing new: no file */
  assert_true (pp_restore_record (st->restore, third, NULL));
  assert_true (pp_restore_record (st->restore, empty, NULL));
  assert_int_equal (count_records (st->originals_dir), 2);

  recorded = originals_to_string (pp_restore_get_recorded (st->restore));
  assert_string_equal (recorded, A "=auto " B "=2000 " C "=1");
  loaded = load_to_string (st->restore);
  assert_string_equal (loaded, A "=auto " B "=2000 " C "=1");
}

static void
test_record_duplicates_in_batch (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) batch = originals_new (A "=first", A "=second", NULL);
  g_autofree char *recorded = NULL;
  g_autofree char *loaded = NULL;

  assert_true (pp_restore_record (st->restore, batch, NULL));
  recorded = originals_to_string (pp_restore_get_recorded (st->restore));
  assert_string_equal (recorded, A "=first");
  loaded = load_to_string (st->restore);
  assert_string_equal (loaded, A "=first");
}

static void
test_empty_batch_creates_nothing (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) empty = g_ptr_array_new ();

  assert_true (pp_restore_record (st->restore, empty, NULL));
  assert_false (pp_restore_has_leftover (st->restore));
  assert_int_equal (count_records (st->originals_dir), 0);
}

/* A later run records again what it found, which is what the crashed
 * run had written: the first record of a path is the true original. */
static void
test_load_first_original_across_runs (void **state)
{
  State *st = *state;
  g_autoptr(PpRestore) second_run = NULL;
  g_autoptr(PpRestore) third_run = NULL;
  g_autoptr(GPtrArray) run1_a = originals_new (A "=auto", B "=2000", NULL);
  g_autoptr(GPtrArray) run1_b = originals_new (C "=1", NULL);
  g_autoptr(GPtrArray) run2 = originals_new (A "=on", C "=10", D "=max_performance", NULL);
  g_autofree char *loaded = NULL;

  assert_true (pp_restore_record (st->restore, run1_a, NULL));
  assert_true (pp_restore_record (st->restore, run1_b, NULL));

  second_run = pp_restore_new (st->runtime_dir);
  assert_true (pp_restore_has_leftover (second_run));
  /* what this run recorded is its own business */
  assert_false (pp_restore_contains (second_run, A));
  assert_int_equal (pp_restore_get_recorded (second_run)->len, 0);
  assert_true (pp_restore_record (second_run, run2, NULL));
  assert_int_equal (count_records (st->originals_dir), 3);

  third_run = pp_restore_new (st->runtime_dir);
  loaded = load_to_string (third_run);
  assert_string_equal (loaded, A "=auto " B "=2000 " C "=1 " D "=max_performance");
}

/* RestoreOnExit=false: the record is kept with the paths the policy
 * changed; the next run takes the originals over without a restore, and
 * the mark goes (a crash after that restores as usual). */
static void
test_keep_and_adopt (void **state)
{
  State *st = *state;
  g_autoptr(PpRestore) next_run = NULL;
  g_autoptr(GPtrArray) originals = originals_new (A "=on", B "=2000", C "=1", NULL);
  g_autoptr(GPtrArray) policy = g_ptr_array_new ();
  g_autoptr(GPtrArray) adopted = NULL;
  g_autofree char *names = NULL;

  assert_true (pp_restore_record (st->restore, originals, NULL));
  assert_false (pp_restore_was_kept (st->restore));
  g_ptr_array_add (policy, (gpointer) A);
  g_ptr_array_add (policy, (gpointer) C);
  /* a path without an original is not taken over */
  g_ptr_array_add (policy, (gpointer) D);
  assert_true (pp_restore_keep (st->restore, policy, NULL));

  next_run = pp_restore_new (st->runtime_dir);
  assert_true (pp_restore_has_leftover (next_run));
  assert_true (pp_restore_was_kept (next_run));
  adopted = pp_restore_adopt (next_run);
  assert_int_equal (adopted->len, 2);
  assert_string_equal (g_ptr_array_index (adopted, 0), A);
  assert_string_equal (g_ptr_array_index (adopted, 1), C);
  assert_string_equal (pp_restore_lookup (next_run, A), "on");
  assert_string_equal (pp_restore_lookup (next_run, B), "2000");
  assert_true (pp_restore_contains (next_run, C));
  assert_false (pp_restore_was_kept (next_run));
  /* the files stay: a crash from here restores the same originals */
  assert_int_equal (count_records (st->originals_dir), 1);
  assert_true (pp_restore_needs_compaction (next_run));
  assert_true (pp_restore_compact (next_run, NULL));
  assert_int_equal (count_records (st->originals_dir), 1);
  pp_restore_clear (next_run);
  names = list_dir (st->originals_dir);
  assert_string_equal (names, "");
}

static void
test_values_round_trip (void **state)
{
  State *st = *state;
  g_autoptr(PpRestore) next_run = NULL;
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_original_free);
  g_autoptr(GPtrArray) loaded = NULL;
  static const char * const values[] = {
    "", "with space", "tab\there", "two\nlines", "back\\slash", "\xc3\xa9t\xc3\xa9", "#hash",
    "[s2idle] deep", "trailing\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *path = g_strdup_printf ("/sys/devices/x%u/attr with\ttab", i);
      g_ptr_array_add (batch, pp_original_new (path, values[i]));
    }
  assert_true (pp_restore_record (st->restore, batch, NULL));
  next_run = pp_restore_new (st->runtime_dir);
  loaded = pp_restore_load (next_run);
  assert_int_equal (loaded->len, G_N_ELEMENTS (values));
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      const PpOriginal *in = g_ptr_array_index (batch, i);
      const PpOriginal *out = g_ptr_array_index (loaded, i);
      assert_string_equal (out->path, in->path);
      assert_string_equal (out->value, in->value);
    }
}

/* Issue 14: a path that begins with '#', or holds a newline, a tab or a
 * backslash, reads back as it was (not as a comment). */
static void
test_paths_round_trip (void **state)
{
  State *st = *state;
  g_autoptr(PpRestore) next_run = NULL;
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_original_free);
  g_autoptr(GPtrArray) loaded = NULL;
  static const char * const paths[] = {
    "#/sys/devices/hash", "##", "#", "/sys/devices/new\nline/x", "/sys/devices/a\nb",
    "/sys/devices/\\043", "\t#lead", " #space",
  };

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    g_ptr_array_add (batch, pp_original_new (paths[i], "#value"));
  assert_true (pp_restore_record (st->restore, batch, NULL));
  next_run = pp_restore_new (st->runtime_dir);
  loaded = pp_restore_load (next_run);
  assert_int_equal (loaded->len, G_N_ELEMENTS (paths));
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      const PpOriginal *out = g_ptr_array_index (loaded, i);
      assert_string_equal (out->path, paths[i]);
      assert_string_equal (out->value, "#value");
    }
}

#define GONE "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-3"

/* A device that went: its records are forgotten and compaction leaves
 * one file with exactly what is still kept. */
static void
test_forget_and_compact (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) first = originals_new (A "=on", GONE "/power/control=on", NULL);
  g_autoptr(GPtrArray) second = originals_new (GONE "/power/autosuspend_delay_ms=2000", NULL);
  g_autoptr(GPtrArray) third = originals_new (C "=0", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *kept = NULL;
  g_autofree char *loaded = NULL;

  assert_true (pp_restore_record (st->restore, first, NULL));
  assert_true (pp_restore_record (st->restore, second, NULL));
  assert_true (pp_restore_record (st->restore, third, NULL));
  assert_int_equal (count_records (st->originals_dir), 3);
  assert_false (pp_restore_needs_compaction (st->restore));

  /* not a prefix match: 1-3 is not under 1-3.1, nor 1-3 under 1- */
  assert_int_equal (pp_restore_forget_under (st->restore, GONE ".1"), 0);
  assert_int_equal (pp_restore_forget_under (st->restore, "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-"), 0);
  assert_false (pp_restore_needs_compaction (st->restore));
  assert_int_equal (pp_restore_forget_under (st->restore, GONE), 2);
  assert_true (pp_restore_needs_compaction (st->restore));
  assert_false (pp_restore_contains (st->restore, GONE "/power/control"));
  assert_null (pp_restore_lookup (st->restore, GONE "/power/autosuspend_delay_ms"));
  kept = originals_to_string (pp_restore_get_recorded (st->restore));
  assert_string_equal (kept, A "=on " C "=0");

  assert_true (pp_restore_compact (st->restore, &error));
  assert_null (error);
  assert_false (pp_restore_needs_compaction (st->restore));
  assert_int_equal (count_records (st->originals_dir), 1);
  loaded = load_to_string (st->restore);
  assert_string_equal (loaded, A "=on " C "=0");

  /* the device comes back: its (new) originals are recorded again */
  assert_true (pp_restore_record (st->restore, second, NULL));
  assert_string_equal (pp_restore_lookup (st->restore, GONE "/power/autosuspend_delay_ms"), "2000");
  assert_int_equal (count_records (st->originals_dir), 2);
}

/* One original forgotten (written back after a driver's unbind): only
 * that path, not the ones below it nor beside it. */
static void
test_forget_one (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) batch = originals_new (GONE "/power/control=on", GONE "/power/wakeup=enabled",
                                              GONE ".1/power/control=on", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *kept = NULL;
  g_autofree char *loaded = NULL;

  assert_true (pp_restore_record (st->restore, batch, NULL));
  assert_false (pp_restore_forget (st->restore, GONE));
  assert_false (pp_restore_forget (st->restore, GONE "/power"));
  assert_false (pp_restore_needs_compaction (st->restore));
  assert_true (pp_restore_forget (st->restore, GONE "/power/control"));
  assert_false (pp_restore_forget (st->restore, GONE "/power/control"));
  assert_true (pp_restore_needs_compaction (st->restore));
  kept = originals_to_string (pp_restore_get_recorded (st->restore));
  assert_string_equal (kept, GONE "/power/wakeup=enabled " GONE ".1/power/control=on");
  assert_true (pp_restore_compact (st->restore, &error));
  loaded = load_to_string (st->restore);
  assert_string_equal (loaded, kept);
}

/* The text of a record file parses back to what was formatted, from
 * memory as from the file. */
static void
test_parse_format_round_trip (void **state)
{
  g_autoptr(GPtrArray) batch = originals_new (A "=auto", B "=2000", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GPtrArray) parsed = NULL;
  g_autofree char *back = NULL;
  static const char malformed[] = "# comment\nno tab here\n" A "\ton\n" A "\tsecond\n";
  g_autoptr(GPtrArray) from_bad = NULL;

  (void) state;
  g_ptr_array_add (batch, pp_original_new ("#odd\tpath\n", "a\\b"));
  text = pp_restore_format (batch);
  parsed = pp_restore_parse ("test", text, strlen (text));
  back = originals_to_string (parsed);
  assert_int_equal (parsed->len, 3);
  assert_string_equal (((PpOriginal *) g_ptr_array_index (parsed, 2))->path, "#odd\tpath\n");
  assert_string_equal (((PpOriginal *) g_ptr_array_index (parsed, 2))->value, "a\\b");
  /* a malformed line skipped, the first record of a path kept */
  from_bad = pp_restore_parse ("bad", malformed, sizeof malformed - 1);
  assert_int_equal (from_bad->len, 1);
  assert_string_equal (((PpOriginal *) g_ptr_array_index (from_bad, 0))->value, "on");
}

/* Everything forgotten: compaction leaves no file, so no leftover. */
static void
test_compact_to_nothing (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) batch = originals_new (GONE "/power/control=on", NULL);
  g_autoptr(PpRestore) next_run = NULL;

  assert_true (pp_restore_record (st->restore, batch, NULL));
  assert_int_equal (pp_restore_forget_under (st->restore, GONE), 1);
  assert_true (pp_restore_compact (st->restore, NULL));
  assert_int_equal (count_records (st->originals_dir), 0);
  next_run = pp_restore_new (st->runtime_dir);
  assert_false (pp_restore_has_leftover (next_run));
}

/* Many hotplugged devices never removed: the number of files stays
 * bounded once the caller compacts when asked. */
static void
test_many_batches_compacted (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) loaded = NULL;

  for (guint i = 0; i < 2 * PP_RESTORE_MAX_FILES; i++)
    {
      g_autofree char *pair = g_strdup_printf ("/sys/devices/virtual/x/d%03u/power/control=on", i);
      g_autoptr(GPtrArray) batch = originals_new (pair, NULL);

      assert_true (pp_restore_record (st->restore, batch, NULL));
      if (pp_restore_needs_compaction (st->restore))
        assert_true (pp_restore_compact (st->restore, NULL));
      assert_true (count_records (st->originals_dir) <= PP_RESTORE_MAX_FILES + 1);
    }
  loaded = pp_restore_load (st->restore);
  assert_int_equal (loaded->len, 2 * PP_RESTORE_MAX_FILES);
}

/* Compaction that cannot write its file (here a file size limit, EFBIG
 * even for root, standing for a full directory) removes nothing: every
 * original kept is still on disk, and it works once space returns. */
static void
test_compact_failure_keeps_files (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) first = originals_new (A "=on", NULL);
  g_autoptr(GPtrArray) second = originals_new (GONE "/power/control=on", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *loaded = NULL;
  struct rlimit saved, limited;
  void (*old_handler) (int);
  gboolean ok;

  assert_true (pp_restore_record (st->restore, first, NULL));
  assert_true (pp_restore_record (st->restore, second, NULL));
  assert_int_equal (pp_restore_forget_under (st->restore, GONE), 1);

  assert_int_equal (getrlimit (RLIMIT_FSIZE, &saved), 0);
  limited = saved;
  limited.rlim_cur = 1;
  old_handler = signal (SIGXFSZ, SIG_IGN);
  assert_int_equal (setrlimit (RLIMIT_FSIZE, &limited), 0);
  ok = pp_restore_compact (st->restore, &error);
  assert_int_equal (setrlimit (RLIMIT_FSIZE, &saved), 0);
  signal (SIGXFSZ, old_handler);

  assert_false (ok);
  assert_non_null (error);
  assert_int_equal (count_records (st->originals_dir), 2);
  assert_true (pp_restore_needs_compaction (st->restore));
  assert_true (pp_restore_compact (st->restore, NULL));
  assert_int_equal (count_records (st->originals_dir), 1);
  loaded = load_to_string (st->restore);
  assert_string_equal (loaded, A "=on");
}

static void
test_load_skips_foreign_and_malformed (void **state)
{
  State *st = *state;
  g_autofree char *record = g_build_filename (st->originals_dir, "0000000000-1.orig", NULL);
  g_autofree char *other = g_build_filename (st->originals_dir, "notes.txt", NULL);
  g_autofree char *loaded = NULL;

  assert_int_equal (g_mkdir_with_parents (st->originals_dir, 0700), 0);
  assert_true (g_file_set_contents (record,
                                    "# header\n"
                                    A "\tauto\n"
                                    "\n"
                                    "a malformed line without a tab\n"
                                    B "\t2000\n", -1, NULL));
  /* not a record: never read, never removed */
  assert_true (g_file_set_contents (other, C "\t1\n", -1, NULL));
  assert_true (pp_restore_has_leftover (st->restore));
  loaded = load_to_string (st->restore);
  assert_string_equal (loaded, A "=auto " B "=2000");
  pp_restore_clear (st->restore);
  assert_false (g_file_test (record, G_FILE_TEST_EXISTS));
  assert_true (g_file_test (other, G_FILE_TEST_EXISTS));
  assert_false (pp_restore_has_leftover (st->restore));
}

static void
test_only_foreign_files_no_leftover (void **state)
{
  State *st = *state;
  g_autofree char *other = g_build_filename (st->originals_dir, "0000000000-1.orig.tmp", NULL);

  assert_int_equal (g_mkdir_with_parents (st->originals_dir, 0700), 0);
  assert_true (g_file_set_contents (other, A "\tauto\n", -1, NULL));
  assert_false (pp_restore_has_leftover (st->restore));
}

static void
test_clear (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) first = originals_new (A "=auto", NULL);
  g_autoptr(GPtrArray) second = originals_new (B "=2000", NULL);
  g_autoptr(GPtrArray) again = originals_new (A "=on", NULL);
  g_autofree char *loaded = NULL;
  g_autofree char *recorded = NULL;

  assert_true (pp_restore_record (st->restore, first, NULL));
  assert_true (pp_restore_record (st->restore, second, NULL));
  assert_int_equal (count_records (st->originals_dir), 2);

  pp_restore_clear (st->restore);
  assert_false (pp_restore_has_leftover (st->restore));
  assert_int_equal (count_records (st->originals_dir), 0);
  assert_false (pp_restore_contains (st->restore, A));
  assert_int_equal (pp_restore_get_recorded (st->restore)->len, 0);
  loaded = load_to_string (st->restore);
  assert_string_equal (loaded, "");

  /* recording starts afresh: A is recorded again, with its new value */
  assert_true (pp_restore_record (st->restore, again, NULL));
  recorded = originals_to_string (pp_restore_get_recorded (st->restore));
  assert_string_equal (recorded, A "=on");
  assert_int_equal (count_records (st->originals_dir), 1);
}

static void
test_clear_without_directory (void **state)
{
  State *st = *state;

  pp_restore_clear (st->restore);
  assert_false (pp_restore_has_leftover (st->restore));
}

/* When the record cannot be written, nothing counts as recorded: the
 * caller must not change anything. */
static void
test_record_failure (void **state)
{
  State *st = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) batch = originals_new (A "=auto", NULL);

  /* the record directory's place is taken by a file */
  assert_true (g_file_set_contents (st->originals_dir, "not a directory", -1, NULL));
  assert_false (pp_restore_record (st->restore, batch, &error));
  assert_non_null (error);
  assert_false (pp_restore_contains (st->restore, A));
  assert_int_equal (pp_restore_get_recorded (st->restore)->len, 0);

  /* once the way is clear it works */
  assert_int_equal (g_unlink (st->originals_dir), 0);
  assert_true (pp_restore_record (st->restore, batch, NULL));
  assert_true (pp_restore_contains (st->restore, A));
}

/* The record directory exists but the file cannot be written (a file
 * size limit makes every write fail with EFBIG, even for root): still
 * nothing counts as recorded and no partial file is left. */
static void
test_record_write_failure (void **state)
{
  State *st = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) first = originals_new (A "=auto", NULL);
  g_autoptr(GPtrArray) batch = originals_new (B "=2000", C "=1", NULL);
  g_autofree char *recorded = NULL;
  g_autofree char *loaded = NULL;
  struct rlimit saved, limited;
  void (*old_handler) (int);
  gboolean ok;

  assert_true (pp_restore_record (st->restore, first, NULL));
  assert_int_equal (getrlimit (RLIMIT_FSIZE, &saved), 0);
  limited = saved;
  limited.rlim_cur = 1;
  old_handler = signal (SIGXFSZ, SIG_IGN);
  assert_int_equal (setrlimit (RLIMIT_FSIZE, &limited), 0);
  ok = pp_restore_record (st->restore, batch, &error);
  assert_int_equal (setrlimit (RLIMIT_FSIZE, &saved), 0);
  signal (SIGXFSZ, old_handler);

  assert_false (ok);
  assert_non_null (error);
  assert_false (pp_restore_contains (st->restore, B));
  assert_false (pp_restore_contains (st->restore, C));
  recorded = originals_to_string (pp_restore_get_recorded (st->restore));
  assert_string_equal (recorded, A "=auto");
  assert_int_equal (count_records (st->originals_dir), 1);
  loaded = load_to_string (st->restore);
  assert_string_equal (loaded, A "=auto");
}

static void
test_lookup (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) first = originals_new (A "=auto", B "=2000", NULL);
  g_autoptr(GPtrArray) second = originals_new (A "=on", NULL);

  assert_null (pp_restore_lookup (st->restore, A));
  assert_true (pp_restore_record (st->restore, first, NULL));
  assert_true (pp_restore_record (st->restore, second, NULL));
  assert_string_equal (pp_restore_lookup (st->restore, A), "auto");
  assert_string_equal (pp_restore_lookup (st->restore, B), "2000");
  assert_null (pp_restore_lookup (st->restore, C));
  pp_restore_clear (st->restore);
  assert_null (pp_restore_lookup (st->restore, A));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_fresh, setup, teardown),
    cmocka_unit_test_setup_teardown (test_record_one_batch, setup, teardown),
    cmocka_unit_test_setup_teardown (test_record_skips_recorded, setup, teardown),
    cmocka_unit_test_setup_teardown (test_record_duplicates_in_batch, setup, teardown),
    cmocka_unit_test_setup_teardown (test_empty_batch_creates_nothing, setup, teardown),
    cmocka_unit_test_setup_teardown (test_load_first_original_across_runs, setup, teardown),
    cmocka_unit_test_setup_teardown (test_values_round_trip, setup, teardown),
    cmocka_unit_test_setup_teardown (test_load_skips_foreign_and_malformed, setup, teardown),
    cmocka_unit_test_setup_teardown (test_only_foreign_files_no_leftover, setup, teardown),
    cmocka_unit_test_setup_teardown (test_clear, setup, teardown),
    cmocka_unit_test_setup_teardown (test_clear_without_directory, setup, teardown),
    cmocka_unit_test_setup_teardown (test_record_failure, setup, teardown),
    cmocka_unit_test_setup_teardown (test_record_write_failure, setup, teardown),
    cmocka_unit_test_setup_teardown (test_lookup, setup, teardown),
    cmocka_unit_test_setup_teardown (test_paths_round_trip, setup, teardown),
    cmocka_unit_test_setup_teardown (test_forget_and_compact, setup, teardown),
    cmocka_unit_test_setup_teardown (test_forget_one, setup, teardown),
    cmocka_unit_test (test_parse_format_round_trip),
    cmocka_unit_test_setup_teardown (test_compact_to_nothing, setup, teardown),
    cmocka_unit_test_setup_teardown (test_keep_and_adopt, setup, teardown),
    cmocka_unit_test_setup_teardown (test_many_batches_compacted, setup, teardown),
    cmocka_unit_test_setup_teardown (test_compact_failure_keeps_files, setup, teardown),
  };

  /* the exit status, not the count: 256 failures must not exit 0 */
  return cmocka_run_group_tests_name ("restore", tests, NULL, NULL) == 0 ? 0 : 1;
}
