/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Calls whose replies pmctl reads in place with sd-bus (pmctl-sd-bus.c). */
#pragma once

#include <systemd/sd-bus.h>

#include "pmctl.h"

G_BEGIN_DECLS

G_DEFINE_AUTOPTR_CLEANUP_FUNC (sd_bus_message, sd_bus_message_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (sd_bus_slot, sd_bus_slot_unref)

/* @method of the daemon with no arguments, on the system bus as the
 * generated proxy calls it (ctl->sdbus, opened on the first call); the
 * reply, of D-Bus signature @signature, positioned at its first value.
 * NULL after one line on stderr, worded as pmctl_report_error() words
 * the GDBus call's error (@what: "list the devices"). */
sd_bus_message *pmctl_sd_bus_call    (Pmctl          *ctl,
                                      const char     *method,
                                      const char     *signature,
                                      const char     *what);
/* The reply could not be read (errno @r from sd-bus): one line on
 * stderr. */
void        pmctl_sd_bus_report_malformed (int         r,
                                           const char *what);
/* The next value of @m, a variant holding one basic value of type
 * @contents (one character, from sd_bus_message_peek_type()), read into
 * @value as sd_bus_message_read_basic(3) reads it (NULL: read past it):
 * 0, or a negative errno. */
int         pmctl_sd_bus_read_basic_variant (sd_bus_message *m,
                                             const char     *contents,
                                             void           *value);
/* The next value of @m, a variant ('v'), as the GVariant inside it (a
 * new reference, as g_variant_get_variant() gives it); NULL and *r a
 * negative errno when it cannot be read. */
GVariant   *pmctl_sd_bus_read_variant (sd_bus_message *m,
                                       int            *r);

G_END_DECLS
