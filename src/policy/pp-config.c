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

/* power/control and power/wakeup (Documentation/ABI/testing/sysfs-devices-power) */
static const char * const control_values[] = { "on", "auto", NULL };
static const char * const wakeup_values[] = { "enabled", "disabled", NULL };
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
  if (str_in (value, control_values))
    return TRUE;
  g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
               "invalid value '%s' (expected on|auto)", value ? value : "");
  return FALSE;
}

gboolean
pp_config_parse_wakeup (const char *value, GError **error)
{
  if (str_in (value, wakeup_values))
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

/* ---- the sections and keys: one table each -----------------------------------
 *
 * A section header is matched against section_syntax[], a key of a section
 * against config_keys[] (as systemd's conf-parser takes its keys from
 * logind-gperf.gperf): the row gives the parser, the field it sets and the
 * layers the key may be written in. The unknown-key and wrong-layer reports
 * are built from the same tables, so a key added there is parsed, listed and
 * checked by powerpolicyd --check-config with nothing else to change. */

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

#define LAYER_BIT(layer)  (1u << (layer))
#define LAYERS_BASE       LAYER_BIT (PP_LAYER_BASE)
#define LAYERS_ALL        ((1u << PP_N_LAYERS) - 1)
#define LAYERS_SLEEP      (LAYERS_ALL & ~LAYER_BIT (PP_LAYER_IDLE))

/* How the unknown-key report of a section lists the keys it takes. */
typedef enum {
  LIST_NONE,           /* not at all */
  LIST_ALL,            /* every key of the section */
  LIST_OUTSIDE_BASE,   /* in a layer: the keys that layer takes, and the hint */
} KeyListing;

typedef struct {
  SectionKind  kind;
  const char  *name;          /* "Daemon"; for a named section the word before NAME */
  gboolean     named;         /* [Class NAME], [Module NAME] */
  guint        layers;        /* LAYER_BIT()s of the layers its header may name */
  const char  *unknown_in;    /* where an unknown key was found, for its report */
  gboolean     unknown_shows_layer;  /* @unknown_in ("[Sleep") takes the layer
                                      * and "]": "[Sleep:battery]" */
  KeyListing   listing;
  const char  *listing_hint;  /* after the list of LIST_OUTSIDE_BASE */
  const char  *base_only;     /* a key of the base section only, written in a layer:
                               * "applies to <base_only>"; NULL: reported as unknown */
} SectionSyntax;

static const SectionSyntax section_syntax[] = {
  { SECTION_DAEMON, "Daemon", FALSE, LAYERS_BASE, "[Daemon]", FALSE, LIST_NONE, NULL, NULL },
  { SECTION_LID, "Lid", FALSE, LAYERS_BASE, "[Lid]", FALSE, LIST_NONE, NULL, NULL },
  { SECTION_SLEEP, "Sleep", FALSE, LAYERS_SLEEP, "[Sleep", TRUE, LIST_OUTSIDE_BASE,
    "; the other keys belong in [Sleep]", NULL },
  { SECTION_PLATFORM, "Platform", FALSE, LAYERS_ALL, "[Platform]", FALSE, LIST_ALL, NULL, NULL },
  { SECTION_CLASS, "Class", TRUE, LAYERS_ALL, "a [Class] section", FALSE, LIST_ALL, NULL,
    "a whole class: put it in the base section [Class NAME]" },
  { SECTION_MODULE, "Module", TRUE, LAYERS_ALL, "[Module]", FALSE, LIST_NONE, NULL, NULL },
};

typedef struct {
  PpConfig    *config;
  const char  *file;
  GPtrArray   *problems;
  SectionKind  kind;
  const SectionSyntax *syntax;  /* of the current section */
  PpLayeredSettings *ls;   /* [Class], [Module], [Platform]; NULL otherwise */
  PpLayer      layer;      /* the layer of the current section's header */
} ParseState;

typedef struct _ConfigKey ConfigKey;

/* Parses @value of @key (the name as written: a prefix row matches more
 * than one) at @line into the field @k names, or reports it. */
typedef void (*KeyParser) (ParseState      *st,
                           const ConfigKey *k,
                           guint            line,
                           const char      *key,
                           const char      *value);

struct _ConfigKey {
  SectionKind  section;
  const char  *key;         /* the name; with @prefix, the start of the names */
  guint        layers;      /* LAYER_BIT()s of the layers it may be written in */
  KeyParser    parse;
  /* the field: */
  gsize        offset;      /* in PpConfig, for [Daemon], [Lid] and [Sleep] */
  const char  *attribute;   /* the attribute it sets in a layer; an empty
                             * assignment leaves the attribute alone */
  /* how the value is read: */
  const char * const *words;  /* the values parse_word() takes */
  guint        min, max;      /* the range parse_number() takes */
  const char  *expected;      /* the "expected ..." of a bad value; NULL: @words */
  gboolean     prefix;
};

/* the parse state's config field a table row names */
#define CONFIG_FIELD(st, k, type) ((type *) (void *) ((char *) (st)->config + (k)->offset))
#define FIELD(member) .offset = offsetof (PpConfig, member)

static void
bad_value (ParseState *st, guint line, const char *key, const char *value, const char *expected)
{
  g_autofree char *quoted = quote_text (value, strlen (value), 0);

  problem_add (st->problems, st->file, line,
               "invalid value %s for %s (expected %s), ignoring it", quoted, key, expected);
}

/* k->expected, or the words it takes joined with '|' */
static char *
expected_text (const ConfigKey *k)
{
  if (k->expected != NULL)
    return g_strdup (k->expected);
  return join_list (k->words);
}

static void
bad_key_value (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  g_autofree char *expected = expected_text (k);

  bad_value (st, line, key, value, expected);
}

static void
layer_set_here (ParseState *st, const char *attribute, const char *value, guint line)
{
  layer_set (st->ls->layers[st->layer], attribute, value, st->file, line);
}

/* ---- the parsers of the table ------------------------------------------------ */

/* A number from k->min to k->max into a guint field. */
static void
parse_number (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  guint n = 0;

  if (parse_uint (value, k->max, &n) && n >= k->min)
    *CONFIG_FIELD (st, k, guint) = n;
  else
    bad_key_value (st, k, line, key, value);
}

static void
parse_boolean (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  if (!parse_bool (value, CONFIG_FIELD (st, k, gboolean)))
    bad_key_value (st, k, line, key, value);
}

/* One of k->words into a string field. */
static void
parse_word (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  char **target = CONFIG_FIELD (st, k, char *);

  if (!str_in (value, k->words))
    {
      bad_key_value (st, k, line, key, value);
      return;
    }
  g_free (*target);
  *target = g_strdup (value);
}

static void
parse_lid_action (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  if (!pp_lid_action_from_string (value, CONFIG_FIELD (st, k, PpLidAction)))
    {
      g_autofree char *expected = join_lid_actions ();
      bad_value (st, line, key, value, expected);
    }
}

/* [Daemon] PowerSource=, with the line that set it. */
static void
parse_power_source (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  PpConfig *c = st->config;
  guint i;

  for (i = 0; k->words[i] != NULL && !g_str_equal (value, k->words[i]); i++)
    ;
  if (k->words[i] == NULL)
    {
      bad_key_value (st, k, line, key, value);
      return;
    }
  *CONFIG_FIELD (st, k, PpPowerSource) = (PpPowerSource) i;
  g_free (c->power_source_file);
  c->power_source_file = g_strdup (st->file);
  c->power_source_line = line;
}

static void
parse_power_profiles (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  PpPowerProfilesMode *mode = CONFIG_FIELD (st, k, PpPowerProfilesMode);
  gboolean on = FALSE;

  if (g_str_equal (value, "auto"))
    *mode = PP_POWER_PROFILES_AUTO;
  else if (parse_bool (value, &on))
    *mode = on ? PP_POWER_PROFILES_TRUE : PP_POWER_PROFILES_FALSE;
  else
    bad_key_value (st, k, line, key, value);
}

/* A space-separated list of names (classes, drivers) into *@target:
 * empty means none; invalid names are reported and left out, and when
 * every name was invalid *@target stays. */
static void
parse_name_list (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  g_auto(GStrv) parts = g_strsplit_set (value, " \t", -1);
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_free);
  char ***target = CONFIG_FIELD (st, k, char **);
  gboolean bad = FALSE;

  for (guint i = 0; parts[i]; i++)
    {
      if (*parts[i] == '\0')
        continue;
      if (!name_is_valid (parts[i]))
        {
          bad_key_value (st, k, line, key, parts[i]);
          bad = TRUE;
          continue;
        }
      if (!g_ptr_array_find_with_equal_func (list, parts[i], g_str_equal, NULL))
        g_ptr_array_add (list, g_strdup (parts[i]));
    }
  if (bad && list->len == 0)
    return;
  g_ptr_array_add (list, NULL);
  g_strfreev (*target);
  *target = (char **) g_ptr_array_free (g_steal_pointer (&list), FALSE);
}

/* [Sleep] RestoreDefaultsBeforeSleep=, with the line that set it. */
static void
parse_restore_defaults (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  PpSleepConfig *sleep = &st->config->sleep;

  if (!parse_bool (value, CONFIG_FIELD (st, k, gboolean)))
    {
      bad_key_value (st, k, line, key, value);
      return;
    }
  g_free (sleep->restore_defaults_file);
  sleep->restore_defaults_file = g_strdup (st->file);
  sleep->restore_defaults_line = line;
}

/* [Sleep] VideoQuirks=: auto (or empty), or a comma list of names. */
static void
parse_video_quirks (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  char ***quirks = CONFIG_FIELD (st, k, char **);
  g_auto(GStrv) parts = g_strsplit (value, ",", -1);
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_free);

  if (g_str_equal (value, "auto") || *value == '\0')
    {
      g_clear_pointer (quirks, g_strfreev);
      return;
    }
  for (guint i = 0; parts[i]; i++)
    {
      char *q = g_strstrip (parts[i]);
      if (*q == '\0')
        continue;
      if (!name_is_valid (q))
        {
          bad_key_value (st, k, line, key, q);
          continue;
        }
      g_ptr_array_add (list, g_strdup (q));
    }
  if (list->len == 0)
    return;   /* every name was reported: keep what was there */
  g_ptr_array_add (list, NULL);
  g_strfreev (*quirks);
  *quirks = (char **) g_ptr_array_free (g_steal_pointer (&list), FALSE);
}

/* [Sleep] QuirkHelper=: an absolute path, or empty for the installed one. */
static void
parse_quirk_helper (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  char **helper = CONFIG_FIELD (st, k, char *);

  if (*value != '\0' && !g_path_is_absolute (value))
    {
      bad_key_value (st, k, line, key, value);
      return;
    }
  g_free (*helper);
  *helper = *value ? g_strdup (value) : NULL;
}

/* One of k->words into the layer's k->attribute. */
static void
parse_attr_word (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  if (!str_in (value, k->words))
    bad_key_value (st, k, line, key, value);
  else
    layer_set_here (st, k->attribute, value, line);
}

/* AutosuspendDelayMs=, written as the kernel reads it back. */
static void
parse_attr_delay (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  gint delay = 0;
  char canonical[16];

  if (!pp_config_parse_delay_ms (value, &delay, NULL))
    {
      bad_key_value (st, k, line, key, value);
      return;
    }
  g_snprintf (canonical, sizeof canonical, "%d", delay);
  layer_set_here (st, k->attribute, canonical, line);
}

/* A boolean written as 1 or 0, as the kernel reads the ASPM files back. */
static void
parse_attr_flag (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  gboolean on = FALSE;

  if (!parse_bool (value, &on))
    bad_key_value (st, k, line, key, value);
  else
    layer_set_here (st, k->attribute, on ? "1" : "0", line);
}

/* ApstLatencyToleranceUs=: auto, any, or microseconds without leading zeros. */
static void
parse_attr_apst_latency (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  guint us = 0;

  if (g_str_equal (value, "auto") || g_str_equal (value, "any"))
    layer_set_here (st, k->attribute, value, line);
  else if ((g_str_equal (value, "0") || (g_ascii_isdigit (*value) && *value != '0')) &&
           parse_uint (value, G_MAXINT32, &us))
    layer_set_here (st, k->attribute, value, line);
  else
    bad_key_value (st, k, line, key, value);
}

/* PanelPowerSavings=: one digit, 0 to PP_PANEL_POWER_MAX. */
static void
parse_attr_panel_power (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  guint level = 0;

  if (strlen (value) == 1 && parse_uint (value, PP_PANEL_POWER_MAX, &level))
    layer_set_here (st, k->attribute, value, line);
  else
    bad_key_value (st, k, line, key, value);
}

/* Attr.PATH=VALUE: any attribute inside the device directory. */
static void
parse_attr_path (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  const char *relpath = key + strlen (k->key);

  if (!pp_config_relpath_is_valid (relpath))
    problem_add (st->problems, st->file, line,
                 "invalid attribute path '%s' (a relative path inside the device directory, no '..'), ignoring it",
                 relpath);
  else
    layer_set_here (st, relpath, value, line);
}

/* [Class NAME] ExcludeDrivers= (base section only). */
static void
parse_exclude_drivers (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  g_auto(GStrv) parts = g_strsplit_set (value, " \t", -1);
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_free);
  PpLayeredSettings *ls = st->ls;
  gboolean bad = FALSE;

  for (guint i = 0; parts[i]; i++)
    {
      if (*parts[i] == '\0')
        continue;
      if (!name_is_valid (parts[i]))
        {
          bad_key_value (st, k, line, key, parts[i]);
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

/* [Class NAME] ApstQuirks= (base section only). */
static void
parse_apst_quirks (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  gboolean on = FALSE;

  if (!parse_bool (value, &on))
    {
      bad_key_value (st, k, line, key, value);
      return;
    }
  st->ls->apst_quirks = on;
  g_free (st->ls->apst_quirks_file);
  st->ls->apst_quirks_file = g_strdup (st->file);
  st->ls->apst_quirks_line = line;
}

/* [Module NAME]: every key is a parameter of the module. */
static void
parse_module_parameter (ParseState *st, const ConfigKey *k, guint line, const char *key, const char *value)
{
  if (!name_is_valid (key))
    {
      problem_add (st->problems, st->file, line,
                   "invalid module parameter name '%s', ignoring it", key);
      return;
    }
  layer_set_here (st, key, value, line);
}

/* ---- the table ------------------------------------------------------------------ */

static const char * const power_source_words[] = { "auto", "ac", "battery", NULL };

#define BOOLEAN_WORDS   "true|false"
#define SLEEP_WORD_ROWS(key_, words_, field_)                                                 \
  { SECTION_SLEEP, key_, LAYERS_BASE, parse_word, FIELD (sleep.field_), .words = words_ },     \
  { SECTION_SLEEP, key_, LAYER_BIT (PP_LAYER_BATTERY), parse_word,                             \
    FIELD (sleep.field_##_battery), .words = words_ },                                         \
  { SECTION_SLEEP, key_, LAYER_BIT (PP_LAYER_POWER_SAVER), parse_word,                         \
    FIELD (sleep.field_##_power_saver), .words = words_ },                                     \
  { SECTION_SLEEP, key_, LAYER_BIT (PP_LAYER_PERFORMANCE), parse_word,                         \
    FIELD (sleep.field_##_performance), .words = words_ },                                     \
  { SECTION_SLEEP, key_, LAYER_BIT (PP_LAYER_LOW_BATTERY), parse_word,                         \
    FIELD (sleep.field_##_low_battery), .words = words_ }
#define ASPM_ROW(key_, attribute_)                                          \
  { SECTION_CLASS, key_, LAYERS_ALL, parse_attr_flag, .attribute = attribute_, \
    .expected = "true|false (1|0, yes|no)" }

/* Every key of every section, in the order the unknown-key reports list them
 * (powerpolicy.conf(5)). */
static const ConfigKey config_keys[] = {
  { SECTION_DAEMON, "IdleTimeoutSec", LAYERS_BASE, parse_number, FIELD (idle_timeout_sec),
    .max = G_MAXUINT32, .expected = "seconds" },
  { SECTION_DAEMON, "RestoreOnExit", LAYERS_BASE, parse_boolean, FIELD (restore_on_exit),
    .expected = BOOLEAN_WORDS },
  { SECTION_DAEMON, "DryRun", LAYERS_BASE, parse_boolean, FIELD (dry_run),
    .expected = BOOLEAN_WORDS },
  { SECTION_DAEMON, "LowBatteryPercent", LAYERS_BASE, parse_number, FIELD (low_battery_percent),
    .max = 100, .expected = "a battery charge in percent, 0 to 100" },
  { SECTION_DAEMON, "PowerSource", LAYERS_BASE, parse_power_source, FIELD (power_source),
    .words = power_source_words },
  { SECTION_DAEMON, "PowerProfiles", LAYERS_BASE, parse_power_profiles, FIELD (power_profiles),
    .expected = "auto|true|false" },
  { SECTION_DAEMON, "MaxInhibitorsPerUser", LAYERS_BASE, parse_number, FIELD (max_inhibitors_per_user),
    .min = 1, .max = PP_MAX_INHIBITORS_LIMIT,
    .expected = "a number from 1 to " G_STRINGIFY (PP_MAX_INHIBITORS_LIMIT) },
  { SECTION_DAEMON, "MaxInhibitors", LAYERS_BASE, parse_number, FIELD (max_inhibitors),
    .min = 1, .max = PP_MAX_INHIBITORS_LIMIT,
    .expected = "a number from 1 to " G_STRINGIFY (PP_MAX_INHIBITORS_LIMIT) },

  { SECTION_LID, "HandleLid", LAYERS_BASE, parse_boolean, FIELD (lid.handle_lid),
    .expected = BOOLEAN_WORDS },
  { SECTION_LID, "HoldoffSec", LAYERS_BASE, parse_number, FIELD (lid.holdoff_sec),
    .max = 24 * 3600, .expected = "seconds" },
  { SECTION_LID, "OnClose", LAYERS_BASE, parse_lid_action, FIELD (lid.on_close) },
  { SECTION_LID, "OnCloseExternalPower", LAYERS_BASE, parse_lid_action,
    FIELD (lid.on_close_external_power) },
  { SECTION_LID, "OnCloseDocked", LAYERS_BASE, parse_lid_action, FIELD (lid.on_close_docked) },

  SLEEP_WORD_ROWS ("MemSleep", mem_sleep_values, mem_sleep),
  SLEEP_WORD_ROWS ("HibernateMode", hibernate_modes, hibernate_mode),
  { SECTION_SLEEP, "RestoreDefaultsBeforeSleep", LAYERS_BASE, parse_restore_defaults,
    FIELD (sleep.restore_defaults), .expected = BOOLEAN_WORDS },
  { SECTION_SLEEP, "RestoreDefaultsClasses", LAYERS_BASE, parse_name_list,
    FIELD (sleep.restore_defaults_classes), .expected = "space-separated names" },
  { SECTION_SLEEP, "RestoreDefaultsDrivers", LAYERS_BASE, parse_name_list,
    FIELD (sleep.restore_defaults_drivers), .expected = "space-separated names" },
  { SECTION_SLEEP, "VideoQuirks", LAYERS_BASE, parse_video_quirks, FIELD (sleep.video_quirks),
    .expected = "a comma list of quirk names" },
  { SECTION_SLEEP, "QuirkHelper", LAYERS_BASE, parse_quirk_helper, FIELD (sleep.quirk_helper),
    .expected = "an absolute path or empty" },
  { SECTION_SLEEP, "QuirkTimeoutSec", LAYERS_BASE, parse_number, FIELD (sleep.quirk_timeout_sec),
    .min = 1, .max = 600, .expected = "seconds, 1 to 600" },

  { SECTION_CLASS, "Control", LAYERS_ALL, parse_attr_word, .attribute = PP_ATTR_CONTROL,
    .words = control_values },
  { SECTION_CLASS, "AutosuspendDelayMs", LAYERS_ALL, parse_attr_delay, .attribute = PP_ATTR_DELAY,
    .expected = "milliseconds: -1, 0 or a decimal number without leading zeros" },
  { SECTION_CLASS, "Wakeup", LAYERS_ALL, parse_attr_word, .attribute = PP_ATTR_WAKEUP,
    .words = wakeup_values },
  { SECTION_CLASS, "LinkPowerPolicy", LAYERS_ALL, parse_attr_word,
    .attribute = PP_ATTR_LINK_POLICY, .words = link_policies },
  { SECTION_CLASS, "ExcludeDrivers", LAYERS_BASE, parse_exclude_drivers,
    .expected = "space-separated driver names" },
  ASPM_ROW ("AspmL0s", PP_ATTR_ASPM_L0S),
  ASPM_ROW ("AspmL1", PP_ATTR_ASPM_L1),
  ASPM_ROW ("AspmL1_1", PP_ATTR_ASPM_L1_1),
  ASPM_ROW ("AspmL1_2", PP_ATTR_ASPM_L1_2),
  ASPM_ROW ("AspmClockPm", PP_ATTR_ASPM_CLKPM),
  { SECTION_CLASS, "ApstLatencyToleranceUs", LAYERS_ALL, parse_attr_apst_latency,
    .attribute = PP_ATTR_NVME_APST,
    .expected = "microseconds from 0 (APST off) to 2147483647 without leading zeros, auto or any" },
  { SECTION_CLASS, "ApstQuirks", LAYERS_BASE, parse_apst_quirks, .expected = BOOLEAN_WORDS },
  { SECTION_CLASS, "PanelPowerSavings", LAYERS_ALL, parse_attr_panel_power,
    .attribute = PP_ATTR_PANEL_POWER, .expected = "0 (off) to 4 (most saving)" },
  { SECTION_CLASS, "Attr.", LAYERS_ALL, parse_attr_path, .prefix = TRUE },

  { SECTION_MODULE, "", LAYERS_ALL, parse_module_parameter, .prefix = TRUE },

  { SECTION_PLATFORM, PP_PLATFORM_PROFILE_KEY, LAYERS_ALL, parse_attr_word,
    .attribute = PP_PLATFORM_PROFILE_KEY, .words = pp_platform_profile_values },
  { SECTION_PLATFORM, PP_PLATFORM_EPP_KEY, LAYERS_ALL, parse_attr_word,
    .attribute = PP_PLATFORM_EPP_KEY, .words = pp_epp_values },
};

#undef SLEEP_WORD_ROWS
#undef ASPM_ROW
#undef FIELD

/* ---- the tables at work ---------------------------------------------------------- */

/* "a, b or c" */
static char *
join_or (GPtrArray *words)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < words->len; i++)
    {
      if (i > 0)
        g_string_append (s, i + 1 == words->len ? " or " : ", ");
      g_string_append (s, g_ptr_array_index (words, i));
    }
  return g_string_free (s, FALSE);
}

/* The keys of @kind that may be written in a layer of @layers, as the
 * reports name them ("Attr.<path>"). */
static char *
list_keys (SectionKind kind, guint layers)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < G_N_ELEMENTS (config_keys); i++)
    {
      const ConfigKey *k = &config_keys[i];
      g_autofree char *name = NULL;

      if (k->section != kind || (k->layers & layers) == 0)
        continue;
      name = g_strconcat (k->key, k->prefix ? "<path>" : "", NULL);
      if (!g_ptr_array_find_with_equal_func (names, name, g_str_equal, NULL))
        g_ptr_array_add (names, g_steal_pointer (&name));
    }
  return join_or (names);
}

static const SectionSyntax *
section_syntax_of (SectionKind kind)
{
  for (guint i = 0; i < G_N_ELEMENTS (section_syntax); i++)
    {
      if (section_syntax[i].kind == kind)
        return &section_syntax[i];
    }
  g_assert_not_reached ();
}

GArray *
pp_config_list_keys (void)
{
  GArray *keys = g_array_new (FALSE, TRUE, sizeof (PpConfigKeyInfo));

  for (guint i = 0; i < G_N_ELEMENTS (config_keys); i++)
    {
      const ConfigKey *k = &config_keys[i];
      const char *section = section_syntax_of (k->section)->name;
      PpConfigKeyInfo info = { section, k->key, k->prefix, k->layers };
      guint j;

      /* a key with a field per layer has a row per layer: merge them */
      for (j = 0; j < keys->len; j++)
        {
          PpConfigKeyInfo *seen = &g_array_index (keys, PpConfigKeyInfo, j);

          if (g_str_equal (seen->section, section) && g_str_equal (seen->key, k->key))
            {
              seen->layers |= k->layers;
              break;
            }
        }
      if (j == keys->len)
        g_array_append_val (keys, info);
    }
  return keys;
}

/* ":battery, :power-saver ... or :idle": the layers of @layers beyond the base */
static char *
list_layers (guint layers)
{
  g_autoptr(GPtrArray) suffixes = g_ptr_array_new ();

  for (guint l = PP_LAYER_BASE + 1; l < PP_N_LAYERS; l++)
    {
      if (layers & LAYER_BIT (l))
        g_ptr_array_add (suffixes, (gpointer) pp_layer_suffix ((PpLayer) l));
    }
  return join_or (suffixes);
}

static gboolean
key_matches (const ConfigKey *k, const char *key)
{
  return k->prefix ? g_str_has_prefix (key, k->key) : g_str_equal (key, k->key);
}

/* The row of @key in a section of @kind written in @layer; NULL with
 * *@misplaced when the key exists but not in that layer. */
static const ConfigKey *
lookup_key (SectionKind kind, const char *key, PpLayer layer, gboolean *misplaced)
{
  *misplaced = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (config_keys); i++)
    {
      const ConfigKey *k = &config_keys[i];

      if (k->section != kind || !key_matches (k, key))
        continue;
      if (k->layers & LAYER_BIT (layer))
        return k;
      *misplaced = TRUE;
    }
  return NULL;
}

static void
report_unknown_key (ParseState *st, guint line, const char *key)
{
  const SectionSyntax *s = st->syntax;
  g_autofree char *where = s->unknown_shows_layer
                           ? g_strconcat (s->unknown_in, pp_layer_suffix (st->layer), "]", NULL)
                           : g_strdup (s->unknown_in);
  g_autofree char *keys = NULL;
  g_autofree char *listing = NULL;

  if (s->listing == LIST_ALL)
    keys = list_keys (s->kind, LAYERS_ALL);
  else if (s->listing == LIST_OUTSIDE_BASE && st->layer != PP_LAYER_BASE)
    keys = list_keys (s->kind, LAYER_BIT (st->layer));
  if (keys != NULL)
    listing = g_strdup_printf (" (expected %s%s)", keys, s->listing_hint ? s->listing_hint : "");
  problem_add (st->problems, st->file, line, "unknown key '%s' in %s%s, ignoring it",
               key, where, listing ? listing : "");
}

/* A key of the base section only, written in a layer. */
static void
report_misplaced_key (ParseState *st, guint line, const char *key)
{
  if (st->syntax->base_only == NULL)
    {
      report_unknown_key (st, line, key);
      return;
    }
  problem_add (st->problems, st->file, line,
               "%s= applies to %s, not in a %s section; ignoring it",
               key, st->syntax->base_only, pp_layer_suffix (st->layer));
}

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

/* @suffix (":battery", ...) of header @name to st->layer; FALSE when it
 * is no layer the section may have (reported). */
static gboolean
parse_header_layer (ParseState *st, const char *name, guint line, const char *suffix)
{
  PpLayer layer = PP_LAYER_BASE;

  if (!layer_from_suffix (suffix, &layer) || (st->syntax->layers & LAYER_BIT (layer)) == 0)
    {
      g_autofree char *expected = list_layers (st->syntax->layers);

      problem_add (st->problems, st->file, line,
                   "unknown layer '%s' in [%s] (expected %s), ignoring the section",
                   suffix + 1, name, expected);
      return FALSE;
    }
  st->layer = layer;
  return TRUE;
}

/* [Class NAME…] / [Module NAME…] at @line, @base the text after "Class "
 * or "Module " (modified): the settings of its layer, or the section
 * reported. */
static gboolean
parse_named_header (ParseState *st, const char *name, guint line, char *base)
{
  GHashTable *table = st->kind == SECTION_MODULE ? st->config->modules : st->config->classes;
  char *suffix;
  PpLayeredSettings *ls;

  g_strstrip (base);
  suffix = strrchr (base, ':');
  if (suffix != NULL)
    {
      if (!parse_header_layer (st, name, line, suffix))
        return FALSE;
      *suffix = '\0';
    }
  if (!name_is_valid (base))
    {
      problem_add (st->problems, st->file, line,
                   "invalid %s name '%s' in [%s], ignoring the section",
                   st->kind == SECTION_MODULE ? "module" : "class", base, name);
      return FALSE;
    }
  ls = g_hash_table_lookup (table, base);
  if (ls == NULL)
    {
      ls = pp_layered_settings_new ();
      g_hash_table_insert (table, g_strdup (base), ls);
    }
  st->ls = ls;
  return TRUE;
}

/* Header @name, matched against section_syntax[]: its kind and layer in
 * @st, or SECTION_UNKNOWN (reported). */
static void
parse_group (ParseState *st, const char *name, guint line)
{
  st->ls = NULL;
  st->layer = PP_LAYER_BASE;
  for (guint i = 0; i < G_N_ELEMENTS (section_syntax); i++)
    {
      const SectionSyntax *s = &section_syntax[i];
      const char *rest = name + strlen (s->name);
      gboolean ok = FALSE;

      if (!g_str_has_prefix (name, s->name))
        continue;
      if (s->named && *rest == ' ')
        {
          g_autofree char *base = g_strdup (rest + 1);

          st->kind = s->kind;
          st->syntax = s;
          ok = parse_named_header (st, name, line, base);
        }
      else if (!s->named && (*rest == '\0' || (*rest == ':' && s->layers != LAYERS_BASE)))
        {
          st->kind = s->kind;
          st->syntax = s;
          ok = *rest == '\0' || parse_header_layer (st, name, line, rest);
          if (ok && s->kind == SECTION_PLATFORM)
            st->ls = st->config->platform;
        }
      else
        continue;
      if (!ok)
        st->kind = SECTION_UNKNOWN;
      return;
    }
  st->kind = SECTION_UNKNOWN;
  problem_add (st->problems, st->file, line, "unknown section [%s], ignoring it", name);
}

/* ---- applying what the reader found ------------------------------------------ */

static void
apply_entry (ParseState *st, const Entry *e)
{
  g_autofree char *value = unescape_value (e->value);
  const ConfigKey *k;
  gboolean misplaced = FALSE;

  if (value == NULL)
    {
      g_autofree char *quoted = quote_text (e->value, strlen (e->value), 0);

      problem_add (st->problems, st->file, e->line,
                   "invalid escape sequence in the value %s of %s (valid: \\s \\n \\t \\r \\\\), ignoring it",
                   quoted, e->key);
      return;
    }
  k = lookup_key (st->kind, e->key, st->layer, &misplaced);
  if (k == NULL && misplaced)
    report_misplaced_key (st, e->line, e->key);
  else if (k == NULL)
    report_unknown_key (st, e->line, e->key);
  /* "Control=": leave the attribute alone, whatever a lower layer or the
   * subsystem's section says (the cascade's way out) */
  else if (k->attribute != NULL && *value == '\0')
    layer_set_here (st, k->attribute, "", e->line);
  else
    k->parse (st, k, e->line, e->key, value);
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
  ParseState st = { .config = config, .file = file_name, .problems = found, .kind = SECTION_NONE };
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
