/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration model and its parser (powerpolicy.conf(5)). Pure: takes
 * text, reads no files.
 *
 * Parsing: our own line-based reader of the GKeyFile subset we use ("[NAME]"
 * headers, KEY=VALUE, '#' comments, the value escapes \s \n \t \r \\). A line
 * it cannot take (a NUL byte, invalid UTF-8, longer than PP_CONFIG_MAX_LINE
 * bytes, no '=', a key before any section, a malformed header or key name) is
 * dropped with a FILE:LINE problem; the keys under a dropped header are dropped
 * with it. Duplicate sections and keys are reported (the later value wins). The
 * keys are then looked up in one static table (pp_config_list_keys()) that
 * names each key's section, parser, field and the layers it may be written
 * in; the unknown-key and wrong-layer reports are built from it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The device attributes the [Class] keys set. */
#define PP_ATTR_CONTROL        "power/control"
#define PP_ATTR_DELAY          "power/autosuspend_delay_ms"
#define PP_ATTR_WAKEUP         "power/wakeup"
#define PP_ATTR_LINK_POLICY    "link_power_management_policy"

/* Layers of a [Class]/[Module]/[Platform] section, lowest first
 * (powerpolicy.conf(5), LAYERS): [X], [X:battery], [X:power-saver] or
 * [X:performance] (the active power profile), [X:low-battery], [X:idle]. */
typedef enum {
  PP_LAYER_BASE,
  PP_LAYER_BATTERY,
  PP_LAYER_POWER_SAVER,
  PP_LAYER_PERFORMANCE,
  PP_LAYER_LOW_BATTERY,
  PP_LAYER_IDLE,
  PP_N_LAYERS,
} PpLayer;

/* "" (base), ":battery", ":power-saver", ":performance", ":low-battery",
 * ":idle" */
const char       *pp_layer_suffix             (PpLayer layer);

/* One attribute setting. For classes @key is a path relative to the
 * device directory ("power/control"); for modules the parameter name. */
/* Lines longer than this many bytes (without the newline) are dropped. */
#define PP_CONFIG_MAX_LINE 4096

/* At most this many bytes of a dropped line are quoted in its report. */
#define PP_CONFIG_MAX_QUOTE 80

/* Which layer of the policy decided a setting (org.powerpolicy1.Manager.xml,
 * Explain); NONE for a setting of the configuration itself, not a decision. */
typedef enum {
  PP_SOURCE_NONE = 0,
  PP_SOURCE_CLASS,         /* [Class NAME] */
  PP_SOURCE_BATTERY,       /* [Class NAME:battery] */
  PP_SOURCE_IDLE,          /* [Class NAME:idle] */
  PP_SOURCE_UDEV,          /* the administrator's udev properties (POWERPOLICY_*) */
  PP_SOURCE_OVERRIDE,      /* an override set over D-Bus */
  PP_SOURCE_POWER_DOWN,    /* PowerDown(auto) in force */
  PP_SOURCE_HOLD,          /* a hold */
  PP_SOURCE_EXCLUDED,      /* ExcludeDrivers= of the class: nothing written */
  PP_SOURCE_IGNORED,       /* POWERPOLICY_IGNORE=1: nothing written */
  PP_SOURCE_LOW_BATTERY,   /* [Class NAME:low-battery] */
  PP_SOURCE_REVERT,        /* a Revert over D-Bus: the original value, until its fd closes */
  PP_SOURCE_QUIRK,         /* a shipped quirk (NVMe APST known broken) */
  PP_SOURCE_SLEEP,         /* [Sleep] RestoreDefaultsBeforeSleep=, until resume */
  PP_SOURCE_HWDB,          /* the hwdb's ID_AUTOSUSPEND=1, ID_AUTOSUSPEND_DELAY_MS (device knowledge) */
  PP_SOURCE_OWN,           /* the device's own value (an empty assignment): nothing decided */
  PP_SOURCE_POWER_SAVER,   /* [Class NAME:power-saver]: the power-saver profile */
  PP_SOURCE_PERFORMANCE,   /* [Class NAME:performance]: the performance profile */
} PpSettingSource;

/* The power profile (power-profiles-daemon's API,
 * data/dbus/org.freedesktop.UPower.PowerProfiles.xml); balanced, the
 * zero value, has no layer. */
typedef enum {
  PP_PROFILE_BALANCED = 0,
  PP_PROFILE_POWER_SAVER,
  PP_PROFILE_PERFORMANCE,
} PpProfile;

/* "power-saver", "balanced", "performance" */
const char       *pp_profile_to_string        (PpProfile    profile);
gboolean          pp_profile_from_string      (const char  *str,
                                               PpProfile   *profile);

/* [Daemon] PowerProfiles= */
typedef enum {
  PP_POWER_PROFILES_AUTO = 0,   /* take the names unless another program owns them */
  PP_POWER_PROFILES_TRUE,       /* take them, replacing the owner where the bus allows */
  PP_POWER_PROFILES_FALSE,      /* never */
} PpPowerProfilesMode;

/* The keys of [Platform] as the layers keep them. */
#define PP_PLATFORM_PROFILE_KEY  "PlatformProfile"
#define PP_PLATFORM_EPP_KEY      "EnergyPerformancePreference"

/* @file/@line: the configuration line that set it (for drop-ins the
 * drop-in); NULL/0 when it does not come from a configuration file.
 * @source/@origin: for a decision of the policy (pp_policy_decide()), the
 * layer that decided it and why, as Explain shows it ("FILE:LINE",
 * "POWERPOLICY_AUTOSUSPEND=0", "override set over D-Bus", ...);
 * PP_SOURCE_NONE/NULL otherwise. */
typedef struct {
  char            *key;
  char            *value;
  char            *file;
  guint            line;
  PpSettingSource  source;
  char            *origin;
} PpSetting;

/* The layers of one [Class NAME] or [Module NAME]: per layer an ordered
 * list of settings, each key at most once per layer. A setting whose
 * value is "" (an empty assignment, "Control=") leaves the attribute
 * alone: it cancels what a lower layer or the subsystem's section set.
 * @exclude_drivers: [Class NAME] ExcludeDrivers= (base section only):
 * devices of the class bound to one of these drivers are left alone;
 * NULL when unset or empty. @exclude_drivers_set: the key was given
 * (also empty: then it cancels the subsystem's list);
 * @exclude_drivers_file/_line: its origin. Always unset for modules. */
typedef struct {
  GPtrArray *layers[PP_N_LAYERS];   /* of PpSetting* */
  char     **exclude_drivers;
  gboolean   exclude_drivers_set;
  char      *exclude_drivers_file;
  guint      exclude_drivers_line;
  /* [Class NAME] ApstQuirks= (base section only): -1 unset (quirks
   * apply), 0 false, 1 true; @apst_quirks_file/_line its origin */
  gint       apst_quirks;
  char      *apst_quirks_file;
  guint      apst_quirks_line;
} PpLayeredSettings;

typedef enum {
  PP_LID_ACTION_SUSPEND,
  PP_LID_ACTION_HIBERNATE,
  PP_LID_ACTION_HYBRID_SLEEP,
  PP_LID_ACTION_SUSPEND_THEN_HIBERNATE,
  PP_LID_ACTION_LOCK,
  PP_LID_ACTION_POWER_OFF_DISPLAY,
  PP_LID_ACTION_IGNORE,
} PpLidAction;

typedef struct {
  gboolean    handle_lid;
  PpLidAction on_close;
  PpLidAction on_close_external_power;
  PpLidAction on_close_docked;
  guint       holdoff_sec;
} PpLidConfig;

/* [Sleep], [Sleep:battery], [Sleep:power-saver], [Sleep:performance],
 * [Sleep:low-battery]: MemSleep= and
 * HibernateMode= by power source (pp_policy_sleep_mode()); the other keys
 * only in [Sleep]. */
typedef struct {
  char   *mem_sleep;          /* deep|s2idle|shallow|auto */
  char   *hibernate_mode;     /* platform|shutdown|reboot|suspend|auto */
  /* NULL: the layer below applies */
  char   *mem_sleep_battery;
  char   *mem_sleep_low_battery;
  char   *hibernate_mode_battery;
  char   *hibernate_mode_low_battery;
  /* [Sleep:power-saver], [Sleep:performance] */
  char   *mem_sleep_power_saver;
  char   *mem_sleep_performance;
  char   *hibernate_mode_power_saver;
  char   *hibernate_mode_performance;
  char  **video_quirks;       /* NULL = auto; {"none"} = none; else list */
  char   *quirk_helper;       /* NULL or "" = installed helper */
  guint   quirk_timeout_sec;
  /* before sleep: power/control=on for the devices of these classes or
   * bound to these drivers, the PCIe ASPM policy "default"; put back
   * after resume (RestoreDefaultsBeforeSleep=, ...Classes=, ...Drivers=) */
  gboolean restore_defaults;
  char   **restore_defaults_classes;   /* NULL or empty: none */
  char   **restore_defaults_drivers;   /* NULL or empty: none */
  char    *restore_defaults_file;      /* the RestoreDefaultsBeforeSleep= line, or NULL */
  guint    restore_defaults_line;
} PpSleepConfig;

/* [Daemon] PowerSource=: where OnBattery comes from. */
typedef enum {
  PP_POWER_SOURCE_AUTO,     /* the power supplies udev reports */
  PP_POWER_SOURCE_AC,       /* fixed: on AC */
  PP_POWER_SOURCE_BATTERY,  /* fixed: on battery */
} PpPowerSource;

/* "auto", "ac", "battery" */
const char       *pp_power_source_to_string   (PpPowerSource source);

typedef struct {
  guint          idle_timeout_sec;
  gboolean       restore_on_exit;
  gboolean       dry_run;
  guint          max_inhibitors_per_user;  /* holds + inhibitors per uid, 1..65536 */
  guint          max_inhibitors;           /* holds + inhibitors in total, 1..65536 */
  guint          low_battery_percent;      /* :low-battery at or below, 0..100 */
  PpPowerSource  power_source;             /* PowerSource= */
  char          *power_source_file;        /* the PowerSource= line, or NULL */
  guint          power_source_line;
  PpPowerProfilesMode power_profiles;      /* [Daemon] PowerProfiles= */

  GHashTable    *classes;        /* class name -> PpLayeredSettings* */
  GHashTable    *modules;        /* module name -> PpLayeredSettings* */
  /* [Platform] and its layers: PP_PLATFORM_PROFILE_KEY and
   * PP_PLATFORM_EPP_KEY, "" for the firmware's own value */
  PpLayeredSettings *platform;

  PpLidConfig    lid;
  PpSleepConfig  sleep;
} PpConfig;

/* One problem found while parsing: "file:line: message". */
typedef struct {
  char *file;
  guint line;                   /* 0: the whole file */
  char *message;
} PpConfigProblem;

#define PP_DEFAULT_MAX_INHIBITORS_PER_USER  64
#define PP_DEFAULT_MAX_INHIBITORS           4096
#define PP_MAX_INHIBITORS_LIMIT             4096  /* each one is a file descriptor of the daemon */
#define PP_DEFAULT_LOW_BATTERY_PERCENT      20

/* A setting with its origin; pp_setting_new() is one with no origin.
 * Free with pp_setting_free(). */
PpSetting        *pp_setting_new_at           (const char   *key,
                                               const char   *value,
                                               const char   *file,
                                               guint         line);
PpSetting        *pp_setting_new              (const char   *key,
                                               const char   *value);
void              pp_setting_free             (PpSetting    *setting);

PpConfig         *pp_config_new               (void);
void              pp_config_free              (PpConfig     *config);

/* Parse @text (the contents of @file_name) on top of @config: later
 * files override earlier ones key by key. Problems are appended to
 * @problems (of PpConfigProblem*); everything valid is still applied. */
void              pp_config_load_data         (PpConfig     *config,
                                               const char   *file_name,
                                               const char   *text,
                                               gsize         length,
                                               GPtrArray    *problems);

/* The platform_profile words the kernel knows
 * (Documentation/ABI/testing/sysfs-platform_profile) and the
 * energy_performance_preference words of intel_pstate and amd_pstate. */
extern const char * const pp_platform_profile_values[];
extern const char * const pp_epp_values[];

/* The class/module section, or NULL. */
const PpLayeredSettings *pp_config_get_class  (const PpConfig *config,
                                               const char     *name);
const PpLayeredSettings *pp_config_get_module (const PpConfig *config,
                                               const char     *name);

/* Sorted names, for stable iteration (free the container only). */
GPtrArray        *pp_config_list_modules      (const PpConfig *config);

/* One key of the parser's table (powerpolicy.conf(5)): @section the word
 * of its header ("Daemon", "Class", ...), @key its name or, with @prefix,
 * the start of its names ("Attr."; "" for [Module NAME], where every name
 * is a parameter), @layers the layers it may be written in, one bit
 * (1 << PpLayer) each. */
typedef struct {
  const char *section;
  const char *key;
  gboolean    prefix;
  guint       layers;
} PpConfigKeyInfo;

/* Every key the parser takes, in the order of its table, each once (of
 * PpConfigKeyInfo; the strings are static). */
GArray           *pp_config_list_keys         (void);

GPtrArray        *pp_config_problems_new      (void);
void              pp_config_problem_free      (PpConfigProblem *problem);
/* "FILE:LINE: message" (or "FILE: message"), escaped with pp_escape_text(). */
char             *pp_config_problem_to_string (const PpConfigProblem *problem);
/* Append a problem at @file:@line (0: the whole file) to @problems (NULL:
 * not collected); the one reporter of the config and quirk parsers. */
void              pp_config_problem_add       (GPtrArray    *problems,
                                               const char   *file,
                                               guint         line,
                                               const char   *format,
                                               ...) G_GNUC_PRINTF (4, 5);

const char       *pp_lid_action_to_string     (PpLidAction  action);
gboolean          pp_lid_action_from_string   (const char  *str,
                                               PpLidAction *action);

/* Validation of single values, shared with D-Bus overrides.
 * AutosuspendDelayMs: surrounding ASCII whitespace ignored, then an
 * optional '-' and decimal digits, no '+', no leading zeros ("0" itself
 * excepted), from -1 (never autosuspend) to 2147483647. */
gboolean          pp_config_parse_control     (const char *value,
                                               GError    **error);
gboolean          pp_config_parse_delay_ms    (const char *value,
                                               gint       *delay_ms,
                                               GError    **error);
gboolean          pp_config_parse_wakeup      (const char *value,
                                               GError    **error);
/* A relative attribute path that cannot leave the device directory. */
gboolean          pp_config_relpath_is_valid  (const char *relpath);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpConfig, pp_config_free)

G_END_DECLS
