/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the configuration's key table (pp_config_list_keys()):
 * every key it lists reaches its parser in the layers it lists and is
 * refused in the others, the unknown-key report lists the table's keys,
 * and powerpolicy.conf(5) documents every key in its section. Pure: the
 * policy library alone. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-config.h"

static gboolean
section_is_named (const PpConfigKeyInfo *info)
{
  return g_str_equal (info->section, "Class") || g_str_equal (info->section, "Module");
}

/* A key name the row matches: a prefix row gets a valid rest. */
static char *
key_of (const PpConfigKeyInfo *info)
{
  if (!info->prefix)
    return g_strdup (info->key);
  return g_strconcat (info->key, *info->key ? "power/control" : "power_save", NULL);
}

/* The problems of "[SECTION(:layer)]\nKEY=x\n". */
static GPtrArray *
load_one (const PpConfigKeyInfo *info, PpLayer layer, const char *key)
{
  g_autoptr(PpConfig) config = pp_config_new ();
  GPtrArray *problems = pp_config_problems_new ();
  g_autofree char *text = g_strdup_printf ("[%s%s%s]\n%s=x\n", info->section,
                                           section_is_named (info) ? " t" : "",
                                           pp_layer_suffix (layer), key);

  pp_config_load_data (config, "keys.conf", text, strlen (text), problems);
  return problems;
}

static char *
all_problems (GPtrArray *problems)
{
  GString *all = g_string_new (NULL);

  for (guint i = 0; i < problems->len; i++)
    {
      g_autofree char *s = pp_config_problem_to_string (g_ptr_array_index (problems, i));
      g_string_append_printf (all, "%s\n", s);
    }
  return g_string_free (all, FALSE);
}

/* The layers any key of @section may be written in: the headers the
 * section takes. */
static guint
section_layers (GArray *keys, const char *section)
{
  guint layers = 0;

  for (guint i = 0; i < keys->len; i++)
    {
      const PpConfigKeyInfo *info = &g_array_index (keys, PpConfigKeyInfo, i);

      if (g_str_equal (info->section, section))
        layers |= info->layers;
    }
  return layers;
}

static void
check_key_in_layer (const PpConfigKeyInfo *info, PpLayer layer)
{
  g_autofree char *key = key_of (info);
  g_autoptr(GPtrArray) problems = load_one (info, layer, key);
  g_autofree char *all = all_problems (problems);
  gboolean refused = strstr (all, "unknown key") != NULL || strstr (all, "applies to") != NULL;

  if (info->layers & (1u << layer))
    {
      /* reaches its parser: at most a bad value, never an unknown key */
      if (refused || strstr (all, "unknown section") != NULL || strstr (all, "unknown layer") != NULL)
        fail_msg ("[%s%s] %s= not taken:\n%s", info->section, pp_layer_suffix (layer), key, all);
    }
  else if (problems->len != 1 || !refused)
    {
      fail_msg ("[%s%s] %s= not refused as one problem:\n%s",
                info->section, pp_layer_suffix (layer), key, all);
    }
}

static void
test_keys_reach_their_parsers (void **state)
{
  g_autoptr(GArray) keys = pp_config_list_keys ();

  assert_true (keys->len > 30);
  for (guint i = 0; i < keys->len; i++)
    {
      const PpConfigKeyInfo *info = &g_array_index (keys, PpConfigKeyInfo, i);
      guint layers = section_layers (keys, info->section);

      assert_true (info->layers & (1u << PP_LAYER_BASE));
      for (guint l = 0; l < PP_N_LAYERS; l++)
        {
          if (layers & (1u << l))
            check_key_in_layer (info, (PpLayer) l);
        }
    }
}

/* each key listed once, and an unknown key of a [Class] section names
 * them all in the table's order */
static void
test_unknown_key_lists_the_table (void **state)
{
  g_autoptr(GArray) keys = pp_config_list_keys ();
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autoptr(PpConfig) config = pp_config_new ();
  const char *text = "[Class usb:idle]\nBogus=1\n";
  const PpConfigProblem *p;

  for (guint i = 0; i < keys->len; i++)
    {
      const PpConfigKeyInfo *info = &g_array_index (keys, PpConfigKeyInfo, i);
      char *id = g_strdup_printf ("%s/%s", info->section, info->key);

      if (!g_hash_table_add (seen, id))
        fail_msg ("%s listed twice", id);
      if (g_str_equal (info->section, "Class"))
        g_ptr_array_add (names, g_strconcat (info->key, info->prefix ? "<path>" : "", NULL));
    }
  assert_true (names->len > 2);
  pp_config_load_data (config, "keys.conf", text, strlen (text), problems);
  assert_int_equal (problems->len, 1);
  p = g_ptr_array_index (problems, 0);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      const char *sep = i + 1 == names->len ? " or " : i == 0 ? "(expected " : ", ";
      g_autofree char *needle = g_strconcat (sep, name, i + 1 == names->len ? ")" : "", NULL);

      if (strstr (p->message, needle) == NULL)
        fail_msg ("'%s' not in: %s", needle, p->message);
    }
}

/* The text of the man page section of @section: from its ".SH [SECTION"
 * header to the next ".SH". */
static char *
man_section (const char *man, const char *section)
{
  g_autofree char *plain = g_strdup_printf ("\n.SH [%s]", section);
  g_autofree char *named = g_strdup_printf ("\n.SH [%s NAME]", section);
  const char *start = strstr (man, plain);
  const char *end;

  if (start == NULL)
    start = strstr (man, named);
  if (start == NULL)
    return NULL;
  start++;
  end = strstr (start, "\n.SH ");
  return end ? g_strndup (start, end - start) : g_strdup (start);
}

/* "KEY=" at the start of a word of the troff source */
static gboolean
documents_key (const char *text, const char *key)
{
  g_autofree char *with_eq = g_strconcat (key, "=", NULL);
  const char *needle = *key && key[strlen (key) - 1] == '.' ? key : with_eq;

  for (const char *at = strstr (text, needle); at; at = strstr (at + 1, needle))
    {
      if (at == text || strchr (" \n\t\"", at[-1]) != NULL)
        return TRUE;
    }
  return FALSE;
}

static void
test_keys_documented (void **state)
{
  g_autoptr(GArray) keys = pp_config_list_keys ();
  g_autofree char *man = NULL;
  g_autoptr(GError) error = NULL;

  if (!g_file_get_contents (PP_TEST_MAN_CONF, &man, NULL, &error))
    fail_msg ("%s", error->message);
  for (guint i = 0; i < keys->len; i++)
    {
      const PpConfigKeyInfo *info = &g_array_index (keys, PpConfigKeyInfo, i);
      g_autofree char *text = man_section (man, info->section);

      if (text == NULL)
        fail_msg ("powerpolicy.conf(5) has no section [%s]", info->section);
      if (info->prefix && *info->key == '\0')
        continue;   /* [Module NAME]: the parameters are the module's */
      if (!documents_key (text, info->key))
        fail_msg ("powerpolicy.conf(5) does not document %s= in [%s]", info->key, info->section);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_keys_reach_their_parsers),
    cmocka_unit_test (test_unknown_key_lists_the_table),
    cmocka_unit_test (test_keys_documented),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
