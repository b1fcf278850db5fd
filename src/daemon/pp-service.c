/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-service"

#include "config.h"

#include "pp-auth.h"
#include "pp-error.h"
#include "pp-names.h"
#include "pp-power-ops.h"
#include "pp-resources.h"
#include "pp-service.h"
#include "pp-sleep.h"

struct _PpService {
  GObject          parent_instance;
  PpManager       *manager;
  PpPowerOps      *power_ops;     /* PowerDown, PowerUp, Hold; the tree */
  PpActivity      *activity;      /* Inhibit; idle, lid and dock state (or NULL) */
  PpSleep         *sleep;         /* Suspend, Hibernate, video quirks, lid actions */
  GDBusConnection *bus;
  GDBusNodeInfo   *node_info;
  guint            registration_id;
  guint            owner_id;
  gboolean         name_acquired;
};

enum {
  SIGNAL_NAME_ACQUIRED,
  SIGNAL_NAME_LOST,
  N_SIGNALS,
};
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (PpService, pp_service, G_TYPE_OBJECT)

/* ---- methods ---------------------------------------------------------- */

static void
return_error (GDBusMethodInvocation *invocation, const GError *error)
{
  if (error->domain == PP_ERROR)
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    g_dbus_method_invocation_return_error (invocation, PP_ERROR, PP_ERROR_FAILED,
                                           "%s", error->message);
}

static void
handle_list_devices (PpService *self, GDBusMethodInvocation *invocation)
{
  GPtrArray *devices = pp_manager_list_devices (self->manager);
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));

  for (guint i = 0; i < devices->len; i++)
    g_variant_builder_add_value (&b, pp_manager_device_to_variant (self->manager,
                                                                   g_ptr_array_index (devices, i)));
  g_dbus_method_invocation_return_value (invocation,
                                         g_variant_new ("(aa{sv})", &b));
}

static void
handle_get_device (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  g_autoptr(GError) error = NULL;
  const char *arg;
  PpDevice *dev;

  g_variant_get (params, "(&s)", &arg);
  dev = pp_manager_resolve_device (self->manager, arg, &error);
  if (dev == NULL)
    {
      return_error (invocation, error);
      return;
    }
  g_dbus_method_invocation_return_value (invocation,
                                         g_variant_new ("(@a{sv})",
                                                        pp_manager_device_to_variant (self->manager, dev)));
}

/* A state-changing call runs only once the caller is authorized; its
 * arguments are resolved afterwards, so a device that vanished meanwhile
 * is an error, not a dangling pointer. */
typedef void (*AuthorizedHandler) (PpService             *self,
                                   GDBusMethodInvocation *invocation,
                                   GVariant              *params);

typedef struct {
  PpService             *self;
  GDBusMethodInvocation *invocation;   /* the reference GDBus gave us */
  AuthorizedHandler      handler;
} PendingCall;

static void
on_authorized (GObject *source, GAsyncResult *res, gpointer user_data)
{
  PendingCall *call = user_data;
  g_autoptr(GError) error = NULL;

  if (!pp_auth_check_finish (res, &error))
    return_error (call->invocation, error);
  else
    call->handler (call->self, call->invocation,
                   g_dbus_method_invocation_get_parameters (call->invocation));
  g_object_unref (call->self);
  g_free (call);
}

static void
run_authorized (PpService             *self,
                GDBusMethodInvocation *invocation,
                const char            *action_id,
                AuthorizedHandler      handler)
{
  PendingCall *call = g_new0 (PendingCall, 1);

  call->self = g_object_ref (self);
  call->invocation = invocation;
  call->handler = handler;
  pp_auth_check (invocation, action_id, FALSE, on_authorized, call);
}

/* run_authorized() for calls with an "interactive" flag: polkit may ask
 * the user (AllowUserInteraction). */
static void
run_authorized_interactive (PpService             *self,
                            GDBusMethodInvocation *invocation,
                            const char            *action_id,
                            gboolean               interactive,
                            AuthorizedHandler      handler)
{
  PendingCall *call = g_new0 (PendingCall, 1);

  call->self = g_object_ref (self);
  call->invocation = invocation;
  call->handler = handler;
  pp_auth_check (invocation, action_id, interactive, on_authorized, call);
}

static void
on_sleep_done (GObject *source, GAsyncResult *res, gpointer user_data)
{
  GDBusMethodInvocation *invocation = user_data;
  g_autoptr(GError) error = NULL;

  if (!pp_sleep_sleep_finish (PP_SLEEP (source), res, &error))
    return_error (invocation, error);
  else
    g_dbus_method_invocation_return_value (invocation, NULL);
}

static void
handle_sleep (PpService *self, GDBusMethodInvocation *invocation, const char *state)
{
  gboolean interactive;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(b)", &interactive);
  pp_sleep_sleep_async (self->sleep, state, interactive, on_sleep_done, invocation);
}

static void
handle_suspend (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  handle_sleep (self, invocation, "mem");
}

static void
handle_hibernate (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  handle_sleep (self, invocation, "disk");
}

static void
handle_get_video_quirks (PpService *self, GDBusMethodInvocation *invocation)
{
  g_dbus_method_invocation_return_value (invocation,
                                         g_variant_new ("(@a(sss))",
                                                        pp_sleep_get_video_quirks_why (self->sleep)));
}

GPtrArray *
pp_service_reload (PpService *self)
{
  GPtrArray *problems = NULL;

  pp_manager_reload (self->manager, &problems);
  if (self->activity != NULL)
    pp_activity_reload (self->activity);
  /* the quirk database's problems are logged, not the configuration's */
  if (self->sleep != NULL)
    pp_sleep_reload (self->sleep, NULL);
  return problems;
}

static void
handle_reload (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  g_autoptr(GPtrArray) problems = pp_service_reload (self);

  if (problems->len > 0)
    {
      g_autofree char *text = NULL;

      g_ptr_array_add (problems, NULL);
      text = g_strjoinv ("\n", (char **) problems->pdata);
      g_dbus_method_invocation_return_error (invocation, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                                             "configuration reloaded with problems (valid settings applied):\n%s",
                                             text);
      return;
    }
  g_dbus_method_invocation_return_value (invocation, NULL);
}

static void
handle_set_override (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  g_autoptr(GError) error = NULL;
  const char *arg, *key, *value;
  PpDevice *dev;

  g_variant_get (params, "(&s&s&s)", &arg, &key, &value);
  dev = pp_manager_resolve_device (self->manager, arg, &error);
  if (dev == NULL || !pp_manager_set_override (self->manager, dev, key, value, &error))
    {
      return_error (invocation, error);
      return;
    }
  g_dbus_method_invocation_return_value (invocation, NULL);
}

static void
handle_clear_overrides (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  g_autoptr(GError) error = NULL;
  const char *arg;
  PpDevice *dev;

  g_variant_get (params, "(&s)", &arg);
  dev = pp_manager_resolve_device (self->manager, arg, &error);
  if (dev == NULL || !pp_manager_clear_overrides (self->manager, dev, &error))
    {
      return_error (invocation, error);
      return;
    }
  g_dbus_method_invocation_return_value (invocation, NULL);
}

static void
handle_power_down (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  pp_power_ops_handle_power_down (self->power_ops, invocation);
}

static void
handle_power_up (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  pp_power_ops_handle_power_up (self->power_ops, invocation);
}

static void
handle_hold (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  pp_power_ops_handle_hold (self->power_ops, invocation);
}

static void
handle_inhibit (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  if (self->activity == NULL)
    {
      g_dbus_method_invocation_return_error (invocation, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                                             "activity tracking is not running");
      return;
    }
  pp_activity_handle_inhibit (self->activity, invocation);
}

static void
handle_list_inhibitors (PpService *self, GDBusMethodInvocation *invocation)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(ssssu)"));

  pp_power_ops_add_holds (self->power_ops, &b);
  if (self->activity != NULL)
    pp_activity_list_inhibitors (self->activity, &b);

  /* holds and inhibitors arrive with the tree and idle support */
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(a(ssssu))", &b));
}

/* GetStatistics (SPEC §5): open to everyone; "" means every device. */
static void
handle_get_statistics (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) rows = NULL;
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sdtt)"));
  const char *arg;
  PpDevice *dev = NULL;

  g_variant_get (params, "(&s)", &arg);
  if (*arg != '\0')
    dev = pp_manager_resolve_device (self->manager, arg, &error);
  if (error == NULL)
    rows = pp_manager_get_statistics (self->manager, dev, &error);
  if (rows == NULL)
    {
      return_error (invocation, error);
      return;
    }
  for (guint i = 0; i < rows->len; i++)
    {
      const PpStatsRow *r = &g_array_index (rows, PpStatsRow, i);

      g_variant_builder_add (&b, "(sdtt)", r->path, r->residency.suspended_share,
                             (guint64) r->residency.active_ms,
                             (guint64) r->residency.suspended_ms);
    }
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(a(sdtt))", &b));
}

static void
handle_method_call (GDBusConnection       *connection,
                    const char            *sender,
                    const char            *object_path,
                    const char            *interface_name,
                    const char            *method_name,
                    GVariant              *parameters,
                    GDBusMethodInvocation *invocation,
                    gpointer               user_data)
{
  PpService *self = PP_SERVICE (user_data);

  if (g_str_equal (method_name, "ListDevices"))
    handle_list_devices (self, invocation);
  else if (g_str_equal (method_name, "GetDevice"))
    handle_get_device (self, invocation, parameters);
  else if (g_str_equal (method_name, "ListInhibitors"))
    handle_list_inhibitors (self, invocation);
  else if (g_str_equal (method_name, "GetStatistics"))
    handle_get_statistics (self, invocation, parameters);
  else if (g_str_equal (method_name, "Reload"))
    run_authorized (self, invocation, PP_POLKIT_ACTION_MANAGE, handle_reload);
  else if (g_str_equal (method_name, "SetOverride"))
    run_authorized (self, invocation, PP_POLKIT_ACTION_MANAGE, handle_set_override);
  else if (g_str_equal (method_name, "ClearOverrides"))
    run_authorized (self, invocation, PP_POLKIT_ACTION_MANAGE, handle_clear_overrides);
  else if (g_str_equal (method_name, "Suspend") || g_str_equal (method_name, "Hibernate"))
    {
      gboolean interactive = FALSE;

      g_variant_get (parameters, "(b)", &interactive);
      run_authorized_interactive (self, invocation, PP_POLKIT_ACTION_SLEEP, interactive,
                                  g_str_equal (method_name, "Suspend") ? handle_suspend : handle_hibernate);
    }
  else if (g_str_equal (method_name, "GetVideoQuirks"))
    handle_get_video_quirks (self, invocation);
  else if (g_str_equal (method_name, "PowerDown"))
    run_authorized (self, invocation, PP_POLKIT_ACTION_MANAGE, handle_power_down);
  else if (g_str_equal (method_name, "PowerUp"))
    run_authorized (self, invocation, PP_POLKIT_ACTION_MANAGE, handle_power_up);
  else if (g_str_equal (method_name, "Hold"))
    run_authorized (self, invocation, PP_POLKIT_ACTION_INHIBIT, handle_hold);
  else if (g_str_equal (method_name, "Inhibit"))
    run_authorized (self, invocation, PP_POLKIT_ACTION_INHIBIT, handle_inhibit);
  else
    g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD,
                                           "unknown method %s", method_name);
}

static GVariant *
handle_get_property (GDBusConnection *connection,
                     const char      *sender,
                     const char      *object_path,
                     const char      *interface_name,
                     const char      *property_name,
                     GError         **error,
                     gpointer         user_data)
{
  PpService *self = PP_SERVICE (user_data);

  if (g_str_equal (property_name, "Version"))
    return g_variant_new_string (PACKAGE_VERSION);
  if (g_str_equal (property_name, "OnBattery"))
    return g_variant_new_boolean (pp_manager_get_on_battery (self->manager));
  if (g_str_equal (property_name, "Backend"))
    return g_variant_new_string (pp_manager_get_backend (self->manager));
  if (g_str_equal (property_name, "VideoQuirks"))
    return g_variant_new_strv (pp_sleep_get_video_quirks (self->sleep), -1);
  if (g_str_equal (property_name, "UserIdle"))
    return g_variant_new_boolean (self->activity && pp_activity_get_user_idle (self->activity));
  if (g_str_equal (property_name, "IdleTimeoutSec"))
    return g_variant_new_uint32 (self->activity ? pp_activity_get_idle_timeout_sec (self->activity)
                                                : pp_manager_get_config (self->manager)->idle_timeout_sec);
  if (g_str_equal (property_name, "LidClosed"))
    return g_variant_new_boolean (self->activity && pp_activity_get_lid_closed (self->activity));
  if (g_str_equal (property_name, "Docked"))
    return g_variant_new_boolean (self->activity && pp_activity_get_docked (self->activity));

  g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY,
               "unknown property %s", property_name);
  return NULL;
}

static const GDBusInterfaceVTable vtable = {
  handle_method_call,
  handle_get_property,
  NULL,
  { NULL },
};

/* ---- signals ---------------------------------------------------------- */

static void
emit_properties_changed (PpService *self, const char *name, GVariant *value)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  const char *invalidated[] = { NULL };

  if (self->bus == NULL)
    {
      g_variant_unref (g_variant_ref_sink (value));
      return;
    }
  g_variant_builder_add (&b, "{sv}", name, value);
  g_dbus_connection_emit_signal (self->bus, NULL, PP_DBUS_PATH,
                                 "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                 g_variant_new ("(sa{sv}^as)", PP_DBUS_INTERFACE, &b, invalidated),
                                 NULL);
}

static void
on_on_battery_changed (PpManager *manager, GParamSpec *pspec, PpService *self)
{
  emit_properties_changed (self, "OnBattery",
                           g_variant_new_boolean (pp_manager_get_on_battery (manager)));
}

static void
on_activity_changed (PpActivity *activity, GParamSpec *pspec, PpService *self)
{
  const char *name = g_param_spec_get_name (pspec);

  if (g_str_equal (name, "user-idle"))
    emit_properties_changed (self, "UserIdle",
                             g_variant_new_boolean (pp_activity_get_user_idle (activity)));
  else if (g_str_equal (name, "idle-timeout-sec"))
    emit_properties_changed (self, "IdleTimeoutSec",
                             g_variant_new_uint32 (pp_activity_get_idle_timeout_sec (activity)));
  else if (g_str_equal (name, "lid-closed"))
    emit_properties_changed (self, "LidClosed",
                             g_variant_new_boolean (pp_activity_get_lid_closed (activity)));
  else if (g_str_equal (name, "docked"))
    emit_properties_changed (self, "Docked",
                             g_variant_new_boolean (pp_activity_get_docked (activity)));
}

static void
on_backend_changed (PpSleep *sleep, GParamSpec *pspec, PpService *self)
{
  emit_properties_changed (self, "Backend",
                           g_variant_new_string (pp_manager_get_backend (self->manager)));
}

static void
on_video_quirks_changed (PpSleep *sleep, GParamSpec *pspec, PpService *self)
{
  emit_properties_changed (self, "VideoQuirks",
                           g_variant_new_strv (pp_sleep_get_video_quirks (sleep), -1));
}

/* The lid/dock state and the lid inhibitor drive the lid action. */
static void
on_lid_state_changed (PpActivity *activity, GParamSpec *pspec, PpService *self)
{
  pp_sleep_set_lid_state (self->sleep,
                          pp_activity_get_lid_closed (activity),
                          pp_activity_get_docked (activity),
                          pp_activity_get_lid_inhibited (activity));
}

void
pp_service_set_activity (PpService *self, PpActivity *activity)
{
  if (self->activity != NULL)
    g_signal_handlers_disconnect_by_data (self->activity, self);
  g_set_object (&self->activity, activity);
  if (activity == NULL)
    return;
  g_signal_connect (activity, "notify::user-idle", G_CALLBACK (on_activity_changed), self);
  g_signal_connect (activity, "notify::idle-timeout-sec", G_CALLBACK (on_activity_changed), self);
  g_signal_connect (activity, "notify::lid-closed", G_CALLBACK (on_activity_changed), self);
  g_signal_connect (activity, "notify::docked", G_CALLBACK (on_activity_changed), self);
}

static void
on_device_changed (PpManager *manager, const char *path, GVariant *changed, PpService *self)
{
  if (self->bus == NULL)
    return;
  g_dbus_connection_emit_signal (self->bus, NULL, PP_DBUS_PATH, PP_DBUS_INTERFACE,
                                 "DeviceChanged",
                                 g_variant_new ("(s@a{sv})", path, changed), NULL);
}

/* ---- name ------------------------------------------------------------- */

static void
on_name_acquired (GDBusConnection *connection, const char *name, gpointer user_data)
{
  PpService *self = PP_SERVICE (user_data);

  self->name_acquired = TRUE;
  g_info ("Acquired the name %s on the system bus", name);
  g_signal_emit (self, signals[SIGNAL_NAME_ACQUIRED], 0);
}

static void
on_name_lost (GDBusConnection *connection, const char *name, gpointer user_data)
{
  PpService *self = PP_SERVICE (user_data);
  g_autofree char *message = NULL;

  if (connection == NULL)
    message = g_strdup ("lost the connection to the system bus");
  else if (self->name_acquired)
    message = g_strdup_printf ("lost the name %s on the system bus", name);
  else
    message = g_strdup_printf ("cannot own the name %s on the system bus (is another powerpolicyd running, or is the bus policy not installed?)", name);
  g_signal_emit (self, signals[SIGNAL_NAME_LOST], 0, message);
}

gboolean
pp_service_start (PpService *self, GError **error)
{
  g_autoptr(GBytes) xml = NULL;
  GDBusInterfaceInfo *iface;

  self->bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, error);
  if (self->bus == NULL)
    return FALSE;
  /* losing the bus must not kill us with SIGTERM: we report and exit */
  g_dbus_connection_set_exit_on_close (self->bus, FALSE);

  /* system sleep and lid actions: before the object is served, so that
   * Backend and VideoQuirks are known from the first call */
  self->sleep = pp_sleep_new (self->manager, self->bus);
  g_signal_connect (self->sleep, "notify::video-quirks", G_CALLBACK (on_video_quirks_changed), self);
  g_signal_connect (self->sleep, "notify::backend", G_CALLBACK (on_backend_changed), self);
  if (self->activity != NULL)
    {
      g_signal_connect (self->activity, "notify::lid-closed", G_CALLBACK (on_lid_state_changed), self);
      g_signal_connect (self->activity, "notify::docked", G_CALLBACK (on_lid_state_changed), self);
      g_signal_connect (self->activity, "notify::lid-inhibited", G_CALLBACK (on_lid_state_changed), self);
      on_lid_state_changed (self->activity, NULL, self);
    }

  xml = g_resource_lookup_data (pp_get_resource (),
                                "/org/powerpolicy1/org.powerpolicy1.Manager.xml",
                                G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (xml == NULL)
    return FALSE;
  self->node_info = g_dbus_node_info_new_for_xml (g_bytes_get_data (xml, NULL), error);
  if (self->node_info == NULL)
    return FALSE;
  iface = g_dbus_node_info_lookup_interface (self->node_info, PP_DBUS_INTERFACE);
  g_assert (iface != NULL);

  self->registration_id = g_dbus_connection_register_object (self->bus, PP_DBUS_PATH, iface,
                                                             &vtable, self, NULL, error);
  if (self->registration_id == 0)
    return FALSE;

  g_signal_connect (self->manager, "notify::on-battery", G_CALLBACK (on_on_battery_changed), self);
  g_signal_connect (self->manager, "device-changed", G_CALLBACK (on_device_changed), self);

  self->owner_id = g_bus_own_name_on_connection (self->bus, PP_DBUS_NAME,
                                                 G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
                                                 on_name_acquired, on_name_lost,
                                                 self, NULL);
  return TRUE;
}

void
pp_service_stop (PpService *self)
{
  g_clear_handle_id (&self->owner_id, g_bus_unown_name);
  if (self->registration_id != 0 && self->bus != NULL)
    g_dbus_connection_unregister_object (self->bus, self->registration_id);
  self->registration_id = 0;
  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);
  if (self->activity != NULL)
    g_signal_handlers_disconnect_by_data (self->activity, self);
  if (self->sleep != NULL)
    g_signal_handlers_disconnect_by_data (self->sleep, self);
  if (self->bus != NULL)
    g_dbus_connection_flush_sync (self->bus, NULL, NULL);
}

static void
pp_service_finalize (GObject *object)
{
  PpService *self = PP_SERVICE (object);

  pp_service_stop (self);
  g_clear_pointer (&self->node_info, g_dbus_node_info_unref);
  g_clear_object (&self->bus);
  g_clear_object (&self->power_ops);
  g_clear_object (&self->activity);
  g_clear_object (&self->sleep);
  g_clear_object (&self->manager);
  G_OBJECT_CLASS (pp_service_parent_class)->finalize (object);
}

static void
pp_service_class_init (PpServiceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pp_service_finalize;

  signals[SIGNAL_NAME_ACQUIRED] =
    g_signal_new ("name-acquired", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_NAME_LOST] =
    g_signal_new ("name-lost", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
pp_service_init (PpService *self)
{
}

PpService *
pp_service_new (PpManager *manager)
{
  PpService *self = g_object_new (PP_TYPE_SERVICE, NULL);

  self->manager = g_object_ref (manager);
  self->power_ops = pp_power_ops_new (manager);
  return self;
}
