/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-sleep-stats"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pp-names.h"
#include "pp-sleep-stats.h"
#include "pp-sysfs.h"
#include "pp-util.h"

#define SUSPEND_STATS  PP_SYSFS_POWER "/suspend_stats"
#define CLASS_WAKEUP   "/sys/class/wakeup"

/* CLOCK_BOOTTIME in µs: runs on while the machine sleeps (the monotonic
 * clock falls back when it cannot be read) */
gint64
pp_sleep_stats_boottime_us (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_BOOTTIME, &ts) != 0)
    return g_get_monotonic_time ();
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static gboolean
read_u64 (const char *dir, const char *name, guint64 *out)
{
  g_autofree char *text = pp_sysfs_read_opt (dir, name);

  return text != NULL && g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, out, NULL);
}

/* success and fail: an int the kernel prints with %d before 6.8 (a
 * negative number once it passed INT_MAX), unsigned since: both as the
 * 32-bit counter they are */
static gboolean
read_counter32 (const char *dir, const char *name, guint64 *out)
{
  g_autofree char *text = pp_sysfs_read_opt (dir, name);
  gint64 v;

  if (text == NULL || !g_ascii_string_to_signed (text, 10, G_MININT32, G_MAXUINT32, &v, NULL))
    return FALSE;
  *out = v < 0 ? (guint64) (v + (G_GINT64_CONSTANT (1) << 32)) : (guint64) v;
  return TRUE;
}

static char *
read_text (const char *dir, const char *name)
{
  char *text = pp_sysfs_read_opt (dir, name);

  return text != NULL ? text : g_strdup ("");
}

/* The [selected] word of a choice attribute, "" when none. */
static char *
selected_choice (const char *text)
{
  const char *open = text != NULL ? strchr (text, '[') : NULL;
  const char *close = open != NULL ? strchr (open, ']') : NULL;

  if (close == NULL)
    return g_strdup ("");
  return g_strndup (open + 1, close - open - 1);
}

static void
read_wakeup_sources (PpSleepSnapshot *s)
{
  g_autoptr(GPtrArray) names = pp_list_dir_sorted (CLASS_WAKEUP, NULL);

  s->wakeup_class = names != NULL;
  for (guint i = 0; names != NULL && i < names->len && i < PP_SLEEP_STATS_MAX_WAKEUP_SOURCES; i++)
    {
      g_autofree char *dir = g_build_filename (CLASS_WAKEUP, g_ptr_array_index (names, i), NULL);
      g_autofree char *device_link = g_build_filename (dir, "device", NULL);
      g_autofree char *device = realpath (device_link, NULL);
      g_autofree char *name = NULL;
      PpWakeCount c = { FALSE, 0, FALSE, 0 };

      c.has_wakeup_count = read_u64 (dir, "wakeup_count", &c.wakeup_count);
      c.has_event_count = read_u64 (dir, "event_count", &c.event_count);
      if (!c.has_wakeup_count && !c.has_event_count)
        continue;
      /* a device's source is named by the device, as its power/wakeup_count */
      if (device != NULL && pp_sysfs_path_is_under (device, PP_SYSFS_DEVICES))
        name = g_strdup (device);
      else
        name = pp_sysfs_read_opt (dir, "name");
      if (name != NULL)
        pp_sleep_snapshot_add_wake (s, name, &c);
    }
}

void
pp_sleep_stats_read_kernel (PpSleepSnapshot *s, gboolean after)
{
  g_autofree char *mem_sleep = pp_sysfs_read_opt (PP_SYSFS_POWER, "mem_sleep");
  gint64 errno_value = 0;
  g_autofree char *errno_text = NULL;

  s->realtime_us = g_get_real_time ();
  s->boottime_us = pp_sleep_stats_boottime_us ();

  s->has_stats = read_counter32 (SUSPEND_STATS, "success", &s->success) &&
                 read_counter32 (SUSPEND_STATS, "fail", &s->fail);
  g_free (s->last_failed_dev);
  s->last_failed_dev = read_text (SUSPEND_STATS, "last_failed_dev");
  g_free (s->last_failed_step);
  s->last_failed_step = read_text (SUSPEND_STATS, "last_failed_step");
  errno_text = pp_sysfs_read_opt (SUSPEND_STATS, "last_failed_errno");
  if (errno_text != NULL &&
      g_ascii_string_to_signed (errno_text, 10, G_MININT32, G_MAXINT32, &errno_value, NULL))
    s->last_failed_errno = errno_value;
  s->has_last_hw_sleep = read_u64 (SUSPEND_STATS, "last_hw_sleep", &s->last_hw_sleep_us);
  s->has_total_hw_sleep = read_u64 (SUSPEND_STATS, "total_hw_sleep", &s->total_hw_sleep_us);
  if (!read_u64 (SUSPEND_STATS, "max_hw_sleep", &s->max_hw_sleep_us))
    s->max_hw_sleep_us = 0;

  g_free (s->mem_sleep);
  s->mem_sleep = selected_choice (mem_sleep);
  read_wakeup_sources (s);
  if (after)
    {
      /* ENODATA when no interrupt woke the system */
      g_free (s->wake_irq);
      s->wake_irq = read_text (PP_SYSFS_POWER, "pm_wakeup_irq");
    }
}

void
pp_sleep_stats_begin_batteries (PpSleepSnapshot *s)
{
  s->energy_mwh = -1;
  s->energy_full_mwh = -1;
}

void
pp_sleep_stats_add_battery (PpSleepSnapshot *s, const char *syspath)
{
  g_autofree char *present = pp_sysfs_read_opt (syspath, "present");
  g_autofree char *energy = pp_sysfs_read_opt (syspath, "energy_now");
  g_autofree char *energy_full = pp_sysfs_read_opt (syspath, "energy_full");
  g_autofree char *charge = pp_sysfs_read_opt (syspath, "charge_now");
  g_autofree char *charge_full = pp_sysfs_read_opt (syspath, "charge_full");
  g_autofree char *voltage = pp_sysfs_read_opt (syspath, "voltage_now");
  g_autofree char *voltage_min = pp_sysfs_read_opt (syspath, "voltage_min_design");
  double now, full;

  /* an empty bay holds no energy */
  if (g_strcmp0 (present, "0") == 0)
    return;
  now = pp_sleep_battery_mwh (energy, charge, voltage, voltage_min);
  full = pp_sleep_battery_mwh (energy_full, charge_full, voltage, voltage_min);
  if (now < 0)
    {
      /* one battery unknown: the total is unknown */
      s->energy_mwh = -2;
      return;
    }
  if (s->energy_mwh == -2)
    return;
  s->energy_mwh = MAX (s->energy_mwh, 0) + now;
  if (full > 0)
    s->energy_full_mwh = MAX (s->energy_full_mwh, 0) + full;
}

void
pp_sleep_stats_add_device_wake (PpSleepSnapshot *s, const char *syspath)
{
  PpWakeCount c = { FALSE, 0, FALSE, 0 };
  g_autofree char *power = g_build_filename (syspath, "power", NULL);

  /* the device's names are not its source's: power/wakeup_count is the
   * source's event_count, power/wakeup_abort_count its wakeup_count */
  c.has_event_count = read_u64 (power, "wakeup_count", &c.event_count);
  c.has_wakeup_count = read_u64 (power, "wakeup_abort_count", &c.wakeup_count);
  if (!c.has_event_count && !c.has_wakeup_count)
    return;
  pp_sleep_snapshot_add_wake (s, syspath, &c);
}

/* A small /proc file, bounded; NULL when unreadable. */
static char *
read_proc (const char *path)
{
  return pp_read_regular_file_bounded (path, PP_SLEEP_STATS_FILE_MAX);
}

void
pp_sleep_stats_read_check (PpSleepCheckInput *in)
{
  in->state = pp_sysfs_read_opt (PP_SYSFS_POWER, "state");
  in->mem_sleep = pp_sysfs_read_opt (PP_SYSFS_POWER, "mem_sleep");
  in->disk = pp_sysfs_read_opt (PP_SYSFS_POWER, "disk");
  in->resume = pp_sysfs_read_opt (PP_SYSFS_POWER, "resume");
  in->lockdown = pp_sysfs_read_opt ("/sys/kernel/security", "lockdown");
  in->swaps = read_proc ("/proc/swaps");
  in->meminfo = read_proc ("/proc/meminfo");
}
