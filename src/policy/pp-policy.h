/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pure decisions: a device's class and the settings to write for it in a
 * situation (SPEC §3, §4). No I/O. */
#pragma once

#include <glib.h>

#include "pp-config.h"

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

/* The settings (PpSetting*, key = relpath) to write for a device, in the
 * order they should be written. Empty when the device is ignored. */
GPtrArray  *pp_policy_device_settings (const PpConfig      *config,
                                       const PpDeviceProps *props,
                                       const PpSituation   *situation,
                                       const PpOverride    *override,
                                       gboolean             held);

/* The module parameters (key = "MODULE/parameters/PARAM") to write. */
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
