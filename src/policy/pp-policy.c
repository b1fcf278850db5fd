/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-policy"

#include "config.h"

#include <string.h>

#include "pp-policy.h"
#include "pp-util.h"

static gboolean
parse_delay (const char *value, gint *out)
{
  gint64 v = 0;

  if (value == NULL || !g_ascii_string_to_signed (value, 10, -1, G_MAXINT32, &v, NULL))
    return FALSE;
  *out = (gint) v;
  return TRUE;
}

/* The value is the device's (a udev rule or hwdb entry set it): escaped
 * and bounded, as any device text in a log line. */
static void
warn (GPtrArray *warnings, const char *key, const char *value, const char *expected)
{
  g_autofree char *shown = NULL;

  if (warnings == NULL)
    return;
  shown = pp_escape_text (value, PP_ESCAPE_SHOWN_MAX);
  g_ptr_array_add (warnings,
                   g_strdup_printf ("invalid udev property %s=%s (expected %s), ignoring it",
                                    key, shown, expected));
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
  props->subsystem = g_strdup (subsystem ? subsystem : "");
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
  g_clear_pointer (&props->subsystem, g_free);
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

/* "FILE:LINE [SECTION]" of a configuration line: where it is and the
 * section that decided; "[SECTION]" when the setting has no file (a
 * configuration built in memory). */
static char *
config_origin (const PpSetting *s, const char *section)
{
  if (s->file != NULL && s->line > 0)
    return g_strdup_printf ("%s:%u [%s]", s->file, s->line, section);
  if (s->file != NULL)
    return g_strdup_printf ("%s [%s]", s->file, section);
  return g_strdup_printf ("[%s]", section);
}

static gboolean
layer_in_use (PpLayer layer, const PpSituation *situation)
{
  switch (layer)
    {
    case PP_LAYER_BASE:        return TRUE;
    case PP_LAYER_BATTERY:     return situation->on_battery;
    case PP_LAYER_POWER_SAVER: return situation->profile == PP_PROFILE_POWER_SAVER;
    case PP_LAYER_PERFORMANCE: return situation->profile == PP_PROFILE_PERFORMANCE;
    case PP_LAYER_LOW_BATTERY: return situation->on_battery && situation->low_battery;
    case PP_LAYER_IDLE:        return situation->user_idle;
    case PP_N_LAYERS:
    default:                   return FALSE;
    }
}

static PpSettingSource
layer_source (PpLayer layer)
{
  switch (layer)
    {
    case PP_LAYER_BATTERY:     return PP_SOURCE_BATTERY;
    case PP_LAYER_POWER_SAVER: return PP_SOURCE_POWER_SAVER;
    case PP_LAYER_PERFORMANCE: return PP_SOURCE_PERFORMANCE;
    case PP_LAYER_LOW_BATTERY: return PP_SOURCE_LOW_BATTERY;
    case PP_LAYER_IDLE:        return PP_SOURCE_IDLE;
    case PP_LAYER_BASE:
    case PP_N_LAYERS:
    default:                   return PP_SOURCE_CLASS;
    }
}

/* One layer of one section onto the map; an empty value (an empty
 * assignment) is kept as "" until the end: it leaves the attribute
 * alone unless a higher layer sets it again. */
static void
map_apply_layer (SettingMap              *map,
                 const PpLayeredSettings *ls,
                 PpLayer                  layer,
                 const char              *name,
                 const PpSituation       *situation)
{
  g_autofree char *section = NULL;
  gboolean forced = situation->power_source_origin != NULL &&
                    (layer == PP_LAYER_BATTERY || layer == PP_LAYER_LOW_BATTERY);

  if (ls == NULL || ls->layers[layer]->len == 0)
    return;
  section = g_strdup_printf ("%s%s", name, pp_layer_suffix (layer));
  for (guint i = 0; i < ls->layers[layer]->len; i++)
    {
      PpSetting *s = g_ptr_array_index (ls->layers[layer], i);
      g_autofree char *origin = config_origin (s, section);

      /* on battery because the configuration says so, not a supply */
      if (forced)
        {
          char *with = g_strdup_printf ("%s, on battery by %s", origin,
                                        situation->power_source_origin);
          g_free (origin);
          origin = with;
        }

      map_set (map, s->key, s->value, layer_source (layer), origin);
    }
}

/* The cascade (powerpolicy.conf(5), LAYERS): for each layer in use, lowest
 * first, the subsystem's section (@sub, may be NULL), then the class's (@cls).
 */
static void
map_apply_cascade (SettingMap              *map,
                   const PpLayeredSettings *sub,
                   const char              *sub_name,
                   const PpLayeredSettings *cls,
                   const char              *cls_name,
                   const PpSituation       *situation)
{
  for (guint l = 0; l < PP_N_LAYERS; l++)
    {
      if (!layer_in_use ((PpLayer) l, situation))
        continue;
      map_apply_layer (map, sub, (PpLayer) l, sub_name, situation);
      map_apply_layer (map, cls, (PpLayer) l, cls_name, situation);
    }
}

static void
map_apply_layers (SettingMap              *map,
                  const PpLayeredSettings *ls,
                  const PpSituation       *situation,
                  const char              *name)
{
  map_apply_cascade (map, NULL, NULL, ls, name, situation);
}

/* A reverted device (Revert over D-Bus): each attribute in @map back to
 * the value it had before the daemon changed it; one the daemon has not
 * changed has it still, and is left alone (an empty value). */
static void
map_apply_revert (SettingMap *map, const PpDeviceState *state)
{
  const char *origin = state->reverted_by != NULL ? state->reverted_by : "reverted";

  if (!state->reverted)
    return;
  for (guint i = 0; i < map->settings->len; i++)
    {
      PpSetting *s = g_ptr_array_index (map->settings, i);
      const char *original = state->original != NULL
                             ? state->original (state->original_data, s->key) : NULL;

      map_set (map, s->key, original != NULL ? original : "", PP_SOURCE_REVERT, origin);
    }
}

/* An empty assignment is the device's own value: what it had before the
 * daemon first wrote it. An attribute the daemon changed (a layer that
 * no longer applies, an override since cleared) gets that value back;
 * one it never changed has it still and is left alone (stays ""). */
static void
map_apply_own (SettingMap *map, const PpDeviceState *state)
{
  if (state->original == NULL)
    return;
  for (guint i = 0; i < map->settings->len; i++)
    {
      PpSetting *s = g_ptr_array_index (map->settings, i);
      const char *original;

      if (*s->value != '\0')
        continue;
      original = state->original (state->original_data, s->key);
      if (original == NULL)
        continue;
      g_free (s->value);
      s->value = g_strdup (original);
      /* a revert's entry stays the revert's: it is what the revert asks */
      if (s->source != PP_SOURCE_REVERT)
        s->source = PP_SOURCE_OWN;
    }
}

static char *explain_unset (const PpConfig *config, const PpDeviceProps *props);

/* A runtime PM attribute no layer sets is the device's own value too:
 * one the daemon changed (its original is known) is decided back to it,
 * so that Explain shows the value written back. */
static void
map_apply_own_unset (SettingMap          *map,
                     const PpConfig      *config,
                     const PpDeviceProps *props,
                     const PpDeviceState *state)
{
  static const char * const attrs[] = { PP_ATTR_DELAY, PP_ATTR_WAKEUP, PP_ATTR_CONTROL };
  g_autofree char *origin = NULL;

  if (state->original == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (attrs); i++)
    {
      const char *original;

      if (map_find (map, attrs[i]) != NULL)
        continue;
      original = state->original (state->original_data, attrs[i]);
      if (original == NULL)
        continue;
      if (origin == NULL)
        origin = explain_unset (config, props);
      map_set (map, attrs[i], original, PP_SOURCE_OWN, origin);
    }
}

/* Move the entries an empty assignment left alone (value "") from @map
 * into @cleared (may be NULL: dropped). */
static void
map_take_cleared (SettingMap *map, GPtrArray *cleared)
{
  for (guint i = map->settings->len; i > 0; i--)
    {
      PpSetting *s = g_ptr_array_index (map->settings, i - 1);

      if (*s->value != '\0')
        continue;
      if (cleared != NULL)
        g_ptr_array_insert (cleared, 0, g_ptr_array_steal_index (map->settings, i - 1));
      else
        g_ptr_array_remove_index (map->settings, i - 1);
    }
}

/* The device's subsystem section when it is another section than its
 * class's, else NULL. */
static const char *
cascade_subsystem (const PpDeviceProps *props)
{
  if (props->subsystem == NULL || *props->subsystem == '\0' ||
      g_strcmp0 (props->subsystem, props->klass) == 0)
    return NULL;
  return props->subsystem;
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
    case PP_SOURCE_LOW_BATTERY: return "low-battery";
    case PP_SOURCE_IDLE:       return "idle";
    case PP_SOURCE_UDEV:       return "udev";
    case PP_SOURCE_OVERRIDE:   return "override";
    case PP_SOURCE_POWER_DOWN: return "power-down";
    case PP_SOURCE_HOLD:       return "hold";
    case PP_SOURCE_EXCLUDED:   return "excluded";
    case PP_SOURCE_IGNORED:    return "ignored";
    case PP_SOURCE_REVERT:     return "revert";
    case PP_SOURCE_QUIRK:      return "quirk";
    case PP_SOURCE_SLEEP:      return "sleep";
    case PP_SOURCE_HWDB:       return "hwdb";
    case PP_SOURCE_OWN:        return "own";
    case PP_SOURCE_POWER_SAVER: return "power-saver";
    case PP_SOURCE_PERFORMANCE: return "performance";
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
                      const PpLayeredSettings *class_ls,
                      const PpLayeredSettings *subsystem_ls,
                      const PpNvmeApstQuirk   *quirk)
{
  g_autofree char *origin = NULL;
  gint enabled = -1;

  if (quirk == NULL)
    return;
  /* the class's ApstQuirks= when it sets one, else the subsystem's */
  if (class_ls != NULL)
    enabled = class_ls->apst_quirks;
  if (enabled < 0 && subsystem_ls != NULL)
    enabled = subsystem_ls->apst_quirks;
  if (enabled == 0)
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
  /* a class whose runtime PM lives in another device's directory gets it
   * there too: the ATA port's (ata-port, Attr.device/power/control); its
   * own power/control is the class device's, which the kernel ignores */
  for (guint i = 0; i < map->settings->len; i++)
    {
      PpSetting *s = g_ptr_array_index (map->settings, i);

      if (g_str_has_suffix (s->key, "/" PP_ATTR_CONTROL))
        map_set (map, s->key, "on", PP_SOURCE_SLEEP, origin);
    }
}

/* The device's udev properties: the hwdb's, then the administrator's. */
static void
map_apply_device_properties (SettingMap *map, const PpDeviceProps *props)
{
  /* The hwdb's device knowledge (systemd's, ChromiumOS's and libfprint's
   * lists of models tested safe to autosuspend, and the model's safe
   * minimum delay: udev's 60-autosuspend.rules, hwdb(7)): above every
   * class layer, so that a class default never undoes it; the
   * administrator's own properties below stay above it. */
  if (props->id_autosuspend)
    map_set (map, PP_ATTR_CONTROL, "auto", PP_SOURCE_HWDB, "ID_AUTOSUSPEND=1");
  if (props->id_delay_ms != PP_DELAY_UNSET)
    {
      g_autofree char *origin = g_strdup_printf ("ID_AUTOSUSPEND_DELAY_MS=%d", props->id_delay_ms);
      map_set_int (map, PP_ATTR_DELAY, props->id_delay_ms, PP_SOURCE_HWDB, origin);
    }

  /* The administrator's per-device udev properties. */
  if (props->autosuspend == PP_TRISTATE_NO)
    map_set (map, PP_ATTR_CONTROL, "on", PP_SOURCE_UDEV, "POWERPOLICY_AUTOSUSPEND=0");
  else if (props->autosuspend == PP_TRISTATE_YES)
    map_set (map, PP_ATTR_CONTROL, "auto", PP_SOURCE_UDEV, "POWERPOLICY_AUTOSUSPEND=1");
  if (props->delay_ms != PP_DELAY_UNSET)
    {
      g_autofree char *origin = g_strdup_printf ("POWERPOLICY_AUTOSUSPEND_DELAY_MS=%d",
                                                 props->delay_ms);
      map_set_int (map, PP_ATTR_DELAY, props->delay_ms, PP_SOURCE_UDEV, origin);
    }
  if (props->wakeup != NULL)
    {
      g_autofree char *origin = g_strdup_printf ("POWERPOLICY_WAKEUP=%s", props->wakeup);
      map_set (map, PP_ATTR_WAKEUP, props->wakeup, PP_SOURCE_UDEV, origin);
    }
}

/* Every layer, the skip rules aside. The entries empty assignments left
 * alone go to @cleared. */
static GPtrArray *
decide_layers (const PpConfig      *config,
               const PpDeviceProps *props,
               const PpSituation   *situation,
               const PpDeviceState *state,
               GPtrArray           *cleared)
{
  SettingMap map = { g_ptr_array_new_with_free_func ((GDestroyNotify) pp_setting_free) };
  const PpOverride *override = state->override;
  const char *subsystem = cascade_subsystem (props);
  g_autofree char *section = g_strdup_printf ("Class %s", props->klass);
  g_autofree char *sub_section = subsystem ? g_strdup_printf ("Class %s", subsystem) : NULL;

  map_apply_cascade (&map,
                     subsystem ? pp_config_get_class (config, subsystem) : NULL, sub_section,
                     pp_config_get_class (config, props->klass), section,
                     situation);
  map_apply_apst_quirk (&map,
                        pp_config_get_class (config, props->klass),
                        subsystem ? pp_config_get_class (config, subsystem) : NULL,
                        state->apst_quirk);

  map_apply_device_properties (&map, props);

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

  /* a Revert: every attribute the layers below decide goes back to the
   * value it had before the daemon changed it; PowerDown and holds, the
   * callers' explicit words about power, stay above it */
  map_apply_revert (&map, state);

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

  map_apply_own (&map, state);
  map_apply_own_unset (&map, config, props, state);
  map_take_cleared (&map, cleared);
  g_ptr_array_sort (map.settings, compare_settings);
  return map.settings;
}

/* The ExcludeDrivers= in force for a device: its class's when the class
 * section sets the key (an empty list included), else its subsystem's.
 * @section_name: the section it comes from. */
static const PpLayeredSettings *
effective_exclude (const PpConfig      *config,
                   const PpDeviceProps *props,
                   const char         **section_name)
{
  const PpLayeredSettings *cls = pp_config_get_class (config, props->klass);
  const char *subsystem = cascade_subsystem (props);
  const PpLayeredSettings *sub = subsystem ? pp_config_get_class (config, subsystem) : NULL;

  if (cls != NULL && cls->exclude_drivers_set)
    {
      *section_name = props->klass;
      return cls;
    }
  if (sub != NULL && sub->exclude_drivers_set)
    {
      *section_name = subsystem;
      return sub;
    }
  return NULL;
}

char *
pp_policy_get_exclusion (const PpConfig      *config,
                         const PpDeviceProps *props,
                         const char          *driver)
{
  const char *exclude_section = NULL;
  const PpLayeredSettings *ls = effective_exclude (config, props, &exclude_section);
  g_autofree char *where = NULL;

  if (props->ignore || ls == NULL || ls->exclude_drivers == NULL || driver == NULL ||
      !g_strv_contains ((const char * const *) ls->exclude_drivers, driver))
    return NULL;
  if (ls->exclude_drivers_file != NULL && ls->exclude_drivers_line > 0)
    where = g_strdup_printf ("%s:%u [Class %s]", ls->exclude_drivers_file,
                             ls->exclude_drivers_line, exclude_section);
  else
    where = g_strdup_printf ("[Class %s]", exclude_section);
  return g_strdup_printf ("driver %s excluded by %s", driver, where);
}

PpDecision *
pp_policy_decide (const PpConfig      *config,
                  const PpDeviceProps *props,
                  const PpSituation   *situation,
                  const PpDeviceState *state)
{
  static const PpDeviceState no_state = { NULL, FALSE, FALSE, NULL, NULL };
  PpDecision *d = g_new0 (PpDecision, 1);
  GPtrArray *settings;
  char *excluded;

  if (state == NULL)
    state = &no_state;
  d->cleared = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_setting_free);
  settings = decide_layers (config, props, situation, state, d->cleared);

  if (props->ignore)
    {
      d->skipped = PP_SOURCE_IGNORED;
      d->skip_origin = g_strdup ("POWERPOLICY_IGNORE=1");
    }
  else if ((excluded = pp_policy_get_exclusion (config, props, state->driver)) != NULL)
    {
      d->skipped = PP_SOURCE_EXCLUDED;
      d->skip_origin = excluded;
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
  g_clear_pointer (&decision->cleared, g_ptr_array_unref);
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

const PpSetting *
pp_settings_find (GPtrArray *settings, const char *key)
{
  for (guint i = 0; i < settings->len; i++)
    {
      const PpSetting *s = g_ptr_array_index (settings, i);
      if (g_str_equal (s->key, key))
        return s;
    }
  return NULL;
}

/* Why no layer sets an attribute: which sections exist and do not set
 * it. */
static char *
explain_unset (const PpConfig *config, const PpDeviceProps *props)
{
  const char *klass = props->klass != NULL ? props->klass : "";
  const char *subsystem = cascade_subsystem (props);
  gboolean have_class = pp_config_get_class (config, klass) != NULL;
  gboolean have_sub = subsystem != NULL && pp_config_get_class (config, subsystem) != NULL;

  if (subsystem == NULL)
    return have_class ? g_strdup_printf ("not set by [Class %s]", klass)
                      : g_strdup_printf ("no [Class %s] section", klass);
  if (have_class && have_sub)
    return g_strdup_printf ("not set by [Class %s] or [Class %s]", subsystem, klass);
  if (have_sub || have_class)
    return g_strdup_printf ("not set by [Class %s]", have_sub ? subsystem : klass);
  return g_strdup_printf ("no [Class %s] or [Class %s] section", subsystem, klass);
}

GPtrArray *
pp_policy_explain (const PpConfig      *config,
                   const PpDeviceProps *props,
                   const PpDecision    *decision)
{
  static const char * const always[] = { PP_ATTR_CONTROL, PP_ATTR_DELAY, PP_ATTR_WAKEUP, NULL };
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_explain_row_free);
  gboolean skipped = decision->skipped != PP_SOURCE_NONE;
  GPtrArray *decided = skipped ? decision->left_alone : decision->settings;
  g_autofree char *unset = explain_unset (config, props);

  for (guint i = 0; always[i]; i++)
    {
      const PpSetting *s = pp_settings_find (decided, always[i]);
      const PpSetting *c = decision->cleared ? pp_settings_find (decision->cleared, always[i]) : NULL;

      if (skipped)
        g_ptr_array_add (rows, explain_row_new (always[i], "",
                                                pp_setting_source_to_string (decision->skipped),
                                                decision->skip_origin));
      else if (s != NULL)
        g_ptr_array_add (rows, explain_row_new (s->key, s->value,
                                                pp_setting_source_to_string (s->source),
                                                s->origin));
      else if (c != NULL)
        {
          /* an empty assignment on an attribute the daemon never changed:
           * the device keeps its own value */
          g_autofree char *why = g_strdup_printf ("left alone by %s", c->origin);
          PpSettingSource layer = c->source == PP_SOURCE_REVERT ? PP_SOURCE_REVERT
                                                                  : PP_SOURCE_OWN;
          g_ptr_array_add (rows, explain_row_new (always[i], "",
                                                  pp_setting_source_to_string (layer), why));
        }
      else
        g_ptr_array_add (rows, explain_row_new (always[i], "",
                                                pp_setting_source_to_string (PP_SOURCE_OWN),
                                                unset));
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
      map_take_cleared (&map, NULL);
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

GPtrArray *
pp_policy_platform_settings (const PpConfig    *config,
                             const PpSituation *situation)
{
  SettingMap map = { g_ptr_array_new_with_free_func ((GDestroyNotify) pp_setting_free) };

  map_apply_layers (&map, config->platform, situation, "Platform");
  map_take_cleared (&map, NULL);
  return map.settings;
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

gint
pp_policy_battery_percent (const PpBatteryFacts *batteries,
                           gsize                 n_batteries)
{
  gint64 energy_now = 0, energy_full = 0, charge_now = 0, charge_full = 0;
  gboolean all_energy = TRUE, all_charge = TRUE, all_capacity = TRUE;
  gint64 capacity_sum = 0;
  guint n = 0;
  double ratio;

  for (gsize i = 0; i < n_batteries; i++)
    {
      const PpBatteryFacts *b = &batteries[i];

      /* a mouse's battery does not power the system */
      if (g_strcmp0 (b->scope, "Device") == 0)
        continue;
      n++;
      if (b->energy_now >= 0 && b->energy_full > 0)
        {
          energy_now += b->energy_now;
          energy_full += b->energy_full;
        }
      else
        all_energy = FALSE;
      if (b->charge_now >= 0 && b->charge_full > 0)
        {
          charge_now += b->charge_now;
          charge_full += b->charge_full;
        }
      else
        all_charge = FALSE;
      if (b->capacity >= 0)
        capacity_sum += MIN (b->capacity, 100);
      else
        all_capacity = FALSE;
    }
  if (n == 0)
    return -1;
  if (all_energy)
    ratio = (double) energy_now / (double) energy_full;
  else if (all_charge)
    ratio = (double) charge_now / (double) charge_full;
  else if (all_capacity)
    return (gint) (capacity_sum / n);
  else
    return -1;
  /* the kernel may report a "now" above "full" (calibration) */
  return (gint) (MIN (ratio, 1.0) * 100.0 + 0.5);
}

gboolean
pp_policy_low_battery (gboolean on_battery,
                       gint     percent,
                       guint    threshold)
{
  return on_battery && percent >= 0 && (guint) percent <= threshold;
}

const char *
pp_policy_sleep_mode (const PpConfig    *config,
                      const PpSituation *situation,
                      gboolean           hibernate,
                      const char       **layer)
{
  const PpSleepConfig *sc = &config->sleep;
  const char *base = hibernate ? sc->hibernate_mode : sc->mem_sleep;
  const char *battery = hibernate ? sc->hibernate_mode_battery : sc->mem_sleep_battery;
  const char *low = hibernate ? sc->hibernate_mode_low_battery : sc->mem_sleep_low_battery;
  const char *saver = hibernate ? sc->hibernate_mode_power_saver : sc->mem_sleep_power_saver;
  const char *perf = hibernate ? sc->hibernate_mode_performance : sc->mem_sleep_performance;
  const char *where = "Sleep";
  const char *value = base;

  if (situation->on_battery && battery != NULL)
    {
      value = battery;
      where = "Sleep:battery";
    }
  if (situation->profile == PP_PROFILE_POWER_SAVER && saver != NULL)
    {
      value = saver;
      where = "Sleep:power-saver";
    }
  if (situation->profile == PP_PROFILE_PERFORMANCE && perf != NULL)
    {
      value = perf;
      where = "Sleep:performance";
    }
  if (situation->on_battery && situation->low_battery && low != NULL)
    {
      value = low;
      where = "Sleep:low-battery";
    }
  if (layer != NULL)
    *layer = where;
  return value;
}
