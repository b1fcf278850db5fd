/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * measure RESULT-FILE COMMAND [ARG...]
 *
 * Runs COMMAND and writes "<exit status> <wall seconds> <maxrss KiB>" to
 * RESULT-FILE. Exists because a child's ru_maxrss includes the memory of
 * the process it was forked from (the kernel keeps the high-water mark of
 * the pre-exec image): forked from this small program the figure is the
 * command's own, forked from the Python harness it would be Python's.
 * The wall time is taken around fork and wait, without the harness.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  struct timespec t0, t1;
  struct rusage ru;
  int status = 0;
  pid_t pid;
  FILE *out;

  if (argc < 3)
    {
      fprintf (stderr, "usage: %s RESULT-FILE COMMAND [ARG...]\n", argv[0]);
      return 2;
    }
  clock_gettime (CLOCK_MONOTONIC, &t0);
  pid = fork ();
  if (pid < 0)
    {
      perror ("fork");
      return 2;
    }
  if (pid == 0)
    {
      execvp (argv[2], argv + 2);
      fprintf (stderr, "measure: cannot run %s: %s\n", argv[2], strerror (errno));
      _exit (127);
    }
  while (wait4 (pid, &status, 0, &ru) < 0)
    {
      if (errno != EINTR)
        {
          perror ("wait4");
          return 2;
        }
    }
  clock_gettime (CLOCK_MONOTONIC, &t1);

  out = fopen (argv[1], "w");
  if (out == NULL)
    {
      perror (argv[1]);
      return 2;
    }
  fprintf (out, "%d %.6f %ld\n",
           WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status),
           (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9,
           ru.ru_maxrss);
  fclose (out);
  return 0;
}
