/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the structured event log (pp-log.c): the record's
 * fields (caller text escaped by pp_escape_text(), whose table is in
 * test-util.c), the events as GLib's structured logging receives them
 * (pp-log-capture.h) and the real way to the journal, through GLib's
 * journald writer to a stand-in journald in a private mount namespace. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pp-test.h"
#include "pp-log-capture.h"

#define ELLIPSIS "\xe2\x80\xa6"

/* ---- events ---- */

static void
test_message_ids (void **state)
{
  g_autoptr(GHashTable) seen_ids = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) seen_names = g_hash_table_new (g_str_hash, g_str_equal);

  (void) state;
  for (PpLogEvent e = 0; e < PP_LOG_N_EVENTS; e++)
    {
      const char *id = pp_log_event_message_id (e);
      const char *name = pp_log_event_name (e);

      assert_non_null (id);
      assert_non_null (name);
      assert_int_equal (strlen (id), 32);
      for (const char *p = id; *p; p++)
        assert_true (g_ascii_isxdigit (*p) && !g_ascii_isupper (*p));
      assert_true (g_hash_table_add (seen_ids, (gpointer) id));
      assert_true (g_hash_table_add (seen_names, (gpointer) name));
    }
  /* released ids are fixed */
  assert_string_equal (pp_log_event_message_id (PP_LOG_FOREIGN_CHANGE),
                       "98f4495805b8407391b6d2d2ab0470f9");
  assert_string_equal (pp_log_event_name (PP_LOG_FOREIGN_CHANGE), "foreign-change");
}

static void
test_priorities (void **state)
{
  (void) state;
  assert_string_equal (pp_log_level_priority (G_LOG_LEVEL_CRITICAL), "4");
  assert_string_equal (pp_log_level_priority (G_LOG_LEVEL_WARNING), "4");
  assert_string_equal (pp_log_level_priority (G_LOG_LEVEL_MESSAGE), "5");
  assert_string_equal (pp_log_level_priority (G_LOG_LEVEL_INFO), "6");
  assert_string_equal (pp_log_level_priority (G_LOG_LEVEL_DEBUG), "7");
}

static void
test_format_record (void **state)
{
  g_autofree char *record = NULL;

  (void) state;
  record = pp_log_capture_format_record (PP_LOG_WRITE_FAILED, G_LOG_LEVEL_WARNING,
                                         PP_LOG_FIELDS ({ "DEVICE", "/sys/devices/pci0000:00/0000:00:14.0" },
                                                        { "ATTRIBUTE", "power/control" },
                                                        { "VALUE", "auto" },
                                                        { "ORIGINAL", NULL },
                                                        { "POWERPOLICY_CLASS", "usb-controller" }),
                                         "cannot write 'auto' to power/control: Permission denied");
  assert_string_equal (record,
                       "MESSAGE_ID=997f4a4bb4194c6cacda2b3246e1ed26\n"
                       "POWERPOLICY_EVENT=write-failed\n"
                       "PRIORITY=4\n"
                       "MESSAGE=cannot write 'auto' to power/control: Permission denied\n"
                       "DEVICE=/sys/devices/pci0000:00/0000:00:14.0\n"
                       "ATTRIBUTE=power/control\n"
                       "VALUE=auto\n"
                       "POWERPOLICY_CLASS=usb-controller\n"
                       "\n");
}

/* Caller text cannot add lines or fields to a record. */
static void
test_format_record_escapes (void **state)
{
  g_autofree char *record = NULL;

  (void) state;
  record = pp_log_capture_format_record (PP_LOG_HOLD_TAKEN, G_LOG_LEVEL_INFO,
                                         PP_LOG_FIELDS ({ "WHO", "evil\nMESSAGE_ID=0" },
                                                        { "WHY", "\x1b]0;title\a" }),
                                         "hold by evil\nPRIORITY=0");
  assert_string_equal (record,
                       "MESSAGE_ID=3ac38327f50c4070a7eb435d6d539652\n"
                       "POWERPOLICY_EVENT=hold-taken\n"
                       "PRIORITY=6\n"
                       "MESSAGE=hold by evil\\nPRIORITY=0\n"
                       "WHO=evil\\nMESSAGE_ID=0\n"
                       "WHY=\\x1b]0;title\\x07\n"
                       "\n");
}

/* Keys that break journal rules or that the module sets itself are left
 * out; so are NULL values. */
static void
test_format_record_keys (void **state)
{
  g_autofree char *record = NULL;
  g_autofree char *long_key = g_strnfill (65, 'K');
  g_autofree char *max_key = g_strnfill (64, 'K');
  g_autofree char *expected = NULL;

  (void) state;
  record = pp_log_capture_format_record (PP_LOG_SLEEP, G_LOG_LEVEL_INFO,
                                         PP_LOG_FIELDS ({ "lower", "x" },
                                                        { "_TRUSTED", "x" },
                                                        { "1ST", "x" },
                                                        { "", "x" },
                                                        { "WITH-DASH", "x" },
                                                        { long_key, "x" },
                                                        { "MESSAGE", "x" },
                                                        { "PRIORITY", "0" },
                                                        { "MESSAGE_ID", "x" },
                                                        { "NULL_VALUE", NULL },
                                                        { max_key, "ok" },
                                                        { "SLEEP_STATE", "mem" }),
                                         "suspending");
  expected = g_strdup_printf ("MESSAGE_ID=abf7000e4cd24210887305bcc2f052e2\n"
                              "POWERPOLICY_EVENT=sleep\n"
                              "PRIORITY=6\n"
                              "MESSAGE=suspending\n"
                              "%s=ok\n"
                              "SLEEP_STATE=mem\n"
                              "\n", max_key);
  assert_string_equal (record, expected);
}

/* Values and message are bounded; so is the number of fields. */
static void
test_format_record_bounds (void **state)
{
  g_autofree char *huge = g_strnfill (100000, 'x');
  g_autoptr(GArray) fields = g_array_new (TRUE, TRUE, sizeof (PpLogField));
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *record = NULL;
  g_auto(GStrv) lines = NULL;
  guint n_fields = 0;

  (void) state;
  for (guint i = 0; i < PP_LOG_MAX_FIELDS + 5; i++)
    {
      char *key = g_strdup_printf ("F%u", i);
      PpLogField f = { key, huge };

      g_ptr_array_add (keys, key);
      g_array_append_val (fields, f);
    }
  record = pp_log_capture_format_record (PP_LOG_POLICY_APPLIED, G_LOG_LEVEL_INFO,
                                         (const PpLogField *) fields->data, huge);
  lines = g_strsplit (record, "\n", 0);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "MESSAGE="))
        assert_true (strlen (lines[i]) - strlen ("MESSAGE=") <= PP_LOG_MESSAGE_MAX);
      else if (lines[i][0] == 'F')
        {
          const char *value = strchr (lines[i], '=') + 1;
          assert_true (strlen (value) <= PP_LOG_FIELD_MAX);
          assert_true (g_str_has_suffix (value, ELLIPSIS));
          n_fields++;
        }
    }
  assert_int_equal (n_fields, PP_LOG_MAX_FIELDS);
}

/* ---- where events go ---- */

static int
setup (void **state)
{
  g_free (pp_log_capture_take ());
  return 0;
}

/* Every event reaches GLib's structured logging with its fields, debug
 * ones too (whether they are shown is the writer's business). */
static void
test_events_logged (void **state)
{
  g_autofree char *contents = NULL;
  g_autofree char *expected = NULL;

  (void) state;
  pp_log_event (PP_LOG_OVERRIDE_SET, G_LOG_LEVEL_INFO,
                PP_LOG_FIELDS ({ "DEVICE", "/sys/devices/usb1/1-2" },
                               { "ATTRIBUTE", "power/control" },
                               { "VALUE", "on" }),
                "override on %s: %s=%s", "/sys/devices/usb1/1-2", "power/control", "on");
  pp_log_event (PP_LOG_POLICY_APPLIED, G_LOG_LEVEL_DEBUG,
                PP_LOG_FIELDS ({ "COUNT", "12" }),
                "policy applied: %d writes", 12);
  pp_log_event (PP_LOG_RESUME, G_LOG_LEVEL_INFO, NULL, "resumed");

  contents = pp_log_capture_take ();
  expected = g_strconcat ("MESSAGE_ID=b2352fd3f8d74d0985962be1423f6079\n"
                          "POWERPOLICY_EVENT=override-set\n"
                          "PRIORITY=6\n"
                          "MESSAGE=override on /sys/devices/usb1/1-2: power/control=on\n"
                          "DEVICE=/sys/devices/usb1/1-2\n"
                          "ATTRIBUTE=power/control\n"
                          "VALUE=on\n"
                          "\n",
                          "MESSAGE_ID=ba005311daf1443f94941e4734a9e236\n"
                          "POWERPOLICY_EVENT=policy-applied\n"
                          "PRIORITY=7\n"
                          "MESSAGE=policy applied: 12 writes\n"
                          "COUNT=12\n"
                          "\n",
                          "MESSAGE_ID=2c1d5cc6ce654d2b8d8520f5e6efa8a6\n"
                          "POWERPOLICY_EVENT=resume\n"
                          "PRIORITY=6\n"
                          "MESSAGE=resumed\n"
                          "\n", NULL);
  assert_string_equal (contents, expected);
}

/* A socket of @type bound (@op bind) or connected (@op connect) to @path. */
static int
unix_socket (int type, const char *path, int (*op) (int, const struct sockaddr *, socklen_t))
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int fd = socket (AF_UNIX, type | SOCK_CLOEXEC, 0);

  assert_true (fd >= 0);
  g_strlcpy (addr.sun_path, path, sizeof (addr.sun_path));
  if (op (fd, (struct sockaddr *) &addr, sizeof (addr)) != 0)
    fail_msg ("%s: %s", path, g_strerror (errno));
  return fd;
}

/* One datagram of journald's native protocol as "KEY=VALUE\n" lines (a
 * binary field, KEY\n, 64-bit little-endian size, data, \n, the same);
 * NULL when none comes within @timeout_ms. */
static char *
receive_record (int fd, int timeout_ms)
{
  static char buf[256 * 1024];
  struct pollfd p = { fd, POLLIN, 0 };
  GString *out;
  gsize pos = 0;
  ssize_t n;

  if (poll (&p, 1, timeout_ms) != 1)
    return NULL;
  n = recv (fd, buf, sizeof (buf), 0);
  assert_true (n > 0);
  out = g_string_new (NULL);
  while (pos < (gsize) n)
    {
      const char *nl = memchr (buf + pos, '\n', n - pos);
      gsize len = nl ? (gsize) (nl - (buf + pos)) : n - pos;

      if (memchr (buf + pos, '=', len) != NULL)
        {
          g_string_append_len (out, buf + pos, len);
          g_string_append_c (out, '\n');
          pos += len + 1;
        }
      else
        {
          guint64 size = 0;

          assert_true (pos + len + 1 + 8 <= (gsize) n);
          for (int i = 7; i >= 0; i--)
            size = (size << 8) | (guint8) buf[pos + len + 1 + i];
          g_string_append_len (out, buf + pos, len);
          g_string_append_c (out, '=');
          g_string_append_len (out, buf + pos + len + 1 + 8, size);
          g_string_append_c (out, '\n');
          pos += len + 1 + 8 + size + 1;
        }
    }
  return g_string_free (out, FALSE);
}

/* The journal, no hook: in a private mount namespace whose /run is a
 * tmpfs, a stand-in journald listens where systemd's does. Standard error
 * connected to /run/systemd/journal/stdout is what
 * g_log_writer_is_journald() recognizes; GLib's journald writer then
 * sends each event to /run/systemd/journal/socket. */
static void
test_journald (void **state)
{
  g_autofree char *r1 = NULL;
  g_autofree char *r2 = NULL;
  g_autofree char *r3 = NULL;
  g_autoptr(GError) error = g_error_new_literal (G_FILE_ERROR, G_FILE_ERROR_NOSPC,
                                                 "No space left on device");
  int journal, listener, client, server, saved;

  (void) state;
  if (unshare (CLONE_NEWNS) != 0)
    {
      print_message ("SKIP: no private mount namespace (%s): needs root\n", g_strerror (errno));
      skip ();
    }
  /* nothing mounted here reaches the machine's namespace */
  assert_int_equal (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
  assert_int_equal (mount ("pp-test-run", "/run", "tmpfs", 0, "mode=0755"), 0);
  assert_int_equal (g_mkdir_with_parents ("/run/systemd/journal", 0755), 0);
  journal = unix_socket (SOCK_DGRAM, "/run/systemd/journal/socket", bind);
  listener = unix_socket (SOCK_STREAM, "/run/systemd/journal/stdout", bind);
  assert_int_equal (listen (listener, 1), 0);
  client = unix_socket (SOCK_STREAM, "/run/systemd/journal/stdout", connect);
  server = accept (listener, NULL, NULL);
  assert_true (server >= 0);

  saved = dup (STDERR_FILENO);
  assert_true (dup2 (client, STDERR_FILENO) == STDERR_FILENO);
  pp_log_capture.off = TRUE;
  g_log_set_debug_enabled (FALSE);
  /* an informational event goes to the journal without --verbose; a
   * debug one does not */
  pp_log_override (TRUE, "1-2", "Control", "on\x1b");
  pp_log_event (PP_LOG_POLICY_APPLIED, G_LOG_LEVEL_DEBUG, NULL, "not without --verbose");
  pp_log_write_failed ("/sys/devices/usb1/1-2", "power/control", "auto", "on", "usb", error);
  pp_log_capture.off = FALSE;
  assert_true (dup2 (saved, STDERR_FILENO) == STDERR_FILENO);
  close (saved);

  r1 = receive_record (journal, 5000);
  r2 = receive_record (journal, 5000);
  r3 = receive_record (journal, 0);
  assert_non_null (r1);
  assert_true (g_str_has_prefix (r1, "MESSAGE_ID=b2352fd3f8d74d0985962be1423f6079\n"
                                     "POWERPOLICY_EVENT=override-set\n"
                                     "PRIORITY=6\n"
                                     "MESSAGE=Override on 1-2: Control=on\\x1b\n"
                                     "DEVICE=1-2\n"
                                     "ATTRIBUTE=Control\n"
                                     "VALUE=on\\x1b\n"
                                     "GLIB_DOMAIN=powerpolicyd\n"
                                     "SYSLOG_IDENTIFIER="));
  assert_non_null (r2);
  assert_true (g_str_has_prefix (r2, "MESSAGE_ID=997f4a4bb4194c6cacda2b3246e1ed26\n"
                                     "POWERPOLICY_EVENT=write-failed\n"
                                     "PRIORITY=4\n"
                                     "MESSAGE=Cannot write 'auto' to /sys/devices/usb1/1-2/power/control: "
                                     "No space left on device\n"
                                     "DEVICE=/sys/devices/usb1/1-2\n"
                                     "ATTRIBUTE=power/control\n"
                                     "VALUE=auto\n"
                                     "ORIGINAL=on\n"
                                     "POWERPOLICY_CLASS=usb\n"
                                     "ERROR=No space left on device\n"));
  assert_null (r3);
  close (server);
  close (client);
  close (listener);
  close (journal);
}

/* ---- one call per event ---- */

static void
test_helpers (void **state)
{
  g_autoptr(GError) error = g_error_new_literal (G_FILE_ERROR, G_FILE_ERROR_ACCES,
                                                 "Permission denied");
  const char *quirks[] = { "vbe_post", "dpms_on", NULL };
  g_autofree char *r = NULL;

  (void) state;
  pp_log_policy_applied (1, 0, "start");
  r = pp_log_capture_take ();
  assert_string_equal (r, "MESSAGE_ID=ba005311daf1443f94941e4734a9e236\n"
                          "POWERPOLICY_EVENT=policy-applied\nPRIORITY=6\n"
                          "MESSAGE=Policy applied (start): 1 write, 0 failed\n"
                          "COUNT=1\nFAILED=0\nREASON=start\n\n");
  g_clear_pointer (&r, g_free);

  pp_log_write_failed ("/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/scsi_host/host0",
                       "link_power_management_policy", "med_power_with_dipm", "max_performance",
                       "sata", error);
  r = pp_log_capture_take ();
  assert_string_equal (r, "MESSAGE_ID=997f4a4bb4194c6cacda2b3246e1ed26\n"
                          "POWERPOLICY_EVENT=write-failed\nPRIORITY=4\n"
                          "MESSAGE=Cannot write 'med_power_with_dipm' to "
                          "/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/scsi_host/host0/"
                          "link_power_management_policy: Permission denied\n"
                          "DEVICE=/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/scsi_host/host0\n"
                          "ATTRIBUTE=link_power_management_policy\n"
                          "VALUE=med_power_with_dipm\nORIGINAL=max_performance\n"
                          "POWERPOLICY_CLASS=sata\nERROR=Permission denied\n\n");
  g_clear_pointer (&r, g_free);

  pp_log_foreign_change ("/sys/devices/usb1/1-2", "power/control", "auto", "on\x1b", 1, FALSE, NULL);
  r = pp_log_capture_take ();
  assert_string_equal (r, "MESSAGE_ID=98f4495805b8407391b6d2d2ab0470f9\n"
                          "POWERPOLICY_EVENT=foreign-change\nPRIORITY=4\n"
                          "MESSAGE=/sys/devices/usb1/1-2/power/control changed by another program "
                          "(ours 'auto', found 'on\\x1b')\n"
                          "DEVICE=/sys/devices/usb1/1-2\nATTRIBUTE=power/control\n"
                          "VALUE=auto\nFOREIGN_VALUE=on\\x1b\nCOUNT=1\n\n");
  g_clear_pointer (&r, g_free);

  pp_log_foreign_change ("/sys/devices/usb1/1-2", "power/control", "auto", "on", 3, TRUE, "usb");
  r = pp_log_capture_take ();
  assert_string_equal (r, "MESSAGE_ID=0df4d9c569ac4de1b533afda9607c70f\n"
                          "POWERPOLICY_EVENT=foreign-give-up\nPRIORITY=4\n"
                          "MESSAGE=/sys/devices/usb1/1-2/power/control changed by another program "
                          "3 times (ours 'auto', found 'on'): no longer writing it until Reload\n"
                          "DEVICE=/sys/devices/usb1/1-2\nATTRIBUTE=power/control\n"
                          "VALUE=auto\nFOREIGN_VALUE=on\nCOUNT=3\nPOWERPOLICY_CLASS=usb\n\n");
  g_clear_pointer (&r, g_free);

  pp_log_override (TRUE, "1-2", "Control", "on");
  pp_log_override (FALSE, "1-2\n", NULL, NULL);
  r = pp_log_capture_take ();
  assert_string_equal (r, "MESSAGE_ID=b2352fd3f8d74d0985962be1423f6079\n"
                          "POWERPOLICY_EVENT=override-set\nPRIORITY=6\n"
                          "MESSAGE=Override on 1-2: Control=on\n"
                          "DEVICE=1-2\nATTRIBUTE=Control\nVALUE=on\n\n"
                          "MESSAGE_ID=1d414b0dc75643abb5be14c1ff730117\n"
                          "POWERPOLICY_EVENT=override-cleared\nPRIORITY=6\n"
                          "MESSAGE=Overrides of 1-2\\n cleared\n"
                          "DEVICE=1-2\\n\n\n");
  g_clear_pointer (&r, g_free);

  /* a caller's who and why: escaped, cut in the message */
  {
    g_autofree char *long_why = g_strnfill (1000, 'w');
    g_autofree char *expected = NULL;
    g_autofree char *cut = g_strnfill (PP_LOG_CALLER_TEXT_MAX - 3, 'w');
    g_autofree char *field_cut = g_strnfill (PP_LOG_FIELD_MAX - 3, 'w');

    pp_log_hold (TRUE, "/sys/devices/usb1/1-2", "evil\nPRIORITY=0", long_why, 4242);
    r = pp_log_capture_take ();
    expected = g_strdup_printf ("MESSAGE_ID=3ac38327f50c4070a7eb435d6d539652\n"
                                "POWERPOLICY_EVENT=hold-taken\nPRIORITY=6\n"
                                "MESSAGE=Hold on /sys/devices/usb1/1-2 taken by evil\\nPRIORITY=0 "
                                "(%s" ELLIPSIS "), pid 4242\n"
                                "DEVICE=/sys/devices/usb1/1-2\nWHO=evil\\nPRIORITY=0\n"
                                "WHY=%s" ELLIPSIS "\nPID=4242\n\n",
                                cut, field_cut);
    assert_string_equal (r, expected);
    g_clear_pointer (&r, g_free);
  }

  pp_log_hold (FALSE, "/sys/devices/usb1/1-2", "udisks", "format", 1);
  r = pp_log_capture_take ();
  assert_non_null (strstr (r, "MESSAGE_ID=ea18fa59500a459a93d8a3c2be3980a5\n"));
  assert_non_null (strstr (r, "MESSAGE=Hold on /sys/devices/usb1/1-2 released by udisks (format), pid 1\n"));
  g_clear_pointer (&r, g_free);

  pp_log_inhibitor (TRUE, "idle:lid", "gnome-shell", "presentation", 77);
  pp_log_inhibitor (FALSE, "idle:lid", "gnome-shell", "presentation", 77);
  r = pp_log_capture_take ();
  assert_string_equal (r, "MESSAGE_ID=64a5b49d06124bc6b07a9f27b498a164\n"
                          "POWERPOLICY_EVENT=inhibitor-taken\nPRIORITY=6\n"
                          "MESSAGE=Inhibitor of idle:lid taken by gnome-shell (presentation), pid 77\n"
                          "WHAT=idle:lid\nWHO=gnome-shell\nWHY=presentation\nPID=77\n\n"
                          "MESSAGE_ID=e544dca42ee542ad9d5c750c6cc1142b\n"
                          "POWERPOLICY_EVENT=inhibitor-released\nPRIORITY=6\n"
                          "MESSAGE=Inhibitor of idle:lid released by gnome-shell (presentation), pid 77\n"
                          "WHAT=idle:lid\nWHO=gnome-shell\nWHY=presentation\nPID=77\n\n");
  g_clear_pointer (&r, g_free);

  pp_log_sleep (FALSE, "mem");
  pp_log_sleep (TRUE, NULL);
  r = pp_log_capture_take ();
  assert_string_equal (r, "MESSAGE_ID=abf7000e4cd24210887305bcc2f052e2\n"
                          "POWERPOLICY_EVENT=sleep\nPRIORITY=6\n"
                          "MESSAGE=Preparing for sleep: mem\nSLEEP_STATE=mem\n\n"
                          "MESSAGE_ID=2c1d5cc6ce654d2b8d8520f5e6efa8a6\n"
                          "POWERPOLICY_EVENT=resume\nPRIORITY=6\n"
                          "MESSAGE=Resumed: re-applying the policy\n\n");
  g_clear_pointer (&r, g_free);

  pp_log_quirks_selected (quirks, "quirk database");
  pp_log_quirks_selected (NULL, NULL);
  r = pp_log_capture_take ();
  assert_string_equal (r, "MESSAGE_ID=33c483caab5d479cbcbb1bfc4a54aea7\n"
                          "POWERPOLICY_EVENT=quirks-selected\nPRIORITY=6\n"
                          "MESSAGE=Video quirks: vbe_post dpms_on (quirk database)\n"
                          "QUIRKS=vbe_post dpms_on\nQUIRKS_SOURCE=quirk database\n\n"
                          "MESSAGE_ID=33c483caab5d479cbcbb1bfc4a54aea7\n"
                          "POWERPOLICY_EVENT=quirks-selected\nPRIORITY=6\n"
                          "MESSAGE=Video quirks: none\nQUIRKS=none\n\n");
  g_clear_pointer (&r, g_free);

  pp_log_helper_killed ("powerpolicy-video-restore", "suspend", 31337, 10);
  r = pp_log_capture_take ();
  assert_string_equal (r, "MESSAGE_ID=4bc76049fcfc4470a2a626079ad464cc\n"
                          "POWERPOLICY_EVENT=helper-killed\nPRIORITY=4\n"
                          "MESSAGE=powerpolicy-video-restore (suspend phase, pid 31337) exceeded 10 s: killed\n"
                          "HELPER=powerpolicy-video-restore\nPHASE=suspend\nPID=31337\nTIMEOUT_SEC=10\n\n");
}

/* Not only events: any message through pp_log_writer() (a device's name
 * in "Watching ...") is escaped on its way to standard error. */
static void
test_writer_escapes_messages (void **state)
{
  static const char message[] = "Watching /dev/input/event3 (Evil\x1b[2J\x07\nFORGED: all is well\xff)";
  const GLogField fields[] = {
    { "GLIB_DOMAIN", "pp-input", -1 },
    { "PRIORITY", "4", -1 },
    { "MESSAGE", message, -1 },
  };
  char buf[4096];
  gssize n;
  int pipe_fds[2], saved;

  (void) state;
  assert_int_equal (pipe (pipe_fds), 0);
  saved = dup (STDERR_FILENO);
  assert_true (dup2 (pipe_fds[1], STDERR_FILENO) == STDERR_FILENO);
  pp_log_writer (G_LOG_LEVEL_WARNING, fields, G_N_ELEMENTS (fields), NULL);
  fflush (stderr);
  assert_true (dup2 (saved, STDERR_FILENO) == STDERR_FILENO);
  close (saved);
  close (pipe_fds[1]);
  n = read (pipe_fds[0], buf, sizeof buf - 1);
  close (pipe_fds[0]);
  assert_true (n > 0);
  buf[n] = '\0';
  assert_non_null (strstr (buf, "(Evil\\x1b[2J\\x07\\nFORGED: all is well\\xff)"));
  /* no forged line (GLib's writer puts a blank line before a warning),
   * no escape character */
  assert_null (strstr (buf, "\nFORGED"));
  assert_int_equal (buf[n - 1], '\n');
  assert_null (strchr (buf, '\x1b'));
  assert_null (strchr (buf, '\x07'));
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  pp_log_capture_install ();
  pp_test_list_add (list, "event", "message ids", test_message_ids, NULL, NULL, NULL);
  pp_test_list_add (list, "event", "priorities", test_priorities, NULL, NULL, NULL);
  pp_test_list_add (list, "record", "fields", test_format_record, NULL, NULL, NULL);
  pp_test_list_add (list, "record", "escapes caller text", test_format_record_escapes,
                    NULL, NULL, NULL);
  pp_test_list_add (list, "record", "keys", test_format_record_keys, NULL, NULL, NULL);
  pp_test_list_add (list, "record", "bounds", test_format_record_bounds, NULL, NULL, NULL);
  pp_test_list_add (list, "target", "structured logging", test_events_logged, setup, NULL, NULL);
  pp_test_list_add (list, "target", "journald", test_journald, setup, NULL, NULL);
  pp_test_list_add (list, "target", "escapes every message", test_writer_escapes_messages,
                    NULL, NULL, NULL);
  pp_test_list_add (list, "helpers", "records", test_helpers, setup, NULL, NULL);
  return pp_test_list_run (list, "log");
}
