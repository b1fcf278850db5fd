/* SPDX-License-Identifier: GPL-2.0-or-later */
/* External displays, for "docked" (powerpolicy.conf(5), [Lid] OnCloseDocked):
 * the DRM connectors (/sys/class/drm/cardN-TYPE-M) and their "status". A
 * display counts when connected, enabled or not: a monitor in DPMS-off still
 * makes the machine docked. The caller feeds the connectors it learns from udev
 * and calls pp_drm_refresh() on every drm uevent (the kernel reports hotplug as
 * a "change" of the card, not of the connector). */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define PP_TYPE_DRM (pp_drm_get_type ())
G_DECLARE_FINAL_TYPE (PpDrm, pp_drm, PP, DRM, GObject)

PpDrm      *pp_drm_new                      (void);

/* TRUE if @sysname names a connector ("card0-DP-1"); it is then
 * remembered. Nothing is read until pp_drm_refresh(). */
gboolean    pp_drm_add_connector            (PpDrm       *self,
                                             const char  *syspath,
                                             const char  *sysname);
void        pp_drm_remove_connector         (PpDrm       *self,
                                             const char  *syspath);

/* Re-read every connector's status; notifies "external-displays" when
 * the count changed. */
void        pp_drm_refresh                  (PpDrm       *self);

guint       pp_drm_get_external_displays    (PpDrm       *self);

/* The internal panel's backlight (powerpolicy.conf(5), [Lid]
 * OnClose=poweroff-display): the real sysfs path of the
 * /sys/class/backlight device of type "firmware", else "platform", else
 * "raw" (as desktops choose it); NULL when there is none. */
char       *pp_drm_internal_backlight       (void);

G_END_DECLS
