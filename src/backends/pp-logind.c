/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-logind"

#include "config.h"

#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "pp-logind.h"

#define LOGIND_NAME      "org.freedesktop.login1"
#define LOGIND_PATH      "/org/freedesktop/login1"
#define LOGIND_INTERFACE "org.freedesktop.login1.Manager"

/* A failed Inhibit is tried again (logind just appeared on the bus and
 * may not serve its object yet, or is restarting), a few times. */
#define INHIBIT_RETRY_MS  500
#define INHIBIT_ATTEMPTS  6

typedef struct {
  int       fd;          /* -1: not held */
  gboolean  wanted;      /* keep it when the pending call returns */
  gboolean  pending;
  guint     retry_id;    /* a retry is scheduled */
  guint     failures;    /* since it was last held */
  const char *what;
  const char *mode;
  const char *why;
  PpLogind  *owner;      /* not a reference: retry_id dies with it */
} Inhibitor;

struct _PpLogind {
  GObject          parent_instance;
  GDBusConnection *bus;
  guint            prepare_id;
  GCancellable    *cancellable;
  Inhibitor        sleep_delay;
  Inhibitor        lid_block;
};

enum {
  SIGNAL_PREPARE_FOR_SLEEP,
  N_SIGNALS,
};
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (PpLogind, pp_logind, G_TYPE_OBJECT)

static void
on_prepare_for_sleep (GDBusConnection *bus,
                      const char      *sender,
                      const char      *path,
                      const char      *iface,
                      const char      *signal,
                      GVariant        *params,
                      gpointer         user_data)
{
  PpLogind *self = PP_LOGIND (user_data);
  gboolean start;

  if (!g_variant_is_of_type (params, G_VARIANT_TYPE ("(b)")))
    return;
  g_variant_get (params, "(b)", &start);
  g_debug ("PrepareForSleep(%s)", start ? "true" : "false");
  g_signal_emit (self, signals[SIGNAL_PREPARE_FOR_SLEEP], 0, start);
}

typedef struct {
  PpLogind  *self;
  Inhibitor *inh;
} InhibitCall;

static gboolean on_inhibit_retry (gpointer user_data);

/* Keep the fd logind handed out, retry or give up. */
static void
inhibit_reply_handle (Inhibitor *inh, GVariant *reply, GUnixFDList *fds, const GError *error)
{
  g_autoptr(GError) fd_error = NULL;
  gint32 idx;
  int fd;

  inh->pending = FALSE;
  if (reply == NULL)
    {
      if (inh->wanted && ++inh->failures < INHIBIT_ATTEMPTS)
        {
          g_debug ("Cannot take logind's %s %s inhibitor (%s), trying again", inh->what, inh->mode,
                   error->message);
          inh->retry_id = g_timeout_add (INHIBIT_RETRY_MS, on_inhibit_retry, inh);
        }
      else
        g_warning ("Cannot take logind's %s %s inhibitor: %s", inh->what, inh->mode, error->message);
      return;
    }
  g_variant_get (reply, "(h)", &idx);
  fd = fds ? g_unix_fd_list_get (fds, idx, &fd_error) : -1;
  if (fd < 0)
    {
      g_warning ("logind returned no fd for the %s inhibitor", inh->what);
      return;
    }
  if (!inh->wanted)
    {
      close (fd);
      return;
    }
  inh->fd = fd;
  inh->failures = 0;
  g_debug ("Took logind's %s %s inhibitor (fd %d)", inh->what, inh->mode, fd);
}

static void
on_inhibit_reply (GObject *source, GAsyncResult *res, gpointer user_data)
{
  g_autofree InhibitCall *call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GVariant) reply = NULL;

  reply = g_dbus_connection_call_with_unix_fd_list_finish (G_DBUS_CONNECTION (source), &fds, res, &error);
  /* cancelled: @call->self is being finalized, its inhibitors with it */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  inhibit_reply_handle (call->inh, reply, fds, error);
  g_object_unref (call->self);
}

static void
inhibitor_take (PpLogind *self, Inhibitor *inh, const char *why)
{
  InhibitCall *call;

  inh->wanted = TRUE;
  inh->why = why;
  if (inh->fd >= 0 || inh->pending || inh->retry_id != 0)
    return;
  inh->pending = TRUE;
  call = g_new0 (InhibitCall, 1);
  call->self = g_object_ref (self);
  call->inh = inh;
  g_dbus_connection_call_with_unix_fd_list (self->bus, LOGIND_NAME, LOGIND_PATH, LOGIND_INTERFACE,
                                            "Inhibit",
                                            g_variant_new ("(ssss)", inh->what, "powerpolicy", why, inh->mode),
                                            G_VARIANT_TYPE ("(h)"), G_DBUS_CALL_FLAGS_NONE, -1,
                                            NULL, self->cancellable, on_inhibit_reply, call);
}

static gboolean
on_inhibit_retry (gpointer user_data)
{
  Inhibitor *inh = user_data;

  inh->retry_id = 0;
  if (inh->wanted)
    inhibitor_take (inh->owner, inh, inh->why);
  return G_SOURCE_REMOVE;
}

static void
inhibitor_release (Inhibitor *inh)
{
  inh->wanted = FALSE;
  inh->failures = 0;
  g_clear_handle_id (&inh->retry_id, g_source_remove);
  if (inh->fd >= 0)
    {
      g_debug ("Released logind's %s %s inhibitor", inh->what, inh->mode);
      close (inh->fd);
      inh->fd = -1;
    }
}

void
pp_logind_take_sleep_delay (PpLogind *self)
{
  inhibitor_take (self, &self->sleep_delay, "Preparing devices and video for sleep");
}

void
pp_logind_release_sleep_delay (PpLogind *self)
{
  inhibitor_release (&self->sleep_delay);
}

void
pp_logind_set_lid_block (PpLogind *self, gboolean block)
{
  if (block)
    inhibitor_take (self, &self->lid_block, "powerpolicy handles the lid switch");
  else
    inhibitor_release (&self->lid_block);
}

static void
on_call_reply (GObject *source, GAsyncResult *res, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &error);

  if (reply == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

void
pp_logind_call (PpLogind            *self,
                const char          *method,
                gboolean             interactive,
                GAsyncReadyCallback  callback,
                gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);
  GVariant *params = g_str_equal (method, "LockSessions") ? NULL : g_variant_new ("(b)", interactive);

  g_info ("Asking logind: %s", method);
  g_dbus_connection_call (self->bus, LOGIND_NAME, LOGIND_PATH, LOGIND_INTERFACE, method, params,
                          NULL, interactive ? G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION
                                            : G_DBUS_CALL_FLAGS_NONE,
                          -1, NULL, on_call_reply, task);
}

gboolean
pp_logind_call_finish (PpLogind *self, GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

PpLogind *
pp_logind_new (GDBusConnection *bus, GError **error)
{
  g_autoptr(GVariant) reply = NULL;
  gboolean has_owner = FALSE;

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "NameHasOwner",
                                       g_variant_new ("(s)", LOGIND_NAME), G_VARIANT_TYPE ("(b)"),
                                       G_DBUS_CALL_FLAGS_NONE, 5000, NULL, error);
  if (reply == NULL)
    return NULL;
  g_variant_get (reply, "(b)", &has_owner);
  if (!has_owner)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s is not on the system bus", LOGIND_NAME);
      return NULL;
    }

  return pp_logind_new_present (bus);
}

PpLogind *
pp_logind_new_present (GDBusConnection *bus)
{
  PpLogind *self = g_object_new (PP_TYPE_LOGIND, NULL);

  self->bus = g_object_ref (bus);
  self->prepare_id = g_dbus_connection_signal_subscribe (bus, LOGIND_NAME, LOGIND_INTERFACE,
                                                         "PrepareForSleep", LOGIND_PATH, NULL,
                                                         G_DBUS_SIGNAL_FLAGS_NONE,
                                                         on_prepare_for_sleep, self, NULL);
  return self;
}

static void
pp_logind_finalize (GObject *object)
{
  PpLogind *self = PP_LOGIND (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  inhibitor_release (&self->sleep_delay);
  inhibitor_release (&self->lid_block);
  if (self->prepare_id)
    g_dbus_connection_signal_unsubscribe (self->bus, self->prepare_id);
  g_clear_object (&self->bus);
  G_OBJECT_CLASS (pp_logind_parent_class)->finalize (object);
}

static void
pp_logind_class_init (PpLogindClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pp_logind_finalize;
  signals[SIGNAL_PREPARE_FOR_SLEEP] =
    g_signal_new ("prepare-for-sleep", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
}

static void
pp_logind_init (PpLogind *self)
{
  self->cancellable = g_cancellable_new ();
  self->sleep_delay = (Inhibitor) { .fd = -1, .what = "sleep", .mode = "delay", .owner = self };
  self->lid_block = (Inhibitor) { .fd = -1, .what = "handle-lid-switch", .mode = "block", .owner = self };
}
