/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-profile"

#include "config.h"

#include <string.h>

#include "pp-profile.h"

PpProfile
pp_profile_effective (PpProfile chosen, const PpProfile *holds, gsize n_holds)
{
  gboolean performance = FALSE;

  for (gsize i = 0; i < n_holds; i++)
    {
      if (holds[i] == PP_PROFILE_POWER_SAVER)
        return PP_PROFILE_POWER_SAVER;
      if (holds[i] == PP_PROFILE_PERFORMANCE)
        performance = TRUE;
    }
  return performance ? PP_PROFILE_PERFORMANCE : chosen;
}

const char *
pp_platform_profile_map (const char *wanted, const char * const *choices)
{
  /* each word, then the words that stand in for it, nearest first */
  static const char * const neighbours[][4] = {
    { "low-power", "quiet", "cool", NULL },
    { "quiet", "low-power", "cool", NULL },
    { "cool", "quiet", "low-power", NULL },
    { "balanced", NULL },
    { "balanced-performance", "performance", NULL },
    { "performance", "balanced-performance", NULL },
    { "custom", NULL },
  };

  if (wanted == NULL || choices == NULL)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (neighbours); i++)
    {
      if (!g_str_equal (neighbours[i][0], wanted))
        continue;
      for (guint j = 0; neighbours[i][j] != NULL; j++)
        {
          for (guint k = 0; choices[k] != NULL; k++)
            if (g_str_equal (choices[k], neighbours[i][j]))
              return choices[k];
        }
      return NULL;
    }
  return NULL;
}

gboolean
pp_profile_parse_saved (const char *text, PpProfile *profile)
{
  g_autofree char *word = NULL;

  if (text == NULL)
    return FALSE;
  word = g_strstrip (g_strdup (text));
  return pp_profile_from_string (word, profile);
}
