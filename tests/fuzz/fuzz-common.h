/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the libFuzzer targets (tests/fuzz/README.md). Each target
 * defines LLVMFuzzerTestOneInput(); with clang and -Dfuzzing=true it links
 * libFuzzer, otherwise replay.c's main() runs it over the files given
 * (the regression corpus, as a meson test). */
#pragma once

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* An invariant broke: abort, so that libFuzzer keeps the input. */
#define FUZZ_ASSERT(cond) \
  G_STMT_START { if (!(cond)) { g_printerr ("%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); abort (); } } G_STMT_END

static GLogWriterOutput
fuzz_quiet_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
  /* criticals are bugs: keep them fatal */
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR))
    abort ();
  return G_LOG_WRITER_HANDLED;
}

/* Once per process: no log output (the parsers warn on bad input, which is
 * what they are fed), criticals abort. */
static inline void
fuzz_init_logging (void)
{
  static gboolean done;

  if (done)
    return;
  done = TRUE;
  g_log_set_writer_func (fuzz_quiet_writer, NULL, NULL);
}

/* The number of lines of @data (1 + its newlines), counted with memchr():
 * a byte loop here would be instrumented for the fuzzer and cost more
 * than the parser under test. */
static inline guint
fuzz_count_lines (const uint8_t *data, size_t size)
{
  const uint8_t *end = data + size;
  guint lines = 1;

  for (const uint8_t *p = data; (p = memchr (p, '\n', (size_t) (end - p))) != NULL; p++)
    lines++;
  return lines;
}
