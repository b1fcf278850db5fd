/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "pp-util.h"

GPtrArray *
pp_list_dir_sorted (const char *path, const char *suffix)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  GPtrArray *names;
  const char *name;

  if (dir == NULL)
    return NULL;
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      if (suffix == NULL || g_str_has_suffix (name, suffix))
        g_ptr_array_add (names, g_strdup (name));
    }
  g_ptr_array_sort (names, pp_compare_strings);
  return names;
}
