/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl list, pmctl show: the devices, one a line, or one in full. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <string.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pp-util.h"

/* ---- list ------------------------------------------------------------------- */

static char *opt_class;

static const GOptionEntry list_entries[] = {
  { "class", 0, 0, G_OPTION_ARG_FILENAME, &opt_class, "only the devices of CLASS", "CLASS" },
  { NULL }
};

/* The columns of pmctl list and the keys they show. */
enum { COL_PATH, COL_CLASS, COL_CONTROL, COL_DELAY, COL_STATUS, COL_HELD, N_COLS };

static const char * const list_keys[N_COLS] = {
  PP_DEVICE_KEY_PATH, PP_DEVICE_KEY_CLASS, PP_DEVICE_KEY_CONTROL,
  PP_DEVICE_KEY_AUTOSUSPEND_DELAY_MS, PP_DEVICE_KEY_RUNTIME_STATUS, PP_DEVICE_KEY_HELD,
};

/* The value of one column of a pmctl list line, as pmctl show prints it
 * (pmctl_format_value()) but for DELAY ("-" when the device has no
 * autosuspend delay, -1). Borrowed from @value, or written into @number,
 * or else allocated into @owned. */
static const char *
list_cell_text (GVariant *value, guint column, char number[static 16], char **owned)
{
  gint32 delay;

  if (value == NULL)
    return "-";
  if (column == COL_DELAY)
    {
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_INT32) || (delay = g_variant_get_int32 (value)) < 0)
        return "-";
      g_snprintf (number, 16, "%" G_GINT32_FORMAT, delay);
      return number;
    }
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
    {
      const char *s = g_variant_get_string (value, NULL);
      return *s ? s : "-";
    }
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
    return g_variant_get_boolean (value) ? "yes" : "no";
  return *owned = pmctl_format_value (value, ",");
}

/* The values of one device's line, in one pass over its a{sv} (the first
 * of a key that comes twice), each a new reference or NULL. Child by
 * child, never with a format string that borrows ("{&sv}"): that would
 * first copy the whole dictionary into one buffer and make a new value
 * for each child (most of pmctl's own time at 10,000 devices). */
static void
list_row_values (GVariant *dict, GVariant *values[N_COLS])
{
  gsize n = g_variant_n_children (dict);

  memset (values, 0, N_COLS * sizeof values[0]);
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (dict, i);
      g_autoptr(GVariant) key = g_variant_get_child_value (entry, 0);
      const char *name = g_variant_get_string (key, NULL);

      for (guint c = 0; c < N_COLS; c++)
        if (values[c] == NULL && strcmp (name, list_keys[c]) == 0)
          {
            g_autoptr(GVariant) boxed = g_variant_get_child_value (entry, 1);

            values[c] = g_variant_get_variant (boxed);
            break;
          }
    }
}

static void
list_row_values_clear (GVariant *values[N_COLS])
{
  for (guint c = 0; c < N_COLS; c++)
    g_clear_pointer (&values[c], g_variant_unref);
}

/* The device's class as --class compares it: "" when it has none. */
static const char *
list_row_class (GVariant *values[N_COLS])
{
  GVariant *klass = values[COL_CLASS];

  if (klass == NULL || !g_variant_is_of_type (klass, G_VARIANT_TYPE_STRING))
    return "";
  return g_variant_get_string (klass, NULL);
}

static int
run_list (Pmctl *ctl, char **args, char **command_argv)
{
  static const char * const header[] = {
    "PATH", "CLASS", "CONTROL", "DELAY", "STATUS", "HELD", NULL,
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) devices = NULL;
  g_autoptr(PmctlTable) t = NULL;
  g_autoptr(JsonArray) array = NULL;
  gsize n;

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_list_devices_sync (ctl->manager, &devices, NULL, &error))
    {
      pmctl_report_error (error, "list the devices", NULL);
      return PMCTL_EXIT_FAILURE;
    }

  n = g_variant_n_children (devices);
  if (ctl->json)
    array = json_array_sized_new ((guint) n);
  else
    t = pmctl_table_new (N_COLS);
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) dict = g_variant_get_child_value (devices, i);
      GVariant *values[N_COLS];
      const char *cells[N_COLS];
      char *owned[N_COLS] = { NULL };
      char delay[16];

      list_row_values (dict, values);
      if (opt_class != NULL && !g_str_equal (list_row_class (values), opt_class))
        {
          list_row_values_clear (values);
          continue;
        }
      if (array != NULL)
        json_array_add_element (array, json_gvariant_serialize (dict));
      else
        {
          for (guint c = 0; c < N_COLS; c++)
            cells[c] = list_cell_text (values[c], c, delay, &owned[c]);
          pmctl_table_add_row_borrowed (t, cells);
          for (guint c = 0; c < N_COLS; c++)
            g_free (owned[c]);
        }
      list_row_values_clear (values);
    }

  if (array != NULL)
    {
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

      json_node_take_array (root, g_steal_pointer (&array));
      pmctl_json_print (ctl, root);
    }
  else
    pmctl_table_print (t, ctl, header);
  /* ~60 values a device: 270,000 frees at 4,451 devices */
  pmctl_keep_until_exit (g_steal_pointer (&devices));
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_list = {
  "list", "list [--class CLASS]",
  "List devices: path, class, control, delay, runtime status, held",
  "Print one line per managed device: its /sys/devices path, class,\n"
  "power/control, autosuspend delay in ms (- when it has none), runtime\n"
  "status and whether it is held. --class CLASS lists only the devices of\n"
  "that class.",
  list_entries, 0, 0, FALSE, run_list,
};

/* ---- show ------------------------------------------------------------------- */

/* Device fields in the order they are printed; any other field the
 * daemon reports follows, sorted by name. */
static const char * const device_field_order[] = {
  PP_DEVICE_KEY_PATH, PP_DEVICE_KEY_SUBSYSTEM, PP_DEVICE_KEY_CLASS, PP_DEVICE_KEY_DRIVER,
  PP_DEVICE_KEY_PARENT, PP_DEVICE_KEY_SUPPLIERS, PP_DEVICE_KEY_CONSUMERS,
  PP_DEVICE_KEY_RUNTIME_STATUS, PP_DEVICE_KEY_CONTROL, PP_DEVICE_KEY_AUTOSUSPEND_DELAY_MS,
  PP_DEVICE_KEY_WAKEUP, PP_DEVICE_KEY_HELD, PP_DEVICE_KEY_BLOCKER, PP_DEVICE_KEY_IGNORED,
  PP_DEVICE_KEY_EXCLUDED, NULL,
};

static void
print_device_text (Pmctl *ctl, GVariant *dict)
{
  g_autoptr(PmctlTable) t = pmctl_table_new (2);
  g_autoptr(GPtrArray) rest = g_ptr_array_new_with_free_func (g_free);
  const char *separator = ctl->tty ? ", " : ",";
  GVariantIter iter;
  const char *key;

  /* every value as the daemon gives it: an autosuspend delay of -1 is
   * -1; "-" is an empty string or list */
  for (guint i = 0; device_field_order[i]; i++)
    {
      g_autoptr(GVariant) value = g_variant_lookup_value (dict, device_field_order[i], NULL);
      if (value != NULL)
        pmctl_table_add_row (t, g_strdup (device_field_order[i]),
                             pmctl_format_value (value, separator));
    }
  g_variant_iter_init (&iter, dict);
  while (g_variant_iter_next (&iter, "{&sv}", &key, NULL))
    {
      if (!g_strv_contains (device_field_order, key))
        g_ptr_array_add (rest, g_strdup (key));
    }
  g_ptr_array_sort (rest, pp_compare_strings);
  for (guint i = 0; i < rest->len; i++)
    {
      g_autoptr(GVariant) value = g_variant_lookup_value (dict, rest->pdata[i], NULL);
      pmctl_table_add_row (t, g_strdup (rest->pdata[i]), pmctl_format_value (value, separator));
    }
  pmctl_fields_print (t, ctl);
}

static int
run_show (Pmctl *ctl, char **args, char **command_argv)
{
  const char *device = args[0];
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) dict = NULL;

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_get_device_sync (ctl->manager, device, &dict, NULL, &error))
    {
      pmctl_report_error (error, "get the device", device);
      return PMCTL_EXIT_FAILURE;
    }

  if (ctl->json)
    {
      g_autoptr(JsonNode) root = json_gvariant_serialize (dict);
      pmctl_json_print (ctl, root);
    }
  else
    print_device_text (ctl, dict);
  return pmctl_finish_output (PMCTL_EXIT_OK);
}

const PmctlCommand pmctl_command_show = {
  "show", "show DEVICE",
  "Show everything known of one device",
  "Print every field the daemon reports for DEVICE, each value as the\n"
  "daemon gives it (an autosuspend delay of -1 is printed as -1; - stands\n"
  "for an empty value).",
  NULL, 1, 1, FALSE, run_show,
};
