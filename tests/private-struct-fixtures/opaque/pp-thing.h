/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Passes: the type is opaque (its body in pp-thing.c), a plain data
 * type may have its body here, and a "struct _PpThing {" in a comment
 * or a string is no body. */
#pragma once

typedef struct _PpThing PpThing;

typedef struct {
  int count;
} PpThingRow;

#define PP_THING_DOC "struct _PpThing { int count; }"

PpThing *pp_thing_new (void);
