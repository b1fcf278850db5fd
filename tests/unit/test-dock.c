/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The dock decision from the dock switch and the DRM connector list. */
#include "config.h"

#include "pp-test.h"
#include "pp-dock.h"

typedef struct {
  const char *name;
  gboolean    external;
} NameCase;

static const NameCase name_cases[] = {
  { "card0-DP-1", TRUE },
  { "card1-DP-10", TRUE },
  { "card0-HDMI-A-1", TRUE },
  { "card0-HDMI-B-2", TRUE },
  { "card0-DVI-I-1", TRUE },
  { "card0-DVI-D-1", TRUE },
  { "card0-DVI-A-1", TRUE },
  { "card0-VGA-1", TRUE },
  { "card0-TV-1", TRUE },
  { "card0-Composite-1", TRUE },
  { "card0-SVIDEO-1", TRUE },
  { "card0-Component-1", TRUE },
  { "card0-DIN-1", TRUE },
  { "card2-USB-1", TRUE },
  { "HDMI-A-1", TRUE },
  { "DP-2", TRUE },
  { "card0-eDP-1", FALSE },
  { "card0-LVDS-1", FALSE },
  { "card0-DSI-1", FALSE },
  { "card0-DPI-1", FALSE },
  { "card0-SPI-1", FALSE },
  { "card0-Virtual-1", FALSE },
  { "card0-Writeback-1", FALSE },
  { "card0-Unknown-1", FALSE },
  { "eDP-1", FALSE },
  /* not connectors */
  { "card0", FALSE },
  { "renderD128", FALSE },
  { "card0-DP", FALSE },
  { "card0-DP-", FALSE },
  { "card0-DP-1a", FALSE },
  { "cardX-DP-1", FALSE },
  { "card0DP-1", FALSE },
  { "card0-hdmi-a-1", FALSE },
  { "-1", FALSE },
  { "", FALSE },
  { NULL, FALSE },
};

typedef struct {
  const char  *name;
  gboolean     sw_dock;
  PpConnector  connectors[4];
  gsize        n;
  guint        n_external;
  gboolean     docked;
} DockCase;

static const DockCase dock_cases[] = {
  { "nothing", FALSE, { { NULL } }, 0, 0, FALSE },
  { "switch-only", TRUE, { { NULL } }, 0, 0, TRUE },
  { "panel-only", FALSE, { { "card0-eDP-1", "connected" } }, 1, 0, FALSE },
  { "panel-and-disconnected-hdmi", FALSE,
    { { "card0-eDP-1", "connected" }, { "card0-HDMI-A-1", "disconnected" } }, 2, 0, FALSE },
  { "hdmi-connected", FALSE,
    { { "card0-eDP-1", "connected" }, { "card0-HDMI-A-1", "connected" } }, 2, 1, TRUE },
  /* a monitor in DPMS-off or not enabled is still connected */
  { "dp-connected-lid-closed-panel-off", FALSE,
    { { "card0-eDP-1", "disconnected" }, { "card0-DP-1", "connected" } }, 2, 1, TRUE },
  { "status-unknown-not-counted", FALSE,
    { { "card0-VGA-1", "unknown" } }, 1, 0, FALSE },
  { "two-external", FALSE,
    { { "card0-DP-1", "connected" }, { "card1-DP-2", "connected" },
      { "card0-DP-3", "disconnected" } }, 3, 2, TRUE },
  { "switch-and-external", TRUE,
    { { "card0-DP-1", "connected" } }, 1, 1, TRUE },
  { "lvds-and-dsi-never-dock", FALSE,
    { { "card0-LVDS-1", "connected" }, { "card0-DSI-1", "connected" },
      { "card0-Virtual-1", "connected" } }, 3, 0, FALSE },
  { "missing-status", FALSE, { { "card0-DP-1", NULL } }, 1, 0, FALSE },
};

static int
setup (void **state)
{
  return 0;
}

static int
teardown (void **state)
{
  return 0;
}

static void
test_connector_name (void **state)
{
  const NameCase *c = *state;

  if (pp_dock_connector_is_external (c->name) != c->external)
    fail_msg ("%s: expected %s", c->name ? c->name : "(null)",
              c->external ? "external" : "not external");
}

static void
test_dock (void **state)
{
  const DockCase *c = *state;
  guint n = pp_dock_count_external_displays (c->connectors, c->n);

  assert_int_equal (n, c->n_external);
  assert_int_equal (pp_dock_is_docked (c->sw_dock, n), c->docked);
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (gsize i = 0; i < G_N_ELEMENTS (name_cases); i++)
    pp_test_list_add (list, "connector",
                      name_cases[i].name ? (*name_cases[i].name ? name_cases[i].name : "empty") : "null",
                      test_connector_name, setup, teardown, &name_cases[i]);
  for (gsize i = 0; i < G_N_ELEMENTS (dock_cases); i++)
    pp_test_list_add (list, "dock", dock_cases[i].name, test_dock, setup, teardown,
                      &dock_cases[i]);
  return pp_test_list_run (list, "dock");
}
