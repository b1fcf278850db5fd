/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-service"

#include "config.h"

#include <malloc.h>

#include <gio/gunixfdlist.h>

#include "pp-auth.h"
#include "pp-dbus.h"
#include "pp-device-row.h"
#include "pp-error.h"
#include "pp-foreign.h"
#include "pp-names.h"
#include "pp-overrides.h"
#include "pp-power-ops.h"
#include "pp-power-state.h"
#include "pp-revert.h"
#include "pp-service.h"
#include "pp-sleep.h"
#include "pp-sleep-check.h"
#include "pp-sleep-stats.h"
#include "pp-sysfs.h"
#include "pp-token.h"

struct _PpService {
  GObject          parent_instance;
  PpManager       *manager;
  PpPowerOps      *power_ops;     /* PowerDown, PowerUp, Hold; the tree */
  PpActivity      *activity;      /* Inhibit; idle, lid and dock state (or NULL) */
  PpSleep         *sleep;         /* Suspend, Hibernate, video quirks, lid actions */
  PpReverts       *reverts;       /* Revert (pmctl bisect) */
  GDBusConnection *bus;
  PpDbusManager   *skeleton;      /* generated from the XML; every call arrives here */
  GPtrArray       *bindings;      /* GBinding*: GObject properties -> D-Bus properties */
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

/* ---- replies ----------------------------------------------------------- */

/* After a reply of many rows: the small blocks it was built from are
 * free again, but spread over the heap; hand their pages back, so that
 * asking leaves the daemon as small as it was. */
static void
give_back_memory (void)
{
  malloc_trim (0);
}

static void
return_error (GDBusMethodInvocation *invocation, const GError *error)
{
  g_autoptr(GError) bus_error = pp_error_to_bus (error);

  g_dbus_method_invocation_return_gerror (invocation, bus_error);
}

/* The device dictionary of SPEC §5: what the manager knows of @dev, its
 * runtime-PM state read now, and its power-dependency fields from the
 * tree. @status: read just now. @memo: see
 * pp_power_ops_get_tree_fields(). */
static GVariant *
device_status_to_variant (PpService *self, PpDevice *dev, PpDeviceStatus *status, GHashTable *memo)
{
  g_autoptr(GPtrArray) suppliers = NULL;
  g_autoptr(GPtrArray) consumers = NULL;
  const char *blocker = NULL;
  g_autofree char *excluded = pp_manager_get_exclusion (self->manager, dev);
  PpDeviceRow row = { 0 };

  pp_power_ops_get_tree_fields (self->power_ops, dev->info->syspath, status->control,
                                status->runtime_status, memo, &suppliers, &consumers, &blocker);
  row.path = dev->info->syspath;
  row.subsystem = dev->info->subsystem;
  row.class = dev->props.klass;
  row.driver = dev->info->driver ? dev->info->driver : "";
  row.parent = status->parent;
  row.suppliers = (const char * const *) suppliers->pdata;
  row.n_suppliers = suppliers->len;
  row.consumers = (const char * const *) consumers->pdata;
  row.n_consumers = consumers->len;
  row.runtime_status = status->runtime_status;
  row.control = status->control;
  row.autosuspend_delay_ms = status->autosuspend_delay_ms;
  row.wakeup = status->wakeup;
  row.held = status->held;
  row.blocker = blocker ? blocker : "";
  row.ignored = dev->props.ignore;
  row.excluded = excluded ? excluded : "";
  return pp_device_row_to_variant (&row);
}

static GVariant *
device_to_variant (PpService *self, PpDevice *dev)
{
  g_autoptr(PpDeviceStatus) status = pp_manager_get_device_status (self->manager, dev);

  return device_status_to_variant (self, dev, status, NULL);
}

/* a(sss) of PowerDown/PowerUp */
static GVariant *
power_results_to_variant (GPtrArray *rows)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sss)"));

  for (guint i = 0; i < rows->len; i++)
    {
      PpPowerResult *row = g_ptr_array_index (rows, i);
      g_variant_builder_add (&b, "(sss)", row->path, row->status, row->detail);
    }
  return g_variant_builder_end (&b);
}

static void
add_token_infos (GVariantBuilder *b, GPtrArray *infos)
{
  for (guint i = 0; i < infos->len; i++)
    {
      PpTokenInfo *info = g_ptr_array_index (infos, i);
      g_variant_builder_add (b, "(ssssu)", info->what, info->who, info->why,
                             info->device, info->pid);
    }
}

/* Hand the caller's end of a hold or inhibitor back (index 0 of the list). */
static void
return_fd (GDBusMethodInvocation *invocation, int fd,
           void (*complete) (PpDbusManager *, GDBusMethodInvocation *, GUnixFDList *, GVariant *),
           PpDbusManager *skeleton)
{
  g_autoptr(GUnixFDList) fd_list = g_unix_fd_list_new_from_array (&fd, 1);  /* takes @fd */

  complete (skeleton, invocation, fd_list, g_variant_new_handle (0));
}

/* ---- authorization and the caller -------------------------------------- */

/* A state-changing call runs only once the caller is authorized (pp-auth:
 * asynchronous, polkit's answer awaited at most PP_AUTH_TIMEOUT_MS); its
 * arguments are taken from the invocation and resolved afterwards, so a
 * device that vanished meanwhile is an error, not a dangling pointer. */
typedef void (*AuthorizedHandler) (PpService             *self,
                                   GDBusMethodInvocation *invocation,
                                   GVariant              *params);

typedef struct {
  PpService             *self;
  GDBusMethodInvocation *invocation;   /* the reference the handle-* signal gave us */
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

/* @interactive: polkit may ask the user (AllowUserInteraction). Returns
 * what the handle-* signal returns: handled, the invocation is answered
 * once polkit has. */
static gboolean
run_authorized (PpService             *self,
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
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* Who calls: uid (counted against the limits of holds and inhibitors)
 * and pid (shown by ListInhibitors), asked of the bus in one round trip
 * (GetConnectionCredentials) without blocking. */
typedef void (*CallerHandler) (PpService             *self,
                               GDBusMethodInvocation *invocation,
                               guint32                uid,
                               guint32                pid,
                               const GError          *error);

typedef struct {
  PpService             *self;
  GDBusMethodInvocation *invocation;
  CallerHandler          handler;
} PendingCaller;

#define PP_CALLER_TIMEOUT_MS 5000

static void
on_caller_credentials (GObject *source, GAsyncResult *res, gpointer user_data)
{
  PendingCaller *req = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &error);
  guint32 uid = PP_TOKEN_UID_UNKNOWN, pid = 0;

  if (reply != NULL)
    {
      g_autoptr(GVariant) creds = g_variant_get_child_value (reply, 0);

      if (!g_variant_lookup (creds, "UnixUserID", "u", &uid))
        uid = PP_TOKEN_UID_UNKNOWN;
      if (!g_variant_lookup (creds, "ProcessID", "u", &pid))
        g_set_error_literal (&error, PP_ERROR, PP_ERROR_FAILED,
                             "the bus does not know the caller's pid");
    }
  req->handler (req->self, req->invocation, uid, pid, error);
  g_object_unref (req->self);
  g_free (req);
}

static void
with_caller (PpService *self, GDBusMethodInvocation *invocation, CallerHandler handler)
{
  GDBusConnection *connection = g_dbus_method_invocation_get_connection (invocation);
  const char *sender = g_dbus_method_invocation_get_sender (invocation);
  PendingCaller *req;

  if (connection == NULL || sender == NULL)
    {
      g_autoptr(GError) error = g_error_new_literal (PP_ERROR, PP_ERROR_FAILED,
                                                     "the caller has no bus name");
      handler (self, invocation, PP_TOKEN_UID_UNKNOWN, 0, error);
      return;
    }
  req = g_new0 (PendingCaller, 1);
  req->self = g_object_ref (self);
  req->invocation = invocation;
  req->handler = handler;
  g_dbus_connection_call (connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetConnectionCredentials",
                          g_variant_new ("(s)", sender), G_VARIANT_TYPE ("(a{sv})"),
                          G_DBUS_CALL_FLAGS_NONE, PP_CALLER_TIMEOUT_MS, NULL,
                          on_caller_credentials, req);
}

/* An empty who is the caller's bus name. */
static const char *
who_or_sender (GDBusMethodInvocation *invocation, const char *who)
{
  const char *sender = g_dbus_method_invocation_get_sender (invocation);

  if (*who != '\0')
    return who;
  return sender ? sender : "unknown";
}

/* ---- methods ---------------------------------------------------------- */

/* Every managed device's state is read once (the blocker search meets
 * the managed devices again: it finds them in @memo), then the rows. */
static gboolean
handle_list_devices (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  GPtrArray *devices = pp_manager_list_devices (self->manager);
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));
  g_autoptr(GHashTable) memo = pp_power_ops_blocking_memo_new ();
  g_autoptr(GPtrArray) statuses =
    g_ptr_array_new_full (devices->len, (GDestroyNotify) pp_device_status_free);

  for (guint i = 0; i < devices->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (devices, i);
      PpDeviceStatus *status = pp_manager_get_device_status (self->manager, dev);

      pp_power_ops_blocking_memo_add (memo, dev->info->syspath, status->runtime_status,
                                      status->control, status->held);
      g_ptr_array_add (statuses, status);
    }
  for (guint i = 0; i < devices->len; i++)
    g_variant_builder_add_value (&b, device_status_to_variant (self, g_ptr_array_index (devices, i),
                                                               g_ptr_array_index (statuses, i), memo));
  pp_dbus_manager_complete_list_devices (skeleton, invocation, g_variant_builder_end (&b));
  g_clear_pointer (&statuses, g_ptr_array_unref);
  g_clear_pointer (&memo, g_hash_table_unref);
  give_back_memory ();
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
handle_get_device (PpDbusManager         *skeleton,
                   GDBusMethodInvocation *invocation,
                   const char            *arg,
                   PpService             *self)
{
  g_autoptr(GError) error = NULL;
  PpDevice *dev = pp_manager_resolve_device (self->manager, arg, &error);

  if (dev == NULL)
    return_error (invocation, error);
  else
    pp_dbus_manager_complete_get_device (skeleton, invocation, device_to_variant (self, dev));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
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
do_sleep (PpService *self, GDBusMethodInvocation *invocation, const char *state)
{
  gboolean interactive;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(b)", &interactive);
  pp_sleep_sleep_async (self->sleep, state, interactive, on_sleep_done, invocation);
}

static void
do_suspend (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  do_sleep (self, invocation, "mem");
}

static void
do_hibernate (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  do_sleep (self, invocation, "disk");
}

static gboolean
handle_suspend (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                gboolean interactive, PpService *self)
{
  return run_authorized (self, invocation, PP_POLKIT_ACTION_SLEEP, interactive, do_suspend);
}

static gboolean
handle_hibernate (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                  gboolean interactive, PpService *self)
{
  return run_authorized (self, invocation, PP_POLKIT_ACTION_SLEEP, interactive, do_hibernate);
}

static gboolean
handle_get_video_quirks (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  const PpQuirkSelection *selection = pp_sleep_get_quirk_selection (self->sleep);
  const char *source = pp_quirk_source_to_string (selection->source);
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sss)"));

  for (guint i = 0; i < selection->reasons->len; i++)
    {
      PpQuirkReason *r = g_ptr_array_index (selection->reasons, i);
      g_variant_builder_add (&b, "(sss)", r->quirk, source, r->detail);
    }
  pp_dbus_manager_complete_get_video_quirks (skeleton, invocation, g_variant_builder_end (&b));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

GPtrArray *
pp_service_reload (PpService *self)
{
  GPtrArray *problems = NULL;

  pp_manager_reload (self->manager, &problems);
  if (self->activity != NULL)
    pp_activity_reload (self->activity);
  else if (self->skeleton != NULL)
    pp_dbus_manager_set_idle_timeout_sec (self->skeleton,
                                          pp_manager_get_config (self->manager)->idle_timeout_sec);
  /* the quirk database's problems are logged, not the configuration's */
  if (self->sleep != NULL)
    pp_sleep_reload (self->sleep, NULL);
  return problems;
}

static void
do_reload (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
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
  pp_dbus_manager_complete_reload (self->skeleton, invocation);
}

static gboolean
handle_reload (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  return run_authorized (self, invocation, PP_POLKIT_ACTION_MANAGE, FALSE, do_reload);
}

static void
do_set_override (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  g_autoptr(GError) error = NULL;
  const char *arg, *key, *value;
  PpDevice *dev;

  g_variant_get (params, "(&s&s&s)", &arg, &key, &value);
  dev = pp_manager_resolve_device (self->manager, arg, &error);
  if (dev == NULL || !pp_manager_set_override (self->manager, dev, key, value, &error))
    return_error (invocation, error);
  else
    pp_dbus_manager_complete_set_override (self->skeleton, invocation);
}

static gboolean
handle_set_override (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                     const char *arg, const char *key, const char *value, PpService *self)
{
  return run_authorized (self, invocation, PP_POLKIT_ACTION_MANAGE, FALSE, do_set_override);
}

static void
do_clear_overrides (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  g_autoptr(GError) error = NULL;
  const char *arg;
  PpDevice *dev;

  g_variant_get (params, "(&s)", &arg);
  dev = pp_manager_resolve_device (self->manager, arg, &error);
  if (dev == NULL || !pp_manager_clear_overrides (self->manager, dev, &error))
    return_error (invocation, error);
  else
    pp_dbus_manager_complete_clear_overrides (self->skeleton, invocation);
}

static gboolean
handle_clear_overrides (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                        const char *arg, PpService *self)
{
  return run_authorized (self, invocation, PP_POLKIT_ACTION_MANAGE, FALSE, do_clear_overrides);
}

static void
do_power_down (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  const char *arg, *mode;
  gboolean subtree;

  g_variant_get (params, "(&sb&s)", &arg, &subtree, &mode);
  rows = pp_power_ops_power_down (self->power_ops, arg, subtree, mode, &error);
  if (rows == NULL)
    return_error (invocation, error);
  else
    pp_dbus_manager_complete_power_down (self->skeleton, invocation, power_results_to_variant (rows));
}

static gboolean
handle_power_down (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                   const char *arg, gboolean subtree, const char *mode, PpService *self)
{
  return run_authorized (self, invocation, PP_POLKIT_ACTION_MANAGE, FALSE, do_power_down);
}

static void
do_power_up (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  const char *arg;
  gboolean subtree;

  g_variant_get (params, "(&sb)", &arg, &subtree);
  rows = pp_power_ops_power_up (self->power_ops, arg, subtree, &error);
  if (rows == NULL)
    return_error (invocation, error);
  else
    pp_dbus_manager_complete_power_up (self->skeleton, invocation, power_results_to_variant (rows));
}

static gboolean
handle_power_up (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                 const char *arg, gboolean subtree, PpService *self)
{
  return run_authorized (self, invocation, PP_POLKIT_ACTION_MANAGE, FALSE, do_power_up);
}

static void
hold_with_caller (PpService *self, GDBusMethodInvocation *invocation,
                  guint32 uid, guint32 pid, const GError *caller_error)
{
  g_autoptr(GError) error = NULL;
  const char *arg, *who, *why;
  int fd = -1;

  if (caller_error != NULL)
    g_debug ("Cannot get the pid of the holder: %s", caller_error->message);
  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(&s&s&s)", &arg, &who, &why);
  if (!pp_power_ops_hold (self->power_ops, arg,
                          &(PpTokenRequest) { who_or_sender (invocation, who), why, uid, pid },
                          &fd, &error))
    return_error (invocation, error);
  else
    return_fd (invocation, fd, pp_dbus_manager_complete_hold, self->skeleton);
}

static void
do_hold (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  with_caller (self, invocation, hold_with_caller);
}

static gboolean
handle_hold (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, GUnixFDList *fd_list,
             const char *arg, const char *who, const char *why, PpService *self)
{
  return run_authorized (self, invocation, PP_POLKIT_ACTION_INHIBIT, FALSE, do_hold);
}

static void
inhibit_with_caller (PpService *self, GDBusMethodInvocation *invocation,
                     guint32 uid, guint32 pid, const GError *caller_error)
{
  g_autoptr(GError) error = NULL;
  const char *what, *who, *why;
  int fd = -1;

  if (caller_error != NULL)
    {
      g_dbus_method_invocation_return_error (invocation, PP_ERROR, PP_ERROR_FAILED,
                                             "cannot identify the caller: %s", caller_error->message);
      return;
    }
  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(&s&s&s)", &what, &who, &why);
  if (!pp_activity_inhibit (self->activity, what,
                            &(PpTokenRequest) { who_or_sender (invocation, who), why, uid, pid },
                            &fd, &error))
    return_error (invocation, error);
  else
    return_fd (invocation, fd, pp_dbus_manager_complete_inhibit, self->skeleton);
}

static void
do_inhibit (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  const char *what, *who, *why;
  g_autoptr(GError) error = NULL;
  gboolean idle, lid;

  if (self->activity == NULL)
    {
      g_dbus_method_invocation_return_error (invocation, PP_ERROR, PP_ERROR_NOT_SUPPORTED,
                                             "activity tracking is not running");
      return;
    }
  /* a bad what is refused before the bus is asked who calls */
  g_variant_get (params, "(&s&s&s)", &what, &who, &why);
  if (!pp_token_parse_what (what, &idle, &lid, &error))
    {
      return_error (invocation, error);
      return;
    }
  with_caller (self, invocation, inhibit_with_caller);
}

static gboolean
handle_inhibit (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, GUnixFDList *fd_list,
                const char *what, const char *who, const char *why, PpService *self)
{
  return run_authorized (self, invocation, PP_POLKIT_ACTION_INHIBIT, FALSE, do_inhibit);
}

static void
revert_with_caller (PpService *self, GDBusMethodInvocation *invocation,
                    guint32 uid, guint32 pid, const GError *caller_error)
{
  g_autoptr(GError) error = NULL;
  g_autofree const char **devices = NULL;
  const char *who, *why;
  int fd = -1;

  if (caller_error != NULL)
    g_debug ("Cannot get the pid of the caller of Revert: %s", caller_error->message);
  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(^a&s&s&s)",
                 &devices, &who, &why);
  if (!pp_reverts_add (self->reverts, devices,
                       &(PpTokenRequest) { who_or_sender (invocation, who), why, uid, pid },
                       &fd, &error))
    return_error (invocation, error);
  else
    return_fd (invocation, fd, pp_dbus_manager_complete_revert, self->skeleton);
}

static void
do_revert (PpService *self, GDBusMethodInvocation *invocation, GVariant *params)
{
  with_caller (self, invocation, revert_with_caller);
}

static gboolean
handle_revert (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, GUnixFDList *fd_list,
               const char * const *devices, const char *who, const char *why, PpService *self)
{
  return run_authorized (self, invocation, PP_POLKIT_ACTION_MANAGE, FALSE, do_revert);
}

static gboolean
handle_list_inhibitors (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(ssssu)"));
  g_autoptr(GPtrArray) holds = pp_power_ops_list_holds (self->power_ops);

  add_token_infos (&b, holds);
  if (self->activity != NULL)
    {
      g_autoptr(GPtrArray) inhibitors = pp_activity_list_inhibitors (self->activity);
      add_token_infos (&b, inhibitors);
    }
  pp_dbus_manager_complete_list_inhibitors (skeleton, invocation, g_variant_builder_end (&b));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* Explain: open to everyone, like GetDevice. */
static gboolean
handle_explain (PpDbusManager         *skeleton,
                GDBusMethodInvocation *invocation,
                const char            *arg,
                PpService             *self)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sssss)"));
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  PpDevice *dev = pp_manager_resolve_device (self->manager, arg, &error);

  if (dev == NULL)
    {
      return_error (invocation, error);
      return G_DBUS_METHOD_INVOCATION_HANDLED;
    }
  rows = pp_manager_explain (self->manager, dev);
  for (guint i = 0; i < rows->len; i++)
    {
      PpExplainRow *r = g_ptr_array_index (rows, i);
      g_variant_builder_add (&b, "(sssss)", r->attribute, r->current, r->decided, r->layer,
                             r->origin);
    }
  pp_dbus_manager_complete_explain (skeleton, invocation, g_variant_builder_end (&b));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* GetStatistics (SPEC §5): open to everyone; "" means every device. */
static gboolean
handle_get_statistics (PpDbusManager         *skeleton,
                       GDBusMethodInvocation *invocation,
                       const char            *arg,
                       PpService             *self)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sdtt)"));
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) rows = NULL;
  PpDevice *dev = NULL;

  if (*arg != '\0')
    dev = pp_manager_resolve_device (self->manager, arg, &error);
  if (error == NULL)
    rows = pp_manager_get_statistics (self->manager, dev, &error);
  if (rows == NULL)
    {
      return_error (invocation, error);
      return G_DBUS_METHOD_INVOCATION_HANDLED;
    }
  for (guint i = 0; i < rows->len; i++)
    {
      const PpManagerStatsRow *r = &g_array_index (rows, PpManagerStatsRow, i);

      g_variant_builder_add (&b, "(sdtt)", r->path, r->suspended_share,
                             r->active_ms, r->suspended_ms);
    }
  pp_dbus_manager_complete_get_statistics (skeleton, invocation, g_variant_builder_end (&b));
  if (dev == NULL)
    {
      g_clear_pointer (&rows, g_array_unref);
      give_back_memory ();
    }
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* GetDeviceStatistics: GetStatistics("") with what pmctl stats prints of
 * each device; open to everyone. */
static gboolean
handle_get_device_statistics (PpDbusManager         *skeleton,
                              GDBusMethodInvocation *invocation,
                              PpService             *self)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sssbdtt)"));
  g_autoptr(GArray) rows = pp_manager_get_statistics (self->manager, NULL, NULL);

  for (guint i = 0; rows != NULL && i < rows->len; i++)
    {
      const PpManagerStatsRow *r = &g_array_index (rows, PpManagerStatsRow, i);

      g_variant_builder_add (&b, "(sssbdtt)", r->path, r->class, r->runtime_status,
                             r->control_auto, r->suspended_share, r->active_ms, r->suspended_ms);
    }
  pp_dbus_manager_complete_get_device_statistics (skeleton, invocation,
                                                  g_variant_builder_end (&b));
  g_clear_pointer (&rows, g_array_unref);
  give_back_memory ();
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* GetClassStatistics (SPEC §5): open to everyone. */
static gboolean
handle_get_class_statistics (PpDbusManager         *skeleton,
                             GDBusMethodInvocation *invocation,
                             PpService             *self)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(suudtt)"));
  g_autoptr(GArray) totals = pp_manager_get_class_statistics (self->manager);

  for (guint i = 0; i < totals->len; i++)
    {
      const PpManagerClassStats *t = &g_array_index (totals, PpManagerClassStats, i);

      g_variant_builder_add (&b, "(suudtt)", t->class, t->n_devices, t->n_never_suspends,
                             t->suspended_share, t->active_ms, t->suspended_ms);
    }
  pp_dbus_manager_complete_get_class_statistics (skeleton, invocation, g_variant_builder_end (&b));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* CountDevices: open to everyone. */
static gboolean
handle_count_devices (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(ssu)"));
  g_autoptr(GArray) counts = pp_manager_count_devices (self->manager);

  for (guint i = 0; i < counts->len; i++)
    {
      const PpManagerDeviceCount *c = &g_array_index (counts, PpManagerDeviceCount, i);

      g_variant_builder_add (&b, "(ssu)", c->class, c->runtime_status, c->count);
    }
  pp_dbus_manager_complete_count_devices (skeleton, invocation, g_variant_builder_end (&b));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* GetSleepHistory (SPEC §5): open to everyone. */
static gboolean
handle_get_sleep_history (PpDbusManager         *skeleton,
                          GDBusMethodInvocation *invocation,
                          guint                  count,
                          PpService             *self)
{
  pp_dbus_manager_complete_get_sleep_history (skeleton, invocation,
                                              pp_sleep_history_to_variant (pp_sleep_get_history (self->sleep),
                                                                           count));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* CheckSleep (pmctl sleep-check): read now, open to everyone. */
static gboolean
handle_check_sleep (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  const PpSleepConfig *sc = &pp_manager_get_config (self->manager)->sleep;
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sbss)"));
  PpSleepCheckInput input = { NULL };
  g_autoptr(GPtrArray) rows = NULL;

  pp_sleep_stats_read_check (&input);
  rows = pp_sleep_check (&input, sc->mem_sleep, sc->hibernate_mode);
  pp_sleep_check_input_clear (&input);
  for (guint i = 0; i < rows->len; i++)
    {
      PpSleepCheckRow *r = g_ptr_array_index (rows, i);
      g_variant_builder_add (&b, "(sbss)", r->state, r->available, r->used_by, r->reason);
    }
  pp_dbus_manager_complete_check_sleep (skeleton, invocation, g_variant_builder_end (&b));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* The tree's blocker of a device, for the sleep records. */
static char *
sleep_blocker_of (const char *syspath, gpointer user_data)
{
  PpService *self = user_data;
  g_autoptr(GPtrArray) suppliers = NULL;
  g_autoptr(GPtrArray) consumers = NULL;
  const char *blocker = NULL;
  PpPowerState state;

  pp_power_state_read (syspath, PP_POWER_STATE_RUNTIME_STATUS | PP_POWER_STATE_CONTROL, &state);
  pp_power_ops_get_tree_fields (self->power_ops, syspath, state.control, state.runtime_status,
                                NULL, &suppliers, &consumers, &blocker);
  return g_strdup (blocker);
}

/* ListChanges and ListOverrides: open to everyone, like ListDevices. */
static gboolean
handle_list_changes (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  g_autoptr(GPtrArray) changes = pp_manager_list_changes (self->manager);
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(ssss)"));

  for (guint i = 0; i < changes->len; i++)
    {
      PpManagerChange *c = g_ptr_array_index (changes, i);
      g_variant_builder_add (&b, "(ssss)", c->path, c->attribute, c->original, c->current);
    }
  pp_dbus_manager_complete_list_changes (skeleton, invocation, g_variant_builder_end (&b));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
handle_list_overrides (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  g_autoptr(GPtrArray) rows = pp_manager_list_overrides (self->manager);
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sss)"));

  for (guint i = 0; i < rows->len; i++)
    {
      PpOverrideRow *r = g_ptr_array_index (rows, i);
      g_variant_builder_add (&b, "(sss)", r->path, r->key, r->value);
    }
  pp_dbus_manager_complete_list_overrides (skeleton, invocation, g_variant_builder_end (&b));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* No method takes more than a device path (4096 bytes), two short texts
 * and a few words: larger arguments are refused before anything else, so
 * that no reply (errors quote arguments) can grow with what a caller sends,
 * up to the bus's message limit that would cost the daemon its connection.
 * The skeleton asks this before it emits any handle-* signal. */
#define PP_DBUS_ARGS_MAX 16384

static gboolean
on_authorize_method (GDBusInterfaceSkeleton *skeleton,
                     GDBusMethodInvocation  *invocation,
                     PpService              *self)
{
  GVariant *parameters = g_dbus_method_invocation_get_parameters (invocation);
  const char *method = g_dbus_method_invocation_get_method_name (invocation);
  /* Revert names many devices; its errors quote one of them at most */
  gsize max = g_strcmp0 (method, "Revert") == 0 ? PP_REVERT_ARGS_MAX : PP_DBUS_ARGS_MAX;

  if (parameters != NULL && g_variant_get_size (parameters) > max)
    {
      g_dbus_method_invocation_return_error (invocation, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                                             "the arguments of %s are larger than %" G_GSIZE_FORMAT " bytes",
                                             method, max);
      return FALSE;
    }
  return TRUE;
}

/* ---- properties and signals ------------------------------------------- */

static void
bind (PpService *self, gpointer source, const char *source_property, const char *target_property)
{
  g_ptr_array_add (self->bindings,
                   g_object_ref (g_object_bind_property (source, source_property,
                                                         self->skeleton, target_property,
                                                         G_BINDING_SYNC_CREATE)));
}

static void
unbind_all (PpService *self)
{
  for (guint i = 0; i < self->bindings->len; i++)
    g_binding_unbind (g_ptr_array_index (self->bindings, i));
  g_ptr_array_set_size (self->bindings, 0);
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
}

/* Conflicts: the skeleton announces the new value (PropertiesChanged). */
static void
on_conflicts_changed (PpManager *manager, PpService *self)
{
  g_autoptr(GPtrArray) rows = pp_manager_list_conflicts (manager);

  pp_dbus_manager_set_conflicts (self->skeleton, pp_conflicts_to_variant (rows, NULL));
}

/* DeviceChanged: the attributes a write changed, under the names of the
 * device dictionary. */
static void
on_device_changed (PpManager   *manager,
                   const char  *syspath,
                   char       **attributes,
                   char       **values,
                   PpService   *self)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  for (guint i = 0; attributes[i] != NULL && values[i] != NULL; i++)
    {
      const char *attr = attributes[i];
      const char *value = values[i];

      if (g_str_equal (attr, PP_ATTR_CONTROL))
        g_variant_builder_add (&b, "{sv}", "control", g_variant_new_string (value));
      else if (g_str_equal (attr, PP_ATTR_WAKEUP))
        g_variant_builder_add (&b, "{sv}", "wakeup", g_variant_new_string (value));
      else if (g_str_equal (attr, PP_ATTR_DELAY))
        g_variant_builder_add (&b, "{sv}", "autosuspend_delay_ms",
                               g_variant_new_int32 ((gint32) g_ascii_strtoll (value, NULL, 10)));
      else
        g_variant_builder_add (&b, "{sv}", attr, g_variant_new_string (value));
    }
  pp_dbus_manager_emit_device_changed (self->skeleton, syspath, g_variant_builder_end (&b));
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

static void
connect_handlers (PpService *self)
{
  PpDbusManager *skeleton = self->skeleton;

  g_signal_connect (skeleton, "g-authorize-method", G_CALLBACK (on_authorize_method), self);
  g_signal_connect (skeleton, "handle-list-devices", G_CALLBACK (handle_list_devices), self);
  g_signal_connect (skeleton, "handle-get-device", G_CALLBACK (handle_get_device), self);
  g_signal_connect (skeleton, "handle-explain", G_CALLBACK (handle_explain), self);
  g_signal_connect (skeleton, "handle-get-statistics", G_CALLBACK (handle_get_statistics), self);
  g_signal_connect (skeleton, "handle-get-class-statistics",
                    G_CALLBACK (handle_get_class_statistics), self);
  g_signal_connect (skeleton, "handle-count-devices", G_CALLBACK (handle_count_devices), self);
  g_signal_connect (skeleton, "handle-get-device-statistics",
                    G_CALLBACK (handle_get_device_statistics), self);
  g_signal_connect (skeleton, "handle-list-inhibitors", G_CALLBACK (handle_list_inhibitors), self);
  g_signal_connect (skeleton, "handle-list-changes", G_CALLBACK (handle_list_changes), self);
  g_signal_connect (skeleton, "handle-list-overrides", G_CALLBACK (handle_list_overrides), self);
  g_signal_connect (skeleton, "handle-get-sleep-history", G_CALLBACK (handle_get_sleep_history), self);
  g_signal_connect (skeleton, "handle-check-sleep", G_CALLBACK (handle_check_sleep), self);
  g_signal_connect (skeleton, "handle-get-video-quirks", G_CALLBACK (handle_get_video_quirks), self);
  g_signal_connect (skeleton, "handle-reload", G_CALLBACK (handle_reload), self);
  g_signal_connect (skeleton, "handle-set-override", G_CALLBACK (handle_set_override), self);
  g_signal_connect (skeleton, "handle-clear-overrides", G_CALLBACK (handle_clear_overrides), self);
  g_signal_connect (skeleton, "handle-suspend", G_CALLBACK (handle_suspend), self);
  g_signal_connect (skeleton, "handle-hibernate", G_CALLBACK (handle_hibernate), self);
  g_signal_connect (skeleton, "handle-power-down", G_CALLBACK (handle_power_down), self);
  g_signal_connect (skeleton, "handle-power-up", G_CALLBACK (handle_power_up), self);
  g_signal_connect (skeleton, "handle-hold", G_CALLBACK (handle_hold), self);
  g_signal_connect (skeleton, "handle-inhibit", G_CALLBACK (handle_inhibit), self);
  g_signal_connect (skeleton, "handle-revert", G_CALLBACK (handle_revert), self);
}

static void
connect_properties (PpService *self)
{
  PpDbusManager *skeleton = self->skeleton;

  pp_dbus_manager_set_version (skeleton, PACKAGE_VERSION);
  bind (self, self->manager, "on-battery", "on-battery");
  bind (self, self->manager, "low-battery", "low-battery");
  bind (self, self->manager, "dry-run", "dry-run");
  bind (self, self->manager, "write-failures", "write-failures");
  bind (self, self->manager, "last-policy-pass-sec", "last-policy-pass-sec");
  bind (self, self->sleep, "backend", "backend");
  bind (self, self->sleep, "video-quirks", "video-quirks");
  bind (self, pp_sleep_get_history (self->sleep), "last-sleep", "last-sleep");
  if (self->activity != NULL)
    {
      bind (self, self->activity, "user-idle", "user-idle");
      bind (self, self->activity, "idle-timeout-sec", "idle-timeout-sec");
      bind (self, self->activity, "lid-closed", "lid-closed");
      bind (self, self->activity, "docked", "docked");
    }
  else
    pp_dbus_manager_set_idle_timeout_sec (skeleton,
                                          pp_manager_get_config (self->manager)->idle_timeout_sec);
}

gboolean
pp_service_start (PpService *self, GError **error)
{
  self->bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, error);
  if (self->bus == NULL)
    return FALSE;
  /* losing the bus must not kill us with SIGTERM: we report and exit */
  g_dbus_connection_set_exit_on_close (self->bus, FALSE);

  /* system sleep and lid actions: before the object is served, so that
   * Backend and VideoQuirks are known from the first call */
  self->sleep = pp_sleep_new (self->manager, self->bus);
  pp_sleep_history_set_blocker_hook (pp_sleep_get_history (self->sleep), sleep_blocker_of, self);
  if (self->activity != NULL)
    {
      g_signal_connect (self->activity, "notify::lid-closed", G_CALLBACK (on_lid_state_changed), self);
      g_signal_connect (self->activity, "notify::docked", G_CALLBACK (on_lid_state_changed), self);
      g_signal_connect (self->activity, "notify::lid-inhibited", G_CALLBACK (on_lid_state_changed), self);
      on_lid_state_changed (self->activity, NULL, self);
    }

  self->skeleton = pp_dbus_manager_skeleton_new ();
  connect_handlers (self);
  connect_properties (self);
  g_signal_connect (self->manager, "device-changed", G_CALLBACK (on_device_changed), self);
  g_signal_connect (self->manager, "conflicts-changed", G_CALLBACK (on_conflicts_changed), self);
  on_conflicts_changed (self->manager, self);
  if (!g_dbus_interface_skeleton_export (G_DBUS_INTERFACE_SKELETON (self->skeleton),
                                         self->bus, PP_DBUS_PATH, error))
    return FALSE;

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
  if (self->skeleton != NULL &&
      g_dbus_interface_skeleton_get_connection (G_DBUS_INTERFACE_SKELETON (self->skeleton)) != NULL)
    {
      /* pending PropertiesChanged go out before the object goes */
      g_dbus_interface_skeleton_flush (G_DBUS_INTERFACE_SKELETON (self->skeleton));
      g_dbus_interface_skeleton_unexport (G_DBUS_INTERFACE_SKELETON (self->skeleton));
    }
  if (self->skeleton != NULL)
    g_signal_handlers_disconnect_by_data (self->skeleton, self);
  unbind_all (self);
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
  g_ptr_array_unref (self->bindings);
  g_clear_object (&self->skeleton);
  g_clear_object (&self->bus);
  g_clear_pointer (&self->reverts, pp_reverts_free);
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
  self->bindings = g_ptr_array_new_with_free_func (g_object_unref);
}

PpService *
pp_service_new (PpManager *manager)
{
  PpService *self = g_object_new (PP_TYPE_SERVICE, NULL);

  self->manager = g_object_ref (manager);
  self->power_ops = pp_power_ops_new (manager);
  self->reverts = pp_reverts_new (manager);
  return self;
}
