/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pmctl-output.h"
#include "pp-util.h"

/* ---- messages ------------------------------------------------------------- */

static void
print_message (const char *format, va_list args) G_GNUC_PRINTF (1, 0);

static void
print_message (const char *format, va_list args)
{
  g_autofree char *message = g_strdup_vprintf (format, args);
  /* one line, whatever it quotes: the user's own argument, a device's
   * text, a remote error (no escape sequence reaches the terminal) */
  g_autofree char *shown = pp_escape_text (message, 0);

  fprintf (stderr, "pmctl: %s\n", shown);
}

void
pmctl_fail (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  print_message (format, args);
  va_end (args);
}

int
pmctl_usage_error (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  print_message (format, args);
  va_end (args);
  fputs ("Try 'pmctl --help'.\n", stderr);
  return PMCTL_EXIT_USAGE;
}

/* ---- values --------------------------------------------------------------- */

char *
pmctl_format_duration_ms (guint64 ms)
{
  guint64 s = ms / 1000;

  if (ms < 1000)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "ms", ms);
  if (s < 60)
    return g_strdup_printf ("%" G_GUINT64_FORMAT ".%01us", s, (guint) (ms % 1000 / 100));
  if (s < 3600)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "m%02us", s / 60, (guint) (s % 60));
  return g_strdup_printf ("%" G_GUINT64_FORMAT "h%02um", s / 3600, (guint) (s % 3600 / 60));
}

static GPtrArray *kept_replies;

void
pmctl_keep_until_exit (GVariant *reply)
{
  if (kept_replies == NULL)
    kept_replies = g_ptr_array_new ();
  g_ptr_array_add (kept_replies, reply);
}

const char *
pmctl_dict_get_string (GVariant *dict, const char *key)
{
  const char *value = NULL;

  if (!g_variant_lookup (dict, key, "&s", &value))
    return "";
  return value;
}

char *
pmctl_format_value (GVariant *value, const char *separator)
{
  if (value == NULL)
    return g_strdup ("-");
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_VARIANT))
    {
      g_autoptr(GVariant) inner = g_variant_get_variant (value);
      return pmctl_format_value (inner, separator);
    }
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) ||
      g_variant_is_of_type (value, G_VARIANT_TYPE_OBJECT_PATH))
    {
      const char *s = g_variant_get_string (value, NULL);
      return g_strdup (*s ? s : "-");
    }
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
    return g_strdup (g_variant_get_boolean (value) ? "yes" : "no");
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT32))
    return g_strdup_printf ("%" G_GINT32_FORMAT, g_variant_get_int32 (value));
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32))
    return g_strdup_printf ("%" G_GUINT32_FORMAT, g_variant_get_uint32 (value));
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT64))
    return g_strdup_printf ("%" G_GINT64_FORMAT, g_variant_get_int64 (value));
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT64))
    return g_strdup_printf ("%" G_GUINT64_FORMAT, g_variant_get_uint64 (value));
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
    {
      g_autofree const char **strv = g_variant_get_strv (value, NULL);
      if (strv[0] == NULL)
        return g_strdup ("-");
      return g_strjoinv (separator, (char **) strv);
    }
  return g_variant_print (value, FALSE);
}

/* ---- JSON ----------------------------------------------------------------- */

/* pmctl's one JSON writer: values are written as they come (a tree built
 * with JsonBuilder is walked by pmctl_json_write_node), compact, or
 * indented by 2 with " : " after a name as json-glib's generator does. */

static void
json_write_string (PmctlJson *j, const char *text)
{
  const char *run = text;

  putc ('"', j->out);
  for (const char *p = text; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;
      const char *named = NULL;

      switch (c)
        {
        case '"': named = "\\\""; break;
        case '\\': named = "\\\\"; break;
        case '\b': named = "\\b"; break;
        case '\f': named = "\\f"; break;
        case '\n': named = "\\n"; break;
        case '\r': named = "\\r"; break;
        case '\t': named = "\\t"; break;
        default:
          if (c >= 0x20 && c != 0x7f)
            continue;
          break;
        }
      fwrite (run, 1, (size_t) (p - run), j->out);
      if (named != NULL)
        fputs (named, j->out);
      else
        fprintf (j->out, "\\u%04x", c);
      run = p + 1;
    }
  fputs (run, j->out);
  putc ('"', j->out);
}

/* Before a value: the comma, the line and the member's name. */
static void
json_write_next (PmctlJson *j, const char *name)
{
  if (j->comma)
    putc (',', j->out);
  if (j->pretty && j->depth > 0)
    fprintf (j->out, "\n%*s", (int) j->depth * 2, "");
  if (name != NULL)
    {
      json_write_string (j, name);
      fputs (j->pretty ? " : " : ":", j->out);
    }
  j->comma = TRUE;
}

void
pmctl_json_init (PmctlJson *j, FILE *out, gboolean pretty)
{
  j->out = out;
  j->pretty = pretty;
  j->depth = 0;
  j->comma = FALSE;
}

void
pmctl_json_begin (PmctlJson *j, const char *name, char open)
{
  json_write_next (j, name);
  putc (open, j->out);
  j->depth++;
  j->comma = FALSE;
}

void
pmctl_json_end (PmctlJson *j, char close)
{
  gboolean empty = !j->comma;

  j->depth--;
  if (j->pretty && !empty)
    fprintf (j->out, "\n%*s", (int) j->depth * 2, "");
  else if (j->pretty && close == '}')
    /* as json-glib prints an empty object: "{  }" a level down */
    fprintf (j->out, "%*s", (int) j->depth * 2, "");
  putc (close, j->out);
  j->comma = TRUE;
}

void
pmctl_json_string (PmctlJson *j, const char *name, const char *value)
{
  json_write_next (j, name);
  json_write_string (j, value != NULL ? value : "");
}

void
pmctl_json_bool (PmctlJson *j, const char *name, gboolean value)
{
  json_write_next (j, name);
  fputs (value ? "true" : "false", j->out);
}

void
pmctl_json_null (PmctlJson *j, const char *name)
{
  json_write_next (j, name);
  fputs ("null", j->out);
}

void
pmctl_json_int (PmctlJson *j, const char *name, gint64 value)
{
  json_write_next (j, name);
  fprintf (j->out, "%" G_GINT64_FORMAT, value);
}

void
pmctl_json_count (PmctlJson *j, const char *name, guint64 value)
{
  pmctl_json_int (j, name, (gint64) MIN (value, (guint64) G_MAXINT64));
}

/* As json-glib prints a double: %.17g, and ".0" when it reads as an
 * integer; not a number or an infinity (no JSON) is null. */
void
pmctl_json_double (PmctlJson *j, const char *name, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value))
    {
      pmctl_json_null (j, name);
      return;
    }
  json_write_next (j, name);
  g_ascii_formatd (buf, sizeof buf, "%.17g", value);
  fputs (buf, j->out);
  if (strpbrk (buf, ".eE") == NULL)
    fputs (".0", j->out);
}

static void
json_write_value (PmctlJson *j, const char *name, JsonNode *node)
{
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_BOOLEAN:
      pmctl_json_bool (j, name, json_node_get_boolean (node));
      break;
    case G_TYPE_DOUBLE:
    case G_TYPE_FLOAT:
      pmctl_json_double (j, name, json_node_get_double (node));
      break;
    case G_TYPE_STRING:
      pmctl_json_string (j, name, json_node_get_string (node));
      break;
    default:
      /* integers: json-glib holds them as gint64 */
      pmctl_json_int (j, name, json_node_get_int (node));
      break;
    }
}

void
pmctl_json_write_node (PmctlJson *j, const char *name, JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        const char *member;
        JsonNode *value;

        pmctl_json_begin (j, name, '{');
        json_object_iter_init_ordered (&iter, json_node_get_object (node));
        while (json_object_iter_next_ordered (&iter, &member, &value))
          pmctl_json_write_node (j, member, value);
        pmctl_json_end (j, '}');
      }
      break;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        pmctl_json_begin (j, name, '[');
        for (guint i = 0; i < json_array_get_length (array); i++)
          pmctl_json_write_node (j, NULL, json_array_get_element (array, i));
        pmctl_json_end (j, ']');
      }
      break;
    case JSON_NODE_VALUE:
      json_write_value (j, name, node);
      break;
    case JSON_NODE_NULL:
    default:
      pmctl_json_null (j, name);
      break;
    }
}

static void
json_print (JsonNode *node, gboolean pretty)
{
  PmctlJson j;

  pmctl_json_init (&j, stdout, pretty);
  if (node != NULL)
    pmctl_json_write_node (&j, NULL, node);
  else
    pmctl_json_null (&j, NULL);
  putc ('\n', stdout);
}

void
pmctl_json_print (Pmctl *ctl, JsonNode *node)
{
  json_print (node, ctl->tty);
}

void
pmctl_json_add_explain_rows (JsonBuilder *b, GVariant *rows)
{
  const char *attribute, *current, *decided, *layer, *origin;
  GVariantIter iter;

  json_builder_begin_array (b);
  g_variant_iter_init (&iter, rows);
  while (g_variant_iter_next (&iter, "(&s&s&s&s&s)", &attribute, &current, &decided, &layer, &origin))
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "attribute");
      json_builder_add_string_value (b, attribute);
      json_builder_set_member_name (b, "current");
      json_builder_add_string_value (b, current);
      json_builder_set_member_name (b, "decided");
      json_builder_add_string_value (b, decided);
      json_builder_set_member_name (b, "layer");
      json_builder_add_string_value (b, layer);
      json_builder_set_member_name (b, "origin");
      json_builder_add_string_value (b, origin);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

void
pmctl_json_print_builder (Pmctl *ctl, JsonBuilder *b)
{
  g_autoptr(JsonNode) root = json_builder_get_root (b);

  json_print (root, ctl->tty);
}

void
pmctl_json_print_line (JsonBuilder *b)
{
  g_autoptr(JsonNode) root = json_builder_get_root (b);

  json_print (root, FALSE);
  fflush (stdout);
}

int
pmctl_finish_output (int status)
{
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      pmctl_fail ("cannot write the output: %s", g_strerror (errno));
      return PMCTL_EXIT_FAILURE;
    }
  return status;
}
