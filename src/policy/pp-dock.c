/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <string.h>

#include "pp-dock.h"

/* The kernel's connector type names (drm_connector_enum_list) that are
 * outside the machine; everything else is treated as built in. */
static const char * const external_types[] = {
  "VGA", "DVI-I", "DVI-D", "DVI-A", "Composite", "SVIDEO", "Component",
  "DIN", "DP", "HDMI-A", "HDMI-B", "TV", "USB",
};

gboolean
pp_dock_connector_is_external (const char *name)
{
  g_autofree char *type = NULL;
  const char *dash;

  if (name == NULL)
    return FALSE;
  /* "card0-HDMI-A-1": drop "card0-" */
  if (g_str_has_prefix (name, "card"))
    {
      const char *p = name + 4;

      if (!g_ascii_isdigit (*p))
        return FALSE;
      while (g_ascii_isdigit (*p))
        p++;
      if (*p != '-')
        return FALSE;
      name = p + 1;
    }
  /* "HDMI-A-1": drop the "-1" index */
  dash = strrchr (name, '-');
  if (dash == NULL || dash == name || dash[1] == '\0')
    return FALSE;
  for (const char *p = dash + 1; *p; p++)
    if (!g_ascii_isdigit (*p))
      return FALSE;
  type = g_strndup (name, dash - name);
  for (gsize i = 0; i < G_N_ELEMENTS (external_types); i++)
    if (g_str_equal (type, external_types[i]))
      return TRUE;
  return FALSE;
}

guint
pp_dock_count_external_displays (const PpConnector *connectors, gsize n_connectors)
{
  guint n = 0;

  for (gsize i = 0; i < n_connectors; i++)
    if (g_strcmp0 (connectors[i].status, "connected") == 0 &&
        pp_dock_connector_is_external (connectors[i].name))
      n++;
  return n;
}

gboolean
pp_dock_is_docked (gboolean sw_dock, guint n_external_displays)
{
  return sw_dock || n_external_displays > 0;
}
