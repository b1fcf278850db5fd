/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-config"

#include "config.h"

#include <string.h>

#include "pp-config.h"
#include "pp-policy.h"
#include "pp-util.h"


#define PP_DEFAULT_IDLE_TIMEOUT_SEC   300
#define PP_DEFAULT_HOLDOFF_SEC        30
#define PP_DEFAULT_QUIRK_TIMEOUT_SEC  5

static const char * const lid_action_names[] = {
  [PP_LID_ACTION_SUSPEND]                = "suspend",
  [PP_LID_ACTION_HIBERNATE]              = "hibernate",
  [PP_LID_ACTION_HYBRID_SLEEP]           = "hybrid-sleep",
  [PP_LID_ACTION_SUSPEND_THEN_HIBERNATE] = "suspend-then-hibernate",
  [PP_LID_ACTION_LOCK]                   = "lock",
  [PP_LID_ACTION_POWER_OFF_DISPLAY]      = "power-off-display",
  [PP_LID_ACTION_IGNORE]                 = "ignore",
};

static const char * const link_policies[] = {
  "max_performance", "medium_power", "med_power_with_dipm", "min_power",
  "keep_firmware_settings", NULL,
};
static const char * const mem_sleep_values[] = {
  "deep", "s2idle", "shallow", "auto", NULL,
};
static const char * const hibernate_modes[] = {
  "platform", "shutdown", "reboot", "suspend", "auto", "test", "testproc", NULL,
};

PpSetting *
pp_setting_new (const char *key, const char *value)
{
  PpSetting *s = g_new0 (PpSetting, 1);

  s->key = g_strdup (key);
  s->value = g_strdup (value);
  return s;
}

void
pp_setting_free (PpSetting *setting)
{
  if (setting == NULL)
    return;
  g_free (setting->key);
  g_free (setting->value);
  g_free (setting);
}

static PpLayeredSettings *
pp_layered_settings_new (void)
{
  PpLayeredSettings *ls = g_new0 (PpLayeredSettings, 1);

  for (guint i = 0; i < PP_N_LAYERS; i++)
    ls->layers[i] = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_setting_free);
  return ls;
}

static void
pp_layered_settings_free (PpLayeredSettings *ls)
{
  for (guint i = 0; i < PP_N_LAYERS; i++)
    g_ptr_array_unref (ls->layers[i]);
  g_free (ls);
}

static void
layer_set (GPtrArray *layer, const char *key, const char *value)
{
  for (guint i = 0; i < layer->len; i++)
    {
      PpSetting *s = g_ptr_array_index (layer, i);

      if (g_str_equal (s->key, key))
        {
          g_free (s->value);
          s->value = g_strdup (value);
          return;
        }
    }
  g_ptr_array_add (layer, pp_setting_new (key, value));
}

PpConfig *
pp_config_new (void)
{
  PpConfig *config = g_new0 (PpConfig, 1);

  config->idle_timeout_sec = PP_DEFAULT_IDLE_TIMEOUT_SEC;
  config->restore_on_exit = TRUE;
  config->dry_run = FALSE;
  config->classes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) pp_layered_settings_free);
  config->modules = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) pp_layered_settings_free);
  config->lid.handle_lid = TRUE;
  config->lid.on_close = PP_LID_ACTION_SUSPEND;
  config->lid.on_close_external_power = PP_LID_ACTION_SUSPEND;
  config->lid.on_close_docked = PP_LID_ACTION_IGNORE;
  config->lid.holdoff_sec = PP_DEFAULT_HOLDOFF_SEC;
  config->sleep.mem_sleep = g_strdup ("auto");
  config->sleep.hibernate_mode = g_strdup ("auto");
  config->sleep.video_quirks = NULL;
  config->sleep.quirk_helper = NULL;
  config->sleep.quirk_timeout_sec = PP_DEFAULT_QUIRK_TIMEOUT_SEC;
  return config;
}

void
pp_config_free (PpConfig *config)
{
  if (config == NULL)
    return;
  g_hash_table_unref (config->classes);
  g_hash_table_unref (config->modules);
  g_free (config->sleep.mem_sleep);
  g_free (config->sleep.hibernate_mode);
  g_strfreev (config->sleep.video_quirks);
  g_free (config->sleep.quirk_helper);
  g_free (config);
}

const PpLayeredSettings *
pp_config_get_class (const PpConfig *config, const char *name)
{
  return g_hash_table_lookup (config->classes, name);
}

const PpLayeredSettings *
pp_config_get_module (const PpConfig *config, const char *name)
{
  return g_hash_table_lookup (config->modules, name);
}

GPtrArray *
pp_config_list_modules (const PpConfig *config)
{
  GPtrArray *names = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, config->modules);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (names, key);
  g_ptr_array_sort (names, pp_compare_strings);
  return names;
}

GPtrArray *
pp_config_problems_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) pp_config_problem_free);
}

void
pp_config_problem_free (PpConfigProblem *problem)
{
  if (problem == NULL)
    return;
  g_free (problem->file);
  g_free (problem->message);
  g_free (problem);
}

char *
pp_config_problem_to_string (const PpConfigProblem *problem)
{
  if (problem->line == 0)
    return g_strdup_printf ("%s: %s", problem->file, problem->message);
  return g_strdup_printf ("%s:%u: %s", problem->file, problem->line, problem->message);
}

static void problem_add (GPtrArray  *problems,
                         const char *file,
                         guint       line,
                         const char *format,
                         ...) G_GNUC_PRINTF (4, 5);

static void
problem_add (GPtrArray *problems, const char *file, guint line, const char *format, ...)
{
  PpConfigProblem *p;
  va_list args;

  if (problems == NULL)
    return;
  p = g_new0 (PpConfigProblem, 1);
  p->file = g_strdup (file);
  p->line = line;
  va_start (args, format);
  p->message = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (problems, p);
}

const char *
pp_lid_action_to_string (PpLidAction action)
{
  if ((guint) action >= G_N_ELEMENTS (lid_action_names))
    return "ignore";
  return lid_action_names[action];
}

gboolean
pp_lid_action_from_string (const char *str, PpLidAction *action)
{
  for (guint i = 0; i < G_N_ELEMENTS (lid_action_names); i++)
    {
      if (g_strcmp0 (str, lid_action_names[i]) == 0)
        {
          *action = (PpLidAction) i;
          return TRUE;
        }
    }
  return FALSE;
}

static gboolean
str_in (const char *value, const char * const *list)
{
  return value != NULL && g_strv_contains (list, value);
}

static char *
join_list (const char * const *list)
{
  return g_strjoinv ("|", (char **) list);
}

static char *
join_lid_actions (void)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (lid_action_names); i++)
    g_string_append_printf (s, "%s%s", i ? "|" : "", lid_action_names[i]);
  return g_string_free (s, FALSE);
}

gboolean
pp_config_parse_control (const char *value, GError **error)
{
  if (g_strcmp0 (value, "on") == 0 || g_strcmp0 (value, "auto") == 0)
    return TRUE;
  g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
               "invalid value '%s' (expected on|auto)", value ? value : "");
  return FALSE;
}

gboolean
pp_config_parse_wakeup (const char *value, GError **error)
{
  if (g_strcmp0 (value, "enabled") == 0 || g_strcmp0 (value, "disabled") == 0)
    return TRUE;
  g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
               "invalid value '%s' (expected enabled|disabled)", value ? value : "");
  return FALSE;
}

gboolean
pp_config_parse_delay_ms (const char *value, gint *delay_ms, GError **error)
{
  gint64 v = 0;

  /* -1 is the kernel's "never autosuspend"; other negatives mean the same
   * to the kernel but are almost certainly a typo. */
  if (value == NULL ||
      !g_ascii_string_to_signed (value, 10, -1, G_MAXINT32, &v, NULL))
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "invalid value '%s' (expected milliseconds, -1 to %d)",
                   value ? value : "", G_MAXINT32);
      return FALSE;
    }
  if (delay_ms)
    *delay_ms = (gint) v;
  return TRUE;
}

static gboolean
parse_uint (const char *value, guint max, guint *out)
{
  guint64 v = 0;

  if (value == NULL || !g_ascii_string_to_unsigned (value, 10, 0, max, &v, NULL))
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

static gboolean
parse_bool (const char *value, gboolean *out)
{
  if (g_strcmp0 (value, "true") == 0 || g_strcmp0 (value, "1") == 0 ||
      g_strcmp0 (value, "yes") == 0)
    *out = TRUE;
  else if (g_strcmp0 (value, "false") == 0 || g_strcmp0 (value, "0") == 0 ||
           g_strcmp0 (value, "no") == 0)
    *out = FALSE;
  else
    return FALSE;
  return TRUE;
}

static gboolean
name_is_valid (const char *name)
{
  if (name == NULL || *name == '\0' || strlen (name) > 128 ||
      g_str_equal (name, ".") || g_str_equal (name, ".."))
    return FALSE;
  for (const char *p = name; *p; p++)
    {
      if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-' && *p != '.')
        return FALSE;
    }
  return TRUE;
}

gboolean
pp_config_relpath_is_valid (const char *relpath)
{
  g_auto(GStrv) parts = NULL;

  if (relpath == NULL || *relpath == '\0' || *relpath == '/' || strlen (relpath) > 255)
    return FALSE;
  for (const char *p = relpath; *p; p++)
    {
      if (!g_ascii_isalnum (*p) && strchr ("_-.:/", *p) == NULL)
        return FALSE;
    }
  parts = g_strsplit (relpath, "/", -1);
  for (guint i = 0; parts[i]; i++)
    {
      if (*parts[i] == '\0' || g_str_equal (parts[i], ".") || g_str_equal (parts[i], ".."))
        return FALSE;
    }
  return TRUE;
}

/* A value as GKeyFile would unescape it: \s \n \t \r \\ */
static char *
unescape_value (const char *raw)
{
  GString *s = g_string_new (NULL);

  for (const char *p = raw; *p; p++)
    {
      if (*p == '\\' && p[1] != '\0')
        {
          p++;
          switch (*p)
            {
            case 's': g_string_append_c (s, ' '); break;
            case 'n': g_string_append_c (s, '\n'); break;
            case 't': g_string_append_c (s, '\t'); break;
            case 'r': g_string_append_c (s, '\r'); break;
            case '\\': g_string_append_c (s, '\\'); break;
            default:
              g_string_append_c (s, '\\');
              g_string_append_c (s, *p);
              break;
            }
        }
      else
        {
          g_string_append_c (s, *p);
        }
    }
  return g_string_free (s, FALSE);
}

typedef enum {
  SECTION_NONE,
  SECTION_UNKNOWN,
  SECTION_DAEMON,
  SECTION_CLASS,
  SECTION_MODULE,
  SECTION_LID,
  SECTION_SLEEP,
} SectionKind;

typedef struct {
  PpConfig    *config;
  const char  *file;
  GPtrArray   *problems;
  SectionKind  kind;
  GPtrArray   *layer;      /* for SECTION_CLASS / SECTION_MODULE */
} ParseState;

static void
parse_group (ParseState *st, const char *name, guint line)
{
  g_autofree char *base = NULL;
  const char *suffix;
  PpLayer layer = PP_LAYER_BASE;
  GHashTable *table;
  PpLayeredSettings *ls;

  st->layer = NULL;
  if (g_str_equal (name, "Daemon"))
    {
      st->kind = SECTION_DAEMON;
      return;
    }
  if (g_str_equal (name, "Lid"))
    {
      st->kind = SECTION_LID;
      return;
    }
  if (g_str_equal (name, "Sleep"))
    {
      st->kind = SECTION_SLEEP;
      return;
    }

  if (g_str_has_prefix (name, "Class "))
    {
      st->kind = SECTION_CLASS;
      table = st->config->classes;
      base = g_strdup (name + strlen ("Class "));
    }
  else if (g_str_has_prefix (name, "Module "))
    {
      st->kind = SECTION_MODULE;
      table = st->config->modules;
      base = g_strdup (name + strlen ("Module "));
    }
  else
    {
      st->kind = SECTION_UNKNOWN;
      problem_add (st->problems, st->file, line,
                   "unknown section [%s], ignoring it", name);
      return;
    }

  g_strstrip (base);
  suffix = strrchr (base, ':');
  if (suffix != NULL)
    {
      if (g_str_equal (suffix, ":battery"))
        layer = PP_LAYER_BATTERY;
      else if (g_str_equal (suffix, ":idle"))
        layer = PP_LAYER_IDLE;
      else
        {
          st->kind = SECTION_UNKNOWN;
          problem_add (st->problems, st->file, line,
                       "unknown layer '%s' in [%s] (expected :battery or :idle), ignoring the section",
                       suffix + 1, name);
          return;
        }
      base[suffix - base] = '\0';
    }

  if (!name_is_valid (base))
    {
      problem_add (st->problems, st->file, line,
                   "invalid %s name '%s' in [%s], ignoring the section",
                   st->kind == SECTION_MODULE ? "module" : "class", base, name);
      st->kind = SECTION_UNKNOWN;
      return;
    }

  ls = g_hash_table_lookup (table, base);
  if (ls == NULL)
    {
      ls = pp_layered_settings_new ();
      g_hash_table_insert (table, g_strdup (base), ls);
    }
  st->layer = ls->layers[layer];
}

static void
bad_value (ParseState *st, guint line, const char *key, const char *value, const char *expected)
{
  problem_add (st->problems, st->file, line,
               "invalid value '%s' for %s (expected %s), ignoring it", value, key, expected);
}

static void
parse_daemon_key (ParseState *st, guint line, const char *key, const char *value)
{
  PpConfig *c = st->config;

  if (g_str_equal (key, "IdleTimeoutSec"))
    {
      if (!parse_uint (value, G_MAXUINT32, &c->idle_timeout_sec))
        bad_value (st, line, key, value, "seconds");
    }
  else if (g_str_equal (key, "RestoreOnExit"))
    {
      if (!parse_bool (value, &c->restore_on_exit))
        bad_value (st, line, key, value, "true|false");
    }
  else if (g_str_equal (key, "DryRun"))
    {
      if (!parse_bool (value, &c->dry_run))
        bad_value (st, line, key, value, "true|false");
    }
  else
    {
      problem_add (st->problems, st->file, line,
                   "unknown key '%s' in [Daemon], ignoring it", key);
    }
}

static void
parse_lid_key (ParseState *st, guint line, const char *key, const char *value)
{
  PpLidConfig *lid = &st->config->lid;
  PpLidAction *target = NULL;

  if (g_str_equal (key, "HandleLid"))
    {
      if (!parse_bool (value, &lid->handle_lid))
        bad_value (st, line, key, value, "true|false");
      return;
    }
  if (g_str_equal (key, "HoldoffSec"))
    {
      if (!parse_uint (value, 24 * 3600, &lid->holdoff_sec))
        bad_value (st, line, key, value, "seconds");
      return;
    }
  if (g_str_equal (key, "OnClose"))
    target = &lid->on_close;
  else if (g_str_equal (key, "OnCloseExternalPower"))
    target = &lid->on_close_external_power;
  else if (g_str_equal (key, "OnCloseDocked"))
    target = &lid->on_close_docked;

  if (target == NULL)
    {
      problem_add (st->problems, st->file, line,
                   "unknown key '%s' in [Lid], ignoring it", key);
      return;
    }
  if (!pp_lid_action_from_string (value, target))
    {
      g_autofree char *expected = join_lid_actions ();
      bad_value (st, line, key, value, expected);
    }
}

static void
parse_sleep_key (ParseState *st, guint line, const char *key, const char *value)
{
  PpSleepConfig *sleep = &st->config->sleep;

  if (g_str_equal (key, "MemSleep"))
    {
      g_autofree char *expected = join_list (mem_sleep_values);
      if (str_in (value, mem_sleep_values))
        {
          g_free (sleep->mem_sleep);
          sleep->mem_sleep = g_strdup (value);
        }
      else
        bad_value (st, line, key, value, expected);
    }
  else if (g_str_equal (key, "HibernateMode"))
    {
      g_autofree char *expected = join_list (hibernate_modes);
      if (str_in (value, hibernate_modes))
        {
          g_free (sleep->hibernate_mode);
          sleep->hibernate_mode = g_strdup (value);
        }
      else
        bad_value (st, line, key, value, expected);
    }
  else if (g_str_equal (key, "VideoQuirks"))
    {
      g_auto(GStrv) parts = g_strsplit (value, ",", -1);
      g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_free);

      if (g_str_equal (value, "auto") || *value == '\0')
        {
          g_clear_pointer (&sleep->video_quirks, g_strfreev);
          return;
        }
      for (guint i = 0; parts[i]; i++)
        {
          char *q = g_strstrip (parts[i]);
          if (*q == '\0')
            continue;
          if (!name_is_valid (q))
            {
              bad_value (st, line, key, q, "a comma list of quirk names");
              continue;
            }
          g_ptr_array_add (list, g_strdup (q));
        }
      if (list->len == 0)
        return;   /* every name was reported: keep what was there */
      g_ptr_array_add (list, NULL);
      g_strfreev (sleep->video_quirks);
      sleep->video_quirks = (char **) g_ptr_array_free (g_steal_pointer (&list), FALSE);
    }
  else if (g_str_equal (key, "QuirkHelper"))
    {
      if (*value != '\0' && !g_path_is_absolute (value))
        {
          bad_value (st, line, key, value, "an absolute path or empty");
          return;
        }
      g_free (sleep->quirk_helper);
      sleep->quirk_helper = *value ? g_strdup (value) : NULL;
    }
  else if (g_str_equal (key, "QuirkTimeoutSec"))
    {
      guint t = 0;
      if (parse_uint (value, 600, &t) && t > 0)
        sleep->quirk_timeout_sec = t;
      else
        bad_value (st, line, key, value, "seconds, 1 to 600");
    }
  else
    {
      problem_add (st->problems, st->file, line,
                   "unknown key '%s' in [Sleep], ignoring it", key);
    }
}

static void
parse_class_key (ParseState *st, guint line, const char *key, const char *value)
{
  g_autoptr(GError) error = NULL;

  if (g_str_equal (key, "Control"))
    {
      if (!pp_config_parse_control (value, &error))
        bad_value (st, line, key, value, "on|auto");
      else
        layer_set (st->layer, PP_ATTR_CONTROL, value);
    }
  else if (g_str_equal (key, "AutosuspendDelayMs"))
    {
      if (!pp_config_parse_delay_ms (value, NULL, &error))
        bad_value (st, line, key, value, "milliseconds, -1 or more");
      else
        layer_set (st->layer, PP_ATTR_DELAY, value);
    }
  else if (g_str_equal (key, "Wakeup"))
    {
      if (!pp_config_parse_wakeup (value, &error))
        bad_value (st, line, key, value, "enabled|disabled");
      else
        layer_set (st->layer, PP_ATTR_WAKEUP, value);
    }
  else if (g_str_equal (key, "LinkPowerPolicy"))
    {
      g_autofree char *expected = join_list (link_policies);
      if (!str_in (value, link_policies))
        bad_value (st, line, key, value, expected);
      else
        layer_set (st->layer, PP_ATTR_LINK_POLICY, value);
    }
  else if (g_str_has_prefix (key, "Attr."))
    {
      const char *relpath = key + strlen ("Attr.");

      if (!pp_config_relpath_is_valid (relpath))
        problem_add (st->problems, st->file, line,
                     "invalid attribute path '%s' (a relative path inside the device directory, no '..'), ignoring it",
                     relpath);
      else
        layer_set (st->layer, relpath, value);
    }
  else
    {
      problem_add (st->problems, st->file, line,
                   "unknown key '%s' in a [Class] section (expected Control, AutosuspendDelayMs, Wakeup, LinkPowerPolicy or Attr.<path>), ignoring it",
                   key);
    }
}

static void
parse_module_key (ParseState *st, guint line, const char *key, const char *value)
{
  if (!name_is_valid (key))
    {
      problem_add (st->problems, st->file, line,
                   "invalid module parameter name '%s', ignoring it", key);
      return;
    }
  layer_set (st->layer, key, value);
}

static void
parse_line (ParseState *st, char *text, guint line)
{
  char *eq;
  g_autofree char *value = NULL;
  char *key;

  g_strchug (text);
  /* GKeyFile keeps trailing whitespace of values only when escaped; we
   * strip it like it does. */
  if (*text == '\0' || *text == '#')
    return;

  if (*text == '[')
    {
      char *end = strrchr (text, ']');
      g_strchomp (text);
      if (end == NULL || end[1] != '\0' || end == text + 1)
        {
          st->kind = SECTION_UNKNOWN;
          problem_add (st->problems, st->file, line,
                       "malformed section header '%s', ignoring the section", text);
          return;
        }
      *end = '\0';
      parse_group (st, text + 1, line);
      return;
    }

  eq = strchr (text, '=');
  if (eq == NULL)
    {
      problem_add (st->problems, st->file, line,
                   "malformed line '%s' (expected KEY=VALUE), ignoring it", g_strchomp (text));
      return;
    }
  *eq = '\0';
  key = g_strchomp (text);
  value = unescape_value (g_strstrip (eq + 1));

  if (*key == '\0')
    {
      problem_add (st->problems, st->file, line, "missing key before '=', ignoring the line");
      return;
    }

  switch (st->kind)
    {
    case SECTION_NONE:
      problem_add (st->problems, st->file, line,
                   "key '%s' outside of any section, ignoring it", key);
      return;
    case SECTION_UNKNOWN:
      return;   /* the section was reported once */
    case SECTION_DAEMON:
      parse_daemon_key (st, line, key, value);
      return;
    case SECTION_LID:
      parse_lid_key (st, line, key, value);
      return;
    case SECTION_SLEEP:
      parse_sleep_key (st, line, key, value);
      return;
    case SECTION_CLASS:
      parse_class_key (st, line, key, value);
      return;
    case SECTION_MODULE:
      parse_module_key (st, line, key, value);
      return;
    default:
      g_assert_not_reached ();
    }
}

void
pp_config_load_data (PpConfig   *config,
                     const char *file_name,
                     const char *text,
                     gsize       length,
                     GPtrArray  *problems)
{
  ParseState st = { config, file_name, problems, SECTION_NONE, NULL };
  g_autofree char *copy = NULL;
  char *cursor;
  guint line = 0;

  g_return_if_fail (config != NULL);
  g_return_if_fail (text != NULL || length == 0);

  if (text == NULL)
    return;
  if (memchr (text, '\0', length) != NULL)
    {
      problem_add (problems, file_name, 0, "contains a NUL byte, ignoring the file");
      return;
    }
  if (!g_utf8_validate_len (text, length, NULL))
    {
      problem_add (problems, file_name, 0, "is not valid UTF-8, ignoring the file");
      return;
    }

  copy = g_strndup (text, length);
  cursor = copy;
  while (cursor != NULL && *cursor != '\0')
    {
      char *nl = strchr (cursor, '\n');

      line++;
      if (nl != NULL)
        *nl = '\0';
      if (nl != NULL && nl > cursor && nl[-1] == '\r')
        nl[-1] = '\0';
      parse_line (&st, cursor, line);
      cursor = nl ? nl + 1 : NULL;
    }
}
