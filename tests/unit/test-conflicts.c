/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the detection of other power tools (pp-conflicts.c), each
 * against a fake root directory laid out as the tools and systemctl leave
 * a real one. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "pp-test.h"
#include "pp-conflicts.h"
#include "pp-log-capture.h"

/* One entry of a fake root: a directory ('d'), a file ('f', content) or a
 * symlink ('l', target). */
typedef struct {
  char        kind;
  const char *path;
  const char *content;
} Entry;

typedef struct {
  const char *name;
  Entry       entries[8];
  const char *expected;   /* "tool: evidence" lines joined with '|', "" for none */
} DetectRow;

#define D(p)        { 'd', p, NULL }
#define F(p, c)     { 'f', p, c }
#define L(p, t)     { 'l', p, t }

#define SYS "etc/systemd/system/"
#define LIB "usr/lib/systemd/system/"
#define MU SYS "multi-user.target.wants/"

#define TLP_UNIT "[Unit]\nDescription=TLP system startup/shutdown\n[Service]\nType=oneshot\n" \
                 "RemainAfterExit=yes\nExecStart=/usr/sbin/tlp init start\n" \
                 "[Install]\nWantedBy=multi-user.target\n"
#define POWERTOP_UNIT "[Unit]\nDescription=Powertop tunings\n[Service]\nType=oneshot\n" \
                      "ExecStart=/usr/sbin/powertop --auto-tune\n" \
                      "[Install]\nWantedBy=multi-user.target\n"

static const DetectRow detect_rows[] = {
  { "empty root", { { 0 } }, "" },
  { "tlp enabled",
    { F (LIB "tlp.service", TLP_UNIT), L (MU "tlp.service", "/" LIB "tlp.service") },
    "tlp: tlp.service enabled (" MU "tlp.service)" },
  { "tlp enabled, relative link",
    { F (LIB "tlp.service", TLP_UNIT), L (MU "tlp.service", "../../../../" LIB "tlp.service") },
    "tlp: tlp.service enabled (" MU "tlp.service)" },
  { "tlp installed, not enabled", { F (LIB "tlp.service", TLP_UNIT) }, "" },
  { "tlp enabled but masked",
    { F (LIB "tlp.service", TLP_UNIT), L (MU "tlp.service", "/" LIB "tlp.service"),
      L (SYS "tlp.service", "/dev/null") },
    "" },
  { "tlp masked by an empty file",
    { L (MU "tlp.service", "/" LIB "tlp.service"), F (SYS "tlp.service", "") },
    "" },
  { "tlp run state", { D ("run/tlp") }, "tlp: run state run/tlp" },
  { "tlp enabled by vendor preset",
    { F (LIB "tlp.service", TLP_UNIT), L (LIB "graphical.target.wants/tlp.service", "../tlp.service") },
    "tlp: tlp.service enabled (" LIB "graphical.target.wants/tlp.service)" },
  { "tlp required",
    { L (SYS "basic.target.requires/tlp.service", "/" LIB "tlp.service") },
    "tlp: tlp.service enabled (" SYS "basic.target.requires/tlp.service)" },
  { "laptop-mode enabled",
    { F ("lib/systemd/system/laptop-mode.service", "[Service]\nExecStart=/usr/sbin/laptop_mode init force\n"),
      L (MU "laptop-mode.service", "/lib/systemd/system/laptop-mode.service") },
    "laptop-mode-tools: laptop-mode.service enabled (" MU "laptop-mode.service)" },
  { "laptop-mode configured and installed",
    { F ("etc/laptop-mode/laptop-mode.conf", "ENABLE_LAPTOP_MODE_ON_BATTERY=1\n"),
      F ("lib/systemd/system/laptop-mode.service", "[Service]\n") },
    "laptop-mode-tools: etc/laptop-mode/laptop-mode.conf and laptop-mode.service installed" },
  { "laptop-mode configuration alone",
    { F ("etc/laptop-mode/laptop-mode.conf", "ENABLE_LAPTOP_MODE_ON_BATTERY=1\n") }, "" },
  { "laptop-mode configured, unit masked",
    { F ("etc/laptop-mode/laptop-mode.conf", "x\n"), F (LIB "laptop-mode.service", "[Service]\n"),
      L (SYS "laptop-mode.service", "/dev/null") },
    "" },
  { "laptop-mode run state", { D ("run/laptop-mode-tools") },
    "laptop-mode-tools: run state run/laptop-mode-tools" },
  { "tuned enabled",
    { F (LIB "tuned.service", "[Service]\nExecStart=/usr/sbin/tuned -l -P\n"),
      L (MU "tuned.service", "/" LIB "tuned.service") },
    "tuned: tuned.service enabled (" MU "tuned.service)" },
  { "tuned running", { F ("run/tuned/tuned.pid", "1234\n") }, "tuned: run state run/tuned/tuned.pid" },
  { "powertop unit enabled",
    { F (SYS "powertop.service", POWERTOP_UNIT), L (MU "powertop.service", "/" SYS "powertop.service") },
    "powertop: powertop.service runs powertop --auto-tune (" MU "powertop.service)" },
  { "powertop unit under another name",
    { F (SYS "tune.service", "[Service]\nExecStart=/bin/sh -c 'sleep 5; powertop --auto-tune'\n"),
      L (SYS "graphical.target.wants/tune.service", "/" SYS "tune.service") },
    "powertop: tune.service runs powertop --auto-tune (" SYS "graphical.target.wants/tune.service)" },
  { "powertop unit not enabled", { F (SYS "powertop.service", POWERTOP_UNIT) }, "" },
  { "powertop unit masked at runtime",
    { F (SYS "powertop.service", POWERTOP_UNIT), L (MU "powertop.service", "/" SYS "powertop.service"),
      L ("run/systemd/system/powertop.service", "/dev/null") },
    "" },
  { "powertop without --auto-tune",
    { F (SYS "powertop.service", "[Service]\nExecStart=/usr/sbin/powertop --html=/tmp/p.html\n"),
      L (MU "powertop.service", "/" SYS "powertop.service") },
    "" },
  { "powertop in a comment",
    { F (SYS "x.service", "[Service]\n# ExecStart=/usr/sbin/powertop --auto-tune\nExecStart=/bin/true\n"),
      L (MU "x.service", "/" SYS "x.service") },
    "" },
  { "power-profiles-daemon is no conflict",
    { F (LIB "power-profiles-daemon.service", "[Service]\nExecStart=/usr/libexec/power-profiles-daemon\n"),
      L (SYS "graphical.target.wants/power-profiles-daemon.service", "/" LIB "power-profiles-daemon.service") },
    "" },
  { "symlink loop",
    { L (SYS "loop.service", "/" SYS "loop2.service"), L (SYS "loop2.service", "/" SYS "loop.service"),
      L (MU "loop.service", "/" SYS "loop.service") },
    "" },
  { "wants is a file", { F (SYS "multi-user.target.wants", "tlp.service\n") }, "" },
  { "all four",
    { D ("run/tlp"), D ("run/laptop-mode-tools"), F ("run/tuned/tuned.pid", "1\n"),
      F (SYS "powertop.service", POWERTOP_UNIT), L (MU "powertop.service", "/" SYS "powertop.service") },
    "tlp: run state run/tlp|laptop-mode-tools: run state run/laptop-mode-tools|"
    "tuned: run state run/tuned/tuned.pid|"
    "powertop: powertop.service runs powertop --auto-tune (" MU "powertop.service)" },
};

typedef struct {
  const void *row;
  char       *root;
} State;

static int
setup (void **state)
{
  State *st = g_new0 (State, 1);

  st->row = *state;
  st->root = g_dir_make_tmp ("pp-test-conflicts-XXXXXX", NULL);
  assert_non_null (st->root);
  g_free (pp_log_capture_take ());
  *state = st;
  return 0;
}

static int
teardown (void **state)
{
  State *st = *state;

  pp_test_remove_tree (st->root);
  g_free (st->root);
  g_free (st);
  return 0;
}

static void
make_entry (const char *root, const Entry *e)
{
  g_autofree char *path = g_build_filename (root, e->path, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  assert_int_equal (g_mkdir_with_parents (parent, 0755), 0);
  switch (e->kind)
    {
    case 'd':
      assert_int_equal (g_mkdir_with_parents (path, 0755), 0);
      break;
    case 'f':
      assert_true (g_file_set_contents (path, e->content, -1, NULL));
      break;
    case 'l':
      assert_int_equal (symlink (e->content, path), 0);
      break;
    default:
      fail ();
    }
}

static char *
rows_to_string (GPtrArray *rows)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < rows->len; i++)
    {
      const PpConflict *c = g_ptr_array_index (rows, i);
      g_string_append_printf (s, "%s%s: %s", i ? "|" : "", c->subject, c->evidence);
    }
  return g_string_free (s, FALSE);
}

static void
test_detect (void **state)
{
  State *st = *state;
  const DetectRow *row = st->row;
  g_autoptr(GPtrArray) rows = NULL;
  g_autofree char *text = NULL;

  for (const Entry *e = row->entries; e->kind != 0; e++)
    make_entry (st->root, e);
  rows = pp_conflicts_detect (st->root);
  text = rows_to_string (rows);
  assert_string_equal (text, row->expected);
  for (guint i = 0; i < rows->len; i++)
    {
      const PpConflict *c = g_ptr_array_index (rows, i);
      assert_non_null (c->what);
      assert_true (strlen (c->what) > 0);
    }
}

/* What each tool touches is said in the row, and the same for TLP as the
 * issue states it. */
static void
test_detect_what (void **state)
{
  State *st = *state;
  const Entry e = D ("run/tlp");
  g_autoptr(GPtrArray) rows = NULL;
  const PpConflict *c;

  make_entry (st->root, &e);
  rows = pp_conflicts_detect (st->root);
  assert_int_equal (rows->len, 1);
  c = g_ptr_array_index (rows, 0);
  assert_string_equal (c->subject, "tlp");
  assert_string_equal (c->what,
                       "runtime PM, USB autosuspend, SATA link power, Wi-Fi and audio power save");
}

/* Only the first PP_CONFLICTS_MAX_FILE_SIZE bytes of a unit are read. */
static void
test_unit_file_bounded (void **state)
{
  State *st = *state;
  g_autoptr(GString) big = g_string_new ("[Service]\n");
  g_autoptr(GPtrArray) rows = NULL;
  const Entry link = L (MU "big.service", "/" SYS "big.service");
  g_autofree char *path = g_build_filename (st->root, SYS "big.service", NULL);
  g_autofree char *dir = g_path_get_dirname (path);

  while (big->len < PP_CONFLICTS_MAX_FILE_SIZE + 100)
    g_string_append (big, "# padding padding padding padding padding padding\n");
  g_string_append (big, "ExecStart=/usr/sbin/powertop --auto-tune\n");
  assert_int_equal (g_mkdir_with_parents (dir, 0755), 0);
  assert_true (g_file_set_contents (path, big->str, big->len, NULL));
  make_entry (st->root, &link);
  rows = pp_conflicts_detect (st->root);
  assert_int_equal (rows->len, 0);
}

/* Only PP_CONFLICTS_MAX_DIRS *.wants directories are looked at (in name
 * order per unit directory). */
static void
test_wants_dirs_bounded (void **state)
{
  State *st = *state;
  g_autoptr(GPtrArray) rows = NULL;

  for (guint i = 0; i < PP_CONFLICTS_MAX_DIRS; i++)
    {
      g_autofree char *p = g_strdup_printf (SYS "a%03u.target.wants", i);
      const Entry e = D (p);
      make_entry (st->root, &e);
    }
  {
    const Entry e = L (SYS "z.target.wants/tlp.service", "/" LIB "tlp.service");
    make_entry (st->root, &e);
  }
  rows = pp_conflicts_detect (st->root);
  assert_int_equal (rows->len, 0);
}

typedef struct {
  const char *name;
  const char *unit;
  gboolean    expected;
} PowertopRow;

static const PowertopRow powertop_rows[] = {
  { "plain", "ExecStart=/usr/sbin/powertop --auto-tune", TRUE },
  { "no path", "ExecStart=powertop --auto-tune", TRUE },
  { "prefixed", "ExecStart=-/usr/bin/powertop --auto-tune", TRUE },
  { "indented", "  ExecStart=/usr/sbin/powertop --auto-tune", TRUE },
  { "ExecStartPost", "ExecStartPost=/usr/sbin/powertop --auto-tune", TRUE },
  { "in a shell", "ExecStart=/bin/sh -c \"/usr/sbin/powertop --auto-tune; echo done\"", TRUE },
  { "among lines", "[Unit]\nDescription=x\n[Service]\nExecStart=/usr/sbin/powertop --auto-tune\n", TRUE },
  { "ExecStop", "ExecStop=/usr/sbin/powertop --auto-tune", FALSE },
  { "no auto-tune", "ExecStart=/usr/sbin/powertop --calibrate", FALSE },
  { "other program", "ExecStart=/usr/local/bin/mypowertop --auto-tune", FALSE },
  { "description only", "Description=powertop --auto-tune", FALSE },
  { "comment", "#ExecStart=/usr/sbin/powertop --auto-tune", FALSE },
  { "split over lines", "ExecStart=/usr/sbin/powertop\nExecStartPost=/bin/echo --auto-tune", FALSE },
  { "empty", "", FALSE },
};

static void
test_powertop_line (void **state)
{
  const PowertopRow *row = *state;

  assert_int_equal (pp_conflicts_unit_runs_powertop_auto_tune (row->unit), row->expected);
}

/* Conflicts are logged once: what a Reload finds again is not repeated. */
static void
test_log_new (void **state)
{
  g_autoptr(GPtrArray) before = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_conflict_free);
  g_autoptr(GPtrArray) after = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_conflict_free);
  g_autofree char *contents = NULL;
  g_auto(GStrv) records = NULL;

  g_ptr_array_add (before, pp_conflict_new ("tlp", "runtime PM", "run state run/tlp"));
  g_ptr_array_add (after, pp_conflict_new ("tlp", "runtime PM", "run state run/tlp"));
  g_ptr_array_add (after, pp_conflict_new ("tuned", "USB autosuspend", "run state run/tuned/tuned.pid"));

  assert_int_equal (pp_conflicts_log_new (NULL, before), 1);
  assert_int_equal (pp_conflicts_log_new (before, after), 1);
  assert_int_equal (pp_conflicts_log_new (after, after), 0);

  contents = pp_log_capture_take ();
  records = g_strsplit (contents, "\n\n", 0);
  assert_int_equal (g_strv_length (records), 3);  /* two records and the rest after the last */
  assert_non_null (strstr (records[0], "MESSAGE_ID=97f883d66b9848d8b09cf46e0eed065d\n"));
  assert_non_null (strstr (records[0], "\nTOOL=tlp\n"));
  assert_non_null (strstr (records[0], "\nWHAT=runtime PM\n"));
  assert_non_null (strstr (records[0], "\nEVIDENCE=run state run/tlp"));
  assert_non_null (strstr (records[0], "\nPRIORITY=4\n"));
  assert_non_null (strstr (records[1], "\nTOOL=tuned\n"));
  assert_string_equal (records[2], "");
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  pp_log_capture_install ();
  for (guint i = 0; i < G_N_ELEMENTS (detect_rows); i++)
    pp_test_list_add (list, "detect", detect_rows[i].name, test_detect, setup, teardown,
                      &detect_rows[i]);
  pp_test_list_add (list, "detect", "what", test_detect_what, setup, teardown, NULL);
  pp_test_list_add (list, "bounds", "unit file size", test_unit_file_bounded, setup, teardown, NULL);
  pp_test_list_add (list, "bounds", "wants directories", test_wants_dirs_bounded,
                    setup, teardown, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (powertop_rows); i++)
    pp_test_list_add (list, "powertop", powertop_rows[i].name, test_powertop_line, NULL, NULL,
                      &powertop_rows[i]);
  pp_test_list_add (list, "log", "once", test_log_new, setup, teardown, NULL);
  return pp_test_list_run (list, "conflicts");
}
