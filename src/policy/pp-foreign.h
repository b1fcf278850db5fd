/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Foreign changes: someone else writing what the daemon manages.
 *
 * The daemon tells the tracker every value it wrote to a (device path,
 * attribute). Before it applies the policy to that attribute again, it reads
 * the current value and asks the tracker: a value different from the one last
 * written means another program changed it. The daemon never fights: after the
 * third foreign change of the same attribute the tracker answers "give up", and
 * from then on "given up" (do not write) until pp_foreign_tracker_reset()
 * (Reload). Pure: no I/O, no logging.
 *
 * Also the row of the `Conflicts` a(ss) property
 * (org.powerpolicy1.Manager.xml): (tool or attribute, what), shared with
 * pp-conflicts.c (installed tools). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Foreign changes of one attribute before the daemon stops writing it. */
#define PP_FOREIGN_GIVE_UP_AFTER 3
/* At most this many rows from pp_foreign_tracker_list_conflicts(), then
 * one summary row. */
#define PP_FOREIGN_MAX_ROWS      64

/* One row of the Conflicts property. @evidence says how it was found
 * (a unit file, a value seen); it is for the log, not the property. */
typedef struct {
  char *subject;   /* a tool ("tlp") or an attribute's full sysfs path */
  char *what;      /* what it touches, or what happened to it */
  char *evidence;  /* may be NULL */
} PpConflict;

PpConflict  *pp_conflict_new            (const char *subject,
                                         const char *what,
                                         const char *evidence);
void         pp_conflict_free           (PpConflict *conflict);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpConflict, pp_conflict_free)

/* An a(ss) of (subject, what) from one or more arrays of PpConflict
 * (NULL-terminated list of GPtrArray*, each may be NULL), in order. */
GVariant    *pp_conflicts_to_variant    (GPtrArray  *first,
                                         ...) G_GNUC_NULL_TERMINATED;

typedef enum {
  PP_FOREIGN_NONE,      /* nothing written there yet, or our value is in place */
  PP_FOREIGN_CHANGED,   /* someone else changed it: report; writing again is allowed */
  PP_FOREIGN_GIVE_UP,   /* changed for the third time: report, stop writing it */
  PP_FOREIGN_GIVEN_UP,  /* given up earlier: do not write, nothing new to report */
} PpForeignResult;

typedef struct _PpForeignTracker PpForeignTracker;

PpForeignTracker *pp_foreign_tracker_new    (void);
void              pp_foreign_tracker_free   (PpForeignTracker *tracker);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpForeignTracker, pp_foreign_tracker_free)

/* The daemon wrote @value to @attribute of @path (e.g.
 * "/sys/devices/pci0000:00/0000:00:14.0", "power/control"). Keeps the count
 * of foreign changes and a give-up. */
void              pp_foreign_tracker_note_written (PpForeignTracker *tracker,
                                                   const char       *path,
                                                   const char       *attribute,
                                                   const char       *value);

/* Compare @current (as read; surrounding white space is ignored) with
 * what the daemon last wrote. @ours (may be NULL) is set to the value last
 * written (owned by the tracker, valid until the next call that changes
 * it) or NULL when nothing was written there (or since
 * pp_foreign_tracker_forget_written()). @count (may be NULL) is set
 * to the number of foreign changes seen on this attribute so far. */
PpForeignResult   pp_foreign_tracker_check        (PpForeignTracker *tracker,
                                                   const char       *path,
                                                   const char       *attribute,
                                                   const char       *current,
                                                   const char      **ours,
                                                   guint            *count);

/* TRUE when the daemon must not write @attribute of @path (given up). */
gboolean          pp_foreign_tracker_is_given_up  (PpForeignTracker *tracker,
                                                   const char       *path,
                                                   const char       *attribute);

/* Forget everything: counts, give-ups, values written (Reload). */
void              pp_foreign_tracker_reset        (PpForeignTracker *tracker);

/* Forget the values written, keep the counts and give-ups: after a resume
 * or a driver rebind, when firmware or the driver may have reset
 * attributes, the next check of each attribute answers NONE (or GIVEN_UP)
 * instead of taking the reset for another program's change. */
void              pp_foreign_tracker_forget_written (PpForeignTracker *tracker);

/* Forget one device (removed from the system). */
void              pp_foreign_tracker_forget_device (PpForeignTracker *tracker,
                                                    const char       *path);

/* Number of (path, attribute) records held. */
guint             pp_foreign_tracker_size         (PpForeignTracker *tracker);

/* Rows for the Conflicts property: one per attribute with at least one
 * foreign change, sorted by path and attribute: subject "PATH/ATTRIBUTE",
 * what "changed by another program N time(s) (ours 'A', found 'B')" and,
 * once given up, "...; no longer written until Reload". At most
 * PP_FOREIGN_MAX_ROWS rows, then one "(more)" row with the number left
 * out. Array of PpConflict. */
GPtrArray        *pp_foreign_tracker_list_conflicts (PpForeignTracker *tracker);

G_END_DECLS
