/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The quirkdb format and selection of pm-utils 1.4.1's
 * 98video-quirk-db-handler, reproduced on purpose where pm-utils is odd:
 *  - a line is read as bash's `read action key matcher regex` reads it:
 *    split on blanks into three words and the rest, backslashes removed
 *    (so "\(" reaches the regex as "(": such an entry never matched in
 *    pm-utils and does not here either; it is reported);
 *  - `regex` is bash's `[[ $v =~ ${re//;/|} ]]` (POSIX ERE, unanchored),
 *    `compare_eq`/`compare_ne` are bash pattern matches (globs),
 *    `compare_gt`/`lt` byte order (pm-utils runs with LC_COLLATE=C),
 *    `numeric_*` are bash arithmetic on decimal, 0x hex or 0-octal;
 *  - a file "yields a match" when any addquirk/delquirk under matching
 *    blocks ran; every such entry of that file contributes, and the first
 *    file that yields a match wins;
 *  - have_smart_intel() is not reproduced: in 1.4.1 it reads the never-set
 *    $system_kernel_revision and so never applies. */
#include "config.h"

#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "pp-config.h"
#include "pp-quirkdb.h"
#include "pp-util.h"

const char * const pp_quirkdb_keys[] = {
  "system.firmware.version",
  "system.firmware.vendor",
  "system.firmware.release_date",
  "system.hardware.vendor",
  "system.hardware.product",
  "system.hardware.version",
  "system.board.product",
  "system.board.version",
  "system.board.vendor",
  "system.hardware.primary_video.vendor",
  "system.hardware.primary_video.product",
  "system.hardware.primary_video.driver",
  "system.hardware.primary_video.using_kms",
  "system.kernel.version",
  NULL,
};

static const char * const known_quirks[] = {
  "s3_bios", "s3_mode", "dpms_on", "dpms_suspend", "vbe_post",
  "vbestate_restore", "vbemode_restore", "vga_mode_3", "radeon_off",
  "reset_brightness", "save_pci", "no_fb", "no_chvt", "none", NULL,
};

/* pm-utils' default set when no entry matched. */
static const char * const default_quirks[] = {
  "vbe_post", "dpms_on", "dpms_suspend", "vbestate_restore",
  "vbemode_restore", "vga_mode_3", NULL,
};

/* have_nvidia_g80(): vendor 0x10de and one of these products. */
static const guint nvidia_g80_products[] = {
  0x190, 0x191, 0x192, 0x193, 0x194, 0x195, 0x196, 0x197, 0x198, 0x199,
  0x19a, 0x19b, 0x19c, 0x19d, 0x19e, 0x19f,
  0x400, 0x401, 0x402, 0x403, 0x404, 0x405, 0x406, 0x407, 0x408, 0x409,
  0x40a, 0x40b, 0x40c, 0x40d, 0x40e, 0x40f,
  0x420, 0x421, 0x422, 0x423, 0x424, 0x425, 0x426, 0x427, 0x428, 0x429,
  0x42a, 0x42b, 0x42c, 0x42d, 0x42e, 0x42f,
};

/* ---- facts ------------------------------------------------------------ */

void
pp_machine_facts_init (PpMachineFacts *facts)
{
  memset (facts, 0, sizeof *facts);
  facts->firmware_vendor = g_strdup ("");
  facts->firmware_version = g_strdup ("");
  facts->firmware_release_date = g_strdup ("");
  facts->hardware_vendor = g_strdup ("");
  facts->hardware_product = g_strdup ("");
  facts->hardware_version = g_strdup ("");
  facts->board_vendor = g_strdup ("");
  facts->board_product = g_strdup ("");
  facts->board_version = g_strdup ("");
  facts->video_vendor = g_strdup ("");
  facts->video_product = g_strdup ("");
  facts->video_driver = g_strdup ("");
  facts->kernel_version = g_strdup ("");
}

void
pp_machine_facts_clear (PpMachineFacts *facts)
{
  g_free (facts->firmware_vendor);
  g_free (facts->firmware_version);
  g_free (facts->firmware_release_date);
  g_free (facts->hardware_vendor);
  g_free (facts->hardware_product);
  g_free (facts->hardware_version);
  g_free (facts->board_vendor);
  g_free (facts->board_product);
  g_free (facts->board_version);
  g_free (facts->video_vendor);
  g_free (facts->video_product);
  g_free (facts->video_driver);
  g_free (facts->kernel_version);
  memset (facts, 0, sizeof *facts);
}

static char **
facts_field (PpMachineFacts *facts, const char *key)
{
  static const struct { const char *key; gsize offset; } fields[] = {
    { "system.firmware.vendor", G_STRUCT_OFFSET (PpMachineFacts, firmware_vendor) },
    { "system.firmware.version", G_STRUCT_OFFSET (PpMachineFacts, firmware_version) },
    { "system.firmware.release_date", G_STRUCT_OFFSET (PpMachineFacts, firmware_release_date) },
    { "system.hardware.vendor", G_STRUCT_OFFSET (PpMachineFacts, hardware_vendor) },
    { "system.hardware.product", G_STRUCT_OFFSET (PpMachineFacts, hardware_product) },
    { "system.hardware.version", G_STRUCT_OFFSET (PpMachineFacts, hardware_version) },
    { "system.board.vendor", G_STRUCT_OFFSET (PpMachineFacts, board_vendor) },
    { "system.board.product", G_STRUCT_OFFSET (PpMachineFacts, board_product) },
    { "system.board.version", G_STRUCT_OFFSET (PpMachineFacts, board_version) },
    { "system.hardware.primary_video.vendor", G_STRUCT_OFFSET (PpMachineFacts, video_vendor) },
    { "system.hardware.primary_video.product", G_STRUCT_OFFSET (PpMachineFacts, video_product) },
    { "system.hardware.primary_video.driver", G_STRUCT_OFFSET (PpMachineFacts, video_driver) },
    { "system.kernel.version", G_STRUCT_OFFSET (PpMachineFacts, kernel_version) },
  };

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    if (g_str_equal (fields[i].key, key))
      return G_STRUCT_MEMBER_P (facts, fields[i].offset);
  return NULL;
}

static gboolean
key_is_known (const char *key)
{
  return g_strv_contains ((const char * const *) pp_quirkdb_keys, key);
}

char *
pp_machine_facts_get (const PpMachineFacts *facts, const char *key)
{
  char **field;

  if (g_strcmp0 (key, "system.hardware.primary_video.using_kms") == 0)
    return g_strdup (facts->video_using_kms ? "true" : "false");
  field = facts_field ((PpMachineFacts *) facts, key);
  if (field == NULL)
    return NULL;
  return g_strdup (*field ? *field : "");
}

/* ---- names ------------------------------------------------------------ */

const char *
pp_quirk_canonical_name (const char *name)
{
  g_autofree char *n = g_strdelimit (g_strdup (name), "-", '_');

  if (g_str_equal (n, "pci_save"))
    return "save_pci";
  for (guint i = 0; known_quirks[i]; i++)
    if (g_str_equal (known_quirks[i], n))
      return known_quirks[i];
  return NULL;
}

guint
pp_quirks_acpi_video_flags (const char * const *quirks)
{
  guint flags = 0;

  for (guint i = 0; quirks && quirks[i]; i++)
    {
      if (g_str_equal (quirks[i], "s3_bios"))
        flags |= 1;
      else if (g_str_equal (quirks[i], "s3_mode"))
        flags |= 2;
    }
  return flags;
}

const char *
pp_quirk_source_to_string (PpQuirkSource source)
{
  switch (source)
    {
    case PP_QUIRK_SOURCE_DRIVER:
      return "driver";
    case PP_QUIRK_SOURCE_CONFIG:
      return "config";
    case PP_QUIRK_SOURCE_LAST_KNOWN_WORKING:
      return "last-known-working";
    case PP_QUIRK_SOURCE_DATABASE:
      return "database";
    case PP_QUIRK_SOURCE_DEFAULT:
      return "default";
    default:
      return "unknown";
    }
}

/* ---- selections ------------------------------------------------------- */

static void
reason_free (PpQuirkReason *r)
{
  g_free (r->quirk);
  g_free (r->detail);
  g_free (r);
}

static PpQuirkSelection *
selection_new (PpQuirkSource source)
{
  PpQuirkSelection *sel = g_new0 (PpQuirkSelection, 1);

  sel->source = source;
  sel->quirks = g_ptr_array_new_with_free_func (g_free);
  sel->reasons = g_ptr_array_new_with_free_func ((GDestroyNotify) reason_free);
  return sel;
}

void
pp_quirk_selection_free (PpQuirkSelection *sel)
{
  if (sel == NULL)
    return;
  g_ptr_array_unref (sel->quirks);
  g_ptr_array_unref (sel->reasons);
  g_free (sel->summary);
  g_free (sel);
}

const char **
pp_quirk_selection_names (const PpQuirkSelection *sel)
{
  const char **names = g_new0 (const char *, sel->quirks->len + 1);

  for (guint i = 0; i < sel->quirks->len; i++)
    names[i] = g_ptr_array_index (sel->quirks, i);
  return names;
}

static gint
selection_index (PpQuirkSelection *sel, const char *quirk)
{
  for (guint i = 0; i < sel->quirks->len; i++)
    if (g_str_equal (g_ptr_array_index (sel->quirks, i), quirk))
      return (gint) i;
  return -1;
}

static void
selection_add (PpQuirkSelection *sel, const char *quirk, const char *detail)
{
  PpQuirkReason *r;

  if (selection_index (sel, quirk) >= 0)
    return;
  r = g_new0 (PpQuirkReason, 1);
  r->quirk = g_strdup (quirk);
  r->detail = g_strdup (detail);
  g_ptr_array_add (sel->quirks, g_strdup (quirk));
  g_ptr_array_add (sel->reasons, r);
}

static void
selection_remove (PpQuirkSelection *sel, const char *quirk)
{
  gint i = selection_index (sel, quirk);

  if (i < 0)
    return;
  g_ptr_array_remove_index (sel->quirks, (guint) i);
  g_ptr_array_remove_index (sel->reasons, (guint) i);
}

/* ---- the parsed database ---------------------------------------------- */

typedef enum {
  MATCHER_REGEX,
  MATCHER_REGEX_NCASE,
  MATCHER_REGEX_INVERSE,
  MATCHER_COMPARE_EQ,
  MATCHER_COMPARE_NE,
  MATCHER_COMPARE_GT,
  MATCHER_COMPARE_GE,
  MATCHER_COMPARE_LT,
  MATCHER_COMPARE_LE,
  MATCHER_NUMERIC_EQ,
  MATCHER_NUMERIC_NE,
  MATCHER_NUMERIC_GT,
  MATCHER_NUMERIC_GE,
  MATCHER_NUMERIC_LT,
  MATCHER_NUMERIC_LE,
  MATCHER_NUMERIC_EQ_LIST,
  MATCHER_INVALID,      /* a malformed match line: its block never matches */
} Matcher;

static const char * const matcher_names[] = {
  "regex", "regex_ncase", "regex_inverse",
  "compare_eq", "compare_ne", "compare_gt", "compare_ge", "compare_lt", "compare_le",
  "numeric_compare_eq", "numeric_compare_ne", "numeric_compare_gt",
  "numeric_compare_ge", "numeric_compare_lt", "numeric_compare_le",
  "numeric_compare_eq_list",
};

typedef enum {
  NODE_MATCH,
  NODE_ADDQUIRK,
  NODE_DELQUIRK,
} NodeKind;

typedef struct Node Node;
struct Node {
  NodeKind    kind;
  guint       line;
  /* match */
  char       *key;
  Matcher     matcher;
  char       *value;
  regex_t     re;
  gboolean    re_valid;
  GPtrArray  *children;     /* of Node* */
  /* addquirk / delquirk: NULL for an unknown name (counts, does nothing) */
  const char *quirk;
};

typedef struct {
  char      *file_name;
  GPtrArray *nodes;         /* top level, of Node* */
} QuirkFile;

struct _PpQuirkDb {
  GPtrArray  *files;        /* of QuirkFile* */
  GHashTable *reported;     /* unknown quirk names already reported */
};

static void
node_free (Node *node)
{
  g_free (node->key);
  g_free (node->value);
  if (node->re_valid)
    regfree (&node->re);
  if (node->children)
    g_ptr_array_unref (node->children);
  g_free (node);
}

static void
quirk_file_free (QuirkFile *f)
{
  g_free (f->file_name);
  g_ptr_array_unref (f->nodes);
  g_free (f);
}

PpQuirkDb *
pp_quirkdb_new (void)
{
  PpQuirkDb *db = g_new0 (PpQuirkDb, 1);

  db->files = g_ptr_array_new_with_free_func ((GDestroyNotify) quirk_file_free);
  db->reported = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return db;
}

void
pp_quirkdb_free (PpQuirkDb *db)
{
  if (db == NULL)
    return;
  g_ptr_array_unref (db->files);
  g_hash_table_unref (db->reported);
  g_free (db);
}

guint
pp_quirkdb_get_n_files (const PpQuirkDb *db)
{
  return db->files->len;
}

/* bash `read a b c rest` (no -r): three blank-separated words and the
 * remainder, with backslash escapes removed and outer blanks trimmed. */
static void
split_like_read (const char *line, char *words[4])
{
  GString *cur = g_string_new (NULL);
  guint n = 0;
  const char *p = line;
  gsize trailing_mark = 0;   /* length of the rest up to its last unescaped non-blank */

  for (guint i = 0; i < 4; i++)
    words[i] = NULL;

  while (*p == ' ' || *p == '\t')
    p++;
  while (*p != '\0')
    {
      gboolean escaped = FALSE;
      gsize run = strcspn (p, "\\ \t");
      char c;

      if (run > 0)
        {
          /* a run of plain characters, appended at once */
          g_string_append_len (cur, p, (gssize) run);
          trailing_mark = cur->len;
          p += run;
          continue;
        }
      c = *p++;
      if (c == '\\')
        {
          if (*p == '\0')
            break;
          c = *p++;
          escaped = TRUE;
        }
      if (n < 3 && !escaped && (c == ' ' || c == '\t'))
        {
          words[n++] = g_string_free (cur, FALSE);
          cur = g_string_new (NULL);
          while (*p == ' ' || *p == '\t')
            p++;
          continue;
        }
      g_string_append_c (cur, c);
      if (escaped || (c != ' ' && c != '\t'))
        trailing_mark = cur->len;
    }
  if (n == 3)
    g_string_truncate (cur, trailing_mark);
  if (cur->len > 0 || n == 3)
    words[n++] = g_string_free (cur, FALSE);
  else
    g_string_free (cur, TRUE);
  if (n == 4 && words[3][0] == '\0')
    g_clear_pointer (&words[3], g_free);
}

static Matcher
matcher_from_string (const char *s)
{
  for (guint i = 0; i < G_N_ELEMENTS (matcher_names); i++)
    if (g_str_equal (matcher_names[i], s))
      return (Matcher) i;
  return MATCHER_INVALID;
}

static void
parse_quirk_directive (PpQuirkDb *db, Node *node, const char *file, guint line,
                       const char *directive, const char *arg, GPtrArray *problems)
{
  const char *name;

  if (arg == NULL || !g_str_has_prefix (arg, "--quirk-") || arg[8] == '\0')
    {
      pp_config_problem_add (problems, file, line, "'%s' needs an argument --quirk-NAME", directive);
      node->quirk = NULL;
      return;
    }
  name = pp_quirk_canonical_name (arg + 8);
  if (name == NULL && !g_hash_table_contains (db->reported, arg + 8))
    {
      g_hash_table_add (db->reported, g_strdup (arg + 8));
      pp_config_problem_add (problems, file, line, "unknown quirk '%s', ignoring it", arg + 8);
    }
  node->quirk = name;
}

/* Bounds on the patterns of a quirk file, so that no entry can make
 * start-up or Reload slow (glibc compiles stacked repetitions such as
 * "2+++…" and nested intervals in exponential time and memory, and
 * back-references match in exponential time). The shipped database uses
 * none of what is refused: its longest regex is 465 bytes, with no
 * repetition operator at all. */
#define QUIRK_REGEX_MAX          1024   /* bytes */
#define QUIRK_REGEX_REPEAT_MAX   16     /* * + ? {} in one regex */
#define QUIRK_REGEX_INTERVAL_MAX 2      /* {m,n} in one regex */
#define QUIRK_REGEX_BOUND_MAX    16     /* m and n of {m,n} */
#define QUIRK_GLOB_MAX           256    /* bytes */
#define QUIRK_GLOB_WILDCARDS_MAX 8      /* * ? [ in one glob (no extglob group) */
#define QUIRK_SHOWN_MAX          80     /* bytes of a refused pattern quoted */

/* An ERE interval "{m}", "{m,}", "{m,n}" or "{,n}" at @p (on '{'): TRUE and
 * *@end on its '}' with both bounds within QUIRK_REGEX_BOUND_MAX; FALSE when
 * a bound is larger. Not an interval (no digits): TRUE, *@end = @p. */
static gboolean
regex_interval (const char *p, const char **end)
{
  const char *q = p + 1;

  *end = p;
  if (!g_ascii_isdigit (*q) && *q != ',')
    return TRUE;
  while (g_ascii_isdigit (*q) || *q == ',')
    {
      if (g_ascii_isdigit (*q))
        {
          guint64 n = 0;

          while (g_ascii_isdigit (*q))
            {
              n = n * 10 + (guint64) (*q - '0');
              if (n > QUIRK_REGEX_BOUND_MAX)
                return FALSE;
              q++;
            }
        }
      else
        q++;
    }
  if (*q == '}')
    *end = q;
  return TRUE;
}

/* The end of the bracket expression starting at @p ('['): its ']', or the
 * end of the string when it is not closed (regcomp then refuses it). */
static const char *
regex_bracket_end (const char *p)
{
  const char *q = p + 1;

  if (*q == '^')
    q++;
  if (*q == ']')
    q++;
  while (*q != '\0' && *q != ']')
    {
      if (*q == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '='))
        {
          char kind = q[1];

          for (q += 2; *q != '\0' && !(q[0] == kind && q[1] == ']'); q++)
            ;
          if (*q != '\0')
            q += 2;
          continue;
        }
      q++;
    }
  return *q == ']' ? q : q - 1;
}

/* NULL when the ERE @re is within the bounds above, else why it is not. */
static char *
regex_over_budget (const char *re)
{
  guint n_repeat = 0, n_interval = 0;
  gboolean after_repeat = FALSE;

  if (strlen (re) > QUIRK_REGEX_MAX)
    return g_strdup_printf ("longer than %d bytes", QUIRK_REGEX_MAX);
  for (const char *p = re; *p != '\0'; p++)
    {
      const char *end = p;

      if (*p == '\\')
        {
          if (p[1] >= '1' && p[1] <= '9')
            return g_strdup ("back-references are not allowed");
          if (p[1] != '\0')
            p++;
          after_repeat = FALSE;
          continue;
        }
      if (*p == '[')
        {
          p = regex_bracket_end (p);
          after_repeat = FALSE;
          continue;
        }
      if (*p == '{' && !regex_interval (p, &end))
        return g_strdup_printf ("a repetition count above %d", QUIRK_REGEX_BOUND_MAX);
      if (*p == '*' || *p == '+' || *p == '?' || end != p)
        {
          if (after_repeat)
            return g_strdup ("a repetition of a repetition");
          if (end != p && ++n_interval > QUIRK_REGEX_INTERVAL_MAX)
            return g_strdup_printf ("more than %d {m,n} repetitions", QUIRK_REGEX_INTERVAL_MAX);
          if (++n_repeat > QUIRK_REGEX_REPEAT_MAX)
            return g_strdup_printf ("more than %d repetition operators", QUIRK_REGEX_REPEAT_MAX);
          after_repeat = TRUE;
          p = end;
          continue;
        }
      after_repeat = FALSE;
    }
  return NULL;
}

/* NULL when the bash pattern @glob is within the bounds above. */
static char *
glob_over_budget (const char *glob)
{
  guint n = 0;

  if (strlen (glob) > QUIRK_GLOB_MAX)
    return g_strdup_printf ("longer than %d bytes", QUIRK_GLOB_MAX);
  for (const char *p = glob; *p != '\0'; p++)
    {
      if (*p == '\\' && p[1] != '\0')
        p++;
      else if (strchr ("?*+@!", *p) != NULL && p[1] == '(')
        /* glibc matches these in exponential time ("+(a|aa)+(a|aa)b" takes
         * a second on 25 characters); no shipped entry uses one */
        return g_strdup_printf ("the extended pattern '%c(' is not allowed", *p);
      else if ((*p == '*' || *p == '?' || *p == '[') && ++n > QUIRK_GLOB_WILDCARDS_MAX)
        return g_strdup_printf ("more than %d wildcards", QUIRK_GLOB_WILDCARDS_MAX);
    }
  return NULL;
}

static gboolean
matcher_is_glob (Matcher m)
{
  return m == MATCHER_COMPARE_EQ || m == MATCHER_COMPARE_NE ||
         m == MATCHER_COMPARE_GE || m == MATCHER_COMPARE_LE;
}

/* Compile the regex of a regex matcher. A regex that does not compile
 * never matches, as in pm-utils, where `[[ $v =~ $re ]]` is then false, so
 * that regex_inverse (`! [[ $v =~ $re ]]`) of it matches everything; one
 * over the bounds (which pm-utils would have run) matches nothing. */
static void
node_compile (Node *node, const char *file_name, guint lineno, GPtrArray *problems)
{
  g_autofree char *re = g_strdelimit (g_strdup (node->value), ";", '|');
  g_autofree char *shown = pp_escape_text (re, QUIRK_SHOWN_MAX);
  g_autofree char *over = regex_over_budget (re);
  int flags = REG_EXTENDED | REG_NOSUB;
  char buf[128];
  int rc;

  if (over != NULL)
    {
      pp_config_problem_add (problems, file_name, lineno,
                             "regular expression \"%s\" refused: %s; its block never matches",
                             shown, over);
      node->matcher = MATCHER_INVALID;
      return;
    }
  if (node->matcher == MATCHER_REGEX_NCASE)
    flags |= REG_ICASE;
  rc = regcomp (&node->re, re, flags);
  if (rc == 0)
    {
      node->re_valid = TRUE;
      return;
    }
  regerror (rc, &node->re, buf, sizeof buf);
  if (node->matcher == MATCHER_REGEX_INVERSE)
    /* node->re_valid stays FALSE: matches every value */
    pp_config_problem_add (problems, file_name, lineno,
                           "regular expression '%s' does not compile (%s); regex_inverse of it matches every value (as in pm-utils)",
                           shown, buf);
  else
    {
      pp_config_problem_add (problems, file_name, lineno,
                             "regular expression '%s' does not compile (%s); its block never matches",
                             shown, buf);
      node->matcher = MATCHER_INVALID;
    }
}

static Node *
match_node_new (const char *const words[4], const char *file_name, guint lineno,
                GPtrArray *problems)
{
  Node *node = g_new0 (Node, 1);

  node->kind = NODE_MATCH;
  node->line = lineno;
  node->children = g_ptr_array_new_with_free_func ((GDestroyNotify) node_free);
  node->key = g_strdup (words[1] ? words[1] : "");
  node->matcher = words[2] ? matcher_from_string (words[2]) : MATCHER_INVALID;
  node->value = g_strdup (words[3] ? words[3] : "");
  if (words[1] == NULL || words[2] == NULL)
    {
      pp_config_problem_add (problems, file_name, lineno,
                             "'match' needs KEY MATCHER VALUE; its block never matches");
      node->matcher = MATCHER_INVALID;
    }
  else if (!key_is_known (words[1]))
    {
      pp_config_problem_add (problems, file_name, lineno,
                             "unknown key '%s'; its block never matches", words[1]);
      node->matcher = MATCHER_INVALID;
    }
  else if (node->matcher == MATCHER_INVALID)
    pp_config_problem_add (problems, file_name, lineno,
                           "unknown matcher '%s'; its block never matches", words[2]);
  else if (words[3] == NULL)
    /* pm-utils goes on with an empty value: an empty regex matches anything */
    pp_config_problem_add (problems, file_name, lineno,
                           "'match' without a VALUE: compared with \"\" as pm-utils did");
  if (node->matcher <= MATCHER_REGEX_INVERSE)
    node_compile (node, file_name, lineno, problems);
  else if (matcher_is_glob (node->matcher))
    {
      g_autofree char *over = glob_over_budget (node->value);

      if (over != NULL)
        {
          g_autofree char *shown = pp_escape_text (node->value, QUIRK_SHOWN_MAX);

          pp_config_problem_add (problems, file_name, lineno,
                                 "pattern \"%s\" refused: %s; its block never matches", shown, over);
          node->matcher = MATCHER_INVALID;
        }
    }
  return node;
}

typedef struct {
  char *w[4];
} Words;

static void
words_clear (Words *words)
{
  for (guint i = 0; i < G_N_ELEMENTS (words->w); i++)
    g_clear_pointer (&words->w[i], g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Words, words_clear)

/* One line of a quirk file; FALSE when the rest of the file is not read. */
static gboolean
add_line (PpQuirkDb *db, QuirkFile *qf, GPtrArray *stack, char *line,
          const char *file_name, guint lineno, GPtrArray *problems)
{
  g_auto(Words) words = { { NULL } };
  const char *const *w = (const char *const *) words.w;
  GPtrArray *parent = stack->len ? ((Node *) g_ptr_array_index (stack, stack->len - 1))->children
                                 : qf->nodes;
  Node *node;

  g_strchomp (line);   /* a CR of a CRLF file, trailing blanks */
  split_like_read (line, words.w);
  if (w[0] == NULL || w[0][0] == '#')
    return TRUE;

  if (g_str_equal (w[0], "match"))
    {
      node = match_node_new (w, file_name, lineno, problems);
      g_ptr_array_add (parent, node);
      g_ptr_array_add (stack, node);
    }
  else if (g_str_equal (w[0], "endmatch"))
    {
      if (stack->len == 0)
        {
          /* pm-utils' reader returns at an endmatch: the rest of the
           * file is never read */
          pp_config_problem_add (problems, file_name, lineno,
                                 "'endmatch' without 'match': the rest of the file is ignored (as pm-utils did)");
          return FALSE;
        }
      g_ptr_array_remove_index (stack, stack->len - 1);
    }
  else if (g_str_equal (w[0], "addquirk") || g_str_equal (w[0], "delquirk"))
    {
      if (w[2] != NULL)
        {
          pp_config_problem_add (problems, file_name, lineno,
                                 "'%s' takes one argument, ignoring the line", w[0]);
          return TRUE;
        }
      node = g_new0 (Node, 1);
      node->kind = g_str_equal (w[0], "addquirk") ? NODE_ADDQUIRK : NODE_DELQUIRK;
      node->line = lineno;
      parse_quirk_directive (db, node, file_name, lineno, w[0], w[1], problems);
      if (w[1] == NULL || !g_str_has_prefix (w[1], "--quirk-") || w[1][8] == '\0')
        node_free (node);
      else
        g_ptr_array_add (parent, node);
    }
  else
    {
      g_autofree char *shown = pp_escape_text (w[0], QUIRK_SHOWN_MAX);

      pp_config_problem_add (problems, file_name, lineno, "unknown directive '%s', ignoring the line", shown);
    }
  return TRUE;
}

void
pp_quirkdb_add_file (PpQuirkDb  *db,
                     const char *file_name,
                     const char *text,
                     gsize       length,
                     GPtrArray  *problems)
{
  QuirkFile *qf = g_new0 (QuirkFile, 1);
  g_autofree char *copy = g_strndup (text, length);
  g_auto(GStrv) lines = g_strsplit (copy, "\n", -1);
  g_autoptr(GPtrArray) stack = g_ptr_array_new ();   /* open match nodes */

  qf->file_name = g_strdup (file_name);
  qf->nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) node_free);

  for (guint i = 0; lines[i]; i++)
    if (!add_line (db, qf, stack, lines[i], file_name, i + 1, problems))
      break;

  for (guint i = 0; i < stack->len; i++)
    pp_config_problem_add (problems, file_name, ((Node *) g_ptr_array_index (stack, i))->line,
                           "'match' without 'endmatch' (the block runs to the end of the file)");

  g_ptr_array_add (db->files, qf);
}

/* ---- matching --------------------------------------------------------- */

/* bash arithmetic on a constant: decimal, 0x hex, leading-0 octal. */
static gboolean
parse_number (const char *s, gint64 *out)
{
  char *end = NULL;
  gint64 v;

  while (*s == ' ' || *s == '\t')
    s++;
  if (*s == '\0')
    return FALSE;
  v = g_ascii_strtoll (s, &end, 0);
  while (end && (*end == ' ' || *end == '\t'))
    end++;
  if (end == s || end == NULL || *end != '\0')
    return FALSE;
  *out = v;
  return TRUE;
}

static gboolean
numeric_compare (Matcher m, const char *a, const char *b)
{
  gint64 x, y;

  if (!parse_number (a, &x) || !parse_number (b, &y))
    return FALSE;
  switch (m)
    {
    case MATCHER_NUMERIC_EQ: return x == y;
    case MATCHER_NUMERIC_NE: return x != y;
    case MATCHER_NUMERIC_GT: return x > y;
    case MATCHER_NUMERIC_GE: return x >= y;
    case MATCHER_NUMERIC_LT: return x < y;
    case MATCHER_NUMERIC_LE: return x <= y;
    case MATCHER_REGEX:
    case MATCHER_REGEX_NCASE:
    case MATCHER_REGEX_INVERSE:
    case MATCHER_COMPARE_EQ:
    case MATCHER_COMPARE_NE:
    case MATCHER_COMPARE_GT:
    case MATCHER_COMPARE_GE:
    case MATCHER_COMPARE_LT:
    case MATCHER_COMPARE_LE:
    case MATCHER_NUMERIC_EQ_LIST:
    case MATCHER_INVALID:
    default:
      return FALSE;
    }
}

static gboolean
glob_equal (const char *value, const char *pattern)
{
  return fnmatch (pattern, value, FNM_EXTMATCH) == 0;
}

static gboolean
node_matches (const Node *node, const PpMachineFacts *facts)
{
  g_autofree char *v = pp_machine_facts_get (facts, node->key);

  if (v == NULL)
    return FALSE;
  switch (node->matcher)
    {
    case MATCHER_REGEX:
    case MATCHER_REGEX_NCASE:
      return regexec (&node->re, v, 0, NULL, 0) == 0;
    case MATCHER_REGEX_INVERSE:
      /* a regex that did not compile: pm-utils' `! [[ $v =~ $re ]]` */
      return !node->re_valid || regexec (&node->re, v, 0, NULL, 0) != 0;
    case MATCHER_COMPARE_EQ:
      return glob_equal (v, node->value);
    case MATCHER_COMPARE_NE:
      return !glob_equal (v, node->value);
    case MATCHER_COMPARE_GT:
      return strcmp (v, node->value) > 0;
    case MATCHER_COMPARE_GE:
      return glob_equal (v, node->value) || strcmp (v, node->value) > 0;
    case MATCHER_COMPARE_LT:
      return strcmp (v, node->value) < 0;
    case MATCHER_COMPARE_LE:
      return glob_equal (v, node->value) || strcmp (v, node->value) < 0;
    case MATCHER_NUMERIC_EQ:
    case MATCHER_NUMERIC_NE:
    case MATCHER_NUMERIC_GT:
    case MATCHER_NUMERIC_GE:
    case MATCHER_NUMERIC_LT:
    case MATCHER_NUMERIC_LE:
      return numeric_compare (node->matcher, v, node->value);
    case MATCHER_NUMERIC_EQ_LIST:
      {
        g_auto(GStrv) items = g_strsplit_set (node->value, "; \t", -1);
        for (guint i = 0; items[i]; i++)
          if (*items[i] && numeric_compare (MATCHER_NUMERIC_EQ, v, items[i]))
            return TRUE;
        return FALSE;
      }
    case MATCHER_INVALID:
    default:
      return FALSE;
    }
}

static void
eval_nodes (GPtrArray *nodes, const PpMachineFacts *facts, const char *file,
            guint entry_line, PpQuirkSelection *sel, gboolean *found)
{
  for (guint i = 0; i < nodes->len; i++)
    {
      const Node *node = g_ptr_array_index (nodes, i);

      if (node->kind == NODE_MATCH)
        {
          if (node_matches (node, facts))
            eval_nodes (node->children, facts, file,
                        entry_line ? entry_line : node->line, sel, found);
          continue;
        }
      *found = TRUE;
      if (node->quirk == NULL)
        continue;
      if (node->kind == NODE_ADDQUIRK)
        {
          g_autofree char *detail = NULL;

          if (entry_line)
            detail = g_strdup_printf ("%s:%u (entry at line %u)", file, node->line, entry_line);
          else
            detail = g_strdup_printf ("%s:%u", file, node->line);
          selection_add (sel, node->quirk, detail);
        }
      else
        selection_remove (sel, node->quirk);
    }
}

gboolean
pp_quirkdb_match_file (const PpQuirkDb      *db,
                       guint                 index,
                       const PpMachineFacts *facts,
                       PpQuirkSelection    **out)
{
  QuirkFile *qf = g_ptr_array_index (db->files, index);
  g_autoptr(PpQuirkSelection) sel = selection_new (PP_QUIRK_SOURCE_DATABASE);
  gboolean found = FALSE;

  eval_nodes (qf->nodes, facts, qf->file_name, 0, sel, &found);
  if (!found)
    return FALSE;
  sel->summary = g_strdup_printf ("matched in %s", qf->file_name);
  if (out)
    *out = g_steal_pointer (&sel);
  return TRUE;
}

static gboolean
have_nvidia_g80 (const PpMachineFacts *facts)
{
  gint64 vendor, product;

  if (!parse_number (facts->video_vendor, &vendor) || vendor != 0x10de)
    return FALSE;
  if (!parse_number (facts->video_product, &product))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (nvidia_g80_products); i++)
    if (product == nvidia_g80_products[i])
      return TRUE;
  return FALSE;
}

static PpQuirkSelection *
driver_rule (const PpMachineFacts *facts)
{
  PpQuirkSelection *sel = NULL;

  if (facts->video_using_kms)
    {
      sel = selection_new (PP_QUIRK_SOURCE_DRIVER);
      sel->summary = g_strdup_printf ("kernel modesetting driver %s: no quirks, no VT switch",
                                      *facts->video_driver ? facts->video_driver : "(unknown)");
      selection_add (sel, "no_chvt", sel->summary);
    }
  else if (facts->nvidia_loaded)
    {
      /* powerpolicyd(8), SYSTEM SLEEP, LID AND VIDEO QUIRKS says "none" here,
       * where pm-utils 1.4.1 added no_chvt: the man page wins, the VT switch is
       * kept as for fglrx */
      sel = selection_new (PP_QUIRK_SOURCE_DRIVER);
      sel->summary = g_strdup ("nVidia binary driver: no quirks (VT switch kept)");
      selection_add (sel, "none", sel->summary);
    }
  else if (facts->fglrx_loaded)
    {
      sel = selection_new (PP_QUIRK_SOURCE_DRIVER);
      sel->summary = g_strdup ("fglrx driver: no quirks (VT switch kept)");
      selection_add (sel, "none", sel->summary);
    }
  else if (have_nvidia_g80 (facts))
    {
      sel = selection_new (PP_QUIRK_SOURCE_DRIVER);
      sel->summary = g_strdup_printf ("NVIDIA G80 GPU %s without the binary driver", facts->video_product);
      selection_add (sel, "vbe_post", sel->summary);
    }
  return sel;
}

PpQuirkSelection *
pp_quirkdb_select (const PpQuirkDb      *db,
                   const PpMachineFacts *facts,
                   const char * const   *config_quirks,
                   const PpQuirkLkw     *lkw,
                   GPtrArray            *problems)
{
  PpQuirkSelection *sel = driver_rule (facts);

  if (sel != NULL)
    return sel;

  if (config_quirks != NULL)
    {
      sel = selection_new (PP_QUIRK_SOURCE_CONFIG);
      sel->summary = g_strdup ("[Sleep] VideoQuirks= in the configuration");
      for (guint i = 0; config_quirks[i]; i++)
        {
          const char *name = pp_quirk_canonical_name (config_quirks[i]);
          if (name == NULL)
            pp_config_problem_add (problems, "[Sleep] VideoQuirks", 0,
                                   "unknown quirk '%s', ignoring it", config_quirks[i]);
          else
            selection_add (sel, name, "[Sleep] VideoQuirks=");
        }
      return sel;
    }

  if (lkw != NULL && lkw->quirks != NULL && pp_quirk_lkw_matches (lkw, facts))
    {
      sel = selection_new (PP_QUIRK_SOURCE_LAST_KNOWN_WORKING);
      sel->summary = g_strdup ("last known working for this hardware, firmware, kernel and driver");
      for (guint i = 0; lkw->quirks[i]; i++)
        {
          const char *name = pp_quirk_canonical_name (lkw->quirks[i]);
          if (name != NULL)
            selection_add (sel, name, "saved after a completed resume");
        }
      return sel;
    }

  for (guint i = 0; db != NULL && i < db->files->len; i++)
    if (pp_quirkdb_match_file (db, i, facts, &sel))
      return sel;

  sel = selection_new (PP_QUIRK_SOURCE_DEFAULT);
  sel->summary = g_strdup ("no database entry matched: pm-utils' default set");
  for (guint i = 0; default_quirks[i]; i++)
    selection_add (sel, default_quirks[i], "default set");
  return sel;
}

/* ---- last known working ----------------------------------------------- */

#define LKW_GROUP "LastKnownWorking"

char *
pp_quirk_lkw_to_data (const PpMachineFacts *facts, const char * const *quirks)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();

  for (guint i = 0; pp_quirkdb_keys[i]; i++)
    {
      g_autofree char *v = pp_machine_facts_get (facts, pp_quirkdb_keys[i]);
      g_key_file_set_string (kf, LKW_GROUP, pp_quirkdb_keys[i], v);
    }
  g_key_file_set_string_list (kf, LKW_GROUP, "quirks", quirks, g_strv_length ((char **) quirks));
  return g_key_file_to_data (kf, NULL, NULL);
}

gboolean
pp_quirk_lkw_from_data (PpQuirkLkw *lkw, const char *text, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();

  pp_quirk_lkw_clear (lkw);
  pp_machine_facts_init (&lkw->facts);
  if (!g_key_file_load_from_data (kf, text, (gsize) -1, G_KEY_FILE_NONE, error))
    return FALSE;
  for (guint i = 0; pp_quirkdb_keys[i]; i++)
    {
      g_autofree char *v = g_key_file_get_string (kf, LKW_GROUP, pp_quirkdb_keys[i], error);
      char **field;

      if (v == NULL)
        return FALSE;
      if (g_str_equal (pp_quirkdb_keys[i], "system.hardware.primary_video.using_kms"))
        {
          lkw->facts.video_using_kms = g_str_equal (v, "true");
          continue;
        }
      field = facts_field (&lkw->facts, pp_quirkdb_keys[i]);
      if (field == NULL)
        continue;
      g_free (*field);
      *field = g_steal_pointer (&v);
    }
  lkw->quirks = g_key_file_get_string_list (kf, LKW_GROUP, "quirks", NULL, error);
  return lkw->quirks != NULL;
}

void
pp_quirk_lkw_clear (PpQuirkLkw *lkw)
{
  if (lkw->facts.kernel_version != NULL)
    pp_machine_facts_clear (&lkw->facts);
  g_clear_pointer (&lkw->quirks, g_strfreev);
}

gboolean
pp_quirk_lkw_matches (const PpQuirkLkw *lkw, const PpMachineFacts *facts)
{
  for (guint i = 0; pp_quirkdb_keys[i]; i++)
    {
      g_autofree char *a = pp_machine_facts_get (&lkw->facts, pp_quirkdb_keys[i]);
      g_autofree char *b = pp_machine_facts_get (facts, pp_quirkdb_keys[i]);

      if (g_strcmp0 (a, b) != 0)
        return FALSE;
    }
  return TRUE;
}
