/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "pp-log.h"
#include "pp-util.h"

#define PP_LOG_DOMAIN "powerpolicyd"

/* Generated once with systemd-id128 new; never change a released one. */
static const struct {
  const char *id;
  const char *name;
} events[PP_LOG_N_EVENTS] = {
  [PP_LOG_POLICY_APPLIED]     = { "ba005311daf1443f94941e4734a9e236", "policy-applied" },
  [PP_LOG_WRITE_FAILED]       = { "997f4a4bb4194c6cacda2b3246e1ed26", "write-failed" },
  [PP_LOG_FOREIGN_CHANGE]     = { "98f4495805b8407391b6d2d2ab0470f9", "foreign-change" },
  [PP_LOG_FOREIGN_GIVE_UP]    = { "0df4d9c569ac4de1b533afda9607c70f", "foreign-give-up" },
  [PP_LOG_CONFLICT_DETECTED]  = { "97f883d66b9848d8b09cf46e0eed065d", "conflict-detected" },
  [PP_LOG_OVERRIDE_SET]       = { "b2352fd3f8d74d0985962be1423f6079", "override-set" },
  [PP_LOG_OVERRIDE_CLEARED]   = { "1d414b0dc75643abb5be14c1ff730117", "override-cleared" },
  [PP_LOG_HOLD_TAKEN]         = { "3ac38327f50c4070a7eb435d6d539652", "hold-taken" },
  [PP_LOG_HOLD_RELEASED]      = { "ea18fa59500a459a93d8a3c2be3980a5", "hold-released" },
  [PP_LOG_INHIBITOR_TAKEN]    = { "64a5b49d06124bc6b07a9f27b498a164", "inhibitor-taken" },
  [PP_LOG_INHIBITOR_RELEASED] = { "e544dca42ee542ad9d5c750c6cc1142b", "inhibitor-released" },
  [PP_LOG_SLEEP]              = { "abf7000e4cd24210887305bcc2f052e2", "sleep" },
  [PP_LOG_RESUME]             = { "2c1d5cc6ce654d2b8d8520f5e6efa8a6", "resume" },
  [PP_LOG_QUIRKS_SELECTED]    = { "33c483caab5d479cbcbb1bfc4a54aea7", "quirks-selected" },
  [PP_LOG_HELPER_KILLED]      = { "4bc76049fcfc4470a2a626079ad464cc", "helper-killed" },
  [PP_LOG_SLEEP_RECORD]       = { "93d17684318b47619ab684159922780b", "sleep-record" },
};

/* Keys this module sets itself; a caller's field of that name is dropped. */
static const char * const reserved_keys[] = {
  "MESSAGE", "MESSAGE_ID", "PRIORITY", "POWERPOLICY_EVENT", "SYSLOG_IDENTIFIER", "GLIB_DOMAIN", NULL
};

const char *
pp_log_event_message_id (PpLogEvent event)
{
  g_return_val_if_fail (event < PP_LOG_N_EVENTS, NULL);
  return events[event].id;
}

const char *
pp_log_event_name (PpLogEvent event)
{
  g_return_val_if_fail (event < PP_LOG_N_EVENTS, NULL);
  return events[event].name;
}

const char *
pp_log_level_priority (GLogLevelFlags level)
{
  /* as GLib's journald writer maps them */
  if (level & G_LOG_LEVEL_ERROR)
    return "3";
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    return "4";
  if (level & G_LOG_LEVEL_MESSAGE)
    return "5";
  if (level & G_LOG_LEVEL_INFO)
    return "6";
  return "7";
}

static gboolean
key_is_valid (const char *key)
{
  gsize len;

  if (key == NULL || key[0] == '\0' || key[0] == '_' || g_ascii_isdigit (key[0]))
    return FALSE;
  len = strlen (key);
  if (len > 64)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      if (!(g_ascii_isupper (key[i]) || g_ascii_isdigit (key[i]) || key[i] == '_'))
        return FALSE;
    }
  return !g_strv_contains (reserved_keys, key);
}

static void
record_add (PpLogRecord *record, const char *key, char *value)
{
  g_assert (record->n_fields < G_N_ELEMENTS (record->fields));
  g_ptr_array_add (record->strings, value);
  record->fields[record->n_fields].key = key;
  record->fields[record->n_fields].value = value;
  record->fields[record->n_fields].length = -1;
  record->n_fields++;
}

void
pp_log_record_init (PpLogRecord      *record,
                    PpLogEvent        event,
                    GLogLevelFlags    level,
                    const PpLogField *fields,
                    const char       *message)
{
  const char *prgname = g_get_prgname ();
  guint n_fields = 0;

  g_return_if_fail (event < PP_LOG_N_EVENTS);
  record->n_fields = 0;
  record->strings = g_ptr_array_new_with_free_func (g_free);
  record_add (record, "MESSAGE_ID", g_strdup (pp_log_event_message_id (event)));
  record_add (record, "POWERPOLICY_EVENT", g_strdup (pp_log_event_name (event)));
  record_add (record, "PRIORITY", g_strdup (pp_log_level_priority (level)));
  record_add (record, "MESSAGE", pp_escape_text (message, PP_LOG_MESSAGE_MAX));
  for (const PpLogField *f = fields; f != NULL && f->key != NULL; f++)
    {
      if (n_fields >= PP_LOG_MAX_FIELDS)
        break;
      if (f->value == NULL || !key_is_valid (f->key))
        continue;
      record_add (record, f->key, pp_escape_text (f->value, PP_LOG_FIELD_MAX));
      n_fields++;
    }
  record_add (record, "GLIB_DOMAIN", g_strdup (PP_LOG_DOMAIN));
  record_add (record, "SYSLOG_IDENTIFIER", g_strdup (prgname != NULL ? prgname : PP_LOG_DOMAIN));
}

void
pp_log_record_clear (PpLogRecord *record)
{
  g_clear_pointer (&record->strings, g_ptr_array_unref);
  record->n_fields = 0;
}

static gboolean
is_event (const GLogField *fields, gsize n_fields)
{
  for (gsize i = 0; i < n_fields; i++)
    if (g_str_equal (fields[i].key, "MESSAGE_ID"))
      return TRUE;
  return FALSE;
}

/* Any message, not only an event, may carry a device's text (an input
 * device's name, a USB string, a sysfs value) or a caller's: its MESSAGE
 * escaped with pp_escape_text() (idempotent: an event's is already) so
 * that no newline or escape sequence reaches a log line or a terminal. */
static GLogWriterOutput
write_escaped (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  g_autofree char *escaped = NULL;
  g_autofree GLogField *copy = NULL;
  gsize d = 0;

  /* what GLib's default writer drops (debug and informational messages
   * without G_MESSAGES_DEBUG) is not escaped first: its domain is the
   * first GLIB_DOMAIN field, as the default writer takes it */
  while (d < n_fields && !g_str_equal (fields[d].key, "GLIB_DOMAIN"))
    d++;
  if ((d == n_fields || fields[d].length < 0) &&
      g_log_writer_default_would_drop (level, d < n_fields ? fields[d].value : NULL))
    return G_LOG_WRITER_HANDLED;

  for (gsize i = 0; i < n_fields; i++)
    {
      const char *message = fields[i].value;

      if (!g_str_equal (fields[i].key, "MESSAGE") || message == NULL)
        continue;
      escaped = fields[i].length < 0 ? pp_escape_text (message, 0)
                                     : pp_escape_text_len (message, (gsize) fields[i].length, 0);
      if (fields[i].length < 0 && g_str_equal (escaped, message))
        break;
      copy = g_memdup2 (fields, n_fields * sizeof (GLogField));
      copy[i].value = escaped;
      copy[i].length = -1;
      return g_log_writer_default (level, copy, n_fields, user_data);
    }
  return g_log_writer_default (level, fields, n_fields, user_data);
}

GLogWriterOutput
pp_log_writer (GLogLevelFlags   level,
               const GLogField *fields,
               gsize            n_fields,
               gpointer         user_data)
{
  /* an event goes to the journal even where GLib's default writer drops
   * informational messages (no --verbose): events are what the journal
   * is for; debug ones only when asked for */
  if (!(level & G_LOG_LEVEL_DEBUG) && is_event (fields, n_fields) &&
      g_log_writer_is_journald (fileno (stderr)) &&
      g_log_writer_journald (level, fields, n_fields, user_data) == G_LOG_WRITER_HANDLED)
    return G_LOG_WRITER_HANDLED;
  return write_escaped (level, fields, n_fields, user_data);
}

void
pp_log_eventv (PpLogEvent        event,
               GLogLevelFlags    level,
               const PpLogField *fields,
               const char       *format,
               va_list           args)
{
  g_autofree char *message = NULL;
  g_auto(PpLogRecord) record = { 0 };

  g_return_if_fail (event < PP_LOG_N_EVENTS);
  g_return_if_fail (format != NULL);
  /* G_LOG_LEVEL_ERROR would abort the daemon: an event is never fatal */
  level &= G_LOG_LEVEL_MASK & ~G_LOG_LEVEL_ERROR;
  if (level == 0)
    level = G_LOG_LEVEL_CRITICAL;

  message = g_strdup_vprintf (format, args);
  pp_log_record_init (&record, event, level, fields, message);
  g_log_structured_array (level, record.fields, record.n_fields);
}

void
pp_log_event (PpLogEvent        event,
              GLogLevelFlags    level,
              const PpLogField *fields,
              const char       *format,
              ...)
{
  va_list args;

  va_start (args, format);
  pp_log_eventv (event, level, fields, format, args);
  va_end (args);
}

/* ---- one call per event ---- */

static char *
caller_text (const char *text)
{
  return pp_escape_text (text, PP_LOG_CALLER_TEXT_MAX);
}

void
pp_log_policy_applied (guint n_written, guint n_failed, const char *reason)
{
  g_autofree char *count = g_strdup_printf ("%u", n_written);
  g_autofree char *failed = g_strdup_printf ("%u", n_failed);

  pp_log_event (PP_LOG_POLICY_APPLIED, G_LOG_LEVEL_INFO,
                PP_LOG_FIELDS ({ "COUNT", count }, { "FAILED", failed }, { "REASON", reason }),
                "Policy applied%s%s%s: %u %s, %u failed",
                reason != NULL ? " (" : "", reason != NULL ? reason : "", reason != NULL ? ")" : "",
                n_written, n_written == 1 ? "write" : "writes", n_failed);
}

void
pp_log_write_failed (const char   *device,
                     const char   *attribute,
                     const char   *value,
                     const char   *original,
                     const char   *class_name,
                     const GError *error)
{
  const char *message = error != NULL ? error->message : "unknown error";

  pp_log_event (PP_LOG_WRITE_FAILED, G_LOG_LEVEL_WARNING,
                PP_LOG_FIELDS ({ "DEVICE", device }, { "ATTRIBUTE", attribute },
                               { "VALUE", value }, { "ORIGINAL", original },
                               { "POWERPOLICY_CLASS", class_name }, { "ERROR", message }),
                "Cannot write '%s' to %s/%s: %s", value, device, attribute, message);
}

void
pp_log_foreign_change (const char *device,
                       const char *attribute,
                       const char *ours,
                       const char *theirs,
                       guint       count,
                       gboolean    given_up,
                       const char *class_name)
{
  g_autofree char *count_text = g_strdup_printf ("%u", count);
  g_autofree char *theirs_text = caller_text (theirs);

  if (given_up)
    pp_log_event (PP_LOG_FOREIGN_GIVE_UP, G_LOG_LEVEL_WARNING,
                  PP_LOG_FIELDS ({ "DEVICE", device }, { "ATTRIBUTE", attribute },
                                 { "VALUE", ours }, { "FOREIGN_VALUE", theirs },
                                 { "COUNT", count_text }, { "POWERPOLICY_CLASS", class_name }),
                  "%s/%s changed by another program %u times (ours '%s', found '%s'): "
                  "no longer writing it until Reload",
                  device, attribute, count, ours, theirs_text);
  else
    pp_log_event (PP_LOG_FOREIGN_CHANGE, G_LOG_LEVEL_WARNING,
                  PP_LOG_FIELDS ({ "DEVICE", device }, { "ATTRIBUTE", attribute },
                                 { "VALUE", ours }, { "FOREIGN_VALUE", theirs },
                                 { "COUNT", count_text }, { "POWERPOLICY_CLASS", class_name }),
                  "%s/%s changed by another program (ours '%s', found '%s')",
                  device, attribute, ours, theirs_text);
}

void
pp_log_override (gboolean set, const char *device, const char *key, const char *value)
{
  g_autofree char *device_text = caller_text (device);

  if (set)
    {
      g_autofree char *value_text = caller_text (value);

      pp_log_event (PP_LOG_OVERRIDE_SET, G_LOG_LEVEL_INFO,
                    PP_LOG_FIELDS ({ "DEVICE", device }, { "ATTRIBUTE", key }, { "VALUE", value }),
                    "Override on %s: %s=%s", device_text, key, value_text);
    }
  else
    pp_log_event (PP_LOG_OVERRIDE_CLEARED, G_LOG_LEVEL_INFO,
                  PP_LOG_FIELDS ({ "DEVICE", device }),
                  "Overrides of %s cleared", device_text);
}

/* A hold or an inhibitor taken or released: "@title @subject taken by
 * WHO (WHY), pid PID", @subject also as the field @subject_key. */
static void
log_token (PpLogEvent  event,
           const char *title,
           const char *subject_key,
           const char *subject,
           gboolean    taken,
           const char *who,
           const char *why,
           guint32     pid)
{
  g_autofree char *subject_text = caller_text (subject);
  g_autofree char *who_text = caller_text (who);
  g_autofree char *why_text = caller_text (why);
  g_autofree char *pid_text = g_strdup_printf ("%u", pid);

  pp_log_event (event, G_LOG_LEVEL_INFO,
                PP_LOG_FIELDS ({ subject_key, subject }, { "WHO", who }, { "WHY", why },
                               { "PID", pid_text }),
                "%s %s %s by %s (%s), pid %u", title, subject_text,
                taken ? "taken" : "released", who_text, why_text, pid);
}

void
pp_log_hold (gboolean    taken,
             const char *device,
             const char *who,
             const char *why,
             guint32     pid)
{
  log_token (taken ? PP_LOG_HOLD_TAKEN : PP_LOG_HOLD_RELEASED, "Hold on",
             "DEVICE", device, taken, who, why, pid);
}

void
pp_log_inhibitor (gboolean    taken,
                  const char *what,
                  const char *who,
                  const char *why,
                  guint32     pid)
{
  log_token (taken ? PP_LOG_INHIBITOR_TAKEN : PP_LOG_INHIBITOR_RELEASED, "Inhibitor of",
             "WHAT", what, taken, who, why, pid);
}

void
pp_log_sleep (gboolean resume, const char *state)
{
  if (resume)
    pp_log_event (PP_LOG_RESUME, G_LOG_LEVEL_INFO,
                  PP_LOG_FIELDS ({ "SLEEP_STATE", state }),
                  "Resumed%s%s: re-applying the policy",
                  state != NULL ? " from " : "", state != NULL ? state : "");
  else
    pp_log_event (PP_LOG_SLEEP, G_LOG_LEVEL_INFO,
                  PP_LOG_FIELDS ({ "SLEEP_STATE", state }),
                  "Preparing for sleep%s%s", state != NULL ? ": " : "", state != NULL ? state : "");
}

void
pp_log_quirks_selected (const char * const *quirks, const char *source)
{
  g_autofree char *joined = NULL;

  if (quirks == NULL || quirks[0] == NULL)
    joined = g_strdup ("none");
  else
    joined = g_strjoinv (" ", (char **) quirks);
  pp_log_event (PP_LOG_QUIRKS_SELECTED, G_LOG_LEVEL_INFO,
                PP_LOG_FIELDS ({ "QUIRKS", joined }, { "QUIRKS_SOURCE", source }),
                "Video quirks: %s%s%s%s", joined,
                source != NULL ? " (" : "", source != NULL ? source : "", source != NULL ? ")" : "");
}

void
pp_log_helper_killed (const char *helper, const char *phase, gint64 pid, guint timeout_sec)
{
  g_autofree char *pid_text = g_strdup_printf ("%" G_GINT64_FORMAT, pid);
  g_autofree char *timeout_text = g_strdup_printf ("%u", timeout_sec);

  pp_log_event (PP_LOG_HELPER_KILLED, G_LOG_LEVEL_WARNING,
                PP_LOG_FIELDS ({ "HELPER", helper }, { "PHASE", phase }, { "PID", pid_text },
                               { "TIMEOUT_SEC", timeout_text }),
                "%s (%s phase, pid %" G_GINT64_FORMAT ") exceeded %u s: killed",
                helper, phase != NULL ? phase : "?", pid, timeout_sec);
}
