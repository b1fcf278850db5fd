/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A call whose reply pmctl reads in place with sd-bus (sd-bus(3)):
 * ListDevices' aa{sv} at ten thousand devices is a 2.4 MB message, and
 * GDBus parses every incoming message into one GVariant per value before
 * the caller sees it (~60 a device). sd-bus hands over the message as
 * received; the caller walks it with sd_bus_message_enter_container(3),
 * sd_bus_message_read_basic(3) and sd_bus_message_skip(3).
 *
 * The call behaves as the generated GDBus proxy's: the system bus of
 * sd_bus_open_system(3) (DBUS_SYSTEM_BUS_ADDRESS, else the default
 * socket, as GDBus), the daemon's well-known name with auto-start, the
 * interactive-authorization flag (as allow_interactive_authorization()
 * in pmctl-client.c sets it), the same timeout; and every failure comes
 * back as the GError GDBus would have made, so that pmctl_report_error()
 * words it the same. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <errno.h>
#include <string.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pmctl-sd-bus.h"
#include "pp-error.h"

/* GLib's message catalogue, for GDBus' own words in the user's language */
#define GLIB_DOMAIN "glib20"
/* an unknown value is at most this deep (D-Bus allows 64 levels of
 * containers, sd-bus checks the message against that) */
#define VALUE_DEPTH_MAX 64

typedef struct {
  sd_bus_message *reply;
} CallState;

static int
on_reply (sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
  CallState *state = userdata;

  state->reply = sd_bus_message_ref (m);
  return 0;
}

/* The error reply @m was made up by sd-bus itself when the connection
 * ended before the reply came (sd_bus_process(3): pending calls get a
 * NoReply error, sent as by the bus driver): @bus is no longer open then,
 * while a reply that came over the bus is dispatched on an open one. */
static gboolean
lost_connection (sd_bus *bus, sd_bus_message *m)
{
  return sd_bus_message_is_method_error (m, NULL) && sd_bus_is_open (bus) <= 0;
}

/* The error reply @m as GDBus makes it (g_dbus_message_to_gerror()):
 * the D-Bus error name mapped to its GError (PP_ERROR's are registered),
 * the message from a body of one string. */
static GError *
error_from_reply (sd_bus_message *m)
{
  const sd_bus_error *e = sd_bus_message_get_error (m);
  const char *signature = sd_bus_message_get_signature (m, TRUE);
  g_autofree char *body = NULL;
  GError *error;

  /* org.powerpolicy1.Error.* arrive as PP_ERROR */
  (void) PP_ERROR;
  if (g_strcmp0 (signature, "s") == 0 && e->message != NULL)
    return g_dbus_error_new_for_dbus_error (e->name, e->message);
  error = g_dbus_error_new_for_dbus_error (e->name, "");
  if (signature == NULL || *signature == '\0')
    body = g_strdup (g_dgettext (GLIB_DOMAIN, "Error return with empty body"));
  else
    {
      g_autofree char *tuple = g_strdup_printf ("(%s)", signature);
      body = g_strdup_printf (g_dgettext (GLIB_DOMAIN, "Error return with body of type “%s”"),
                              tuple);
    }
  {
    char *message = g_strdup_printf ("%s: %s", body, error->message);

    g_free (error->message);
    error->message = message;
  }
  return error;
}

/* Says why the bus cannot be used (errno @r). A connection that was up
 * (@was_up) and went is lost, as GDBus says it; one that never came up:
 * GDBus connects as every other command does and, when it cannot (no
 * bus, no D-Bus on the socket, authentication refused), says why in its
 * own words ("cannot connect to the system bus: ..."). */
static void
report_no_bus (Pmctl *ctl, int r, const char *what, gboolean was_up)
{
  g_autoptr(GError) error = NULL;

  if (was_up)
    {
      error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED, g_strerror (-r));
      pmctl_report_error (error, what, NULL);
      return;
    }
  if (!pmctl_connect_bus (ctl))
    return;
  pmctl_fail ("cannot connect to the system bus: %s", g_strerror (-r));
}

static sd_bus_message *
new_call (sd_bus *bus, const char *method, int *r)
{
  sd_bus_message *call = NULL;

  *r = sd_bus_message_new_method_call (bus, &call, PP_DBUS_NAME, PP_DBUS_PATH,
                                       PP_DBUS_INTERFACE, method);
  if (*r >= 0)
    *r = sd_bus_message_set_auto_start (call, TRUE);
  if (*r >= 0)
    *r = sd_bus_message_set_allow_interactive_authorization (call, TRUE);
  if (*r < 0)
    call = sd_bus_message_unref (call);
  return call;
}

/* Sends @call and waits for its reply until @timeout_ms: the reply (an
 * error reply too), or NULL with *r a negative errno (-ETIMEDOUT when the
 * time is up; a lost connection otherwise). *@was_up: the connection was
 * established on the way (sd_bus_is_ready(3)). */
static sd_bus_message *
wait_for_reply (sd_bus *bus, sd_bus_message *call, int timeout_ms, gboolean *was_up, int *r)
{
  g_autoptr(sd_bus_slot) slot = NULL;
  CallState state = { NULL };
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  /* no timeout of sd-bus' own: the one below is the only one */
  *r = sd_bus_call_async (bus, &slot, call, on_reply, &state, UINT64_MAX);
  while (*r >= 0 && state.reply == NULL)
    {
      gint64 left;

      *r = sd_bus_process (bus, NULL);
      *was_up = *was_up || sd_bus_is_ready (bus) > 0;
      if (*r != 0 || state.reply != NULL)
        continue;
      left = deadline - g_get_monotonic_time ();
      if (left <= 0)
        *r = -ETIMEDOUT;
      else
        *r = sd_bus_wait (bus, (uint64_t) left);
    }
  if (state.reply != NULL)
    *r = 0;
  return state.reply;
}

sd_bus_message *
pmctl_sd_bus_call (Pmctl *ctl, const char *method, const char *signature, const char *what)
{
  g_autoptr(sd_bus_message) call = NULL;
  g_autoptr(sd_bus_message) reply = NULL;
  g_autoptr(GError) error = NULL;
  gboolean was_up = FALSE;
  int r;

  if (ctl->sdbus == NULL && (r = sd_bus_open_system (&ctl->sdbus)) < 0)
    {
      report_no_bus (ctl, r, what, FALSE);
      return NULL;
    }
  call = new_call (ctl->sdbus, method, &r);
  if (call != NULL)
    reply = wait_for_reply (ctl->sdbus, call, PMCTL_CALL_TIMEOUT_MS, &was_up, &r);
  if (r == -ETIMEDOUT)
    error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_TIMED_OUT, g_strerror (ETIMEDOUT));
  else if (reply == NULL || lost_connection (ctl->sdbus, reply))
    {
      report_no_bus (ctl, reply == NULL ? r : -ECONNRESET, what, was_up);
      return NULL;
    }
  else if (sd_bus_message_is_method_error (reply, NULL))
    error = error_from_reply (reply);
  else if (!sd_bus_message_has_signature (reply, signature))
    {
      /* as GDBus' typed call says it */
      g_autofree char *got = g_strdup_printf ("(%s)", sd_bus_message_get_signature (reply, TRUE));
      g_autofree char *expected = g_strdup_printf ("(%s)", signature);

      error = g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           g_dgettext (GLIB_DOMAIN, "Method “%s” returned type “%s”, but expected “%s”"),
                           method, got, expected);
    }
  if (error != NULL)
    {
      pmctl_report_error (error, what, NULL);
      return NULL;
    }
  return g_steal_pointer (&reply);
}

void
pmctl_sd_bus_report_malformed (int r, const char *what)
{
  pmctl_fail ("cannot %s: the reply of powerpolicyd is malformed (%s)", what, g_strerror (-r));
}

int
pmctl_sd_bus_read_basic_variant (sd_bus_message *m, const char *contents, void *value)
{
  int r;

  if ((r = sd_bus_message_enter_container (m, 'v', contents)) <= 0 ||
      (r = sd_bus_message_read_basic (m, contents[0], value)) <= 0 ||
      (r = sd_bus_message_exit_container (m)) < 0)
    return r < 0 ? r : -EBADMSG;
  return 0;
}

/* ---- any value, as a GVariant ---------------------------------------------- */

static GVariant *read_value (sd_bus_message *m, char type, const char *contents, guint depth, int *r);

static GVariant *
read_basic (sd_bus_message *m, char type, int *r)
{
  union {
    guint8 y; int b; gint16 n; guint16 q; gint32 i; guint32 u;
    gint64 x; guint64 t; double d; const char *s;
  } v;

  *r = sd_bus_message_read_basic (m, type, &v);
  if (*r <= 0)
    {
      *r = *r < 0 ? *r : -EBADMSG;
      return NULL;
    }
  switch (type)
    {
    case 'y': return g_variant_new_byte (v.y);
    case 'b': return g_variant_new_boolean (v.b);
    case 'n': return g_variant_new_int16 (v.n);
    case 'q': return g_variant_new_uint16 (v.q);
    case 'i': return g_variant_new_int32 (v.i);
    case 'u': return g_variant_new_uint32 (v.u);
    case 'x': return g_variant_new_int64 (v.x);
    case 't': return g_variant_new_uint64 (v.t);
    case 'd': return g_variant_new_double (v.d);
    case 's': return g_variant_new_string (v.s);
    /* sd-bus checked the object path and the signature */
    case 'o': return g_variant_new_object_path (v.s);
    case 'g': return g_variant_new_signature (v.s);
    default:
      /* 'h': a file descriptor has no place in an answer */
      *r = -EBADMSG;
      return NULL;
    }
}

/* The members of the container sd-bus has entered, into a builder of
 * @type; NULL and *r < 0 when one cannot be read. */
static GVariant *
read_members (sd_bus_message *m, const GVariantType *type, guint depth, int *r)
{
  GVariantBuilder b;
  char member_type;
  const char *contents;

  g_variant_builder_init (&b, type);
  while ((*r = sd_bus_message_peek_type (m, &member_type, &contents)) > 0)
    {
      GVariant *member = read_value (m, member_type, contents, depth + 1, r);

      if (member == NULL)
        break;
      g_variant_builder_add_value (&b, member);
    }
  if (*r < 0 || (*r = sd_bus_message_exit_container (m)) < 0)
    {
      g_variant_builder_clear (&b);
      return NULL;
    }
  return g_variant_builder_end (&b);
}

/* The next value (of D-Bus type @type; @contents: a container's, from
 * sd_bus_message_peek_type()) as a floating GVariant, or NULL with *r a
 * negative errno. */
static GVariant *
read_value (sd_bus_message *m, char type, const char *contents, guint depth, int *r)
{
  g_autofree char *signature = NULL;
  GVariant *inner;

  if (depth > VALUE_DEPTH_MAX)
    {
      *r = -EBADMSG;
      return NULL;
    }
  if (type != 'a' && type != 'v' && type != 'r' && type != 'e')
    return read_basic (m, type, r);
  if ((*r = sd_bus_message_enter_container (m, type, contents)) <= 0)
    {
      *r = *r < 0 ? *r : -EBADMSG;
      return NULL;
    }
  if (type == 'v')
    {
      char inner_type;
      const char *inner_contents;

      if ((*r = sd_bus_message_peek_type (m, &inner_type, &inner_contents)) <= 0)
        {
          *r = *r < 0 ? *r : -EBADMSG;
          return NULL;
        }
      inner = read_value (m, inner_type, inner_contents, depth + 1, r);
      if (inner != NULL && (*r = sd_bus_message_exit_container (m)) < 0)
        g_clear_pointer (&inner, g_variant_unref);
      return inner != NULL ? g_variant_new_variant (inner) : NULL;
    }
  if (type == 'a')
    signature = g_strconcat ("a", contents, NULL);
  else if (type == 'r')
    signature = g_strdup_printf ("(%s)", contents);
  else
    signature = g_strdup_printf ("{%s}", contents);
  if (!g_variant_type_string_is_valid (signature))
    {
      *r = -EBADMSG;
      return NULL;
    }
  return read_members (m, G_VARIANT_TYPE (signature), depth, r);
}

GVariant *
pmctl_sd_bus_read_variant (sd_bus_message *m, int *r)
{
  const char *contents;
  char type;
  GVariant *value;
  GVariant *inner;

  if ((*r = sd_bus_message_peek_type (m, &type, &contents)) <= 0 || type != 'v')
    {
      *r = *r < 0 ? *r : -EBADMSG;
      return NULL;
    }
  value = read_value (m, 'v', contents, 0, r);
  if (value == NULL)
    return NULL;
  /* the value inside, as g_variant_get_variant() gives it */
  g_variant_ref_sink (value);
  inner = g_variant_get_variant (value);
  g_variant_unref (value);
  return inner;
}
