/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-sleep-history"

#include "config.h"

#include <errno.h>
#include <time.h>
#include <glib/gstdio.h>

#include "pp-log.h"
#include "pp-sleep-history.h"
#include "pp-sleep-stats.h"
#include "pp-sysfs.h"

struct _PpSleepHistory {
  GObject             parent_instance;
  PpManager          *manager;
  char               *path;
  GPtrArray          *records;       /* PpSleepRecord*, oldest first */
  GVariant           *last;          /* a{sv}, floating-free */
  PpSleepBlockerHook  blocker_hook;
  gpointer            blocker_data;

  gboolean            begun;
  char               *state;         /* of the sleep begun, NULL unknown */
  PpSleepSnapshot     before;
};

enum {
  PROP_0,
  PROP_LAST_SLEEP,
  N_PROPS,
};
static GParamSpec *props[N_PROPS];

G_DEFINE_TYPE (PpSleepHistory, pp_sleep_history, G_TYPE_OBJECT)

static void
update_last (PpSleepHistory *self)
{
  g_clear_pointer (&self->last, g_variant_unref);
  if (self->records->len > 0)
    self->last = g_variant_ref_sink (pp_sleep_record_to_variant (
                   g_ptr_array_index (self->records, self->records->len - 1)));
  else
    self->last = g_variant_ref_sink (g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0));
}

static void
load (PpSleepHistory *self)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  gsize length = 0;
  GStatBuf st;

  /* bounded: a full ring is PP_SLEEP_HISTORY_MAX lines */
  if (g_stat (self->path, &st) == 0 &&
      st.st_size > (goffset) PP_SLEEP_HISTORY_MAX * (PP_SLEEP_LINE_MAX + 1) + 4096)
    {
      g_warning ("%s is larger than a sleep history can be (%" G_GOFFSET_FORMAT
                 " bytes): ignoring it", self->path, (goffset) st.st_size);
      return;
    }
  if (!g_file_get_contents (self->path, &data, &length, &error))
    {
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_warning ("Cannot read the sleep history: %s", error->message);
      return;
    }
  g_ptr_array_unref (self->records);
  self->records = pp_sleep_history_parse (data, length, problems);
  for (guint i = 0; i < problems->len; i++)
    g_warning ("%s: %s: record skipped", self->path, (char *) g_ptr_array_index (problems, i));
  g_debug ("Sleep history: %u records", self->records->len);
}

static void
save (PpSleepHistory *self)
{
  g_autofree char *data = NULL;
  g_autofree char *dir = NULL;
  g_autoptr(GError) error = NULL;

  if (pp_manager_get_dry_run (self->manager))
    {
      g_message ("dry-run: would save the sleep history to %s", self->path);
      return;
    }
  data = pp_sleep_history_to_data (self->records);
  dir = g_path_get_dirname (self->path);
  if (g_mkdir_with_parents (dir, 0755) < 0)
    {
      g_warning ("Cannot save the sleep history: cannot create %s: %s", dir, g_strerror (errno));
      return;
    }
  if (!g_file_set_contents_full (self->path, data, -1,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                 0644, &error))
    g_warning ("Cannot save the sleep history: %s", error->message);
}

PpSleepHistory *
pp_sleep_history_new (PpManager *manager)
{
  PpSleepHistory *self = g_object_new (PP_TYPE_SLEEP_HISTORY, NULL);

  self->manager = g_object_ref (manager);
  self->path = g_build_filename (pp_manager_get_options (manager)->state_dir,
                                 PP_SLEEP_HISTORY_FILE, NULL);
  load (self);
  update_last (self);
  return self;
}

void
pp_sleep_history_set_blocker_hook (PpSleepHistory *self, PpSleepBlockerHook hook, gpointer user_data)
{
  self->blocker_hook = hook;
  self->blocker_data = user_data;
}

static gboolean
is_system_battery (PpDevice *dev)
{
  g_autofree char *type = NULL;
  g_autofree char *scope = NULL;

  if (!g_str_equal (dev->info->subsystem, "power_supply"))
    return FALSE;
  type = pp_sysfs_read_opt (dev->info->syspath, "type");
  scope = pp_sysfs_read_opt (dev->info->syspath, "scope");
  /* a mouse's or headset's battery does not power the system */
  return g_strcmp0 (type, "Battery") == 0 && g_strcmp0 (scope, "Device") != 0;
}

static void
take_snapshot (PpSleepHistory *self, PpSleepSnapshot *s, gboolean after)
{
  GPtrArray *devices = pp_manager_list_devices (self->manager);

  pp_sleep_snapshot_init (s);
  pp_sleep_stats_read_kernel (s, after);
  pp_sleep_stats_begin_batteries (s);
  for (guint i = 0; i < devices->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (devices, i);
      const char *syspath = dev->info->syspath;

      if (is_system_battery (dev))
        pp_sleep_stats_add_battery (s, syspath);
      /* the class has the devices' counts already: two reads per device
       * less (at ~1,000 devices, most of the time before the delay
       * inhibitor's release) */
      if (!s->wakeup_class)
        pp_sleep_stats_add_device_wake (s, syspath);
      if (!after && s->awake_devices->len < PP_SLEEP_LIST_MAX)
        {
          g_autofree char *status = pp_sysfs_read_opt (syspath, "power/runtime_status");

          /* "unsupported": no runtime PM, nothing to learn; what keeps
           * each awake: pp_sleep_history_explain_awake() */
          if (status != NULL && !g_str_equal (status, "suspended") &&
              !g_str_equal (status, "unsupported"))
            {
              g_ptr_array_add (s->awake_devices, g_strdup (syspath));
              g_ptr_array_add (s->awake_blockers, g_strdup (""));
            }
        }
    }
}

void
pp_sleep_history_begin (PpSleepHistory *self, const char *state)
{
  if (self->begun)
    pp_sleep_snapshot_clear (&self->before);
  g_free (self->state);
  self->state = g_strdup (state);
  take_snapshot (self, &self->before, FALSE);
  self->begun = TRUE;
  g_debug ("Sleep record: snapshot before the sleep taken");
}

/* What moves while the daemon prepares the sleep, read again right
 * before it: the clocks, the kernel's counters, the wakeup sources of
 * /sys/class/wakeup and the batteries. The devices' own wakeup counts
 * (kernels before 5.4) and the awake devices stay as the sleep began:
 * reading them again would be one read or more per device on the way
 * to the delay inhibitor's release. */
void
pp_sleep_history_refresh (PpSleepHistory *self)
{
  PpSleepSnapshot *s = &self->before;
  GPtrArray *devices;

  if (!self->begun)
    return;
  if (s->wakeup_class)
    g_hash_table_remove_all (s->wake_counts);
  pp_sleep_stats_read_kernel (s, FALSE);
  pp_sleep_stats_begin_batteries (s);
  devices = pp_manager_list_devices (self->manager);
  for (guint i = 0; i < devices->len; i++)
    {
      PpDevice *dev = g_ptr_array_index (devices, i);

      if (is_system_battery (dev))
        pp_sleep_stats_add_battery (s, dev->info->syspath);
    }
  g_debug ("Sleep record: the counters before the sleep read again, right before it");
}

/* The tree's blocker of every device the snapshot before the sleep found
 * awake. The search reads the device tree (the whole of it, the first
 * time in 10 s: ~0.3 s at ~2,000 devices through the test preload), so
 * logind's path does it right after the delay inhibitor's release: if
 * the machine went to sleep meanwhile (CLOCK_BOOTTIME ran ahead of
 * CLOCK_MONOTONIC, which stops while asleep) the states read may be the
 * resumed ones, and the blockers are left unknown (""). */
void
pp_sleep_history_explain_awake (PpSleepHistory *self)
{
  PpSleepSnapshot *s = &self->before;
  g_autoptr(GPtrArray) blockers = NULL;
  gint64 mono0, boot0, slept_us;

  if (!self->begun || self->blocker_hook == NULL || s->awake_devices->len == 0)
    return;
  mono0 = g_get_monotonic_time ();
  boot0 = pp_sleep_stats_boottime_us ();
  blockers = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < s->awake_devices->len; i++)
    {
      char *blocker = self->blocker_hook (g_ptr_array_index (s->awake_devices, i), self->blocker_data);
      g_ptr_array_add (blockers, blocker != NULL ? blocker : g_strdup (""));
    }
  slept_us = (pp_sleep_stats_boottime_us () - boot0) - (g_get_monotonic_time () - mono0);
  if (slept_us > G_USEC_PER_SEC / 2)
    {
      g_debug ("Sleep record: the machine slept while the awake devices' blockers were read: "
               "left unknown");
      return;
    }
  g_ptr_array_unref (s->awake_blockers);
  s->awake_blockers = g_steal_pointer (&blockers);
}

gboolean
pp_sleep_history_in_progress (PpSleepHistory *self)
{
  return self->begun;
}

static void
log_record (const PpSleepRecord *r)
{
  g_autofree char *duration = g_strdup_printf ("%" G_GUINT64_FORMAT, r->duration_ms);
  g_autofree char *start = g_strdup_printf ("%" G_GUINT64_FORMAT, r->start_us);
  g_autofree char *share = NULL;
  g_autofree char *drain = NULL;
  g_autofree char *percent = NULL;
  g_autofree char *woken = g_strjoinv (" ", r->woken_by);
  g_autofree char *awake = g_strjoinv (" ", r->awake_devices);
  g_autofree char *failed_errno = g_strdup_printf ("%" G_GINT32_FORMAT, r->failed_errno);
  g_autofree char *hw_text = NULL;
  g_autofree char *drain_text = NULL;
  gboolean failed = g_str_equal (r->result, "failed");
  gboolean energy_known = r->energy_before_mwh >= 0 && r->energy_after_mwh >= 0;

  if (r->hw_sleep_share >= 0)
    {
      share = g_strdup_printf ("%.4f", r->hw_sleep_share);
      hw_text = g_strdup_printf (", %.0f%% in hardware sleep%s", r->hw_sleep_share * 100,
                                 r->hw_sleep_reliable ? "" : " (unreliable: longer than the counter)");
    }
  if (energy_known)
    {
      drain = g_strdup_printf ("%.1f", r->drain_mw);
      percent = g_strdup_printf ("%.2f", r->drain_percent_per_hour);
      drain_text = g_strdup_printf (", drain %.0f mW (%.2f %%/h)", r->drain_mw,
                                    r->drain_percent_per_hour);
    }
  pp_log_event (PP_LOG_SLEEP_RECORD, failed ? G_LOG_LEVEL_WARNING : G_LOG_LEVEL_INFO,
                PP_LOG_FIELDS ({ "SLEEP_STATE", r->state }, { "MEM_SLEEP", r->mem_sleep },
                               { "SLEEP_RESULT", r->result }, { "SLEEP_START_USEC", start },
                               { "DURATION_MS", duration },
                               { "FAILED_STEP", failed ? r->failed_step : NULL },
                               { "FAILED_DEVICE", failed ? r->failed_device : NULL },
                               { "FAILED_ERRNO", failed ? failed_errno : NULL },
                               { "ERROR", *r->error ? r->error : NULL },
                               { "HW_SLEEP_SHARE", share },
                               { "HW_SLEEP_RELIABLE", r->hw_sleep_share >= 0
                                                      ? (r->hw_sleep_reliable ? "1" : "0") : NULL },
                               { "DRAIN_MW", drain }, { "DRAIN_PERCENT_PER_HOUR", percent },
                               { "WAKE_IRQ", *r->wake_irq ? r->wake_irq : NULL },
                               { "WOKEN_BY", *woken ? woken : NULL },
                               { "AWAKE_DEVICES", *awake ? awake : NULL }),
                "Sleep %s: %s%s%s, %" G_GUINT64_FORMAT ".%03u s%s%s%s%s%s%s",
                failed ? "failed" : "report", r->state, *r->mem_sleep ? "/" : "", r->mem_sleep,
                r->duration_ms / 1000, (guint) (r->duration_ms % 1000),
                hw_text ? hw_text : "", drain_text ? drain_text : "",
                *woken ? ", woken by " : "", woken,
                failed && *r->failed_step ? ", failed at " : "", failed ? r->failed_step : "");
}

void
pp_sleep_history_end (PpSleepHistory *self, const char *error)
{
  PpSleepSnapshot after;
  PpSleepRecord *record;

  if (!self->begun)
    return;
  take_snapshot (self, &after, TRUE);
  record = pp_sleep_record_compute (&self->before, &after, self->state, error);
  pp_sleep_snapshot_clear (&after);
  pp_sleep_snapshot_clear (&self->before);
  self->begun = FALSE;
  g_clear_pointer (&self->state, g_free);

  log_record (record);
  pp_sleep_history_push (self->records, record);
  save (self);
  update_last (self);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LAST_SLEEP]);
}

GPtrArray *
pp_sleep_history_get_records (PpSleepHistory *self)
{
  return self->records;
}

GVariant *
pp_sleep_history_to_variant (PpSleepHistory *self, guint count)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));

  for (guint i = 0; i < count && i < self->records->len; i++)
    g_variant_builder_add_value (&b, pp_sleep_record_to_variant (
                                   g_ptr_array_index (self->records, self->records->len - 1 - i)));
  return g_variant_builder_end (&b);
}

GVariant *
pp_sleep_history_get_last (PpSleepHistory *self)
{
  return self->last;
}

static void
pp_sleep_history_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  PpSleepHistory *self = PP_SLEEP_HISTORY (object);

  switch (prop_id)
    {
    case PROP_LAST_SLEEP:
      g_value_set_variant (value, self->last);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pp_sleep_history_finalize (GObject *object)
{
  PpSleepHistory *self = PP_SLEEP_HISTORY (object);

  if (self->begun)
    pp_sleep_snapshot_clear (&self->before);
  g_free (self->state);
  g_clear_pointer (&self->last, g_variant_unref);
  g_ptr_array_unref (self->records);
  g_free (self->path);
  g_clear_object (&self->manager);
  G_OBJECT_CLASS (pp_sleep_history_parent_class)->finalize (object);
}

static void
pp_sleep_history_class_init (PpSleepHistoryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = pp_sleep_history_get_property;
  object_class->finalize = pp_sleep_history_finalize;

  props[PROP_LAST_SLEEP] =
    g_param_spec_variant ("last-sleep", NULL, NULL, G_VARIANT_TYPE_VARDICT, NULL,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
pp_sleep_history_init (PpSleepHistory *self)
{
  self->records = g_ptr_array_new_with_free_func ((GDestroyNotify) pp_sleep_record_free);
}
