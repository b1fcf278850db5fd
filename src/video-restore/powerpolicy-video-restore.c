/* SPDX-License-Identifier: GPL-2.0-or-later */
/* powerpolicy-video-restore suspend|resume QUIRK...
 *
 * The restore helper powerpolicyd runs around system sleep
 * (powerpolicyd(8), SYSTEM SLEEP, LID AND VIDEO QUIRKS):
 * pm-utils' 99video in C. It saves video state before sleep and restores
 * it on resume with vbetool, radeontool and chvt when they are installed
 * (a missing tool is logged and skipped); reset_brightness and save_pci
 * go through the daemon's checked sysfs writer (pp-sysfs.h: no symlink
 * followed at the attribute, nothing written outside /sys/devices).
 * Self-contained otherwise: GLib only, no daemon code, so it runs even
 * when the daemon is unwell.
 * State between the phases lives in $POWERPOLICY_VIDEO_RESTORE_STATE
 * (default /run/powerpolicy/video-restore). The daemon kills it after
 * QuirkTimeoutSec. The kernel-flag quirks s3_bios/s3_mode are the
 * daemon's, not the helper's. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "pp-enums.h"
#include "pp-names.h"
#include "pp-sysfs.h"

#define DEFAULT_STATE_DIR PP_RUNTIMEDIR "/video-restore"
#define CHVT_TARGET       "63"

static const char *state_dir;
static GHashTable *quirks;
static int failures;

static gboolean
has (const char *quirk)
{
  return g_hash_table_contains (quirks, quirk);
}

static void
say (const char *fmt, ...) G_GNUC_PRINTF (1, 2);

static void
say (const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  fputs ("powerpolicy-video-restore: ", stderr);
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
  va_end (ap);
}

static char *
state_file (const char *name)
{
  return g_build_filename (state_dir, name, NULL);
}

/* Run TOOL ARGS... (stdin from @in_file, stdout to @out_file when not
 * NULL). A tool that is not installed is logged and skipped. */
static gboolean
run_tool (const char *in_file, const char *out_file, char **out_text,
          const char *tool, ...) G_GNUC_NULL_TERMINATED;

static gboolean
run_tool (const char *in_file, const char *out_file, char **out_text, const char *tool, ...)
{
  g_autofree char *path = g_find_program_in_path (tool);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *cmdline = NULL;
  g_autofree char *input = NULL;
  int status = 0;
  const char *arg;
  va_list ap;

  if (path == NULL)
    {
      say ("%s is not installed, skipping it", tool);
      return FALSE;
    }
  g_ptr_array_add (argv, path);
  va_start (ap, tool);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  cmdline = g_strjoinv (" ", (char **) argv->pdata);

  if (in_file != NULL)
    {
      int fd = open (in_file, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        {
          say ("%s: %s, skipping '%s'", in_file, g_strerror (errno), cmdline);
          failures++;
          return FALSE;
        }
      /* the child inherits stdin */
      if (dup2 (fd, STDIN_FILENO) < 0)
        {
          close (fd);
          failures++;
          return FALSE;
        }
      close (fd);
    }

  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL,
                     G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL,
                     &out, NULL, &status, &error))
    {
      say ("%s: %s", cmdline, error->message);
      failures++;
      return FALSE;
    }
  if (!g_spawn_check_wait_status (status, &error))
    {
      say ("%s: %s", cmdline, error->message);
      failures++;
      return FALSE;
    }
  if (out_file != NULL && !g_file_set_contents (out_file, out, -1, &error))
    {
      say ("%s", error->message);
      failures++;
      return FALSE;
    }
  if (out_text != NULL)
    *out_text = g_steal_pointer (&out);
  say ("ran %s", cmdline);
  return TRUE;
}

/* Write @len bytes of @data to the attribute @path names through a
 * class link (/sys/class/backlight/X/brightness): its directory is
 * resolved, then the daemon's checked writer refuses a symlinked
 * attribute and anything outside /sys/devices. */
static gboolean
write_devices_attr_bytes (const char *path, const void *data, gsize len)
{
  static const char * const roots[] = { PP_SYSFS_DEVICES, NULL };
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *real_dir = realpath (dir, NULL);
  g_autofree char *real = NULL;
  g_autoptr(GError) error = NULL;

  if (real_dir == NULL)
    {
      say ("%s: %s", dir, g_strerror (errno));
      failures++;
      return FALSE;
    }
  real = g_build_filename (real_dir, base, NULL);
  if (!pp_sysfs_write_bytes (real, data, len, roots, &error))
    {
      say ("%s", error->message);
      failures++;
      return FALSE;
    }
  return TRUE;
}

static gboolean
write_devices_attr (const char *path, const char *value)
{
  return write_devices_attr_bytes (path, value, strlen (value));
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static char *
first_vga_device (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/sys/bus/pci/devices", 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (dir == NULL)
    return NULL;
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = g_ptr_array_index (names, i);
      g_autofree char *dev = g_build_filename ("/sys/bus/pci/devices", n, NULL);
      g_autofree char *cls_path = g_build_filename (dev, "class", NULL);
      g_autofree char *cls = NULL;

      if (g_file_get_contents (cls_path, &cls, NULL, NULL) && g_str_has_prefix (cls, "0x030000"))
        return g_steal_pointer (&dev);
    }
  return NULL;
}

/* ---- quirks ----------------------------------------------------------- */

static void
save_pci (void)
{
  g_autofree char *dev = first_vga_device ();
  g_autofree char *config = NULL;
  g_autofree char *data = NULL;
  g_autofree char *saved = state_file ("pci-config");
  g_autoptr(GError) error = NULL;
  gsize len;

  if (dev == NULL)
    {
      say ("save_pci: no VGA device");
      return;
    }
  config = g_build_filename (dev, "config", NULL);
  if (!g_file_get_contents (config, &data, &len, &error))
    {
      say ("save_pci: %s", error->message);
      failures++;
      return;
    }
  if (!g_file_set_contents (saved, data, (gssize) len, &error))
    {
      say ("save_pci: %s", error->message);
      failures++;
    }
}

static void
restore_pci (void)
{
  g_autofree char *dev = first_vga_device ();
  g_autofree char *saved = state_file ("pci-config");
  g_autofree char *data = NULL;
  g_autofree char *config = NULL;
  gsize len;

  if (dev == NULL || !g_file_get_contents (saved, &data, &len, NULL))
    {
      say ("save_pci: nothing saved to restore");
      return;
    }
  config = g_build_filename (dev, "config", NULL);
  write_devices_attr_bytes (config, data, len);
}

/* pm-utils' reset_brightness: write 0, then the old value, to every
 * backlight. */
static void
reset_brightness (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/sys/class/backlight", 0, NULL);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/sys/class/backlight", name, "brightness", NULL);
      g_autofree char *value = NULL;

      if (!g_file_get_contents (path, &value, NULL, NULL))
        continue;
      g_strstrip (value);
      if (write_devices_attr (path, "0"))
        write_devices_attr (path, value);
    }
}

static void
fbcon_state (const char *value)
{
  g_autoptr(GDir) dir = g_dir_open ("/sys/class/graphics", 0, NULL);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/sys/class/graphics", name, "state", NULL);
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        write_devices_attr (path, value);
    }
}

/* The framebuffer console is suspended and resumed only around the
 * VBE quirks, which reprogram the card behind its back: a machine with
 * no quirks (kernel mode setting) has its console left alone. */
static gboolean
fbcon_handled (void)
{
  return !has ("no_fb") &&
         (has ("vbe_post") || has ("vbestate_restore") || has ("vbemode_restore") ||
          has ("vga_mode_3") || has ("dpms_on") || has ("dpms_suspend"));
}

static void
phase_suspend (void)
{
  if (!has ("no_chvt"))
    {
      g_autofree char *vt = NULL;
      g_autofree char *saved = state_file ("console");
      if (run_tool (NULL, NULL, &vt, "fgconsole", NULL))
        {
          g_file_set_contents (saved, g_strstrip (vt), -1, NULL);
          run_tool (NULL, NULL, NULL, "chvt", CHVT_TARGET, NULL);
        }
    }
  if (has ("none"))
    return;
  if (has ("save_pci"))
    save_pci ();
  if (has ("vbestate_restore"))
    {
      g_autofree char *f = state_file ("vbestate");
      run_tool (NULL, f, NULL, "vbetool", "vbestate", "save", NULL);
    }
  if (has ("vbemode_restore"))
    {
      g_autofree char *f = state_file ("vbemode");
      run_tool (NULL, f, NULL, "vbetool", "vbemode", "get", NULL);
    }
  if (fbcon_handled ())
    fbcon_state ("1");
  if (has ("radeon_off"))
    {
      run_tool (NULL, NULL, NULL, "radeontool", "dac", "off", NULL);
      run_tool (NULL, NULL, NULL, "radeontool", "light", "off", NULL);
    }
  if (has ("dpms_suspend"))
    run_tool (NULL, NULL, NULL, "vbetool", "dpms", "suspend", NULL);
}

static void
phase_resume (void)
{
  if (!has ("none"))
    {
      if (has ("save_pci"))
        restore_pci ();
      if (has ("radeon_off"))
        {
          run_tool (NULL, NULL, NULL, "radeontool", "dac", "on", NULL);
          run_tool (NULL, NULL, NULL, "radeontool", "light", "on", NULL);
        }
      if (has ("vbe_post"))
        {
          run_tool (NULL, NULL, NULL, "vbetool", "post", NULL);
          g_usleep (100 * 1000);
        }
      if (has ("vbestate_restore"))
        {
          g_autofree char *f = state_file ("vbestate");
          run_tool (f, NULL, NULL, "vbetool", "vbestate", "restore", NULL);
        }
      if (has ("vbemode_restore"))
        {
          g_autofree char *f = state_file ("vbemode");
          g_autofree char *mode = NULL;
          if (g_file_get_contents (f, &mode, NULL, NULL))
            run_tool (NULL, NULL, NULL, "vbetool", "vbemode", "set", g_strstrip (mode), NULL);
          else
            say ("vbemode_restore: no saved mode");
        }
      if (has ("vga_mode_3"))
        run_tool (NULL, NULL, NULL, "vbetool", "vbemode", "set", "3", NULL);
      if (fbcon_handled ())
        fbcon_state ("0");
      if (has ("dpms_on"))
        run_tool (NULL, NULL, NULL, "vbetool", "dpms", "on", NULL);
      if (has ("reset_brightness"))
        reset_brightness ();
    }
  if (!has ("no_chvt"))
    {
      g_autofree char *saved = state_file ("console");
      g_autofree char *vt = NULL;
      if (g_file_get_contents (saved, &vt, NULL, NULL))
        run_tool (NULL, NULL, NULL, "chvt", g_strstrip (vt), NULL);
    }
}

int
main (int argc, char **argv)
{
  const char *phase;
  GPtrArray *known;

  if (argc < 2 || (!g_str_equal (argv[1], "suspend") && !g_str_equal (argv[1], "resume")))
    {
      fprintf (stderr, "Usage: powerpolicy-video-restore suspend|resume [QUIRK...]\n");
      return 2;
    }
  phase = argv[1];
  quirks = g_hash_table_new (g_str_hash, g_str_equal);
  known = g_ptr_array_new ();
  for (int i = 2; i < argc; i++)
    {
      if (!pp_video_quirk_is_known (argv[i]))
        {
          say ("unknown quirk '%s', ignoring it", argv[i]);
          continue;
        }
      g_hash_table_add (quirks, argv[i]);
      g_ptr_array_add (known, argv[i]);
    }
  g_ptr_array_add (known, NULL);
  /* the daemon does not start it then; run by hand, it does nothing */
  if (!pp_video_quirks_helper_has_work ((const char * const *) known->pdata,
                                        g_str_equal (phase, "resume")))
    {
      g_ptr_array_unref (known);
      g_hash_table_unref (quirks);
      return 0;
    }
  g_ptr_array_unref (known);

  state_dir = g_getenv ("POWERPOLICY_VIDEO_RESTORE_STATE");
  if (state_dir == NULL || *state_dir == '\0')
    state_dir = DEFAULT_STATE_DIR;
  if (g_mkdir_with_parents (state_dir, 0700) != 0)
    say ("%s: %s", state_dir, g_strerror (errno));

  if (g_str_equal (phase, "suspend"))
    phase_suspend ();
  else
    phase_resume ();

  g_hash_table_unref (quirks);
  return failures > 0 ? 1 : 0;
}
