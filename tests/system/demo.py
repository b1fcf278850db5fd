#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make demo: the real powerpolicyd on a simulated laptop, safely.

Runs under umockdev-wrapper: all of /sys, /dev and udev are a testbed, the
system bus is a private one with a mocked logind (a lid close "suspends"
nothing). Nothing on this machine is touched. The story, one step each:
what the daemon changed, why for one device, the idle layer on and off,
battery against AC, a hold, a power-down of a subtree, a lid close, and
every original value back on exit.
"""

import argparse
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dbusmock  # noqa: E402

import ppharness  # noqa: E402
from ppharness import (  # noqa: E402
    BUS_NAME, IFACE, OBJ_PATH, Daemon, Laptop, exit_after_tests, wait_until)
import ppevdev  # noqa: E402
from gi.repository import GLib, Gio  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SHIPPED_CONFIG = os.path.join(HERE, '..', '..', 'data', 'powerpolicy.conf')

# the shipped policy, with three changes so that the story fits in a
# minute: idle after 2 s, the lid acts at once, no video helper
DEMO_DROPIN = """\
[Daemon]
IdleTimeoutSec=2
[Lid]
HoldoffSec=0
[Sleep]
QuirkHelper=/bin/true
"""

TTY = sys.stdout.isatty() and os.environ.get('TERM', 'dumb') != 'dumb' and 'NO_COLOR' not in os.environ


def sgr(code, text):
    return '\033[%sm%s\033[0m' % (code, text) if TTY else text


class Demo:

    def __init__(self, builddir, laptop, bus_address):
        self.builddir = builddir
        self.laptop = laptop
        self.env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
                    'DBUS_SYSTEM_BUS_ADDRESS': bus_address, 'LANG': 'C.UTF-8',
                    'TERM': os.environ.get('TERM', 'dumb')}
        if 'NO_COLOR' in os.environ:
            self.env['NO_COLOR'] = os.environ['NO_COLOR']
        self.bus = Gio.DBusConnection.new_for_address_sync(
            bus_address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.status = 0
        self.n = 0
        self.before = None

    # -- output ------------------------------------------------------------

    def step(self, text):
        self.n += 1
        print('\n' + sgr('1', '%d. %s' % (self.n, text)), flush=True)

    def note(self, text):
        print('   ' + text, flush=True)

    def pmctl(self, *args):
        print(sgr('2', '$ pmctl %s' % ' '.join(args)), flush=True)
        r = subprocess.run([os.path.join(self.builddir, 'src', 'pmctl')] + list(args), env=self.env)
        self.status |= r.returncode

    def pmctl_has(self, command):
        r = subprocess.run([os.path.join(self.builddir, 'src', 'pmctl'), 'help', command],
                           env=self.env, capture_output=True)
        return r.returncode == 0

    # -- what changed on the (simulated) hardware ----------------------------

    def snapshot(self):
        """Every attribute the policy manages in the testbed: (device, attribute) -> value."""
        values = {}
        top = os.path.join(self.laptop.root, 'sys', 'devices')
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            name = os.path.basename(dirpath)
            for attr in ('control', 'autosuspend_delay_ms', 'wakeup'):
                if name == 'power' and attr in filenames:
                    device = os.path.basename(os.path.dirname(dirpath))
                    values[(device, 'power/' + attr)] = self.read(os.path.join(dirpath, attr))
            if 'link_power_management_policy' in filenames:
                values[(name, 'link_power_management_policy')] = \
                    self.read(os.path.join(dirpath, 'link_power_management_policy'))
        params = os.path.join(self.laptop.root, 'sys', 'module', 'snd_hda_intel', 'parameters')
        for p in sorted(os.listdir(params)):
            values[('snd_hda_intel', 'parameters/' + p)] = self.read(os.path.join(params, p))
        return values

    @staticmethod
    def read(path):
        try:
            with open(path) as f:
                return f.read().strip()
        except OSError:
            return '?'

    def mark(self):
        self.before = self.snapshot()

    def show_changes(self):
        """The attributes that changed since mark(), the new value highlighted."""
        after = self.snapshot()
        changed = [(k, self.before.get(k, '-'), v) for k, v in sorted(after.items())
                   if self.before.get(k) != v]
        if not changed:
            self.note('(no attribute changed)')
        width = max([len(d) + len(a) + 1 for (d, a), _, _ in changed] + [0])
        for (device, attribute), old, new in changed:
            self.note('%-*s  %s -> %s' % (width, device + ' ' + attribute, old, sgr('1;33', new)))
        self.before = after

    # -- the daemon ----------------------------------------------------------

    def get(self, name):
        r = self.bus.call_sync(BUS_NAME, OBJ_PATH, 'org.freedesktop.DBus.Properties', 'Get',
                               GLib.Variant('(ss)', (IFACE, name)), None,
                               Gio.DBusCallFlags.NONE, 5000, None)
        return r.unpack()[0]

    def wait_property(self, name, value, what):
        # each Get is a round trip: once it answers @value, the pass that
        # went with the change is done
        wait_until(lambda: self.get(name) == value, 10, what)

    def take(self, method, args):
        r, fds = self.bus.call_with_unix_fd_list_sync(
            BUS_NAME, OBJ_PATH, IFACE, method, GLib.Variant('(sss)', args),
            GLib.VariantType('(h)'), Gio.DBusCallFlags.NONE, 5000, None, None)
        return fds.steal_fds()[r.unpack()[0]]


    def inhibitors(self):
        return self.bus.call_sync(BUS_NAME, OBJ_PATH, IFACE, 'ListInhibitors', None, None,
                                  Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]

    def release(self, fd):
        """Close a hold's or inhibitor's fd; wait until the daemon let it
        go (and applied the policy that follows, in the same turn)."""
        n = len(self.inhibitors())
        os.close(fd)
        wait_until(lambda: len(self.inhibitors()) < n, 5, 'the daemon to release it')


def run_story(demo, laptop, keyboard, lid, logind, has_explain):
    # the demo keeps the idle layers out of the way until their turn
    idle_fd = demo.take('Inhibit', ('idle', 'make demo', 'until the idle step'))

    demo.step('The laptop as the daemon sees it: its state, the devices it manages, '
              'the power-dependency tree')
    demo.pmctl('status')
    demo.pmctl('list')
    demo.pmctl('tree')

    demo.step('What the daemon changed at start (ORIGINAL before it, CURRENT now):')
    demo.pmctl('diff')

    if has_explain:
        demo.step('Why the USB stick 1-1.2 has these values (layer and origin of each):')
        demo.pmctl('explain', '1-1.2')
    else:
        demo.step('Everything known of the USB stick 1-1.2:')
        demo.pmctl('show', '1-1.2')

    demo.step('The user stops typing: after IdleTimeoutSec=2 the :idle layers apply')
    demo.release(idle_fd)
    keyboard.key()
    demo.wait_property('UserIdle', False, 'the user to be active')
    demo.mark()
    demo.wait_property('UserIdle', True, 'the user to go idle')
    demo.show_changes()
    demo.note('... a key press: the user is back, the idle layers go')
    keyboard.key()
    demo.wait_property('UserIdle', False, 'the user to be active')
    demo.show_changes()
    idle_fd = demo.take('Inhibit', ('idle', 'make demo', 'the rest of the story'))

    demo.step('AC adapter unplugged: the :battery layers apply')
    laptop.set_ac(False)
    demo.wait_property('OnBattery', True, 'the battery layer')
    demo.show_changes()
    demo.note('... and plugged in again: back to the AC values')
    laptop.set_ac(True)
    demo.wait_property('OnBattery', False, 'the AC layer')
    demo.show_changes()

    demo.step('A backup holds the USB stick: it and the hubs above it stay on '
              '(pmctl hold 1-1.2 -- rsync ...)')
    hold_fd = demo.take('Hold', ('1-1.2', 'backup', 'copying files'))
    demo.show_changes()
    demo.pmctl('inhibitors')
    demo.note('... the backup ends: the policy returns')
    demo.release(hold_fd)
    demo.show_changes()

    demo.step('Power down the hub 1-1 and everything below it, then power it up again:')
    demo.pmctl('power-down', '1-1', '--subtree')
    demo.show_changes()
    demo.pmctl('power-up', '1-1', '--subtree')
    demo.note('... each device is resumed (control=on), then the policy applies again '
              'at once: the hubs and the stick are auto, the stick with its delay')
    demo.show_changes()

    demo.step('On battery, the lid closes: the daemon asks logind to suspend '
              '(a mock here: nothing sleeps)')
    laptop.set_ac(False)
    demo.wait_property('OnBattery', True, 'the battery layer')
    demo.mark()
    lid.set_switch(ppevdev.SW_LID, 1)
    demo.wait_property('LidClosed', True, 'the lid to close')
    wait_until(lambda: logind.GetMethodCalls('Suspend'), 5, 'logind Suspend')
    demo.note('logind: Suspend(interactive=%s) called'
              % str(bool(logind.GetMethodCalls('Suspend')[0][1][0])).lower())
    lid.set_switch(ppevdev.SW_LID, 0)
    demo.wait_property('LidClosed', False, 'the lid to open')
    laptop.set_ac(True)
    demo.wait_property('OnBattery', False, 'the AC layer')
    os.close(idle_fd)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--builddir', default=ppharness.BUILDDIR)
    opts = parser.parse_args()
    builddir = os.path.abspath(opts.builddir)
    ppharness.BUILDDIR = builddir

    if not ppharness.preload_active():
        os.execvp('umockdev-wrapper', ['umockdev-wrapper', sys.executable] + sys.argv)

    bus_pid = ppharness.start_private_system_bus()
    bus_address = os.environ['DBUS_SYSTEM_BUS_ADDRESS']
    logind_proc, logind = dbusmock.DBusTestCase.spawn_server_template('logind', {},
                                                                      stdout=subprocess.DEVNULL)
    laptop = Laptop()
    evdev = ppevdev.EvdevEmulator(laptop.tb)
    keyboard = evdev.add(ppevdev.KEYBOARD)
    lid = evdev.add(ppevdev.LID)

    with open(SHIPPED_CONFIG) as f:
        daemon = Daemon(laptop, bus_address=bus_address, config_text=f.read())
    os.makedirs(daemon.config_path + '.d')
    with open(os.path.join(daemon.config_path + '.d', '50-demo.conf'), 'w') as f:
        f.write(DEMO_DROPIN)

    print(sgr('1', 'powerpolicyd on a simulated laptop') +
          ' (umockdev testbed, private D-Bus, mocked logind: nothing on this machine is touched)')
    print('Devices: USB controller -> root hub -> hub 1-1 -> mouse 1-1.1 + USB stick 1-1.2;\n'
          'SATA host0; HDA audio 0000:00:1f.3 (+ snd_hda_intel); AC adapter and battery.\n'
          'Policy: data/powerpolicy.conf as shipped, copied to %s,\n'
          'with a drop-in for the demo: IdleTimeoutSec=2, lid HoldoffSec=0.' % daemon.config_path)
    daemon.start()
    demo = Demo(builddir, laptop, bus_address)
    rc = 0
    try:
        ppharness.wait_for_name(demo.bus)
        run_story(demo, laptop, keyboard, lid, logind, demo.pmctl_has('explain'))
    finally:
        demo.step('The daemon stops (RestoreOnExit=true): every original value is written back')
        demo.mark()
        rc = daemon.stop(signal.SIGTERM)
        demo.show_changes()
        demo.note('powerpolicyd exited with status %d' % rc)
        if os.environ.get('PP_DEMO_LOG'):
            print(daemon.read_log())
        daemon.cleanup()
        evdev.stop()
        logind_proc.terminate()
        logind_proc.wait()
        dbusmock.DBusTestCase.stop_dbus(bus_pid)
    return 1 if demo.status or rc else 0


if __name__ == '__main__':
    exit_after_tests(main())
