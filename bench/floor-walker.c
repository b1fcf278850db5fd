/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The syscall floor for applying bench.conf: walk /sys/devices once, and
 * for every device whose subsystem the policy names, read each policy
 * attribute and write it only when it differs; then the module parameter.
 * No udev database, no allocation per device, no path checks: the least a
 * program has to do to reach the same end state through the same absolute
 * paths (run it under the umockdev preload, as the daemon is).
 *
 * The table below mirrors bench/bench.conf and POLICY in bench/benchlib.py;
 * bench/run compares the number of attributes each changed.
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
#include <sys/stat.h>
#include <unistd.h>

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
  { "link_power_management_policy", "med_power_with_dipm" }, { NULL, NULL } };

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

/* @path holds the directory and has room up to PATH_MAX. */
static void
walk (char *path, size_t plen)
{
  DIR *dir = opendir (path);
  struct dirent *de;
  int is_device = 0;

  if (dir == NULL)
    return;
  while ((de = readdir (dir)) != NULL)
    {
      const char *name = de->d_name;
      size_t nlen;
      unsigned char type = de->d_type;

      if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
        continue;
      if (strcmp (name, "uevent") == 0)
        {
          is_device = 1;
          continue;
        }
      /* power/ never holds devices; symlinks (subsystem, driver, device)
       * lead out of the tree */
      if (strcmp (name, "power") == 0)
        continue;
      nlen = strlen (name);
      if (plen + 1 + nlen + 1 > PATH_MAX)
        continue;
      path[plen] = '/';
      memcpy (path + plen + 1, name, nlen + 1);
      if (type == DT_UNKNOWN)
        {
          struct stat st;
          if (lstat (path, &st) == 0 && S_ISDIR (st.st_mode))
            type = DT_DIR;
        }
      if (type == DT_DIR)
        walk (path, plen + 1 + nlen);
      path[plen] = '\0';
    }
  closedir (dir);
  if (is_device)
    apply_device (path, plen);
}

int
main (void)
{
  static char path[PATH_MAX] = "/sys/devices";

  walk (path, strlen (path));
  for (const struct attr *a = module_attrs; a->relpath; a++)
    apply_attr (a->relpath, a->value);
  printf ("devices %lu changed %lu failed %lu\n", n_devices, n_changed, n_failed);
  return n_failed ? 1 : 0;
}
