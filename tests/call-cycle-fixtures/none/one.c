/* SPDX-License-Identifier: GPL-2.0-or-later */
/* No cycle: two.c calls one.c only; one.c's own static two_enter is
 * no edge to two.c, nor is a name in a string. */
static void
two_enter (void)
{
}

void
one_enter (void)
{
  const char *s = "two_other ()";
  (void) s;
  two_enter ();
}
