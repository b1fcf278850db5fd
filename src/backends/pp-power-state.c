/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-power-state"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "pp-power-state.h"

/* Read the open @fd into @buf and close it, trailing newlines and
 * blanks cut; FALSE (and @buf "") when unreadable, too long or not
 * UTF-8. */
static gboolean
read_fd (int fd, char buf[PP_POWER_STATE_MAX])
{
  ssize_t n;

  buf[0] = '\0';
  if (fd < 0)
    return FALSE;
  do
    n = read (fd, buf, PP_POWER_STATE_MAX - 1);
  while (n < 0 && errno == EINTR);
  close (fd);
  if (n < 0 || n == PP_POWER_STATE_MAX - 1)
    n = 0;
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
    n--;
  buf[n] = '\0';
  if (!g_utf8_validate (buf, n, NULL))
    {
      buf[0] = '\0';
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_at (int dfd, const char *name, char buf[PP_POWER_STATE_MAX])
{
  buf[0] = '\0';
  if (dfd < 0)
    return FALSE;
  return read_fd (openat (dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY), buf);
}

gboolean
pp_power_state_read_one (const char *syspath,
                         const char *name,
                         char        buf[PP_POWER_STATE_MAX])
{
  g_autofree char *path = g_strconcat (syspath, "/power/", name, NULL);

  return read_fd (open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY), buf);
}

void
pp_power_state_read (const char         *syspath,
                     PpPowerStateFields  fields,
                     PpPowerState       *out)
{
  g_autofree char *power = g_strconcat (syspath, "/power", NULL);
  char buf[PP_POWER_STATE_MAX];
  int dfd = open (power, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  memset (out, 0, sizeof *out);
  out->autosuspend_delay_ms = -1;
  if (fields & PP_POWER_STATE_RUNTIME_STATUS)
    read_at (dfd, "runtime_status", out->runtime_status);
  if (out->runtime_status[0] == '\0')
    g_strlcpy (out->runtime_status, "unsupported", sizeof out->runtime_status);
  if (fields & PP_POWER_STATE_CONTROL)
    read_at (dfd, "control", out->control);
  if (fields & PP_POWER_STATE_WAKEUP)
    read_at (dfd, "wakeup", out->wakeup);
  if ((fields & PP_POWER_STATE_DELAY) && read_at (dfd, "autosuspend_delay_ms", buf))
    {
      gint64 v;

      if (g_ascii_string_to_signed (buf, 10, G_MININT32, G_MAXINT32, &v, NULL))
        out->autosuspend_delay_ms = (gint32) v;
    }
  if (dfd >= 0)
    close (dfd);
}
