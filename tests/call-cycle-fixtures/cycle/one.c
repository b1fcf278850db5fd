/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-call-cycles must fail here: one.c -> two.c -> one.c. */
void two_enter (void);

static void
helper (void)
{
  /* "one_back ()" in a comment is no call */
}

void
one_enter (void)
{
  helper ();
  two_enter ();
}

void
one_back (void)
{
}
