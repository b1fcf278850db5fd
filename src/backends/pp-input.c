/* SPDX-License-Identifier: GPL-2.0-or-later */
#define G_LOG_DOMAIN "pp-input"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib-unix.h>
#include <libevdev/libevdev.h>

#include "pp-input.h"

typedef struct libevdev PpEvdev;
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PpEvdev, libevdev_free)

/* Upper bound of events read from one device in one go, so that a device
 * that never stops cannot keep the loop busy. */
#define MAX_EVENTS_PER_READ 8192

typedef struct {
  PpInput         *input;      /* unowned */
  char            *syspath;
  char            *devnode;
  int              fd;
  struct libevdev *evdev;
  gboolean         has_lid;
  gboolean         has_dock;
  gboolean         lid_closed;
  gboolean         docked;
  gboolean         monotonic;  /* event times are CLOCK_MONOTONIC */
  guint            source_id;
} InputDevice;

struct _PpInput {
  GObject     parent_instance;
  GHashTable *devices;        /* syspath -> InputDevice* */
  GHashTable *open_failed;    /* syspaths whose open failure was logged */
  gboolean    lazy;
  gboolean    lid_closed;
  gboolean    has_lid;
  gboolean    dock_switch;
};

enum {
  PROP_0,
  PROP_LID_CLOSED,
  PROP_HAS_LID,
  PROP_DOCK_SWITCH,
  N_PROPS,
};
static GParamSpec *props[N_PROPS];

enum {
  SIGNAL_ACTIVITY,
  N_SIGNALS,
};
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (PpInput, pp_input, G_TYPE_OBJECT)

static const char * const watched_kinds[] = {
  "ID_INPUT_KEYBOARD", "ID_INPUT_MOUSE", "ID_INPUT_TOUCHPAD", "ID_INPUT_TOUCHSCREEN",
  "ID_INPUT_TABLET", "ID_INPUT_JOYSTICK", "ID_INPUT_SWITCH",
};

gboolean
pp_input_device_is_watched (PpDeviceInfo *info)
{
  if (info == NULL || g_strcmp0 (info->subsystem, "input") != 0 ||
      info->devnode == NULL || !g_str_has_prefix (info->devnode, "/dev/input/event"))
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (watched_kinds); i++)
    if (g_strcmp0 (pp_device_info_get_property (info, watched_kinds[i]), "1") == 0)
      return TRUE;
  return FALSE;
}

static gboolean
device_always_polled (InputDevice *dev)
{
  return dev->has_lid || dev->has_dock;
}

static void
input_device_free (InputDevice *dev)
{
  g_clear_handle_id (&dev->source_id, g_source_remove);
  g_clear_pointer (&dev->evdev, libevdev_free);
  if (dev->fd >= 0)
    close (dev->fd);
  g_free (dev->syspath);
  g_free (dev->devnode);
  g_free (dev);
}

static void
update_switches (PpInput *self)
{
  GHashTableIter iter;
  gpointer value;
  gboolean lid_closed = FALSE, has_lid = FALSE, dock = FALSE;

  g_hash_table_iter_init (&iter, self->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      InputDevice *dev = value;

      /* several lid switches (some machines report one per panel):
       * closed if any says closed */
      if (dev->has_lid)
        {
          has_lid = TRUE;
          lid_closed |= dev->lid_closed;
        }
      if (dev->has_dock)
        dock |= dev->docked;
    }

  g_object_freeze_notify (G_OBJECT (self));
  if (self->has_lid != has_lid)
    {
      self->has_lid = has_lid;
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_HAS_LID]);
    }
  if (self->lid_closed != lid_closed)
    {
      self->lid_closed = lid_closed;
      g_info ("Lid %s", lid_closed ? "closed" : "open");
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LID_CLOSED]);
    }
  if (self->dock_switch != dock)
    {
      self->dock_switch = dock;
      g_info ("Dock switch %s", dock ? "on" : "off");
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_DOCK_SWITCH]);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

static gint64
event_time (InputDevice *dev, const struct input_event *ev)
{
  gint64 now = g_get_monotonic_time ();
  gint64 t;

  if (!dev->monotonic)
    return now;
  t = (gint64) ev->input_event_sec * G_USEC_PER_SEC + ev->input_event_usec;
  /* a time from another clock or from the future: trust our own */
  if (t <= 0 || t > now)
    return now;
  return t;
}

/* Apply one event; returns its time if it is user activity, else -1.
 * Only the kind and time of an event are looked at: never what key. */
static gint64
handle_event (InputDevice *dev, const struct input_event *ev, gboolean *switched)
{
  switch (ev->type)
    {
    case EV_SW:
      if (ev->code == SW_LID && dev->has_lid)
        {
          dev->lid_closed = ev->value != 0;
          g_debug ("%s: lid %s", dev->devnode, dev->lid_closed ? "closed" : "open");
          *switched = TRUE;
        }
      else if (ev->code == SW_DOCK && dev->has_dock)
        {
          dev->docked = ev->value != 0;
          g_debug ("%s: dock switch %s", dev->devnode, dev->docked ? "on" : "off");
          *switched = TRUE;
        }
      return -1;
    case EV_KEY:
    case EV_REL:
    case EV_ABS:
      return event_time (dev, ev);
    case EV_SYN:
      /* events were lost: somebody was busy */
      if (ev->code == SYN_DROPPED)
        return event_time (dev, ev);
      return -1;
    default:
      return -1;
    }
}

/* Read all that is pending. Returns FALSE when the device is gone or
 * broken (the caller drops it); *latest gets the latest activity. */
static gboolean
read_device (InputDevice *dev, gint64 *latest, gboolean *switched, guint *n_read)
{
  unsigned int flag = LIBEVDEV_READ_FLAG_NORMAL;

  *n_read = 0;
  while (*n_read < MAX_EVENTS_PER_READ)
    {
      struct input_event ev;
      int rc = libevdev_next_event (dev->evdev, flag, &ev);
      gint64 t;

      if (rc == -EAGAIN)
        {
          if (flag == LIBEVDEV_READ_FLAG_SYNC)
            {
              /* resync done: back to the normal stream */
              flag = LIBEVDEV_READ_FLAG_NORMAL;
              continue;
            }
          return TRUE;
        }
      if (rc < 0)
        {
          if (rc == -ENODEV)
            g_info ("%s: unplugged", dev->devnode);
          else
            g_warning ("%s: read failed, no longer watching it: %s",
                       dev->devnode, g_strerror (-rc));
          return FALSE;
        }

      (*n_read)++;
      if (rc == LIBEVDEV_READ_STATUS_SYNC && flag == LIBEVDEV_READ_FLAG_NORMAL)
        {
          /* SYN_DROPPED: the kernel's buffer overflowed. libevdev hands
           * us the state that changed meanwhile in sync mode. */
          g_debug ("%s: events dropped, resyncing", dev->devnode);
          flag = LIBEVDEV_READ_FLAG_SYNC;
        }
      t = handle_event (dev, &ev, switched);
      if (t > *latest)
        *latest = t;
    }
  return TRUE;
}

static void watch_device (PpInput *self, InputDevice *dev);

static void
drop_device (PpInput *self, InputDevice *dev)
{
  gboolean had_switch = device_always_polled (dev);

  g_hash_table_remove (self->devices, dev->syspath);
  if (had_switch)
    update_switches (self);
}

static gboolean
on_device_ready (int fd, GIOCondition condition, gpointer user_data)
{
  InputDevice *dev = user_data;
  PpInput *self = dev->input;
  gint64 latest = -1;
  gboolean switched = FALSE;
  guint n_read = 0;

  if (!read_device (dev, &latest, &switched, &n_read) ||
      (n_read == 0 && (condition & (G_IO_HUP | G_IO_ERR | G_IO_NVAL))))
    {
      /* gone: no busy loop on a dead fd */
      dev->source_id = 0;
      drop_device (self, dev);
      return G_SOURCE_REMOVE;
    }
  if (switched)
    update_switches (self);
  if (latest >= 0)
    g_signal_emit (self, signals[SIGNAL_ACTIVITY], 0, latest);
  return G_SOURCE_CONTINUE;
}

static void
watch_device (PpInput *self, InputDevice *dev)
{
  gboolean want = device_always_polled (dev) || !self->lazy;

  if (want && dev->source_id == 0)
    dev->source_id = g_unix_fd_add (dev->fd, G_IO_IN | G_IO_HUP | G_IO_ERR,
                                    on_device_ready, dev);
  else if (!want)
    g_clear_handle_id (&dev->source_id, g_source_remove);
}

gboolean
pp_input_add_device (PpInput *self, PpDeviceInfo *info)
{
  g_autoptr(PpEvdev) evdev = NULL;
  InputDevice *dev;
  int fd, rc;

  if (!pp_input_device_is_watched (info))
    return FALSE;
  if (g_hash_table_contains (self->devices, info->syspath))
    return TRUE;

  fd = open (info->devnode, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    {
      int errsv = errno;

      if (g_hash_table_add (self->open_failed, g_strdup (info->syspath)))
        g_warning ("Cannot watch %s for activity: %s", info->devnode, g_strerror (errsv));
      return FALSE;
    }
  rc = libevdev_new_from_fd (fd, &evdev);
  if (rc < 0)
    {
      if (g_hash_table_add (self->open_failed, g_strdup (info->syspath)))
        g_warning ("Cannot watch %s for activity: %s", info->devnode, g_strerror (-rc));
      close (fd);
      return FALSE;
    }
  g_hash_table_remove (self->open_failed, info->syspath);

  dev = g_new0 (InputDevice, 1);
  dev->input = self;
  dev->syspath = g_strdup (info->syspath);
  dev->devnode = g_strdup (info->devnode);
  dev->fd = fd;
  dev->evdev = g_steal_pointer (&evdev);
  /* compare event times with g_get_monotonic_time() */
  dev->monotonic = libevdev_set_clock_id (dev->evdev, CLOCK_MONOTONIC) == 0;
  dev->has_lid = libevdev_has_event_code (dev->evdev, EV_SW, SW_LID);
  dev->has_dock = libevdev_has_event_code (dev->evdev, EV_SW, SW_DOCK);
  if (dev->has_lid)
    dev->lid_closed = libevdev_get_event_value (dev->evdev, EV_SW, SW_LID) != 0;
  if (dev->has_dock)
    dev->docked = libevdev_get_event_value (dev->evdev, EV_SW, SW_DOCK) != 0;
  g_hash_table_replace (self->devices, dev->syspath, dev);

  g_debug ("Watching %s (%s)%s%s", dev->devnode, libevdev_get_name (dev->evdev),
           dev->has_lid ? ", lid switch" : "", dev->has_dock ? ", dock switch" : "");
  watch_device (self, dev);
  if (device_always_polled (dev))
    update_switches (self);
  return TRUE;
}

void
pp_input_remove_device (PpInput *self, const char *syspath)
{
  InputDevice *dev = g_hash_table_lookup (self->devices, syspath);

  g_hash_table_remove (self->open_failed, syspath);
  if (dev == NULL)
    return;
  g_debug ("No longer watching %s", dev->devnode);
  drop_device (self, dev);
}

void
pp_input_set_lazy (PpInput *self, gboolean lazy)
{
  GHashTableIter iter;
  gpointer value;

  if (self->lazy == lazy)
    return;
  self->lazy = lazy;
  g_hash_table_iter_init (&iter, self->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    watch_device (self, value);
}

gint64
pp_input_drain (PpInput *self)
{
  GHashTableIter iter;
  gpointer value;
  gint64 latest = -1;
  gboolean switched = FALSE, dropped = FALSE;

  g_hash_table_iter_init (&iter, self->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      InputDevice *dev = value;
      guint n_read;

      if (device_always_polled (dev))
        continue;
      if (!read_device (dev, &latest, &switched, &n_read))
        {
          g_hash_table_iter_remove (&iter);
          dropped = TRUE;
        }
    }
  if (switched || dropped)
    update_switches (self);
  return latest;
}

gboolean
pp_input_get_lid_closed (PpInput *self)
{
  return self->lid_closed;
}

gboolean
pp_input_get_has_lid (PpInput *self)
{
  return self->has_lid;
}

gboolean
pp_input_get_dock_switch (PpInput *self)
{
  return self->dock_switch;
}

guint
pp_input_get_n_devices (PpInput *self)
{
  return g_hash_table_size (self->devices);
}

static void
pp_input_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  PpInput *self = PP_INPUT (object);

  switch (prop_id)
    {
    case PROP_LID_CLOSED:
      g_value_set_boolean (value, self->lid_closed);
      break;
    case PROP_HAS_LID:
      g_value_set_boolean (value, self->has_lid);
      break;
    case PROP_DOCK_SWITCH:
      g_value_set_boolean (value, self->dock_switch);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pp_input_finalize (GObject *object)
{
  PpInput *self = PP_INPUT (object);

  g_clear_pointer (&self->devices, g_hash_table_unref);
  g_clear_pointer (&self->open_failed, g_hash_table_unref);
  G_OBJECT_CLASS (pp_input_parent_class)->finalize (object);
}

static void
pp_input_class_init (PpInputClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = pp_input_get_property;
  object_class->finalize = pp_input_finalize;

  props[PROP_LID_CLOSED] =
    g_param_spec_boolean ("lid-closed", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_HAS_LID] =
    g_param_spec_boolean ("has-lid", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_DOCK_SWITCH] =
    g_param_spec_boolean ("dock-switch", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);

  signals[SIGNAL_ACTIVITY] =
    g_signal_new ("activity", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT64);
}

static void
pp_input_init (PpInput *self)
{
  self->devices = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) input_device_free);
  self->open_failed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->lazy = FALSE;
}

PpInput *
pp_input_new (void)
{
  return g_object_new (PP_TYPE_INPUT, NULL);
}
