/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-policy"

#include "config.h"

#include <string.h>

#include "pp-policy.h"

static gboolean
parse_delay (const char *value, gint *out)
{
  gint64 v = 0;

  if (value == NULL || !g_ascii_string_to_signed (value, 10, -1, G_MAXINT32, &v, NULL))
    return FALSE;
  *out = (gint) v;
  return TRUE;
}

static void
warn (GPtrArray *warnings, const char *key, const char *value, const char *expected)
{
  if (warnings == NULL)
    return;
  g_ptr_array_add (warnings,
                   g_strdup_printf ("invalid udev property %s=%s (expected %s), ignoring it",
                                    key, value, expected));
}

void
pp_device_props_init (PpDeviceProps   *props,
                      const char      *subsystem,
                      PpPropertyLookup lookup,
                      gpointer         user_data,
                      GPtrArray       *warnings)
{
  const char *v;

  memset (props, 0, sizeof (*props));
  props->id_delay_ms = PP_DELAY_UNSET;
  props->delay_ms = PP_DELAY_UNSET;
  props->autosuspend = PP_TRISTATE_UNSET;

  v = lookup (user_data, "POWERPOLICY_CLASS");
  if (v != NULL && *v != '\0')
    props->klass = g_strdup (v);
  else
    props->klass = g_strdup (subsystem ? subsystem : "");

  v = lookup (user_data, "POWERPOLICY_IGNORE");
  if (v != NULL)
    {
      if (g_str_equal (v, "1"))
        props->ignore = TRUE;
      else if (!g_str_equal (v, "0"))
        warn (warnings, "POWERPOLICY_IGNORE", v, "0|1");
    }

  v = lookup (user_data, "ID_AUTOSUSPEND");
  if (v != NULL)
    {
      if (g_str_equal (v, "1"))
        props->id_autosuspend = TRUE;
      else if (!g_str_equal (v, "0"))
        warn (warnings, "ID_AUTOSUSPEND", v, "0|1");
    }

  v = lookup (user_data, "ID_AUTOSUSPEND_DELAY_MS");
  if (v != NULL && !parse_delay (v, &props->id_delay_ms))
    warn (warnings, "ID_AUTOSUSPEND_DELAY_MS", v, "milliseconds");

  v = lookup (user_data, "POWERPOLICY_AUTOSUSPEND");
  if (v != NULL)
    {
      if (g_str_equal (v, "1"))
        props->autosuspend = PP_TRISTATE_YES;
      else if (g_str_equal (v, "0"))
        props->autosuspend = PP_TRISTATE_NO;
      else
        warn (warnings, "POWERPOLICY_AUTOSUSPEND", v, "0|1");
    }

  v = lookup (user_data, "POWERPOLICY_AUTOSUSPEND_DELAY_MS");
  if (v != NULL && !parse_delay (v, &props->delay_ms))
    warn (warnings, "POWERPOLICY_AUTOSUSPEND_DELAY_MS", v, "milliseconds");

  v = lookup (user_data, "POWERPOLICY_WAKEUP");
  if (v != NULL)
    {
      if (g_str_equal (v, "enabled") || g_str_equal (v, "disabled"))
        props->wakeup = g_strdup (v);
      else
        warn (warnings, "POWERPOLICY_WAKEUP", v, "enabled|disabled");
    }
}

void
pp_device_props_clear (PpDeviceProps *props)
{
  g_clear_pointer (&props->klass, g_free);
  g_clear_pointer (&props->wakeup, g_free);
}

/* Ordered map of relpath -> value built layer by layer. */
typedef struct {
  GPtrArray *settings;    /* PpSetting*, first-set order */
} SettingMap;

static PpSetting *
map_find (SettingMap *map, const char *key)
{
  for (guint i = 0; i < map->settings->len; i++)
    {
      PpSetting *s = g_ptr_array_index (map->settings, i);
      if (g_str_equal (s->key, key))
        return s;
    }
  return NULL;
}

static void
map_set (SettingMap      *map,
         const char      *key,
         const char      *value,
         PpSettingSource  source,
         const char      *origin)
{
  PpSetting *s = map_find (map, key);

  if (s == NULL)
    {
      s = pp_setting_new (key, value);
      g_ptr_array_add (map->settings, s);
    }
  else
    {
      g_free (s->value);
      s->value = g_strdup (value);
    }
  s->source = source;
  g_free (s->origin);
  s->origin = g_strdup (origin);
}

static void
map_set_int (SettingMap      *map,
             const char      *key,
             gint             value,
             PpSettingSource  source,
             const char      *origin)
{
  char buf[16];

  g_snprintf (buf, sizeof buf, "%d", value);
  map_set (map, key, buf, source, origin);
}

/* "FILE:LINE" of a configuration line, or the section when the setting
 * has no file (a configuration built in memory). */
static char *
config_origin (const PpSetting *s, const char *section)
{
  if (s->file != NULL && s->line > 0)
    return g_strdup_printf ("%s:%u", s->file, s->line);
  if (s->file != NULL)
    return g_strdup (s->file);
  return g_strdup_printf ("[%s]", section);
}

static void
map_apply_layers (SettingMap              *map,
                  const PpLayeredSettings *ls,
                  const PpSituation       *situation,
                  const char              *name)
{
  static const PpSettingSource sources[PP_N_LAYERS] = {
    [PP_LAYER_BASE] = PP_SOURCE_CLASS,
    [PP_LAYER_BATTERY] = PP_SOURCE_BATTERY,
    [PP_LAYER_IDLE] = PP_SOURCE_IDLE,
  };
  static const char * const suffixes[PP_N_LAYERS] = {
    [PP_LAYER_BASE] = "", [PP_LAYER_BATTERY] = ":battery", [PP_LAYER_IDLE] = ":idle",
  };
  gboolean use[PP_N_LAYERS] = {
    [PP_LAYER_BASE] = TRUE,
    [PP_LAYER_BATTERY] = situation->on_battery,
    [PP_LAYER_IDLE] = situation->user_idle,
  };

  if (ls == NULL)
    return;
  for (guint l = 0; l < PP_N_LAYERS; l++)
    {
      if (!use[l])
        continue;
      for (guint i = 0; i < ls->layers[l]->len; i++)
        {
          PpSetting *s = g_ptr_array_index (ls->layers[l], i);
          g_autofree char *section = g_strdup_printf ("%s%s", name, suffixes[l]);
          g_autofree char *origin = config_origin (s, section);

          map_set (map, s->key, s->value, sources[l], origin);
        }
    }
}

/* Write order: the delay before control, so a device allowed to suspend
 * does so with its final delay; control last. ASPM L1 before its
 * substates: a substate written on turns L1 on. */
static int
setting_rank (const char *key)
{
  if (g_str_equal (key, PP_ATTR_DELAY))
    return 0;
  if (g_str_equal (key, PP_ATTR_WAKEUP))
    return 1;
  if (g_str_equal (key, PP_ATTR_ASPM_L1))
    return 2;
  if (g_str_equal (key, PP_ATTR_CONTROL))
    return 4;
  return 3;
}

static int
compare_settings (gconstpointer a, gconstpointer b)
{
  const PpSetting *sa = *(PpSetting * const *) a;
  const PpSetting *sb = *(PpSetting * const *) b;

  return setting_rank (sa->key) - setting_rank (sb->key);
}

const char *
pp_setting_source_to_string (PpSettingSource source)
{
  switch (source)
    {
    case PP_SOURCE_CLASS:      return "class";
    case PP_SOURCE_BATTERY:    return "battery";
    case PP_SOURCE_IDLE:       return "idle";
    case PP_SOURCE_UDEV:       return "udev";
    case PP_SOURCE_OVERRIDE:   return "override";
    case PP_SOURCE_POWER_DOWN: return "power-down";
    case PP_SOURCE_HOLD:       return "hold";
    case PP_SOURCE_EXCLUDED:   return "excluded";
    case PP_SOURCE_IGNORED:    return "ignored";
    case PP_SOURCE_QUIRK:      return "quirk";
    case PP_SOURCE_SLEEP:      return "sleep";
    case PP_SOURCE_NONE:
    default:                   return "";
    }
}

#define ORIGIN_OVERRIDE   "override set over D-Bus"
#define ORIGIN_POWER_DOWN "PowerDown (auto) over D-Bus, until PowerUp"

/* A drive whose APST is known broken gets APST off (latency tolerance 0),
 * whatever the class layers said, unless its class says
 * ApstQuirks=false. */
static void
map_apply_apst_quirk (SettingMap              *map,
                      const PpLayeredSettings *ls,
                      const PpNvmeApstQuirk   *quirk)
{
  g_autofree char *origin = NULL;

  if (quirk == NULL || (ls != NULL && ls->apst_quirks == 0))
    return;
  origin = g_strdup_printf ("NVMe APST quirk %s: %s; APST off", quirk->name, quirk->reason);
  map_set (map, PP_ATTR_NVME_APST, "0", PP_SOURCE_QUIRK, origin);
}

/* The kernel turns the L1 substates off with L1 (and writing a substate
 * on turns L1 on again): with L1 decided off, its substates are decided
 * off too, so that what is written is what reads back, and their
 * originals are journalled for the restore. */
static void
map_follow_aspm_l1 (SettingMap *map)
{
  static const char * const substates[] = { PP_ATTR_ASPM_L1_1, PP_ATTR_ASPM_L1_2 };
  PpSetting *l1 = map_find (map, PP_ATTR_ASPM_L1);
  g_autofree char *origin = NULL;

  if (l1 == NULL || !g_str_equal (l1->value, "0"))
    return;
  origin = g_strdup_printf ("AspmL1=0 (%s) turns the L1 substates off", l1->origin);
  for (guint i = 0; i < G_N_ELEMENTS (substates); i++)
    {
      PpSetting *s = map_find (map, substates[i]);

      if (s == NULL || !g_str_equal (s->value, "0"))
        map_set (map, substates[i], "0", l1->source, origin);
    }
}

static char *
sleep_layer_origin (const PpSleepConfig *sc)
{
  if (sc->restore_defaults_file != NULL)
    return g_strdup_printf ("RestoreDefaultsBeforeSleep=true (%s:%u), until resume",
                            sc->restore_defaults_file, sc->restore_defaults_line);
  return g_strdup ("RestoreDefaultsBeforeSleep=true (built-in default), until resume");
}

static gboolean
str_listed (char **list, const char *name)
{
  return list != NULL && name != NULL && g_strv_contains ((const char * const *) list, name);
}

/* Before system sleep (TLP 1.6's fix for resume freezes): runtime PM
 * off for the AHCI-related devices [Sleep] names, above every layer,
 * until resume. */
static void
map_apply_sleep_layer (SettingMap          *map,
                       const PpConfig      *config,
                       const PpDeviceProps *props,
                       const PpSituation   *situation,
                       const PpDeviceState *state)
{
  const PpSleepConfig *sc = &config->sleep;
  g_autofree char *origin = NULL;

  if (!situation->before_sleep || !sc->restore_defaults)
    return;
  if (!str_listed (sc->restore_defaults_classes, props->klass) &&
      !str_listed (sc->restore_defaults_drivers, state->driver))
    return;
  origin = sleep_layer_origin (sc);
  map_set (map, PP_ATTR_CONTROL, "on", PP_SOURCE_SLEEP, origin);
}

/* Every layer, the skip rules aside. */
static GPtrArray *
decide_layers (const PpConfig      *config,
               const PpDeviceProps *props,
               const PpSituation   *situation,
               const PpDeviceState *state)
{
  SettingMap map = { g_ptr_array_new_with_free_func ((GDestroyNotify) pp_setting_free) };
  const PpOverride *override = state->override;
  g_autofree char *section = g_strdup_printf ("Class %s", props->klass);

  /* systemd hwdb hints are defaults: the class wins where it says
   * something explicitly (SPEC §3). */
  if (props->id_autosuspend)
    map_set (&map, PP_ATTR_CONTROL, "auto", PP_SOURCE_UDEV, "ID_AUTOSUSPEND=1");
  if (props->id_delay_ms != PP_DELAY_UNSET)
    {
      g_autofree char *origin = g_strdup_printf ("ID_AUTOSUSPEND_DELAY_MS=%d", props->id_delay_ms);
      map_set_int (&map, PP_ATTR_DELAY, props->id_delay_ms, PP_SOURCE_UDEV, origin);
    }

  map_apply_layers (&map, pp_config_get_class (config, props->klass), situation, section);
  map_apply_apst_quirk (&map, pp_config_get_class (config, props->klass), state->apst_quirk);

  /* Per-device udev properties. */
  if (props->autosuspend == PP_TRISTATE_NO)
    map_set (&map, PP_ATTR_CONTROL, "on", PP_SOURCE_UDEV, "POWERPOLICY_AUTOSUSPEND=0");
  else if (props->autosuspend == PP_TRISTATE_YES)
    map_set (&map, PP_ATTR_CONTROL, "auto", PP_SOURCE_UDEV, "POWERPOLICY_AUTOSUSPEND=1");
  if (props->delay_ms != PP_DELAY_UNSET)
    {
      g_autofree char *origin = g_strdup_printf ("POWERPOLICY_AUTOSUSPEND_DELAY_MS=%d",
                                                 props->delay_ms);
      map_set_int (&map, PP_ATTR_DELAY, props->delay_ms, PP_SOURCE_UDEV, origin);
    }
  if (props->wakeup != NULL)
    {
      g_autofree char *origin = g_strdup_printf ("POWERPOLICY_WAKEUP=%s", props->wakeup);
      map_set (&map, PP_ATTR_WAKEUP, props->wakeup, PP_SOURCE_UDEV, origin);
    }

  /* Overrides set over D-Bus. */
  if (override != NULL)
    {
      if (override->control != NULL)
        map_set (&map, PP_ATTR_CONTROL, override->control, PP_SOURCE_OVERRIDE, ORIGIN_OVERRIDE);
      if (override->delay_ms != PP_DELAY_UNSET)
        map_set_int (&map, PP_ATTR_DELAY, override->delay_ms, PP_SOURCE_OVERRIDE, ORIGIN_OVERRIDE);
      if (override->wakeup != NULL)
        map_set (&map, PP_ATTR_WAKEUP, override->wakeup, PP_SOURCE_OVERRIDE, ORIGIN_OVERRIDE);
    }

  /* PowerDown(auto) is the caller's latest word, above their overrides */
  if (state->powered_down)
    {
      map_set (&map, PP_ATTR_CONTROL, "auto", PP_SOURCE_POWER_DOWN, ORIGIN_POWER_DOWN);
      map_set (&map, PP_ATTR_DELAY, "0", PP_SOURCE_POWER_DOWN, ORIGIN_POWER_DOWN);
    }

  if (state->held)
    map_set (&map, PP_ATTR_CONTROL, "on", PP_SOURCE_HOLD,
             state->held_by != NULL ? state->held_by : "held");

  map_apply_sleep_layer (&map, config, props, situation, state);
  map_follow_aspm_l1 (&map);

  g_ptr_array_sort (map.settings, compare_settings);
  return map.settings;
}

PpDecision *
pp_policy_decide (const PpConfig      *config,
                  const PpDeviceProps *props,
                  const PpSituation   *situation,
                  const PpDeviceState *state)
{
  static const PpDeviceState no_state = { NULL, FALSE, FALSE, NULL, NULL };
  PpDecision *d = g_new0 (PpDecision, 1);
  const PpLayeredSettings *ls = pp_config_get_class (config, props->klass);
  GPtrArray *settings;

  if (state == NULL)
    state = &no_state;
  settings = decide_layers (config, props, situation, state);

  if (props->ignore)
    {
      d->skipped = PP_SOURCE_IGNORED;
      d->skip_origin = g_strdup ("POWERPOLICY_IGNORE=1");
    }
  else if (ls != NULL && ls->exclude_drivers != NULL && state->driver != NULL &&
           g_strv_contains ((const char * const *) ls->exclude_drivers, state->driver))
    {
      g_autofree char *where = NULL;

      if (ls->exclude_drivers_file != NULL && ls->exclude_drivers_line > 0)
        where = g_strdup_printf ("%s:%u", ls->exclude_drivers_file, ls->exclude_drivers_line);
      else
        where = g_strdup_printf ("[Class %s]", props->klass);
      d->skipped = PP_SOURCE_EXCLUDED;
      d->skip_origin = g_strdup_printf ("driver %s excluded by %s", state->driver, where);
    }

  if (d->skipped != PP_SOURCE_NONE)
    {
      d->left_alone = settings;
      d->settings = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_setting_free);
    }
  else
    {
      d->settings = settings;
      d->left_alone = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_setting_free);
    }
  return d;
}

void
pp_decision_free (PpDecision *decision)
{
  if (decision == NULL)
    return;
  /* callers may steal the settings */
  g_clear_pointer (&decision->settings, g_ptr_array_unref);
  g_clear_pointer (&decision->left_alone, g_ptr_array_unref);
  g_free (decision->skip_origin);
  g_free (decision);
}

GPtrArray *
pp_policy_device_settings (const PpConfig      *config,
                           const PpDeviceProps *props,
                           const PpSituation   *situation,
                           const PpOverride    *override,
                           gboolean             held)
{
  PpDeviceState state = { override, FALSE, held, NULL, NULL };
  g_autoptr(PpDecision) d = pp_policy_decide (config, props, situation, &state);

  return g_steal_pointer (&d->settings);
}

/* ---- Explain -------------------------------------------------------------- */

void
pp_explain_row_free (PpExplainRow *row)
{
  if (row == NULL)
    return;
  g_free (row->attribute);
  g_free (row->current);
  g_free (row->decided);
  g_free (row->origin);
  g_free (row);
}

static PpExplainRow *
explain_row_new (const char *attribute, const char *decided, const char *layer, const char *origin)
{
  PpExplainRow *row = g_new0 (PpExplainRow, 1);

  row->attribute = g_strdup (attribute);
  row->decided = g_strdup (decided);
  row->layer = layer;
  row->origin = g_strdup (origin);
  return row;
}

static const PpSetting *
find_setting (GPtrArray *settings, const char *key)
{
  for (guint i = 0; i < settings->len; i++)
    {
      const PpSetting *s = g_ptr_array_index (settings, i);
      if (g_str_equal (s->key, key))
        return s;
    }
  return NULL;
}

GPtrArray *
pp_policy_explain (const PpConfig   *config,
                   const char       *klass,
                   const PpDecision *decision)
{
  static const char * const always[] = { PP_ATTR_CONTROL, PP_ATTR_DELAY, PP_ATTR_WAKEUP, NULL };
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_explain_row_free);
  gboolean skipped = decision->skipped != PP_SOURCE_NONE;
  GPtrArray *decided = skipped ? decision->left_alone : decision->settings;
  g_autofree char *unset = NULL;

  if (klass == NULL)
    klass = "";
  if (pp_config_get_class (config, klass) != NULL)
    unset = g_strdup_printf ("not set by [Class %s]", klass);
  else
    unset = g_strdup_printf ("no [Class %s] section", klass);

  for (guint i = 0; always[i]; i++)
    {
      const PpSetting *s = find_setting (decided, always[i]);

      if (skipped)
        g_ptr_array_add (rows, explain_row_new (always[i], "",
                                                pp_setting_source_to_string (decision->skipped),
                                                decision->skip_origin));
      else if (s != NULL)
        g_ptr_array_add (rows, explain_row_new (s->key, s->value,
                                                pp_setting_source_to_string (s->source),
                                                s->origin));
      else
        g_ptr_array_add (rows, explain_row_new (always[i], "", "class", unset));
    }
  for (guint i = 0; i < decided->len; i++)
    {
      const PpSetting *s = g_ptr_array_index (decided, i);

      if (g_strv_contains (always, s->key))
        continue;
      if (skipped)
        g_ptr_array_add (rows, explain_row_new (s->key, "",
                                                pp_setting_source_to_string (decision->skipped),
                                                decision->skip_origin));
      else
        g_ptr_array_add (rows, explain_row_new (s->key, s->value,
                                                pp_setting_source_to_string (s->source),
                                                s->origin));
    }
  return rows;
}

/* Before sleep the PCIe ASPM policy the configuration sets goes back to
 * the firmware's ("default"), with the AHCI runtime PM (TLP 1.6). */
static void
map_apply_aspm_sleep_default (SettingMap        *map,
                              const PpConfig    *config,
                              const PpSituation *situation)
{
  const PpSleepConfig *sc = &config->sleep;
  g_autofree char *origin = NULL;

  if (!situation->before_sleep || !sc->restore_defaults ||
      map_find (map, PP_ASPM_POLICY_PARAM) == NULL)
    return;
  origin = sleep_layer_origin (sc);
  map_set (map, PP_ASPM_POLICY_PARAM, "default", PP_SOURCE_SLEEP, origin);
}

GPtrArray *
pp_policy_module_settings (const PpConfig    *config,
                           const PpSituation *situation)
{
  g_autoptr(GPtrArray) names = pp_config_list_modules (config);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_setting_free);

  for (guint i = 0; i < names->len; i++)
    {
      const char *module = g_ptr_array_index (names, i);
      SettingMap map = { g_ptr_array_new_with_free_func ((GDestroyNotify) pp_setting_free) };
      g_autofree char *section = g_strdup_printf ("Module %s", module);

      map_apply_layers (&map, pp_config_get_module (config, module), situation, section);
      if (g_str_equal (module, PP_ASPM_MODULE))
        map_apply_aspm_sleep_default (&map, config, situation);
      for (guint j = 0; j < map.settings->len; j++)
        {
          PpSetting *s = g_ptr_array_index (map.settings, j);
          g_autofree char *key = g_strdup_printf ("%s/parameters/%s", module, s->key);
          PpSetting *copy = pp_setting_new (key, s->value);

          copy->source = s->source;
          copy->origin = g_strdup (s->origin);
          g_ptr_array_add (out, copy);
        }
      g_ptr_array_unref (map.settings);
    }
  return out;
}

gboolean
pp_policy_on_battery (const PpPowerSupplyFacts *supplies,
                      gsize                     n_supplies)
{
  gboolean have_battery = FALSE;

  for (gsize i = 0; i < n_supplies; i++)
    {
      const PpPowerSupplyFacts *f = &supplies[i];

      /* a mouse's or headset's battery, or its charger, does not power
       * the system */
      if (f->type == NULL || g_strcmp0 (f->scope, "Device") == 0)
        continue;
      if (g_str_equal (f->type, "Battery"))
        {
          have_battery = TRUE;
        }
      else if (g_str_equal (f->type, "Mains") || g_str_has_prefix (f->type, "USB") ||
               g_str_equal (f->type, "Wireless"))
        {
          /* "USB" and the older "USB_C", "USB_PD", ... types are chargers
           * too; unknown counts as online: no information means AC */
          if (f->online != 0)
            return FALSE;
        }
    }
  return have_battery;
}
