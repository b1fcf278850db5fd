/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "pp-enums.h"

static const char * const runtime_status_names[] = {
  [PP_RUNTIME_STATUS_ACTIVE]      = "active",
  [PP_RUNTIME_STATUS_SUSPENDED]   = "suspended",
  [PP_RUNTIME_STATUS_SUSPENDING]  = "suspending",
  [PP_RUNTIME_STATUS_RESUMING]    = "resuming",
  [PP_RUNTIME_STATUS_ERROR]       = "error",
  [PP_RUNTIME_STATUS_UNSUPPORTED] = "unsupported",
};

static const char * const power_result_names[] = {
  [PP_POWER_RESULT_SUSPENDED] = "suspended",
  [PP_POWER_RESULT_OFF]       = "off",
  [PP_POWER_RESULT_ON]        = "on",
  [PP_POWER_RESULT_SKIPPED]   = "skipped",
  [PP_POWER_RESULT_FAILED]    = "failed",
};

static const char * const power_down_mode_names[] = {
  [PP_POWER_DOWN_MODE_AUTO] = "auto",
  [PP_POWER_DOWN_MODE_OFF]  = "off",
};

static const struct {
  PpInhibitFlags flag;
  const char    *name;
} inhibit_names[] = {
  { PP_INHIBIT_IDLE, "idle" },
  { PP_INHIBIT_LID,  "lid" },
};

const char * const pp_video_quirk_names[] = {
  "s3_bios", "s3_mode", "dpms_on", "dpms_suspend", "vbe_post",
  "vbestate_restore", "vbemode_restore", "vga_mode_3", "radeon_off",
  "reset_brightness", "save_pci", "no_fb", "no_chvt", "none", NULL,
};

static gboolean
lookup_name (const char * const *names, guint n_names, const char *text, guint *value)
{
  for (guint i = 0; text != NULL && i < n_names; i++)
    {
      if (g_str_equal (names[i], text))
        {
          *value = i;
          return TRUE;
        }
    }
  return FALSE;
}

/* prefix_to_string() and prefix_from_string() of an enum over @names */
#define PP_DEFINE_ENUM_NAMES(Type, prefix, names)                              \
  const char *                                                                 \
  prefix##_to_string (Type value)                                              \
  {                                                                            \
    g_return_val_if_fail ((guint) value < G_N_ELEMENTS (names), NULL);         \
    return names[value];                                                       \
  }                                                                            \
                                                                               \
  gboolean                                                                     \
  prefix##_from_string (const char *text, Type *value)                         \
  {                                                                            \
    guint i;                                                                   \
                                                                               \
    if (!lookup_name (names, G_N_ELEMENTS (names), text, &i))                  \
      return FALSE;                                                            \
    *value = (Type) i;                                                         \
    return TRUE;                                                               \
  }

PP_DEFINE_ENUM_NAMES (PpRuntimeStatus, pp_runtime_status, runtime_status_names)
PP_DEFINE_ENUM_NAMES (PpPowerResult, pp_power_result, power_result_names)
PP_DEFINE_ENUM_NAMES (PpPowerDownMode, pp_power_down_mode, power_down_mode_names)

char *
pp_inhibit_flags_to_string (PpInhibitFlags flags)
{
  g_autoptr(GString) s = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (inhibit_names); i++)
    {
      if (!(flags & inhibit_names[i].flag))
        continue;
      if (s->len > 0)
        g_string_append_c (s, ':');
      g_string_append (s, inhibit_names[i].name);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

gboolean
pp_inhibit_flags_from_string (const char *text, PpInhibitFlags *flags)
{
  g_auto(GStrv) words = g_strsplit (text, ":", -1);
  PpInhibitFlags result = 0;

  for (guint w = 0; words[w] != NULL; w++)
    {
      guint i;

      for (i = 0; i < G_N_ELEMENTS (inhibit_names); i++)
        {
          if (g_str_equal (words[w], inhibit_names[i].name))
            break;
        }
      if (i == G_N_ELEMENTS (inhibit_names))
        return FALSE;
      result |= inhibit_names[i].flag;
    }
  if (result == 0)
    return FALSE;
  *flags = result;
  return TRUE;
}

gboolean
pp_video_quirk_is_known (const char *name)
{
  return name != NULL && g_strv_contains (pp_video_quirk_names, name);
}

static gboolean
quirk_listed (const char * const *quirks, const char *name)
{
  return quirks != NULL && g_strv_contains (quirks, name);
}

/* The phases of powerpolicy-video-restore.c, which asks this too: keep
 * both in step. */
gboolean
pp_video_quirks_helper_has_work (const char * const *quirks, gboolean resume)
{
  /* both phases: saved before sleep, or given back on resume, by them */
  static const char * const both[] = {
    "save_pci", "vbestate_restore", "vbemode_restore", "radeon_off", NULL,
  };
  static const char * const suspend_only[] = { "dpms_suspend", NULL };
  static const char * const resume_only[] = {
    "vbe_post", "vga_mode_3", "dpms_on", "reset_brightness", NULL,
  };
  /* the framebuffer console goes off and on around these (no_fb: not) */
  static const char * const fbcon[] = {
    "vbe_post", "vbestate_restore", "vbemode_restore", "vga_mode_3", "dpms_on",
    "dpms_suspend", NULL,
  };
  const char * const *phase = resume ? resume_only : suspend_only;

  if (!quirk_listed (quirks, "no_chvt"))
    return TRUE;
  if (quirk_listed (quirks, "none"))
    return FALSE;
  for (guint i = 0; both[i]; i++)
    if (quirk_listed (quirks, both[i]))
      return TRUE;
  for (guint i = 0; phase[i]; i++)
    if (quirk_listed (quirks, phase[i]))
      return TRUE;
  if (quirk_listed (quirks, "no_fb"))
    return FALSE;
  for (guint i = 0; fbcon[i]; i++)
    if (quirk_listed (quirks, fbcon[i]))
      return TRUE;
  return FALSE;
}
