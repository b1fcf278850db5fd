/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by every part of powerpolicy (header only, so the
 * pure policy library needs nothing else). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* GCompareFunc for g_ptr_array_sort() over an array of C strings. */
static inline gint
pp_compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

G_END_DECLS
