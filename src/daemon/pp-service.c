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

/* The D-Bus adapter: the components are made and connected elsewhere
 * (main.c); the service turns calls into plain C calls on them and their
 * properties and signals into D-Bus ones. */
struct _PpService {
  GObject          parent_instance;
  PpManager       *manager;
  PpPowerOps      *power_ops;     /* PowerDown, PowerUp, Hold; the tree */
  PpActivity      *activity;      /* Inhibit; idle, lid and dock state */
  PpSleep         *sleep;         /* Suspend, Hibernate, video quirks, sleep records */
  PpReverts       *reverts;       /* Revert (pmctl bisect); not ours, outlives us */
  PpServiceReloadFunc reload;     /* Reload */
  gpointer         reload_data;
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
 * asking leaves the daemon as small as it was. Also before one: GDBus
 * frees the previous big reply (the message and its serialised form, at
 * 10,000 devices megabytes grown by doubling) in its worker thread once
 * written, after that reply's trim, and its pages would still be there
 * while the next one is made. */
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

/* An array reply of @type ("a(...)"), one element per row of @rows. */
typedef void (*PpAddRow) (GVariantBuilder *b, gconstpointer row);

static GVariant *
rows_to_variant (GPtrArray *rows, const char *type, PpAddRow add_row)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE (type));

  for (guint i = 0; i < rows->len; i++)
    add_row (&b, g_ptr_array_index (rows, i));
  return g_variant_builder_end (&b);
}

/* The device dictionary (org.powerpolicy1.Manager.xml, GetDevice): what the
 * manager knows of @dev, its runtime-PM state read now (@status), and its
 * power-dependency fields from the tree. @memo: see
 * pp_power_ops_get_tree_fields(). With @rows, the dictionary is added to them
 * and NULL returned. */
static GVariant *
device_status_to_variant (PpService *self, PpDevice *dev, const PpDeviceStatus *status,
                          PpBlockingMemo *memo, PpDeviceRows *rows)
{
  g_autoptr(GPtrArray) suppliers = NULL;
  g_autoptr(GPtrArray) consumers = NULL;
  const char *blocker = NULL;
  g_autofree char *excluded = pp_manager_get_exclusion (self->manager, dev);
  PpDeviceRow row = { 0 };

  pp_power_ops_get_tree_fields (self->power_ops, dev->info->syspath, status->power.control,
                                status->power.runtime_status, memo, &suppliers, &consumers,
                                &blocker);
  row.path = dev->info->syspath;
  row.subsystem = dev->info->subsystem;
  row.class = dev->props.klass;
  row.driver = dev->info->driver ? dev->info->driver : "";
  row.parent = status->parent;
  row.suppliers = (const char * const *) suppliers->pdata;
  row.n_suppliers = suppliers->len;
  row.consumers = (const char * const *) consumers->pdata;
  row.n_consumers = consumers->len;
  row.runtime_status = status->power.runtime_status;
  row.control = status->power.control;
  row.autosuspend_delay_ms = status->power.autosuspend_delay_ms;
  row.wakeup = status->power.wakeup;
  row.held = status->held;
  row.blocker = blocker ? blocker : "";
  row.ignored = dev->props.ignore;
  row.excluded = excluded ? excluded : "";
  if (rows != NULL)
    {
      pp_device_rows_add (rows, &row);
      return NULL;
    }
  return pp_device_row_to_variant (&row);
}

static GVariant *
device_to_variant (PpService *self, PpDevice *dev)
{
  PpDeviceStatus status;

  pp_manager_read_device_status (self->manager, dev, &status);
  return device_status_to_variant (self, dev, &status, NULL, NULL);
}

/* a(sss) of PowerDown/PowerUp */
static void
add_power_result (GVariantBuilder *b, gconstpointer row)
{
  const PpPowerResult *r = row;

  g_variant_builder_add (b, "(sss)", r->path, r->status, r->detail);
}

static void
add_explain_row (GVariantBuilder *b, gconstpointer row)
{
  const PpExplainRow *r = row;

  g_variant_builder_add (b, "(sssss)", r->attribute, r->current, r->decided, r->layer, r->origin);
}

static void
add_sleep_check_row (GVariantBuilder *b, gconstpointer row)
{
  const PpSleepCheckRow *r = row;

  g_variant_builder_add (b, "(sbss)", r->state, r->available, r->used_by, r->reason);
}

static void
add_change (GVariantBuilder *b, gconstpointer row)
{
  const PpManagerChange *c = row;

  g_variant_builder_add (b, "(ssss)", c->path, c->attribute, c->original, c->current);
}

static void
add_override_row (GVariantBuilder *b, gconstpointer row)
{
  const PpOverrideRow *r = row;

  g_variant_builder_add (b, "(sss)", r->path, r->key, r->value);
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

/* ---- one call: authorize, resolve, run, reply -------------------------- */

/* Every method that can fail goes through serve(): the call is authorized
 * (pp-auth: asynchronous, polkit's answer awaited at most
 * PP_AUTH_TIMEOUT_MS) when its method needs an action, then its device
 * argument is resolved (afterwards, so that a device that vanished
 * meanwhile is an error, not a dangling pointer), then the caller is
 * identified when the method needs uid and pid, then the method runs on
 * the typed arguments of the generated handler. The method answers
 * through the generated complete function and returns TRUE, or returns
 * FALSE with an error, which serve() answers. */
typedef struct _PpCall PpCall;
typedef gboolean (*PpCallFunc) (PpService *self, PpCall *call, GError **error);

typedef enum {
  PP_RESOLVE_NONE,
  PP_RESOLVE_DEVICE,          /* call->device names a device */
  PP_RESOLVE_DEVICE_OR_ALL,   /* the same, "" meaning every device */
} PpResolve;

typedef struct {
  const char *action_id;      /* polkit action; NULL: open to everyone */
  PpResolve   resolve;
  PpCallFunc  check;          /* or NULL: refuses bad arguments before the caller is asked for */
  gboolean    caller;         /* ask the bus who calls (uid, pid) before run */
  PpCallFunc  run;
} PpMethod;

struct _PpCall {
  PpService             *self;
  GDBusMethodInvocation *invocation;   /* the reference the handle-* signal gave us */
  const PpMethod        *method;
  gboolean               interactive;  /* polkit may ask the user */
  /* the generated handler's arguments, copied: polkit and the bus answer later */
  char                  *device;
  char                  *key;          /* SetOverride */
  char                  *value;        /* SetOverride */
  char                  *mode;         /* PowerDown */
  char                  *what;         /* Inhibit */
  char                  *who;          /* Hold, Inhibit, Revert */
  char                  *why;          /* Hold, Inhibit, Revert */
  char                 **devices;      /* Revert */
  gboolean               subtree;      /* PowerDown, PowerUp */
  const char            *state;        /* Suspend "mem", Hibernate "disk" */
  /* what serve() found out */
  PpDevice              *dev;          /* @device resolved, or NULL */
  guint32                uid;          /* the caller, with method->caller */
  guint32                pid;
  GError                *caller_error; /* the bus could not say who calls */
};

static PpCall *
call_new (PpService *self, GDBusMethodInvocation *invocation, const PpMethod *method)
{
  PpCall *call = g_new0 (PpCall, 1);

  call->self = g_object_ref (self);
  call->invocation = invocation;
  call->method = method;
  call->uid = PP_TOKEN_UID_UNKNOWN;
  return call;
}

static void
call_free (PpCall *call)
{
  g_object_unref (call->self);
  g_free (call->device);
  g_free (call->key);
  g_free (call->value);
  g_free (call->mode);
  g_free (call->what);
  g_free (call->who);
  g_free (call->why);
  g_strfreev (call->devices);
  g_clear_error (&call->caller_error);
  g_free (call);
}

static void
call_run (PpCall *call)
{
  g_autoptr(GError) error = NULL;

  if (!call->method->run (call->self, call, &error))
    return_error (call->invocation, error);
  call_free (call);
}

/* Who calls: uid (counted against the limits of holds and inhibitors)
 * and pid (shown by ListInhibitors), asked of the bus in one round trip
 * (GetConnectionCredentials) without blocking. */
#define PP_CALLER_TIMEOUT_MS 5000

static void
on_caller_credentials (GObject *source, GAsyncResult *res, gpointer user_data)
{
  PpCall *call = user_data;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res,
                                                             &call->caller_error);

  if (reply != NULL)
    {
      g_autoptr(GVariant) creds = g_variant_get_child_value (reply, 0);

      if (!g_variant_lookup (creds, "UnixUserID", "u", &call->uid))
        call->uid = PP_TOKEN_UID_UNKNOWN;
      if (!g_variant_lookup (creds, "ProcessID", "u", &call->pid))
        g_set_error_literal (&call->caller_error, PP_ERROR, PP_ERROR_FAILED,
                             "the bus does not know the caller's pid");
    }
  call_run (call);
}

static void
call_identify_caller (PpCall *call)
{
  GDBusConnection *connection = g_dbus_method_invocation_get_connection (call->invocation);
  const char *sender = g_dbus_method_invocation_get_sender (call->invocation);

  if (connection == NULL || sender == NULL)
    {
      call->caller_error = g_error_new_literal (PP_ERROR, PP_ERROR_FAILED,
                                                "the caller has no bus name");
      call_run (call);
      return;
    }
  g_dbus_connection_call (connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetConnectionCredentials",
                          g_variant_new ("(s)", sender), G_VARIANT_TYPE ("(a{sv})"),
                          G_DBUS_CALL_FLAGS_NONE, PP_CALLER_TIMEOUT_MS, NULL,
                          on_caller_credentials, call);
}

/* Authorized (or open): resolve, check, identify, run. */
static void
call_proceed (PpCall *call)
{
  const PpMethod *method = call->method;
  g_autoptr(GError) error = NULL;

  if (method->resolve == PP_RESOLVE_DEVICE ||
      (method->resolve == PP_RESOLVE_DEVICE_OR_ALL && *call->device != '\0'))
    call->dev = pp_manager_resolve_device (call->self->manager, call->device, &error);
  if (error == NULL && method->check != NULL)
    method->check (call->self, call, &error);
  if (error != NULL)
    {
      return_error (call->invocation, error);
      call_free (call);
    }
  else if (method->caller)
    call_identify_caller (call);
  else
    call_run (call);
}

static void
on_call_authorized (GObject *source, GAsyncResult *res, gpointer user_data)
{
  PpCall *call = user_data;
  g_autoptr(GError) error = NULL;

  if (!pp_auth_check_finish (res, &error))
    {
      return_error (call->invocation, error);
      call_free (call);
      return;
    }
  call_proceed (call);
}

/* Returns what the handle-* signal returns: handled; the invocation is
 * answered once polkit and the bus have. */
static gboolean
serve (PpCall *call)
{
  if (call->method->action_id == NULL)
    call_proceed (call);
  else
    pp_auth_check (call->invocation, call->method->action_id, call->interactive,
                   on_call_authorized, call);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
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

/* Every managed device's state is read once, into one array (the
 * blocker search meets the managed devices again: it finds them in
 * @memo), then the rows, each serialised into the reply as it is made
 * (pp_device_rows_add()). What a row shows of the runtime-PM attributes
 * is read now, never kept (pp-power-state.h); the rest comes from the
 * device table and the tree. The states and the memo go before the
 * reply is sent. */
static gboolean
handle_list_devices (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  GPtrArray *devices = pp_manager_list_devices (self->manager);
  PpDeviceRows *rows = NULL;
  g_autoptr(PpBlockingMemo) memo = NULL;
  g_autofree PpDeviceStatus *statuses = NULL;

  give_back_memory ();
  rows = pp_device_rows_new (devices->len);
  memo = pp_power_ops_blocking_memo_new ();
  statuses = g_new (PpDeviceStatus, MAX (devices->len, 1));

  for (guint i = 0; i < devices->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (devices, i);
      PpDeviceStatus *status = &statuses[i];

      pp_manager_read_device_status (self->manager, dev, status);
      pp_power_ops_blocking_memo_add (memo, dev->info->syspath, status->power.runtime_status,
                                      status->power.control, status->held);
    }
  for (guint i = 0; i < devices->len; i++)
    device_status_to_variant (self, g_ptr_array_index (devices, i), &statuses[i], memo, rows);
  g_clear_pointer (&memo, pp_power_ops_blocking_memo_free);
  g_clear_pointer (&statuses, g_free);
  /* GDBus makes a second copy of the reply, grown by doubling: the
   * pages of the states and the memo go back first */
  give_back_memory ();
  pp_dbus_manager_complete_list_devices (skeleton, invocation, pp_device_rows_end (rows));
  give_back_memory ();
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
run_get_device (PpService *self, PpCall *call, GError **error)
{
  pp_dbus_manager_complete_get_device (self->skeleton, call->invocation,
                                       device_to_variant (self, call->dev));
  return TRUE;
}

static const PpMethod method_get_device = { .resolve = PP_RESOLVE_DEVICE, .run = run_get_device };

static gboolean
handle_get_device (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                   const char *arg, PpService *self)
{
  PpCall *call = call_new (self, invocation, &method_get_device);

  call->device = g_strdup (arg);
  return serve (call);
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

/* answered when the sleep is over */
static gboolean
run_sleep (PpService *self, PpCall *call, GError **error)
{
  pp_sleep_sleep_async (self->sleep, call->state, call->interactive, on_sleep_done,
                        call->invocation);
  return TRUE;
}

static const PpMethod method_sleep = { .action_id = PP_POLKIT_ACTION_SLEEP, .run = run_sleep };

static gboolean
handle_suspend (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                gboolean interactive, PpService *self)
{
  PpCall *call = call_new (self, invocation, &method_sleep);

  call->interactive = interactive;
  call->state = "mem";
  return serve (call);
}

static gboolean
handle_hibernate (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                  gboolean interactive, PpService *self)
{
  PpCall *call = call_new (self, invocation, &method_sleep);

  call->interactive = interactive;
  call->state = "disk";
  return serve (call);
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

static gboolean
run_reload (PpService *self, PpCall *call, GError **error)
{
  g_autoptr(GPtrArray) problems = self->reload (self->reload_data);

  if (problems->len > 0)
    {
      g_autofree char *text = NULL;

      g_ptr_array_add (problems, NULL);
      text = g_strjoinv ("\n", (char **) problems->pdata);
      g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                   "configuration reloaded with problems (valid settings applied):\n%s", text);
      return FALSE;
    }
  pp_dbus_manager_complete_reload (self->skeleton, call->invocation);
  return TRUE;
}

static const PpMethod method_reload = { .action_id = PP_POLKIT_ACTION_MANAGE, .run = run_reload };

static gboolean
handle_reload (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  return serve (call_new (self, invocation, &method_reload));
}

static gboolean
run_set_override (PpService *self, PpCall *call, GError **error)
{
  if (!pp_manager_set_override (self->manager, call->dev, call->key, call->value, error))
    return FALSE;
  pp_dbus_manager_complete_set_override (self->skeleton, call->invocation);
  return TRUE;
}

static const PpMethod method_set_override = {
  .action_id = PP_POLKIT_ACTION_MANAGE, .resolve = PP_RESOLVE_DEVICE, .run = run_set_override,
};

static gboolean
handle_set_override (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                     const char *arg, const char *key, const char *value, PpService *self)
{
  PpCall *call = call_new (self, invocation, &method_set_override);

  call->device = g_strdup (arg);
  call->key = g_strdup (key);
  call->value = g_strdup (value);
  return serve (call);
}

static gboolean
run_clear_overrides (PpService *self, PpCall *call, GError **error)
{
  if (!pp_manager_clear_overrides (self->manager, call->dev, error))
    return FALSE;
  pp_dbus_manager_complete_clear_overrides (self->skeleton, call->invocation);
  return TRUE;
}

static const PpMethod method_clear_overrides = {
  .action_id = PP_POLKIT_ACTION_MANAGE, .resolve = PP_RESOLVE_DEVICE, .run = run_clear_overrides,
};

static gboolean
handle_clear_overrides (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                        const char *arg, PpService *self)
{
  PpCall *call = call_new (self, invocation, &method_clear_overrides);

  call->device = g_strdup (arg);
  return serve (call);
}

/* PowerDown and PowerUp resolve their argument themselves (a device or,
 * with subtree, the devices below it). */
static gboolean
run_power_down (PpService *self, PpCall *call, GError **error)
{
  g_autoptr(GPtrArray) rows = pp_power_ops_power_down (self->power_ops, call->device, call->subtree,
                                                       call->mode, error);

  if (rows == NULL)
    return FALSE;
  pp_dbus_manager_complete_power_down (self->skeleton, call->invocation, rows_to_variant (rows, "a(sss)", add_power_result));
  return TRUE;
}

static const PpMethod method_power_down = { .action_id = PP_POLKIT_ACTION_MANAGE, .run = run_power_down };

static gboolean
handle_power_down (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                   const char *arg, gboolean subtree, const char *mode, PpService *self)
{
  PpCall *call = call_new (self, invocation, &method_power_down);

  call->device = g_strdup (arg);
  call->subtree = subtree;
  call->mode = g_strdup (mode);
  return serve (call);
}

static gboolean
run_power_up (PpService *self, PpCall *call, GError **error)
{
  g_autoptr(GPtrArray) rows = pp_power_ops_power_up (self->power_ops, call->device, call->subtree,
                                                     error);

  if (rows == NULL)
    return FALSE;
  pp_dbus_manager_complete_power_up (self->skeleton, call->invocation, rows_to_variant (rows, "a(sss)", add_power_result));
  return TRUE;
}

static const PpMethod method_power_up = { .action_id = PP_POLKIT_ACTION_MANAGE, .run = run_power_up };

static gboolean
handle_power_up (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                 const char *arg, gboolean subtree, PpService *self)
{
  PpCall *call = call_new (self, invocation, &method_power_up);

  call->device = g_strdup (arg);
  call->subtree = subtree;
  return serve (call);
}

/* A hold works without the holder's pid (ListInhibitors shows 0). */
static gboolean
run_hold (PpService *self, PpCall *call, GError **error)
{
  int fd = -1;

  if (call->caller_error != NULL)
    g_debug ("Cannot get the pid of the holder: %s", call->caller_error->message);
  if (!pp_power_ops_hold (self->power_ops, call->device,
                          &(PpTokenRequest) { who_or_sender (call->invocation, call->who), call->why,
                                              call->uid, call->pid },
                          &fd, error))
    return FALSE;
  return_fd (call->invocation, fd, pp_dbus_manager_complete_hold, self->skeleton);
  return TRUE;
}

static const PpMethod method_hold = {
  .action_id = PP_POLKIT_ACTION_INHIBIT, .caller = TRUE, .run = run_hold,
};

static gboolean
handle_hold (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, GUnixFDList *fd_list,
             const char *arg, const char *who, const char *why, PpService *self)
{
  PpCall *call = call_new (self, invocation, &method_hold);

  call->device = g_strdup (arg);
  call->who = g_strdup (who);
  call->why = g_strdup (why);
  return serve (call);
}

/* a bad what is refused before the bus is asked who calls */
static gboolean
check_inhibit (PpService *self, PpCall *call, GError **error)
{
  gboolean idle, lid;

  return pp_token_parse_what (call->what, &idle, &lid, error);
}

static gboolean
run_inhibit (PpService *self, PpCall *call, GError **error)
{
  int fd = -1;

  if (call->caller_error != NULL)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_FAILED, "cannot identify the caller: %s",
                   call->caller_error->message);
      return FALSE;
    }
  if (!pp_activity_inhibit (self->activity, call->what,
                            &(PpTokenRequest) { who_or_sender (call->invocation, call->who), call->why,
                                                call->uid, call->pid },
                            &fd, error))
    return FALSE;
  return_fd (call->invocation, fd, pp_dbus_manager_complete_inhibit, self->skeleton);
  return TRUE;
}

static const PpMethod method_inhibit = {
  .action_id = PP_POLKIT_ACTION_INHIBIT, .check = check_inhibit, .caller = TRUE, .run = run_inhibit,
};

static gboolean
handle_inhibit (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, GUnixFDList *fd_list,
                const char *what, const char *who, const char *why, PpService *self)
{
  PpCall *call = call_new (self, invocation, &method_inhibit);

  call->what = g_strdup (what);
  call->who = g_strdup (who);
  call->why = g_strdup (why);
  return serve (call);
}

static gboolean
run_revert (PpService *self, PpCall *call, GError **error)
{
  int fd = -1;

  if (call->caller_error != NULL)
    g_debug ("Cannot get the pid of the caller of Revert: %s", call->caller_error->message);
  if (!pp_reverts_add (self->reverts, (const char * const *) call->devices,
                       &(PpTokenRequest) { who_or_sender (call->invocation, call->who), call->why,
                                           call->uid, call->pid },
                       &fd, error))
    return FALSE;
  return_fd (call->invocation, fd, pp_dbus_manager_complete_revert, self->skeleton);
  return TRUE;
}

static const PpMethod method_revert = {
  .action_id = PP_POLKIT_ACTION_MANAGE, .caller = TRUE, .run = run_revert,
};

static gboolean
handle_revert (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, GUnixFDList *fd_list,
               const char * const *devices, const char *who, const char *why, PpService *self)
{
  PpCall *call = call_new (self, invocation, &method_revert);

  call->devices = g_strdupv ((char **) devices);
  call->who = g_strdup (who);
  call->why = g_strdup (why);
  return serve (call);
}

static gboolean
handle_list_inhibitors (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(ssssu)"));
  g_autoptr(GPtrArray) holds = pp_power_ops_list_holds (self->power_ops);
  g_autoptr(GPtrArray) inhibitors = pp_activity_list_inhibitors (self->activity);

  add_token_infos (&b, holds);
  add_token_infos (&b, inhibitors);
  pp_dbus_manager_complete_list_inhibitors (skeleton, invocation, g_variant_builder_end (&b));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* Explain: open to everyone, like GetDevice. */
static gboolean
run_explain (PpService *self, PpCall *call, GError **error)
{
  g_autoptr(GPtrArray) rows = pp_manager_explain (self->manager, call->dev);

  pp_dbus_manager_complete_explain (self->skeleton, call->invocation,
                                    rows_to_variant (rows, "a(sssss)", add_explain_row));
  return TRUE;
}

static const PpMethod method_explain = { .resolve = PP_RESOLVE_DEVICE, .run = run_explain };

static gboolean
handle_explain (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                const char *arg, PpService *self)
{
  PpCall *call = call_new (self, invocation, &method_explain);

  call->device = g_strdup (arg);
  return serve (call);
}

/* GetStatistics (org.powerpolicy1.Manager.xml): open to everyone; "" means
 * every device. */
static gboolean
handle_explain_platform (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  g_autoptr(GPtrArray) rows = pp_manager_explain_platform (self->manager);

  pp_dbus_manager_complete_explain_platform (skeleton, invocation,
                                             rows_to_variant (rows, "a(sssss)", add_explain_row));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
run_get_statistics (PpService *self, PpCall *call, GError **error)
{
  PpDeviceRows *reply;
  g_autoptr(GArray) rows = NULL;

  if (call->dev == NULL)
    give_back_memory ();
  rows = pp_manager_get_statistics (self->manager, call->dev, FALSE, error);
  if (rows == NULL)
    return FALSE;
  /* serialised row by row (pp-device-row.h), into one buffer: sent as
   * a tree, it would be freed by GDBus' worker thread once written,
   * after the trim; serialised at the end, its tree of five small
   * GVariants a row, freed at once, left holes in the heap in which
   * GDBus' copy of the next big reply grew and was moved */
  reply = pp_device_rows_new_sized (rows->len, 96);
  for (guint i = 0; i < rows->len; i++)
    {
      const PpManagerStatsRow *r = &g_array_index (rows, PpManagerStatsRow, i);

      pp_device_rows_add_value (reply, g_variant_new ("(sdtt)", r->path, r->suspended_share,
                                                      r->active_ms, r->suspended_ms));
    }
  pp_dbus_manager_complete_get_statistics (self->skeleton, call->invocation,
                                           pp_device_rows_end_as (reply,
                                                                  G_VARIANT_TYPE ("a(sdtt)")));
  if (call->dev == NULL)
    {
      g_clear_pointer (&rows, g_array_unref);
      give_back_memory ();
    }
  return TRUE;
}

static const PpMethod method_get_statistics = {
  .resolve = PP_RESOLVE_DEVICE_OR_ALL, .run = run_get_statistics,
};

static gboolean
handle_get_statistics (PpDbusManager *skeleton, GDBusMethodInvocation *invocation,
                       const char *arg, PpService *self)
{
  PpCall *call = call_new (self, invocation, &method_get_statistics);

  call->device = g_strdup (arg);
  return serve (call);
}

/* GetDeviceStatistics: GetStatistics("") with what pmctl stats prints of
 * each device; open to everyone. */
static gboolean
handle_get_device_statistics (PpDbusManager         *skeleton,
                              GDBusMethodInvocation *invocation,
                              PpService             *self)
{
  PpDeviceRows *reply;
  g_autoptr(GArray) rows = NULL;

  give_back_memory ();
  rows = pp_manager_get_statistics (self->manager, NULL, TRUE, NULL);
  /* row by row, as GetStatistics */
  reply = pp_device_rows_new_sized (rows != NULL ? rows->len : 0, 128);
  for (guint i = 0; rows != NULL && i < rows->len; i++)
    {
      const PpManagerStatsRow *r = &g_array_index (rows, PpManagerStatsRow, i);

      pp_device_rows_add_value (reply, g_variant_new ("(sssbdtt)", r->path, r->class,
                                                      r->runtime_status, r->control_auto,
                                                      r->suspended_share, r->active_ms,
                                                      r->suspended_ms));
    }
  pp_dbus_manager_complete_get_device_statistics (skeleton, invocation,
                                                  pp_device_rows_end_as (reply,
                                                                         G_VARIANT_TYPE ("a(sssbdtt)")));
  g_clear_pointer (&rows, g_array_unref);
  give_back_memory ();
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* GetClassStatistics (org.powerpolicy1.Manager.xml): open to everyone. */
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

/* GetSleepHistory (org.powerpolicy1.Manager.xml): open to everyone. */
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
  PpSleepCheckInput input = { NULL };
  g_autoptr(GPtrArray) rows = NULL;

  pp_sleep_stats_read_check (&input);
  rows = pp_sleep_check (&input, sc->mem_sleep, sc->hibernate_mode);
  pp_sleep_check_input_clear (&input);
  pp_dbus_manager_complete_check_sleep (skeleton, invocation,
                                        rows_to_variant (rows, "a(sbss)", add_sleep_check_row));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* ListChanges and ListOverrides: open to everyone, like ListDevices. */
static gboolean
handle_list_changes (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  g_autoptr(GPtrArray) changes = pp_manager_list_changes (self->manager);

  pp_dbus_manager_complete_list_changes (skeleton, invocation,
                                         rows_to_variant (changes, "a(ssss)", add_change));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
handle_list_overrides (PpDbusManager *skeleton, GDBusMethodInvocation *invocation, PpService *self)
{
  g_autoptr(GPtrArray) rows = pp_manager_list_overrides (self->manager);

  pp_dbus_manager_complete_list_overrides (skeleton, invocation,
                                           rows_to_variant (rows, "a(sss)", add_override_row));
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
        g_variant_builder_add (&b, "{sv}", PP_DEVICE_KEY_CONTROL, g_variant_new_string (value));
      else if (g_str_equal (attr, PP_ATTR_WAKEUP))
        g_variant_builder_add (&b, "{sv}", PP_DEVICE_KEY_WAKEUP, g_variant_new_string (value));
      else if (g_str_equal (attr, PP_ATTR_DELAY))
        g_variant_builder_add (&b, "{sv}", PP_DEVICE_KEY_AUTOSUSPEND_DELAY_MS,
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
  g_signal_connect (skeleton, "handle-explain-platform", G_CALLBACK (handle_explain_platform), self);
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
  bind (self, self->manager, "power-source", "power-source");
  bind (self, self->manager, "dry-run", "dry-run");
  bind (self, self->manager, "write-failures", "write-failures");
  bind (self, self->manager, "last-policy-pass-sec", "last-policy-pass-sec");
  bind (self, self->manager, "power-profile", "power-profile");
  bind (self, self->sleep, "backend", "backend");
  bind (self, self->sleep, "video-quirks", "video-quirks");
  bind (self, pp_sleep_get_history (self->sleep), "last-sleep", "last-sleep");
  bind (self, self->activity, "user-idle", "user-idle");
  bind (self, self->activity, "idle-timeout-sec", "idle-timeout-sec");
  bind (self, self->activity, "lid-closed", "lid-closed");
  bind (self, self->activity, "docked", "docked");
}

gboolean
pp_service_start (PpService *self, GDBusConnection *bus, GError **error)
{
  self->bus = g_object_ref (bus);
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
pp_service_new (PpManager           *manager,
                PpActivity          *activity,
                PpSleep             *sleep,
                PpPowerOps          *power_ops,
                PpReverts           *reverts,
                PpServiceReloadFunc  reload,
                gpointer             reload_data)
{
  PpService *self = g_object_new (PP_TYPE_SERVICE, NULL);

  self->manager = g_object_ref (manager);
  self->activity = g_object_ref (activity);
  self->sleep = g_object_ref (sleep);
  self->power_ops = g_object_ref (power_ops);
  self->reverts = reverts;
  self->reload = reload;
  self->reload_data = reload_data;
  return self;
}
