/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The manager's state, shared by its parts: pp-manager.c (lifecycle,
 * uevents, power source, layer requests, GObject), pp-device-table.c,
 * pp-manager-layers.c (the decision, queries), pp-manager-profile.c and
 * pp-manager-execute.c (announcing what the executor wrote). The
 * executor (pp-executor.h) is an object of its own that the manager
 * owns, its state in its own struct. Not for other callers. */
#pragma once

#include "pp-executor.h"
#include "pp-manager.h"
#include "pp-overrides.h"
#include "pp-platform.h"
#include "pp-plan.h"
#include "pp-residency.h"
#include "pp-restore.h"

G_BEGIN_DECLS

typedef PpPlanWrite PlannedWrite;
#define planned_write_free pp_plan_write_free

struct _PpManager {
  GObject           parent_instance;

  PpManagerOptions  options;
  char             *backend;        /* set by the sleep component; NULL: none yet */
  PpConfig         *config;
  PpUdev           *udev;
  PpOverrides      *overrides;

  /* the one write path: the journal, what this run changed, foreign
   * writes, write failures, the dry-run switch */
  PpExecutor       *executor;

  GHashTable       *devices;        /* syspath -> PpDevice*: the tagged devices */
  GHashTable       *unmanaged;      /* syspath -> PpDevice*: untagged devices a tree
                                     * operation looked at (pp_manager_get_tree_device) */
  GHashTable       *by_sysname;     /* sysname -> GPtrArray of PpDevice* (unowned) */
  GPtrArray        *sorted_cache;   /* PpDevice*, or NULL when stale */

  PpSituation       situation;
  /* "PowerSource=ac FILE:LINE" while the configuration fixes the power
   * source (situation.power_source_origin points here), else NULL */
  char             *power_source_origin;
  PpPowerSource     power_source;     /* the PowerSource= in force */
  gboolean          started;

  GHashTable       *held;           /* syspath -> number of holds keeping it on */
  GHashTable       *powered_down;   /* syspaths PowerDown(auto) allowed to suspend */

  PpManagerHoldHook hold_hook;      /* who holds a device, for Explain */
  gpointer          hold_hook_data;

  GHashTable       *reverted;       /* syspath -> number of Reverts putting it back */
  /* the standing requests of the layers outside the policy's decision
   * (sleep, lid, power-off): PpPlanRequest*, planned by every pass */
  GPtrArray        *layer_requests;
  PpManagerHoldHook revert_hook;    /* who reverts a device, for Explain */
  gpointer          revert_hook_data;

  guint64           notified_write_failures;  /* the value "write-failures" last announced */

  /* other programs: tools installed (PpConflict*, found at start and on
   * Reload); the executor tracks foreign changes of what the daemon wrote */
  GPtrArray        *installed_conflicts;
  gboolean          foreign_changed;   /* since the last conflicts-changed */

  double            last_pass_sec;    /* duration of the last full pass; 0 before the first */

  /* runtime-PM counter bases (GetStatistics): taken at start and for the
   * devices a policy pass changed; read when asked, never on a timer */
  PpResidencyBook  *residency;

  /* [Platform]'s knobs (pp-manager-profile.c), found at start and on
   * Reload; NULL before */
  PpPlatformKnobs  *platform;
  /* a program other than us serving the power profiles' names, for
   * Conflicts (subject, what); NULL: none */
  char             *profiles_conflict_subject;
  char             *profiles_conflict_what;
};

enum {
  PROP_0,
  PROP_ON_BATTERY,
  PROP_DRY_RUN,
  PROP_WRITE_FAILURES,
  PROP_LAST_POLICY_PASS_SEC,
  PROP_LOW_BATTERY,
  PROP_POWER_SOURCE,
  PROP_POWER_PROFILE,
  N_PROPS,
};

/* The manager's property and signal arrays are its own (pp-manager.c);
 * the other files of the class notify and emit through these. */
void           pp_manager_notify_property     (PpManager *self, guint prop);
/* TRUE when someone listens to "device-changed" (what to build the
 * arguments for). */
gboolean       pp_manager_wants_device_changed (PpManager *self);
void           pp_manager_emit_device_changed (PpManager          *self,
                                               const char         *syspath,
                                               const char * const *attributes,
                                               const char * const *values);
void           pp_manager_emit_conflicts_changed (PpManager *self);


gboolean
pp_manager_apply_device (PpManager *self, PpDevice *dev, GError **error);
/* @plan executed (pp_executor_execute()), and what it wrote announced:
 * DeviceChanged, write-failures, conflicts-changed. */
gboolean
pp_manager_execute_plan (PpManager *self, GPtrArray *plan, GError **first_error);
/* The same, with the number of writes done and failed. */
gboolean
pp_manager_execute_counted (PpManager *self, GPtrArray *plan, PpExecutorScope scope,
                            guint *n_written, guint *n_failed, GError **first_error);
void
pp_manager_flush_conflicts_changed (PpManager *self);
/* the device table (pp-device-table.c) */
gboolean
pp_manager_is_usb_device (PpDeviceInfo *info);
gboolean
pp_manager_classify_usb (PpDevice *dev);
void
pp_device_free (PpDevice *dev);
gboolean
pp_manager_is_managed_path (const char *syspath);
gboolean
pp_manager_is_device_link (PpDevice *dev);
PpDevice *
pp_manager_device_table_set (PpManager *self, PpDeviceInfo *info);
void
pp_manager_device_table_remove (PpManager *self, const char *syspath);
void
pp_manager_device_table_child_changed (PpManager *self, PpDeviceInfo *child);
gboolean
pp_manager_compute_on_battery (PpManager *self);
gint
pp_manager_compute_battery_percent (PpManager *self);
void
pp_manager_plan_device (PpManager *self, GPtrArray *plan, PpDevice *dev);
void
pp_manager_plan_modules (PpManager *self, GPtrArray *plan);
char *
pp_manager_hold_origin (PpManager *self, const char *syspath);
/* [Platform] (pp-manager-profile.c): find the knobs again, and plan
 * their writes for the situation */
void
pp_manager_read_platform (PpManager *self);
void
pp_manager_plan_platform (PpManager *self, GPtrArray *plan);

G_END_DECLS
