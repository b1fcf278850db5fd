/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The planner: from what the policy decided for a directory (a device's
 * syspath or /sys/module) and the current values, the writes to make.
 * A plan is a value: no I/O, no logging, no state is changed here. The
 * executor (pp-executor.c) reads the current values, checks for foreign
 * changes, journals the originals, writes and reads back. */
#pragma once

#include <glib.h>

#include "pp-policy.h"

G_BEGIN_DECLS

typedef enum {
  /* a setting: its original journalled before the first write, put
   * back on exit and after a crash; not written when already in place */
  PP_PLAN_SETTING = 0,
  /* an action (/sys/power/state): not journalled, always written */
  PP_PLAN_ACTION  = 1 << 0,
  /* the attribute lists choices with the current one in [brackets]
   * (/sys/power/mem_sleep, /sys/power/disk): the chosen one is compared
   * and journalled */
  PP_PLAN_CHOICE  = 1 << 1,
} PpPlanFlags;

/* Who asked for a write. The policy's layers (classes, situations,
 * overrides, holds, PowerDown(auto)) are planned from the decision
 * (pp_plan_settings()); the others ask for one attribute at a time
 * (pp_plan_request()). */
typedef enum {
  PP_PLAN_LAYER_POLICY = 0,
  PP_PLAN_LAYER_SLEEP,       /* sleep preparation: /sys/power, acpi_video_flags */
  PP_PLAN_LAYER_LID,         /* the lid's panel power (bl_power) */
  PP_PLAN_LAYER_POWER_OFF,   /* PowerDown(off) and PowerUp: a port's switch */
  PP_PLAN_LAYER_RESTORE,     /* the journal written back */
} PpPlanLayer;

const char  *pp_plan_layer_to_string (PpPlanLayer layer);

typedef struct {
  PpPlanLayer  layer;
  gpointer     dev;       /* the device DeviceChanged names (opaque); NULL: none */
  char        *dir;       /* directory @relpath is under (a layer's write);
                           * NULL: check all of @path (an extra write) */
  char        *path;
  char        *relpath;
  char        *value;
  char        *current;   /* "" when present but unreadable; NULL only in
                           * a restore entry whose value was not read */
  PpPlanFlags  flags;
  gboolean     unreadable;  /* @current could not be read: write and see */
  gboolean     in_place;    /* @current is @value: nothing to write (kept so
                             * that the executor sees foreign changes) */
} PpPlanWrite;

void         pp_plan_write_free (PpPlanWrite *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpPlanWrite, pp_plan_write_free)

/* A plan: PpPlanWrite*, in write order. */
GPtrArray   *pp_plan_new        (void);

/* The current values the planner looks at. @read returns the value of
 * @path (newly allocated), NULL when the attribute does not exist; set
 * *@unreadable (and return "") when it exists but cannot be read.
 * @original returns the journalled original of @path, or NULL. */
typedef struct {
  char       *(*read)     (const char *path, gboolean *unreadable, gpointer user_data);
  const char *(*original) (const char *path, gpointer user_data);
  gpointer      user_data;
} PpPlanValues;

/* The current values of the paths a plan looks at, read before planning:
 * with the PpPlanValues of pp_plan_current_values() (and the
 * PpPlanRequestValues of pp_plan_current_request_values()) the planner
 * reads nothing, it looks them up. @original (and @original_data) answer
 * the journalled originals as PpPlanValues' @original does (NULL: none). */
typedef struct _PpPlanCurrent PpPlanCurrent;

PpPlanCurrent      *pp_plan_current_new    (const char *(*original) (const char *path,
                                                                     gpointer    user_data),
                                            gpointer     original_data);
void                pp_plan_current_free   (PpPlanCurrent *current);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpPlanCurrent, pp_plan_current_free)
/* What @path held when read: @value, NULL when it does not exist;
 * @unreadable when it exists but could not be read. */
void                pp_plan_current_set    (PpPlanCurrent *current,
                                            const char    *path,
                                            const char    *value,
                                            gboolean       unreadable);
/* The paths pp_plan_settings() looks at for @dir, @settings and
 * @touched (as it takes them), each once, in the order it looks. */
GPtrArray          *pp_plan_settings_paths (PpPlanCurrent *current,
                                            const char    *dir,
                                            GPtrArray     *settings,
                                            GHashTable    *touched);
/* The values for pp_plan_settings(): lookups in @current (a path not
 * set there counts as absent); valid as long as @current. */
const PpPlanValues *pp_plan_current_values (PpPlanCurrent *current);

/* Plan @settings (PpSetting*, key = relpath) of @dir: one entry per
 * attribute that exists, in the order given; then the attributes in
 * @touched (a set of relpaths this run changed, or NULL) that @settings
 * no longer mention go back to their originals (leaving a layer returns
 * to what the device had). */
void         pp_plan_settings   (GPtrArray          *plan,
                                 gpointer            dev,
                                 const char         *dir,
                                 GPtrArray          *settings,
                                 GHashTable         *touched,
                                 const PpPlanValues *values);

/* An extra write of @path outside a directory's layers (a sleep setting,
 * a port switch, a restore), with its current value. @dev and @relpath
 * as DeviceChanged names it. */
PpPlanWrite *pp_plan_write_new  (gpointer            dev,
                                 const char         *path,
                                 const char         *relpath,
                                 const char         *value,
                                 const char         *current,
                                 PpPlanFlags         flags);

/* A request of @layer: @path to @value. @current is what @path holds
 * now (for PP_PLAN_CHOICE the chosen one). A setting in place needs no
 * entry (FALSE); an action always has one. @dev (opaque) and its
 * @dev_syspath: the entry names the device only for its own attributes
 * (a port switch lies under the hub, not under the device behind it),
 * with the relative path; else @relpath is the whole path. */
gboolean     pp_plan_request    (GPtrArray          *plan,
                                 PpPlanLayer         layer,
                                 gpointer            dev,
                                 const char         *dev_syspath,
                                 const char         *path,
                                 const char         *value,
                                 const char         *current,
                                 PpPlanFlags         flags);

/* A standing request of a layer outside the policy's decision (the
 * sleep settings, the lid's panel power, a port switched off): @path at
 * @value until the layer ends. The manager keeps them, one per path, as
 * it keeps holds and overrides, and every policy pass plans them again
 * (pp_plan_requests()), so that no later pass undoes them. An action
 * (/sys/power/state) is never standing: pp_plan_request_new() returns
 * NULL for one. */
typedef struct {
  PpPlanLayer  layer;
  char        *dev_syspath;   /* the device whose attribute it is, or NULL */
  char        *path;
  char        *value;
  PpPlanFlags  flags;         /* PP_PLAN_SETTING or PP_PLAN_CHOICE */
} PpPlanRequest;

PpPlanRequest *pp_plan_request_new      (PpPlanLayer    layer,
                                         const char    *dev_syspath,
                                         const char    *path,
                                         const char    *value,
                                         PpPlanFlags    flags);
void           pp_plan_request_free     (PpPlanRequest *request);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpPlanRequest, pp_plan_request_free)

/* The standing requests: PpPlanRequest*, in the order first asked. */
GPtrArray     *pp_plan_requests_new     (void);
/* Put @request (taken) in force: it replaces the request of its path,
 * keeping that one's place. */
void           pp_plan_requests_set     (GPtrArray     *requests,
                                         PpPlanRequest *request);
/* The layer of @path ends: its request goes. TRUE when there was one. */
gboolean       pp_plan_requests_withdraw (GPtrArray    *requests,
                                          const char   *path);
/* The request for @path, or NULL. */
const PpPlanRequest *pp_plan_requests_lookup (GPtrArray  *requests,
                                              const char *path);

/* What the planner asks of the standing requests' paths: @read returns
 * what @path holds now (for PP_PLAN_CHOICE the chosen one), newly
 * allocated, or NULL when it cannot be read (gone: the request is
 * skipped this time); @device returns the opaque device of a syspath for
 * DeviceChanged, or NULL. The daemon reads every request's path before
 * planning into a PpPlanCurrent and answers with
 * pp_plan_current_request_values(): lookups, no I/O. */
typedef struct {
  char     *(*read)   (const char *path, PpPlanFlags flags, gpointer user_data);
  gpointer  (*device) (const char *syspath, gpointer user_data);
  gpointer    user_data;
} PpPlanRequestValues;

/* The device @dev (opaque, or NULL for none) that DeviceChanged names for
 * the requests of @syspath, known before planning. */
void           pp_plan_current_set_device (PpPlanCurrent *current,
                                           const char    *syspath,
                                           gpointer       dev);
/* The values for pp_plan_requests(): each request's path as
 * pp_plan_current_set() recorded it (for PP_PLAN_CHOICE the chosen one;
 * NULL, not set or unreadable: cannot be read) and its device as
 * pp_plan_current_set_device() did; valid as long as @current. */
const PpPlanRequestValues *pp_plan_current_request_values (PpPlanCurrent *current);

/* Plan every standing request of @requests, in order: an entry (of the
 * request's layer) for each whose path does not hold its value. */
void           pp_plan_requests         (GPtrArray                 *plan,
                                         GPtrArray                 *requests,
                                         const PpPlanRequestValues *values);

/* Restore: @path back to its journalled @value (the whole path is
 * checked by the executor: no directory, a setting). @current: what
 * @path holds now, or NULL when not read or gone; the entry is in place
 * when it is @value. Restoring writes every entry; ListChanges (pmctl
 * diff) shows the entries that are read and not in place. */
void         pp_plan_restore    (GPtrArray          *plan,
                                 const char         *path,
                                 const char         *value,
                                 const char         *current);

/* The entry of @plan for @relpath, or NULL. */
PpPlanWrite *pp_plan_lookup     (GPtrArray          *plan,
                                 const char         *relpath);

/* The number of entries of @plan that write (not in place). */
guint        pp_plan_count_writes (GPtrArray *plan);

G_END_DECLS
