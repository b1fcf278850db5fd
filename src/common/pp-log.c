/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

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
  "MESSAGE", "MESSAGE_ID", "PRIORITY", "POWERPOLICY_EVENT", "SYSLOG_IDENTIFIER", NULL
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

/* "KEY=VALUE" strings, in record order, values escaped and bounded. */
static GPtrArray *
record_lines (PpLogEvent        event,
              GLogLevelFlags    level,
              const PpLogField *fields,
              const char       *message)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *escaped_message = pp_escape_text (message, PP_LOG_MESSAGE_MAX);
  guint n_fields = 0;

  g_ptr_array_add (lines, g_strconcat ("MESSAGE_ID=", pp_log_event_message_id (event), NULL));
  g_ptr_array_add (lines, g_strconcat ("POWERPOLICY_EVENT=", pp_log_event_name (event), NULL));
  g_ptr_array_add (lines, g_strconcat ("PRIORITY=", pp_log_level_priority (level), NULL));
  g_ptr_array_add (lines, g_strconcat ("MESSAGE=", escaped_message, NULL));
  for (const PpLogField *f = fields; f != NULL && f->key != NULL; f++)
    {
      g_autofree char *value = NULL;

      if (n_fields >= PP_LOG_MAX_FIELDS)
        break;
      if (f->value == NULL || !key_is_valid (f->key))
        continue;
      value = pp_escape_text (f->value, PP_LOG_FIELD_MAX);
      g_ptr_array_add (lines, g_strconcat (f->key, "=", value, NULL));
      n_fields++;
    }
  return lines;
}

char *
pp_log_format_record (PpLogEvent        event,
                      GLogLevelFlags    level,
                      const PpLogField *fields,
                      const char       *message)
{
  g_autoptr(GPtrArray) lines = NULL;
  GString *record;

  g_return_val_if_fail (event < PP_LOG_N_EVENTS, NULL);
  lines = record_lines (event, level, fields, message);
  record = g_string_new (NULL);
  for (guint i = 0; i < lines->len; i++)
    {
      g_string_append (record, g_ptr_array_index (lines, i));
      g_string_append_c (record, '\n');
    }
  g_string_append_c (record, '\n');
  return g_string_free (record, FALSE);
}

gboolean
pp_log_stream_is_journal (const char *journal_stream, int fd)
{
  g_auto(GStrv) parts = NULL;
  guint64 dev, ino;
  struct stat st;

  if (journal_stream == NULL || fd < 0)
    return FALSE;
  parts = g_strsplit (journal_stream, ":", 0);
  if (g_strv_length (parts) != 2 ||
      !g_ascii_string_to_unsigned (parts[0], 10, 0, G_MAXUINT64, &dev, NULL) ||
      !g_ascii_string_to_unsigned (parts[1], 10, 0, G_MAXUINT64, &ino, NULL))
    return FALSE;
  if (fstat (fd, &st) != 0)
    return FALSE;
  return (guint64) st.st_dev == dev && (guint64) st.st_ino == ino;
}

PpLogTarget
pp_log_get_target (void)
{
  if (pp_log_stream_is_journal (g_getenv ("JOURNAL_STREAM"), STDERR_FILENO))
    return PP_LOG_TARGET_JOURNAL;
  return PP_LOG_TARGET_GLIB;
}

static gboolean
write_all (int fd, const char *data, gsize len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      data += n;
      len -= n;
    }
  return TRUE;
}

/* The test stand-in for the journal: append one record to @path. */
static void
append_to_file (const char *path, const char *record)
{
  static gint warned = 0;
  int fd;
  int saved_errno = 0;

  fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0 || !write_all (fd, record, strlen (record)))
    saved_errno = errno;
  if (fd >= 0)
    close (fd);
  if (saved_errno != 0 && g_atomic_int_compare_and_exchange (&warned, 0, 1))
    g_log (PP_LOG_DOMAIN, G_LOG_LEVEL_WARNING, "cannot write log records to %s: %s",
           path, g_strerror (saved_errno));
}

static void
send_to_journal (PpLogEvent        event,
                 GLogLevelFlags    level,
                 const PpLogField *fields,
                 const char       *message)
{
  g_autoptr(GPtrArray) lines = record_lines (event, level, fields, message);
  const char *prgname = g_get_prgname ();
  g_autofree char *identifier = g_strconcat ("SYSLOG_IDENTIFIER=",
                                             prgname != NULL ? prgname : PP_LOG_DOMAIN,
                                             NULL);
  g_autofree struct iovec *iov = g_new0 (struct iovec, lines->len + 1);

  for (guint i = 0; i < lines->len; i++)
    {
      iov[i].iov_base = g_ptr_array_index (lines, i);
      iov[i].iov_len = strlen (g_ptr_array_index (lines, i));
    }
  iov[lines->len].iov_base = identifier;
  iov[lines->len].iov_len = strlen (identifier);
  if (sd_journal_sendv (iov, lines->len + 1) < 0)
    {
      /* the journal went away: keep the event on stderr */
      g_autofree char *escaped = pp_escape_text (message, PP_LOG_MESSAGE_MAX);
      g_log (PP_LOG_DOMAIN, level, "%s", escaped);
    }
}

void
pp_log_eventv (PpLogEvent        event,
               GLogLevelFlags    level,
               const PpLogField *fields,
               const char       *format,
               va_list           args)
{
  g_autofree char *message = NULL;
  const char *file;

  g_return_if_fail (event < PP_LOG_N_EVENTS);
  g_return_if_fail (format != NULL);
  /* G_LOG_LEVEL_ERROR would abort the daemon: an event is never fatal */
  level &= G_LOG_LEVEL_MASK & ~G_LOG_LEVEL_ERROR;
  if (level == 0)
    level = G_LOG_LEVEL_CRITICAL;

  message = g_strdup_vprintf (format, args);

  file = g_getenv (PP_LOG_JOURNAL_FILE_ENV);
  if (file != NULL && file[0] != '\0')
    {
      g_autofree char *record = pp_log_format_record (event, level, fields, message);
      append_to_file (file, record);
    }

  if (pp_log_get_target () == PP_LOG_TARGET_JOURNAL)
    {
      /* debug events only when asked for (--verbose, G_MESSAGES_DEBUG);
       * informational ones always: they are what the journal is for */
      if ((level & G_LOG_LEVEL_DEBUG) && g_log_writer_default_would_drop (level, PP_LOG_DOMAIN))
        return;
      send_to_journal (event, level, fields, message);
    }
  else
    {
      g_autofree char *escaped = pp_escape_text (message, PP_LOG_MESSAGE_MAX);
      g_log (PP_LOG_DOMAIN, level, "%s", escaped);
    }
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
