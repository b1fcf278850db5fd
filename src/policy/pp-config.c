/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-config"

#include "config.h"

#include <string.h>

#include "pp-config.h"
#include "pp-knobs.h"
#include "pp-util.h"


#define PP_DEFAULT_IDLE_TIMEOUT_SEC   300
#define PP_DEFAULT_HOLDOFF_SEC        30
#define PP_DEFAULT_QUIRK_TIMEOUT_SEC  5
/* [Sleep] RestoreDefaultsClasses=/Drivers= when not set: the SATA hosts,
 * ports and disks (ata-port and sata-disk as the disk rules name them)
 * and the AHCI controllers (TLP 1.6's AHCI runtime PM around sleep) */
#define PP_DEFAULT_RESTORE_CLASSES    "sata-host ata-port sata-disk"
#define PP_DEFAULT_RESTORE_DRIVERS    "ahci"

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

const char * const pp_platform_profile_values[] = {
  "low-power", "cool", "quiet", "balanced", "balanced-performance", "performance", "custom", NULL,
};
const char * const pp_epp_values[] = {
  "default", "performance", "balance_performance", "balance_power", "power", NULL,
};

static const char * const profile_names[] = {
  [PP_PROFILE_BALANCED] = "balanced",
  [PP_PROFILE_POWER_SAVER] = "power-saver",
  [PP_PROFILE_PERFORMANCE] = "performance",
};

const char *
pp_profile_to_string (PpProfile profile)
{
  if ((guint) profile >= G_N_ELEMENTS (profile_names))
    return "balanced";
  return profile_names[profile];
}

gboolean
pp_profile_from_string (const char *str, PpProfile *profile)
{
  for (guint i = 0; i < G_N_ELEMENTS (profile_names); i++)
    {
      if (g_strcmp0 (str, profile_names[i]) == 0)
        {
          *profile = (PpProfile) i;
          return TRUE;
        }
    }
  return FALSE;
}

const char *
pp_layer_suffix (PpLayer layer)
{
  static const char * const suffixes[PP_N_LAYERS] = {
    [PP_LAYER_BASE] = "",
    [PP_LAYER_BATTERY] = ":battery",
    [PP_LAYER_POWER_SAVER] = ":power-saver",
    [PP_LAYER_PERFORMANCE] = ":performance",
    [PP_LAYER_LOW_BATTERY] = ":low-battery",
    [PP_LAYER_IDLE] = ":idle",
  };

  if ((guint) layer >= PP_N_LAYERS)
    return "";
  return suffixes[layer];
}

PpSetting *
pp_setting_new_at (const char *key, const char *value, const char *file, guint line)
{
  PpSetting *s = g_new0 (PpSetting, 1);

  s->key = g_strdup (key);
  s->value = g_strdup (value);
  s->file = g_strdup (file);
  s->line = line;
  return s;
}

PpSetting *
pp_setting_new (const char *key, const char *value)
{
  return pp_setting_new_at (key, value, NULL, 0);
}

void
pp_setting_free (PpSetting *setting)
{
  if (setting == NULL)
    return;
  g_free (setting->key);
  g_free (setting->value);
  g_free (setting->file);
  g_free (setting->origin);
  g_free (setting);
}

static PpLayeredSettings *
pp_layered_settings_new (void)
{
  PpLayeredSettings *ls = g_new0 (PpLayeredSettings, 1);

  for (guint i = 0; i < PP_N_LAYERS; i++)
    ls->layers[i] = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_setting_free);
  ls->apst_quirks = -1;
  return ls;
}

static void
pp_layered_settings_free (PpLayeredSettings *ls)
{
  for (guint i = 0; i < PP_N_LAYERS; i++)
    g_ptr_array_unref (ls->layers[i]);
  g_strfreev (ls->exclude_drivers);
  g_free (ls->exclude_drivers_file);
  g_free (ls->apst_quirks_file);
  g_free (ls);
}

static void
layer_set (GPtrArray *layer, const char *key, const char *value, const char *file, guint line)
{
  for (guint i = 0; i < layer->len; i++)
    {
      PpSetting *s = g_ptr_array_index (layer, i);

      if (g_str_equal (s->key, key))
        {
          g_free (s->value);
          s->value = g_strdup (value);
          g_free (s->file);
          s->file = g_strdup (file);
          s->line = line;
          return;
        }
    }
  g_ptr_array_add (layer, pp_setting_new_at (key, value, file, line));
}

PpConfig *
pp_config_new (void)
{
  PpConfig *config = g_new0 (PpConfig, 1);

  config->idle_timeout_sec = PP_DEFAULT_IDLE_TIMEOUT_SEC;
  config->restore_on_exit = TRUE;
  config->dry_run = FALSE;
  config->max_inhibitors_per_user = PP_DEFAULT_MAX_INHIBITORS_PER_USER;
  config->max_inhibitors = PP_DEFAULT_MAX_INHIBITORS;
  config->low_battery_percent = PP_DEFAULT_LOW_BATTERY_PERCENT;
  config->classes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) pp_layered_settings_free);
  config->modules = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) pp_layered_settings_free);
  config->platform = pp_layered_settings_new ();
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
  config->sleep.restore_defaults = TRUE;
  config->sleep.restore_defaults_classes = g_strsplit (PP_DEFAULT_RESTORE_CLASSES, " ", -1);
  config->sleep.restore_defaults_drivers = g_strsplit (PP_DEFAULT_RESTORE_DRIVERS, " ", -1);
  return config;
}

void
pp_config_free (PpConfig *config)
{
  if (config == NULL)
    return;
  g_hash_table_unref (config->classes);
  g_hash_table_unref (config->modules);
  pp_layered_settings_free (config->platform);
  g_free (config->sleep.mem_sleep_power_saver);
  g_free (config->sleep.mem_sleep_performance);
  g_free (config->sleep.hibernate_mode_power_saver);
  g_free (config->sleep.hibernate_mode_performance);
  g_free (config->sleep.mem_sleep);
  g_free (config->sleep.hibernate_mode);
  g_free (config->sleep.mem_sleep_battery);
  g_free (config->sleep.mem_sleep_low_battery);
  g_free (config->sleep.hibernate_mode_battery);
  g_free (config->sleep.hibernate_mode_low_battery);
  g_strfreev (config->sleep.video_quirks);
  g_free (config->sleep.quirk_helper);
  g_strfreev (config->sleep.restore_defaults_classes);
  g_strfreev (config->sleep.restore_defaults_drivers);
  g_free (config->sleep.restore_defaults_file);
  g_free (config->power_source_file);
  g_free (config);
}

const char *
pp_power_source_to_string (PpPowerSource source)
{
  switch (source)
    {
    case PP_POWER_SOURCE_AC:      return "ac";
    case PP_POWER_SOURCE_BATTERY: return "battery";
    case PP_POWER_SOURCE_AUTO:
    default:                      return "auto";
    }
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
  return pp_hash_table_sorted_keys (config->modules);
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
  g_autofree char *text = NULL;

  if (problem->line == 0)
    text = g_strdup_printf ("%s: %s", problem->file, problem->message);
  else
    text = g_strdup_printf ("%s:%u: %s", problem->file, problem->line, problem->message);
  /* a problem quotes the file's text: one line, escaped, wherever it is
   * shown (standard error, the log, Reload's answer) */
  return pp_escape_text (text, 0);
}

void
pp_config_problem_add (GPtrArray *problems, const char *file, guint line, const char *format, ...)
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

/* the parser's many reports, by a short name */
#define problem_add pp_config_problem_add

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
  g_autofree char *text = value ? g_strstrip (g_strdup (value)) : NULL;
  const char *digits = text;
  gint64 v = 0;
  gboolean ok;

  if (digits != NULL && *digits == '-')
    digits++;
  /* one spelling per number: no '+', no leading zeros, no "-0" */
  ok = digits != NULL && g_ascii_isdigit (*digits) &&
       !(digits[0] == '0' && (digits[1] != '\0' || digits != text));
  for (const char *p = digits; ok && *p; p++)
    ok = g_ascii_isdigit (*p);
  /* -1 is the kernel's "never autosuspend"; other negatives mean the same
   * to the kernel but are almost certainly a typo. */
  if (ok)
    ok = g_ascii_string_to_signed (text, 10, -1, G_MAXINT32, &v, NULL);
  if (!ok)
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

/* "'text'", escaped by pp_escape_text_len() and cut to @max_bytes (0: no
 * limit): safe to log, whatever @text holds. */
static char *
quote_text (const char *text, gsize length, gsize max_bytes)
{
  g_autofree char *escaped = pp_escape_text_len (text, length, max_bytes);

  return g_strdup_printf ("'%s'", escaped);
}

/* ---- the reader: lines to sections and keys ---------------------------------
 *
 * Our own line-based parser of the GKeyFile subset the configuration uses:
 * "[NAME]" headers, KEY=VALUE lines, '#' comments and blank lines; values
 * take GKeyFile's escapes (resolved when the key is applied). A line that
 * breaks the grammar is reported at FILE:LINE and skipped, and the rest of
 * the file still applies. Sections and keys keep the order of their first
 * appearance; a repeated section is merged into the first, a repeated key
 * takes the later value and line. */

typedef struct {
  char  *key;
  char  *value;   /* as written, escapes not yet resolved */
  guint  line;    /* of the last occurrence */
} Entry;

typedef struct {
  char       *name;
  guint       line;      /* of the first header */
  GPtrArray  *entries;   /* Entry*, in order of first appearance */
  GHashTable *by_key;    /* key -> Entry* */
} Section;

typedef struct {
  const char *file;
  GPtrArray  *problems;
  GPtrArray  *sections;  /* Section*, in order of first appearance */
  GHashTable *by_name;   /* name -> Section* */
  Section    *current;   /* NULL before the first header and after a dropped one */
  gboolean    dropping;  /* the current header was dropped: so are its keys */
} Reader;

static void
entry_free (Entry *e)
{
  g_free (e->key);
  g_free (e->value);
  g_free (e);
}

static void
section_free (Section *s)
{
  g_hash_table_unref (s->by_key);
  g_ptr_array_unref (s->entries);
  g_free (s->name);
  g_free (s);
}

/* A header line: '[' NAME ']' then nothing but blanks, NAME not empty,
 * without '[' or control characters. */
static char *
header_name (const char *line)
{
  const char *close = strchr (line + 1, ']');

  if (line[0] != '[' || close == NULL || close == line + 1)
    return NULL;
  for (const char *p = close + 1; *p; p++)
    {
      if (*p != ' ' && *p != '\t')
        return NULL;
    }
  for (const char *p = line + 1; p < close; p++)
    {
      if (*p == '[' || g_ascii_iscntrl (*p))
        return NULL;
    }
  return g_strndup (line + 1, close - line - 1);
}

/* A key name: no control characters (they would reach the log), no '['
 * or ']' except a trailing "[locale]" as GKeyFile writes it (kept as part
 * of the key, reported as unknown later). */
static gboolean
key_name_is_valid (const char *key)
{
  const char *open = strchr (key, '[');
  const char *close = strchr (key, ']');

  for (const char *p = key; *p; p++)
    {
      if (g_ascii_iscntrl (*p))
        return FALSE;
    }
  if (open == NULL)
    return close == NULL;
  if (open == key || close == NULL || close < open || close[1] != '\0' || close == open + 1)
    return FALSE;
  for (const char *p = open + 1; p < close; p++)
    {
      if (!g_ascii_isalnum (*p) && strchr ("-_.@", *p) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* The value with GKeyFile's escapes \s \n \t \r \\ resolved; NULL for any
 * other escape or a backslash at the end. */
static char *
unescape_value (const char *raw)
{
  static const char escapes[] = "sntr\\";
  static const char resolved[] = " \n\t\r\\";
  g_autoptr(GString) out = g_string_sized_new (strlen (raw));

  for (const char *p = raw; *p; p++)
    {
      const char *at;

      if (*p != '\\')
        {
          g_string_append_c (out, *p);
          continue;
        }
      p++;
      at = *p != '\0' ? strchr (escapes, *p) : NULL;
      if (at == NULL)
        return NULL;   /* an unknown escape, or a backslash at the end */
      g_string_append_c (out, resolved[at - escapes]);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
reader_drop (Reader *r, guint line, const char *raw, gsize raw_len, const char *why)
{
  g_autofree char *quoted = quote_text (raw, raw_len, PP_CONFIG_MAX_QUOTE);
  const char *p = raw;

  while (p < raw + raw_len && (*p == ' ' || *p == '\t'))
    p++;
  if (p < raw + raw_len && *p == '[')
    {
      /* a dropped header takes its keys with it, rather than leaving them
       * to the section before */
      problem_add (r->problems, r->file, line, "%s: %s, ignoring the section", why, quoted);
      r->current = NULL;
      r->dropping = TRUE;
      return;
    }
  problem_add (r->problems, r->file, line, "%s: %s, ignoring the line", why, quoted);
}

static void
reader_header (Reader *r, guint line, const char *text, gsize len)
{
  g_autofree char *name = header_name (text);
  Section *s;

  if (name == NULL)
    {
      reader_drop (r, line, text, len, "malformed section header");
      return;
    }
  r->dropping = FALSE;
  s = g_hash_table_lookup (r->by_name, name);
  if (s != NULL)
    {
      problem_add (r->problems, r->file, line,
                   "section [%s] appears again (first at line %u): its keys are merged, a key set twice takes the later value",
                   name, s->line);
      r->current = s;
      return;
    }
  s = g_new0 (Section, 1);
  s->name = g_steal_pointer (&name);
  s->line = line;
  s->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  s->by_key = g_hash_table_new (g_str_hash, g_str_equal);
  g_ptr_array_add (r->sections, s);
  g_hash_table_insert (r->by_name, s->name, s);
  r->current = s;
}

static void
reader_key (Reader *r, guint line, char *text, gsize len)
{
  char *eq = strchr (text, '=');
  char *key;
  char *value;
  Entry *e;

  if (eq == NULL)
    {
      reader_drop (r, line, text, len, "malformed line (expected KEY=VALUE)");
      return;
    }
  if (r->dropping)
    return;   /* its section header was reported */
  *eq = '\0';
  key = g_strchomp (text);
  value = g_strstrip (eq + 1);
  if (*key == '\0')
    {
      problem_add (r->problems, r->file, line, "missing key before '=', ignoring the line");
      return;
    }
  if (!key_name_is_valid (key))
    {
      g_autofree char *quoted = quote_text (key, strlen (key), PP_CONFIG_MAX_QUOTE);
      problem_add (r->problems, r->file, line, "invalid key name %s, ignoring the line", quoted);
      return;
    }
  if (r->current == NULL)
    {
      g_autofree char *quoted = quote_text (key, strlen (key), PP_CONFIG_MAX_QUOTE);
      problem_add (r->problems, r->file, line,
                   "key %s outside of any section, ignoring it", quoted);
      return;
    }
  e = g_hash_table_lookup (r->current->by_key, key);
  if (e != NULL)
    {
      problem_add (r->problems, r->file, line,
                   "%s set again in [%s] (before at line %u), the later value wins",
                   key, r->current->name, e->line);
      g_free (e->value);
      e->value = g_strdup (value);
      e->line = line;
      return;
    }
  e = g_new0 (Entry, 1);
  e->key = g_strdup (key);
  e->value = g_strdup (value);
  e->line = line;
  g_ptr_array_add (r->current->entries, e);
  g_hash_table_insert (r->current->by_key, e->key, e);
}

static void
reader_line (Reader *r, guint line, const char *raw, gsize len)
{
  g_autofree char *copy = NULL;
  char *text;

  if (len > 0 && raw[len - 1] == '\r')
    len--;
  if (len > PP_CONFIG_MAX_LINE)
    {
      g_autofree char *why = g_strdup_printf ("line longer than %u bytes", PP_CONFIG_MAX_LINE);
      reader_drop (r, line, raw, len, why);
      return;
    }
  if (memchr (raw, '\0', len) != NULL)
    {
      reader_drop (r, line, raw, len, "line contains a NUL byte");
      return;
    }
  if (!g_utf8_validate_len (raw, len, NULL))
    {
      reader_drop (r, line, raw, len, "line is not valid UTF-8");
      return;
    }
  copy = g_strndup (raw, len);
  text = g_strstrip (copy);
  if (*text == '\0' || *text == '#')
    return;
  if (*text == '[')
    reader_header (r, line, text, strlen (text));
  else
    reader_key (r, line, text, strlen (text));
}

typedef enum {
  SECTION_NONE,
  SECTION_UNKNOWN,
  SECTION_DAEMON,
  SECTION_CLASS,
  SECTION_MODULE,
  SECTION_LID,
  SECTION_SLEEP,
  SECTION_PLATFORM,
} SectionKind;

typedef struct {
  PpConfig    *config;
  const char  *file;
  GPtrArray   *problems;
  SectionKind  kind;
  PpLayeredSettings *ls;   /* for SECTION_CLASS / SECTION_MODULE */
  PpLayer      layer_index;
  GPtrArray   *layer;      /* ls->layers[layer_index] */
  PpLayer      sleep_layer; /* [Sleep], [Sleep:battery], ... [Sleep:low-battery] */
} ParseState;

/* ":battery" ... ":idle" to its layer; FALSE for anything else (also ""). */
static gboolean
layer_from_suffix (const char *suffix, PpLayer *layer)
{
  for (guint l = PP_LAYER_BASE + 1; l < PP_N_LAYERS; l++)
    {
      if (g_str_equal (suffix, pp_layer_suffix ((PpLayer) l)))
        {
          *layer = (PpLayer) l;
          return TRUE;
        }
    }
  return FALSE;
}

/* [Class NAME…] / [Module NAME…] at @line, @base the text after "Class "
 * or "Module " (modified): the settings of its layer, or the section
 * reported. */
static void
parse_layered_group (ParseState *st, const char *name, guint line, char *base, GHashTable *table)
{
  const char *suffix;
  PpLayer layer = PP_LAYER_BASE;
  PpLayeredSettings *ls;

  g_strstrip (base);
  suffix = strrchr (base, ':');
  if (suffix != NULL)
    {
      if (!layer_from_suffix (suffix, &layer))
        {
          st->kind = SECTION_UNKNOWN;
          problem_add (st->problems, st->file, line,
                       "unknown layer '%s' in [%s] (expected :battery, :power-saver, :performance, :low-battery or :idle), ignoring the section",
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
  st->ls = ls;
  st->layer_index = layer;
  st->layer = ls->layers[layer];
}

static void
parse_group (ParseState *st, const char *name, guint line)
{
  g_autofree char *base = NULL;

  st->layer = NULL;
  st->ls = NULL;
  st->layer_index = PP_LAYER_BASE;
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
      st->sleep_layer = PP_LAYER_BASE;
      return;
    }
  if (g_str_has_prefix (name, "Sleep:"))
    {
      PpLayer layer = PP_LAYER_BASE;

      if (layer_from_suffix (name + strlen ("Sleep"), &layer) && layer != PP_LAYER_IDLE)
        {
          st->kind = SECTION_SLEEP;
          st->sleep_layer = layer;
          return;
        }
      st->kind = SECTION_UNKNOWN;
      problem_add (st->problems, st->file, line,
                   "unknown layer '%s' in [%s] (expected :battery, :power-saver, :performance or :low-battery), ignoring the section",
                   name + strlen ("Sleep:"), name);
      return;
    }
  if (g_str_equal (name, "Platform") || g_str_has_prefix (name, "Platform:"))
    {
      PpLayer layer = PP_LAYER_BASE;

      if (name[strlen ("Platform")] != '\0' &&
          !layer_from_suffix (name + strlen ("Platform"), &layer))
        {
          st->kind = SECTION_UNKNOWN;
          problem_add (st->problems, st->file, line,
                       "unknown layer '%s' in [%s] (expected :battery, :power-saver, :performance, :low-battery or :idle), ignoring the section",
                       name + strlen ("Platform:"), name);
          return;
        }
      st->kind = SECTION_PLATFORM;
      st->ls = st->config->platform;
      st->layer_index = layer;
      st->layer = st->ls->layers[layer];
      return;
    }

  if (g_str_has_prefix (name, "Class "))
    {
      st->kind = SECTION_CLASS;
      base = g_strdup (name + strlen ("Class "));
      parse_layered_group (st, name, line, base, st->config->classes);
    }
  else if (g_str_has_prefix (name, "Module "))
    {
      st->kind = SECTION_MODULE;
      base = g_strdup (name + strlen ("Module "));
      parse_layered_group (st, name, line, base, st->config->modules);
    }
  else
    {
      st->kind = SECTION_UNKNOWN;
      problem_add (st->problems, st->file, line,
                   "unknown section [%s], ignoring it", name);
    }
}

static void
bad_value (ParseState *st, guint line, const char *key, const char *value, const char *expected)
{
  g_autofree char *quoted = quote_text (value, strlen (value), 0);

  problem_add (st->problems, st->file, line,
               "invalid value %s for %s (expected %s), ignoring it", quoted, key, expected);
}

/* *@target = @value when it is one of @allowed; else reported. */
static void
set_choice (ParseState *st, guint line, const char *key, const char *value,
            const char * const *allowed, char **target)
{
  if (!str_in (value, allowed))
    {
      g_autofree char *expected = join_list (allowed);
      bad_value (st, line, key, value, expected);
      return;
    }
  g_free (*target);
  *target = g_strdup (value);
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
  else if (g_str_equal (key, "LowBatteryPercent"))
    {
      if (!parse_uint (value, 100, &c->low_battery_percent))
        bad_value (st, line, key, value, "a battery charge in percent, 0 to 100");
    }
  else if (g_str_equal (key, "PowerSource"))
    {
      static const char * const sources[] = { "auto", "ac", "battery", NULL };
      guint i;

      for (i = 0; sources[i] != NULL && !g_str_equal (value, sources[i]); i++)
        ;
      if (sources[i] == NULL)
        {
          bad_value (st, line, key, value, "auto|ac|battery");
          return;
        }
      c->power_source = (PpPowerSource) i;
      g_free (c->power_source_file);
      c->power_source_file = g_strdup (st->file);
      c->power_source_line = line;
    }
  else if (g_str_equal (key, "PowerProfiles"))
    {
      gboolean on = FALSE;

      if (g_str_equal (value, "auto"))
        c->power_profiles = PP_POWER_PROFILES_AUTO;
      else if (parse_bool (value, &on))
        c->power_profiles = on ? PP_POWER_PROFILES_TRUE : PP_POWER_PROFILES_FALSE;
      else
        bad_value (st, line, key, value, "auto|true|false");
    }
  else if (g_str_equal (key, "MaxInhibitorsPerUser") || g_str_equal (key, "MaxInhibitors"))
    {
      guint *target = g_str_equal (key, "MaxInhibitors") ? &c->max_inhibitors
                                                         : &c->max_inhibitors_per_user;
      guint n = 0;

      if (parse_uint (value, PP_MAX_INHIBITORS_LIMIT, &n) && n > 0)
        *target = n;
      else
        bad_value (st, line, key, value, "a number from 1 to " G_STRINGIFY (PP_MAX_INHIBITORS_LIMIT));
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

/* A space-separated list of names (classes, drivers) into *@target:
 * empty means none; invalid names are reported and left out, and when
 * every name was invalid *@target stays. FALSE when nothing was set. */
static gboolean
parse_name_list (ParseState *st, guint line, const char *key, const char *value, char ***target)
{
  g_auto(GStrv) parts = g_strsplit_set (value, " \t", -1);
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_free);
  gboolean bad = FALSE;

  for (guint i = 0; parts[i]; i++)
    {
      if (*parts[i] == '\0')
        continue;
      if (!name_is_valid (parts[i]))
        {
          bad_value (st, line, key, parts[i], "space-separated names");
          bad = TRUE;
          continue;
        }
      if (!g_ptr_array_find_with_equal_func (list, parts[i], g_str_equal, NULL))
        g_ptr_array_add (list, g_strdup (parts[i]));
    }
  if (bad && list->len == 0)
    return FALSE;
  g_ptr_array_add (list, NULL);
  g_strfreev (*target);
  *target = (char **) g_ptr_array_free (g_steal_pointer (&list), FALSE);
  return TRUE;
}

/* [Sleep:battery] ... [Sleep:low-battery]: MemSleep= and HibernateMode=
 * by power source and profile. */
static void
parse_sleep_layer_key (ParseState *st, guint line, const char *key, const char *value)
{
  PpSleepConfig *sleep = &st->config->sleep;
  char **mem_sleep[PP_N_LAYERS] = {
    [PP_LAYER_BATTERY] = &sleep->mem_sleep_battery,
    [PP_LAYER_POWER_SAVER] = &sleep->mem_sleep_power_saver,
    [PP_LAYER_PERFORMANCE] = &sleep->mem_sleep_performance,
    [PP_LAYER_LOW_BATTERY] = &sleep->mem_sleep_low_battery,
  };
  char **hibernate_mode[PP_N_LAYERS] = {
    [PP_LAYER_BATTERY] = &sleep->hibernate_mode_battery,
    [PP_LAYER_POWER_SAVER] = &sleep->hibernate_mode_power_saver,
    [PP_LAYER_PERFORMANCE] = &sleep->hibernate_mode_performance,
    [PP_LAYER_LOW_BATTERY] = &sleep->hibernate_mode_low_battery,
  };
  const char * const *allowed;
  char **target;

  if (g_str_equal (key, "MemSleep"))
    {
      allowed = mem_sleep_values;
      target = mem_sleep[st->sleep_layer];
    }
  else if (g_str_equal (key, "HibernateMode"))
    {
      allowed = hibernate_modes;
      target = hibernate_mode[st->sleep_layer];
    }
  else
    {
      problem_add (st->problems, st->file, line,
                   "unknown key '%s' in [Sleep%s] (expected MemSleep or HibernateMode; the other keys belong in [Sleep]), ignoring it",
                   key, pp_layer_suffix (st->sleep_layer));
      return;
    }
  set_choice (st, line, key, value, allowed, target);
}

/* [Sleep] VideoQuirks=: auto (or empty), or a comma list of names. */
static void
parse_video_quirks (ParseState *st, guint line, const char *value)
{
  PpSleepConfig *sleep = &st->config->sleep;
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
          bad_value (st, line, "VideoQuirks", q, "a comma list of quirk names");
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

static void
parse_sleep_key (ParseState *st, guint line, const char *key, const char *value)
{
  PpSleepConfig *sleep = &st->config->sleep;

  if (st->sleep_layer != PP_LAYER_BASE)
    {
      parse_sleep_layer_key (st, line, key, value);
      return;
    }
  if (g_str_equal (key, "RestoreDefaultsBeforeSleep"))
    {
      if (!parse_bool (value, &sleep->restore_defaults))
        {
          bad_value (st, line, key, value, "true|false");
          return;
        }
      g_free (sleep->restore_defaults_file);
      sleep->restore_defaults_file = g_strdup (st->file);
      sleep->restore_defaults_line = line;
    }
  else if (g_str_equal (key, "RestoreDefaultsClasses"))
    {
      parse_name_list (st, line, key, value, &sleep->restore_defaults_classes);
    }
  else if (g_str_equal (key, "RestoreDefaultsDrivers"))
    {
      parse_name_list (st, line, key, value, &sleep->restore_defaults_drivers);
    }
  else if (g_str_equal (key, "MemSleep"))
    {
      set_choice (st, line, key, value, mem_sleep_values, &sleep->mem_sleep);
    }
  else if (g_str_equal (key, "HibernateMode"))
    {
      set_choice (st, line, key, value, hibernate_modes, &sleep->hibernate_mode);
    }
  else if (g_str_equal (key, "VideoQuirks"))
    {
      parse_video_quirks (st, line, value);
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
parse_exclude_drivers (ParseState *st, guint line, const char *value)
{
  g_auto(GStrv) parts = g_strsplit_set (value, " \t", -1);
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_free);
  PpLayeredSettings *ls = st->ls;
  gboolean bad = FALSE;

  if (st->layer_index != PP_LAYER_BASE)
    {
      problem_add (st->problems, st->file, line,
                   "ExcludeDrivers= applies to a whole class: put it in the base section [Class NAME], not in a %s section; ignoring it",
                   pp_layer_suffix (st->layer_index));
      return;
    }
  for (guint i = 0; parts[i]; i++)
    {
      if (*parts[i] == '\0')
        continue;
      if (!name_is_valid (parts[i]))
        {
          bad_value (st, line, "ExcludeDrivers", parts[i], "space-separated driver names");
          bad = TRUE;
          continue;
        }
      if (!g_ptr_array_find_with_equal_func (list, parts[i], g_str_equal, NULL))
        g_ptr_array_add (list, g_strdup (parts[i]));
    }
  if (bad && list->len == 0)
    return;   /* every name was reported: keep what was there */
  g_clear_pointer (&ls->exclude_drivers, g_strfreev);
  if (list->len > 0)
    {
      g_ptr_array_add (list, NULL);
      ls->exclude_drivers = (char **) g_ptr_array_free (g_steal_pointer (&list), FALSE);
    }
  ls->exclude_drivers_set = TRUE;
  g_free (ls->exclude_drivers_file);
  ls->exclude_drivers_file = g_strdup (st->file);
  ls->exclude_drivers_line = line;
}

/* The per-link ASPM keys and the files they write. */
static const struct {
  const char *key;
  const char *relpath;
} aspm_keys[] = {
  { "AspmL0s", PP_ATTR_ASPM_L0S },
  { "AspmL1", PP_ATTR_ASPM_L1 },
  { "AspmL1_1", PP_ATTR_ASPM_L1_1 },
  { "AspmL1_2", PP_ATTR_ASPM_L1_2 },
  { "AspmClockPm", PP_ATTR_ASPM_CLKPM },
};

/* The hardware knobs of issue 19 (ASPM link states, NVMe APST, panel
 * power savings). FALSE: not one of their keys. */
static gboolean
parse_knob_key (ParseState *st, guint line, const char *key, const char *value)
{
  for (guint i = 0; i < G_N_ELEMENTS (aspm_keys); i++)
    {
      gboolean on = FALSE;

      if (!g_str_equal (key, aspm_keys[i].key))
        continue;
      /* the kernel reads the files back as 1 and 0 */
      if (!parse_bool (value, &on))
        bad_value (st, line, key, value, "true|false (1|0, yes|no)");
      else
        layer_set (st->layer, aspm_keys[i].relpath, on ? "1" : "0", st->file, line);
      return TRUE;
    }
  if (g_str_equal (key, "ApstLatencyToleranceUs"))
    {
      guint us = 0;

      if (g_str_equal (value, "auto") || g_str_equal (value, "any"))
        layer_set (st->layer, PP_ATTR_NVME_APST, value, st->file, line);
      else if ((g_str_equal (value, "0") || (g_ascii_isdigit (*value) && *value != '0')) &&
               parse_uint (value, G_MAXINT32, &us))
        layer_set (st->layer, PP_ATTR_NVME_APST, value, st->file, line);
      else
        bad_value (st, line, key, value,
                   "microseconds from 0 (APST off) to 2147483647 without leading zeros, auto or any");
      return TRUE;
    }
  if (g_str_equal (key, "ApstQuirks"))
    {
      gboolean on = FALSE;

      if (st->layer_index != PP_LAYER_BASE)
        problem_add (st->problems, st->file, line,
                     "ApstQuirks= applies to a whole class: put it in the base section [Class NAME], not in a %s section; ignoring it",
                     pp_layer_suffix (st->layer_index));
      else if (!parse_bool (value, &on))
        bad_value (st, line, key, value, "true|false");
      else
        {
          st->ls->apst_quirks = on;
          g_free (st->ls->apst_quirks_file);
          st->ls->apst_quirks_file = g_strdup (st->file);
          st->ls->apst_quirks_line = line;
        }
      return TRUE;
    }
  if (g_str_equal (key, "PanelPowerSavings"))
    {
      guint level = 0;

      if (strlen (value) == 1 && parse_uint (value, PP_PANEL_POWER_MAX, &level))
        layer_set (st->layer, PP_ATTR_PANEL_POWER, value, st->file, line);
      else
        bad_value (st, line, key, value, "0 (off) to 4 (most saving)");
      return TRUE;
    }
  return FALSE;
}

/* The attribute a class key writes, for an empty assignment; NULL for
 * keys that are not attributes. */
static const char *
class_key_attribute (const char *key)
{
  if (g_str_equal (key, "Control"))
    return PP_ATTR_CONTROL;
  if (g_str_equal (key, "AutosuspendDelayMs"))
    return PP_ATTR_DELAY;
  if (g_str_equal (key, "Wakeup"))
    return PP_ATTR_WAKEUP;
  if (g_str_equal (key, "LinkPowerPolicy"))
    return PP_ATTR_LINK_POLICY;
  for (guint i = 0; i < G_N_ELEMENTS (aspm_keys); i++)
    if (g_str_equal (key, aspm_keys[i].key))
      return aspm_keys[i].relpath;
  if (g_str_equal (key, "ApstLatencyToleranceUs"))
    return PP_ATTR_NVME_APST;
  if (g_str_equal (key, "PanelPowerSavings"))
    return PP_ATTR_PANEL_POWER;
  return NULL;
}

static void
parse_class_key (ParseState *st, guint line, const char *key, const char *value)
{
  g_autoptr(GError) error = NULL;
  const char *attribute = class_key_attribute (key);

  /* "Control=": leave the attribute alone, whatever a lower layer or the
   * subsystem's section says (the cascade's way out) */
  if (*value == '\0' && attribute != NULL)
    {
      layer_set (st->layer, attribute, "", st->file, line);
      return;
    }
  if (parse_knob_key (st, line, key, value))
    return;
  if (g_str_equal (key, "Control"))
    {
      if (!pp_config_parse_control (value, &error))
        bad_value (st, line, key, value, "on|auto");
      else
        layer_set (st->layer, PP_ATTR_CONTROL, value, st->file, line);
    }
  else if (g_str_equal (key, "AutosuspendDelayMs"))
    {
      gint delay = 0;

      if (!pp_config_parse_delay_ms (value, &delay, &error))
        bad_value (st, line, key, value, "milliseconds: -1, 0 or a decimal number without leading zeros");
      else
        {
          char canonical[16];

          g_snprintf (canonical, sizeof canonical, "%d", delay);
          layer_set (st->layer, PP_ATTR_DELAY, canonical, st->file, line);
        }
    }
  else if (g_str_equal (key, "Wakeup"))
    {
      if (!pp_config_parse_wakeup (value, &error))
        bad_value (st, line, key, value, "enabled|disabled");
      else
        layer_set (st->layer, PP_ATTR_WAKEUP, value, st->file, line);
    }
  else if (g_str_equal (key, "LinkPowerPolicy"))
    {
      g_autofree char *expected = join_list (link_policies);
      if (!str_in (value, link_policies))
        bad_value (st, line, key, value, expected);
      else
        layer_set (st->layer, PP_ATTR_LINK_POLICY, value, st->file, line);
    }
  else if (g_str_equal (key, "ExcludeDrivers"))
    {
      parse_exclude_drivers (st, line, value);
    }
  else if (g_str_has_prefix (key, "Attr."))
    {
      const char *relpath = key + strlen ("Attr.");

      if (!pp_config_relpath_is_valid (relpath))
        problem_add (st->problems, st->file, line,
                     "invalid attribute path '%s' (a relative path inside the device directory, no '..'), ignoring it",
                     relpath);
      else
        layer_set (st->layer, relpath, value, st->file, line);
    }
  else
    {
      problem_add (st->problems, st->file, line,
                   "unknown key '%s' in a [Class] section (expected Control, AutosuspendDelayMs, Wakeup, LinkPowerPolicy, ExcludeDrivers, AspmL0s, AspmL1, AspmL1_1, AspmL1_2, AspmClockPm, ApstLatencyToleranceUs, ApstQuirks, PanelPowerSavings or Attr.<path>), ignoring it",
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
  layer_set (st->layer, key, value, st->file, line);
}

/* [Platform…]: PlatformProfile= (a platform_profile word) and
 * EnergyPerformancePreference= (an energy_performance_preference word);
 * empty: the firmware's or driver's own value. */
static void
parse_platform_key (ParseState *st, guint line, const char *key, const char *value)
{
  const char * const *allowed;

  if (g_str_equal (key, PP_PLATFORM_PROFILE_KEY))
    allowed = pp_platform_profile_values;
  else if (g_str_equal (key, PP_PLATFORM_EPP_KEY))
    allowed = pp_epp_values;
  else
    {
      problem_add (st->problems, st->file, line,
                   "unknown key '%s' in [Platform] (expected PlatformProfile or EnergyPerformancePreference), ignoring it",
                   key);
      return;
    }
  if (*value != '\0' && !str_in (value, allowed))
    {
      g_autofree char *expected = join_list (allowed);
      bad_value (st, line, key, value, expected);
      return;
    }
  layer_set (st->layer, key, value, st->file, line);
}

/* ---- applying what the reader found ------------------------------------------ */

static void
apply_entry (ParseState *st, const Entry *e)
{
  g_autofree char *value = unescape_value (e->value);

  if (value == NULL)
    {
      g_autofree char *quoted = quote_text (e->value, strlen (e->value), 0);

      problem_add (st->problems, st->file, e->line,
                   "invalid escape sequence in the value %s of %s (valid: \\s \\n \\t \\r \\\\), ignoring it",
                   quoted, e->key);
      return;
    }
  switch (st->kind)
    {
    case SECTION_DAEMON:
      parse_daemon_key (st, e->line, e->key, value);
      break;
    case SECTION_LID:
      parse_lid_key (st, e->line, e->key, value);
      break;
    case SECTION_SLEEP:
      parse_sleep_key (st, e->line, e->key, value);
      break;
    case SECTION_CLASS:
      parse_class_key (st, e->line, e->key, value);
      break;
    case SECTION_MODULE:
      parse_module_key (st, e->line, e->key, value);
      break;
    case SECTION_PLATFORM:
      parse_platform_key (st, e->line, e->key, value);
      break;
    case SECTION_NONE:
    case SECTION_UNKNOWN:
    default:
      g_assert_not_reached ();
    }
}

static gint
compare_problem_lines (gconstpointer a, gconstpointer b)
{
  const PpConfigProblem *pa = *(PpConfigProblem * const *) a;
  const PpConfigProblem *pb = *(PpConfigProblem * const *) b;

  return (pa->line > pb->line) - (pa->line < pb->line);
}

void
pp_config_load_data (PpConfig   *config,
                     const char *file_name,
                     const char *text,
                     gsize       length,
                     GPtrArray  *problems)
{
  g_autoptr(GPtrArray) found = pp_config_problems_new ();
  g_autoptr(GPtrArray) sections = g_ptr_array_new_with_free_func ((GDestroyNotify) section_free);
  g_autoptr(GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  Reader r = { file_name, found, sections, by_name, NULL, FALSE };
  ParseState st = { config, file_name, found, SECTION_NONE, NULL, PP_LAYER_BASE, NULL };
  const char *p = text;
  const char *end = text + length;
  guint line = 0;

  g_return_if_fail (config != NULL);
  g_return_if_fail (text != NULL || length == 0);

  if (text == NULL)
    return;
  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *eol = nl ? nl : end;

      reader_line (&r, ++line, p, eol - p);
      p = nl ? nl + 1 : end;
    }

  for (guint i = 0; i < sections->len; i++)
    {
      const Section *s = g_ptr_array_index (sections, i);

      parse_group (&st, s->name, s->line);
      if (st.kind == SECTION_UNKNOWN)
        continue;   /* the section was reported */
      for (guint j = 0; j < s->entries->len; j++)
        apply_entry (&st, g_ptr_array_index (s->entries, j));
    }

  g_ptr_array_sort (found, compare_problem_lines);
  for (guint i = 0; i < found->len; i++)
    {
      if (problems != NULL)
        g_ptr_array_add (problems, g_steal_pointer (&g_ptr_array_index (found, i)));
    }
}
