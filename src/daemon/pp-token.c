/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-token"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib-unix.h>

#include "pp-error.h"
#include "pp-token.h"

struct _PpToken {
  int              fd;         /* our end of the socket pair */
  guint            watch_id;
  PpTokenReleased  released;
  gpointer         user_data;
};

static gboolean
on_token_fd (int fd, GIOCondition condition, gpointer user_data)
{
  PpToken *token = user_data;

  if (!(condition & (G_IO_HUP | G_IO_ERR)))
    {
      char buf[64];
      ssize_t n = read (fd, buf, sizeof buf);

      /* what the holder writes means nothing; only the end of it counts */
      if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN)))
        return G_SOURCE_CONTINUE;
    }
  token->watch_id = 0;
  /* may free @token */
  token->released (token->user_data);
  return G_SOURCE_REMOVE;
}

PpToken *
pp_token_new (PpTokenReleased   released,
              gpointer          user_data,
              GUnixFDList     **fd_list,
              GError          **error)
{
  g_autoptr(GUnixFDList) list = g_unix_fd_list_new ();
  PpToken *token;
  int fds[2];
  int index;

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) < 0)
    {
      pp_error_set_from_errno (error, errno, "cannot create the fd to return");
      return NULL;
    }
  /* the list holds its own copy: ours must go, or the release would
   * never be seen */
  index = g_unix_fd_list_append (list, fds[1], error);
  close (fds[1]);
  if (index < 0)
    {
      close (fds[0]);
      return NULL;
    }
  token = g_new0 (PpToken, 1);
  token->fd = fds[0];
  token->released = released;
  token->user_data = user_data;
  token->watch_id = g_unix_fd_add (token->fd, G_IO_IN | G_IO_HUP | G_IO_ERR, on_token_fd, token);
  *fd_list = g_steal_pointer (&list);
  return token;
}

void
pp_token_free (PpToken *token)
{
  if (token == NULL)
    return;
  g_clear_handle_id (&token->watch_id, g_source_remove);
  close (token->fd);
  g_free (token);
}

gboolean
pp_token_check_text (GDBusMethodInvocation *invocation, const char *who, const char *why)
{
  if (strlen (who) <= PP_TOKEN_TEXT_MAX && strlen (why) <= PP_TOKEN_TEXT_MAX)
    return TRUE;
  g_dbus_method_invocation_return_error (invocation, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                                         "who and why are limited to %d bytes",
                                         PP_TOKEN_TEXT_MAX);
  return FALSE;
}

typedef struct {
  PpCallerPidReady ready;
  gpointer         user_data;
} PidRequest;

static void
on_caller_pid (GObject *source, GAsyncResult *res, gpointer user_data)
{
  PidRequest *req = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &error);
  guint32 pid = 0;

  if (reply != NULL)
    g_variant_get (reply, "(u)", &pid);
  req->ready (pid, error, req->user_data);
  g_free (req);
}

void
pp_token_get_caller_pid (GDBusMethodInvocation *invocation,
                         PpCallerPidReady       ready,
                         gpointer               user_data)
{
  GDBusConnection *connection = g_dbus_method_invocation_get_connection (invocation);
  const char *sender = g_dbus_method_invocation_get_sender (invocation);
  PidRequest *req;

  if (connection == NULL || sender == NULL)
    {
      g_autoptr(GError) error = g_error_new_literal (PP_ERROR, PP_ERROR_FAILED,
                                                     "the caller has no bus name");
      ready (0, error, user_data);
      return;
    }
  req = g_new0 (PidRequest, 1);
  req->ready = ready;
  req->user_data = user_data;
  g_dbus_connection_call (connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                          g_variant_new ("(s)", sender), G_VARIANT_TYPE ("(u)"),
                          G_DBUS_CALL_FLAGS_NONE, 5000, NULL, on_caller_pid, req);
}
