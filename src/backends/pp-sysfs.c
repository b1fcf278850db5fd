/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-sysfs"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>

#include "pp-names.h"
#include "pp-sysfs.h"

const char * const pp_sysfs_policy_roots[] = { PP_SYSFS_DEVICES, PP_SYSFS_MODULE, NULL };

#define PP_SYSFS_MAX_READ 4096

char *
pp_sysfs_read (const char *path, GError **error)
{
  char buf[PP_SYSFS_MAX_READ];
  ssize_t n;
  int fd;
  int saved;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "%s: %s", path, g_strerror (saved));
      return NULL;
    }
  do
    n = read (fd, buf, sizeof (buf) - 1);
  while (n < 0 && errno == EINTR);
  saved = errno;
  close (fd);
  if (n < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "%s: %s", path, g_strerror (saved));
      return NULL;
    }
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
    n--;
  buf[n] = '\0';
  return g_strdup (buf);
}

char *
pp_read_regular_file_bounded (const char *path, gsize max)
{
  g_autofree char *buf = NULL;
  struct stat st;
  gsize len = 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

  if (fd < 0)
    return NULL;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return NULL;
    }
  buf = g_malloc (max + 1);
  while (len < max)
    {
      ssize_t n = read (fd, buf + len, max - len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += n;
    }
  close (fd);
  buf[len] = '\0';
  return g_steal_pointer (&buf);
}

char *
pp_sysfs_read_opt (const char *dir, const char *relpath)
{
  g_autofree char *path = g_build_filename (dir, relpath, NULL);

  return pp_sysfs_read (path, NULL);
}

gint64
pp_sysfs_read_int (const char *dir, const char *relpath, gint64 fallback)
{
  g_autofree char *value = pp_sysfs_read_opt (dir, relpath);
  gint64 v;

  if (value == NULL || !g_ascii_string_to_signed (value, 10, G_MININT64, G_MAXINT64, &v, NULL))
    return fallback;
  return v;
}

gboolean
pp_sysfs_path_is_under (const char *path, const char *root)
{
  gsize len = strlen (root);

  if (path == NULL || !g_str_has_prefix (path, root) || path[len] != '/' || path[len + 1] == '\0')
    return FALSE;
  /* no ".." or "." components and no empty ones */
  for (const char *p = path + len; *p; p++)
    {
      if (p[0] == '/' && (p[1] == '/' || p[1] == '\0'))
        return FALSE;
      if (p[0] == '/' && p[1] == '.' &&
          (p[2] == '/' || p[2] == '\0' || (p[2] == '.' && (p[3] == '/' || p[3] == '\0'))))
        return FALSE;
    }
  return TRUE;
}

static gboolean
under_any (const char *path, const char * const *roots)
{
  for (guint i = 0; roots[i]; i++)
    if (pp_sysfs_path_is_under (path, roots[i]))
      return TRUE;
  return FALSE;
}

static gboolean
refuse (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* A path the checks do not let through: the policy's own no, not an
 * errno of the kernel's. */
static gboolean
refuse (GError **error, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, message);
  return FALSE;
}

static gboolean
fail_errno (GError **error, int errnum, const char *what, const char *path)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errnum),
               "%s%s: %s", what, path, g_strerror (errnum));
  return FALSE;
}

/* The directory holding the attribute, resolved: symlinks inside sysfs
 * (driver/, subsystem/, firmware_node/) must not lead a write elsewhere. */
static gboolean
check_allowed (const char *path, const char * const *roots, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  char resolved[PATH_MAX];
  g_autofree char *real = NULL;

  if (!under_any (path, roots))
    return refuse (error, "refusing to write %s: not under %s", path, roots[0]);
  if (realpath (dir, resolved) == NULL)
    return fail_errno (error, errno, "", dir);
  real = g_build_filename (resolved, base, NULL);
  if (!under_any (real, roots))
    return refuse (error, "refusing to write %s: it resolves to %s, outside the allowed sysfs directories",
                   path, real);
  return TRUE;
}

/* Open @path without following a final symlink and write @len bytes of
 * @data (@value names them in an error: the text, or NULL for bytes). */
static gboolean
write_value (const char *path, const char *data, gsize len, const char *value, GError **error)
{
  ssize_t n;
  int fd;
  int saved = 0;

  fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
  if (fd < 0)
    {
      saved = errno;
      if (saved == ELOOP)
        {
          g_autofree char *target = g_file_read_link (path, NULL);
          return refuse (error, "refusing to write %s: it is a symlink to %s, not a sysfs attribute",
                         path, target ? target : "?");
        }
      return fail_errno (error, saved, "cannot open ", path);
    }

  do
    n = write (fd, data, len);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    saved = errno;
  else if ((gsize) n != len)
    saved = EIO;
  if (close (fd) < 0 && saved == 0 && errno != EINTR)
    saved = errno;

  if (saved != 0)
    {
      if (value != NULL)
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                     "cannot write '%s' to %s: %s", value, path, g_strerror (saved));
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                     "cannot write %" G_GSIZE_FORMAT " bytes to %s: %s", len, path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

gboolean
pp_sysfs_write (const char          *path,
                const char          *value,
                const char * const  *allowed_roots,
                GError             **error)
{
  return check_allowed (path, allowed_roots, error) &&
         write_value (path, value, strlen (value), value, error);
}

gboolean
pp_sysfs_write_bytes (const char          *path,
                      const void          *data,
                      gsize                len,
                      const char * const  *allowed_roots,
                      GError             **error)
{
  return check_allowed (path, allowed_roots, error) &&
         write_value (path, data, len, NULL, error);
}

gboolean
pp_sysfs_write_at (const char          *dir,
                   const char          *relpath,
                   const char          *value,
                   const char * const  *allowed_roots,
                   GError             **error)
{
  g_autofree char *path = g_build_filename (dir, relpath, NULL);
  g_autoptr(GString) prefix = g_string_new (dir);
  g_auto(GStrv) parts = g_strsplit (relpath, "/", -1);
  guint n = g_strv_length (parts);

  if (!under_any (path, allowed_roots) || (!under_any (dir, allowed_roots) &&
                                           !g_strv_contains (allowed_roots, dir)))
    return refuse (error, "refusing to write %s: not under %s", path, allowed_roots[0]);
  /* every directory between @dir and the attribute must be a directory
   * of sysfs itself, not a link to somewhere else (driver/, subsystem/) */
  for (guint i = 0; i + 1 < n; i++)
    {
      struct stat st;

      g_string_append_c (prefix, '/');
      g_string_append (prefix, parts[i]);
      if (lstat (prefix->str, &st) < 0)
        return fail_errno (error, errno, "cannot write ", path);
      if (S_ISLNK (st.st_mode) || !S_ISDIR (st.st_mode))
        {
          /* let the full check decide where the link leads */
          return pp_sysfs_write (path, value, allowed_roots, error);
        }
    }
  return write_value (path, value, strlen (value), value, error);
}
