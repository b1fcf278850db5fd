/* SPDX-License-Identifier: GPL-2.0-or-later */
void one_enter (void);

void
two_enter (void)
{
  one_enter ();
}

void
two_other (void)
{
}
