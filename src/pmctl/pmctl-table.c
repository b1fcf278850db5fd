/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl's tables (declared in pmctl-output.h): the columns of `pmctl
 * list`, `tree`, `stats`, `wakeups`..., fitted to the terminal, and the
 * label/value fields of `show`. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pmctl-output.h"
#include "pp-util.h"

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
