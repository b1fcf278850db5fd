/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl list, pmctl show: the devices, one a line, or one in full. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <errno.h>
#include <string.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pmctl-sd-bus.h"
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

/* One device's line, read from its a{sv} in place: the first of a key
 * that comes twice, as g_variant_lookup_value() finds it. */
typedef struct {
  const char *cells[N_COLS];      /* borrowed from the reply, numbers or owned */
  gboolean    seen[N_COLS];
  char        numbers[N_COLS][16];
  char       *owned[N_COLS];
  GVariant   *values[N_COLS];     /* a value of another type, read whole */
  gboolean    wanted;             /* --class: the first "class" a string and that */
} ListRow;

/* --class against the device's class, @klass: "" when it has none or
 * its first "class" is no string. */
static gboolean
list_class_wanted (const char *klass)
{
  return opt_class == NULL || g_str_equal (klass, opt_class);
}

static void
list_row_clear (ListRow *row)
{
  for (guint c = 0; c < N_COLS; c++)
    {
      g_free (row->owned[c]);
      g_clear_pointer (&row->values[c], g_variant_unref);
    }
}

static guint
list_column (const char *key)
{
  for (guint c = 0; c < N_COLS; c++)
    if (strcmp (key, list_keys[c]) == 0)
      return c;
  return N_COLS;
}

/* The cell of column @c from the entry's value (a variant of type
 * @contents), as list_cell_text() makes it: strings, booleans and the
 * delay read directly, any other type read whole. */
static int
list_read_cell (sd_bus_message *m, ListRow *row, guint c, const char *contents)
{
  union { const char *s; int b; gint32 i; } v;
  int r;

  if ((strcmp (contents, "s") != 0 && strcmp (contents, "b") != 0 && strcmp (contents, "i") != 0))
    {
      if ((row->values[c] = pmctl_sd_bus_read_variant (m, &r)) == NULL)
        return r;
      row->cells[c] = list_cell_text (row->values[c], c, row->numbers[c], &row->owned[c]);
      return 0;
    }
  if ((r = pmctl_sd_bus_read_basic_variant (m, contents, &v)) < 0)
    return r;
  if (contents[0] == 's')
    {
      row->cells[c] = c == COL_DELAY || *v.s == '\0' ? "-" : v.s;
      if (c == COL_CLASS)
        row->wanted = list_class_wanted (v.s);
    }
  else if (contents[0] == 'b')
    row->cells[c] = c == COL_DELAY ? "-" : v.b ? "yes" : "no";
  else if (c == COL_DELAY && v.i < 0)
    row->cells[c] = "-";
  else
    {
      g_snprintf (row->numbers[c], sizeof row->numbers[c], "%" G_GINT32_FORMAT, v.i);
      row->cells[c] = row->numbers[c];
    }
  return 0;
}

/* The next value of @m, a variant, as json_gvariant_serialize() makes
 * its content: strings, booleans and int32 directly, any other type
 * read whole and given to json_gvariant_serialize(). */
static JsonNode *
list_read_json (sd_bus_message *m, const char *contents, int *r)
{
  union { const char *s; int b; gint32 i; } v;
  g_autoptr(GVariant) value = NULL;
  JsonNode *node;

  if (strcmp (contents, "s") == 0 || strcmp (contents, "b") == 0 || strcmp (contents, "i") == 0)
    {
      if ((*r = pmctl_sd_bus_read_basic_variant (m, contents, &v)) < 0)
        return NULL;
      node = json_node_new (JSON_NODE_VALUE);
      if (contents[0] == 's')
        json_node_set_string (node, v.s);
      else if (contents[0] == 'b')
        json_node_set_boolean (node, v.b);
      else
        json_node_set_int (node, v.i);
      return node;
    }
  if ((value = pmctl_sd_bus_read_variant (m, r)) == NULL)
    return NULL;
  return json_gvariant_serialize (value);
}

/* Past the next value of @m, a variant of type @contents: a basic value
 * is read (sd_bus_message_skip() parses its signature again first). */
static int
list_skip_value (sd_bus_message *m, const char *contents)
{
  if (contents[0] == '\0' || contents[1] != '\0' || strchr ("avr(e{", contents[0]) != NULL)
    return sd_bus_message_skip (m, "v");
  return pmctl_sd_bus_read_basic_variant (m, contents, NULL);
}

/* One entry {key: value} of a device's a{sv}, entered: into @row's cells
 * or, for --json, into @object (the last of a key that comes twice, as
 * json_gvariant_serialize() keeps it). */
static int
list_read_entry (sd_bus_message *m, ListRow *row, JsonObject *object)
{
  const char *key;
  const char *contents;
  char type;
  guint c;
  int r;

  if ((r = sd_bus_message_read_basic (m, 's', &key)) <= 0 ||
      (r = sd_bus_message_peek_type (m, &type, &contents)) <= 0 || type != 'v')
    return r < 0 ? r : -EBADMSG;
  c = list_column (key);
  if (c < N_COLS && row->seen[c])
    c = N_COLS;
  if (c < N_COLS)
    row->seen[c] = TRUE;
  if (c == COL_CLASS)
    row->wanted = list_class_wanted ("");
  if (object != NULL)
    {
      JsonNode *node = list_read_json (m, contents, &r);

      if (node == NULL)
        return r;
      if (c == COL_CLASS && strcmp (contents, "s") == 0)
        row->wanted = list_class_wanted (json_node_get_string (node));
      json_object_set_member (object, key, node);
      return 0;
    }
  if (c < N_COLS)
    return list_read_cell (m, row, c, contents);
  return list_skip_value (m, contents);
}

/* One device's a{sv}: its line into @t, or its object into @array;
 * nothing when --class names another class. */
static int
list_read_row (sd_bus_message *m, PmctlTable *t, JsonArray *array)
{
  ListRow row = { { NULL } };
  g_autoptr(JsonObject) object = array != NULL ? json_object_new () : NULL;
  int r;

  row.wanted = list_class_wanted ("");
  if ((r = sd_bus_message_enter_container (m, 'a', "{sv}")) <= 0)
    return r < 0 ? r : -EBADMSG;
  while ((r = sd_bus_message_enter_container (m, 'e', "sv")) > 0)
    {
      if ((r = list_read_entry (m, &row, object)) < 0 ||
          (r = sd_bus_message_exit_container (m)) < 0)
        break;
    }
  if (r >= 0)
    r = sd_bus_message_exit_container (m);
  if (r >= 0 && row.wanted)
    {
      if (array != NULL)
        {
          JsonNode *node = json_node_new (JSON_NODE_OBJECT);

          json_node_set_object (node, object);
          json_array_add_element (array, node);
        }
      else
        {
          for (guint c = 0; c < N_COLS; c++)
            if (!row.seen[c])
              row.cells[c] = "-";
          pmctl_table_add_row_borrowed (t, row.cells);
        }
    }
  list_row_clear (&row);
  return r;
}

static int
run_list (Pmctl *ctl, char **args, char **command_argv)
{
  static const char * const header[] = {
    "PATH", "CLASS", "CONTROL", "DELAY", "STATUS", "HELD", NULL,
  };
  g_autoptr(sd_bus_message) reply = NULL;
  g_autoptr(PmctlTable) t = NULL;
  g_autoptr(JsonArray) array = NULL;
  int r;

  reply = pmctl_sd_bus_call (ctl, "ListDevices", "aa{sv}", "list the devices");
  if (reply == NULL)
    return PMCTL_EXIT_FAILURE;
  if (ctl->json)
    array = json_array_new ();
  else
    t = pmctl_table_new (N_COLS);
  r = sd_bus_message_enter_container (reply, 'a', "a{sv}");
  if (r == 0)
    r = -EBADMSG;
  while (r > 0 && (r = sd_bus_message_peek_type (reply, NULL, NULL)) > 0)
    if ((r = list_read_row (reply, t, array)) >= 0)
      r = 1;
  if (r >= 0)
    r = sd_bus_message_exit_container (reply);
  if (r < 0)
    {
      pmctl_sd_bus_report_malformed (r, "list the devices");
      return PMCTL_EXIT_FAILURE;
    }

  if (array != NULL)
    {
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

      json_node_take_array (root, g_steal_pointer (&array));
      pmctl_json_print (ctl, root);
    }
  else
    pmctl_table_print (t, ctl, header);
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
