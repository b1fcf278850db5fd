/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-config"

#include "config.h"

#include <errno.h>
#include <gio/gio.h>

#include "pp-config-files.h"
#include "pp-names.h"
#include "pp-resources.h"
#include "pp-util.h"


const char *
pp_config_files_builtin_text (gsize *length)
{
  g_autoptr(GBytes) bytes = g_resource_lookup_data (pp_get_resource (),
                                                    "/org/powerpolicy1/powerpolicy.conf",
                                                    G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);

  g_assert (bytes != NULL);
  /* resource data is static and outlives the GBytes */
  return g_bytes_get_data (bytes, length);
}

/* FALSE only when the file does not exist. */
static gboolean
load_file (PpConfig *config, const char *path, GPtrArray *problems)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &contents, &length, &error))
    {
      if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return FALSE;
      pp_config_problem_add (problems, path, 0, "%s", error->message);
      return TRUE;
    }
  g_debug ("Reading %s", path);
  pp_config_load_data (config, path, contents, length, problems);
  return TRUE;
}

static void
load_dropins (PpConfig *config, const char *dir_path, GPtrArray *problems)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, &error);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (dir == NULL)
    {
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT) &&
          !g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR))
        pp_config_problem_add (problems, dir_path, 0, "%s", error->message);
      return;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      if (g_str_has_suffix (name, ".conf") && name[0] != '.')
        g_ptr_array_add (names, g_strdup (name));
    }
  g_ptr_array_sort (names, pp_compare_strings);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (dir_path, g_ptr_array_index (names, i), NULL);
      if (!load_file (config, path, problems))
        pp_config_problem_add (problems, path, 0, "vanished while reading the configuration");
    }
}

PpConfig *
pp_config_files_load (const char *main_path, GPtrArray *problems, GError **error)
{
  g_autoptr(PpConfig) config = pp_config_new ();
  g_autofree char *etc_path = g_build_filename (PP_SYSCONFDIR, PP_CONFIG_DIR_NAME,
                                                PP_CONFIG_FILE_NAME, NULL);
  g_autofree char *dropin_dir = NULL;
  gboolean loaded;

  if (main_path != NULL)
    {
      /* a file named on the command line must be there: defaults in its
       * place would be a policy nobody asked for */
      g_autofree char *contents = NULL;
      g_autoptr(GError) local_error = NULL;
      gsize length = 0;

      if (!g_file_get_contents (main_path, &contents, &length, &local_error))
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                      "cannot read the configuration: ");
          return NULL;
        }
      g_debug ("Reading %s", main_path);
      pp_config_load_data (config, main_path, contents, length, problems);
      loaded = TRUE;
    }
  else
    {
      main_path = etc_path;
      loaded = load_file (config, main_path, problems);
    }
  if (!loaded)
    {
      g_autofree char *vendor = g_build_filename (PP_DATADIR, PP_CONFIG_DIR_NAME,
                                                  PP_CONFIG_FILE_NAME, NULL);
      loaded = load_file (config, vendor, problems);
    }
  if (!loaded)
    {
      gsize length = 0;
      const char *text = pp_config_files_builtin_text (&length);

      g_info ("%s does not exist, using the built-in defaults", main_path);
      pp_config_load_data (config, "<built-in>", text, length, problems);
    }

  dropin_dir = g_strconcat (main_path, ".d", NULL);
  load_dropins (config, dropin_dir, problems);
  return g_steal_pointer (&config);
}

GPtrArray *
pp_config_files_quirkdb_paths (void)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const char *override = g_getenv (PP_QUIRKS_DIR_ENV);
  const char *dirs[] = {
    PP_SYSCONFDIR "/" PP_CONFIG_DIR_NAME "/video-quirks",
    PP_DATADIR "/" PP_CONFIG_DIR_NAME "/video-quirks",
  };

  if (override != NULL && *override != '\0')
    {
      dirs[0] = override;
      dirs[1] = NULL;
    }
  for (guint d = 0; d < G_N_ELEMENTS (dirs) && dirs[d] != NULL; d++)
    {
      g_autoptr(GPtrArray) names = pp_list_dir_sorted (dirs[d], ".quirkdb");

      for (guint i = 0; names != NULL && i < names->len; i++)
        {
          const char *n = g_ptr_array_index (names, i);
          /* a file in /etc replaces the vendor file of the same name */
          if (g_hash_table_contains (seen, n))
            continue;
          g_hash_table_add (seen, g_strdup (n));
          g_ptr_array_add (paths, g_build_filename (dirs[d], n, NULL));
        }
    }
  return paths;
}

PpQuirkDb *
pp_config_files_load_quirkdb (GPtrArray *problems)
{
  g_autoptr(GPtrArray) paths = pp_config_files_quirkdb_paths ();
  PpQuirkDb *db = pp_quirkdb_new ();

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autofree char *text = NULL;
      g_autoptr(GError) error = NULL;
      gsize len;

      if (!g_file_get_contents (path, &text, &len, &error))
        {
          pp_config_problem_add (problems, path, 0, "%s", error->message);
          continue;
        }
      g_debug ("Reading %s", path);
      pp_quirkdb_add_file (db, path, text, len, problems);
    }
  return db;
}
