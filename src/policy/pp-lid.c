/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "pp-lid.h"

PpLidAction
pp_lid_decide (const PpLidConfig *config, const PpLidSituation *s)
{
  if (!config->handle_lid || !s->closed || s->lid_inhibited || s->in_holdoff)
    return PP_LID_ACTION_IGNORE;
  if (s->docked)
    return config->on_close_docked;
  if (s->on_ac)
    return config->on_close_external_power;
  return config->on_close;
}

gboolean
pp_lid_display_off (const PpLidConfig *config, const PpLidSituation *s)
{
  return pp_lid_decide (config, s) == PP_LID_ACTION_POWER_OFF_DISPLAY;
}

gboolean
pp_lid_action_is_sleep (PpLidAction action)
{
  switch (action)
    {
    case PP_LID_ACTION_SUSPEND:
    case PP_LID_ACTION_HIBERNATE:
    case PP_LID_ACTION_HYBRID_SLEEP:
    case PP_LID_ACTION_SUSPEND_THEN_HIBERNATE:
      return TRUE;
    case PP_LID_ACTION_LOCK:
    case PP_LID_ACTION_POWER_OFF_DISPLAY:
    case PP_LID_ACTION_IGNORE:
    default:
      return FALSE;
    }
}
