/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the pure helpers of pp-util.h that the policy library
 * links (pp-util-pure.c): escaping of caller text, sorted hash-table
 * keys. Links nothing but the policy library. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-util.h"

typedef struct {
  const char *name;
  const char *input;
  gsize       max;
  const char *expected;
} EscapeRow;

#define ELLIPSIS "\xe2\x80\xa6"

static const EscapeRow escape_rows[] = {
  { "plain",            "usb 1-2",                0,  "usb 1-2" },
  { "empty",            "",                       0,  "" },
  { "newline",          "a\nb",                   0,  "a\\nb" },
  { "forged line",      "ok\nMESSAGE_ID=x",       0,  "ok\\nMESSAGE_ID=x" },
  { "carriage return",  "a\rb",                   0,  "a\\rb" },
  { "tab",              "a\tb",                   0,  "a\\tb" },
  { "escape char",      "\x1b[31mred",            0,  "\\x1b[31mred" },
  { "bell and DEL",     "\a\x7f",                 0,  "\\x07\\x7f" },
  { "C0 range end",     "\x1f",                   0,  "\\x1f" },
  { "space kept",       " ",                      0,  " " },
  { "backslash kept",   "a\\nb",                  0,  "a\\nb" },
  { "UTF-8 kept",       "Gr\xc3\xbc\xc3\x9f""e \xe2\x82\xac",   0, "Gr\xc3\xbc\xc3\x9f""e \xe2\x82\xac" },
  { "4-byte UTF-8",     "\xf0\x9f\x94\x8b",       0,  "\xf0\x9f\x94\x8b" },
  { "invalid byte",     "a\xff""b",               0,  "a\\xffb" },
  { "lone continuation", "\x80",                  0,  "\\x80" },
  { "truncated seq",    "a\xe2\x82",              0,  "a\\xe2\\x82" },
  { "overlong",         "\xc0\xaf",               0,  "\\xc0\\xaf" },
  { "C1 control",       "\xc2\x9b""31m",          0,  "\\xc2\\x9b31m" },
  { "NBSP kept",        "\xc2\xa0",               0,  "\xc2\xa0" },
  { "fits exactly",     "abcdef",                 6,  "abcdef" },
  { "cut",              "abcdefg",                6,  "abc" ELLIPSIS },
  { "cut at escape",    "ab\ncdefgh",             7,  "ab\\n" ELLIPSIS },
  { "escape not split", "abc\ndefgh",             7,  "abc" ELLIPSIS },
  { "hex not split",    "a\x01zzzzzz",            7,  "a" ELLIPSIS },
  { "UTF-8 not split",  "ab\xe2\x82\xac""cdef",   7,  "ab" ELLIPSIS },
  { "tiny max",         "abcdef",                 1,  ELLIPSIS },
  { "max 3 exact",      "abc",                    3,  "abc" },
  /* rows once asserted of the byte-wise escaper in test-quirkdb.c, now
   * with this function's output: quotes and backslashes are kept */
  { "quotes kept",      "and \"quotes\" \\",      0,  "and \"quotes\" \\" },
  { "all controls",     "two\nlines\r\t\x01\x1b[31m\x7f", 0,
                        "two\\nlines\\r\\t\\x01\\x1b[31m\\x7f" },
  { "accented word",    "caf\xc3\xa9",            0,  "caf\xc3\xa9" },
};

static void
test_escape (void **state)
{
  const EscapeRow *row = *state;
  g_autofree char *escaped = pp_escape_text (row->input, row->max);
  g_autofree char *again = pp_escape_text (escaped, 0);

  assert_string_equal (escaped, row->expected);
  if (row->max != 0)
    assert_true (strlen (escaped) <= MAX (row->max, 3));
  assert_true (g_utf8_validate (escaped, -1, NULL));
  /* idempotent: escaping the escaped text changes nothing */
  assert_string_equal (again, escaped);
}

static void
test_escape_null (void **state)
{
  g_autofree char *escaped = pp_escape_text (NULL, 10);

  (void) state;
  assert_string_equal (escaped, "");
}

/* Every byte value alone: the result is printable and one line. */
static void
test_escape_every_byte (void **state)
{
  (void) state;
  for (guint b = 1; b < 256; b++)
    {
      char input[2] = { (char) b, '\0' };
      g_autofree char *escaped = pp_escape_text (input, 0);

      for (const char *p = escaped; *p; p++)
        assert_false ((guchar) *p < 0x20 || (guchar) *p == 0x7f);
      assert_true (g_utf8_validate (escaped, -1, NULL));
    }
}

/* With a length: NUL bytes are text like any control character. */
static void
test_escape_len (void **state)
{
  g_autofree char *nul = pp_escape_text_len ("x\0y\n", 4, 0);
  g_autofree char *cut = pp_escape_text_len ("ab\0cdefg", 8, 7);

  (void) state;
  assert_string_equal (nul, "x\\x00y\\n");
  assert_string_equal (cut, "ab" ELLIPSIS);
}

/* ---- sorted keys ---- */

static void
test_sorted_keys (void **state)
{
  g_autoptr(GHashTable) table = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) empty = pp_hash_table_sorted_keys (table);
  g_autoptr(GPtrArray) keys = NULL;
  const char * const in[] = { "pci", "usb", "Zebra", "ata", "usb2", "" };
  const char * const sorted[] = { "", "Zebra", "ata", "pci", "usb", "usb2" };

  (void) state;
  assert_int_equal (empty->len, 0);
  for (guint i = 0; i < G_N_ELEMENTS (in); i++)
    g_hash_table_add (table, (gpointer) in[i]);
  keys = pp_hash_table_sorted_keys (table);
  assert_int_equal (keys->len, G_N_ELEMENTS (sorted));
  for (guint i = 0; i < keys->len; i++)
    assert_string_equal (g_ptr_array_index (keys, i), sorted[i]);
  /* borrowed: the very keys of the table */
  assert_ptr_equal (g_ptr_array_index (keys, 1), in[2]);
}

/* ---- string sets ---- */

static void
test_str_set (void **state)
{
  PpStrSet *a = NULL;
  PpStrSet *b = NULL;
  g_autofree char *name = g_strdup ("power/control");
  g_autoptr(GHashTable) table = NULL;

  (void) state;
  /* NULL is the empty set */
  assert_int_equal (pp_str_set_size (NULL), 0);
  assert_false (pp_str_set_contains (NULL, "power/control"));
  table = pp_str_set_to_hash_table (NULL);
  assert_int_equal (g_hash_table_size (table), 0);
  g_clear_pointer (&table, g_hash_table_unref);

  a = pp_str_set_add (a, name);
  a = pp_str_set_add (a, "power/wakeup");
  a = pp_str_set_add (a, "power/control");   /* already in it */
  assert_int_equal (pp_str_set_size (a), 2);
  assert_string_equal (pp_str_set_index (a, 0), "power/control");
  assert_string_equal (pp_str_set_index (a, 1), "power/wakeup");
  /* a copy: the caller's string may change */
  memset (name, 'x', strlen (name));
  assert_true (pp_str_set_contains (a, "power/control"));
  assert_false (pp_str_set_contains (a, name));
  assert_false (pp_str_set_contains (a, "power"));

  /* the same value in two sets is one copy */
  b = pp_str_set_add (b, "power/wakeup");
  assert_ptr_equal (pp_str_set_index (b, 0), pp_str_set_index (a, 1));

  table = pp_str_set_to_hash_table (a);
  assert_int_equal (g_hash_table_size (table), 2);
  assert_true (g_hash_table_contains (table, "power/control"));
  assert_true (g_hash_table_contains (table, "power/wakeup"));
  g_clear_pointer (&table, g_hash_table_unref);

  /* freeing one set leaves the other's values */
  pp_str_set_free (a);
  assert_string_equal (pp_str_set_index (b, 0), "power/wakeup");
  pp_str_set_free (b);
  pp_str_set_free (NULL);
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (guint i = 0; i < G_N_ELEMENTS (escape_rows); i++)
    pp_test_list_add (list, "escape", escape_rows[i].name, test_escape, NULL, NULL,
                      &escape_rows[i]);
  pp_test_list_add (list, "escape", "NULL", test_escape_null, NULL, NULL, NULL);
  pp_test_list_add (list, "escape", "every byte", test_escape_every_byte, NULL, NULL, NULL);
  pp_test_list_add (list, "escape", "with length", test_escape_len, NULL, NULL, NULL);
  pp_test_list_add (list, "keys", "sorted", test_sorted_keys, NULL, NULL, NULL);
  pp_test_list_add (list, "str-set", "add, look up, share, free", test_str_set, NULL, NULL, NULL);
  return pp_test_list_run (list, "util");
}
