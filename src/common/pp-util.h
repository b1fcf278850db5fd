/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by every part of powerpolicy. The inline ones are
 * all the pure policy library uses; the others live in pp-util.c. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* GCompareFunc for g_ptr_array_sort() over an array of C strings. */
static inline gint
pp_compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/* The names in directory @path that end in @suffix (NULL: all), sorted;
 * NULL when the directory cannot be read. */
GPtrArray *pp_list_dir_sorted (const char *path,
                               const char *suffix);

/* At most this many bytes of caller text are shown by pp_escape_text(). */
#define PP_ESCAPE_SHOWN_MAX 256

/* (pp-escape.c, in the pure policy library too.)
 * @text (caller-supplied, any bytes) made safe for one log line: printable
 * ASCII is kept, '\\' and '"' are backslash-escaped, \n \r \t as such, every
 * other byte (control characters, DEL, bytes >= 0x80) as \xHH. At most
 * @max_shown bytes of @text are shown (0: PP_ESCAPE_SHOWN_MAX); a longer
 * text ends in "...". NULL becomes "(null)". The result is at most
 * 4 * @max_shown + 4 bytes long. Free with g_free(). */
char      *pp_escape_text     (const char *text,
                               gsize       max_shown);

G_END_DECLS
