/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
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

/* ---- tables --------------------------------------------------------------- */

/* Every cell's text lives in one buffer, NUL-terminated each: a table of
 * ten thousand rows is a few allocations, not one per cell. */
typedef struct {
  gsize       text;    /* offset in texts: sanitised, no escape sequences */
  gsize       width;   /* columns on a terminal (pmctl_table_print()) */
  const char *sgr;     /* colour, or NULL */
  gsize       from;    /* coloured from this byte on */
} Cell;

struct _PmctlTable {
  guint    n_columns;
  guint    n_rows;
  GArray  *cells;      /* Cell, n_columns per row */
  GString *texts;
};

static inline const char *
cell_text (PmctlTable *t, const Cell *cell)
{
  return t->texts->str + cell->text;
}

static inline Cell *
table_row (PmctlTable *t, guint r)
{
  return &g_array_index (t->cells, Cell, (gsize) r * t->n_columns);
}

PmctlTable *
pmctl_table_new (guint n_columns)
{
  PmctlTable *t = g_new0 (PmctlTable, 1);

  t->n_columns = n_columns;
  t->cells = g_array_new (FALSE, TRUE, sizeof (Cell));
  t->texts = g_string_new (NULL);
  return t;
}

void
pmctl_table_free (PmctlTable *t)
{
  g_array_unref (t->cells);
  g_string_free (t->texts, TRUE);
  g_free (t);
}

guint
pmctl_table_n_rows (PmctlTable *t)
{
  return t->n_rows;
}

/* Text that pp_escape_text() leaves as it is: printable ASCII. */
static gboolean
is_plain (const char *text, gsize length)
{
  for (gsize i = 0; i < length; i++)
    {
      guchar c = (guchar) text[i];

      if (c < 0x20 || c >= 0x7f)
        return FALSE;
    }
  return TRUE;
}

/* @text as it is into the buffer; its offset. */
static gsize
texts_add_raw (PmctlTable *t, const char *text, gsize length)
{
  gsize at = t->texts->len;

  g_string_append_len (t->texts, text, length);
  g_string_append_c (t->texts, '\0');
  return at;
}

/* Tabs and newlines would break the tab-separated form; other control
 * characters (escape sequences in a "why" another user chose, in a
 * device's name) must not reach the terminal: escaped as the journal
 * shows them (pp_escape_text(): "\n", "\t", "\x1b", invalid UTF-8 as
 * "\xNN"). */
static gsize
texts_add_sanitized (PmctlTable *t, const char *text, gsize length)
{
  g_autofree char *escaped = NULL;

  if (is_plain (text, length))
    return texts_add_raw (t, text, length);
  escaped = pp_escape_text_len (text, length, 0);
  return texts_add_raw (t, escaped, strlen (escaped));
}

static void
table_add_cell (PmctlTable *t, const char *text)
{
  Cell cell = { 0 };

  cell.text = texts_add_sanitized (t, text != NULL ? text : "", text != NULL ? strlen (text) : 0);
  g_array_append_val (t->cells, cell);
}

void
pmctl_table_add_row (PmctlTable *t, ...)
{
  va_list args;

  va_start (args, t);
  for (guint c = 0; c < t->n_columns; c++)
    {
      g_autofree char *text = va_arg (args, char *);

      table_add_cell (t, text);
    }
  va_end (args);
  t->n_rows++;
}

void
pmctl_table_add_row_borrowed (PmctlTable *t, const char * const *cells)
{
  for (guint c = 0; c < t->n_columns; c++)
    table_add_cell (t, cells[c]);
  t->n_rows++;
}

void
pmctl_table_colour (PmctlTable *t, Pmctl *ctl, guint column, gsize from, const char *sgr)
{
  Cell *row;

  if (!ctl->color || t->n_rows == 0)
    return;
  row = table_row (t, t->n_rows - 1);
  if (strlen (cell_text (t, &row[column])) <= from)
    return;
  row[column].sgr = sgr;
  row[column].from = from;
}

static guint
unichar_width (gunichar c)
{
  if (g_unichar_iszerowidth (c))
    return 0;
  return g_unichar_iswide (c) ? 2 : 1;
}

/* Columns @text takes on a terminal. */
static gsize
text_width (const char *text)
{
  gsize width = 0;
  const char *p;

  /* ASCII: one column a byte (a sanitised cell has no control character) */
  for (p = text; *p != '\0' && (guchar) *p < 0x80; p++)
    ;
  if (*p == '\0')
    return p - text;
  if (!g_utf8_validate (text, -1, NULL))
    return strlen (text);
  for (p = text; *p; p = g_utf8_next_char (p))
    width += unichar_width (g_utf8_get_char (p));
  return width;
}

/* The byte length of the longest start of @text at most @width wide. */
static gsize
head_bytes (const char *text, gsize width)
{
  const char *p = text;
  gsize used = 0;

  while (*p)
    {
      guint w = unichar_width (g_utf8_get_char (p));
      if (used + w > width)
        break;
      used += w;
      p = g_utf8_next_char (p);
    }
  return p - text;
}

/* The byte offset of the shortest end of @text at most @width wide. */
static gsize
tail_start (const char *text, gsize width)
{
  const char *p = text + strlen (text);
  gsize used = 0;

  while (p > text)
    {
      const char *prev = g_utf8_prev_char (p);
      guint w = unichar_width (g_utf8_get_char (prev));
      if (used + w > width)
        break;
      used += w;
      p = prev;
    }
  return p - text;
}

/* Cut @cell to @width columns with an ellipsis in the middle (the start
 * and the end of a path say most), like systemd's ellipsize_mem(). */
static void
cell_ellipsize (PmctlTable *t, Cell *cell, gsize width)
{
  gboolean utf8 = g_get_charset (NULL);
  const char *ellipsis = utf8 ? "…" : "...";
  gsize ellipsis_width = utf8 ? 1 : 3;
  const char *old = cell_text (t, cell);
  g_autofree char *text = NULL;
  gsize head, tail;

  if (cell->width <= width || !g_utf8_validate (old, -1, NULL))
    return;
  if (width <= ellipsis_width)
    {
      text = g_strndup (ellipsis, head_bytes (ellipsis, width));
      cell->sgr = NULL;
    }
  else
    {
      gsize room = width - ellipsis_width;

      head = head_bytes (old, room - room / 2);
      tail = tail_start (old, room / 2);
      text = g_strdup_printf ("%.*s%s%s", (int) head, old, ellipsis, old + tail);
      /* the colour starts where it did, or right after the cut */
      if (cell->from > head)
        cell->from = head + strlen (ellipsis);
    }
  /* @old goes stale here: the buffer may move */
  cell->text = texts_add_raw (t, text, strlen (text));
  cell->width = text_width (text);
}

guint
pmctl_terminal_columns (void)
{
  const char *env = g_getenv ("COLUMNS");
  struct winsize ws = { 0 };
  guint64 n;

  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 1, G_MAXUINT16, &n, NULL))
    return (guint) n;
  if (ioctl (STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  return 0;
}

/* Narrow the widest columns until the line fits @columns, as systemctl
 * does; a column keeps at least its header's width and a few
 * characters. */
static void
fit_widths (gsize *widths, const gsize *minimum, guint n_columns, guint columns)
{
  gsize total = 2 * (n_columns - 1);

  for (guint c = 0; c < n_columns; c++)
    total += widths[c];
  while (total > columns)
    {
      guint widest = 0;
      gsize cut;

      for (guint c = 1; c < n_columns; c++)
        {
          if (widths[c] - minimum[c] > widths[widest] - minimum[widest])
            widest = c;
        }
      if (widths[widest] <= minimum[widest])
        return;
      cut = MIN (total - columns, widths[widest] - minimum[widest]);
      widths[widest] -= cut;
      total -= cut;
    }
}

static void
append_cell (GString *out, const char *text, const Cell *cell)
{
  if (cell->sgr == NULL)
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_len (out, text, cell->from);
  g_string_append_printf (out, "\033[%sm%s\033[0m", cell->sgr, text + cell->from);
}

/* Out in one write a large block, not a call of stdio per cell. */
#define OUTPUT_BLOCK (64 * 1024)

static void
flush_block (GString *out, gboolean force)
{
  if (out->len == 0 || (!force && out->len < OUTPUT_BLOCK))
    return;
  fwrite (out->str, 1, out->len, stdout);
  g_string_truncate (out, 0);
}

/* One aligned line: @texts and @cells of a row (the header's cells are
 * blank: no colour), @widths of the columns. */
static void
append_line (GString *out, const char * const *texts, const Cell *cells, const gsize *widths,
             guint n_columns)
{
  gsize pending = 0;   /* blanks owed before the next cell */

  for (guint c = 0; c < n_columns; c++)
    {
      gsize width = cells[c].width;

      /* empty cells at the end of a row leave no trailing blanks */
      if (width > 0)
        {
          for (gsize i = 0; i < pending; i++)
            g_string_append_c (out, ' ');
          pending = 0;
          append_cell (out, texts[c], &cells[c]);
        }
      pending += widths[c] - MIN (width, widths[c]) + 2;
    }
  g_string_append_c (out, '\n');
}

void
pmctl_table_print (PmctlTable *t, Pmctl *ctl, const char * const *header)
{
  g_autofree gsize *widths = g_new0 (gsize, t->n_columns);
  g_autofree gsize *minimum = g_new0 (gsize, t->n_columns);
  g_autofree Cell *header_cells = g_new0 (Cell, t->n_columns);
  g_autofree const char **texts = g_new0 (const char *, t->n_columns);
  g_autoptr(GString) out = g_string_sized_new (OUTPUT_BLOCK + 4096);
  guint columns;

  /* nothing to list: no header either */
  if (t->n_rows == 0)
    return;
  if (!ctl->tty)
    {
      for (guint r = 0; r < t->n_rows; r++)
        {
          Cell *row = table_row (t, r);

          for (guint c = 0; c < t->n_columns; c++)
            {
              g_string_append (out, cell_text (t, &row[c]));
              g_string_append_c (out, c + 1 < t->n_columns ? '\t' : '\n');
            }
          flush_block (out, FALSE);
        }
      flush_block (out, TRUE);
      return;
    }

  /* every cell's width once */
  for (guint c = 0; c < t->n_columns; c++)
    {
      texts[c] = header ? header[c] : "";
      header_cells[c].width = widths[c] = text_width (texts[c]);
      minimum[c] = MAX (widths[c], 8);
    }
  for (guint r = 0; r < t->n_rows; r++)
    {
      Cell *row = table_row (t, r);

      for (guint c = 0; c < t->n_columns; c++)
        {
          row[c].width = text_width (cell_text (t, &row[c]));
          widths[c] = MAX (widths[c], row[c].width);
        }
    }
  for (guint c = 0; c < t->n_columns; c++)
    minimum[c] = MIN (minimum[c], widths[c]);

  columns = ctl->full ? 0 : pmctl_terminal_columns ();
  if (columns > 0)
    {
      fit_widths (widths, minimum, t->n_columns, columns);
      for (guint r = 0; r < t->n_rows; r++)
        {
          Cell *row = table_row (t, r);

          for (guint c = 0; c < t->n_columns; c++)
            cell_ellipsize (t, &row[c], widths[c]);
        }
    }

  if (header)
    append_line (out, texts, header_cells, widths, t->n_columns);
  for (guint r = 0; r < t->n_rows; r++)
    {
      const Cell *row = table_row (t, r);

      for (guint c = 0; c < t->n_columns; c++)
        texts[c] = cell_text (t, &row[c]);
      append_line (out, texts, row, widths, t->n_columns);
      flush_block (out, FALSE);
    }
  flush_block (out, TRUE);
}

void
pmctl_fields_print (PmctlTable *t, Pmctl *ctl)
{
  gsize width = 0;

  if (!ctl->tty)
    {
      pmctl_table_print (t, ctl, NULL);
      return;
    }
  for (guint r = 0; r < t->n_rows; r++)
    width = MAX (width, strlen (cell_text (t, &table_row (t, r)[0])) + 1);
  for (guint r = 0; r < t->n_rows; r++)
    {
      Cell *row = table_row (t, r);
      const char *value = cell_text (t, &row[1]);
      g_autofree char *label = g_strconcat (cell_text (t, &row[0]), ":", NULL);

      if (row[1].sgr != NULL)
        printf ("%-*s %.*s\033[%sm%s\033[0m\n", (int) width, label, (int) row[1].from,
                value, row[1].sgr, value + row[1].from);
      else
        printf ("%-*s %s\n", (int) width, label, value);
    }
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
