#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The shipped D-Bus policy (data/dbus/org.powerpolicy1.conf) on a strict
system bus: Debian's own system.conf, with only what cannot run here
removed (the bus user, forking, pid file, service helper, the real socket).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ppharness  # noqa: E402
from ppharness import Daemon, Laptop, STORAGE, call_as_user, main  # noqa: E402

from gi.repository import GLib, Gio  # noqa: E402

SRCDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
SYSTEM_CONF = '/usr/share/dbus-1/system.conf'


def strict_config(socket_path, includedir):
    with open(SYSTEM_CONF) as f:
        conf = f.read()
    for tag in ('user', 'pidfile', 'servicehelper'):
        conf = re.sub(r'<%s>[^<]*</%s>' % (tag, tag), '', conf)
    conf = conf.replace('<fork/>', '').replace('<syslog/>', '')
    conf = conf.replace('<standard_system_servicedirs/>', '')
    conf = re.sub(r'<listen>[^<]*</listen>', '<listen>unix:path=%s</listen>' % socket_path, conf)
    # only our policy, not the machine's system.d
    conf = re.sub(r'<includedir>[^<]*</includedir>', '', conf)
    conf = re.sub(r'<include[^>]*>[^<]*</include>', '', conf)
    conf = conf.replace('</busconfig>', '<includedir>%s</includedir>\n</busconfig>' % includedir)
    return conf


@unittest.skipUnless(os.path.exists(SYSTEM_CONF), 'no %s' % SYSTEM_CONF)
class TestBusPolicy(unittest.TestCase):

    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest('needs root to run as nobody')
        if not ppharness.preload_active():
            self.skipTest('not running under umockdev-wrapper')
        self.tmp = tempfile.mkdtemp(prefix='pp-strict-bus-')
        os.chmod(self.tmp, 0o755)
        includedir = os.path.join(self.tmp, 'system.d')
        os.mkdir(includedir)
        shutil.copy(os.path.join(SRCDIR, 'data', 'dbus', 'org.powerpolicy1.conf'), includedir)
        shutil.copy(os.path.join(SRCDIR, 'data', 'dbus', 'org.powerpolicy1.PowerProfiles.conf'), includedir)
        socket_path = os.path.join(self.tmp, 'system_bus_socket')
        conf = os.path.join(self.tmp, 'system.conf')
        with open(conf, 'w') as f:
            f.write(strict_config(socket_path, includedir))
        self.bus_proc = subprocess.Popen(['dbus-daemon', '--nofork', '--config-file=' + conf,
                                          '--print-address=1'],
                                         stdout=subprocess.PIPE, text=True)
        self.address = self.bus_proc.stdout.readline().strip()
        self.assertTrue(self.address.startswith('unix:'), self.address)
        os.chmod(socket_path, 0o777)
        self.laptop = Laptop()
        self.daemon = None

    def tearDown(self):
        if self.daemon is not None:
            if self.daemon.proc is not None:
                self.daemon.stop()
            sys.stdout.write(self.daemon.read_log())
            self.daemon.cleanup()
        self.bus_proc.terminate()
        self.bus_proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start_daemon(self):
        self.daemon = Daemon(self.laptop, bus_address=self.address).start()
        bus = Gio.DBusConnection.new_for_address_sync(
            self.address,
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)
        ppharness.wait_for_name(bus)
        return bus

    def test_unprivileged_caller(self):
        self.start_daemon()
        r = call_as_user(self.address, 'nobody', 'ListDevices')
        self.assertTrue(r['ok'], r)
        self.assertIn(STORAGE, [d['path'] for d in r['result'][0]])
        r = call_as_user(self.address, 'nobody', 'GetDevice', '(s)', ['1-1.2'])
        self.assertTrue(r['ok'], r)
        r = call_as_user(self.address, 'nobody', 'SetOverride', '(sss)', ['1-1.2', 'Control', 'on'])
        self.assertFalse(r['ok'])
        self.assertIn(r['error'], ('org.powerpolicy1.Error.NotAuthorized',
                                   'org.freedesktop.DBus.Error.AccessDenied'), r)
        self.assertEqual(self.laptop.read(STORAGE + '/power/control'), 'auto')

    def test_only_root_owns_the_name(self):
        script = ('import sys\n'
                  'from gi.repository import Gio, GLib\n'
                  'bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)\n'
                  'try:\n'
                  '    r = bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus",\n'
                  '        "org.freedesktop.DBus", "RequestName",\n'
                  '        GLib.Variant("(su)", ("org.powerpolicy1", 4)), None, 0, 5000, None)\n'
                  '    print("granted", r.unpack()[0])\n'
                  'except GLib.GError as e:\n'
                  '    print("denied", Gio.DBusError.get_remote_error(e))\n')
        r = subprocess.run(['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups',
                            '/usr/bin/python3', '-c', script],
                           env={'PATH': '/usr/bin:/bin', 'DBUS_SYSTEM_BUS_ADDRESS': self.address},
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.stdout.strip(), 'denied org.freedesktop.DBus.Error.AccessDenied',
                         r.stderr)
        # and root may: the daemon starts and owns it
        self.start_daemon()

    def test_power_profiles_names(self):
        # data/dbus/org.powerpolicy1.PowerProfiles.conf: root owns both
        # names, everyone reads, the daemon decides who sets
        bus = self.start_daemon()
        for name in ('org.freedesktop.UPower.PowerProfiles', 'net.hadess.PowerProfiles'):
            ppharness.wait_until(lambda: bus.call_sync(
                'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'NameHasOwner',
                GLib.Variant('(s)', (name,)), None, 0, 5000, None).unpack()[0], 10, name)
        script = ('import sys\n'
                  'from gi.repository import Gio, GLib\n'
                  'bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)\n'
                  'def call(dest, path, iface, method, args):\n'
                  '    try:\n'
                  '        r = bus.call_sync(dest, path, iface, method, args, None, 0, 5000, None)\n'
                  '        return "ok %s" % (r.unpack()[0],)\n'
                  '    except GLib.GError as e:\n'
                  '        return "error %s" % Gio.DBusError.get_remote_error(e)\n'
                  'N, P = "org.freedesktop.UPower.PowerProfiles", "/org/freedesktop/UPower/PowerProfiles"\n'
                  'L, LP = "net.hadess.PowerProfiles", "/net/hadess/PowerProfiles"\n'
                  'D = "org.freedesktop.DBus.Properties"\n'
                  'print(call(N, P, D, "Get", GLib.Variant("(ss)", (N, "ActiveProfile"))))\n'
                  'print(call(L, LP, D, "Get", GLib.Variant("(ss)", (L, "ActiveProfile"))))\n'
                  'print(call("org.powerpolicy1", P, D, "Get", GLib.Variant("(ss)", (N, "ActiveProfile"))))\n'
                  'print(call(N, P, D, "Set", GLib.Variant("(ssv)", (N, "ActiveProfile", GLib.Variant("s", "power-saver")))))\n'
                  'print(call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",\n'
                  '           "RequestName", GLib.Variant("(su)", (N, 4))))\n')
        r = subprocess.run(['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups',
                            '/usr/bin/python3', '-c', script],
                           env={'PATH': '/usr/bin:/bin', 'DBUS_SYSTEM_BUS_ADDRESS': self.address},
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.stdout.splitlines(), [
            'ok balanced', 'ok balanced', 'ok balanced',
            # no polkit on this bus: only root may choose
            'error org.powerpolicy1.Error.NotAuthorized',
            'error org.freedesktop.DBus.Error.AccessDenied'], r.stderr)


if __name__ == '__main__':
    main()
