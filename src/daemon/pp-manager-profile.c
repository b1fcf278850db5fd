/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The power profile's state of the manager (pp-manager-profile.h): the [Platform] knobs
 * (platform_profile, energy_performance_preference) planned through the
 * one write path, their Explain rows, the chosen profile kept in the
 * state directory, and the Conflicts row of another program serving the
 * power profiles' names (data/dbus/org.freedesktop.UPower.PowerProfiles.xml). */
#define G_LOG_DOMAIN "pp-manager"

#include "config.h"

#include <errno.h>
#include <string.h>

#include "pp-error.h"
#include "pp-manager-profile.h"
#include "pp-policy.h"
#include "pp-profile.h"
#include "pp-sysfs.h"

#define PROFILE_FILE "power-profile"
/* the file holds one word; anything longer is not ours */
#define PROFILE_FILE_MAX 64

struct _PpProfileState {
  /* the manager's, which outlives this */
  PpExecutor        *executor;
  const PpSituation *situation;
  const PpConfig    *config;     /* pp_profile_state_set_config() */
  char              *state_dir;
  /* [Platform]'s knobs, found at start and on Reload; NULL before */
  PpPlatformKnobs   *platform;
};

PpProfileState *
pp_profile_state_new (PpExecutor *executor, const PpSituation *situation, const char *state_dir)
{
  PpProfileState *self = g_new0 (PpProfileState, 1);

  self->executor = executor;
  self->situation = situation;
  self->state_dir = g_strdup (state_dir);
  return self;
}

void
pp_profile_state_free (PpProfileState *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->platform, pp_platform_knobs_free);
  g_free (self->state_dir);
  g_free (self);
}

void
pp_profile_state_set_config (PpProfileState *self, const PpConfig *config)
{
  self->config = config;
}

void
pp_profile_state_read_platform (PpProfileState *self)
{
  g_clear_pointer (&self->platform, pp_platform_knobs_free);
  self->platform = pp_platform_knobs_read ();
}

const PpPlatformKnobs *
pp_profile_state_get_platform (PpProfileState *self)
{
  if (self->platform == NULL)
    pp_profile_state_read_platform (self);
  return self->platform;
}

/* The word to write to @knob for the setting @s, or NULL (with @why)
 * when the knob offers nothing close. */
static const char *
knob_value (const PpPlatformKnob *knob, const PpSetting *s, const char **why)
{
  const char * const *choices = (const char * const *) knob->choices;

  if (g_str_equal (s->key, PP_PLATFORM_PROFILE_KEY))
    {
      const char *mapped = pp_platform_profile_map (s->value, choices);

      if (mapped == NULL)
        *why = "the firmware offers no such platform profile nor one close to it";
      return mapped;
    }
  /* energy_performance_available_preferences lists every word but
   * "default", which the kernel always takes */
  if (g_str_equal (s->value, "default") || choices == NULL || choices[0] == NULL ||
      g_strv_contains (choices, s->value))
    return s->value;
  *why = "not in energy_performance_available_preferences";
  return NULL;
}

/* Plan one knob: its value, or (no layer sets it now) its original back
 * when the daemon changed it. */
static void
plan_knob (PpProfileState *self, GPtrArray *plan, const PpPlatformKnob *knob, const PpSetting *s)
{
  g_autoptr(GPtrArray) one = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_setting_free);
  const char *why = NULL;
  const char *value = s != NULL ? knob_value (knob, s, &why) : NULL;

  if (s != NULL && value == NULL)
    g_debug ("%s/%s: %s=%s not written: %s", knob->dir, knob->attr, s->key, s->value, why);
  if (value != NULL)
    {
      PpSetting *copy = pp_setting_new (knob->attr, value);

      copy->source = s->source;
      copy->origin = g_strdup (s->origin);
      g_ptr_array_add (one, copy);
    }
  pp_executor_plan_settings (self->executor, plan, NULL, knob->dir, one);
}

void
pp_profile_state_plan (PpProfileState *self, GPtrArray *plan)
{
  const PpPlatformKnobs *knobs = pp_profile_state_get_platform (self);
  g_autoptr(GPtrArray) settings = pp_policy_platform_settings (self->config, self->situation);
  const PpSetting *profile = pp_settings_find (settings, PP_PLATFORM_PROFILE_KEY);
  const PpSetting *epp = pp_settings_find (settings, PP_PLATFORM_EPP_KEY);

  for (guint i = 0; i < knobs->profiles->len; i++)
    plan_knob (self, plan, g_ptr_array_index (knobs->profiles, i), profile);
  for (guint i = 0; i < knobs->epp->len; i++)
    plan_knob (self, plan, g_ptr_array_index (knobs->epp, i), epp);
}

static PpExplainRow *
explain_knob (PpProfileState *self, const PpPlatformKnob *knob, const PpSetting *s, const char *key)
{
  PpExplainRow *row = g_new0 (PpExplainRow, 1);
  g_autofree char *current = NULL;
  const char *why = NULL;
  const char *value = s != NULL ? knob_value (knob, s, &why) : NULL;

  row->attribute = g_build_filename (knob->dir, knob->attr, NULL);
  current = pp_executor_read_current (row->attribute, PP_MANAGER_WRITE_SETTING, NULL);
  row->current = g_utf8_make_valid (current != NULL ? current : "", -1);
  if (s == NULL)
    {
      row->decided = g_strdup ("");
      row->layer = "own";
      row->origin = g_strdup_printf ("no [Platform] layer sets %s in this situation: "
                                     "the firmware's or driver's own value stays", key);
    }
  else if (value == NULL)
    {
      row->decided = g_strdup ("");
      row->layer = pp_setting_source_to_string (s->source);
      row->origin = g_strdup_printf ("%s=%s %s; nothing written (%s)", s->key, s->value,
                                     why, s->origin != NULL ? s->origin : "");
    }
  else
    {
      row->decided = g_strdup (value);
      row->layer = pp_setting_source_to_string (s->source);
      if (!g_str_equal (value, s->value))
        row->origin = g_strdup_printf ("%s (%s=%s: the firmware offers %s)",
                                       s->origin != NULL ? s->origin : "", s->key, s->value, value);
      else
        row->origin = g_strdup (s->origin != NULL ? s->origin : "");
    }
  {
    /* D-Bus strings are UTF-8, whatever a file name held */
    char *valid = g_utf8_make_valid (row->origin, -1);

    g_free (row->origin);
    row->origin = valid;
  }
  return row;
}

GPtrArray *
pp_profile_state_explain (PpProfileState *self)
{
  const PpPlatformKnobs *knobs = pp_profile_state_get_platform (self);
  g_autoptr(GPtrArray) settings = pp_policy_platform_settings (self->config, self->situation);
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_explain_row_free);

  for (guint i = 0; i < knobs->profiles->len; i++)
    g_ptr_array_add (rows, explain_knob (self, g_ptr_array_index (knobs->profiles, i),
                                         pp_settings_find (settings, PP_PLATFORM_PROFILE_KEY),
                                         PP_PLATFORM_PROFILE_KEY));
  for (guint i = 0; i < knobs->epp->len; i++)
    g_ptr_array_add (rows, explain_knob (self, g_ptr_array_index (knobs->epp, i),
                                         pp_settings_find (settings, PP_PLATFORM_EPP_KEY),
                                         PP_PLATFORM_EPP_KEY));
  return rows;
}

/* ---- the chosen profile, kept across restarts ------------------------- */

PpProfile
pp_profile_state_load_saved (PpProfileState *self)
{
  g_autofree char *path = g_build_filename (self->state_dir, PROFILE_FILE, NULL);
  g_autofree char *text = pp_read_regular_file_bounded (path, PROFILE_FILE_MAX);
  PpProfile profile = PP_PROFILE_BALANCED;

  if (text == NULL)
    return PP_PROFILE_BALANCED;
  if (!pp_profile_parse_saved (text, &profile))
    {
      g_autofree char *escaped = g_strescape (text, NULL);

      g_warning ("%s: not a power profile ('%s'), using balanced", path, escaped);
      return PP_PROFILE_BALANCED;
    }
  return profile;
}

gboolean
pp_profile_state_save (PpProfileState *self, PpProfile profile, GError **error)
{
  g_autofree char *path = g_build_filename (self->state_dir, PROFILE_FILE, NULL);
  g_autofree char *text = g_strdup_printf ("%s\n", pp_profile_to_string (profile));

  if (pp_executor_get_dry_run (self->executor))
    {
      g_message ("dry-run: would save the power profile %s to %s",
                 pp_profile_to_string (profile), path);
      return TRUE;
    }
  if (g_mkdir_with_parents (self->state_dir, 0755) < 0)
    return pp_error_set_from_errno (error, errno, "cannot create %s", self->state_dir);
  if (!g_file_set_contents_full (path, text, -1,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                 0644, NULL))
    {
      g_set_error (error, PP_ERROR, PP_ERROR_FAILED, "cannot save the power profile to %s", path);
      return FALSE;
    }
  return TRUE;
}
