/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The evdev input backend: the only user of libevdev (like upower's
 * UpInput). Watches keyboards, mice, touchpads, touchscreens, tablets,
 * joysticks and switches; never grabs them and never keeps what was
 * typed, only "activity at time T". Reads the lid (SW_LID) and dock
 * (SW_DOCK) switches.
 *
 * Lazy watching: while "lazy" is set, devices that only report activity
 * are not polled at all (a 1,000 Hz mouse costs no wakeups); their events
 * wait in the kernel until pp_input_drain() looks at them. Devices with a
 * lid or dock switch are always polled. */
#pragma once

#include <glib-object.h>

#include "pp-udev.h"

G_BEGIN_DECLS

#define PP_TYPE_INPUT (pp_input_get_type ())
G_DECLARE_FINAL_TYPE (PpInput, pp_input, PP, INPUT, GObject)

PpInput    *pp_input_new              (void);

/* TRUE for an evdev node (/dev/input/eventN) that udev marks as one of
 * the watched kinds (ID_INPUT_KEYBOARD, _MOUSE, _TOUCHPAD, _TOUCHSCREEN,
 * _TABLET, _JOYSTICK, _SWITCH). */
gboolean    pp_input_device_is_watched (PpDeviceInfo *info);

/* Start watching (opens the node; a failure is logged once per node and
 * FALSE returned). A device already watched is left alone. */
gboolean    pp_input_add_device       (PpInput      *self,
                                       PpDeviceInfo *info);
void        pp_input_remove_device    (PpInput      *self,
                                       const char   *syspath);

/* Stop (TRUE) or start (FALSE) polling the activity-only devices. While
 * polled, every activity emits "activity". */
void        pp_input_set_lazy         (PpInput      *self,
                                       gboolean      lazy);

/* Read everything pending on the activity devices (lazy or not); returns
 * the monotonic time (µs) of the latest activity found, or -1. Switch
 * events found on the way are applied. */
gint64      pp_input_drain            (PpInput      *self);

gboolean    pp_input_get_lid_closed   (PpInput      *self);
gboolean    pp_input_get_has_lid      (PpInput      *self);
gboolean    pp_input_get_dock_switch  (PpInput      *self);
guint       pp_input_get_n_devices    (PpInput      *self);

/* Signals: "activity" (gint64 monotonic µs) while polled; properties
 * "lid-closed", "has-lid", "dock-switch" with notify. */

G_END_DECLS
