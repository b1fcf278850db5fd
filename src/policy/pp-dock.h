/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Is the machine docked? (powerpolicy.conf(5), [Lid] OnCloseDocked). Pure: the
 * dock switch and the DRM connector list come in, a decision goes out. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One DRM connector as the kernel names it in sysfs ("card0-HDMI-A-1")
 * with its "status" attribute ("connected", "disconnected", "unknown"). */
typedef struct {
  const char *name;
  const char *status;
} PpConnector;

/* TRUE when the connector (with or without the "cardN-" prefix) is of a
 * type that plugs into the outside of the machine: VGA, DVI, DP, HDMI,
 * TV outputs, USB displays. Built-in panels (eDP, LVDS, DSI, DPI, SPI),
 * virtual, writeback and unknown types are not. */
gboolean  pp_dock_connector_is_external    (const char        *name);

/* External connectors whose status is "connected": enabled or not, a
 * monitor in DPMS-off still counts. */
guint     pp_dock_count_external_displays  (const PpConnector *connectors,
                                            gsize              n_connectors);

/* Docked: the dock switch says so, or an external display is connected. */
gboolean  pp_dock_is_docked                (gboolean           sw_dock,
                                            guint              n_external_displays);

G_END_DECLS
