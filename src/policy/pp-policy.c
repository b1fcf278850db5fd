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
map_set (SettingMap *map, const char *key, const char *value)
{
  PpSetting *s = map_find (map, key);

  if (s != NULL)
    {
      g_free (s->value);
      s->value = g_strdup (value);
      return;
    }
  g_ptr_array_add (map->settings, pp_setting_new (key, value));
}

static void
map_set_int (SettingMap *map, const char *key, gint value)
{
  char buf[16];

  g_snprintf (buf, sizeof buf, "%d", value);
  map_set (map, key, buf);
}

static void
map_apply_layers (SettingMap              *map,
                  const PpLayeredSettings *ls,
                  const PpSituation       *situation)
{
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
          map_set (map, s->key, s->value);
        }
    }
}

/* Write order: the delay before control, so a device allowed to suspend
 * does so with its final delay; control last. */
static int
setting_rank (const char *key)
{
  if (g_str_equal (key, PP_ATTR_DELAY))
    return 0;
  if (g_str_equal (key, PP_ATTR_WAKEUP))
    return 1;
  if (g_str_equal (key, PP_ATTR_CONTROL))
    return 3;
  return 2;
}

static int
compare_settings (gconstpointer a, gconstpointer b)
{
  const PpSetting *sa = *(PpSetting * const *) a;
  const PpSetting *sb = *(PpSetting * const *) b;

  return setting_rank (sa->key) - setting_rank (sb->key);
}

GPtrArray *
pp_policy_device_settings (const PpConfig      *config,
                           const PpDeviceProps *props,
                           const PpSituation   *situation,
                           const PpOverride    *override,
                           gboolean             held)
{
  SettingMap map = { g_ptr_array_new_with_free_func ((GDestroyNotify) pp_setting_free) };
  const PpLayeredSettings *ls;

  if (props->ignore)
    return map.settings;

  /* systemd hwdb hints are defaults: the class wins where it says
   * something explicitly (SPEC §3). */
  if (props->id_autosuspend)
    map_set (&map, PP_ATTR_CONTROL, "auto");
  if (props->id_delay_ms != PP_DELAY_UNSET)
    map_set_int (&map, PP_ATTR_DELAY, props->id_delay_ms);

  ls = pp_config_get_class (config, props->klass);
  map_apply_layers (&map, ls, situation);

  /* Per-device udev properties. */
  if (props->autosuspend == PP_TRISTATE_NO)
    map_set (&map, PP_ATTR_CONTROL, "on");
  else if (props->autosuspend == PP_TRISTATE_YES)
    map_set (&map, PP_ATTR_CONTROL, "auto");
  if (props->delay_ms != PP_DELAY_UNSET)
    map_set_int (&map, PP_ATTR_DELAY, props->delay_ms);
  if (props->wakeup != NULL)
    map_set (&map, PP_ATTR_WAKEUP, props->wakeup);

  /* Overrides set over D-Bus. */
  if (override != NULL)
    {
      if (override->control != NULL)
        map_set (&map, PP_ATTR_CONTROL, override->control);
      if (override->delay_ms != PP_DELAY_UNSET)
        map_set_int (&map, PP_ATTR_DELAY, override->delay_ms);
      if (override->wakeup != NULL)
        map_set (&map, PP_ATTR_WAKEUP, override->wakeup);
    }

  if (held)
    map_set (&map, PP_ATTR_CONTROL, "on");

  g_ptr_array_sort (map.settings, compare_settings);
  return map.settings;
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

      map_apply_layers (&map, pp_config_get_module (config, module), situation);
      for (guint j = 0; j < map.settings->len; j++)
        {
          PpSetting *s = g_ptr_array_index (map.settings, j);
          g_autofree char *key = g_strdup_printf ("%s/parameters/%s", module, s->key);
          g_ptr_array_add (out, pp_setting_new (key, s->value));
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
