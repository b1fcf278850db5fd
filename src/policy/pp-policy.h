/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pure decisions: a device's class and the settings to write for it in a
 * situation (powerpolicy.conf(5), LAYERS). No I/O. */
#pragma once

#include <glib.h>

#include "pp-config.h"
#include "pp-knobs.h"

G_BEGIN_DECLS

typedef enum {
  PP_TRISTATE_UNSET = -1,
  PP_TRISTATE_NO    = 0,
  PP_TRISTATE_YES   = 1,
} PpTristate;

/* What udev told us about a device, parsed (powerpolicy.conf(5), UDEV
 * PROPERTIES). */
typedef struct {
  char       *klass;              /* POWERPOLICY_CLASS, else SUBSYSTEM */
  char       *subsystem;          /* SUBSYSTEM ("" when unknown): the section the class refines */
  gboolean    ignore;             /* POWERPOLICY_IGNORE=1 */
  gboolean    id_autosuspend;     /* ID_AUTOSUSPEND=1 */
  gint        id_delay_ms;        /* ID_AUTOSUSPEND_DELAY_MS, -2 = unset */
  PpTristate  autosuspend;        /* POWERPOLICY_AUTOSUSPEND */
  gint        delay_ms;           /* POWERPOLICY_AUTOSUSPEND_DELAY_MS, -2 = unset */
  char       *wakeup;             /* POWERPOLICY_WAKEUP or NULL */
} PpDeviceProps;

#define PP_DELAY_UNSET (-2)

/* Overrides set over D-Bus (org.powerpolicy1.Manager.xml, SetOverride);
 * NULL/unset fields do not apply. */
typedef struct {
  char *control;
  gint  delay_ms;                 /* PP_DELAY_UNSET = none */
  char *wakeup;
} PpOverride;

typedef struct {
  gboolean on_battery;
  gboolean user_idle;             /* idle and no idle inhibitor */
  gboolean low_battery;           /* on battery at or below LowBatteryPercent */
  /* between PrepareForSleep and resume, with [Sleep]
   * RestoreDefaultsBeforeSleep=true: the sleep layer applies */
  gboolean before_sleep;
  /* [Daemon] PowerSource=ac|battery fixed the power source: where it
   * says so ("PowerSource=battery FILE:LINE"), added to the origin of
   * the :battery and :low-battery layers; NULL: from the power supplies */
  const char *power_source_origin;
  /* the active power profile: its layer applies above :battery */
  PpProfile profile;
} PpSituation;

/* Look up a udev property; returns NULL when absent. */
typedef const char *(*PpPropertyLookup) (gpointer    user_data,
                                         const char *key);

/* Parse the udev properties of a device. Bad values are skipped and
 * described in @warnings (of char*), if given. */
void        pp_device_props_init     (PpDeviceProps   *props,
                                      const char      *subsystem,
                                      PpPropertyLookup lookup,
                                      gpointer         user_data,
                                      GPtrArray       *warnings);
void        pp_device_props_clear    (PpDeviceProps   *props);

/* What the daemon knows of a device beyond udev's properties: its state
 * in the daemon, and its driver. All fields may be NULL/FALSE. */
typedef struct {
  const PpOverride *override;      /* overrides set over D-Bus */
  gboolean          powered_down;  /* PowerDown(auto) in force until PowerUp */
  gboolean          held;          /* a hold (or PowerUp's pass) keeps it on */
  const char       *held_by;       /* the hold's origin ("held by WHO (WHY), pid N");
                                    * NULL: "held" */
  const char       *driver;        /* the bound driver, for ExcludeDrivers= */
  /* a Revert (org.powerpolicy1.Manager.xml, Revert) puts the device back to its original
   * values: above the overrides, below PowerDown and holds. @original
   * gives the journalled original of an attribute (relpath): the value
   * it had before the daemon first wrote it, or NULL when the daemon has
   * not changed it (then it still has its original: the revert leaves it
   * alone). A lookup in what the daemon knows, never a read of sysfs;
   * NULL @original: every attribute is left alone. The same lookup
   * gives the device's own value for an empty assignment and for a
   * runtime PM attribute no layer sets (PP_SOURCE_OWN). */
  gboolean          reverted;
  const char       *reverted_by;   /* the revert's origin; NULL: "reverted" */
  const char     *(*original)      (gpointer    user_data,
                                    const char *relpath);
  gpointer          original_data;
  /* an NVMe drive whose APST is known broken (pp_nvme_apst_quirk_find()),
   * or NULL */
  const PpNvmeApstQuirk *apst_quirk;
} PpDeviceState;

/* The policy's decision for one device: the one computation behind both
 * applying (the settings) and Explain (each setting's source and
 * origin). */
typedef struct {
  /* PpSetting* to write (key = relpath), in write order, each with its
   * source and origin; empty when @skipped */
  GPtrArray       *settings;
  /* PP_SOURCE_IGNORED (POWERPOLICY_IGNORE=1) or PP_SOURCE_EXCLUDED (the
   * bound driver is in the class's ExcludeDrivers=): nothing is written;
   * else PP_SOURCE_NONE */
  PpSettingSource  skipped;
  /* why (e.g. "driver mei_me excluded by FILE:LINE"), or NULL */
  char            *skip_origin;
  /* when @skipped: what the layers would have decided (PpSetting*), the
   * attributes left alone; else empty */
  GPtrArray       *left_alone;
  /* attributes an empty assignment ("Control=") left alone, as the
   * settings that decided so (value ""); for Explain */
  GPtrArray       *cleared;
} PpDecision;

/* Layer order (powerpolicy.conf(5), LAYERS), lowest first: class base, :battery (on
 * battery), :power-saver or :performance (the power profile), :low-battery
 * (on battery at or below LowBatteryPercent),
 * :idle (user idle), the hwdb's ID_AUTOSUSPEND=1 and
 * ID_AUTOSUSPEND_DELAY_MS (device knowledge, above every class layer),
 * the administrator's POWERPOLICY_* udev properties, overrides, a Revert (the
 * originals, while its fd is open), PowerDown (control=auto, delay 0),
 * holds (control=on), the sleep layer (control=on for the
 * classes and drivers of [Sleep] RestoreDefaultsClasses=/Drivers= while
 * situation->before_sleep). A shipped NVMe APST quirk comes right above
 * the configuration layers. AspmL1=0 turns the L1 substates off with it
 * (the kernel does). The class cascade runs inside each of the
 * four configuration layers: [Class SUBSYSTEM:LAYER] first, then
 * [Class CLASS:LAYER] (one section when the class is the subsystem), so
 * a higher layer of the subsystem beats a lower layer of the class. An
 * empty value is the device's own value: an attribute the daemon has
 * changed (state->original knows its original) is decided back to it,
 * source PP_SOURCE_OWN; one it never changed is left alone (@cleared).
 * So is power/control, power/autosuspend_delay_ms or power/wakeup that
 * no layer sets. ExcludeDrivers= is the class's list when its section
 * sets the key, else the subsystem's. */
PpDecision *pp_policy_decide          (const PpConfig      *config,
                                       const PpDeviceProps *props,
                                       const PpSituation   *situation,
                                       const PpDeviceState *state);
void        pp_decision_free          (PpDecision          *decision);
/* The skip_origin pp_policy_decide() gives a device whose class excludes
 * its bound @driver ("driver D excluded by FILE:LINE [Class C]"), else
 * NULL (also for an ignored device): that part of the decision alone,
 * without the layers, for the device dictionaries. */
char       *pp_policy_get_exclusion   (const PpConfig      *config,
                                       const PpDeviceProps *props,
                                       const char          *driver);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpDecision, pp_decision_free)

/* The settings of pp_policy_decide() without a driver or PowerDown (the
 * decision's settings): in write order, empty when the device is
 * ignored. */
GPtrArray  *pp_policy_device_settings (const PpConfig      *config,
                                       const PpDeviceProps *props,
                                       const PpSituation   *situation,
                                       const PpOverride    *override,
                                       gboolean             held);

/* The setting of @key in @settings (PpSetting*), or NULL. */
const PpSetting *pp_settings_find      (GPtrArray           *settings,
                                        const char          *key);

/* "class", "battery", "power-saver", "performance", "low-battery", "idle",
 * "hwdb", "udev", "override", "power-down", "hold", "excluded", "ignored",
 * "revert", "quirk", "sleep", "own"; "" for PP_SOURCE_NONE. */
const char *pp_setting_source_to_string (PpSettingSource source);

/* One row of Explain (org.powerpolicy1.Manager.xml): an attribute the policy
 * touches on a device, what it holds now, what the policy decided ("" when it
 * leaves the attribute alone), the layer that decided and its origin. */
typedef struct {
  char       *attribute;
  char       *current;             /* filled in by the caller (sysfs), or NULL */
  char       *decided;
  const char *layer;               /* static */
  char       *origin;
} PpExplainRow;

/* The rows of a decision (PpExplainRow*, current NULL): power/control,
 * power/autosuspend_delay_ms and power/wakeup always (an attribute no
 * layer sets: decided "", layer "own", origin saying which sections do
 * not set it; one an empty assignment left alone: decided "", layer
 * "own" ("revert" for a revert's), origin "left alone by" the line; the
 * own value the decision writes back: decided that value, layer "own"),
 * then every other attribute decided, in write order. A skipped
 * device: every attribute with decided "" and the skip's layer and
 * origin. Origins of configuration lines: "FILE:LINE [Class NAME:LAYER]",
 * the section that won. */
GPtrArray  *pp_policy_explain         (const PpConfig      *config,
                                       const PpDeviceProps *props,
                                       const PpDecision    *decision);
void        pp_explain_row_free       (PpExplainRow        *row);

/* The module parameters (key = "MODULE/parameters/PARAM") to write,
 * each with its source and origin; while situation->before_sleep (and
 * RestoreDefaultsBeforeSleep=true) a pcie_aspm policy the configuration
 * sets is "default", source PP_SOURCE_SLEEP. */
GPtrArray  *pp_policy_module_settings (const PpConfig      *config,
                                       const PpSituation   *situation);

/* [Platform] and its layers for the situation: PP_PLATFORM_PROFILE_KEY
 * and PP_PLATFORM_EPP_KEY with the word decided, each with its source and
 * origin; a key an empty assignment cleared (the firmware's own value) is
 * absent. */
GPtrArray  *pp_policy_platform_settings (const PpConfig    *config,
                                         const PpSituation *situation);

/* One power_supply device as read from sysfs. */
typedef struct {
  const char *type;               /* "Mains", "USB", "Battery", ... or NULL */
  gint        online;             /* 0, 1, or -1 when unknown */
  const char *scope;              /* "System", "Device" or NULL */
} PpPowerSupplyFacts;

/* On battery when a system battery exists and no charger (Mains, USB*,
 * Wireless) is online; no information means AC. Device-scope supplies
 * (a mouse's battery) do not count. */
gboolean    pp_policy_on_battery      (const PpPowerSupplyFacts *supplies,
                                       gsize                     n_supplies);

/* One battery (power_supply type "Battery") as read from sysfs; -1 for a
 * value the kernel does not give. energy in µWh, charge in µAh. */
typedef struct {
  const char *scope;              /* "System", "Device" or NULL */
  gint        capacity;           /* percent */
  gint64      energy_now;
  gint64      energy_full;
  gint64      charge_now;
  gint64      charge_full;
} PpBatteryFacts;

/* The charge of the system's batteries together in percent (0..100), or
 * -1 when unknown (no system battery, nothing readable). Device-scope
 * batteries do not count. Several batteries: their combined energy
 * (sum of energy_now over sum of energy_full) when every one reports
 * energy, else their combined charge when every one reports charge, else
 * the mean of their capacity readings. One battery: its energy or charge
 * ratio, else its capacity. */
gint        pp_policy_battery_percent (const PpBatteryFacts *batteries,
                                       gsize                 n_batteries);

/* The :low-battery layer applies: on battery and @percent known and at
 * or below @threshold. */
gboolean    pp_policy_low_battery     (gboolean              on_battery,
                                       gint                  percent,
                                       guint                 threshold);

/* [Sleep] MemSleep= (@hibernate FALSE) or HibernateMode= (TRUE) for the
 * situation: [Sleep:low-battery] when low on battery and it sets the key,
 * else [Sleep:power-saver] or [Sleep:performance] for that profile when
 * it sets it, else [Sleep:battery] on battery when it sets it, else
 * [Sleep]. Static within @config. @layer (may be NULL): the section,
 * "Sleep", "Sleep:battery", "Sleep:power-saver", "Sleep:performance" or
 * "Sleep:low-battery". */
const char *pp_policy_sleep_mode      (const PpConfig      *config,
                                       const PpSituation   *situation,
                                       gboolean             hibernate,
                                       const char         **layer);

G_END_DECLS
