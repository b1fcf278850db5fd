/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tests' own GLogWriterFunc (nothing of it is in the daemon): it
 * keeps the events pp-log.c logs (the messages with a MESSAGE_ID) as
 * journal-export-like text, "KEY=VALUE\n" per field and a blank line
 * after each, leaving out GLIB_DOMAIN and SYSLOG_IDENTIFIER, which every
 * event carries. Other messages, and events while capturing is off, go
 * to pp_log_writer(), the daemon's writer. */
#pragma once

#include <glib.h>

#include "pp-log.h"

typedef struct {
  GString  *text;
  gboolean  off;
} PpLogCapture;

static PpLogCapture pp_log_capture;

static inline void
pp_log_capture_append (GString *out, const GLogField *fields, gsize n_fields)
{
  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_str_equal (fields[i].key, "GLIB_DOMAIN") ||
          g_str_equal (fields[i].key, "SYSLOG_IDENTIFIER"))
        continue;
      g_string_append_printf (out, "%s=%s\n", fields[i].key, (const char *) fields[i].value);
    }
  g_string_append_c (out, '\n');
}

static inline GLogWriterOutput
pp_log_capture_writer (GLogLevelFlags   level,
                       const GLogField *fields,
                       gsize            n_fields,
                       gpointer         user_data)
{
  gboolean event = FALSE;

  for (gsize i = 0; i < n_fields; i++)
    event = event || g_str_equal (fields[i].key, "MESSAGE_ID");
  if (!event || pp_log_capture.off)
    return pp_log_writer (level, fields, n_fields, user_data);
  pp_log_capture_append (pp_log_capture.text, fields, n_fields);
  return G_LOG_WRITER_HANDLED;
}

/* Once per test binary (GLib takes one writer per process). */
static inline void
pp_log_capture_install (void)
{
  pp_log_capture.text = g_string_new (NULL);
  g_log_set_writer_func (pp_log_capture_writer, NULL, NULL);
}

/* What was captured since the last call. */
static inline char *
pp_log_capture_take (void)
{
  char *text = g_strdup (pp_log_capture.text->str);

  g_string_truncate (pp_log_capture.text, 0);
  return text;
}

/* One record as the capture writes it. */
static inline char *
pp_log_capture_format_record (PpLogEvent        event,
                              GLogLevelFlags    level,
                              const PpLogField *fields,
                              const char       *message)
{
  g_auto(PpLogRecord) record = { 0 };
  GString *out = g_string_new (NULL);

  pp_log_record_init (&record, event, level, fields, message);
  pp_log_capture_append (out, record.fields, record.n_fields);
  return g_string_free (out, FALSE);
}
