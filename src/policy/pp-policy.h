/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pure decisions: a device's class and the settings to write for it in a
 * situation (SPEC §3, §4). No I/O. */
#pragma once

#include <glib.h>

#include "pp-config.h"
#include "pp-knobs.h"

G_BEGIN_DECLS

#define PP_ATTR_CONTROL        "power/control"
#define PP_ATTR_DELAY          "power/autosuspend_delay_ms"
#define PP_ATTR_WAKEUP         "power/wakeup"
#define PP_ATTR_LINK_POLICY    "link_power_management_policy"

typedef enum {
  PP_TRISTATE_UNSET = -1,
  PP_TRISTATE_NO    = 0,
  PP_TRISTATE_YES   = 1,
} PpTristate;

/* What udev told us about a device, parsed (SPEC §3). */
typedef struct {
  char       *klass;              /* POWERPOLICY_CLASS, else SUBSYSTEM */
  gboolean    ignore;             /* POWERPOLICY_IGNORE=1 */
  gboolean    id_autosuspend;     /* ID_AUTOSUSPEND=1 */
  gint        id_delay_ms;        /* ID_AUTOSUSPEND_DELAY_MS, -2 = unset */
  PpTristate  autosuspend;        /* POWERPOLICY_AUTOSUSPEND */
  gint        delay_ms;           /* POWERPOLICY_AUTOSUSPEND_DELAY_MS, -2 = unset */
  char       *wakeup;             /* POWERPOLICY_WAKEUP or NULL */
} PpDeviceProps;

#define PP_DELAY_UNSET (-2)

/* Overrides set over D-Bus (SPEC §5); NULL/unset fields do not apply. */
typedef struct {
  char *control;
  gint  delay_ms;                 /* PP_DELAY_UNSET = none */
  char *wakeup;
} PpOverride;

typedef struct {
  gboolean on_battery;
  gboolean user_idle;             /* idle and no idle inhibitor */
  /* between PrepareForSleep and resume, with [Sleep]
   * RestoreDefaultsBeforeSleep=true: the sleep layer applies */
  gboolean before_sleep;
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
} PpDecision;

/* Layer order (SPEC §4): class base, :battery, :idle, the NVMe APST
 * quirk, udev properties, overrides, PowerDown (control=auto, delay 0),
 * holds (control=on), the sleep layer (control=on for the classes and
 * drivers of [Sleep] RestoreDefaultsClasses=/Drivers= while
 * situation->before_sleep). AspmL1=0 turns the L1 substates off with it
 * (the kernel does). */
PpDecision *pp_policy_decide          (const PpConfig      *config,
                                       const PpDeviceProps *props,
                                       const PpSituation   *situation,
                                       const PpDeviceState *state);
void        pp_decision_free          (PpDecision          *decision);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpDecision, pp_decision_free)

/* The settings of pp_policy_decide() without a driver or PowerDown (the
 * decision's settings): in write order, empty when the device is
 * ignored. */
GPtrArray  *pp_policy_device_settings (const PpConfig      *config,
                                       const PpDeviceProps *props,
                                       const PpSituation   *situation,
                                       const PpOverride    *override,
                                       gboolean             held);

/* "class", "battery", "idle", "udev", "override", "power-down", "hold",
 * "excluded", "ignored"; "" for PP_SOURCE_NONE. */
const char *pp_setting_source_to_string (PpSettingSource source);

/* One row of Explain (SPEC §5): an attribute the policy touches on a
 * device, what it holds now, what the policy decided ("" when it leaves
 * the attribute alone), the layer that decided and its origin. */
typedef struct {
  char       *attribute;
  char       *current;             /* filled in by the caller (sysfs), or NULL */
  char       *decided;
  const char *layer;               /* static */
  char       *origin;
} PpExplainRow;

/* The rows of a decision (PpExplainRow*, current NULL): power/control,
 * power/autosuspend_delay_ms and power/wakeup always (an attribute no
 * layer sets: decided "", layer "class", origin saying the class does not
 * set it), then every other attribute decided, in write order. A skipped
 * device: every attribute with decided "" and the skip's layer and
 * origin. @klass: the device's class. */
GPtrArray  *pp_policy_explain         (const PpConfig      *config,
                                       const char          *klass,
                                       const PpDecision    *decision);
void        pp_explain_row_free       (PpExplainRow        *row);

/* The module parameters (key = "MODULE/parameters/PARAM") to write,
 * each with its source and origin; while situation->before_sleep (and
 * RestoreDefaultsBeforeSleep=true) a pcie_aspm policy the configuration
 * sets is "default", source PP_SOURCE_SLEEP. */
GPtrArray  *pp_policy_module_settings (const PpConfig      *config,
                                       const PpSituation   *situation);

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

PpSetting  *pp_setting_new            (const char *key,
                                       const char *value);
void        pp_setting_free           (PpSetting  *setting);

G_END_DECLS
