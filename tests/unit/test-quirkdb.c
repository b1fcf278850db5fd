/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the video quirk database (powerpolicyd(8), SYSTEM SLEEP, LID
 * AND VIDEO QUIRKS): the quirkdb parser and matcher, and the selection of
 * pm-utils 1.4.1's 98video-quirk-db-handler on machines from the real database.
 * Pure: linked against the policy library only; the database files are read
 * here and handed over as text. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-config.h"
#include "pp-quirkdb.h"
#include "pp-util.h"

/* ---- helpers ---------------------------------------------------------- */

/* A machine, fields as "key=value" lines; unset fields are "". */
static void
facts_from (PpMachineFacts *f, const char *spec)
{
  g_auto(GStrv) lines = g_strsplit (spec, "\n", -1);

  pp_machine_facts_init (f);
  for (guint i = 0; lines[i]; i++)
    {
      char *eq = strchr (lines[i], '=');
      char **field = NULL;
      const char *k, *v;

      if (eq == NULL)
        continue;
      *eq = '\0';
      k = lines[i];
      v = eq + 1;
      if (g_str_equal (k, "kms"))
        f->video_using_kms = g_str_equal (v, "true");
      else if (g_str_equal (k, "nvidia"))
        f->nvidia_loaded = TRUE;
      else if (g_str_equal (k, "fglrx"))
        f->fglrx_loaded = TRUE;
      else if (g_str_equal (k, "bios_vendor")) field = &f->firmware_vendor;
      else if (g_str_equal (k, "bios_version")) field = &f->firmware_version;
      else if (g_str_equal (k, "bios_date")) field = &f->firmware_release_date;
      else if (g_str_equal (k, "sys_vendor")) field = &f->hardware_vendor;
      else if (g_str_equal (k, "product_name")) field = &f->hardware_product;
      else if (g_str_equal (k, "product_version")) field = &f->hardware_version;
      else if (g_str_equal (k, "board_vendor")) field = &f->board_vendor;
      else if (g_str_equal (k, "board_name")) field = &f->board_product;
      else if (g_str_equal (k, "board_version")) field = &f->board_version;
      else if (g_str_equal (k, "vendor")) field = &f->video_vendor;
      else if (g_str_equal (k, "device")) field = &f->video_product;
      else if (g_str_equal (k, "driver")) field = &f->video_driver;
      else if (g_str_equal (k, "kernel")) field = &f->kernel_version;
      else
        fail_msg ("bad machine key %s", k);
      if (field)
        {
          g_free (*field);
          *field = g_strdup (v);
        }
    }
}

static char *
joined (const PpQuirkSelection *sel)
{
  g_autofree const char **names = pp_quirk_selection_names (sel);
  return g_strjoinv (" ", (char **) names);
}

static char *
problems_text (GPtrArray *problems)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < problems->len; i++)
    {
      g_autofree char *p = pp_config_problem_to_string (g_ptr_array_index (problems, i));
      g_string_append_printf (s, "%s\n", p);
    }
  return g_string_free (s, FALSE);
}

/* ---- matchers: one file, one machine, match or not -------------------- */

typedef struct {
  const char *name;
  const char *machine;
  const char *text;
  const char *expected;    /* the selection from the file, NULL: no match */
} MatchRow;

static const char *const D630 =
  "sys_vendor=Dell Inc.\nproduct_name=Latitude D630\nproduct_version=A01\n"
  "bios_vendor=Dell Inc.\nbios_version=A10\nbios_date=10/22/2008\n"
  "board_vendor=Dell Inc.\nboard_name=0KU184\nboard_version=\n"
  "vendor=0x8086\ndevice=0x2a02\ndriver=i915\nkernel=2.6.32-5-686";

static const MatchRow match_rows[] = {
  /* regex: POSIX ERE, unanchored, ';' means '|' */
  { "regex-hit", NULL, "match system.hardware.product regex Lat.*D63\naddquirk --quirk-vbe-post\nendmatch\n", "vbe_post" },
  { "regex-unanchored", NULL, "match system.hardware.product regex D6\naddquirk --quirk-vbe-post\nendmatch\n", "vbe_post" },
  { "regex-anchor-miss", NULL, "match system.hardware.product regex ^D630\naddquirk --quirk-vbe-post\nendmatch\n", NULL },
  { "regex-semicolon-is-or", NULL, "match system.hardware.product regex D999;D630\naddquirk --quirk-vbe-post\nendmatch\n", "vbe_post" },
  { "regex-case-sensitive", NULL, "match system.hardware.product regex latitude\naddquirk --quirk-vbe-post\nendmatch\n", NULL },
  { "regex-spaces-in-value", NULL, "match system.hardware.vendor regex ^Dell Inc\\.$\naddquirk --quirk-vbe-post\nendmatch\n", "vbe_post" },
  { "regex-outer-blanks-trimmed", NULL, "match system.hardware.product regex   D630   \naddquirk --quirk-vbe-post\nendmatch\n", "vbe_post" },
  { "regex_ncase-hit", NULL, "match system.hardware.product regex_ncase ^latitude d630$\naddquirk --quirk-vbe-post\nendmatch\n", "vbe_post" },
  { "regex_ncase-miss", NULL, "match system.hardware.product regex_ncase ^inspiron\naddquirk --quirk-vbe-post\nendmatch\n", NULL },
  { "regex_inverse-hit", NULL, "match system.firmware.version regex_inverse ^A12\naddquirk --quirk-vbe-post\nendmatch\n", "vbe_post" },
  { "regex_inverse-miss", NULL, "match system.firmware.version regex_inverse ^A1\naddquirk --quirk-vbe-post\nendmatch\n", NULL },
  /* compare_*: bash [[ = ]] is a pattern match, > < are byte order */
  { "compare_eq-hit", NULL, "match system.firmware.version compare_eq A10\naddquirk --quirk-s3-bios\nendmatch\n", "s3_bios" },
  { "compare_eq-glob", NULL, "match system.hardware.product compare_eq Latitude*\naddquirk --quirk-s3-bios\nendmatch\n", "s3_bios" },
  { "compare_eq-miss", NULL, "match system.firmware.version compare_eq A1\naddquirk --quirk-s3-bios\nendmatch\n", NULL },
  { "compare_ne-hit", NULL, "match system.firmware.version compare_ne A12\naddquirk --quirk-s3-bios\nendmatch\n", "s3_bios" },
  { "compare_ne-miss", NULL, "match system.firmware.version compare_ne A10\naddquirk --quirk-s3-bios\nendmatch\n", NULL },
  { "compare_gt-hit", NULL, "match system.firmware.version compare_gt A09\naddquirk --quirk-s3-bios\nendmatch\n", "s3_bios" },
  { "compare_gt-equal-miss", NULL, "match system.firmware.version compare_gt A10\naddquirk --quirk-s3-bios\nendmatch\n", NULL },
  { "compare_ge-equal", NULL, "match system.firmware.version compare_ge A10\naddquirk --quirk-s3-bios\nendmatch\n", "s3_bios" },
  { "compare_ge-miss", NULL, "match system.firmware.version compare_ge A12\naddquirk --quirk-s3-bios\nendmatch\n", NULL },
  { "compare_lt-hit", NULL, "match system.firmware.version compare_lt A12\naddquirk --quirk-s3-bios\nendmatch\n", "s3_bios" },
  { "compare_lt-string-order", NULL, "match system.firmware.version compare_lt A9\naddquirk --quirk-s3-bios\nendmatch\n", "s3_bios" },
  { "compare_le-equal", NULL, "match system.firmware.version compare_le A10\naddquirk --quirk-s3-bios\nendmatch\n", "s3_bios" },
  { "compare_le-miss", NULL, "match system.firmware.version compare_le A09\naddquirk --quirk-s3-bios\nendmatch\n", NULL },
  /* numeric: decimal and 0x hex */
  { "numeric_eq-hex", NULL, "match system.hardware.primary_video.vendor numeric_compare_eq 0x8086\naddquirk --quirk-s3-mode\nendmatch\n", "s3_mode" },
  { "numeric_eq-decimal", NULL, "match system.hardware.primary_video.vendor numeric_compare_eq 32902\naddquirk --quirk-s3-mode\nendmatch\n", "s3_mode" },
  { "numeric_eq-miss", NULL, "match system.hardware.primary_video.vendor numeric_compare_eq 0x1002\naddquirk --quirk-s3-mode\nendmatch\n", NULL },
  { "numeric_ne-hit", NULL, "match system.hardware.primary_video.vendor numeric_compare_ne 0x1002\naddquirk --quirk-s3-mode\nendmatch\n", "s3_mode" },
  { "numeric_gt-hit", NULL, "match system.hardware.primary_video.product numeric_compare_gt 0x2a01\naddquirk --quirk-s3-mode\nendmatch\n", "s3_mode" },
  { "numeric_gt-miss", NULL, "match system.hardware.primary_video.product numeric_compare_gt 0x2a02\naddquirk --quirk-s3-mode\nendmatch\n", NULL },
  { "numeric_ge-equal", NULL, "match system.hardware.primary_video.product numeric_compare_ge 10754\naddquirk --quirk-s3-mode\nendmatch\n", "s3_mode" },
  { "numeric_lt-hit", NULL, "match system.hardware.primary_video.product numeric_compare_lt 0x3000\naddquirk --quirk-s3-mode\nendmatch\n", "s3_mode" },
  { "numeric_le-miss", NULL, "match system.hardware.primary_video.product numeric_compare_le 0x2a01\naddquirk --quirk-s3-mode\nendmatch\n", NULL },
  { "numeric-not-a-number", NULL, "match system.hardware.product numeric_compare_eq 0\naddquirk --quirk-s3-mode\nendmatch\n", NULL },
  { "numeric_eq_list-hit", NULL, "match system.hardware.primary_video.product numeric_compare_eq_list 0x190;0x2a02;0x400\naddquirk --quirk-s3-mode\nendmatch\n", "s3_mode" },
  { "numeric_eq_list-miss", NULL, "match system.hardware.primary_video.product numeric_compare_eq_list 0x190;0x400\naddquirk --quirk-s3-mode\nendmatch\n", NULL },
  /* every key */
  { "key-firmware.vendor", NULL, "match system.firmware.vendor compare_eq Dell Inc.\naddquirk --quirk-none\nendmatch\n", "none" },
  { "key-firmware.release_date", NULL, "match system.firmware.release_date regex 2008$\naddquirk --quirk-none\nendmatch\n", "none" },
  { "key-hardware.version", NULL, "match system.hardware.version compare_eq A01\naddquirk --quirk-none\nendmatch\n", "none" },
  { "key-board.vendor", NULL, "match system.board.vendor regex ^Dell\naddquirk --quirk-none\nendmatch\n", "none" },
  { "key-board.product", NULL, "match system.board.product compare_eq 0KU184\naddquirk --quirk-none\nendmatch\n", "none" },
  { "key-board.version-empty", NULL, "match system.board.version regex ^$\naddquirk --quirk-none\nendmatch\n", "none" },
  { "key-video.driver", NULL, "match system.hardware.primary_video.driver compare_eq i915\naddquirk --quirk-none\nendmatch\n", "none" },
  { "key-video.using_kms", NULL, "match system.hardware.primary_video.using_kms compare_eq false\naddquirk --quirk-none\nendmatch\n", "none" },
  { "key-kernel.version", NULL, "match system.kernel.version regex ^2\\.6\\.32\naddquirk --quirk-none\nendmatch\n", "none" },
  /* nesting, accumulation, delquirk, comments */
  { "nested-all-match", NULL,
    "match system.hardware.vendor regex ^Dell\n match system.hardware.product regex ^Latitude\n  match system.hardware.product regex D630\n   addquirk --quirk-vbe-post\n  endmatch\n endmatch\nendmatch\n",
    "vbe_post" },
  { "nested-inner-miss", NULL,
    "match system.hardware.vendor regex ^Dell\n match system.hardware.product regex ^Inspiron\n  addquirk --quirk-vbe-post\n endmatch\nendmatch\n",
    NULL },
  { "nested-outer-miss-skips-inner", NULL,
    "match system.hardware.vendor regex ^IBM\n match system.hardware.product regex D630\n  addquirk --quirk-vbe-post\n endmatch\nendmatch\n",
    NULL },
  { "siblings-accumulate-in-order", NULL,
    "match system.hardware.product regex D630\naddquirk --quirk-dpms-on\nendmatch\nmatch system.hardware.vendor regex Dell\naddquirk --quirk-s3-bios\naddquirk --quirk-dpms-on\nendmatch\n",
    "dpms_on s3_bios" },
  { "delquirk-removes", NULL,
    "match system.hardware.vendor regex Dell\naddquirk --quirk-vbe-post\naddquirk --quirk-dpms-on\n match system.hardware.product regex D630\n delquirk --quirk-vbe-post\n endmatch\nendmatch\n",
    "dpms_on" },
  { "delquirk-alone-is-a-match", NULL,
    "match system.hardware.vendor regex Dell\ndelquirk --quirk-vbe-post\nendmatch\n", "" },
  { "quirks-after-inner-block", NULL,
    "match system.hardware.vendor regex Dell\n match system.hardware.product regex X\n  addquirk --quirk-vbe-post\n endmatch\n addquirk --quirk-s3-mode\nendmatch\n",
    "s3_mode" },
  { "comments-and-blank-lines", NULL,
    "# <?xml version=\"1.0\"?>\n\n   # indented comment\nmatch system.hardware.vendor regex Dell\n #addquirk --quirk-vbe-post\n addquirk --quirk-dpms-on\nendmatch\n\t\n",
    "dpms_on" },
  { "pci-save-alias", NULL, "match system.hardware.vendor regex Dell\naddquirk --quirk-pci-save\nendmatch\n", "save_pci" },
  { "top-level-addquirk", NULL, "addquirk --quirk-vga-mode-3\n", "vga_mode_3" },
  { "crlf-lines", NULL, "match system.hardware.vendor regex ^Dell Inc.$\r\naddquirk --quirk-vbe-post\r\nendmatch\r\n", "vbe_post" },
  /* pm-utils reads lines with bash `read` (no -r): "\(" reaches the regex
   * as "(", so this entry never matched there, and does not here */
  { "backslash-removed-like-read", "sys_vendor=Compaq\nproduct_name=Presario V3000 (EZ674UA#ABA)",
    "match system.hardware.product regex V3000 \\(EZ674UA#|V3700\naddquirk --quirk-s3-bios\nendmatch\n", NULL },
  { "backslash-dot-is-any-char", "sys_vendor=Apple Inc!",
    "match system.hardware.vendor regex ^Apple Inc\\.$\naddquirk --quirk-s3-bios\nendmatch\n", "s3_bios" },
};

static void
test_match (void **state)
{
  const MatchRow *row = *state;
  g_autoptr(PpQuirkDb) db = pp_quirkdb_new ();
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autoptr(PpQuirkSelection) sel = NULL;
  PpMachineFacts f;
  gboolean hit;

  facts_from (&f, row->machine ? row->machine : D630);
  pp_quirkdb_add_file (db, "t.quirkdb", row->text, strlen (row->text),
                       g_str_has_prefix (row->name, "backslash-removed") ? NULL : problems);
  if (problems->len > 0)
    {
      g_autofree char *t = problems_text (problems);
      fail_msg ("unexpected problems:\n%s", t);
    }
  hit = pp_quirkdb_match_file (db, 0, &f, &sel);
  if (row->expected == NULL)
    assert_false (hit);
  else
    {
      g_autofree char *got = NULL;
      assert_true (hit);
      got = joined (sel);
      assert_string_equal (got, row->expected);
      assert_int_equal (sel->source, PP_QUIRK_SOURCE_DATABASE);
    }
  pp_machine_facts_clear (&f);
}

/* ---- malformed lines: reported with file:line, the rest applies ------- */

typedef struct {
  const char *name;
  const char *text;
  const char *problem;     /* "file:line: ...needle" prefix + needle */
  const char *needle;
  const char *expected;    /* selection from the file, NULL: no match */
} BadRow;

#define TEN(x) x x x x x x x x x x
#define LONG_REGEX TEN (TEN (TEN ("D"))) TEN (TEN ("e")) TEN ("l") "l"

static const BadRow bad_rows[] = {
  /* pm-utils' `[[ $v =~ "" ]]`: an empty regex matches anything
   * (20-video-quirk-pm-hp.quirkdb line 10 relies on it) */
  { "match-without-value", "match system.hardware.vendor regex\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "without a VALUE", "vbe_post dpms_on" },
  { "match-without-value-compare", "match system.hardware.vendor compare_eq   \naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "without a VALUE", "dpms_on" },
  { "match-without-matcher", "match system.hardware.vendor\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "KEY MATCHER VALUE", "dpms_on" },
  { "unknown-key", "addquirk --quirk-dpms-on\nmatch system.cpu.vendor regex Intel\naddquirk --quirk-vbe-post\nendmatch\n",
    "bad.quirkdb:2: ", "unknown key 'system.cpu.vendor'", "dpms_on" },
  { "unknown-matcher", "match system.hardware.vendor regexp Dell\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "unknown matcher 'regexp'", "dpms_on" },
  { "bad-regex", "\n\nmatch system.hardware.vendor regex (Dell\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:3: ", "does not compile", "dpms_on" },
  /* pm-utils' `! [[ $v =~ $re ]]` is true for a regex that does not
   * compile: regex_inverse of it matches (regex of it does not, above) */
  { "regex-inverse-does-not-compile", "match system.hardware.vendor regex_inverse (Dell\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "regex_inverse of it matches every value", "vbe_post dpms_on" },
  /* bounded regexes: refused with FILE:LINE, the block never matches */
  { "regex-stacked-repetition", "\nmatch system.hardware.vendor regex |2++++++++++++++++++++++\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:2: ", "refused: a repetition of a repetition", "dpms_on" },
  { "regex-inverse-stacked-repetition", "match system.hardware.vendor regex_inverse x*+\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "refused: a repetition of a repetition", "dpms_on" },
  { "regex-too-many-repetitions", "match system.hardware.vendor regex a*b*c*d*e*f*g*h*i*j*k*l*m*n*o*p*q*\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "refused: more than 16 repetition operators", "dpms_on" },
  { "regex-large-interval", "match system.hardware.vendor regex a{1,255}\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "refused: a repetition count above 16", "dpms_on" },
  { "regex-stacked-intervals", "match system.hardware.vendor regex (a{2}){2}{2}|b{2}\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "refused: a repetition of a repetition", "dpms_on" },
  { "regex-three-intervals", "match system.hardware.vendor regex a{2}b{2}c{2}\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "refused: more than 2 {m,n} repetitions", "dpms_on" },
  { "regex-back-reference", "match system.hardware.vendor regex (a*)*\\\\1\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "refused: back-references are not allowed", "dpms_on" },
  { "regex-too-long", "match system.hardware.vendor regex " LONG_REGEX "\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "\xe2\x80\xa6\" refused: longer than 1024 bytes", "dpms_on" },
  { "glob-extended-pattern", "match system.hardware.vendor compare_eq +(a|aa)+(a|aa)b\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "refused: the extended pattern '+(' is not allowed", "dpms_on" },
  { "glob-too-many-wildcards", "match system.hardware.vendor compare_eq *a*a*a*a*a*a*a*a*a\naddquirk --quirk-vbe-post\nendmatch\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "refused: more than 8 wildcards", "dpms_on" },
  /* pm-utils' reader returns at a stray endmatch: the rest is unread
   * (20-video-quirk-pm-ibm.quirkdb line 114) */
  { "endmatch-without-match", "addquirk --quirk-dpms-on\nendmatch\naddquirk --quirk-s3-bios\n",
    "bad.quirkdb:2: ", "the rest of the file is ignored", "dpms_on" },
  { "unclosed-match", "match system.hardware.vendor regex Dell\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "without 'endmatch'", "dpms_on" },
  { "addquirk-without-argument", "addquirk\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "--quirk-NAME", "dpms_on" },
  { "addquirk-bad-argument", "addquirk vbe-post\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "--quirk-NAME", "dpms_on" },
  { "addquirk-two-arguments", "addquirk --quirk-vbe-post --quirk-s3-bios\naddquirk --quirk-dpms-on\n",
    "bad.quirkdb:1: ", "one argument", "dpms_on" },
  { "unknown-directive", "match system.hardware.vendor regex Dell\nsetquirk --quirk-vbe-post\naddquirk --quirk-dpms-on\nendmatch\n",
    "bad.quirkdb:2: ", "unknown directive 'setquirk'", "dpms_on" },
  /* an unknown quirk counts as an entry (pm-utils: the file matched) */
  { "unknown-quirk", "match system.hardware.vendor regex Dell\naddquirk --quirk-turbo-mode\nendmatch\n",
    "bad.quirkdb:2: ", "unknown quirk 'turbo-mode'", "" },
};

static void
test_bad (void **state)
{
  const BadRow *row = *state;
  g_autoptr(PpQuirkDb) db = pp_quirkdb_new ();
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autoptr(PpQuirkSelection) sel = NULL;
  g_autofree char *text = NULL;
  PpMachineFacts f;
  gboolean hit;

  facts_from (&f, D630);
  pp_quirkdb_add_file (db, "bad.quirkdb", row->text, strlen (row->text), problems);
  text = problems_text (problems);
  if (problems->len != 1 || !g_str_has_prefix (text, row->problem) || strstr (text, row->needle) == NULL)
    fail_msg ("expected one problem '%s...%s', got:\n%s", row->problem, row->needle, text);
  hit = pp_quirkdb_match_file (db, 0, &f, &sel);
  if (row->expected == NULL)
    assert_false (hit);
  else
    {
      g_autofree char *got = NULL;
      assert_true (hit);
      got = joined (sel);
      assert_string_equal (got, row->expected);
    }
  pp_machine_facts_clear (&f);
}

static void
test_unknown_quirk_reported_once (void **state)
{
  g_autoptr(PpQuirkDb) db = pp_quirkdb_new ();
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  const char *a = "addquirk --quirk-warp\naddquirk --quirk-warp\n";
  const char *b = "addquirk --quirk-warp\naddquirk --quirk-zoom\n";
  g_autofree char *text = NULL;

  pp_quirkdb_add_file (db, "a.quirkdb", a, strlen (a), problems);
  pp_quirkdb_add_file (db, "b.quirkdb", b, strlen (b), problems);
  text = problems_text (problems);
  assert_string_equal (text,
                       "a.quirkdb:1: unknown quirk 'warp', ignoring it\n"
                       "b.quirkdb:2: unknown quirk 'zoom', ignoring it\n");
}

/* ---- selection -------------------------------------------------------- */

static void
test_first_matching_file_wins (void **state)
{
  g_autoptr(PpQuirkDb) db = pp_quirkdb_new ();
  g_autoptr(PpQuirkSelection) sel = NULL;
  const char *f1 = "match system.hardware.vendor regex ^IBM\naddquirk --quirk-s3-bios\nendmatch\n";
  const char *f2 = "match system.hardware.vendor regex ^Dell\n addquirk --quirk-vbe-post\nendmatch\n";
  const char *f3 = "match system.hardware.vendor regex Dell\naddquirk --quirk-dpms-on\nendmatch\n";
  g_autofree char *got = NULL;
  PpMachineFacts f;

  facts_from (&f, D630);
  pp_quirkdb_add_file (db, "10-ibm.quirkdb", f1, strlen (f1), NULL);
  pp_quirkdb_add_file (db, "20-dell.quirkdb", f2, strlen (f2), NULL);
  pp_quirkdb_add_file (db, "30-any.quirkdb", f3, strlen (f3), NULL);
  sel = pp_quirkdb_select (db, &f, NULL, NULL, NULL);
  got = joined (sel);
  assert_string_equal (got, "vbe_post");
  assert_int_equal (sel->source, PP_QUIRK_SOURCE_DATABASE);
  assert_string_equal (((PpQuirkReason *) g_ptr_array_index (sel->reasons, 0))->detail,
                       "20-dell.quirkdb:2 (entry at line 1)");
  pp_machine_facts_clear (&f);
}

/* The whole selection on machines, against the shipped database. */
typedef struct {
  const char *name;
  const char *machine;
  const char *config;         /* comma list for VideoQuirks=, NULL: auto */
  const char *expected;
  PpQuirkSource source;
  const char *detail;         /* substring of the first quirk's detail */
} SelectRow;

#define DELL_LATITUDE(product, bios) \
  "sys_vendor=Dell Inc.\nproduct_name=Latitude " product "\nbios_version=" bios "\nvendor=0x8086\ndevice=0x2a02\ndriver=i915\nkernel=2.6.32"
#define DELL_INSPIRON(product, bios, video) \
  "sys_vendor=Dell Inc.\nproduct_name=Inspiron " product "\nbios_version=" bios "\nvendor=" video "\ndevice=0x1234\ndriver=radeon\nkernel=2.6.32"

static const SelectRow select_rows[] = {
  /* 20-video-quirk-pm-dell.quirkdb: "D630" then "compare_lt A12" */
  { "dell-latitude-d630-old-bios", DELL_LATITUDE ("D630", "A10"), NULL,
    "vbe_post vbestate_restore no_fb", PP_QUIRK_SOURCE_DATABASE, "20-video-quirk-pm-dell.quirkdb:35 (entry at line 2)" },
  { "dell-latitude-d630-new-bios", DELL_LATITUDE ("D630", "A12"), NULL,
    "vbemode_restore", PP_QUIRK_SOURCE_DATABASE, "20-video-quirk-pm-dell.quirkdb:40" },
  { "dell-latitude-d620", DELL_LATITUDE ("D620", "A10"), NULL,
    "vbe_post vbemode_restore", PP_QUIRK_SOURCE_DATABASE, "dell.quirkdb:21" },
  { "dell-latitude-d810-needs-none", DELL_LATITUDE ("D810", "A10"), NULL,
    "none", PP_QUIRK_SOURCE_DATABASE, "dell.quirkdb" },
  { "dell-latitude-c600-radeon-off", DELL_LATITUDE ("C600", "A10"), NULL,
    "radeon_off", PP_QUIRK_SOURCE_DATABASE, "dell.quirkdb:10" },
  { "dell-inspiron-1501-ati", DELL_INSPIRON ("1501", "A05", "0x1002"), NULL,
    "s3_bios s3_mode radeon_off", PP_QUIRK_SOURCE_DATABASE, "dell.quirkdb:54" },
  { "dell-inspiron-1501-intel", DELL_INSPIRON ("1501", "A05", "0x8086"), NULL,
    "s3_bios s3_mode", PP_QUIRK_SOURCE_DATABASE, "dell.quirkdb:54" },
  { "dell-inspiron-5100-rev-a0-pci-save", DELL_INSPIRON ("5100", "Revision A0", "0x1002"), NULL,
    "vbe_post vbestate_restore save_pci", PP_QUIRK_SOURCE_DATABASE, "dell.quirkdb" },
  { "dell-inspiron-5100-other-bios", DELL_INSPIRON ("5100", "A05", "0x1002"), NULL,
    "no_fb", PP_QUIRK_SOURCE_DATABASE, "dell.quirkdb" },
  { "dell-inspiron-700m", DELL_INSPIRON ("700m", "A05", "0x8086"), NULL,
    "none", PP_QUIRK_SOURCE_DATABASE, "dell.quirkdb" },
  { "dell-xps-m1330", "sys_vendor=Dell Inc.\nproduct_name=XPS M1330\nvendor=0x10de\ndevice=0x0427", NULL,
    "vbe_post", PP_QUIRK_SOURCE_DRIVER, "G80" },
  { "dell-xps-m1330-intel", "sys_vendor=Dell Inc.\nproduct_name=XPS M1330\nvendor=0x8086\ndevice=0x2a02", NULL,
    "vbe_post vbemode_restore", PP_QUIRK_SOURCE_DATABASE, "dell.quirkdb" },
  { "dell-optiplex-ncase", "sys_vendor=Dell Inc.\nproduct_name=OPTIPLEX FX160", NULL,
    "s3_bios s3_mode", PP_QUIRK_SOURCE_DATABASE, "dell.quirkdb" },
  /* 20-video-quirk-pm-apple.quirkdb */
  { "apple-macbook2-1", "sys_vendor=Apple Inc.\nproduct_name=MacBook2,1\nproduct_version=1.0", NULL,
    NULL, PP_QUIRK_SOURCE_DATABASE, "apple.quirkdb" },
  /* 20-video-quirk-pm-lenovo.quirkdb: product ids */
  { "lenovo-6458", "sys_vendor=LENOVO\nproduct_name=6458ABC", NULL,
    "s3_bios s3_mode", PP_QUIRK_SOURCE_DATABASE, "lenovo.quirkdb:7" },
  /* an HP entry whose "\(" breaks the regex in pm-utils (see backslash
   * test): Presario V3700 gets nothing from it and falls to the default */
  { "compaq-presario-v3700-pm-utils-bug", "sys_vendor=Compaq\nproduct_name=Presario V3700 Notebook PC", NULL,
    "vbe_post dpms_on dpms_suspend vbestate_restore vbemode_restore vga_mode_3", PP_QUIRK_SOURCE_DEFAULT, "default" },
  /* the HP ze2000 entry: "\(EK791EA#" reaches the regex as "(EK791EA#",
   * which does not compile; regex of it is false (no quirk_none) and
   * regex_inverse true, as pm-utils' `! [[ $v =~ $re ]]` */
  { "hp-pavilion-ze2000-regex-inverse-of-bad-regex", "sys_vendor=Hewlett-Packard\nproduct_name=HP Pavilion ze2000 (EK791EA#ABU)", NULL,
    "s3_bios s3_mode", PP_QUIRK_SOURCE_DATABASE, "hp.quirkdb:249" },
  { "compaq-presario-2701ea", "sys_vendor=Compaq\nproduct_name=Presario 2701EA", NULL,
    "vbe_post vbestate_restore no_fb", PP_QUIRK_SOURCE_DATABASE, "hp.quirkdb:39" },
  /* 20-video-quirk-pm-ibm.quirkdb: the IBM CORPORATION entry comes after
   * a stray endmatch (line 114), which ended pm-utils' reading */
  { "ibm-corporation-after-stray-endmatch", "sys_vendor=IBM CORPORATION\nproduct_name=4800723", NULL,
    "vbe_post dpms_on dpms_suspend vbestate_restore vbemode_restore vga_mode_3", PP_QUIRK_SOURCE_DEFAULT, "default" },
  /* no entry: the default set */
  { "unknown-machine-default", "sys_vendor=Nobody\nproduct_name=Nothing 1\nvendor=0x8086\ndevice=0x0046", NULL,
    "vbe_post dpms_on dpms_suspend vbestate_restore vbemode_restore vga_mode_3", PP_QUIRK_SOURCE_DEFAULT, "default" },
  /* driver rules come first, whatever the database says */
  { "kms-no-quirks-no-chvt", DELL_LATITUDE ("D630", "A10") "\nkms=true", NULL,
    "no_chvt", PP_QUIRK_SOURCE_DRIVER, "kernel modesetting driver i915" },
  { "nvidia-binary", DELL_LATITUDE ("D630", "A10") "\nnvidia=1", NULL,
    "none", PP_QUIRK_SOURCE_DRIVER, "nVidia binary driver" },
  /* the binary driver also beats the configuration */
  { "nvidia-beats-config", DELL_LATITUDE ("D630", "A10") "\nnvidia=1", "s3_bios",
    "none", PP_QUIRK_SOURCE_DRIVER, "nVidia binary driver" },
  { "fglrx", DELL_LATITUDE ("D630", "A10") "\nfglrx=1", NULL,
    "none", PP_QUIRK_SOURCE_DRIVER, "fglrx" },
  { "nvidia-g80-0x191", "sys_vendor=Dell Inc.\nproduct_name=Latitude D630\nvendor=0x10de\ndevice=0x191", NULL,
    "vbe_post", PP_QUIRK_SOURCE_DRIVER, "G80" },
  { "nvidia-not-g80", "sys_vendor=Nobody\nvendor=0x10de\ndevice=0x0a6c", NULL,
    "vbe_post dpms_on dpms_suspend vbestate_restore vbemode_restore vga_mode_3", PP_QUIRK_SOURCE_DEFAULT, "default" },
  { "kms-beats-config", DELL_LATITUDE ("D630", "A10") "\nkms=true", "s3_bios",
    "no_chvt", PP_QUIRK_SOURCE_DRIVER, "kernel modesetting" },
  /* the configuration overrides the database */
  { "config-list", DELL_LATITUDE ("D630", "A10"), "s3_bios,pci-save,dpms_on",
    "s3_bios save_pci dpms_on", PP_QUIRK_SOURCE_CONFIG, "VideoQuirks" },
  { "config-none", DELL_LATITUDE ("D630", "A10"), "none",
    "none", PP_QUIRK_SOURCE_CONFIG, "VideoQuirks" },
  { "config-unknown-dropped", DELL_LATITUDE ("D630", "A10"), "warp,s3_mode",
    "s3_mode", PP_QUIRK_SOURCE_CONFIG, "VideoQuirks" },
};

static PpQuirkDb *
load_shipped_database (void)
{
  g_autoptr(GDir) dir = g_dir_open (PP_TEST_VIDEO_QUIRKS_DIR, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  PpQuirkDb *db = pp_quirkdb_new ();
  const char *name;

  assert_non_null (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".quirkdb"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, pp_compare_strings);
  assert_int_equal (names->len, 12);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (PP_TEST_VIDEO_QUIRKS_DIR, g_ptr_array_index (names, i), NULL);
      g_autofree char *text = NULL;
      gsize len;

      assert_true (g_file_get_contents (path, &text, &len, NULL));
      pp_quirkdb_add_file (db, g_ptr_array_index (names, i), text, len, problems);
    }
  return db;
}

static void
test_select (void **state)
{
  const SelectRow *row = *state;
  g_autoptr(PpQuirkDb) db = load_shipped_database ();
  g_autoptr(PpQuirkSelection) sel = NULL;
  g_auto(GStrv) config = row->config ? g_strsplit (row->config, ",", -1) : NULL;
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autofree char *got = NULL;
  PpMachineFacts f;

  facts_from (&f, row->machine);
  sel = pp_quirkdb_select (db, &f, (const char * const *) config, NULL, problems);
  got = joined (sel);
  if (row->expected != NULL)
    assert_string_equal (got, row->expected);
  assert_int_equal (sel->source, row->source);
  if (sel->reasons->len > 0)
    {
      const char *detail = ((PpQuirkReason *) g_ptr_array_index (sel->reasons, 0))->detail;
      if (strstr (detail, row->detail) == NULL && strstr (sel->summary, row->detail) == NULL)
        fail_msg ("detail '%s' / summary '%s' lacks '%s'", detail, sel->summary, row->detail);
    }
  else
    assert_non_null (strstr (sel->summary, row->detail));
  assert_int_equal (problems->len, g_str_equal (row->name, "config-unknown-dropped") ? 1 : 0);
  pp_machine_facts_clear (&f);
}

/* An entry four levels deep whose regexes carry "\." escapes. */
static void
test_apple_entry (void **state)
{
  g_autoptr(PpQuirkDb) db = load_shipped_database ();
  g_autoptr(PpQuirkSelection) sel = NULL;
  g_autofree char *got = NULL;
  PpMachineFacts f;

  facts_from (&f, "sys_vendor=Apple Inc.\nproduct_name=MacBook2,1\nproduct_version=1.0");
  sel = pp_quirkdb_select (db, &f, NULL, NULL, NULL);
  got = joined (sel);
  /* 20-video-quirk-pm-apple.quirkdb lines 2-7: ^Apple Inc\. and ^1\.0$ */
  assert_string_equal (got, "none");
  assert_int_equal (sel->source, PP_QUIRK_SOURCE_DATABASE);
  pp_machine_facts_clear (&f);
}

static void
test_shipped_database_problems (void **state)
{
  g_autoptr(PpQuirkDb) db = pp_quirkdb_new ();
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autofree char *text = NULL;
  g_autofree char *path = g_build_filename (PP_TEST_VIDEO_QUIRKS_DIR, "20-video-quirk-pm-hp.quirkdb", NULL);
  g_autofree char *hp = NULL;
  gsize len;

  assert_true (g_file_get_contents (path, &hp, &len, NULL));
  pp_quirkdb_add_file (db, "hp", hp, len, problems);
  text = problems_text (problems);
  /* the three entries with "\(" that pm-utils' read turned into bad EREs */
  assert_non_null (strstr (text, "hp:43: regular expression 'V3000 (EZ674UA#|V3700 Notebook PC' does not compile"));
  assert_non_null (strstr (text, "hp:54: "));
  assert_non_null (strstr (text, "hp:73: "));
  /* line 10: "regex" and blanks, an empty regex */
  assert_non_null (strstr (text, "hp:10: 'match' without a VALUE"));
}

/* ---- last known working ----------------------------------------------- */

static void
test_lkw (void **state)
{
  g_autoptr(PpQuirkDb) db = load_shipped_database ();
  g_autoptr(PpQuirkSelection) first = NULL;
  g_autoptr(PpQuirkSelection) second = NULL;
  g_autoptr(PpQuirkSelection) other_kernel = NULL;
  g_autoptr(PpQuirkSelection) config_wins = NULL;
  g_autofree const char **names = NULL;
  g_autofree char *data = NULL;
  g_autofree char *got = NULL;
  const char * const cfg[] = { "s3_mode", NULL };
  PpQuirkLkw lkw = { { 0 }, NULL };
  PpMachineFacts f;

  facts_from (&f, DELL_LATITUDE ("D630", "A10"));
  first = pp_quirkdb_select (db, &f, NULL, NULL, NULL);
  names = pp_quirk_selection_names (first);

  /* saved as if the quirks had been vbe_post only */
  {
    const char * const saved[] = { "vbe_post", NULL };
    data = pp_quirk_lkw_to_data (&f, saved);
  }
  assert_true (pp_quirk_lkw_from_data (&lkw, data, NULL));
  assert_true (pp_quirk_lkw_matches (&lkw, &f));
  second = pp_quirkdb_select (db, &f, NULL, &lkw, NULL);
  got = joined (second);
  assert_string_equal (got, "vbe_post");
  assert_int_equal (second->source, PP_QUIRK_SOURCE_LAST_KNOWN_WORKING);

  /* another kernel: the record does not apply, the database does */
  g_free (f.kernel_version);
  f.kernel_version = g_strdup ("6.1.0");
  assert_false (pp_quirk_lkw_matches (&lkw, &f));
  other_kernel = pp_quirkdb_select (db, &f, NULL, &lkw, NULL);
  assert_int_equal (other_kernel->source, PP_QUIRK_SOURCE_DATABASE);

  /* the configuration comes before the record */
  config_wins = pp_quirkdb_select (db, &f, cfg, &lkw, NULL);
  assert_int_equal (config_wins->source, PP_QUIRK_SOURCE_CONFIG);

  /* a corrupt record is an error, not a crash */
  assert_false (pp_quirk_lkw_from_data (&lkw, "garbage[", NULL));

  pp_quirk_lkw_clear (&lkw);
  pp_machine_facts_clear (&f);
  (void) names;
}

static void
test_flags_and_names (void **state)
{
  const char * const a[] = { "s3_bios", "vbe_post", NULL };
  const char * const b[] = { "s3_mode", NULL };
  const char * const c[] = { "s3_mode", "s3_bios", NULL };
  const char * const d[] = { "vbe_post", NULL };

  assert_int_equal (pp_quirks_acpi_video_flags (a), 1);
  assert_int_equal (pp_quirks_acpi_video_flags (b), 2);
  assert_int_equal (pp_quirks_acpi_video_flags (c), 3);
  assert_int_equal (pp_quirks_acpi_video_flags (d), 0);
  assert_string_equal (pp_quirk_canonical_name ("pci-save"), "save_pci");
  assert_string_equal (pp_quirk_canonical_name ("vbe-post"), "vbe_post");
  assert_string_equal (pp_quirk_canonical_name ("no_chvt"), "no_chvt");
  assert_null (pp_quirk_canonical_name ("warp"));
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (guint i = 0; i < G_N_ELEMENTS (match_rows); i++)
    pp_test_list_add (list, "match", match_rows[i].name, test_match, NULL, NULL, &match_rows[i]);
  for (guint i = 0; i < G_N_ELEMENTS (bad_rows); i++)
    pp_test_list_add (list, "malformed", bad_rows[i].name, test_bad, NULL, NULL, &bad_rows[i]);
  pp_test_list_add (list, "malformed", "unknown-quirk-reported-once", test_unknown_quirk_reported_once, NULL, NULL, NULL);
  pp_test_list_add (list, "select", "first-matching-file-wins", test_first_matching_file_wins, NULL, NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (select_rows); i++)
    if (select_rows[i].expected != NULL)
      pp_test_list_add (list, "select", select_rows[i].name, test_select, NULL, NULL, &select_rows[i]);
  pp_test_list_add (list, "select", "apple-macbook2-1", test_apple_entry, NULL, NULL, NULL);
  pp_test_list_add (list, "select", "shipped-database-problems", test_shipped_database_problems, NULL, NULL, NULL);
  pp_test_list_add (list, "select", "last-known-working", test_lkw, NULL, NULL, NULL);
  pp_test_list_add (list, "names", "flags-and-aliases", test_flags_and_names, NULL, NULL, NULL);
  return pp_test_list_run (list, "quirkdb");
}
