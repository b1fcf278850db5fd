/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Without libFuzzer: run a target over the files (or directories of files)
 * on the command line, once each. The regression corpus runs this way in
 * every `make test`. */
#include "fuzz-common.h"

static int
run_file (const char *path)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  if (!g_file_get_contents (path, &data, &len, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
  return 0;
}

int
main (int argc, char **argv)
{
  guint n = 0;

  for (int i = 1; i < argc; i++)
    {
      g_autoptr(GDir) dir = g_dir_open (argv[i], 0, NULL);

      if (dir == NULL)
        {
          if (run_file (argv[i]) != 0)
            return 1;
          n++;
          continue;
        }
      for (const char *name; (name = g_dir_read_name (dir)) != NULL; )
        {
          g_autofree char *path = g_build_filename (argv[i], name, NULL);

          if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
            {
              if (run_file (path) != 0)
                return 1;
              n++;
            }
        }
    }
  g_print ("%u inputs, no finding\n", n);
  return n > 0 ? 0 : 1;
}
