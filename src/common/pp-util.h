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

G_END_DECLS
