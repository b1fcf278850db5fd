/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fails: the object's state in a header, for every file to reach into. */
#pragma once

typedef struct _PpThing PpThing;

struct _PpThing {
  int count;
};
