/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmctl bisect's result (pmctl-bisect.c finds it): the device found, what
 * the policy changes on it and why (Explain), the pmctl set commands and
 * the udev rule that keep it at its original values, --apply's
 * overrides, as text or --json; and the words both use: a range of
 * candidates, a signal. */
#define G_LOG_DOMAIN "pmctl"

#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "pmctl.h"
#include "pmctl-output.h"
#include "pmctl-bisect.h"
#include "pp-util.h"
#include "pp-error.h"
#include "pp-names.h"

/* How long we wait for the daemon to see the last descriptor closed. */
#define RELEASE_TIMEOUT_MS 5000
/* Devices named in a round's line; more are counted. */
#define ROUND_NAMES_MAX 4

const char *
pmctl_bisect_signal_name (int signo)
{
  switch (signo)
    {
    case SIGINT:  return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP:  return "SIGHUP";
    default:      return "a signal";
    }
}

/* "1-1.2, 1-1.3, 1-1.4" or "1-1.10 to 1-1.29" */
char *
pmctl_bisect_describe_range (Bisect *bs, guint first, guint count)
{
  g_autoptr(GString) s = g_string_new (NULL);

  if (count <= ROUND_NAMES_MAX)
    {
      for (guint i = 0; i < count; i++)
        {
          g_autofree char *name = g_path_get_basename (pmctl_bisect_candidate_at (bs, first + i)->path);
          g_string_append_printf (s, "%s%s", i ? ", " : "", name);
        }
    }
  else
    {
      g_autofree char *a = g_path_get_basename (pmctl_bisect_candidate_at (bs, first)->path);
      g_autofree char *b = g_path_get_basename (pmctl_bisect_candidate_at (bs, first + count - 1)->path);
      g_string_append_printf (s, "%s to %s", a, b);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* SetOverride's key for an attribute, or NULL. */
static const char *
override_key (const char *attribute)
{
  if (g_str_equal (attribute, "power/control"))
    return "Control";
  if (g_str_equal (attribute, "power/autosuspend_delay_ms"))
    return "AutosuspendDelayMs";
  if (g_str_equal (attribute, "power/wakeup"))
    return "Wakeup";
  return NULL;
}

/* The udev property that keeps @change's original value (powerpolicy.conf(5),
 * UDEV PROPERTIES), as
 * an ENV{...}="..." assignment, or NULL. */
static char *
udev_assignment (const Change *change)
{
  if (g_str_equal (change->attribute, "power/control") &&
      (g_str_equal (change->original, "on") || g_str_equal (change->original, "auto")))
    return g_strdup_printf ("ENV{POWERPOLICY_AUTOSUSPEND}=\"%s\"",
                            g_str_equal (change->original, "on") ? "0" : "1");
  if (g_str_equal (change->attribute, "power/autosuspend_delay_ms"))
    return g_strdup_printf ("ENV{POWERPOLICY_AUTOSUSPEND_DELAY_MS}=\"%s\"", change->original);
  if (g_str_equal (change->attribute, "power/wakeup") &&
      (g_str_equal (change->original, "enabled") || g_str_equal (change->original, "disabled")))
    return g_strdup_printf ("ENV{POWERPOLICY_WAKEUP}=\"%s\"", change->original);
  return NULL;
}

/* A udev rule that keeps the device as it was: the per-device properties of
 * powerpolicy.conf(5), UDEV PROPERTIES, or POWERPOLICY_IGNORE=1 when an
 * attribute has none. */
static char *
udev_rule (const Candidate *c)
{
  g_autoptr(GString) s = g_string_new (NULL);
  const char *devpath = g_str_has_prefix (c->path, "/sys/") ? c->path + strlen ("/sys") : c->path;

  g_string_append_printf (s, "ACTION==\"add|change\", DEVPATH==\"%s\"", devpath);
  for (guint i = 0; i < c->changes->len; i++)
    {
      g_autofree char *assignment = udev_assignment (g_ptr_array_index (c->changes, i));

      if (assignment == NULL)
        {
          g_string_printf (s, "ACTION==\"add|change\", DEVPATH==\"%s\", "
                           "ENV{POWERPOLICY_IGNORE}=\"1\"", devpath);
          return g_string_free (g_steal_pointer (&s), FALSE);
        }
      g_string_append_printf (s, ", %s", assignment);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* The Explain rows of the device once the daemon has let go of our last
 * Revert (it sees the descriptor closed a moment after we close it). */
GVariant *
pmctl_bisect_explain_released (Bisect *bs, const char *path)
{
  gint64 deadline = g_get_monotonic_time () + RELEASE_TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;

  for (;;)
    {
      g_autoptr(GError) error = NULL;
      GVariant *rows = NULL;
      const char *layer;
      GVariantIter iter;
      gboolean reverted = FALSE;

      if (!pp_dbus_manager_call_explain_sync (bs->ctl->manager, path, &rows, NULL, &error))
        return NULL;
      g_variant_iter_init (&iter, rows);
      while (g_variant_iter_next (&iter, "(&s&s&s&s&s)", NULL, NULL, NULL, &layer, NULL))
        reverted = reverted || g_str_equal (layer, "revert");
      if (!reverted || g_get_monotonic_time () > deadline)
        return rows;
      g_variant_unref (rows);
      g_usleep (10 * G_TIME_SPAN_MILLISECOND);
    }
}

/* The layer and origin Explain gives for @attribute. */
static void
lookup_explain (GVariant *rows, const char *attribute, const char **layer, const char **origin)
{
  const char *a, *l, *o;
  GVariantIter iter;

  *layer = *origin = "";
  if (rows == NULL)
    return;
  g_variant_iter_init (&iter, rows);
  while (g_variant_iter_next (&iter, "(&s&s&s&s&s)", &a, NULL, NULL, &l, &o))
    {
      if (g_str_equal (a, attribute))
        {
          *layer = l;
          *origin = o;
          return;
        }
    }
}

/* SetOverride of every attribute of @c that has a key; the applied ones
 * ("Key=value") in @applied. FALSE after a message when one failed or
 * an attribute has no key. */
gboolean
pmctl_bisect_apply_overrides (Bisect *bs, const Candidate *c, GPtrArray *applied)
{
  g_autoptr(GPtrArray) keyless = g_ptr_array_new ();
  /* the delay and wakeup before control, as the daemon writes them */
  static const char * const order[] = {
    "power/autosuspend_delay_ms", "power/wakeup", "power/control", NULL,
  };

  for (guint k = 0; order[k] != NULL; k++)
    for (guint i = 0; i < c->changes->len; i++)
      {
        Change *change = g_ptr_array_index (c->changes, i);
        const char *key = override_key (change->attribute);
        g_autoptr(GError) error = NULL;

        if (!g_str_equal (change->attribute, order[k]))
          continue;
        if (!pp_dbus_manager_call_set_override_sync (bs->ctl->manager, c->path, key,
                                                     change->original, NULL, &error))
          {
            g_autofree char *what = g_strdup_printf ("set %s of %s", key, c->path);
            pmctl_report_error (error, what, c->path);
            return FALSE;
          }
        g_ptr_array_add (applied, g_strdup_printf ("%s=%s", key, change->original));
      }
  for (guint i = 0; i < c->changes->len; i++)
    {
      Change *change = g_ptr_array_index (c->changes, i);
      if (override_key (change->attribute) == NULL)
        g_ptr_array_add (keyless, change->attribute);
    }
  if (keyless->len > 0)
    {
      g_autofree char *list = NULL;

      g_ptr_array_add (keyless, NULL);
      list = g_strjoinv (", ", (char **) keyless->pdata);
      pmctl_fail ("no override keeps %s of %s at its original value: use the udev rule",
                  list, c->path);
      return FALSE;
    }
  return TRUE;
}

static const char *
result_name (PpBisectState state, gboolean interrupted)
{
  if (interrupted)
    return "interrupted";
  switch (state)
    {
    case PP_BISECT_FOUND:            return "found";
    case PP_BISECT_NOT_REPRODUCED:   return "not-reproduced";
    case PP_BISECT_NO_SINGLE_DEVICE: return "no-single-device";
    case PP_BISECT_NOTHING:          return "nothing";
    case PP_BISECT_CHECK:
    default:                         return "unfinished";
    }
}

static void
json_add_string (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
json_add_paths (Bisect *bs, JsonBuilder *b, const char *name, guint first, guint count)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; i < count; i++)
    json_builder_add_string_value (b, pmctl_bisect_candidate_at (bs, first + i)->path);
  json_builder_end_array (b);
}


/* --json's "device": the device found, its changes, the commands and the
 * udev rule that keep it at its original values. */
static void
json_add_found (JsonBuilder *b, const Outcome *o)
{
  g_autofree char *rule = udev_rule (o->found);

  json_builder_set_member_name (b, "device");
  json_builder_begin_object (b);
  json_add_string (b, "path", o->found->path);
  json_add_string (b, "class", o->found->klass);
  json_builder_set_member_name (b, "changes");
  json_builder_begin_array (b);
  for (guint i = 0; i < o->found->changes->len; i++)
    {
      Change *c = g_ptr_array_index (o->found->changes, i);
      const char *layer, *origin;

      lookup_explain (o->explain, c->attribute, &layer, &origin);
      json_builder_begin_object (b);
      json_add_string (b, "attribute", c->attribute);
      json_add_string (b, "original", c->original);
      json_add_string (b, "policy", c->current);
      json_add_string (b, "layer", layer);
      json_add_string (b, "origin", origin);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "commands");
  json_builder_begin_array (b);
  for (guint i = 0; i < o->found->changes->len; i++)
    {
      Change *c = g_ptr_array_index (o->found->changes, i);
      const char *key = override_key (c->attribute);

      if (key != NULL)
        {
          g_autofree char *command = g_strdup_printf ("pmctl set %s %s %s", o->found->path,
                                                      key, c->original);
          json_builder_add_string_value (b, command);
        }
    }
  json_builder_end_array (b);
  json_add_string (b, "udev_rule", rule);
  json_builder_end_object (b);
}

void
pmctl_bisect_print_json (Bisect *bs, const Outcome *o)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_add_string (b, "result", result_name (o->state, o->interrupted));
  json_add_string (b, "class", bs->klass);
  json_builder_set_member_name (b, "devices");
  json_builder_add_int_value (b, bs->candidates->len);
  json_builder_set_member_name (b, "max_rounds");
  json_builder_add_int_value (b, bs->max_rounds);
  json_builder_set_member_name (b, "rounds");
  json_builder_begin_array (b);
  for (guint i = 0; i < bs->rounds->len; i++)
    {
      Round *r = &g_array_index (bs->rounds, Round, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "round");
      json_builder_add_int_value (b, r->round);
      json_add_paths (bs, b, "reverted", r->first, r->count);
      json_builder_set_member_name (b, "works");
      json_builder_add_boolean_value (b, r->works);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  if (o->found != NULL)
    json_add_found (b, o);
  if (o->has_together)
    json_add_paths (bs, b, "together", o->together_first, o->together_count);
  if (o->applied != NULL)
    {
      json_builder_set_member_name (b, "applied");
      json_builder_begin_array (b);
      for (guint i = 0; i < o->applied->len; i++)
        json_builder_add_string_value (b, g_ptr_array_index (o->applied, i));
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
  pmctl_json_print_builder (bs->ctl, b);
}

/* One line of the report: the paths, values and explanations in it are
 * the daemon's and the devices', escaped (no newline or escape sequence
 * of theirs reaches the terminal). */
static void print_line (const char *format, ...) G_GNUC_PRINTF (1, 2);

static void
print_line (const char *format, ...)
{
  g_autofree char *text = NULL;
  g_autofree char *shown = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  shown = pp_escape_text (text, 0);
  printf ("%s\n", shown);
}

void
pmctl_bisect_print_found (Bisect *bs, const Outcome *o)
{
  const Candidate *c = o->found;
  g_autofree char *rule = udev_rule (c);
  gboolean any_key = FALSE;

  printf ("\n");
  print_line ("Found: %s (class %s)", c->path, c->klass);
  for (guint i = 0; i < c->changes->len; i++)
    {
      Change *change = g_ptr_array_index (c->changes, i);
      const char *layer, *origin;

      lookup_explain (o->explain, change->attribute, &layer, &origin);
      if (*layer != '\0')
        print_line ("  %s: %s, the policy sets %s (%s: %s)", change->attribute,
                    *change->original ? change->original : "\"\"", change->current, layer, origin);
      else
        print_line ("  %s: %s, the policy sets %s", change->attribute,
                    *change->original ? change->original : "\"\"", change->current);
    }
  printf ("Keep it as it was with:\n");
  for (guint i = 0; i < c->changes->len; i++)
    {
      Change *change = g_ptr_array_index (c->changes, i);
      const char *key = override_key (change->attribute);

      if (key == NULL)
        continue;
      print_line ("  pmctl set %s %s %s", c->path, key, change->original);
      any_key = TRUE;
    }
  printf ("%sa udev rule (e.g. in /etc/udev/rules.d/61-powerpolicy-local.rules):\n",
          any_key ? "or " : "");
  print_line ("  %s", rule);
  if (o->applied != NULL && o->applied->len > 0)
    {
      g_autoptr(GString) list = g_string_new (NULL);

      for (guint i = 0; i < o->applied->len; i++)
        g_string_append_printf (list, "%s%s", i ? " " : "", (char *) g_ptr_array_index (o->applied, i));
      print_line ("Applied the overrides %s (kept across restarts; 'pmctl reset %s' removes them).",
                  list->str, c->path);
    }
  else if (o->applied == NULL && any_key)
    printf ("('pmctl bisect --apply' sets the overrides.)\n");
}

/* The message of an outcome that is no device found. */
void
pmctl_bisect_report_no_device (Bisect *bs, const Outcome *o)
{
  if (o->interrupted)
    {
      pmctl_fail ("interrupted by %s after %u round%s: nothing is reverted any more, "
                  "the policy applies again", pmctl_bisect_signal_name (bs->interrupted),
                  bs->rounds->len, bs->rounds->len == 1 ? "" : "s");
      return;
    }
  switch (o->state)
    {
    case PP_BISECT_NOT_REPRODUCED:
      pmctl_fail ("the problem does not show with the full policy applied (round 0 worked): "
                  "nothing to bisect");
      break;
    case PP_BISECT_NO_SINGLE_DEVICE:
      if (o->has_together)
        {
          g_autofree char *range = pmctl_bisect_describe_range (bs, o->together_first, o->together_count);
          pmctl_fail ("no single device explains it: it works with %u device%s put back "
                      "together (%s)", o->together_count, o->together_count == 1 ? "" : "s",
                      range);
        }
      else
        pmctl_fail ("no single device explains it, and putting all %u devices back did not help "
                    "either: the problem does not come from the per-device policy%s",
                    bs->candidates->len,
                    bs->n_not_devices > 0 ? " (module parameters and /sys/power settings were "
                                            "not reverted)" : "");
      break;
    case PP_BISECT_FOUND:
    case PP_BISECT_NOTHING:
    case PP_BISECT_CHECK:
    default:
      break;
    }
}

