/* SPDX-License-Identifier: GPL-2.0-or-later */
/* power-profiles-daemon's API (data/dbus/org.powerpolicy1.PowerProfiles.xml).
 * The objects are registered from the XML; setting ActiveProfile reaches
 * the method handler (no set_property in the vtable), so that polkit is
 * asked asynchronously like for every other call of the daemon. */
#define G_LOG_DOMAIN "pp-profiles"

#include "config.h"

#include <string.h>

#include "pp-auth.h"
#include "pp-config.h"
#include "pp-error.h"
#include "pp-names.h"
#include "pp-profile.h"
#include "pp-profiles.h"
#include "pp-resources.h"
#include "pp-sysfs.h"
#include "pp-token.h"
#include "pp-util.h"

#define N_OBJECTS 2
#define PP_PROFILES_TIMEOUT_MS 5000
/* /proc/PID/comm is at most 16 bytes */
#define COMM_MAX 64

static const struct {
  const char *name;
  const char *path;
} objects[N_OBJECTS] = {
  { PP_PROFILES_NAME, PP_PROFILES_PATH },
  { PP_PROFILES_LEGACY_NAME, PP_PROFILES_LEGACY_PATH },
};

typedef struct {
  PpProfiles *self;     /* unowned */
  guint       cookie;
  PpProfile   profile;
  char       *reason;
  char       *application_id;
  char       *sender;   /* the holder's unique bus name */
  guint32     uid;
  guint       watch_id; /* the holder leaving the bus */
} Hold;

struct _PpProfiles {
  GObject          parent_instance;

  PpManager       *manager;
  PpTokenRegistry *tokens;                 /* the holds are counted here */
  GDBusConnection *bus;
  GDBusNodeInfo   *node;
  guint            registration[N_OBJECTS];
  guint            owner[N_OBJECTS];
  gboolean         owned[N_OBJECTS];
  char            *other_owner[N_OBJECTS];  /* the program owning a name instead of us */

  PpProfile        chosen;                 /* set over ActiveProfile, kept on disk */
  GPtrArray       *holds;                  /* Hold*, oldest first */
  guint            next_cookie;
  GVariant        *announced;              /* a{sv}: the properties last announced */
};

G_DEFINE_TYPE (PpProfiles, pp_profiles, G_TYPE_OBJECT)

static void
hold_free (Hold *hold)
{
  if (hold->watch_id != 0)
    g_bus_unwatch_name (hold->watch_id);
  pp_token_unreserve (hold->self->tokens, hold->uid);
  g_free (hold->reason);
  g_free (hold->application_id);
  g_free (hold->sender);
  g_free (hold);
}

/* ---- the properties ----------------------------------------------------- */

static gboolean
performance_offered (PpProfiles *self)
{
  const PpPlatformKnobs *knobs = pp_manager_get_platform (self->manager);

  return knobs->profiles->len > 0 || knobs->epp->len > 0;
}

static GVariant *
profiles_variant (PpProfiles *self)
{
  const PpPlatformKnobs *knobs = pp_manager_get_platform (self->manager);
  const char *platform = knobs->platform_driver != NULL ? knobs->platform_driver : "placeholder";
  const char *cpu = knobs->cpu_driver != NULL ? knobs->cpu_driver : "placeholder";
  const char *driver;
  GVariantBuilder b;
  static const PpProfile order[] = {
    PP_PROFILE_POWER_SAVER, PP_PROFILE_BALANCED, PP_PROFILE_PERFORMANCE,
  };

  if (knobs->platform_driver != NULL && knobs->cpu_driver != NULL)
    driver = "multiple";
  else if (knobs->platform_driver != NULL)
    driver = platform;
  else if (knobs->cpu_driver != NULL)
    driver = cpu;
  else
    driver = "powerpolicyd";
  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      if (order[i] == PP_PROFILE_PERFORMANCE && !performance_offered (self))
        continue;
      g_variant_builder_open (&b, G_VARIANT_TYPE ("a{sv}"));
      g_variant_builder_add (&b, "{sv}", "Profile", g_variant_new_string (pp_profile_to_string (order[i])));
      g_variant_builder_add (&b, "{sv}", "Driver", g_variant_new_string (driver));
      g_variant_builder_add (&b, "{sv}", "PlatformDriver", g_variant_new_string (platform));
      g_variant_builder_add (&b, "{sv}", "CpuDriver", g_variant_new_string (cpu));
      g_variant_builder_close (&b);
    }
  return g_variant_builder_end (&b);
}

static GVariant *
holds_variant (PpProfiles *self)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < self->holds->len; i++)
    {
      Hold *hold = g_ptr_array_index (self->holds, i);

      g_variant_builder_open (&b, G_VARIANT_TYPE ("a{sv}"));
      g_variant_builder_add (&b, "{sv}", "ApplicationId", g_variant_new_string (hold->application_id));
      g_variant_builder_add (&b, "{sv}", "Profile", g_variant_new_string (pp_profile_to_string (hold->profile)));
      g_variant_builder_add (&b, "{sv}", "Reason", g_variant_new_string (hold->reason));
      g_variant_builder_close (&b);
    }
  return g_variant_builder_end (&b);
}

static GVariant *
property_value (PpProfiles *self, const char *name)
{
  if (g_str_equal (name, "ActiveProfile"))
    return g_variant_new_string (pp_profile_to_string (pp_manager_get_profile (self->manager)));
  if (g_str_equal (name, "PerformanceInhibited") || g_str_equal (name, "PerformanceDegraded"))
    return g_variant_new_string ("");
  if (g_str_equal (name, "Profiles"))
    return profiles_variant (self);
  if (g_str_equal (name, "Actions"))
    return g_variant_new_strv (NULL, 0);
  if (g_str_equal (name, "ActiveProfileHolds"))
    return holds_variant (self);
  if (g_str_equal (name, "Version"))
    return g_variant_new_string (PACKAGE_VERSION);
  return NULL;
}

static const char * const property_names[] = {
  "ActiveProfile", "PerformanceInhibited", "PerformanceDegraded", "Profiles", "Actions",
  "ActiveProfileHolds", "Version",
};

/* PropertiesChanged on both objects for what differs from the last
 * announcement. */
static void
announce (PpProfiles *self)
{
  GVariantBuilder changed;
  GVariantBuilder all;
  gboolean any = FALSE;

  g_variant_builder_init (&changed, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_init (&all, G_VARIANT_TYPE_VARDICT);
  for (guint i = 0; i < G_N_ELEMENTS (property_names); i++)
    {
      GVariant *value = g_variant_ref_sink (property_value (self, property_names[i]));
      g_autoptr(GVariant) before = self->announced != NULL
        ? g_variant_lookup_value (self->announced, property_names[i], NULL) : NULL;

      if (before == NULL || !g_variant_equal (before, value))
        {
          g_variant_builder_add (&changed, "{sv}", property_names[i], value);
          any = TRUE;
        }
      g_variant_builder_add (&all, "{sv}", property_names[i], value);
      g_variant_unref (value);
    }
  g_clear_pointer (&self->announced, g_variant_unref);
  self->announced = g_variant_ref_sink (g_variant_builder_end (&all));
  if (!any)
    {
      g_variant_builder_clear (&changed);
      return;
    }
  {
    g_autoptr(GVariant) dict = g_variant_ref_sink (g_variant_builder_end (&changed));

    for (guint i = 0; i < N_OBJECTS; i++)
      {
        if (self->registration[i] == 0)
          continue;
        g_dbus_connection_emit_signal (self->bus, NULL, objects[i].path,
                                       "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                       g_variant_new ("(s@a{sv}as)", objects[i].name, dict, NULL),
                                       NULL);
      }
  }
}

/* The profile in force follows the chosen one and the holds. */
static void
update (PpProfiles *self)
{
  g_autofree PpProfile *held = g_new0 (PpProfile, self->holds->len + 1);

  for (guint i = 0; i < self->holds->len; i++)
    held[i] = ((Hold *) g_ptr_array_index (self->holds, i))->profile;
  pp_manager_set_profile (self->manager,
                          pp_profile_effective (self->chosen, held, self->holds->len));
  announce (self);
}

static void
emit_released (PpProfiles *self, Hold *hold)
{
  for (guint i = 0; i < N_OBJECTS; i++)
    {
      if (self->registration[i] == 0)
        continue;
      g_dbus_connection_emit_signal (self->bus, hold->sender, objects[i].path, objects[i].name,
                                     "ProfileReleased", g_variant_new ("(u)", hold->cookie), NULL);
    }
}

/* ---- holds ------------------------------------------------------------------ */

static void
on_holder_vanished (GDBusConnection *connection, const char *name, gpointer user_data)
{
  Hold *hold = user_data;
  PpProfiles *self = hold->self;

  g_info ("Profile hold %u of %s ended: the holder left the bus", hold->cookie, name);
  g_ptr_array_remove (self->holds, hold);
  update (self);
}

typedef struct {
  PpProfiles            *self;
  GDBusMethodInvocation *invocation;
  PpProfile              profile;
  char                  *reason;
  char                  *application_id;
} HoldRequest;

static void
hold_request_free (HoldRequest *req)
{
  g_object_unref (req->self);
  g_free (req->reason);
  g_free (req->application_id);
  g_free (req);
}

static void
on_holder_uid (GObject *source, GAsyncResult *res, gpointer user_data)
{
  HoldRequest *req = user_data;
  PpProfiles *self = req->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &error);
  const char *sender = g_dbus_method_invocation_get_sender (req->invocation);
  guint32 uid = PP_TOKEN_UID_UNKNOWN;
  Hold *hold;

  if (reply != NULL)
    g_variant_get (reply, "(u)", &uid);
  if (!pp_token_reserve (self->tokens, uid, &error))
    {
      g_dbus_method_invocation_return_gerror (req->invocation, error);
      hold_request_free (req);
      return;
    }
  hold = g_new0 (Hold, 1);
  hold->self = self;
  hold->cookie = ++self->next_cookie;
  hold->profile = req->profile;
  hold->reason = g_steal_pointer (&req->reason);
  hold->application_id = g_steal_pointer (&req->application_id);
  hold->sender = g_strdup (sender);
  hold->uid = uid;
  g_ptr_array_add (self->holds, hold);
  hold->watch_id = g_bus_watch_name_on_connection (self->bus, sender, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                   NULL, on_holder_vanished, hold, NULL);
  {
    g_autofree char *app = pp_escape_text (hold->application_id, PP_ESCAPE_SHOWN_MAX);
    g_autofree char *why = pp_escape_text (hold->reason, PP_ESCAPE_SHOWN_MAX);

    g_info ("Profile hold %u: %s for %s (%s), uid %u", hold->cookie,
            pp_profile_to_string (hold->profile), app, why, uid);
  }
  /* the layers are in place when the caller hears back */
  update (self);
  g_dbus_method_invocation_return_value (req->invocation, g_variant_new ("(u)", hold->cookie));
  hold_request_free (req);
}

static void
on_hold_authorized (GObject *source, GAsyncResult *res, gpointer user_data)
{
  HoldRequest *req = user_data;
  g_autoptr(GError) error = NULL;

  if (!pp_auth_check_finish (res, &error))
    {
      g_dbus_method_invocation_return_gerror (req->invocation, error);
      hold_request_free (req);
      return;
    }
  g_dbus_connection_call (req->self->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetConnectionUnixUser",
                          g_variant_new ("(s)", g_dbus_method_invocation_get_sender (req->invocation)),
                          G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, PP_PROFILES_TIMEOUT_MS,
                          NULL, on_holder_uid, req);
}

static void
handle_hold_profile (PpProfiles *self, GDBusMethodInvocation *invocation, GVariant *parameters)
{
  const char *profile_name, *reason, *application_id;
  g_autoptr(GError) error = NULL;
  PpProfile profile = PP_PROFILE_BALANCED;
  HoldRequest *req;

  g_variant_get (parameters, "(&s&s&s)", &profile_name, &reason, &application_id);
  if (!pp_profile_from_string (profile_name, &profile) || profile == PP_PROFILE_BALANCED ||
      (profile == PP_PROFILE_PERFORMANCE && !performance_offered (self)))
    {
      g_autofree char *escaped = pp_escape_text (profile_name, PP_ESCAPE_SHOWN_MAX);

      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                             "cannot hold profile '%s': only power-saver%s can be held",
                                             escaped,
                                             performance_offered (self) ? " and performance" : " (this machine has no performance profile)");
      return;
    }
  if (!pp_token_check_text (application_id, reason, &error))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  req = g_new0 (HoldRequest, 1);
  req->self = g_object_ref (self);
  req->invocation = invocation;
  req->profile = profile;
  req->reason = g_strdup (reason);
  req->application_id = g_strdup (application_id);
  pp_auth_check (invocation, PP_POLKIT_ACTION_HOLD_PROFILE, TRUE, on_hold_authorized, req);
}

static void
handle_release_profile (PpProfiles *self, GDBusMethodInvocation *invocation, GVariant *parameters)
{
  const char *sender = g_dbus_method_invocation_get_sender (invocation);
  guint cookie = 0;

  g_variant_get (parameters, "(u)", &cookie);
  for (guint i = 0; i < self->holds->len; i++)
    {
      Hold *hold = g_ptr_array_index (self->holds, i);

      if (hold->cookie != cookie)
        continue;
      /* another caller's hold is not theirs to end */
      if (g_strcmp0 (hold->sender, sender) != 0)
        break;
      g_info ("Profile hold %u released", cookie);
      emit_released (self, hold);
      g_ptr_array_remove_index (self->holds, i);
      update (self);
      g_dbus_method_invocation_return_value (invocation, NULL);
      return;
    }
  g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                         "no profile hold of this caller with cookie %u", cookie);
}

/* ---- setting ActiveProfile ------------------------------------------------- */

typedef struct {
  PpProfiles            *self;
  GDBusMethodInvocation *invocation;
  PpProfile              profile;
} SetRequest;

static void
on_set_authorized (GObject *source, GAsyncResult *res, gpointer user_data)
{
  SetRequest *req = user_data;
  PpProfiles *self = req->self;
  g_autoptr(GError) error = NULL;

  if (!pp_auth_check_finish (res, &error))
    {
      g_dbus_method_invocation_return_gerror (req->invocation, error);
    }
  else
    {
      /* a choice made now ends every hold (power-profiles-daemon) */
      for (guint i = 0; i < self->holds->len; i++)
        emit_released (self, g_ptr_array_index (self->holds, i));
      g_ptr_array_set_size (self->holds, 0);
      self->chosen = req->profile;
      if (!pp_manager_save_profile (self->manager, req->profile, &error))
        g_warning ("%s", error->message);
      g_info ("Power profile %s chosen", pp_profile_to_string (req->profile));
      update (self);
      g_dbus_method_invocation_return_value (req->invocation, NULL);
    }
  g_object_unref (req->self);
  g_free (req);
}

static void
handle_set_property (PpProfiles *self, GDBusMethodInvocation *invocation, GVariant *parameters)
{
  g_autoptr(GVariant) value = NULL;
  const char *interface, *property;
  PpProfile profile = PP_PROFILE_BALANCED;
  SetRequest *req;

  g_variant_get (parameters, "(&s&sv)", &interface, &property, &value);
  if (!g_str_equal (property, "ActiveProfile") || !g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_PROPERTY_READ_ONLY,
                                             "only ActiveProfile (a string) can be set");
      return;
    }
  if (!pp_profile_from_string (g_variant_get_string (value, NULL), &profile) ||
      (profile == PP_PROFILE_PERFORMANCE && !performance_offered (self)))
    {
      g_autofree char *escaped = pp_escape_text (g_variant_get_string (value, NULL), PP_ESCAPE_SHOWN_MAX);

      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                             "invalid profile '%s' (offered: power-saver, balanced%s)",
                                             escaped, performance_offered (self) ? ", performance" : "");
      return;
    }
  req = g_new0 (SetRequest, 1);
  req->self = g_object_ref (self);
  req->invocation = invocation;
  req->profile = profile;
  pp_auth_check (invocation, PP_POLKIT_ACTION_SWITCH_PROFILE, TRUE, on_set_authorized, req);
}

/* ---- the vtable ---------------------------------------------------------- */

static void
method_call (GDBusConnection       *connection,
             const char            *sender,
             const char            *object_path,
             const char            *interface_name,
             const char            *method_name,
             GVariant              *parameters,
             GDBusMethodInvocation *invocation,
             gpointer               user_data)
{
  PpProfiles *self = user_data;

  /* the arguments are bounded by their texts' checks; the whole message
   * by the bus */
  if (g_str_equal (interface_name, "org.freedesktop.DBus.Properties") &&
      g_str_equal (method_name, "Set"))
    handle_set_property (self, invocation, parameters);
  else if (g_str_equal (method_name, "HoldProfile"))
    handle_hold_profile (self, invocation, parameters);
  else if (g_str_equal (method_name, "ReleaseProfile"))
    handle_release_profile (self, invocation, parameters);
  else
    g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD,
                                           "no method %s", method_name);
}

static GVariant *
get_property (GDBusConnection *connection,
              const char      *sender,
              const char      *object_path,
              const char      *interface_name,
              const char      *property_name,
              GError         **error,
              gpointer         user_data)
{
  GVariant *value = property_value (user_data, property_name);

  if (value == NULL)
    g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY, "no property %s", property_name);
  return value;
}

static const GDBusInterfaceVTable vtable = { method_call, get_property, NULL, { 0 } };

/* ---- the names --------------------------------------------------------------- */

static guint
object_index (const char *name)
{
  for (guint i = 0; i < N_OBJECTS; i++)
    if (g_str_equal (objects[i].name, name))
      return i;
  return 0;
}

static void
update_conflict (PpProfiles *self)
{
  for (guint i = 0; i < N_OBJECTS; i++)
    {
      if (self->other_owner[i] != NULL)
        {
          g_autofree char *what = g_strdup_printf ("owns %s: desktop power-mode switches reach it, not powerpolicyd (PowerProfiles=%s)",
                                                   objects[i].name,
                                                   pp_manager_get_config (self->manager)->power_profiles == PP_POWER_PROFILES_TRUE ? "true" : "auto");
          pp_manager_set_profiles_conflict (self->manager, self->other_owner[i], what);
          return;
        }
    }
  pp_manager_set_profiles_conflict (self->manager, NULL, NULL);
}

typedef struct {
  PpProfiles *self;
  guint       index;
} OwnerQuery;

static void
on_owner_pid (GObject *source, GAsyncResult *res, gpointer user_data)
{
  OwnerQuery *q = user_data;
  PpProfiles *self = q->self;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, NULL);
  g_autofree char *comm = NULL;
  guint32 pid = 0;

  if (reply != NULL)
    {
      g_autofree char *path = NULL;

      g_variant_get (reply, "(u)", &pid);
      path = g_strdup_printf ("/proc/%u/comm", pid);
      comm = pp_read_regular_file_bounded (path, COMM_MAX);
    }
  if (!self->owned[q->index])
    {
      g_autofree char *name = comm != NULL ? g_strstrip (g_strdup (comm)) : NULL;

      g_free (self->other_owner[q->index]);
      if (name != NULL && *name != '\0')
        self->other_owner[q->index] = pp_escape_text (name, PP_ESCAPE_SHOWN_MAX);
      else
        self->other_owner[q->index] = g_strdup_printf ("another program (pid %u)", pid);
      g_warning ("%s is owned by %s: leaving the power profiles to it", objects[q->index].name,
                 self->other_owner[q->index]);
      update_conflict (self);
    }
  g_object_unref (q->self);
  g_free (q);
}

static void
on_owner_name (GObject *source, GAsyncResult *res, gpointer user_data)
{
  OwnerQuery *q = user_data;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, NULL);
  const char *owner = NULL;

  if (reply == NULL)
    {
      /* the other owner is gone already: we are queued for the name */
      g_object_unref (q->self);
      g_free (q);
      return;
    }
  g_variant_get (reply, "(&s)", &owner);
  g_dbus_connection_call (G_DBUS_CONNECTION (source), "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                          g_variant_new ("(s)", owner), G_VARIANT_TYPE ("(u)"),
                          G_DBUS_CALL_FLAGS_NONE, PP_PROFILES_TIMEOUT_MS, NULL, on_owner_pid, q);
}

static void
on_name_acquired (GDBusConnection *connection, const char *name, gpointer user_data)
{
  PpProfiles *self = user_data;
  guint i = object_index (name);

  g_info ("Acquired the name %s on the system bus", name);
  self->owned[i] = TRUE;
  g_clear_pointer (&self->other_owner[i], g_free);
  update_conflict (self);
}

static void
on_name_lost (GDBusConnection *connection, const char *name, gpointer user_data)
{
  PpProfiles *self = user_data;
  guint i = object_index (name);
  OwnerQuery *q;

  self->owned[i] = FALSE;
  if (connection == NULL)
    return;
  /* queued behind another owner (or replaced by it): name it in Conflicts */
  q = g_new0 (OwnerQuery, 1);
  q->self = g_object_ref (self);
  q->index = i;
  g_dbus_connection_call (connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetNameOwner", g_variant_new ("(s)", name),
                          G_VARIANT_TYPE ("(s)"), G_DBUS_CALL_FLAGS_NONE, PP_PROFILES_TIMEOUT_MS,
                          NULL, on_owner_name, q);
}

gboolean
pp_profiles_start (PpProfiles *self, GDBusConnection *bus, GError **error)
{
  const PpConfig *config = pp_manager_get_config (self->manager);
  g_autoptr(GBytes) xml = NULL;
  GBusNameOwnerFlags flags;

  if (config->power_profiles == PP_POWER_PROFILES_FALSE)
    {
      g_info ("PowerProfiles=false: not serving the power profiles");
      return TRUE;
    }
  self->bus = g_object_ref (bus);
  self->chosen = pp_manager_get_profile (self->manager);
  xml = g_resource_lookup_data (pp_get_resource (), "/org/powerpolicy1/org.powerpolicy1.PowerProfiles.xml",
                                G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (xml == NULL)
    return FALSE;
  self->node = g_dbus_node_info_new_for_xml (g_bytes_get_data (xml, NULL), error);
  if (self->node == NULL)
    return FALSE;
  for (guint i = 0; i < N_OBJECTS; i++)
    {
      GDBusInterfaceInfo *info = g_dbus_node_info_lookup_interface (self->node, objects[i].name);

      self->registration[i] = g_dbus_connection_register_object (bus, objects[i].path, info, &vtable,
                                                                 self, NULL, error);
      if (self->registration[i] == 0)
        return FALSE;
    }
  announce (self);
  /* auto: queue behind another owner and leave it the name (it may go:
   * then the name is ours); true: replace it where it allows that */
  flags = config->power_profiles == PP_POWER_PROFILES_TRUE
    ? G_BUS_NAME_OWNER_FLAGS_REPLACE | G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT
    : G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT;
  for (guint i = 0; i < N_OBJECTS; i++)
    self->owner[i] = g_bus_own_name_on_connection (bus, objects[i].name, flags,
                                                   on_name_acquired, on_name_lost, self, NULL);
  return TRUE;
}

void
pp_profiles_stop (PpProfiles *self)
{
  for (guint i = 0; i < N_OBJECTS; i++)
    {
      g_clear_handle_id (&self->owner[i], g_bus_unown_name);
      if (self->registration[i] != 0 && self->bus != NULL)
        g_dbus_connection_unregister_object (self->bus, self->registration[i]);
      self->registration[i] = 0;
    }
  g_ptr_array_set_size (self->holds, 0);
}

void
pp_profiles_reload (PpProfiles *self)
{
  /* performance may have gone with its knobs: nothing holds or keeps it */
  if (!performance_offered (self))
    {
      for (guint i = 0; i < self->holds->len;)
        {
          Hold *hold = g_ptr_array_index (self->holds, i);

          if (hold->profile != PP_PROFILE_PERFORMANCE)
            {
              i++;
              continue;
            }
          emit_released (self, hold);
          g_ptr_array_remove_index (self->holds, i);
        }
      if (self->chosen == PP_PROFILE_PERFORMANCE)
        self->chosen = PP_PROFILE_BALANCED;
    }
  if (self->bus != NULL)
    update (self);
}

static void
pp_profiles_finalize (GObject *object)
{
  PpProfiles *self = PP_PROFILES (object);

  pp_profiles_stop (self);
  g_ptr_array_unref (self->holds);
  for (guint i = 0; i < N_OBJECTS; i++)
    g_free (self->other_owner[i]);
  g_clear_pointer (&self->announced, g_variant_unref);
  g_clear_pointer (&self->node, g_dbus_node_info_unref);
  g_clear_object (&self->bus);
  g_clear_object (&self->manager);
  g_clear_pointer (&self->tokens, pp_token_registry_unref);
  G_OBJECT_CLASS (pp_profiles_parent_class)->finalize (object);
}

static void
pp_profiles_class_init (PpProfilesClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pp_profiles_finalize;
}

static void
pp_profiles_init (PpProfiles *self)
{
  self->holds = g_ptr_array_new_with_free_func ((GDestroyNotify) hold_free);
}

PpProfiles *
pp_profiles_new (PpManager *manager, PpTokenRegistry *tokens)
{
  PpProfiles *self = g_object_new (PP_TYPE_PROFILES, NULL);

  self->manager = g_object_ref (manager);
  self->tokens = pp_token_registry_ref (tokens);
  return self;
}
