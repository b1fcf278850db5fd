/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pm-utils' native video quirk database (powerpolicyd(8), SYSTEM SLEEP,
 * LID AND VIDEO QUIRKS): a pure parser of the
 * quirkdb format and the selection of pm-utils 1.4.1's
 * 98video-quirk-db-handler. Takes text and machine facts, reads nothing. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The facts quirk entries match on (powerpolicyd(8), SYSTEM SLEEP, LID AND
 * VIDEO QUIRKS). Strings are never
 * NULL once filled by pp_machine_facts_*; "" means unknown. */
typedef struct {
  char     *firmware_vendor;        /* system.firmware.vendor (bios_vendor) */
  char     *firmware_version;       /* system.firmware.version (bios_version) */
  char     *firmware_release_date;  /* system.firmware.release_date (bios_date) */
  char     *hardware_vendor;        /* system.hardware.vendor (sys_vendor) */
  char     *hardware_product;       /* system.hardware.product (product_name) */
  char     *hardware_version;       /* system.hardware.version (product_version) */
  char     *board_vendor;           /* system.board.vendor */
  char     *board_product;          /* system.board.product (board_name) */
  char     *board_version;          /* system.board.version */
  char     *video_vendor;           /* system.hardware.primary_video.vendor ("0x8086") */
  char     *video_product;          /* system.hardware.primary_video.product ("0x2a02") */
  char     *video_driver;           /* system.hardware.primary_video.driver */
  gboolean  video_using_kms;        /* system.hardware.primary_video.using_kms */
  char     *kernel_version;         /* system.kernel.version (uname -r) */
  gboolean  nvidia_loaded;          /* /sys/module/nvidia exists */
  gboolean  fglrx_loaded;           /* /sys/module/fglrx exists */
} PpMachineFacts;

void         pp_machine_facts_init     (PpMachineFacts       *facts);
void         pp_machine_facts_clear    (PpMachineFacts       *facts);
/* The value of a quirkdb key, or NULL for a key that does not exist.
 * Returns a newly allocated string. */
char        *pp_machine_facts_get      (const PpMachineFacts *facts,
                                        const char           *key);
/* The keys, NULL-terminated, in pm-utils' order. */
extern const char * const pp_quirkdb_keys[];

/* Quirk names (pm-utils' with '_' for '-'): TRUE for a known name;
 * "pci_save" is accepted and normalised to "save_pci". Returns the
 * canonical static name or NULL. */
const char  *pp_quirk_canonical_name   (const char *name);

/* acpi_video_flags bits of the kernel-flag quirks in @quirks
 * (s3_bios bit 0, s3_mode bit 1). */
guint        pp_quirks_acpi_video_flags (const char * const *quirks);

typedef enum {
  PP_QUIRK_SOURCE_DRIVER,             /* a driver rule */
  PP_QUIRK_SOURCE_CONFIG,             /* [Sleep] VideoQuirks= */
  PP_QUIRK_SOURCE_LAST_KNOWN_WORKING, /* saved after a good resume */
  PP_QUIRK_SOURCE_DATABASE,           /* a *.quirkdb entry */
  PP_QUIRK_SOURCE_DEFAULT,            /* no entry matched */
} PpQuirkSource;

const char  *pp_quirk_source_to_string (PpQuirkSource source);

/* One quirk of a selection and why it is there. */
typedef struct {
  char *quirk;
  char *detail;     /* "FILE:LINE (entry at line N)", the rule, ... */
} PpQuirkReason;

typedef struct {
  PpQuirkSource  source;
  GPtrArray     *quirks;    /* of char*, canonical names, in order, no duplicates */
  GPtrArray     *reasons;   /* of PpQuirkReason*, parallel to @quirks */
  char          *summary;   /* one line: why this set */
} PpQuirkSelection;

void         pp_quirk_selection_free   (PpQuirkSelection *selection);
/* NULL-terminated view of the quirk names (free the container only). */
const char **pp_quirk_selection_names  (const PpQuirkSelection *selection);

typedef struct _PpQuirkDb PpQuirkDb;

PpQuirkDb   *pp_quirkdb_new            (void);
void         pp_quirkdb_free           (PpQuirkDb  *db);
/* Parse one file's text and append it to the database (files are tried
 * in the order they were added: add them in lexical order). Problems
 * (PpConfigProblem*: file, line, message) are appended to @problems;
 * a malformed line is skipped (a malformed "match" skips its block). */
void         pp_quirkdb_add_file       (PpQuirkDb  *db,
                                        const char *file_name,
                                        const char *text,
                                        gsize       length,
                                        GPtrArray  *problems);
guint        pp_quirkdb_get_n_files    (const PpQuirkDb *db);

/* Evaluate one file of the database as pm-utils' find_native() does:
 * TRUE when an addquirk/delquirk ran (the file "yields a match"). */
gboolean     pp_quirkdb_match_file     (const PpQuirkDb      *db,
                                        guint                 index,
                                        const PpMachineFacts *facts,
                                        PpQuirkSelection    **out);

/* The last-known-working record: the facts it was saved for and its
 * quirks. */
typedef struct {
  PpMachineFacts  facts;
  char          **quirks;
} PpQuirkLkw;

/* The whole selection of 98video-quirk-db-handler: driver rules (KMS,
 * nvidia, fglrx, NVIDIA G80), then @config_quirks (NULL: auto), then
 * @lkw when it was saved for exactly these @facts, then the first file
 * that yields a match, then the default set. Unknown names in
 * @config_quirks are reported in @problems and ignored. */
PpQuirkSelection *pp_quirkdb_select    (const PpQuirkDb      *db,
                                        const PpMachineFacts *facts,
                                        const char * const   *config_quirks,
                                        const PpQuirkLkw     *lkw,
                                        GPtrArray            *problems);

/* Last-known-working record as key file text, and back. */
char        *pp_quirk_lkw_to_data      (const PpMachineFacts *facts,
                                        const char * const   *quirks);
gboolean     pp_quirk_lkw_from_data    (PpQuirkLkw           *lkw,
                                        const char           *text,
                                        GError              **error);
void         pp_quirk_lkw_clear        (PpQuirkLkw           *lkw);
/* TRUE when the record was saved for exactly @facts. */
gboolean     pp_quirk_lkw_matches      (const PpQuirkLkw     *lkw,
                                        const PpMachineFacts *facts);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpQuirkDb, pp_quirkdb_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpQuirkSelection, pp_quirk_selection_free)

G_END_DECLS
