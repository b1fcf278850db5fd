/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading and writing sysfs attributes, and the only place that decides
 * whether a path may be written at all. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Read a sysfs attribute, trailing newline stripped. NULL with @error
 * (G_IO_ERROR_NOT_FOUND when it does not exist). */
char      *pp_sysfs_read        (const char  *path,
                                 GError     **error);
/* Read, NULL on any error. */
char      *pp_sysfs_read_opt    (const char  *dir,
                                 const char  *relpath);
/* The first @max bytes of a regular file (opened without blocking and
 * without becoming its controlling terminal), NUL-terminated; NULL when it
 * cannot be opened or is not a regular file. For files read whole, such as
 * /proc/swaps or another tool's configuration. */
char      *pp_read_regular_file_bounded (const char *path,
                                         gsize       max);
/* Read an integer attribute; @fallback on any error. */
gint64     pp_sysfs_read_int    (const char  *dir,
                                 const char  *relpath,
                                 gint64       fallback);

/* Write @value to @path with O_WRONLY|O_TRUNC|O_CLOEXEC|O_NOFOLLOW.
 * Refuses a path that does not lie under one of @allowed_roots once its
 * directory is resolved, or whose last component is a symlink, with
 * G_IO_ERROR_PERMISSION_DENIED; a failing open or write sets the
 * G_IO_ERROR code of its errno (g_io_error_from_errno: a missing
 * attribute or directory is G_IO_ERROR_NOT_FOUND, a device gone
 * G_IO_ERROR_NO_SUCH_DEVICE), the message naming path and errno. */
gboolean   pp_sysfs_write       (const char          *path,
                                 const char          *value,
                                 const char * const  *allowed_roots,
                                 GError             **error);

/* The same for @len bytes of @data (a binary attribute such as a PCI
 * device's config space). */
gboolean   pp_sysfs_write_bytes (const char          *path,
                                 const void          *data,
                                 gsize                len,
                                 const char * const  *allowed_roots,
                                 GError             **error);

/* The same for @relpath (no "..", ".", or empty components) under @dir,
 * a canonical directory (a udev syspath, or one of @allowed_roots): only
 * the components of @relpath are checked for symlinks, so the common case
 * costs no realpath(). */
gboolean   pp_sysfs_write_at    (const char          *dir,
                                 const char          *relpath,
                                 const char          *value,
                                 const char * const  *allowed_roots,
                                 GError             **error);

/* TRUE if @path, lexically normalised, lies strictly under @root. */
gboolean   pp_sysfs_path_is_under (const char *path,
                                   const char *root);

/* The roots device and module policy may write to. */
extern const char * const pp_sysfs_policy_roots[];

G_END_DECLS
