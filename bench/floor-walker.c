/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The syscall floor for applying bench.conf: the devices udev tagged
 * (the tag index the daemon enumerates too), and for every one whose
 * subsystem the policy names, read each policy attribute and write it only
 * when it differs; then the module parameter. No udev database, no
 * allocation per device, no path checks: the least a program has to do to
 * reach the same end state as the daemon (run it under the umockdev
 * preload and with the testbed's /run/udev, as the daemon is).
 *
 * The table below mirrors bench/bench.conf and POLICY in bench/benchlib.py;
 * bench/run compares the number of attributes each changed.
 *
 * Built with -DPP_FLOOR_SD_DEVICE (bench/run: floor-walker-sd-device,
 * linked with libsystemd) it is the floor through the public interface
 * instead: the same devices from sd-device's enumerator of the tag (what
 * a program that may not read udev's private files must do, and what
 * gives it each device's udev properties and current tags), then the same
 * attribute work below each device's syspath. The default build neither
 * links nor calls libsystemd.
 *
 * Built with -DPP_FLOOR_SCSI_HOST_CONTROL (bench/vm --scale-writes) a
 * scsi_host's power/control is policy too (Control=auto, as bench/vm then
 * gives the daemon): a write on every SCSI host whose boot value is "on".
 *
 * Output: "devices N changed M failed F" on stdout.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef PP_FLOOR_SD_DEVICE
#include <systemd/sd-device.h>
#endif

struct attr {
  const char *relpath;
  const char *value;
};

struct class_policy {
  const char        *subsystem;
  const struct attr *attrs;
};

/* same order as the daemon: delay, wakeup, control last */
static const struct attr pci_attrs[] = {
  { "power/control", "auto" }, { NULL, NULL } };
static const struct attr usb_attrs[] = {
  { "power/autosuspend_delay_ms", "1000" }, { "power/wakeup", "disabled" },
  { "power/control", "auto" }, { NULL, NULL } };
static const struct attr scsi_host_attrs[] = {
  { "link_power_management_policy", "med_power_with_dipm" },
#ifdef PP_FLOOR_SCSI_HOST_CONTROL
  { "power/control", "auto" },
#endif
  { NULL, NULL } };

static const struct class_policy policy[] = {
  { "pci", pci_attrs }, { "usb", usb_attrs }, { "scsi_host", scsi_host_attrs },
};

static const struct attr module_attrs[] = {
  { "/sys/module/snd_hda_intel/parameters/power_save", "1" }, { NULL, NULL } };

static unsigned long n_devices, n_changed, n_failed;

static void
apply_attr (const char *path, const char *value)
{
  char buf[4096];
  size_t len = strlen (value);
  ssize_t n;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return;                     /* the device does not have it */
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n < 0)
    n = 0;
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
    n--;
  if ((size_t) n == len && memcmp (buf, value, len) == 0)
    return;

  fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
  if (fd < 0)
    {
      n_failed++;
      return;
    }
  if (write (fd, value, len) != (ssize_t) len)
    n_failed++;
  else
    n_changed++;
  close (fd);
}

/* The policy of @subsystem applied to the device at @path (@plen long;
 * the buffer is PATH_MAX). */
static void
apply_policy (char *path, size_t plen, const char *subsystem)
{
  n_devices++;
  for (size_t i = 0; i < sizeof policy / sizeof policy[0]; i++)
    {
      if (strcmp (policy[i].subsystem, subsystem) != 0)
        continue;
      for (const struct attr *a = policy[i].attrs; a->relpath; a++)
        {
          size_t rlen = strlen (a->relpath);

          if (plen + 1 + rlen + 1 > PATH_MAX)
            continue;
          path[plen] = '/';
          memcpy (path + plen + 1, a->relpath, rlen + 1);
          apply_attr (path, a->value);
          path[plen] = '\0';
        }
      break;
    }
}

#ifdef PP_FLOOR_SD_DEVICE
/* The devices tagged "powerpolicy" now (current tags), from sd-device's
 * enumerator, each with its subsystem as sd-device read it. */
static void
walk_tagged_sd_device (const char *tag)
{
  sd_device_enumerator *e = NULL;
  int r = sd_device_enumerator_new (&e);

  if (r >= 0)
    r = sd_device_enumerator_add_match_tag (e, tag);
  if (r < 0)
    {
      fprintf (stderr, "floor-walker: sd-device enumerator: %s\n", strerror (-r));
      sd_device_enumerator_unref (e);
      return;
    }
  for (sd_device *dev = sd_device_enumerator_get_device_first (e); dev != NULL;
       dev = sd_device_enumerator_get_device_next (e))
    {
      static char path[PATH_MAX];
      const char *syspath = NULL, *subsystem = NULL;
      size_t plen;

      if (sd_device_has_current_tag (dev, tag) <= 0 ||
          sd_device_get_syspath (dev, &syspath) < 0 ||
          sd_device_get_subsystem (dev, &subsystem) < 0)
        continue;
      plen = strlen (syspath);
      if (plen >= sizeof path)
        continue;
      memcpy (path, syspath, plen + 1);
      apply_policy (path, plen, subsystem);
    }
  sd_device_enumerator_unref (e);
}
#endif

#ifndef PP_FLOOR_SD_DEVICE
static void
apply_device (char *path, size_t plen)
{
  char target[PATH_MAX];
  const char *subsystem;
  ssize_t n;

  memcpy (path + plen, "/subsystem", sizeof "/subsystem");
  n = readlink (path, target, sizeof target - 1);
  path[plen] = '\0';
  if (n <= 0)
    return;
  target[n] = '\0';
  subsystem = strrchr (target, '/');
  subsystem = subsystem ? subsystem + 1 : target;
  apply_policy (path, plen, subsystem);
}

/* The devices udev's rules tagged, as the daemon enumerates them: the
 * tag index, one entry per device ("+subsystem:sysname", "cMAJOR:MINOR",
 * "bMAJOR:MINOR"; udev's device ids), each reached through the link the
 * kernel keeps for it. */
static void
walk_tagged (const char *index)
{
  DIR *dir = opendir (index);
  struct dirent *de;

  if (dir == NULL)
    {
      fprintf (stderr, "floor-walker: %s: %s\n", index, strerror (errno));
      return;
    }
  while ((de = readdir (dir)) != NULL)
    {
      static char path[PATH_MAX];
      const char *id = de->d_name;
      const char *colon;
      int n = -1;

      if (id[0] == '+' && (colon = strchr (id, ':')) != NULL)
        {
          n = snprintf (path, sizeof path, "/sys/bus/%.*s/devices/%s",
                        (int) (colon - id - 1), id + 1, colon + 1);
          if (n > 0 && n < (int) sizeof path && access (path, F_OK) != 0)
            n = snprintf (path, sizeof path, "/sys/class/%.*s/%s",
                          (int) (colon - id - 1), id + 1, colon + 1);
        }
      else if (id[0] == 'c' || id[0] == 'b')
        n = snprintf (path, sizeof path, "/sys/dev/%s/%s",
                      id[0] == 'c' ? "char" : "block", id + 1);
      if (n <= 0 || n >= (int) sizeof path)
        continue;
      apply_device (path, (size_t) n);
    }
  closedir (dir);
}
#endif

int
main (void)
{
#ifdef PP_FLOOR_SD_DEVICE
  walk_tagged_sd_device ("powerpolicy");
#else
  walk_tagged ("/run/udev/tags/powerpolicy");
#endif
  for (const struct attr *a = module_attrs; a->relpath; a++)
    apply_attr (a->relpath, a->value);
  printf ("devices %lu changed %lu failed %lu\n", n_devices, n_changed, n_failed);
  return n_failed ? 1 : 0;
}
