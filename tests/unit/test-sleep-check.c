/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl sleep-check's decisions (pp-sleep-check.c): what is offered, what a
 * suspend and a hibernation would use, and each "no" with its reason. */
#include "config.h"

#include <string.h>

#include "pp-test.h"
#include "pp-sleep-check.h"

/* the inputs are string literals here; the daemon's are its own copies */
#pragma GCC diagnostic ignored "-Wdiscarded-qualifiers"

#define SWAPS_8G "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n" \
                 "/dev/nvme0n1p3                          partition\t8388604\t\t0\t\t-2\n"
#define MEMINFO_2G "MemTotal:       16000000 kB\nActive(anon):    1500000 kB\nInactive(anon):   500000 kB\n"

static const PpSleepCheckRow *
row (GPtrArray *rows, const char *state)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const PpSleepCheckRow *r = g_ptr_array_index (rows, i);
      if (g_str_equal (r->state, state))
        return r;
    }
  fail_msg ("no row %s", state);
  return NULL;
}

static void
assert_row (GPtrArray *rows, const char *state, gboolean available, const char *used_by,
            const char *reason_part)
{
  const PpSleepCheckRow *r = row (rows, state);

  if (r == NULL)
    return;
  if (r->available != available || !g_str_equal (r->used_by, used_by) ||
      strstr (r->reason, reason_part) == NULL)
    fail_msg ("%s: available %d used_by '%s' reason '%s'", state, r->available, r->used_by, r->reason);
}

static void
test_laptop_auto (void **state)
{
  PpSleepCheckInput in = { "freeze mem disk", "s2idle [deep]", "[platform] shutdown reboot suspend",
                           "259:3", "[none] integrity confidentiality", SWAPS_8G, MEMINFO_2G };
  g_autoptr(GPtrArray) rows = pp_sleep_check (&in, "auto", "auto");

  (void) state;
  assert_int_equal (rows->len, 4);
  assert_string_equal (((PpSleepCheckRow *) g_ptr_array_index (rows, 0))->state, "s2idle");
  assert_row (rows, "s2idle", TRUE, "", "offered");
  assert_row (rows, "shallow", FALSE, "", "not in /sys/power/mem_sleep (s2idle [deep])");
  assert_row (rows, "deep", TRUE, "suspend", "kernel's default");
  assert_row (rows, "hibernate", TRUE, "hibernate", "resume device 259:3");
  assert_row (rows, "hibernate", TRUE, "hibernate", "mode platform");
}

static void
test_configured_modes (void **state)
{
  PpSleepCheckInput in = { "freeze mem disk", "s2idle [deep]", "[platform] shutdown reboot suspend",
                           "259:3", NULL, SWAPS_8G, MEMINFO_2G };
  g_autoptr(GPtrArray) rows = pp_sleep_check (&in, "s2idle", "shutdown");
  g_autoptr(GPtrArray) rows2 = pp_sleep_check (&in, "shallow", "suspend-to-nowhere");

  (void) state;
  assert_row (rows, "s2idle", TRUE, "suspend", "[Sleep] MemSleep=s2idle");
  assert_row (rows, "deep", TRUE, "", "offered");
  assert_row (rows, "hibernate", TRUE, "hibernate", "mode shutdown");
  /* asked for what the kernel does not offer: said so */
  assert_row (rows2, "shallow", FALSE, "suspend", "a suspend through the kernel fails");
  assert_row (rows2, "hibernate", FALSE, "hibernate", "HibernateMode=suspend-to-nowhere is not in /sys/power/disk");
}

static void
test_hibernate_reasons (void **state)
{
  PpSleepCheckInput no_resume = { "freeze mem disk", "[s2idle]", "[platform]", "0:0", NULL, SWAPS_8G, MEMINFO_2G };
  PpSleepCheckInput no_swap = { "freeze mem disk", "[s2idle]", "[platform]", "8:2", NULL,
                                "Filename\tType\tSize\tUsed\tPriority\n", MEMINFO_2G };
  PpSleepCheckInput small = { "freeze mem disk", "[s2idle]", "[platform]", "8:2", NULL,
                              "Filename\tType\tSize\tUsed\tPriority\n/swapfile file 2097148 1048576 -2\n",
                              MEMINFO_2G };
  PpSleepCheckInput locked = { "freeze mem", "[s2idle]", "[platform]", "8:2",
                               "none [integrity] confidentiality", SWAPS_8G, MEMINFO_2G };
  PpSleepCheckInput no_disk = { "freeze mem", "[s2idle]", NULL, NULL, NULL, NULL, NULL };
  g_autoptr(GPtrArray) r1 = pp_sleep_check (&no_resume, NULL, NULL);
  g_autoptr(GPtrArray) r2 = pp_sleep_check (&no_swap, NULL, NULL);
  g_autoptr(GPtrArray) r3 = pp_sleep_check (&small, NULL, NULL);
  g_autoptr(GPtrArray) r4 = pp_sleep_check (&locked, NULL, NULL);
  g_autoptr(GPtrArray) r5 = pp_sleep_check (&no_disk, NULL, NULL);

  (void) state;
  assert_row (r1, "hibernate", FALSE, "", "no resume device configured");
  assert_row (r2, "hibernate", FALSE, "", "no swap space is active");
  assert_row (r3, "hibernate", FALSE, "", "not enough free swap: 1023 MiB free, 1953 MiB");
  assert_row (r4, "hibernate", FALSE, "", "locked down (integrity)");
  assert_row (r5, "hibernate", FALSE, "", "offers no \"disk\" (freeze mem)");
  /* s2idle the only mode: the one suspend uses */
  assert_row (r5, "s2idle", TRUE, "suspend", "kernel's default");
  assert_row (r5, "deep", FALSE, "", "the firmware offers no S3");
}

static void
test_no_mem (void **state)
{
  PpSleepCheckInput freeze_only = { "freeze", NULL, NULL, NULL, NULL, NULL, NULL };
  PpSleepCheckInput nothing = { NULL, NULL, NULL, NULL, NULL, NULL, NULL };
  g_autoptr(GPtrArray) r1 = pp_sleep_check (&freeze_only, NULL, NULL);
  g_autoptr(GPtrArray) r2 = pp_sleep_check (&nothing, NULL, NULL);

  (void) state;
  assert_row (r1, "s2idle", TRUE, "", "no \"mem\", so suspend cannot use it");
  assert_row (r1, "deep", FALSE, "", "offers no \"mem\" (freeze)");
  assert_row (r2, "deep", FALSE, "", "/sys/power/state cannot be read");
  assert_row (r2, "hibernate", FALSE, "", "unreadable");
}

static void
test_swap_and_meminfo_parsing (void **state)
{
  guint64 kib = 0;

  (void) state;
  assert_true (pp_sleep_check_swap_free_kib (SWAPS_8G, &kib));
  assert_true (kib == 8388604);
  assert_true (pp_sleep_check_swap_free_kib ("Filename Type Size Used Priority\n"
                                             "/a partition 100 40 -2\n/b file 50 0 -3\nbroken line\n", &kib));
  assert_true (kib == 110);
  assert_false (pp_sleep_check_swap_free_kib ("garbage", &kib));
  assert_false (pp_sleep_check_swap_free_kib (NULL, &kib));
  assert_true (pp_sleep_check_anon_kib (MEMINFO_2G, &kib));
  assert_true (kib == 2000000);
  assert_false (pp_sleep_check_anon_kib ("MemTotal: 5 kB\n", &kib));
  /* a key that only ends like the one asked for is not it */
  assert_false (pp_sleep_check_anon_kib ("XActive(anon): 5 kB\nInactive(anon): 1 kB\n", &kib));
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  pp_test_list_add (list, "sleep-check", "laptop-auto", test_laptop_auto, NULL, NULL, NULL);
  pp_test_list_add (list, "sleep-check", "configured-modes", test_configured_modes, NULL, NULL, NULL);
  pp_test_list_add (list, "sleep-check", "hibernate-reasons", test_hibernate_reasons, NULL, NULL, NULL);
  pp_test_list_add (list, "sleep-check", "no-mem", test_no_mem, NULL, NULL, NULL);
  pp_test_list_add (list, "sleep-check", "swap-meminfo", test_swap_and_meminfo_parsing, NULL, NULL, NULL);
  return pp_test_list_run (list, "sleep-check");
}
