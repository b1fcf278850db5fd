/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one place that knows the public names (powerpolicyd(8), D-BUS
 * INTERFACE and FILES). */
#pragma once

#define PP_DBUS_NAME            "org.powerpolicy1"
#define PP_DBUS_PATH            "/org/powerpolicy1"
#define PP_DBUS_INTERFACE       "org.powerpolicy1.Manager"

#define PP_DBUS_ERROR_PREFIX    "org.powerpolicy1.Error"

#define PP_POLKIT_ACTION_MANAGE  "org.powerpolicy1.manage"
#define PP_POLKIT_ACTION_SLEEP   "org.powerpolicy1.sleep"
#define PP_POLKIT_ACTION_INHIBIT "org.powerpolicy1.inhibit"

/* power-profiles-daemon's API (data/dbus/org.powerpolicy1.PowerProfiles.xml) */
#define PP_PROFILES_NAME         "org.freedesktop.UPower.PowerProfiles"
#define PP_PROFILES_PATH         "/org/freedesktop/UPower/PowerProfiles"
#define PP_PROFILES_LEGACY_NAME  "net.hadess.PowerProfiles"
#define PP_PROFILES_LEGACY_PATH  "/net/hadess/PowerProfiles"
#define PP_POLKIT_ACTION_SWITCH_PROFILE "org.freedesktop.UPower.PowerProfiles.switch-profile"
#define PP_POLKIT_ACTION_HOLD_PROFILE   "org.freedesktop.UPower.PowerProfiles.hold-profile"

#define PP_CONFIG_FILE_NAME     "powerpolicy.conf"
#define PP_CONFIG_DIR_NAME      "powerpolicy"

/* Where sysfs writes may land (besides /sys/power, used only for sleep). */
#define PP_SYSFS_DEVICES        "/sys/devices"
#define PP_SYSFS_MODULE         "/sys/module"
/* The sleep settings and action (powerpolicy.conf(5), [Sleep]). */
#define PP_SYSFS_POWER          "/sys/power"
#define PP_PROC_ACPI_VIDEO_FLAGS "/proc/sys/kernel/acpi_video_flags"

/* The keys of the device dictionary (org.powerpolicy1.Manager.xml:
 * GetDevice, ListDevices, DeviceChanged), for the daemon that builds it and
 * pmctl that reads it. */
#define PP_DEVICE_KEY_PATH                  "path"
#define PP_DEVICE_KEY_SUBSYSTEM             "subsystem"
#define PP_DEVICE_KEY_CLASS                 "class"
#define PP_DEVICE_KEY_DRIVER                "driver"
#define PP_DEVICE_KEY_PARENT                "parent"
#define PP_DEVICE_KEY_SUPPLIERS             "suppliers"
#define PP_DEVICE_KEY_CONSUMERS             "consumers"
#define PP_DEVICE_KEY_RUNTIME_STATUS        "runtime_status"
#define PP_DEVICE_KEY_CONTROL               "control"
#define PP_DEVICE_KEY_AUTOSUSPEND_DELAY_MS  "autosuspend_delay_ms"
#define PP_DEVICE_KEY_WAKEUP                "wakeup"
#define PP_DEVICE_KEY_HELD                  "held"
#define PP_DEVICE_KEY_BLOCKER               "blocker"
#define PP_DEVICE_KEY_IGNORED               "ignored"
#define PP_DEVICE_KEY_EXCLUDED              "excluded"
