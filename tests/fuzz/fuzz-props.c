/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The udev properties the daemon honours (POWERPOLICY_*, ID_AUTOSUSPEND*):
 * any bytes as lines of KEY=VALUE (a udev database's properties; the
 * first line is the SUBSYSTEM), read by pp_device_props_init() through a
 * lookup over them, then a decision and its explanation under the
 * built-in configuration. Invariants: a value is honoured only in its
 * documented form (0|1, milliseconds, enabled|disabled) and anything else
 * is a warning naming the property; warnings are escaped (no control
 * character, valid UTF-8) and bounded; no empty value is ever written. */
#include "config.h"

#include "fuzz-common.h"
#include "pp-config.h"
#include "pp-policy.h"

#define MAX_PROPS 64

typedef struct {
  char *keys[MAX_PROPS];
  char *values[MAX_PROPS];
  guint n;
} Props;

static const char *
lookup (gpointer user_data, const char *key)
{
  Props *p = user_data;

  /* the first one wins, as in a udev database (each key once there) */
  for (guint i = 0; i < p->n; i++)
    if (g_str_equal (p->keys[i], key))
      return p->values[i];
  return NULL;
}

static gboolean
is_bool (const char *v)
{
  return v != NULL && (g_str_equal (v, "0") || g_str_equal (v, "1"));
}

static gboolean
warned_about (GPtrArray *warnings, const char *key)
{
  g_autofree char *prefix = g_strconcat ("invalid udev property ", key, "=", NULL);

  for (guint i = 0; i < warnings->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (warnings, i), prefix))
      return TRUE;
  return FALSE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static PpConfig *config;
  static const PpSituation situations[] = { { FALSE, FALSE, FALSE }, { TRUE, TRUE, TRUE } };
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_auto(GStrv) lines = g_strsplit (text, "\n", MAX_PROPS + 1);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  const char *v;
  Props p = { 0 };
  PpDeviceProps props;

  fuzz_init_logging ();
  if (config == NULL)
    config = pp_config_new ();
  for (guint i = 1; lines[0] != NULL && lines[i] != NULL && p.n < MAX_PROPS; i++)
    {
      char *eq = strchr (lines[i], '=');

      if (eq == NULL)
        continue;
      *eq = '\0';
      p.keys[p.n] = lines[i];
      p.values[p.n] = eq + 1;
      p.n++;
    }

  pp_device_props_init (&props, lines[0], lookup, &p, warnings);
  FUZZ_ASSERT (props.klass != NULL && props.subsystem != NULL);
  v = lookup (&p, "POWERPOLICY_CLASS");
  FUZZ_ASSERT (g_str_equal (props.klass, v != NULL && *v != '\0' ? v : props.subsystem));
  v = lookup (&p, "POWERPOLICY_IGNORE");
  FUZZ_ASSERT (props.ignore == (v != NULL && g_str_equal (v, "1")));
  FUZZ_ASSERT ((v != NULL && !is_bool (v)) == warned_about (warnings, "POWERPOLICY_IGNORE"));
  v = lookup (&p, "ID_AUTOSUSPEND");
  FUZZ_ASSERT (props.id_autosuspend == (v != NULL && g_str_equal (v, "1")));
  FUZZ_ASSERT ((v != NULL && !is_bool (v)) == warned_about (warnings, "ID_AUTOSUSPEND"));
  v = lookup (&p, "POWERPOLICY_AUTOSUSPEND");
  FUZZ_ASSERT (props.autosuspend == (v == NULL || !is_bool (v) ? PP_TRISTATE_UNSET
                                     : v[0] == '1' ? PP_TRISTATE_YES : PP_TRISTATE_NO));
  FUZZ_ASSERT ((v != NULL && !is_bool (v)) == warned_about (warnings, "POWERPOLICY_AUTOSUSPEND"));
  FUZZ_ASSERT (props.id_delay_ms == PP_DELAY_UNSET || props.id_delay_ms >= -1);
  FUZZ_ASSERT ((lookup (&p, "ID_AUTOSUSPEND_DELAY_MS") != NULL && props.id_delay_ms == PP_DELAY_UNSET)
               == warned_about (warnings, "ID_AUTOSUSPEND_DELAY_MS"));
  FUZZ_ASSERT (props.delay_ms == PP_DELAY_UNSET || props.delay_ms >= -1);
  FUZZ_ASSERT ((lookup (&p, "POWERPOLICY_AUTOSUSPEND_DELAY_MS") != NULL && props.delay_ms == PP_DELAY_UNSET)
               == warned_about (warnings, "POWERPOLICY_AUTOSUSPEND_DELAY_MS"));
  v = lookup (&p, "POWERPOLICY_WAKEUP");
  FUZZ_ASSERT (props.wakeup == NULL || g_str_equal (props.wakeup, "enabled") || g_str_equal (props.wakeup, "disabled"));
  FUZZ_ASSERT ((v != NULL && props.wakeup == NULL) == warned_about (warnings, "POWERPOLICY_WAKEUP"));

  for (guint i = 0; i < warnings->len; i++)
    {
      const char *w = g_ptr_array_index (warnings, i);

      FUZZ_ASSERT (g_utf8_validate (w, -1, NULL));
      FUZZ_ASSERT (strlen (w) <= 512);
      for (const char *c = w; *c; c++)
        FUZZ_ASSERT ((guchar) *c >= 0x20 && (guchar) *c != 0x7f);
    }

  for (guint s = 0; s < G_N_ELEMENTS (situations); s++)
    {
      PpDeviceState state = { NULL, FALSE, FALSE, NULL, NULL };
      g_autoptr(PpDecision) decision = pp_policy_decide (config, &props, &situations[s], &state);
      g_autoptr(GPtrArray) rows = pp_policy_explain (config, &props, decision);

      FUZZ_ASSERT (rows != NULL);

      for (guint i = 0; i < decision->settings->len; i++)
        FUZZ_ASSERT (*((PpSetting *) g_ptr_array_index (decision->settings, i))->value != '\0');
    }
  pp_device_props_clear (&props);
  return 0;
}
