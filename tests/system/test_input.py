#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System tests: input activity, the user-idle layers, lid and dock (issue 5).

Input devices are emulated evdev nodes (ppevdev.py); the daemon reads them
with libevdev exactly as it would read the kernel's.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gi.repository import GLib, Gio  # noqa: E402

from ppharness import (  # noqa: E402
    BUS_NAME, IFACE, OBJ_PATH, PCI, POWER_SAVE, STORAGE, TEST_CONFIG,
    PowerPolicyTestCase, main, wait_until,
)
import ppevdev  # noqa: E402
import ppharness  # noqa: E402
from ppevdev import DOCK, KEYBOARD, LID, MOUSE, SW_DOCK, SW_LID  # noqa: E402

IDLE_CONFIG = TEST_CONFIG.replace('[Daemon]\n', '[Daemon]\nIdleTimeoutSec=1\n', 1) + """
[Class usb-storage:idle]
AutosuspendDelayMs=200

[Module snd_hda_intel:idle]
power_save=1
"""
# active values on AC (TEST_CONFIG) and the idle ones above
ACTIVE_DELAY, IDLE_DELAY = '5000', '200'
ACTIVE_POWER_SAVE, IDLE_POWER_SAVE = '10', '1'

GPU = PCI + '/0000:00:02.0'


class InputTestCase(PowerPolicyTestCase):

    def setUp(self):
        super().setUp()
        self.evdev = ppevdev.EvdevEmulator(self.laptop.tb)
        self.holders = []

    def tearDown(self):
        for p in self.holders:
            if p.poll() is None:
                p.kill()
                p.wait()
        # the daemon must be gone before the emulated nodes are
        self.stop_daemons()
        self.evdev.stop()
        super().tearDown()

    def start(self, config=IDLE_CONFIG):
        self.daemon = self.start_daemon(config_text=config)
        return self.daemon

    # -- helpers ------------------------------------------------------------

    def values(self):
        return (self.attr(STORAGE, 'power/autosuspend_delay_ms'), self.laptop.read(POWER_SAVE))

    def wait_values(self, expected, timeout):
        # both written in one pass; a read may fall between truncate and write
        wait_until(lambda: self.values() == expected, timeout,
                   'values %r (are %r)' % (expected, self.values()))

    def assert_active_values(self, timeout=5):
        self.wait_values((ACTIVE_DELAY, ACTIVE_POWER_SAVE), timeout)

    def wait_idle_values(self, timeout=5):
        self.wait_values((IDLE_DELAY, IDLE_POWER_SAVE), timeout)

    def wait_property(self, name, value, timeout=5):
        wait_until(lambda: self.get_property(name) == value, timeout,
                   '%s == %r' % (name, value))

    def wait_log(self, text, timeout=5):
        wait_until(lambda: text in self.daemon.read_log(), timeout, 'log line %r' % text)

    def inhibit(self, what, who='test', why='testing'):
        r, fds = self.bus.call_with_unix_fd_list_sync(
            BUS_NAME, OBJ_PATH, IFACE, 'Inhibit', GLib.Variant('(sss)', (what, who, why)),
            GLib.VariantType('(h)'), Gio.DBusCallFlags.NONE, 5000, None, None)
        stolen = fds.steal_fds()
        self.assertEqual(len(stolen), 1)
        return stolen[r.unpack()[0]]

    def inhibitors(self):
        return self.call('ListInhibitors')[0]

    def prop_changes(self, name):
        return [args[1][name] for (sig, args) in self.signals
                if sig == 'PropertiesChanged' and name in args[1]]

    def daemon_cpu_seconds(self):
        with open('/proc/%d/stat' % self.daemon.proc.pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


class TestIdle(InputTestCase):

    def test_idle_after_timeout_applies_idle_values(self):
        self.evdev.add(KEYBOARD)
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        self.start()
        self.assertEqual(self.get_property('IdleTimeoutSec'), 1)
        self.wait_idle_values()
        self.assertTrue(self.get_property('UserIdle'))
        wait_until(lambda: True in self.prop_changes('UserIdle'), 5, 'PropertiesChanged UserIdle')

    def test_key_press_restores_active_values(self):
        kbd = self.evdev.add(KEYBOARD)
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        self.start()
        self.wait_idle_values()
        self.signals.clear()
        kbd.key()
        self.assert_active_values(timeout=1)
        wait_until(lambda: False in self.prop_changes('UserIdle'), 5, 'PropertiesChanged UserIdle=false')
        # and idle again once the timeout has passed without input
        self.wait_idle_values()

    def test_idle_disabled(self):
        kbd = self.evdev.add(KEYBOARD)
        self.start(IDLE_CONFIG.replace('IdleTimeoutSec=1', 'IdleTimeoutSec=0'))
        self.assertEqual(self.get_property('IdleTimeoutSec'), 0)
        kbd.key()
        # well past the timeout it would have had
        deadline = time.monotonic() + 2.5
        while time.monotonic() < deadline:
            self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), ACTIVE_DELAY)
            time.sleep(0.1)
        self.assertFalse(self.get_property('UserIdle'))

    def test_reload_changes_timeout(self):
        self.evdev.add(KEYBOARD)
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        self.start()
        self.wait_idle_values()
        with open(self.daemon.config_path, 'w') as f:
            f.write(IDLE_CONFIG.replace('IdleTimeoutSec=1', 'IdleTimeoutSec=0'))
        self.call('Reload')
        self.assertEqual(self.get_property('IdleTimeoutSec'), 0)
        self.assertFalse(self.get_property('UserIdle'))
        self.assert_active_values(timeout=2)
        wait_until(lambda: 0 in self.prop_changes('IdleTimeoutSec'), 5,
                   'PropertiesChanged IdleTimeoutSec')

    def test_reload_counts_input_queued_meanwhile(self):
        kbd = self.evdev.add(KEYBOARD)
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        self.start(IDLE_CONFIG.replace('IdleTimeoutSec=1', 'IdleTimeoutSec=0'))
        # tracking off since the start, longer ago than the new timeout;
        # the keyboard was not read meanwhile, but was used just now
        time.sleep(3.5)
        kbd.key()
        with open(self.daemon.config_path, 'w') as f:
            f.write(IDLE_CONFIG.replace('IdleTimeoutSec=1', 'IdleTimeoutSec=3'))
        self.call('Reload')
        wait_until(lambda: 3 in self.prop_changes('IdleTimeoutSec'), 5,
                   'PropertiesChanged IdleTimeoutSec')
        # UserIdle changes before IdleTimeoutSec is announced: never idle
        self.assertEqual(self.prop_changes('UserIdle'), [])
        self.assertFalse(self.get_property('UserIdle'))
        self.wait_idle_values()

    def test_syn_dropped_resyncs(self):
        kbd = self.evdev.add(KEYBOARD)
        self.start()
        self.wait_idle_values()
        probes = kbd.n_ioctls
        # the kernel's buffer overflowed: events were lost, so someone is busy
        kbd.send([(ppevdev.EV_SYN, ppevdev.SYN_DROPPED, 0)])
        self.assert_active_values(timeout=1)
        self.wait_log('/dev/input/event0: events dropped, resyncing')
        # libevdev asked the device for its state again
        self.assertGreater(kbd.n_ioctls, probes)
        kbd.key()
        self.wait_idle_values()

    def test_never_grabs(self):
        kbd = self.evdev.add(KEYBOARD)
        self.start()
        self.wait_idle_values()
        kbd.key()
        self.assert_active_values(timeout=1)
        self.assertGreater(kbd.n_ioctls, 0, 'the daemon never probed the keyboard')
        self.assertEqual(self.evdev.grabs, [])


class TestInhibit(InputTestCase):

    def test_inhibitor_held_and_released(self):
        self.evdev.add(KEYBOARD)
        self.start()
        self.wait_idle_values()
        fd = self.inhibit('idle', 'film', 'watching a film')
        # idle layers removed at once, while the user is still idle
        self.assert_active_values(timeout=2)
        self.assertTrue(self.get_property('UserIdle'))
        self.assertEqual(self.inhibitors(),
                         [('idle', 'film', 'watching a film', '', os.getpid())])
        os.close(fd)
        self.wait_idle_values()
        wait_until(lambda: self.inhibitors() == [], 5, 'inhibitor gone from the list')

    def test_inhibitor_taken_while_active_prevents_idle(self):
        self.evdev.add(KEYBOARD)
        self.start()
        fd = self.inhibit('idle:lid')
        self.wait_property('UserIdle', True)
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), ACTIVE_DELAY)
        self.assertEqual(self.inhibitors()[0][0], 'idle:lid')
        os.close(fd)
        self.wait_idle_values()

    def test_holder_killed_releases(self):
        self.evdev.add(KEYBOARD)
        self.start()
        self.wait_idle_values()
        script = textwrap.dedent('''
            import sys, time
            from gi.repository import GLib, Gio
            bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
            r, fds = bus.call_with_unix_fd_list_sync(
                'org.powerpolicy1', '/org/powerpolicy1', 'org.powerpolicy1.Manager', 'Inhibit',
                GLib.Variant('(sss)', ('idle', 'holder', 'until killed')), GLib.VariantType('(h)'),
                Gio.DBusCallFlags.NONE, 5000, None, None)
            fd = fds.steal_fds()[0]
            print('held', flush=True)
            time.sleep(600)
        ''')
        holder = subprocess.Popen(['/usr/bin/python3', '-c', script], stdout=subprocess.PIPE,
                                  env={'PATH': '/usr/bin:/bin', 'LANG': 'C.UTF-8',
                                       'DBUS_SYSTEM_BUS_ADDRESS': self.bus_address})
        self.holders.append(holder)
        self.assertEqual(holder.stdout.readline().strip(), b'held')
        self.assert_active_values(timeout=2)
        self.assertEqual(self.inhibitors(), [('idle', 'holder', 'until killed', '', holder.pid)])
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        self.wait_idle_values()
        self.assertEqual(self.inhibitors(), [])

    def test_bad_what(self):
        self.start()
        for what in ('bogus', '', 'idle:bogus', 'idle:', ':'):
            with self.subTest(what=what):
                self.assertDBusError('org.powerpolicy1.Error.InvalidArgument',
                                     'Inhibit', (what, 'who', 'why'), '(sss)')
        self.assertEqual(self.inhibitors(), [])

    def test_bad_what_message(self):
        self.start()
        # (a what longer than 32 bytes is refused before its words are looked at)
        for what, shown in (('idle:bogus', 'bogus'), ('lid:\n', '\\n'), ('idle:' + 'x' * 27, 'x' * 27)):
            with self.subTest(what=what):
                e = self.assertDBusError('org.powerpolicy1.Error.InvalidArgument',
                                         'Inhibit', (what, 'who', 'why'), '(sss)')
                # exactly the kind named (escaped), nothing after it
                self.assertTrue(e.message.endswith(
                    ": unknown inhibitor kind '%s' (known: idle, lid)" % shown), e.message)

    def test_lid_inhibitor_listed(self):
        self.start()
        fd = self.inhibit('lid', 'presentation', 'projector')
        self.assertEqual(self.inhibitors(),
                         [('lid', 'presentation', 'projector', '', os.getpid())])
        os.close(fd)
        wait_until(lambda: self.inhibitors() == [], 5, 'lid inhibitor released')


class TestLidDock(InputTestCase):

    def test_lid_initial_state_and_events(self):
        lid = self.evdev.add(LID)
        lid.switches[SW_LID] = 1
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        self.start()
        self.assertTrue(self.get_property('LidClosed'))
        lid.set_switch(SW_LID, 0)
        self.wait_property('LidClosed', False)
        wait_until(lambda: False in self.prop_changes('LidClosed'), 5, 'PropertiesChanged LidClosed')
        lid.set_switch(SW_LID, 1)
        self.wait_property('LidClosed', True)

    def test_lid_open_at_start(self):
        self.evdev.add(LID)
        self.start()
        self.assertFalse(self.get_property('LidClosed'))

    def test_several_lids_closed_if_any(self):
        lid1 = self.evdev.add(LID)
        lid2 = self.evdev.add(LID)
        self.start()
        self.assertFalse(self.get_property('LidClosed'))
        lid2.set_switch(SW_LID, 1)
        self.wait_property('LidClosed', True)
        lid1.set_switch(SW_LID, 1)
        self.wait_log('/dev/input/event0: lid closed')
        lid2.set_switch(SW_LID, 0)
        self.wait_log('/dev/input/event1: lid open')
        # lid1 still says closed
        self.assertTrue(self.get_property('LidClosed'))
        lid1.set_switch(SW_LID, 0)
        self.wait_property('LidClosed', False)

    def test_dock_switch(self):
        dock = self.evdev.add(DOCK)
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        self.start()
        self.assertFalse(self.get_property('Docked'))
        dock.set_switch(SW_DOCK, 1)
        self.wait_property('Docked', True)
        wait_until(lambda: True in self.prop_changes('Docked'), 5, 'PropertiesChanged Docked')
        dock.set_switch(SW_DOCK, 0)
        self.wait_property('Docked', False)

    def test_dock_switch_initial_state(self):
        dock = self.evdev.add(DOCK)
        dock.switches[SW_DOCK] = 1
        self.start()
        self.assertTrue(self.get_property('Docked'))

    def add_gpu(self, hdmi_status):
        tb = self.laptop.tb
        gpu = self.laptop.add('pci', 'pci0000:00/0000:00:02.0', None,
                              ['class', '0x030000', 'power/control', 'on'], ['PCI_CLASS', '30000'])
        card = self.laptop.add('drm', 'drm/card0', gpu, [], ['DEVTYPE', 'drm_minor'])
        self.laptop.add('drm', 'card0-eDP-1', card,
                        ['status', 'connected', 'enabled', 'enabled', 'dpms', 'On'],
                        ['DEVTYPE', 'drm_connector'])
        hdmi = self.laptop.add('drm', 'card0-HDMI-A-1', card,
                               ['status', hdmi_status, 'enabled', 'disabled', 'dpms', 'Off'],
                               ['DEVTYPE', 'drm_connector'])
        return tb, card, hdmi

    def test_dock_via_external_display_enabled_or_not(self):
        tb, card, hdmi = self.add_gpu('disconnected')
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        self.start()
        self.assertFalse(self.get_property('Docked'))
        # plugged in but not enabled (DPMS off): still docked
        tb.set_attribute(hdmi, 'status', 'connected')
        tb.uevent(card, 'change')
        self.wait_property('Docked', True)
        wait_until(lambda: True in self.prop_changes('Docked'), 5, 'PropertiesChanged Docked')
        tb.set_attribute(hdmi, 'status', 'disconnected')
        tb.uevent(card, 'change')
        self.wait_property('Docked', False)

    def test_external_display_connected_at_start(self):
        self.add_gpu('connected')
        self.start()
        self.assertTrue(self.get_property('Docked'))


class TestHotplug(InputTestCase):

    def test_keyboard_unplug_leaves_daemon_healthy(self):
        kbd = self.evdev.add(KEYBOARD)
        mouse = self.evdev.add(MOUSE)
        lid = self.evdev.add(LID)
        self.start()
        self.wait_idle_values()
        kbd.fail_reads()
        self.wait_log('/dev/input/event0: unplugged')
        kbd.remove()
        # no busy loop on the dead node
        cpu = self.daemon_cpu_seconds()
        time.sleep(1.0)
        self.assertLess(self.daemon_cpu_seconds() - cpu, 0.3, 'daemon spins after the unplug')
        self.assertIsNone(self.daemon.proc.poll())
        self.assertTrue(self.call('ListDevices')[0])
        # the others are still watched
        mouse.move()
        self.assert_active_values(timeout=1)
        lid.set_switch(SW_LID, 1)
        self.wait_property('LidClosed', True)
        self.wait_idle_values()
        mouse.move()
        self.assert_active_values(timeout=1)

    def test_unplug_while_active(self):
        kbd = self.evdev.add(KEYBOARD)
        mouse = self.evdev.add(MOUSE)
        self.start()
        kbd.unplug()
        self.wait_log('No longer watching /dev/input/event0')
        self.wait_idle_values()
        mouse.move()
        self.assert_active_values(timeout=1)

    def test_unplug_seen_when_queued_input_is_read(self):
        kbd = self.evdev.add(KEYBOARD)
        mouse = self.evdev.add(MOUSE)
        self.start(IDLE_CONFIG.replace('IdleTimeoutSec=1', 'IdleTimeoutSec=3'))
        # the user is active: the keyboard is not polled, and udev says
        # nothing; the unplug shows when its queue is read at the deadline
        kbd.fail_reads()
        self.assertFalse(self.get_property('UserIdle'))
        self.wait_log('/dev/input/event0: unplugged', timeout=8)
        self.wait_idle_values()
        cpu = self.daemon_cpu_seconds()
        time.sleep(1.0)
        self.assertLess(self.daemon_cpu_seconds() - cpu, 0.3, 'daemon spins after the unplug')
        mouse.move()
        self.assert_active_values(timeout=1)
        kbd.remove()
        self.wait_idle_values(timeout=8)

    def test_open_failure_logged_once(self):
        broken = self.evdev.add(KEYBOARD)
        broken.broken = True
        self.start()
        message = 'Cannot watch /dev/input/event0 for activity'
        self.wait_log(message)
        probes = broken.n_ioctls
        # udev reports a change: the daemon tries again, without a new report
        self.laptop.tb.uevent(broken.syspath, 'change')
        wait_until(lambda: broken.n_ioctls > probes, 5, 'a second attempt to open event0')
        # uevents are handled in order: once event1 is watched, the change was handled
        mouse = self.evdev.add(MOUSE, uevent=True)
        self.wait_log('Watching /dev/input/event1')
        self.assertEqual(self.daemon.read_log().count(message), 1, self.daemon.read_log())
        self.wait_idle_values()
        mouse.move()
        self.assert_active_values(timeout=1)

    def test_hotplugged_device_is_watched(self):
        self.start()
        self.wait_idle_values()
        mouse = self.evdev.add(MOUSE, uevent=True)
        self.wait_log('Watching /dev/input/event0')
        mouse.move()
        self.assert_active_values(timeout=1)
        lid = self.evdev.add(LID, uevent=True)
        self.wait_log('Watching /dev/input/event1')
        lid.set_switch(SW_LID, 1)
        self.wait_property('LidClosed', True)

    def test_unwatched_kinds_ignored(self):
        # a power button (ID_INPUT_KEY only) is not a user-presence device
        button = dict(KEYBOARD, name='Power Button', props=['ID_INPUT_KEY', '1'])
        self.evdev.add(button)
        self.start()
        self.wait_idle_values()
        self.assertEqual(self.evdev.devices[0].n_ioctls, 0)


class TestPmctl(InputTestCase):

    def pmctl(self, *args):
        r = subprocess.run([os.path.join(ppharness.BUILDDIR, 'src', 'pmctl')] + list(args),
                           env={'PATH': '/usr/bin:/bin', 'LANG': 'C.UTF-8',
                                'DBUS_SYSTEM_BUS_ADDRESS': self.bus_address},
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=30)
        return r.returncode, r.stdout, r.stderr

    def status(self):
        rc, out, err = self.pmctl('status')
        self.assertEqual((rc, err), (0, ''))
        return dict(line.split('\t', 1) for line in out.splitlines())

    def test_status_shows_idle_lid_dock(self):
        kbd = self.evdev.add(KEYBOARD)
        lid = self.evdev.add(LID)
        lid.switches[SW_LID] = 1
        dock = self.evdev.add(DOCK)
        dock.switches[SW_DOCK] = 1
        self.start()
        self.wait_idle_values()
        fields = self.status()
        self.assertEqual([fields[k] for k in ('UserIdle', 'IdleTimeoutSec', 'LidClosed', 'Docked')],
                         ['yes', '1', 'yes', 'yes'])
        lid.set_switch(SW_LID, 0)
        dock.set_switch(SW_DOCK, 0)
        kbd.key()
        self.wait_property('LidClosed', False)
        self.wait_property('Docked', False)
        self.wait_property('UserIdle', False)
        fields = self.status()
        self.assertEqual([fields[k] for k in ('LidClosed', 'Docked')], ['no', 'no'])


if __name__ == '__main__':
    main()
