/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-token"

#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib-unix.h>

#include "pp-error.h"
#include "pp-token.h"
#include "pp-util.h"


struct _PpTokenRegistry {
  guint        limit_per_user;
  guint        limit_total;
  guint        n_tokens;
  GHashTable  *n_by_uid;   /* uid → count, only uids with tokens */
};

struct _PpToken {
  PpTokenRegistry *registry;   /* a reference */
  int              fd;         /* our end of the socket pair */
  guint32          uid;
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

PpTokenRegistry *
pp_token_registry_new (void)
{
  PpTokenRegistry *self = g_rc_box_new0 (PpTokenRegistry);

  self->limit_per_user = PP_TOKEN_DEFAULT_PER_USER;
  self->limit_total = PP_TOKEN_DEFAULT_TOTAL;
  self->n_by_uid = g_hash_table_new (NULL, NULL);
  return self;
}

PpTokenRegistry *
pp_token_registry_ref (PpTokenRegistry *self)
{
  return g_rc_box_acquire (self);
}

static void
registry_clear (gpointer data)
{
  PpTokenRegistry *self = data;

  g_hash_table_unref (self->n_by_uid);
}

void
pp_token_registry_unref (PpTokenRegistry *self)
{
  if (self != NULL)
    g_rc_box_release_full (self, registry_clear);
}

void
pp_token_registry_set_limits (PpTokenRegistry *self, guint per_user, guint total)
{
  self->limit_total = MIN (total, PP_TOKEN_TOTAL_CEILING);
  self->limit_per_user = MIN (per_user, self->limit_total);
}

guint
pp_token_registry_count (PpTokenRegistry *self)
{
  return self->n_tokens;
}

guint
pp_token_registry_count_for_uid (PpTokenRegistry *self, guint32 uid)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->n_by_uid, GUINT_TO_POINTER (uid)));
}

static void
count_token (PpTokenRegistry *self, guint32 uid, int delta)
{
  guint n = pp_token_registry_count_for_uid (self, uid);

  self->n_tokens += delta;
  n += delta;
  if (n == 0)
    g_hash_table_remove (self->n_by_uid, GUINT_TO_POINTER (uid));
  else
    g_hash_table_insert (self->n_by_uid, GUINT_TO_POINTER (uid), GUINT_TO_POINTER (n));
}

static gboolean
check_limits (PpTokenRegistry *self, guint32 uid, GError **error)
{
  guint n_uid = pp_token_registry_count_for_uid (self, uid);

  if (self->n_tokens >= self->limit_total)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_REFUSED,
                   "too many holds and inhibitors: %u in total (MaxInhibitors=%u)",
                   self->n_tokens, self->limit_total);
      return FALSE;
    }
  if (n_uid >= self->limit_per_user)
    {
      if (uid == PP_TOKEN_UID_UNKNOWN)
        g_set_error (error, PP_ERROR, PP_ERROR_REFUSED,
                     "too many holds and inhibitors of callers of unknown uid: %u (MaxInhibitorsPerUser=%u)",
                     n_uid, self->limit_per_user);
      else
        g_set_error (error, PP_ERROR, PP_ERROR_REFUSED,
                     "too many holds and inhibitors of uid %u: %u (MaxInhibitorsPerUser=%u)",
                     uid, n_uid, self->limit_per_user);
      return FALSE;
    }
  return TRUE;
}

PpToken *
pp_token_new (PpTokenRegistry *registry,
              guint32          uid,
              PpTokenReleased  released,
              gpointer         user_data,
              int             *out_fd,
              GError         **error)
{
  PpToken *token;
  int fds[2];

  if (!check_limits (registry, uid, error))
    return NULL;
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) < 0)
    {
      pp_error_set_from_errno (error, errno, "cannot create the fd to return");
      return NULL;
    }
  token = g_new0 (PpToken, 1);
  token->registry = pp_token_registry_ref (registry);
  token->fd = fds[0];
  token->uid = uid;
  count_token (registry, uid, +1);
  token->released = released;
  token->user_data = user_data;
  token->watch_id = g_unix_fd_add (token->fd, G_IO_IN | G_IO_HUP | G_IO_ERR, on_token_fd, token);
  *out_fd = fds[1];
  return token;
}

void
pp_token_free (PpToken *token)
{
  if (token == NULL)
    return;
  g_clear_handle_id (&token->watch_id, g_source_remove);
  close (token->fd);
  count_token (token->registry, token->uid, -1);
  pp_token_registry_unref (token->registry);
  g_free (token);
}

gboolean
pp_token_reserve (PpTokenRegistry *registry, guint32 uid, GError **error)
{
  if (!check_limits (registry, uid, error))
    return FALSE;
  count_token (registry, uid, +1);
  return TRUE;
}

void
pp_token_unreserve (PpTokenRegistry *registry, guint32 uid)
{
  count_token (registry, uid, -1);
}

gboolean
pp_token_is_released (PpToken *token)
{
  struct pollfd pfd = { .fd = token->fd, .events = POLLIN };

  if (poll (&pfd, 1, 0) <= 0)
    return FALSE;
  /* data the holder wrote means nothing; the end of its side does */
  return (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

gboolean
pp_token_check_text (const char *who, const char *why, GError **error)
{
  if (strlen (who) > PP_TOKEN_TEXT_MAX || strlen (why) > PP_TOKEN_TEXT_MAX)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                   "who and why are limited to %d bytes", PP_TOKEN_TEXT_MAX);
      return FALSE;
    }
  /* the bus guarantees it for strings; a check costs nothing */
  if (!g_utf8_validate (who, -1, NULL) || !g_utf8_validate (why, -1, NULL))
    {
      g_set_error_literal (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                           "who and why must be UTF-8");
      return FALSE;
    }
  return TRUE;
}

gboolean
pp_token_parse_what (const char *what, gboolean *idle, gboolean *lid, GError **error)
{
  g_auto(GStrv) parts = NULL;

  *idle = *lid = FALSE;
  if (what == NULL || *what == '\0' || strlen (what) > PP_TOKEN_WHAT_MAX)
    {
      g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                   "what must be a colon-separated list of 'idle' and 'lid', each at most once");
      return FALSE;
    }
  parts = g_strsplit (what, ":", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      gboolean *seen;

      if (g_str_equal (parts[i], "idle"))
        seen = idle;
      else if (g_str_equal (parts[i], "lid"))
        seen = lid;
      else
        {
          /* short (checked above) but any bytes: never shown raw */
          g_autofree char *shown = pp_escape_text (parts[i], PP_ESCAPE_SHOWN_MAX);

          g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                       "unknown inhibitor kind '%s' (known: idle, lid)", shown);
          return FALSE;
        }
      if (*seen)
        {
          g_set_error (error, PP_ERROR, PP_ERROR_INVALID_ARGUMENT,
                       "inhibitor kind '%s' given twice", parts[i]);
          return FALSE;
        }
      *seen = TRUE;
    }
  return TRUE;
}

PpTokenInfo *
pp_token_info_new (const char *what, const char *who, const char *why,
                   const char *device, guint32 pid)
{
  PpTokenInfo *info = g_new0 (PpTokenInfo, 1);

  info->what = g_strdup (what);
  info->who = g_strdup (who);
  info->why = g_strdup (why);
  info->device = g_strdup (device ? device : "");
  info->pid = pid;
  return info;
}

void
pp_token_info_free (PpTokenInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->what);
  g_free (info->who);
  g_free (info->why);
  g_free (info->device);
  g_free (info);
}
