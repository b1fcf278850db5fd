/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl: the command-line client of powerpolicyd (pmctl(1)), in boltctl's
 * layout: pmctl.c parses the global options and dispatches to one file
 * per command group, each with its own options; pmctl-output.c prints;
 * pmctl-client.c connects and reports D-Bus errors. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "pp-dbus.h"
#include "pp-names.h"

G_BEGIN_DECLS

#define PMCTL_EXIT_OK       0
#define PMCTL_EXIT_FAILURE  1
#define PMCTL_EXIT_USAGE    2

/* Read-only calls; calls that may wait for a polkit agent get longer;
 * sleep without logind returns after resume, however long that is. */
#define PMCTL_CALL_TIMEOUT_MS   25000
#define PMCTL_AUTH_TIMEOUT_MS   120000
#define PMCTL_SLEEP_TIMEOUT_MS  G_MAXINT

typedef struct {
  gboolean         json;
  gboolean         tty;       /* stdout is a terminal */
  gboolean         color;     /* tty, and colours not turned off (NO_COLOR, TERM=dumb) */
  gboolean         full;      /* --full: never ellipsize table cells */
  GDBusConnection *bus;
  PpDbusManager   *manager;   /* the typed proxy of org.powerpolicy1.Manager */
  struct sd_bus   *sdbus;     /* the system bus through sd-bus (pmctl-sd-bus.h), or NULL */
} Pmctl;

typedef struct {
  const char         *name;
  const char         *synopsis;
  const char         *summary;
  const char         *description;
  const GOptionEntry *entries;       /* its own options, or NULL */
  guint               min_args;
  guint               max_args;
  gboolean            runs_command;  /* COMMAND... follows the arguments */
  /* @args: the positional arguments (NULL-terminated); @command_argv:
   * COMMAND and its arguments for runs_command, else NULL */
  int               (*run) (Pmctl *ctl, char **args, char **command_argv);
} PmctlCommand;

/* the commands, one group a file */
extern const PmctlCommand pmctl_command_status;      /* pmctl-status.c */
extern const PmctlCommand pmctl_command_list;        /* pmctl-devices.c */
extern const PmctlCommand pmctl_command_show;
extern const PmctlCommand pmctl_command_explain;     /* pmctl-explain.c */
extern const PmctlCommand pmctl_command_tree;        /* pmctl-tree.c */
extern const PmctlCommand pmctl_command_power_down;  /* pmctl-power.c */
extern const PmctlCommand pmctl_command_power_up;
extern const PmctlCommand pmctl_command_hold;        /* pmctl-hold.c */
extern const PmctlCommand pmctl_command_inhibit;
extern const PmctlCommand pmctl_command_inhibitors;
extern const PmctlCommand pmctl_command_suspend;     /* pmctl-sleep.c */
extern const PmctlCommand pmctl_command_hibernate;
extern const PmctlCommand pmctl_command_quirks;
extern const PmctlCommand pmctl_command_set;         /* pmctl-policy.c */
extern const PmctlCommand pmctl_command_reset;
extern const PmctlCommand pmctl_command_reload;
extern const PmctlCommand pmctl_command_monitor;     /* pmctl-monitor.c */
extern const PmctlCommand pmctl_command_diff;        /* pmctl-changes.c */
extern const PmctlCommand pmctl_command_overrides;
extern const PmctlCommand pmctl_command_stats;       /* pmctl-stats.c */
extern const PmctlCommand pmctl_command_metrics;
extern const PmctlCommand pmctl_command_sleep_history; /* pmctl-sleep-history.c */
extern const PmctlCommand pmctl_command_wakeups;
extern const PmctlCommand pmctl_command_sleep_check;
extern const PmctlCommand pmctl_command_bisect;      /* pmctl-bisect.c */
extern const PmctlCommand pmctl_command_profile;     /* pmctl-profile.c */

/* ---- pmctl-client.c ---------------------------------------------------- */

/* Connect to the system bus (ctl->bus), unless done already. FALSE after
 * "cannot connect to the system bus: ..." on stderr. */
gboolean  pmctl_connect_bus      (Pmctl            *ctl);
/* Connect to the system bus and make ctl->manager. @flags: for monitor,
 * which follows the daemon coming and going. FALSE after a one-line
 * message on stderr. */
gboolean  pmctl_connect          (Pmctl            *ctl,
                                  GDBusProxyFlags   flags);
/* One human sentence on stderr for a failed call. @what says what we
 * tried ("reload the configuration"), @device the device argument or
 * NULL. */
void      pmctl_report_error     (const GError     *error,
                                  const char       *what,
                                  const char       *device);
/* pmctl_connect() for a call that changes state: no properties, and
 * time for a polkit agent to ask the user. */
gboolean  pmctl_connect_to_change (Pmctl           *ctl);
/* Set the timeout of the calls that follow. */
void      pmctl_set_timeout      (Pmctl            *ctl,
                                  int               timeout_ms);
/* The message when the bus is up and org.powerpolicy1 is not on it. */
const char *pmctl_not_running_message (void);

/* ---- pmctl-hold.c (shared with status) --------------------------------- */

/* ListInhibitors' a(ssssu) as a JSON array of objects. */
void      pmctl_add_inhibitors_json (JsonBuilder   *b,
                                     GVariant      *inhibitors);

G_END_DECLS
