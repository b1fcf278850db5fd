/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-drm"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pp-dock.h"
#include "pp-drm.h"
#include "pp-sysfs.h"
#include "pp-util.h"

struct _PpDrm {
  GObject     parent_instance;
  GHashTable *connectors;       /* syspath -> sysname */
  guint       external_displays;
};

enum {
  PROP_0,
  PROP_EXTERNAL_DISPLAYS,
  N_PROPS,
};
static GParamSpec *props[N_PROPS];

G_DEFINE_TYPE (PpDrm, pp_drm, G_TYPE_OBJECT)

static gboolean
is_connector_name (const char *sysname)
{
  const char *p;

  /* "card0-eDP-1": a card, a dash, a type; "card0" and "renderD128" are not */
  if (sysname == NULL || !g_str_has_prefix (sysname, "card"))
    return FALSE;
  p = sysname + 4;
  if (!g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p))
    p++;
  return p[0] == '-' && p[1] != '\0';
}

gboolean
pp_drm_add_connector (PpDrm *self, const char *syspath, const char *sysname)
{
  if (!is_connector_name (sysname))
    return FALSE;
  g_hash_table_replace (self->connectors, g_strdup (syspath), g_strdup (sysname));
  return TRUE;
}

void
pp_drm_remove_connector (PpDrm *self, const char *syspath)
{
  g_hash_table_remove (self->connectors, syspath);
}

void
pp_drm_refresh (PpDrm *self)
{
  g_autoptr(GArray) list = g_array_new (FALSE, TRUE, sizeof (PpConnector));
  g_autoptr(GPtrArray) statuses = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  gpointer key, value;
  guint n;

  g_hash_table_iter_init (&iter, self->connectors);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      PpConnector c;
      char *status = pp_sysfs_read_opt (key, "status");

      g_ptr_array_add (statuses, status);
      c.name = value;
      c.status = status;
      g_array_append_val (list, c);
      g_debug ("Connector %s: %s", (char *) value, status ? status : "(no status)");
    }

  n = pp_dock_count_external_displays ((PpConnector *) list->data, list->len);
  if (n == self->external_displays)
    return;
  self->external_displays = n;
  g_info ("External displays connected: %u", n);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_EXTERNAL_DISPLAYS]);
}

guint
pp_drm_get_external_displays (PpDrm *self)
{
  return self->external_displays;
}

static void
pp_drm_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  PpDrm *self = PP_DRM (object);

  switch (prop_id)
    {
    case PROP_EXTERNAL_DISPLAYS:
      g_value_set_uint (value, self->external_displays);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pp_drm_finalize (GObject *object)
{
  PpDrm *self = PP_DRM (object);

  g_clear_pointer (&self->connectors, g_hash_table_unref);
  G_OBJECT_CLASS (pp_drm_parent_class)->finalize (object);
}

static void
pp_drm_class_init (PpDrmClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = pp_drm_get_property;
  object_class->finalize = pp_drm_finalize;

  props[PROP_EXTERNAL_DISPLAYS] =
    g_param_spec_uint ("external-displays", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
pp_drm_init (PpDrm *self)
{
  self->connectors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

PpDrm *
pp_drm_new (void)
{
  return g_object_new (PP_TYPE_DRM, NULL);
}

char *
pp_drm_internal_backlight (void)
{
  static const char * const types[] = { "firmware", "platform", "raw" };
  g_autoptr(GPtrArray) names = pp_list_dir_sorted ("/sys/class/backlight", NULL);

  if (names == NULL)
    return NULL;
  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    for (guint i = 0; i < names->len; i++)
      {
        g_autofree char *link = g_build_filename ("/sys/class/backlight", g_ptr_array_index (names, i), NULL);
        g_autofree char *type = g_build_filename (link, "type", NULL);
        g_autofree char *value = pp_sysfs_read (type, NULL);

        if (g_strcmp0 (value, types[t]) == 0)
          {
            char *real = realpath (link, NULL);
            if (real != NULL)
              return real;
          }
      }
  return NULL;
}
