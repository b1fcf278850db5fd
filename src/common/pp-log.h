/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Structured logging of the daemon's important events.
 *
 * Each event has a fixed MESSAGE_ID (documented in powerpolicyd(8), so
 * `journalctl MESSAGE_ID=...` finds it) and carries fields such as DEVICE=,
 * ATTRIBUTE=, VALUE=, ORIGINAL=, POWERPOLICY_CLASS=. It is logged with
 * GLib's structured logging (g_log_structured_array()): with MESSAGE,
 * PRIORITY, MESSAGE_ID, POWERPOLICY_EVENT, the fields, GLIB_DOMAIN and
 * SYSLOG_IDENTIFIER. The daemon installs pp_log_writer(): when standard
 * error is the journal (g_log_writer_is_journald()) an event goes there
 * with all its fields through g_log_writer_journald(); otherwise, and for
 * every other message, GLib's default writer prints one readable line
 * (terminal, --verbose, tests).
 *
 * Every field value and the message are escaped with pp_escape_text()
 * (pp-util.h) before they leave: no newline or control character reaches a
 * log line, whatever a caller sent. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Bounds, in bytes, of what one event carries (after escaping). */
#define PP_LOG_FIELD_MAX    512
#define PP_LOG_MESSAGE_MAX  2048
#define PP_LOG_MAX_FIELDS   16

/* The events; the MESSAGE_IDs never change once released. */
typedef enum {
  PP_LOG_POLICY_APPLIED,      /* COUNT= writes, FAILED= */
  PP_LOG_WRITE_FAILED,        /* DEVICE= ATTRIBUTE= VALUE= ORIGINAL= POWERPOLICY_CLASS= ERROR= */
  PP_LOG_FOREIGN_CHANGE,      /* DEVICE= ATTRIBUTE= VALUE= (ours) FOREIGN_VALUE= COUNT= */
  PP_LOG_FOREIGN_GIVE_UP,     /* DEVICE= ATTRIBUTE= VALUE= FOREIGN_VALUE= COUNT= */
  PP_LOG_CONFLICT_DETECTED,   /* TOOL= WHAT= EVIDENCE= */
  PP_LOG_OVERRIDE_SET,        /* DEVICE= ATTRIBUTE= VALUE= */
  PP_LOG_OVERRIDE_CLEARED,    /* DEVICE= */
  PP_LOG_HOLD_TAKEN,          /* DEVICE= WHO= WHY= PID= */
  PP_LOG_HOLD_RELEASED,       /* DEVICE= WHO= WHY= PID= */
  PP_LOG_INHIBITOR_TAKEN,     /* WHAT= WHO= WHY= PID= */
  PP_LOG_INHIBITOR_RELEASED,  /* WHAT= WHO= WHY= PID= */
  PP_LOG_SLEEP,               /* SLEEP_STATE= */
  PP_LOG_RESUME,              /* SLEEP_STATE= */
  PP_LOG_QUIRKS_SELECTED,     /* QUIRKS= QUIRKS_SOURCE= */
  PP_LOG_HELPER_KILLED,       /* HELPER= PHASE= PID= */
  PP_LOG_SLEEP_RECORD,        /* SLEEP_STATE= SLEEP_RESULT= DURATION_MS= ... (pp-sleep-history.c) */
  PP_LOG_N_EVENTS
} PpLogEvent;

/* One field: KEY (journal rules: A-Z, 0-9 and _, not starting with _ or a
 * digit, at most 64 bytes) and its value (NULL: the field is left out). */
typedef struct {
  const char *key;
  const char *value;
} PpLogField;

/* A NULL-terminated field list as a compound literal:
 *   PP_LOG_FIELDS ({ "DEVICE", path }, { "ATTRIBUTE", "power/control" }) */
#define PP_LOG_FIELDS(...) ((const PpLogField[]) { __VA_ARGS__, { NULL, NULL } })

/* Log @event at @level (not G_LOG_LEVEL_ERROR) with @fields (NULL or a
 * NULL-key-terminated array, see PP_LOG_FIELDS) and a printf-style message.
 * Never fails. */
void         pp_log_event              (PpLogEvent        event,
                                        GLogLevelFlags    level,
                                        const PpLogField *fields,
                                        const char       *format,
                                        ...) G_GNUC_PRINTF (4, 5);
void         pp_log_eventv             (PpLogEvent        event,
                                        GLogLevelFlags    level,
                                        const PpLogField *fields,
                                        const char       *format,
                                        va_list           args) G_GNUC_PRINTF (4, 0);

/* The 32 hexadecimal digits of @event's MESSAGE_ID, and a short name
 * ("foreign-change") sent as POWERPOLICY_EVENT=. */
const char  *pp_log_event_message_id   (PpLogEvent        event);
const char  *pp_log_event_name         (PpLogEvent        event);

/* The syslog priority of a GLib level ("3".."7"). */
const char  *pp_log_level_priority     (GLogLevelFlags    level);

/* One event's fields as g_log_structured_array() takes them: MESSAGE_ID,
 * POWERPOLICY_EVENT, PRIORITY, MESSAGE, then @fields (values escaped and
 * bounded; invalid keys, the keys set here and NULL values left out),
 * then GLIB_DOMAIN and SYSLOG_IDENTIFIER. */
#define PP_LOG_RECORD_MAX_FIELDS (4 + PP_LOG_MAX_FIELDS + 2)
typedef struct {
  GLogField  fields[PP_LOG_RECORD_MAX_FIELDS];
  gsize      n_fields;
  GPtrArray *strings;          /* owns the values */
} PpLogRecord;

void         pp_log_record_init        (PpLogRecord      *record,
                                        PpLogEvent        event,
                                        GLogLevelFlags    level,
                                        const PpLogField *fields,
                                        const char       *message);
void         pp_log_record_clear       (PpLogRecord      *record);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PpLogRecord, pp_log_record_clear)

/* The daemon's GLogWriterFunc (g_log_set_writer_func()): an event that is
 * not a debug one goes to the journal whenever standard error is the
 * journal, even without --verbose; everything else as
 * g_log_writer_default() decides. */
GLogWriterOutput pp_log_writer         (GLogLevelFlags    level,
                                        const GLogField  *fields,
                                        gsize             n_fields,
                                        gpointer          user_data);

/* ---- one call per event: consistent messages and fields ----
 * Text a caller sent over D-Bus (who, why, what, a device argument) may be
 * passed as is: it is escaped and cut to PP_LOG_CALLER_TEXT_MAX bytes in
 * the message. NULL optional arguments leave their field out. */

#define PP_LOG_CALLER_TEXT_MAX 128

/* INFO. COUNT= FAILED= REASON= ("start", "battery", "reload", ...). */
void         pp_log_policy_applied     (guint             n_written,
                                        guint             n_failed,
                                        const char       *reason);
/* WARNING. DEVICE= ATTRIBUTE= VALUE= ORIGINAL= POWERPOLICY_CLASS= ERROR=. */
void         pp_log_write_failed       (const char       *device,
                                        const char       *attribute,
                                        const char       *value,
                                        const char       *original,
                                        const char       *class_name,
                                        const GError     *error);
/* WARNING. PP_LOG_FOREIGN_CHANGE, or PP_LOG_FOREIGN_GIVE_UP when @given_up.
 * DEVICE= ATTRIBUTE= VALUE= (ours) FOREIGN_VALUE= (theirs) COUNT=
 * POWERPOLICY_CLASS=. */
void         pp_log_foreign_change     (const char       *device,
                                        const char       *attribute,
                                        const char       *ours,
                                        const char       *theirs,
                                        guint             count,
                                        gboolean          given_up,
                                        const char       *class_name);
/* INFO. Set: DEVICE= ATTRIBUTE= (the key) VALUE=; cleared (@set FALSE):
 * DEVICE=. */
void         pp_log_override           (gboolean          set,
                                        const char       *device,
                                        const char       *key,
                                        const char       *value);
/* INFO. DEVICE= WHO= WHY= PID=. */
void         pp_log_hold               (gboolean          taken,
                                        const char       *device,
                                        const char       *who,
                                        const char       *why,
                                        guint32           pid);
/* INFO. WHAT= WHO= WHY= PID=. */
void         pp_log_inhibitor          (gboolean          taken,
                                        const char       *what,
                                        const char       *who,
                                        const char       *why,
                                        guint32           pid);
/* INFO. PP_LOG_SLEEP or, with @resume, PP_LOG_RESUME. SLEEP_STATE= ("mem",
 * "disk", "logind"). */
void         pp_log_sleep              (gboolean          resume,
                                        const char       *state);
/* INFO. QUIRKS= (space-separated, "none" when empty) QUIRKS_SOURCE=. */
void         pp_log_quirks_selected    (const char * const *quirks,
                                        const char       *source);
/* WARNING. HELPER= PHASE= PID= TIMEOUT_SEC=. */
void         pp_log_helper_killed      (const char       *helper,
                                        const char       *phase,
                                        gint64            pid,
                                        guint             timeout_sec);

G_END_DECLS
