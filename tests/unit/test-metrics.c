/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Prometheus exposition text (pp-metrics.c), parsed back by a small
 * parser of the text format written here, independent of the formatter.
 *
 * `test-metrics --print` writes a sample exposition to stdout, for the
 * external checkers run by meson (promtool, prometheus_client). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pp-test.h"
#include "pp-format.h"
#include "pp-metrics.h"

/* ---- a parser of the text format (version 0.0.4) ------------------------- */

typedef struct {
  char       *name;
  GHashTable *labels;   /* name -> unescaped value */
  double      value;
} Sample;

typedef struct {
  char      *name;
  char      *help;
  char      *type;
  GPtrArray *samples;   /* of Sample */
} Family;

typedef struct {
  GPtrArray  *families;   /* of Family, in order */
  GHashTable *by_name;    /* name -> Family */
} Parsed;

static void
sample_free (Sample *s)
{
  g_free (s->name);
  g_hash_table_unref (s->labels);
  g_free (s);
}

static void
family_free (Family *f)
{
  g_free (f->name);
  g_free (f->help);
  g_free (f->type);
  g_ptr_array_unref (f->samples);
  g_free (f);
}

static void
parsed_free (Parsed *p)
{
  g_ptr_array_unref (p->families);
  g_hash_table_unref (p->by_name);
  g_free (p);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Parsed, parsed_free)

static gboolean
valid_metric_name (const char *s, size_t len)
{
  if (len == 0 || !(g_ascii_isalpha (s[0]) || s[0] == '_' || s[0] == ':'))
    return FALSE;
  for (size_t i = 1; i < len; i++)
    if (!(g_ascii_isalnum (s[i]) || s[i] == '_' || s[i] == ':'))
      return FALSE;
  return TRUE;
}

static size_t
name_length (const char *s)
{
  size_t n = 0;

  while (g_ascii_isalnum (s[n]) || s[n] == '_' || s[n] == ':')
    n++;
  return n;
}

static Family *
family_get (Parsed *p, const char *name)
{
  Family *f = g_hash_table_lookup (p->by_name, name);

  if (f == NULL)
    {
      f = g_new0 (Family, 1);
      f->name = g_strdup (name);
      f->samples = g_ptr_array_new_with_free_func ((GDestroyNotify) sample_free);
      g_ptr_array_add (p->families, f);
      g_hash_table_insert (p->by_name, f->name, f);
    }
  return f;
}

/* Parse @text; fails the test on any syntax error. */
static Parsed *
parse (const char *text)
{
  Parsed *p = g_new0 (Parsed, 1);
  g_auto(GStrv) lines = NULL;
  guint n;

  p->families = g_ptr_array_new_with_free_func ((GDestroyNotify) family_free);
  p->by_name = g_hash_table_new (g_str_hash, g_str_equal);

  assert_true (g_str_has_suffix (text, "\n"));
  assert_true (g_utf8_validate (text, -1, NULL));
  lines = g_strsplit (text, "\n", -1);
  n = g_strv_length (lines);
  assert_string_equal (lines[n - 1], "");   /* ends with exactly one newline */

  for (guint i = 0; i + 1 < n; i++)
    {
      const char *l = lines[i];

      if (g_str_has_prefix (l, "# HELP ") || g_str_has_prefix (l, "# TYPE "))
        {
          gboolean help = l[2] == 'H';
          const char *name = l + 7;
          size_t len = name_length (name);
          g_autofree char *key = g_strndup (name, len);
          Family *f;

          assert_true (valid_metric_name (name, len));
          assert_int_equal (name[len], ' ');
          f = family_get (p, key);
          /* HELP and TYPE come before the family's samples, once each */
          assert_int_equal (f->samples->len, 0);
          if (help)
            {
              assert_null (f->help);
              f->help = g_strcompress (name + len + 1);
            }
          else
            {
              assert_null (f->type);
              f->type = g_strdup (name + len + 1);
              assert_true (g_str_equal (f->type, "gauge") || g_str_equal (f->type, "counter") ||
                           g_str_equal (f->type, "untyped") || g_str_equal (f->type, "summary") ||
                           g_str_equal (f->type, "histogram"));
            }
          continue;
        }
      assert_true (l[0] != '#' && l[0] != '\0');   /* no comments, no blank lines */

      {
        Sample *s = g_new0 (Sample, 1);
        size_t len = name_length (l);
        const char *q = l + len;
        char *end = NULL;
        Family *f;

        assert_true (valid_metric_name (l, len));
        s->name = g_strndup (l, len);
        s->labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
        if (*q == '{')
          {
            q++;
            while (*q != '}')
              {
                size_t ll = name_length (q);
                g_autofree char *lname = g_strndup (q, ll);
                GString *value = g_string_new (NULL);

                assert_true (ll > 0 && !g_ascii_isdigit (q[0]));
                q += ll;
                assert_int_equal (*q, '=');
                q++;
                assert_int_equal (*q, '"');
                q++;
                while (*q != '"')
                  {
                    assert_true (*q != '\0');
                    if (*q == '\\')
                      {
                        q++;
                        if (*q == 'n')
                          g_string_append_c (value, '\n');
                        else if (*q == '\\' || *q == '"')
                          g_string_append_c (value, *q);
                        else
                          fail_msg ("bad escape \\%c in %s", *q, l);
                      }
                    else
                      g_string_append_c (value, *q);
                    q++;
                  }
                q++;
                /* a label name once per sample */
                assert_false (g_hash_table_contains (s->labels, lname));
                g_hash_table_insert (s->labels, g_steal_pointer (&lname),
                                     g_string_free (value, FALSE));
                if (*q == ',')
                  q++;
                else
                  assert_int_equal (*q, '}');
              }
            q++;
          }
        assert_int_equal (*q, ' ');
        q++;
        if (g_str_equal (q, "NaN"))
          s->value = NAN;
        else
          {
            s->value = g_ascii_strtod (q, &end);
            assert_true (end != q && *end == '\0');
          }
        /* every sample belongs to a family announced before it */
        f = g_hash_table_lookup (p->by_name, s->name);
        assert_non_null (f);
        assert_non_null (f->type);
        assert_non_null (f->help);
        /* a family's samples are contiguous */
        assert_ptr_equal (g_ptr_array_index (p->families, p->families->len - 1), f);
        g_ptr_array_add (f->samples, s);
      }
    }
  return p;
}

static Family *
family (Parsed *p, const char *name)
{
  Family *f = g_hash_table_lookup (p->by_name, name);

  if (f == NULL)
    fail_msg ("no family %s", name);
  return f;
}

/* The value of the sample of @name whose labels are exactly @k1=@v1
 * (+ @k2=@v2); fails when not exactly one matches. */
static double
value_of (Parsed *p, const char *name, const char *k1, const char *v1,
          const char *k2, const char *v2)
{
  Family *f = family (p, name);
  guint found = 0;
  double v = NAN;

  for (guint i = 0; i < f->samples->len; i++)
    {
      Sample *s = f->samples->pdata[i];
      guint want = (k1 != NULL) + (k2 != NULL);

      if (g_hash_table_size (s->labels) != want)
        continue;
      if (k1 != NULL && g_strcmp0 (g_hash_table_lookup (s->labels, k1), v1) != 0)
        continue;
      if (k2 != NULL && g_strcmp0 (g_hash_table_lookup (s->labels, k2), v2) != 0)
        continue;
      found++;
      v = s->value;
    }
  if (found != 1)
    fail_msg ("%u samples of %s{%s=%s,%s=%s}", found, name, k1, v1, k2, v2);
  return v;
}

/* Naming conventions every family must follow. */
static void
check_conventions (Parsed *p)
{
  for (guint i = 0; i < p->families->len; i++)
    {
      Family *f = p->families->pdata[i];

      assert_true (g_str_has_prefix (f->name, "powerpolicy_"));
      assert_true (strlen (f->help) > 0);
      /* _total for counters and only for counters */
      assert_int_equal (g_str_equal (f->type, "counter"), g_str_has_suffix (f->name, "_total"));
      /* base units only, no abbreviations, no type in the name, no colons
       * (reserved for recording rules), snake_case: promtool's lint rules,
       * word by word */
      {
        g_auto(GStrv) words = g_strsplit (f->name, "_", -1);

        for (guint w = 0; words[w] != NULL; w++)
          for (const char * const *bad = (const char * const[]) {
                 "milliseconds", "percent", "ms", "sec", "kb", "counter", "gauge",
                 "histogram", "summary", "untyped", NULL }; *bad != NULL; bad++)
            assert_string_not_equal (words[w], *bad);
      }
      for (const char *c = f->name; *c != '\0'; c++)
        assert_true (g_ascii_islower (*c) || g_ascii_isdigit (*c) || *c == '_');
    }
}

/* ---- inputs ---------------------------------------------------------------- */

static const PpMetricsDeviceCount laptop_devices[] = {
  { "usb", "suspended", 12 },
  { "pci", "active", 7 },
  { "usb", "active", 3 },
  { "pci", "suspended", 9 },
  { "", "unsupported", 40 },
  { "pci", "active", 2 },        /* same label set again: added up */
  { NULL, "unsupported", 1 },    /* NULL class is "" */
  { "sata", NULL, 4 },           /* NULL status is "unknown" */
};

static const PpMetricsClass laptop_classes[] = {
  { "usb", 0.8, 1 },
  { "pci", 0.25, 0 },
  { "sata", NAN, 0 },            /* unknown ratio: no ratio sample */
  { "usb", 0.1, 9 },             /* given twice: the first wins */
};

static const PpMetrics laptop = {
  laptop_devices, G_N_ELEMENTS (laptop_devices),
  laptop_classes, G_N_ELEMENTS (laptop_classes),
  .n_overrides = 2, .n_holds = 1, .n_inhibitors = 3, .n_conflicts = 1,
  .write_failures_total = 5, .on_battery = TRUE, .user_idle = FALSE,
  .last_pass_seconds = 0.0125,
  .has_last_sleep = TRUE, .last_sleep_seconds = 28800.5, .last_sleep_ok = TRUE,
  .last_sleep_hw_ratio = 0.97, .last_sleep_drain_watts = 0.45,
  .has_sleep_failures = TRUE, .sleep_failures_total = 3,
};

static void
test_laptop (void **state)
{
  g_autofree char *text = pp_metrics_format (&laptop);
  g_autoptr(Parsed) p = parse (text);

  (void) state;
  check_conventions (p);
  assert_string_equal (family (p, "powerpolicy_devices")->type, "gauge");
  assert_string_equal (family (p, "powerpolicy_write_failures_total")->type, "counter");
  assert_string_equal (family (p, "powerpolicy_class_suspended_ratio")->type, "gauge");
  assert_string_equal (family (p, "powerpolicy_last_policy_pass_duration_seconds")->type, "gauge");

  assert_int_equal (family (p, "powerpolicy_devices")->samples->len, 6);
  assert_true (value_of (p, "powerpolicy_devices", "class", "usb", "runtime_status", "suspended") == 12);
  assert_true (value_of (p, "powerpolicy_devices", "class", "usb", "runtime_status", "active") == 3);
  assert_true (value_of (p, "powerpolicy_devices", "class", "pci", "runtime_status", "active") == 9);
  assert_true (value_of (p, "powerpolicy_devices", "class", "pci", "runtime_status", "suspended") == 9);
  assert_true (value_of (p, "powerpolicy_devices", "class", "", "runtime_status", "unsupported") == 41);
  assert_true (value_of (p, "powerpolicy_devices", "class", "sata", "runtime_status", "unknown") == 4);

  assert_int_equal (family (p, "powerpolicy_class_suspended_ratio")->samples->len, 2);
  assert_true (value_of (p, "powerpolicy_class_suspended_ratio", "class", "usb", NULL, NULL) == 0.8);
  assert_true (value_of (p, "powerpolicy_class_suspended_ratio", "class", "pci", NULL, NULL) == 0.25);
  assert_int_equal (family (p, "powerpolicy_class_never_suspending_devices")->samples->len, 3);
  assert_true (value_of (p, "powerpolicy_class_never_suspending_devices", "class", "usb", NULL, NULL) == 1);
  assert_true (value_of (p, "powerpolicy_class_never_suspending_devices", "class", "sata", NULL, NULL) == 0);

  assert_true (value_of (p, "powerpolicy_overrides", NULL, NULL, NULL, NULL) == 2);
  assert_true (value_of (p, "powerpolicy_holds", NULL, NULL, NULL, NULL) == 1);
  assert_true (value_of (p, "powerpolicy_inhibitors", NULL, NULL, NULL, NULL) == 3);
  assert_true (value_of (p, "powerpolicy_conflicts", NULL, NULL, NULL, NULL) == 1);
  assert_true (value_of (p, "powerpolicy_write_failures_total", NULL, NULL, NULL, NULL) == 5);
  assert_true (value_of (p, "powerpolicy_on_battery", NULL, NULL, NULL, NULL) == 1);
  assert_true (value_of (p, "powerpolicy_user_idle", NULL, NULL, NULL, NULL) == 0);
  assert_true (value_of (p, "powerpolicy_last_policy_pass_duration_seconds", NULL, NULL, NULL, NULL) == 0.0125);
}

/* Nothing known: every family is announced, the scalars are 0, the
 * optional samples are left out. */
static void
test_empty (void **state)
{
  PpMetrics m = { .last_pass_seconds = -1 };
  g_autofree char *text = pp_metrics_format (&m);
  g_autoptr(Parsed) p = parse (text);

  (void) state;
  check_conventions (p);
  assert_int_equal (p->families->len, 16);
  assert_int_equal (family (p, "powerpolicy_devices")->samples->len, 0);
  assert_int_equal (family (p, "powerpolicy_last_policy_pass_duration_seconds")->samples->len, 0);
  assert_true (value_of (p, "powerpolicy_on_battery", NULL, NULL, NULL, NULL) == 0);
  assert_true (value_of (p, "powerpolicy_write_failures_total", NULL, NULL, NULL, NULL) == 0);
}

/* The last sleep's families: samples only for what is known. */
static void
test_last_sleep (void **state)
{
  PpMetrics m = { .last_pass_seconds = -1 };
  g_autofree char *text = pp_metrics_format (&laptop);
  g_autoptr(Parsed) p = parse (text);

  (void) state;
  check_conventions (p);
  assert_string_equal (family (p, "powerpolicy_sleep_failures_total")->type, "counter");
  assert_true (value_of (p, "powerpolicy_sleep_failures_total", NULL, NULL, NULL, NULL) == 3);
  assert_true (value_of (p, "powerpolicy_last_sleep_duration_seconds", NULL, NULL, NULL, NULL) == 28800.5);
  assert_true (value_of (p, "powerpolicy_last_sleep_success", NULL, NULL, NULL, NULL) == 1);
  assert_true (value_of (p, "powerpolicy_last_sleep_hardware_sleep_ratio", NULL, NULL, NULL, NULL) == 0.97);
  assert_true (value_of (p, "powerpolicy_last_sleep_drain_watts", NULL, NULL, NULL, NULL) == 0.45);

  /* none recorded, no counter: headers alone */
  g_free (text);
  text = pp_metrics_format (&m);
  g_clear_pointer (&p, parsed_free);
  p = parse (text);
  assert_int_equal (family (p, "powerpolicy_last_sleep_duration_seconds")->samples->len, 0);
  assert_int_equal (family (p, "powerpolicy_sleep_failures_total")->samples->len, 0);

  /* a sleep without hardware-sleep counters or battery: those left out */
  m.has_last_sleep = TRUE;
  m.last_sleep_seconds = 60;
  m.last_sleep_hw_ratio = NAN;
  m.last_sleep_drain_watts = NAN;
  g_free (text);
  text = pp_metrics_format (&m);
  g_clear_pointer (&p, parsed_free);
  p = parse (text);
  assert_true (value_of (p, "powerpolicy_last_sleep_success", NULL, NULL, NULL, NULL) == 0);
  for (guint i = 0; i < 2; i++)
    {
      Family *f = family (p, i == 0 ? "powerpolicy_last_sleep_hardware_sleep_ratio"
                                    : "powerpolicy_last_sleep_drain_watts");
      assert_non_null (f);
      assert_int_equal (f != NULL ? f->samples->len : 1, 0);
    }
}

static void
test_nan_pass_left_out (void **state)
{
  PpMetrics m = { .last_pass_seconds = NAN, .user_idle = TRUE,
                  .write_failures_total = G_MAXUINT64 };
  g_autofree char *text = pp_metrics_format (&m);
  g_autoptr(Parsed) p = parse (text);

  (void) state;
  assert_int_equal (family (p, "powerpolicy_last_policy_pass_duration_seconds")->samples->len, 0);
  assert_true (value_of (p, "powerpolicy_user_idle", NULL, NULL, NULL, NULL) == 1);
  assert_non_null (strstr (text, "powerpolicy_write_failures_total 18446744073709551615\n"));
}

/* What the caller could not learn is announced without a sample, never
 * written as 0; the others keep their values. */
static void
test_unknown_left_out (void **state)
{
  PpMetrics m = { .n_overrides = 4, .n_conflicts = 2, .write_failures_total = 9,
                  .n_holds = 1, .last_pass_seconds = -1,
                  .unknown = PP_METRICS_UNKNOWN_CONFLICTS | PP_METRICS_UNKNOWN_WRITE_FAILURES };
  g_autofree char *text = pp_metrics_format (&m);
  g_autoptr(Parsed) p = parse (text);

  (void) state;
  check_conventions (p);
  assert_int_equal (p->families->len, 16);
  assert_int_equal (family (p, "powerpolicy_conflicts")->samples->len, 0);
  assert_int_equal (family (p, "powerpolicy_write_failures_total")->samples->len, 0);
  assert_true (value_of (p, "powerpolicy_overrides", NULL, NULL, NULL, NULL) == 4);
  assert_true (value_of (p, "powerpolicy_holds", NULL, NULL, NULL, NULL) == 1);
  assert_null (strstr (text, "powerpolicy_conflicts 2"));
  assert_non_null (strstr (text, "# TYPE powerpolicy_write_failures_total counter\n"));

  m.unknown = PP_METRICS_UNKNOWN_OVERRIDES;
  g_free (text);
  text = pp_metrics_format (&m);
  g_clear_pointer (&p, parsed_free);
  p = parse (text);
  assert_int_equal (family (p, "powerpolicy_overrides")->samples->len, 0);
  assert_true (value_of (p, "powerpolicy_conflicts", NULL, NULL, NULL, NULL) == 2);
  assert_true (value_of (p, "powerpolicy_write_failures_total", NULL, NULL, NULL, NULL) == 9);
}

/* Label values: escaped on the way out, the same text on the way back. */
typedef struct {
  const char *name;
  const char *class;       /* as udev reported it */
  const char *expected;    /* what a reader gets back */
  const char *raw;         /* the escaped form in the text, or NULL */
} LabelCase;

static const LabelCase label_cases[] = {
  { "plain", "usb", "usb", "class=\"usb\"" },
  { "backslash", "a\\b", "a\\b", "class=\"a\\\\b\"" },
  { "quote", "say \"hi\"", "say \"hi\"", "class=\"say \\\"hi\\\"\"" },
  { "newline", "two\nlines", "two\nlines", "class=\"two\\nlines\"" },
  { "all-three", "\\\"\n", "\\\"\n", "class=\"\\\\\\\"\\n\"" },
  { "utf8", "caméra", "caméra", NULL },
  { "invalid-utf8", "bad\xff" "end", "bad\xef\xbf\xbd" "end", NULL },
  { "braces-and-commas", "a},b=\"c", "a},b=\"c", NULL },
};

static void
test_label (void **state)
{
  const LabelCase *c = *state;
  PpMetricsDeviceCount d = { c->class, "active", 1 };
  PpMetricsClass k = { c->class, 0.5, 0 };
  PpMetrics m = { &d, 1, &k, 1, .last_pass_seconds = -1 };
  g_autofree char *text = pp_metrics_format (&m);
  g_autoptr(Parsed) p = parse (text);

  assert_true (value_of (p, "powerpolicy_devices", "class", c->expected, "runtime_status", "active") == 1);
  assert_true (value_of (p, "powerpolicy_class_suspended_ratio", "class", c->expected, NULL, NULL) == 0.5);
  if (c->raw != NULL)
    assert_non_null (strstr (text, c->raw));
}

/* A class name longer than the limit is cut at a character boundary. */
static void
test_label_bounded (void **state)
{
  g_autoptr(GString) longname = g_string_new ("x");
  g_autoptr(GString) out = g_string_new (NULL);

  (void) state;
  for (guint i = 0; i < 1000; i++)
    g_string_append (longname, "é");   /* 2 bytes each, from an odd offset */
  pp_metrics_append_label_value (out, longname->str);
  assert_true (out->len <= PP_METRICS_MAX_LABEL);
  assert_true (out->len >= PP_METRICS_MAX_LABEL - 1);
  assert_true (g_utf8_validate (out->str, -1, NULL));
  assert_true (g_str_has_prefix (longname->str, out->str));

  g_string_truncate (out, 0);
  pp_metrics_append_label_value (out, NULL);
  assert_int_equal (out->len, 0);
}

/* The escaping both formatters share (pp-format.c): the DOT flavour
 * drops control characters, the exposition flavour keeps them. */
static void
test_format_escaped (void **state)
{
  static const struct {
    const char *in;
    gsize       max;
    gboolean    drop;
    const char *out;
  } rows[] = {
    { "a\\b\"c\nd", 0, FALSE, "a\\\\b\\\"c\\nd" },
    { "a\\b\"c\nd", 0, TRUE,  "a\\\\b\\\"c\\nd" },
    { "t\tx\x7f",        0, FALSE, "t\tx\x7f" },
    { "t\tx\x7f",        0, TRUE,  "tx" },
    { "\xff""z",          0, TRUE,  "\xef\xbf\xbd""z" },
    { "ab\xc3\xa9",       3, FALSE, "ab" },
    { "ab\xc3\xa9",       4, FALSE, "ab\xc3\xa9" },
    { NULL,               0, TRUE,  "" },
  };

  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GString) out = g_string_new (NULL);

      pp_format_append_escaped (out, rows[i].in, rows[i].max, rows[i].drop);
      assert_string_equal (out->str, rows[i].out);
    }
}

/* ---- main ---------------------------------------------------------------- */

int
main (int argc, char **argv)
{
  PpTestList *list;

  if (argc == 2 && g_str_equal (argv[1], "--print"))
    {
      g_autofree char *text = pp_metrics_format (&laptop);

      fputs (text, stdout);
      return ferror (stdout) || fflush (stdout) != 0 ? 1 : 0;
    }

  list = pp_test_list_new ();
  pp_test_list_add (list, "metrics", "laptop", test_laptop, NULL, NULL, NULL);
  pp_test_list_add (list, "metrics", "empty", test_empty, NULL, NULL, NULL);
  pp_test_list_add (list, "metrics", "last-sleep", test_last_sleep, NULL, NULL, NULL);
  pp_test_list_add (list, "metrics", "nan-pass-left-out", test_nan_pass_left_out, NULL, NULL, NULL);
  pp_test_list_add (list, "metrics", "unknown-left-out", test_unknown_left_out, NULL, NULL, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (label_cases); i++)
    pp_test_list_add (list, "metrics/label", label_cases[i].name, test_label, NULL, NULL,
                      &label_cases[i]);
  pp_test_list_add (list, "metrics", "label-bounded", test_label_bounded, NULL, NULL, NULL);
  pp_test_list_add (list, "format", "escaped", test_format_escaped, NULL, NULL, NULL);
  return pp_test_list_run (list, "metrics");
}
