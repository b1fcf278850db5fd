/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pp-conflicts.h"
#include "pp-sysfs.h"
#include "pp-log.h"
#include "pp-util.h"

/* systemd's unit search path, as far as enablement goes, relative to root */
static const char * const unit_dirs[] = {
  "etc/systemd/system",
  "run/systemd/system",
  "usr/lib/systemd/system",
  "lib/systemd/system",
  NULL
};

/* Where masking happens (systemctl mask, --runtime). */
static const char * const mask_dirs[] = {
  "etc/systemd/system",
  "run/systemd/system",
  NULL
};

#define SYMLINK_DEPTH_MAX 8

static const struct {
  const char *tool;
  const char *what;
} tools[] = {
  { "tlp", "runtime PM, USB autosuspend, SATA link power, Wi-Fi and audio power save" },
  { "laptop-mode-tools", "runtime PM, USB autosuspend, SATA link power, Wi-Fi and audio power save" },
  { "tuned", "USB autosuspend, SATA link power, audio power save (by profile)" },
  { "powertop", "runtime PM, USB autosuspend, SATA link power, audio power save (all tunables, at boot)" },
};

/* What one scan found: enabled unit name → evidence (relative path). */
typedef struct {
  const char *root;
  GHashTable *enabled;
  guint       n_dirs;
  guint       n_names;
  guint       n_files;
} Scan;

static gboolean
is_dir_no_follow (const char *path)
{
  struct stat st;

  return lstat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

static gboolean
exists_no_follow (const char *path)
{
  struct stat st;

  return lstat (path, &st) == 0;
}

/* @path (below root) after following symlinks, each resolved inside root;
 * NULL when it does not exist or the chain is too long. @is_dev_null is set
 * when the chain ends at /dev/null (a masked unit). */
static char *
resolve_in_root (const char *root, const char *path, gboolean *is_dev_null)
{
  g_autofree char *current = g_strdup (path);

  *is_dev_null = FALSE;
  for (guint depth = 0; depth < SYMLINK_DEPTH_MAX; depth++)
    {
      g_autofree char *target = NULL;
      struct stat st;

      if (lstat (current, &st) != 0)
        return NULL;
      if (!S_ISLNK (st.st_mode))
        return g_steal_pointer (&current);
      target = g_file_read_link (current, NULL);
      if (target == NULL)
        return NULL;
      if (g_str_equal (target, "/dev/null"))
        {
          *is_dev_null = TRUE;
          return NULL;
        }
      if (g_path_is_absolute (target))
        {
          g_free (current);
          current = g_build_filename (root, target, NULL);
        }
      else
        {
          g_autofree char *dir = g_path_get_dirname (current);
          g_free (current);
          current = g_build_filename (dir, target, NULL);
        }
    }
  return NULL;
}

static gboolean
unit_is_masked (const Scan *scan, const char *name)
{
  for (guint i = 0; mask_dirs[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (scan->root, mask_dirs[i], name, NULL);
      g_autofree char *resolved = NULL;
      gboolean dev_null;

      resolved = resolve_in_root (scan->root, path, &dev_null);
      if (dev_null)
        return TRUE;
      /* systemd also takes an empty file in these places as a mask */
      if (resolved != NULL)
        {
          struct stat st;
          if (stat (resolved, &st) == 0 && S_ISREG (st.st_mode) && st.st_size == 0)
            return TRUE;
        }
    }
  return FALSE;
}

/* The unit file of @name, first in search-path order, resolved; NULL when
 * not installed or masked. */
static char *
unit_file_path (const Scan *scan, const char *name)
{
  if (unit_is_masked (scan, name))
    return NULL;
  for (guint i = 0; unit_dirs[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (scan->root, unit_dirs[i], name, NULL);
      gboolean dev_null;
      char *resolved = resolve_in_root (scan->root, path, &dev_null);

      if (resolved != NULL)
        return resolved;
    }
  return NULL;
}

static void
scan_wants_dir (Scan *scan, const char *unit_dir, const char *wants)
{
  g_autofree char *path = g_build_filename (scan->root, unit_dir, wants, NULL);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (!is_dir_no_follow (path))
    return;
  dir = g_dir_open (path, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      if (scan->n_names >= PP_CONFLICTS_MAX_NAMES)
        return;
      scan->n_names++;
      if (!g_str_has_suffix (name, ".service") || g_hash_table_contains (scan->enabled, name))
        continue;
      g_hash_table_insert (scan->enabled, g_strdup (name),
                           g_build_filename (unit_dir, wants, name, NULL));
    }
}

/* The *.wants and *.requires entries of @path, sorted; at most
 * PP_CONFLICTS_MAX_DIR_ENTRIES entries of the directory are looked at. */
static GPtrArray *
list_dependency_dirs (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  guint n = 0;

  while (dir != NULL && n++ < PP_CONFLICTS_MAX_DIR_ENTRIES &&
         (name = g_dir_read_name (dir)) != NULL)
    {
      if (g_str_has_suffix (name, ".wants") || g_str_has_suffix (name, ".requires"))
        g_ptr_array_add (names, g_strdup (name));
    }
  g_ptr_array_sort (names, pp_compare_strings);
  return names;
}

static void
scan_enabled_units (Scan *scan)
{
  for (guint i = 0; unit_dirs[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (scan->root, unit_dirs[i], NULL);
      g_autoptr(GPtrArray) names = NULL;

      if (!is_dir_no_follow (path))
        continue;
      names = list_dependency_dirs (path);
      for (guint j = 0; j < names->len; j++)
        {
          if (scan->n_dirs >= PP_CONFLICTS_MAX_DIRS)
            return;
          scan->n_dirs++;
          scan_wants_dir (scan, unit_dirs[i], g_ptr_array_index (names, j));
        }
    }
}

/* The evidence that @name is enabled and not masked, or NULL. */
static const char *
enabled_evidence (const Scan *scan, const char *name)
{
  const char *evidence = g_hash_table_lookup (scan->enabled, name);

  if (evidence == NULL || unit_is_masked (scan, name))
    return NULL;
  return evidence;
}

/* At most PP_CONFLICTS_MAX_FILE_SIZE bytes of the regular file @path, or
 * NULL. */
static char *
read_bounded (const char *path)
{
  return pp_read_regular_file_bounded (path, PP_CONFLICTS_MAX_FILE_SIZE);
}

gboolean
pp_conflicts_unit_runs_powertop_auto_tune (const char *text)
{
  g_auto(GStrv) lines = NULL;

  if (text == NULL)
    return FALSE;
  lines = g_strsplit (text, "\n", 0);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      const char *eq;
      g_auto(GStrv) words = NULL;
      gboolean powertop = FALSE, auto_tune = FALSE;

      while (g_ascii_isspace (*line))
        line++;
      /* ExecStart=, ExecStartPre=, ExecStartPost= */
      if (!g_str_has_prefix (line, "ExecStart"))
        continue;
      eq = strchr (line, '=');
      if (eq == NULL)
        continue;
      /* the command and its arguments: powertop by name or path, possibly
       * behind a shell (sh -c '... powertop --auto-tune') */
      words = g_strsplit_set (eq + 1, " \t'\";", 0);
      for (guint j = 0; words[j] != NULL; j++)
        {
          g_autofree char *base = NULL;

          if (g_str_equal (words[j], "--auto-tune"))
            auto_tune = TRUE;
          else if (words[j][0] != '\0')
            {
              /* strip systemd's prefixes (@-:+!) before the path */
              const char *word = words[j] + strspn (words[j], "@-:+!");
              base = g_path_get_basename (word);
              if (g_str_equal (base, "powertop"))
                powertop = TRUE;
            }
        }
      if (powertop && auto_tune)
        return TRUE;
    }
  return FALSE;
}

/* An enabled .service (sorted by name) that runs powertop --auto-tune:
 * its evidence, or NULL. */
static char *
find_powertop_unit (Scan *scan)
{
  g_autoptr(GPtrArray) names = pp_hash_table_sorted_keys (scan->enabled);

  for (guint i = 0; i < names->len; i++)
    {
      const char *unit = g_ptr_array_index (names, i);
      g_autofree char *path = NULL;
      g_autofree char *text = NULL;

      if (scan->n_files >= PP_CONFLICTS_MAX_UNIT_FILES)
        return NULL;
      path = unit_file_path (scan, unit);
      if (path == NULL)
        continue;
      scan->n_files++;
      text = read_bounded (path);
      if (pp_conflicts_unit_runs_powertop_auto_tune (text))
        return g_strdup_printf ("%s runs powertop --auto-tune (%s)", unit,
                                (const char *) g_hash_table_lookup (scan->enabled, unit));
    }
  return NULL;
}

static char *
run_state (const Scan *scan, const char *relative)
{
  g_autofree char *path = g_build_filename (scan->root, relative, NULL);

  if (!exists_no_follow (path))
    return NULL;
  return g_strdup_printf ("run state %s", relative);
}

static char *
enabled (const Scan *scan, const char *unit)
{
  const char *evidence = enabled_evidence (scan, unit);

  return evidence != NULL ? g_strdup_printf ("%s enabled (%s)", unit, evidence) : NULL;
}

GPtrArray *
pp_conflicts_detect (const char *root)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_conflict_free);
  g_autoptr(GHashTable) enabled_units = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                               g_free, g_free);
  Scan scan = { root != NULL ? root : "/", enabled_units, 0, 0, 0 };
  char *evidence[G_N_ELEMENTS (tools)] = { NULL, };

  scan_enabled_units (&scan);

  evidence[0] = enabled (&scan, "tlp.service");
  if (evidence[0] == NULL)
    evidence[0] = run_state (&scan, "run/tlp");

  evidence[1] = enabled (&scan, "laptop-mode.service");
  if (evidence[1] == NULL)
    evidence[1] = run_state (&scan, "run/laptop-mode-tools");
  if (evidence[1] == NULL)
    {
      g_autofree char *conf = g_build_filename (scan.root, "etc/laptop-mode/laptop-mode.conf", NULL);
      g_autofree char *unit = NULL;

      if (exists_no_follow (conf) && (unit = unit_file_path (&scan, "laptop-mode.service")) != NULL)
        evidence[1] = g_strdup ("etc/laptop-mode/laptop-mode.conf and laptop-mode.service installed");
    }

  evidence[2] = enabled (&scan, "tuned.service");
  if (evidence[2] == NULL)
    evidence[2] = run_state (&scan, "run/tuned/tuned.pid");

  evidence[3] = find_powertop_unit (&scan);

  for (guint i = 0; i < G_N_ELEMENTS (tools); i++)
    {
      if (evidence[i] != NULL)
        g_ptr_array_add (rows, pp_conflict_new (tools[i].tool, tools[i].what, evidence[i]));
      g_free (evidence[i]);
    }
  return rows;
}

static gboolean
has_subject (GPtrArray *rows, const char *subject)
{
  for (guint i = 0; rows != NULL && i < rows->len; i++)
    {
      const PpConflict *c = g_ptr_array_index (rows, i);
      if (g_strcmp0 (c->subject, subject) == 0)
        return TRUE;
    }
  return FALSE;
}

guint
pp_conflicts_log_new (GPtrArray *previous, GPtrArray *current)
{
  guint logged = 0;

  for (guint i = 0; current != NULL && i < current->len; i++)
    {
      const PpConflict *c = g_ptr_array_index (current, i);

      if (has_subject (previous, c->subject))
        continue;
      pp_log_event (PP_LOG_CONFLICT_DETECTED, G_LOG_LEVEL_WARNING,
                    PP_LOG_FIELDS ({ "TOOL", c->subject }, { "WHAT", c->what },
                                   { "EVIDENCE", c->evidence }),
                    "%s also manages device power (%s): %s; powerpolicyd reports "
                    "what it changes and stops writing an attribute it keeps changing",
                    c->subject, c->what, c->evidence != NULL ? c->evidence : "found");
      logged++;
    }
  return logged;
}
