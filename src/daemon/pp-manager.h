/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The manager: keeps the device table and the situation, and applies the
 * policy through the backends. Knows nothing of D-Bus. */
#pragma once

#include <gio/gio.h>

#include "pp-config.h"
#include "pp-device-facts.h"
#include "pp-plan.h"
#include "pp-platform.h"
#include "pp-policy.h"
#include "pp-power-state.h"
#include "pp-udev.h"

G_BEGIN_DECLS

typedef struct {
  char     *config_path;   /* NULL: default search */
  char     *state_dir;
  char     *runtime_dir;
  gboolean  dry_run;
  gboolean  oneshot;
  gboolean  no_logind;
} PpManagerOptions;

/* A device the daemon manages: udev's word, the properties the policy
 * reads, and the sysfs facts read when it was added or last changed. */
typedef struct {
  PpDeviceInfo  *info;
  PpDeviceProps  props;
  PpDeviceFacts  facts;
} PpDevice;

#define PP_TYPE_MANAGER (pp_manager_get_type ())
G_DECLARE_FINAL_TYPE (PpManager, pp_manager, PP, MANAGER, GObject)

PpManager     *pp_manager_new                 (const PpManagerOptions *options);

/* Restore what a crashed run left, load the configuration, enumerate
 * and apply; unless oneshot, start following uevents. */
gboolean       pp_manager_start               (PpManager   *self,
                                               GError     **error);

/* Re-read the configuration and re-apply. The problems found (as
 * "file:line: message" strings) are returned in @problems. */
void           pp_manager_reload              (PpManager   *self,
                                               GPtrArray  **problems);

/* Stop: write back originals when RestoreOnExit, else forget them. */
void           pp_manager_shutdown            (PpManager   *self);

/* Extension points for the tree, idle and sleep components. */
PpDevice      *pp_manager_get_device          (PpManager   *self,
                                               const char  *syspath);
/* A device of the power-dependency tree: the managed (tagged) device, else
 * the device read from udev for a tree operation: not managed (no policy
 * pass applies to it), kept until the topology changes or
 * pp_manager_forget_tree_devices(). NULL when it is not a device under
 * /sys/devices. */
PpDevice      *pp_manager_get_tree_device     (PpManager   *self,
                                               const char  *syspath);
void           pp_manager_forget_tree_devices (PpManager   *self);
/* Re-apply the whole policy (after resume, when firmware may have reset
 * attributes). */
void           pp_manager_reapply             (PpManager   *self);
/* The sleep layer (powerpolicy.conf(5), [Sleep] RestoreDefaultsBeforeSleep=):
 * TRUE before system sleep puts power/control=on on the devices of
 * RestoreDefaultsClasses=/RestoreDefaultsDrivers= and the pcie_aspm policy the
 * configuration sets to "default", at once, through the one write path; FALSE
 * after resume takes them back to the policy. Nothing with
 * RestoreDefaultsBeforeSleep=false. FALSE when a write failed. */
gboolean       pp_manager_set_before_sleep    (PpManager   *self,
                                               gboolean     before_sleep,
                                               GError     **error);
/* Enter/leave the :idle layers (idle and no idle inhibitor). */
/* The power profile in force (the chosen one or a hold's; the D-Bus
 * object of data/dbus/org.freedesktop.UPower.PowerProfiles.xml decides):
 * its layers apply from now on. Property "power-profile" (string). */
void           pp_manager_set_profile         (PpManager   *self,
                                               PpProfile    profile);
PpProfile      pp_manager_get_profile         (PpManager   *self);
/* The chosen profile kept in the state directory: the saved one
 * (balanced when none or unreadable), and saving it. */
PpProfile      pp_manager_load_saved_profile  (PpManager   *self);
gboolean       pp_manager_save_profile        (PpManager   *self,
                                               PpProfile    profile,
                                               GError     **error);
/* The [Platform] knobs found on this machine. */
const PpPlatformKnobs *pp_manager_get_platform (PpManager  *self);
/* Explain's rows (PpExplainRow*) of the [Platform] knobs: each
 * platform_profile and energy_performance_preference, by full path. */
GPtrArray     *pp_manager_explain_platform    (PpManager   *self);
/* Another program serves the power profiles' names: a Conflicts row
 * (@subject NULL: none). Emits "conflicts-changed" when it changes. */
void           pp_manager_set_profiles_conflict (PpManager *self,
                                                 const char *subject,
                                                 const char *what);
void           pp_manager_set_user_idle       (PpManager   *self,
                                               gboolean     user_idle);
gboolean       pp_manager_get_user_idle       (PpManager   *self);
/* Add (@held TRUE) or drop one hold on each device in @syspaths: a held device
 * is kept at power/control=on above every layer (powerpolicy.conf(5), LAYERS);
 * applied at once. FALSE if a write failed. */
gboolean       pp_manager_set_held            (PpManager   *self,
                                               GPtrArray   *syspaths,
                                               gboolean     held,
                                               GError     **error);
/* Add (@reverted TRUE) or drop one Revert of each device in @syspaths
 * (managed devices): every attribute the layers decide for a reverted
 * device goes back to its original (the journal's, ListChanges'), above
 * the overrides and below PowerDown and holds; applied at once, never
 * persisted. FALSE if a write failed. */
gboolean       pp_manager_set_reverted        (PpManager   *self,
                                               GPtrArray   *syspaths,
                                               gboolean     reverted,
                                               GError     **error);
gboolean       pp_manager_is_reverted         (PpManager   *self,
                                               const char  *syspath);
/* The value the layers (overrides and holds included, PowerDown not)
 * decide for @relpath of @device now, or NULL when none sets it. */
char          *pp_manager_get_decided_value   (PpManager   *self,
                                               PpDevice    *device,
                                               const char  *relpath);
gboolean       pp_manager_is_held             (PpManager   *self,
                                               const char  *syspath);
/* Explain (org.powerpolicy1.Manager.xml, Explain): one PpExplainRow*
 * (pp-policy.h) per attribute the policy touches on @device, with its current
 * value read from sysfs; an attribute the device lacks and nothing decides has
 * no row. */
GPtrArray     *pp_manager_explain             (PpManager   *self,
                                               PpDevice    *device);
/* "driver D excluded by FILE:LINE" when the class of @device excludes
 * its bound driver (ExcludeDrivers=) and nothing is written to it, else
 * NULL. */
char          *pp_manager_get_exclusion       (PpManager   *self,
                                               PpDevice    *device);
/* PowerDown(auto) in force (@down) until PowerUp: power/control=auto and
 * an autosuspend delay of 0 above the policy and overrides; applied now. */
gboolean       pp_manager_set_powered_down    (PpManager   *self,
                                               PpDevice    *device,
                                               gboolean     down,
                                               GError     **error);
/* PowerUp of one device: PowerDown's layer goes and the device's policy
 * (overrides included) is applied at once with power/control=on above
 * every layer for this pass; an attribute no layer sets goes back to its
 * original. @out_decided (optional): "relpath=value" strings of what the
 * pass decided, for the caller's report. */
gboolean       pp_manager_power_up_device     (PpManager   *self,
                                               PpDevice    *device,
                                               GPtrArray  **out_decided,
                                               GError     **error);

/* How a write is treated (pp-plan.h): PP_MANAGER_WRITE_SETTING (journalled,
 * not written when in place), _ACTION (not journalled, always written),
 * _CHOICE (a list of choices, the [chosen] one compared). */
typedef PpPlanFlags PpManagerWriteFlags;
#define PP_MANAGER_WRITE_SETTING PP_PLAN_SETTING
#define PP_MANAGER_WRITE_ACTION  PP_PLAN_ACTION
#define PP_MANAGER_WRITE_CHOICE  PP_PLAN_CHOICE

/* A layer outside the policy's decision asks for one attribute (a port's
 * disable switch, bl_power, acpi_video_flags, /sys/power/...): planned
 * by pp_plan_request() and carried out by the same executor as the
 * policy's layers: dry-run gate, journal, checked writer. Only device
 * and module attributes and the sleep settings the daemon knows are
 * accepted (else Refused). @device: named in DeviceChanged, or NULL.
 * A setting (not an action) is a standing request: the manager keeps it
 * (the request for the same path before it ends) and every policy pass
 * plans it again, like holds and overrides, until the layer ends it
 * (pp_manager_end_layer()); a request whose write fails is not kept. */
gboolean       pp_manager_request_layer       (PpManager           *self,
                                               PpPlanLayer          layer,
                                               PpDevice            *device,
                                               const char          *path,
                                               const char          *value,
                                               PpManagerWriteFlags  flags,
                                               GError             **error);
/* The layer's request for @path ends, leaving @value there (the panel on
 * at lid open, a port's switch on at PowerUp): written as a request
 * would be, and not planned again. */
gboolean       pp_manager_end_layer           (PpManager           *self,
                                               PpPlanLayer          layer,
                                               PpDevice            *device,
                                               const char          *path,
                                               const char          *value,
                                               PpManagerWriteFlags  flags,
                                               GError             **error);

/* An action (/sys/power/state, which returns only after resume) as
 * pp_manager_request_layer() writes it, but the write itself in a worker
 * thread, so that the main loop (D-Bus) keeps running while it blocks:
 * the checks, the dry-run gate (logged, nothing written, TRUE at once)
 * and the report of a failure on the calling thread; no other state of
 * the manager is touched by the thread. The result, on the thread
 * default main context, says whether the write succeeded. */
void           pp_manager_request_action_async  (PpManager           *self,
                                                 PpPlanLayer          layer,
                                                 const char          *path,
                                                 const char          *value,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
gboolean       pp_manager_request_action_finish (PpManager           *self,
                                                 GAsyncResult        *result,
                                                 GError             **error);

/* The value @path had before the daemon first changed it (journalled for
 * restore), or NULL when the daemon has not changed it. Owned by the
 * manager, valid until the next write. */
const char    *pp_manager_lookup_original     (PpManager           *self,
                                               const char          *path);

/* The one dry-run switch (--dry-run or DryRun=true, re-read on Reload;
 * also the GObject property "dry-run"): nothing is written, no helper
 * runs, each would-be action is logged. */
gboolean       pp_manager_get_dry_run         (PpManager   *self);

/* Attribute writes failed since start, and the seconds the last full
 * policy pass took (0 before the first); also the GObject properties
 * "write-failures" and "last-policy-pass-sec" (D-Bus WriteFailures,
 * LastPolicyPassSec). */
guint64        pp_manager_get_n_write_failures (PpManager  *self);
double         pp_manager_get_last_policy_pass_sec (PpManager *self);
gboolean       pp_manager_get_on_battery      (PpManager   *self);
/* On battery at or below [Daemon] LowBatteryPercent= (GObject property
 * "low-battery", D-Bus LowBattery). */
gboolean       pp_manager_get_low_battery     (PpManager   *self);
/* The situation the policy decides for (power source, low battery, user
 * idle), owned by the manager. */
const PpSituation *pp_manager_get_situation   (PpManager   *self);
const PpConfig *pp_manager_get_config         (PpManager   *self);
const char    *pp_manager_get_backend         (PpManager   *self);
/* "logind" or "kernel", set by the sleep component
 * (org.powerpolicy1.Manager.xml, Backend). */
void           pp_manager_set_backend         (PpManager   *self,
                                               const char  *backend);
const PpManagerOptions *pp_manager_get_options (PpManager  *self);

/* Every managed device (those udev's rules tagged "powerpolicy"), sorted by path (PpDevice*, owned by the manager);
 * device links are edges of the tree, not devices, and are left out. */
GPtrArray     *pp_manager_list_devices        (PpManager   *self);

/* Resolve a device argument (powerpolicyd(8), D-BUS INTERFACE): devpath,
 * /sys/bus|class path or sysname -> a managed device, else NoSuchDevice /
 * InvalidArgument. */
PpDevice      *pp_manager_resolve_device      (PpManager   *self,
                                               const char  *device,
                                               GError     **error);

/* Overrides (org.powerpolicy1.Manager.xml, SetOverride and ClearOverrides):
 * validated, persisted, applied at once; a failed write takes the override
 * back. */
gboolean       pp_manager_set_override        (PpManager   *self,
                                               PpDevice    *device,
                                               const char  *key,
                                               const char  *value,
                                               GError     **error);
gboolean       pp_manager_clear_overrides     (PpManager   *self,
                                               PpDevice    *device,
                                               GError     **error);

/* What the device dictionary (org.powerpolicy1.Manager.xml, GetDevice) shows
 * beyond PpDevice itself. The runtime-PM attributes are read when asked, never
 * kept: the kernel changes runtime_status without a uevent, and other programs
 * may write control, autosuspend_delay_ms and wakeup without one
 * (pp-power-state.h). Nothing in it is allocated. */
typedef struct {
  const char   *parent;   /* the parent device's syspath (kept by the device), or "" */
  PpPowerState  power;    /* power/runtime_status ("unsupported" without), control,
                           * autosuspend_delay_ms (-1 without), wakeup, read now */
  gboolean      held;     /* a hold keeps it up */
} PpDeviceStatus;

/* Every attribute the daemon changed and would restore
 * (org.powerpolicy1.Manager.xml, ListChanges): the originals this run recorded
 * whose attribute still exists and now holds another value, sorted by path and
 * attribute (values made valid UTF-8). @path is the device, @attribute relative
 * to it; a file under no device (a module parameter, a /sys/power setting) has
 * its own path as @path and its file name as @attribute. Array of
 * PpManagerChange. */
typedef struct {
  char *path;
  char *attribute;
  char *original;
  char *current;
} PpManagerChange;

GPtrArray     *pp_manager_list_changes        (PpManager   *self);
void           pp_manager_change_free         (PpManagerChange *change);

/* The overrides set over D-Bus (org.powerpolicy1.Manager.xml, ListOverrides):
 * array of PpOverrideRow (pp-overrides.h), sorted by path. */
GPtrArray     *pp_manager_list_overrides      (PpManager   *self);

/* The rows of the Conflicts property: the power tools found installed
 * (at start and on Reload), then the attributes other programs changed
 * (pp_foreign_tracker_list_conflicts()). Array of PpConflict (a copy).
 * The signal "conflicts-changed" (no arguments) says when they change. */
GPtrArray     *pp_manager_list_conflicts      (PpManager   *self);

/* Fill @out for @device: its parent and hold from memory, the power/
 * attributes read now (one path walk). */
void           pp_manager_read_device_status  (PpManager      *self,
                                               PpDevice       *device,
                                               PpDeviceStatus *out);

/* Who holds @syspath, as Explain's origin of a hold: "held by WHO (WHY),
 * pid N" per hold keeping it on, g_malloc'ed, or NULL when the hook
 * knows none. Set by the component that keeps the holds (pp-power-ops);
 * NULL hook: "held". */
typedef char *(*PpManagerHoldHook) (PpManager  *manager,
                                    const char *syspath,
                                    gpointer    user_data);
void           pp_manager_set_hold_hook       (PpManager         *self,
                                               PpManagerHoldHook  hook,
                                               gpointer           user_data);

/* Who reverts @syspath, as Explain's origin of the revert layer:
 * "reverted by WHO (WHY), pid N" per Revert, g_malloc'ed, or NULL. Set by
 * the component that keeps the Reverts (pp-revert); NULL hook:
 * "reverted". */
void           pp_manager_set_revert_hook     (PpManager         *self,
                                               PpManagerHoldHook  hook,
                                               gpointer           user_data);

/* One row of GetStatistics (org.powerpolicy1.Manager.xml); strings are the
 * manager's. */
typedef struct {
  const char *path;
  const char *class;
  double      suspended_share;  /* 0..1; 0 for an empty window */
  guint64     active_ms;
  guint64     suspended_ms;
  const char *runtime_status;   /* read with the counters (static string) */
  gboolean    control_auto;     /* power/control is "auto", read with them */
} PpManagerStatsRow;

/* Residency (org.powerpolicy1.Manager.xml, GetStatistics) from the kernel's
 * runtime-PM counters, read now: since the daemon started, or since the last
 * policy pass that changed the device. @device NULL: every managed device with
 * counters, sorted by path; else that device alone, or NULL with NoSuchDevice
 * (gone) / NotSupported (no counters). An array of PpManagerStatsRow whose
 * strings are the manager's: use it before returning to the main loop. Reads
 * the 2 counter files per device, and with @with_state runtime_status and
 * control too (else the rows' runtime_status is NULL and control_auto FALSE);
 * no timer. */
GArray        *pp_manager_get_statistics      (PpManager   *self,
                                               PpDevice    *device,
                                               gboolean     with_state,
                                               GError     **error);

/* GetClassStatistics (org.powerpolicy1.Manager.xml): the statistics of the
 * managed devices with counters added up by class (pp_stats_class_totals());
 * array of PpManagerClassStats sorted by class, the class strings the row's
 * own. */
typedef struct {
  char    *class;
  guint    n_devices;
  guint    n_never_suspends;
  double   suspended_share;
  guint64  active_ms;
  guint64  suspended_ms;
} PpManagerClassStats;

GArray        *pp_manager_get_class_statistics (PpManager  *self);

/* CountDevices: one per class and runtime status of the managed
 * devices, sorted; strings the row's own. */
typedef struct {
  char  *class;
  char  *runtime_status;
  guint  count;
} PpManagerDeviceCount;

GArray        *pp_manager_count_devices       (PpManager   *self);

G_END_DECLS
