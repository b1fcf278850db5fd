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

/* The DELAY column: "-" when the device has no autosuspend delay (-1). */
static char *
format_delay (GVariant *value)
{
  gint32 delay;

  if (!g_variant_is_of_type (value, G_VARIANT_TYPE_INT32) || (delay = g_variant_get_int32 (value)) < 0)
    return g_strdup ("-");
  return g_strdup_printf ("%" G_GINT32_FORMAT, delay);
}

/* The cells of one device's line, from one pass over its a{sv} (at
 * 10,000 devices a lookup per column was most of pmctl's own time). */
static void
list_row_cells (GVariant *dict, char *cells[N_COLS])
{
  GVariantIter iter;
  const char *key;
  GVariant *value;

  memset (cells, 0, N_COLS * sizeof cells[0]);
  g_variant_iter_init (&iter, dict);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
    {
      for (guint c = 0; c < N_COLS; c++)
        if (cells[c] == NULL && g_str_equal (key, list_keys[c]))
          {
            cells[c] = c == COL_DELAY ? format_delay (value) : pmctl_format_value (value, ",");
            break;
          }
      g_variant_unref (value);
    }
  for (guint c = 0; c < N_COLS; c++)
    if (cells[c] == NULL)
      cells[c] = g_strdup ("-");
}

static int
run_list (Pmctl *ctl, char **args, char **command_argv)
{
  static const char * const header[] = {
    "PATH", "CLASS", "CONTROL", "DELAY", "STATUS", "HELD", NULL,
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) devices = NULL;
  g_autoptr(GPtrArray) selected = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  GVariantIter iter;
  GVariant *dict;

  if (!pmctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES))
    return PMCTL_EXIT_FAILURE;
  if (!pp_dbus_manager_call_list_devices_sync (ctl->manager, &devices, NULL, &error))
    {
      pmctl_report_error (error, "list the devices", NULL);
      return PMCTL_EXIT_FAILURE;
    }

  g_variant_iter_init (&iter, devices);
  while ((dict = g_variant_iter_next_value (&iter)) != NULL)
    {
      if (opt_class != NULL && !g_str_equal (pmctl_dict_get_string (dict, PP_DEVICE_KEY_CLASS), opt_class))
        g_variant_unref (dict);
      else
        g_ptr_array_add (selected, dict);
    }

  if (ctl->json)
    {
      g_autoptr(JsonArray) array = json_array_sized_new (selected->len);
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < selected->len; i++)
        json_array_add_element (array, json_gvariant_serialize (g_ptr_array_index (selected, i)));
      json_node_set_array (root, array);
      pmctl_json_print (ctl, root);
    }
  else
    {
      g_autoptr(PmctlTable) t = pmctl_table_new (6);

      for (guint i = 0; i < selected->len; i++)
        {
          char *cells[N_COLS];

          list_row_cells (g_ptr_array_index (selected, i), cells);
          pmctl_table_add_row (t, cells[COL_PATH], cells[COL_CLASS], cells[COL_CONTROL],
                               cells[COL_DELAY], cells[COL_STATUS], cells[COL_HELD]);
        }
      pmctl_table_print (t, ctl, header);
    }
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
