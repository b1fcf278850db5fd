/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one place that knows the public names (SPEC §2). */
#pragma once

#define PP_DBUS_NAME            "org.powerpolicy1"
#define PP_DBUS_PATH            "/org/powerpolicy1"
#define PP_DBUS_INTERFACE       "org.powerpolicy1.Manager"

#define PP_DBUS_ERROR_PREFIX    "org.powerpolicy1.Error"

#define PP_POLKIT_ACTION_MANAGE  "org.powerpolicy1.manage"
#define PP_POLKIT_ACTION_SLEEP   "org.powerpolicy1.sleep"
#define PP_POLKIT_ACTION_INHIBIT "org.powerpolicy1.inhibit"

#define PP_CONFIG_FILE_NAME     "powerpolicy.conf"
#define PP_CONFIG_DIR_NAME      "powerpolicy"

/* Where sysfs writes may land (besides /sys/power, used only for sleep). */
#define PP_SYSFS_DEVICES        "/sys/devices"
#define PP_SYSFS_MODULE         "/sys/module"
/* The sleep settings and action (SPEC §4 [Sleep], §7). */
#define PP_SYSFS_POWER          "/sys/power"
#define PP_PROC_ACPI_VIDEO_FLAGS "/proc/sys/kernel/acpi_video_flags"
