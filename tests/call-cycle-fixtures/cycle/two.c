/* SPDX-License-Identifier: GPL-2.0-or-later */
void one_back (void);

void
two_enter (void)
{
  one_back ();
}
