/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-sleep"

#include "config.h"

#include <errno.h>
#include <string.h>

#include "pp-config-files.h"
#include "pp-log.h"
#include "pp-machine.h"
#include "pp-names.h"
#include "pp-quirkdb.h"
#include "pp-video-quirks.h"

#define ACPI_VIDEO_FLAGS      PP_PROC_ACPI_VIDEO_FLAGS
#define LKW_FILE_NAME         "video-quirks-last-known-working"

struct _PpVideoQuirks {
  GObject           parent_instance;
  PpManager        *manager;
  PpQuirkDb        *db;
  PpMachineFacts    facts;
  PpQuirkSelection *selection;
  char            **quirk_names;  /* of @selection */
  PpQuirkSource     used_source;  /* what the last pre-sleep phase used */
  char            **used_names;
};

G_DEFINE_TYPE (PpVideoQuirks, pp_video_quirks, G_TYPE_OBJECT)

static const PpManagerOptions *
options (PpVideoQuirks *self)
{
  return pp_manager_get_options (self->manager);
}

static const PpConfig *
config (PpVideoQuirks *self)
{
  return pp_manager_get_config (self->manager);
}

#define VENDOR_QUIRKS_DIR PP_DATADIR "/" PP_CONFIG_DIR_NAME "/video-quirks"

void
pp_video_quirks_load (PpVideoQuirks *self, GPtrArray *problem_strings)
{
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  guint n_vendor = 0;

  g_clear_pointer (&self->db, pp_quirkdb_free);
  self->db = pp_config_files_load_quirkdb (problems);
  g_debug ("Video quirk database: %u files", pp_quirkdb_get_n_files (self->db));
  for (guint i = 0; i < problems->len; i++)
    {
      const PpConfigProblem *p = g_ptr_array_index (problems, i);
      char *s = pp_config_problem_to_string (p);

      /* The shipped files are pm-utils' database as pm-utils shipped it,
       * with its broken regular expressions and stray 'endmatch' (read
       * as pm-utils read them): known, and the same on every machine,
       * so not a warning at every start (systemctl status would never be
       * clean). A problem in an administrator's file is. */
      if (p->file != NULL && g_str_has_prefix (p->file, VENDOR_QUIRKS_DIR "/"))
        {
          g_debug ("%s", s);
          n_vendor++;
        }
      else
        g_warning ("%s", s);
      if (problem_strings)
        g_ptr_array_add (problem_strings, s);
      else
        g_free (s);
    }
  if (n_vendor > 0)
    g_info ("Video quirk database: %u entries of the shipped files (as pm-utils shipped them) "
            "never match or match as pm-utils did (--verbose shows them)", n_vendor);
}

static char *
lkw_path (PpVideoQuirks *self)
{
  return g_build_filename (options (self)->state_dir, LKW_FILE_NAME, NULL);
}

gboolean
pp_video_quirks_select (PpVideoQuirks *self)
{
  g_autoptr(GPtrArray) problems = pp_config_problems_new ();
  g_autofree char *path = lkw_path (self);
  g_autofree char *text = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  PpQuirkLkw lkw = { { 0 }, NULL };
  gboolean have_lkw = FALSE;
  g_autofree const char **names = NULL;

  if (g_file_get_contents (path, &text, NULL, NULL))
    {
      g_autoptr(GError) error = NULL;
      have_lkw = pp_quirk_lkw_from_data (&lkw, text, &error);
      if (!have_lkw)
        g_warning ("%s: %s, ignoring it", path, error->message);
    }

  pp_machine_facts_clear (&self->facts);
  pp_machine_read_facts (&self->facts);
  pp_quirk_selection_free (self->selection);
  self->selection = pp_quirkdb_select (self->db, &self->facts,
                                       (const char * const *) config (self)->sleep.video_quirks,
                                       have_lkw ? &lkw : NULL, problems);
  pp_quirk_lkw_clear (&lkw);
  for (guint i = 0; i < problems->len; i++)
    {
      g_autofree char *s = pp_config_problem_to_string (g_ptr_array_index (problems, i));
      g_warning ("%s", s);
    }

  before = self->quirk_names ? g_strjoinv (" ", self->quirk_names) : NULL;
  names = pp_quirk_selection_names (self->selection);
  g_strfreev (self->quirk_names);
  self->quirk_names = g_strdupv ((char **) names);
  after = g_strjoinv (" ", self->quirk_names);
  if (g_strcmp0 (before, after) != 0)
    {
      g_autofree char *source = g_strdup_printf ("%s: %s",
                                                 pp_quirk_source_to_string (self->selection->source),
                                                 self->selection->summary);

      pp_log_quirks_selected ((const char * const *) self->quirk_names, source);
      return TRUE;
    }
  return FALSE;
}

void
pp_video_quirks_save_last_known_working (PpVideoQuirks *self)
{
  g_autofree char *path = lkw_path (self);
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;

  if (self->used_names == NULL)
    return;
  if (pp_manager_get_dry_run (self->manager))
    {
      g_message ("dry-run: would save the last known working video quirks");
      return;
    }
  /* pm-utils keeps only what the database (or its default) chose */
  if (self->used_source != PP_QUIRK_SOURCE_DATABASE &&
      self->used_source != PP_QUIRK_SOURCE_DEFAULT &&
      self->used_source != PP_QUIRK_SOURCE_LAST_KNOWN_WORKING)
    return;
  data = pp_quirk_lkw_to_data (&self->facts, (const char * const *) self->used_names);
  if (g_mkdir_with_parents (options (self)->state_dir, 0755) != 0 ||
      !g_file_set_contents (path, data, -1, &error))
    g_warning ("Cannot save the last known working video quirks in %s: %s", path,
               error ? error->message : g_strerror (errno));
  else
    g_debug ("Saved the last known working video quirks in %s", path);
}

static void
write_kernel_flags (PpVideoQuirks *self)
{
  guint flags = pp_quirks_acpi_video_flags ((const char * const *) self->quirk_names);
  g_autofree char *value = g_strdup_printf ("%u", flags);
  g_autoptr(GError) error = NULL;

  /* as pm-utils' 99video: written only for s3_bios/s3_mode, so flags
   * set on the kernel command line (acpi_sleep=) are left alone */
  if (flags == 0)
    return;
  if (!g_file_test (ACPI_VIDEO_FLAGS, G_FILE_TEST_EXISTS))
    {
      g_warning ("%s does not exist: s3_bios/s3_mode not applied", ACPI_VIDEO_FLAGS);
      return;
    }
  /* journalled: put back on exit and after a crash */
  if (!pp_manager_request_layer (self->manager, PP_PLAN_LAYER_SLEEP, NULL, ACPI_VIDEO_FLAGS,
                                 value, PP_MANAGER_WRITE_SETTING, &error))
    g_warning ("%s", error->message);
}

void
pp_video_quirks_begin_sleep (PpVideoQuirks *self)
{
  /* what this sleep uses, for last-known-working */
  self->used_source = self->selection->source;
  g_strfreev (self->used_names);
  self->used_names = g_strdupv (self->quirk_names);
  write_kernel_flags (self);
}

const char * const *
pp_video_quirks_get_names (PpVideoQuirks *self)
{
  static const char * const empty[] = { NULL };

  return self->quirk_names ? (const char * const *) self->quirk_names : empty;
}

const PpQuirkSelection *
pp_video_quirks_get_selection (PpVideoQuirks *self)
{
  return self->selection;
}

PpVideoQuirks *
pp_video_quirks_new (PpManager *manager)
{
  PpVideoQuirks *self = g_object_new (PP_TYPE_VIDEO_QUIRKS, NULL);

  self->manager = g_object_ref (manager);
  pp_video_quirks_load (self, NULL);
  pp_video_quirks_select (self);
  return self;
}

static void
pp_video_quirks_finalize (GObject *object)
{
  PpVideoQuirks *self = PP_VIDEO_QUIRKS (object);

  pp_quirkdb_free (self->db);
  pp_quirk_selection_free (self->selection);
  g_strfreev (self->used_names);
  g_strfreev (self->quirk_names);
  pp_machine_facts_clear (&self->facts);
  g_clear_object (&self->manager);
  G_OBJECT_CLASS (pp_video_quirks_parent_class)->finalize (object);
}

static void
pp_video_quirks_class_init (PpVideoQuirksClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pp_video_quirks_finalize;
}

static void
pp_video_quirks_init (PpVideoQuirks *self)
{
  pp_machine_facts_init (&self->facts);
}
