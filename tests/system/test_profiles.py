#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Power profiles: power-profiles-daemon's D-Bus API served by powerpolicyd
(data/dbus/org.powerpolicy1.PowerProfiles.xml), the profile layers, the
[Platform] knobs, and Debian's own powerprofilesctl as a real client."""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ppharness import (BUILDDIR, HUB, PCI, STORAGE, PowerPolicyTestCase,  # noqa: E402
                       line_of, main, wait_until)
from gi.repository import GLib, Gio  # noqa: E402

NAME = 'org.freedesktop.UPower.PowerProfiles'
PATH = '/org/freedesktop/UPower/PowerProfiles'
LEGACY = 'net.hadess.PowerProfiles'
LEGACY_PATH = '/net/hadess/PowerProfiles'

PLATFORM_PROFILE = '/sys/firmware/acpi/platform_profile'
CHOICES = '/sys/firmware/acpi/platform_profile_choices'
CPUFREQ = '/sys/devices/system/cpu/cpufreq'
EPP = [CPUFREQ + '/policy%d/energy_performance_preference' % i for i in range(2)]

CONFIG = """\
[Daemon]
RestoreOnExit=true
MaxInhibitorsPerUser=3

[Class usb]
Control=auto
AutosuspendDelayMs=2000
[Class usb:battery]
AutosuspendDelayMs=1000
[Class usb:power-saver]
AutosuspendDelayMs=500
[Class usb:performance]
AutosuspendDelayMs=5000
[Class usb:low-battery]
AutosuspendDelayMs=200

[Class usb-storage]
Control=auto

[Platform:power-saver]
PlatformProfile=low-power
EnergyPerformancePreference=power
[Platform:performance]
PlatformProfile=performance
EnergyPerformancePreference=performance
"""


def add_platform(laptop, choices='low-power balanced performance', epp=True):
    """The firmware's platform_profile and two intel_pstate policies:
    plain files in the testbed, as the kernel shows them."""
    os.makedirs(laptop.path('/sys/firmware/acpi'), exist_ok=True)
    laptop.write(PLATFORM_PROFILE, 'balanced\n')
    laptop.write(CHOICES, choices + '\n')
    if not epp:
        return
    for i in range(2):
        d = laptop.path(CPUFREQ + '/policy%d' % i)
        os.makedirs(d, exist_ok=True)
        for name, value in (('scaling_driver', 'intel_pstate'),
                            ('energy_performance_preference', 'balance_performance'),
                            ('energy_performance_available_preferences',
                             'default performance balance_performance balance_power power')):
            with open(os.path.join(d, name), 'w') as f:
                f.write(value + '\n')


class ProfilesTestCase(PowerPolicyTestCase):

    def pp_get(self, prop, name=NAME, path=PATH, bus=None):
        r = (bus or self.bus).call_sync(name, path, 'org.freedesktop.DBus.Properties', 'Get',
                                        GLib.Variant('(ss)', (name, prop)), None,
                                        Gio.DBusCallFlags.NONE, 5000, None)
        return r.unpack()[0]

    def pp_set(self, profile, name=NAME, path=PATH):
        self.bus.call_sync(name, path, 'org.freedesktop.DBus.Properties', 'Set',
                           GLib.Variant('(ssv)', (name, 'ActiveProfile', GLib.Variant('s', profile))),
                           None, Gio.DBusCallFlags.NONE, 5000, None)

    def pp_call(self, method, signature, args, bus=None, name=NAME, path=PATH):
        r = (bus or self.bus).call_sync(name, path, name, method,
                                        GLib.Variant(signature, args) if signature else None,
                                        None, Gio.DBusCallFlags.NONE, 5000, None)
        return r.unpack()

    def has_owner(self, name):
        return self.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                  'org.freedesktop.DBus', 'NameHasOwner',
                                  GLib.Variant('(s)', (name,)), None,
                                  Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]

    def wait_owned(self, name=NAME):
        wait_until(lambda: self.has_owner(name), 10, 'powerpolicyd to own %s' % name)

    def remote_error(self, callable_, *args):
        with self.assertRaises(GLib.GError) as cm:
            callable_(*args)
        return Gio.DBusError.get_remote_error(cm.exception), cm.exception.message

    def start(self, config=CONFIG, **kwargs):
        d = self.start_daemon(config_text=config, **kwargs)
        self.wait_owned(NAME)
        self.wait_owned(LEGACY)
        return d


class TestProfilesApi(ProfilesTestCase):

    def test_profiles_both_names_and_layers(self):
        add_platform(self.laptop)
        changed = []

        def on_changed(conn, sender, path, iface, member, params):
            changed.append((path, params.unpack()))
        for p in (PATH, LEGACY_PATH):
            self.bus.signal_subscribe(None, 'org.freedesktop.DBus.Properties', 'PropertiesChanged',
                                      p, None, Gio.DBusSignalFlags.NONE, on_changed)
        d = self.start()
        for name, path in ((NAME, PATH), (LEGACY, LEGACY_PATH)):
            profiles = self.pp_get('Profiles', name, path)
            self.assertEqual([p['Profile'] for p in profiles], ['power-saver', 'balanced', 'performance'])
            self.assertEqual(profiles[2]['PlatformDriver'], 'platform_profile')
            self.assertEqual(profiles[2]['CpuDriver'], 'intel_pstate')
            self.assertEqual(profiles[2]['Driver'], 'multiple')
            self.assertEqual(self.pp_get('ActiveProfile', name, path), 'balanced')
            self.assertEqual(self.pp_get('PerformanceDegraded', name, path), '')
            self.assertEqual(self.pp_get('PerformanceInhibited', name, path), '')
            self.assertEqual(self.pp_get('ActiveProfileHolds', name, path), [])
            self.assertEqual(self.pp_get('Actions', name, path), [])
            self.assertTrue(self.pp_get('Version', name, path))
        self.assertEqual(self.get_property('PowerProfile'), 'balanced')
        self.assertEqual(self.attr(HUB, 'power/autosuspend_delay_ms'), '2000')

        self.pp_set('power-saver')
        # the layers are in place when the call returns
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'low-power')
        for f in EPP:
            self.assertEqual(self.laptop.read(f), 'power')
        self.assertEqual(self.attr(HUB, 'power/autosuspend_delay_ms'), '500')
        self.assertEqual(self.get_property('PowerProfile'), 'power-saver')
        self.assertEqual(self.pp_get('ActiveProfile', LEGACY, LEGACY_PATH), 'power-saver')
        with open(os.path.join(d.state_dir, 'power-profile')) as f:
            self.assertEqual(f.read().strip(), 'power-saver')
        wait_until(lambda: {p for (p, args) in changed
                            if args[1].get('ActiveProfile') == 'power-saver'} == {PATH, LEGACY_PATH},
                   5, 'PropertiesChanged(ActiveProfile) on both objects')

        # Explain's rows of the platform knobs; diff lists them
        rows = self.call('ExplainPlatform')[0]
        by_attr = {r[0]: r for r in rows}
        self.assertEqual(by_attr[PLATFORM_PROFILE][1:4], ('low-power', 'low-power', 'power-saver'))
        self.assertIn('powerpolicy.conf:%d [Platform:power-saver]' % line_of(CONFIG, 'Platform:power-saver', 'PlatformProfile=low-power'),
                      by_attr[PLATFORM_PROFILE][4])
        self.assertEqual(by_attr[EPP[1]][1:4], ('power', 'power', 'power-saver'))
        # a device's Explain names the profile's layer and its line
        rows = {r[0]: r for r in self.call('Explain', (HUB,), '(s)')[0]}
        self.assertEqual(rows['power/autosuspend_delay_ms'][2:4], ('500', 'power-saver'))
        self.assertIn('[Class usb:power-saver]', rows['power/autosuspend_delay_ms'][4])
        changes = self.call('ListChanges')[0]
        self.assertIn((PLATFORM_PROFILE, 'platform_profile', 'balanced', 'low-power'), changes)

        # the legacy name sets it too
        self.pp_set('performance', LEGACY, LEGACY_PATH)
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'performance')
        self.assertEqual(self.laptop.read(EPP[0]), 'performance')
        self.assertEqual(self.attr(HUB, 'power/autosuspend_delay_ms'), '5000')

        # a low battery wins over performance (the layer order)
        self.pp_set('balanced')
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'balanced')
        self.assertEqual(self.laptop.read(EPP[0]), 'balance_performance')
        self.assertEqual(self.attr(HUB, 'power/autosuspend_delay_ms'), '2000')

        # bad values
        name, _ = self.remote_error(self.pp_set, 'turbo')
        self.assertEqual(name, 'org.freedesktop.DBus.Error.InvalidArgs')

        # restored on exit
        self.pp_set('power-saver')
        self.assertEqual(d.stop(), 0)
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'balanced')
        self.assertEqual(self.laptop.read(EPP[1]), 'balance_performance')

    def test_kept_across_restart_and_low_battery_wins(self):
        add_platform(self.laptop)
        d = self.start()
        self.pp_set('performance')
        self.assertEqual(d.stop(), 0)
        self.start(workdir=d.workdir, config=CONFIG)
        self.assertEqual(self.pp_get('ActiveProfile'), 'performance')
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'performance')
        self.assertEqual(self.attr(HUB, 'power/autosuspend_delay_ms'), '5000')
        # on battery, low: :low-battery above :performance
        self.laptop.tb.set_attribute(self.laptop.bat, 'capacity', '5')
        self.laptop.set_ac(False)
        self.wait_attr(HUB, 'power/autosuspend_delay_ms', '200')

    def test_oneshot_applies_saved_profile(self):
        add_platform(self.laptop)
        d = self.new_daemon(config_text=CONFIG, args=['--oneshot'])
        os.makedirs(d.state_dir, exist_ok=True)
        with open(os.path.join(d.state_dir, 'power-profile'), 'w') as f:
            f.write('power-saver\n')
        rc, log = d.run()
        self.assertEqual(rc, 0, log)
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'low-power')
        self.assertEqual(self.attr(HUB, 'power/autosuspend_delay_ms'), '500')

    def test_holds(self):
        add_platform(self.laptop)
        self.start()
        released = []
        self.bus.signal_subscribe(None, NAME, 'ProfileReleased', PATH, None, Gio.DBusSignalFlags.NONE,
                                  lambda *a: released.append(a[5].unpack()[0]))
        perf = self.pp_call('HoldProfile', '(sss)', ('performance', 'compiling', 'org.example.make'))[0]
        self.assertEqual(self.pp_get('ActiveProfile'), 'performance')
        saver = self.pp_call('HoldProfile', '(sss)', ('power-saver', 'battery\x1b[31m', 'org.example.saver'))[0]
        # power-saver beats performance
        self.assertEqual(self.pp_get('ActiveProfile'), 'power-saver')
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'low-power')
        holds = self.pp_get('ActiveProfileHolds')
        self.assertEqual([(h['ApplicationId'], h['Profile'], h['Reason']) for h in holds],
                         [('org.example.make', 'performance', 'compiling'),
                          ('org.example.saver', 'power-saver', 'battery\x1b[31m')])
        self.pp_call('ReleaseProfile', '(u)', (saver,))
        self.assertNotIn('\x1b', self.daemons[0].read_log())
        self.assertEqual(self.pp_get('ActiveProfile'), 'performance')
        # only power-saver and performance can be held; bad cookie
        name, _ = self.remote_error(self.pp_call, 'HoldProfile', '(sss)', ('balanced', '', ''))
        self.assertEqual(name, 'org.freedesktop.DBus.Error.InvalidArgs')
        name, _ = self.remote_error(self.pp_call, 'ReleaseProfile', '(u)', (4242,))
        self.assertEqual(name, 'org.freedesktop.DBus.Error.InvalidArgs')
        # caller text is bounded, and escaped in the log
        name, _ = self.remote_error(self.pp_call, 'HoldProfile', '(sss)', ('performance', 'x' * 300, 'a'))
        self.assertEqual(name, 'org.powerpolicy1.Error.InvalidArgument')
        # bounded like the daemon's other holds (MaxInhibitorsPerUser=3)
        more = [self.pp_call('HoldProfile', '(sss)', ('performance', 'r', 'a'))[0] for _ in range(2)]
        name, message = self.remote_error(self.pp_call, 'HoldProfile', '(sss)', ('performance', 'r', 'a'))
        self.assertEqual(name, 'org.powerpolicy1.Error.Refused', message)
        # a manual choice releases every hold, each holder told
        self.pp_set('balanced')
        self.assertEqual(self.pp_get('ActiveProfileHolds'), [])
        self.assertEqual(self.pp_get('ActiveProfile'), 'balanced')
        wait_until(lambda: sorted(released) == sorted([saver, perf] + more), 5, 'ProfileReleased')
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'balanced')

    def test_holder_leaving_bus_releases(self):
        add_platform(self.laptop)
        self.start()
        other = Gio.DBusConnection.new_for_address_sync(
            self.bus_address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.pp_call('HoldProfile', '(sss)', ('power-saver', 'r', 'a'), bus=other)
        self.assertEqual(self.pp_get('ActiveProfile'), 'power-saver')
        other.close_sync(None)
        wait_until(lambda: self.pp_get('ActiveProfile') == 'balanced', 5, 'the hold to end')
        self.assertEqual(self.pp_get('ActiveProfileHolds'), [])
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'balanced')

    def test_no_knobs_no_performance(self):
        self.start()
        self.assertEqual([p['Profile'] for p in self.pp_get('Profiles')], ['power-saver', 'balanced'])
        self.assertEqual(self.pp_get('Profiles')[0]['PlatformDriver'], 'placeholder')
        name, _ = self.remote_error(self.pp_set, 'performance')
        self.assertEqual(name, 'org.freedesktop.DBus.Error.InvalidArgs')
        name, _ = self.remote_error(self.pp_call, 'HoldProfile', '(sss)', ('performance', '', ''))
        self.assertEqual(name, 'org.freedesktop.DBus.Error.InvalidArgs')
        self.pp_set('power-saver')
        self.assertEqual(self.attr(HUB, 'power/autosuspend_delay_ms'), '500')
        self.assertEqual(self.call('ExplainPlatform')[0], [])

    def test_quiet_firmware_mapped(self):
        # a firmware without low-power: power-saver's low-power maps to quiet
        add_platform(self.laptop, choices='quiet balanced balanced-performance', epp=False)
        self.start()
        self.assertEqual(self.pp_get('Profiles')[2]['CpuDriver'], 'placeholder')
        self.assertEqual(self.pp_get('Profiles')[2]['Driver'], 'platform_profile')
        self.pp_set('power-saver')
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'quiet')
        self.pp_set('performance')
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'balanced-performance')

    def test_platform_profile_class(self):
        # kernels with the platform-profile class and no usable firmware file
        dev = self.laptop.add('platform-profile', 'virtual/platform-profile/platform-profile-0', None,
                              ['profile', 'balanced', 'choices', 'cool balanced performance'], [])
        self.start()
        self.assertEqual(self.pp_get('Profiles')[2]['PlatformDriver'], 'platform_profile')
        self.pp_set('power-saver')
        self.assertEqual(self.attr(dev, 'profile'), 'cool')
        rows = self.call('ExplainPlatform')[0]
        self.assertEqual([r[0] for r in rows], [dev + '/profile'])
        self.pp_set('balanced')
        self.assertEqual(self.attr(dev, 'profile'), 'balanced')

    def test_dry_run(self):
        add_platform(self.laptop)
        d = self.start(args=['--dry-run'])
        self.pp_set('power-saver')
        self.assertEqual(self.pp_get('ActiveProfile'), 'power-saver')
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'balanced')
        self.assertEqual(self.laptop.read(EPP[0]), 'balance_performance')
        self.assertIn(PLATFORM_PROFILE, d.read_log())


class TestProfilesNames(ProfilesTestCase):

    def test_auto_leaves_owned_name_as_conflict(self):
        other = Gio.DBusConnection.new_for_address_sync(
            self.bus_address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        r = other.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                            'RequestName', GLib.Variant('(su)', (NAME, 4)), None,
                            Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        self.assertEqual(r, 1)
        self.start_daemon(config_text=CONFIG)
        self.wait_owned(LEGACY)

        def conflict():
            return [c for c in self.get_property('Conflicts') if NAME in c[1]]
        wait_until(lambda: conflict() != [], 5, 'a Conflicts row for the other owner')
        # it names the program (this test's python)
        self.assertIn('python', conflict()[0][0])
        # the other program's name stays its own; the daemon still serves
        self.assertEqual(self.call('ListChanges')[0] is not None, True)
        # when it leaves, the name is ours and the row goes
        other.close_sync(None)
        wait_until(lambda: conflict() == [], 5, 'the Conflicts row to go')
        self.assertEqual(self.pp_get('ActiveProfile'), 'balanced')

    def test_false_serves_nothing(self):
        self.start_daemon(config_text=CONFIG.replace('[Daemon]\n', '[Daemon]\nPowerProfiles=false\n'))
        self.assertFalse(self.has_owner(NAME))
        self.assertFalse(self.has_owner(LEGACY))
        self.assertEqual(self.get_property('PowerProfile'), 'balanced')

    def test_refused_caller(self):
        add_platform(self.laptop)
        polkit = self.start_polkit()
        self.start()
        script = os.path.join(tempfile.mkdtemp(prefix='pp-staged-'), 'set.py')
        os.chmod(os.path.dirname(script), 0o755)
        self.addCleanup(shutil.rmtree, os.path.dirname(script), True)
        with open(script, 'w') as f:
            f.write('''import sys, json
from gi.repository import GLib, Gio
bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
N, P = "%s", "%s"
try:
    if sys.argv[1] == "set":
        bus.call_sync(N, P, "org.freedesktop.DBus.Properties", "Set",
                      GLib.Variant("(ssv)", (N, "ActiveProfile", GLib.Variant("s", sys.argv[2]))),
                      None, 0, 5000, None)
    else:
        bus.call_sync(N, P, N, "HoldProfile", GLib.Variant("(sss)", (sys.argv[2], "r", "a")),
                      None, 0, 5000, None)
    print(json.dumps({"ok": True}))
except GLib.GError as e:
    print(json.dumps({"ok": False, "error": Gio.DBusError.get_remote_error(e)}))
''' % (NAME, PATH))
        os.chmod(script, 0o644)

        def as_nobody(*args):
            r = subprocess.run(['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups',
                                '/usr/bin/python3', script] + list(args),
                               env={'PATH': '/usr/bin:/bin', 'DBUS_SYSTEM_BUS_ADDRESS': self.bus_address},
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(r.returncode, 0, r.stderr)
            return json.loads(r.stdout)

        self.assertEqual(as_nobody('set', 'power-saver'),
                         {'ok': False, 'error': 'org.powerpolicy1.Error.NotAuthorized'})
        self.assertEqual(as_nobody('hold', 'power-saver'),
                         {'ok': False, 'error': 'org.powerpolicy1.Error.NotAuthorized'})
        self.assertEqual(self.pp_get('ActiveProfile'), 'balanced')
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'balanced')
        polkit.SetAllowed(['org.freedesktop.UPower.PowerProfiles.switch-profile'])
        self.assertEqual(as_nobody('set', 'power-saver'), {'ok': True})
        self.assertEqual(self.pp_get('ActiveProfile'), 'power-saver')


class TestProfilesPmctl(ProfilesTestCase):

    def pmctl(self, *args):
        # pmctl never runs inside the testbed: it reads nothing of /sys
        env = {'PATH': '/usr/bin:/bin', 'DBUS_SYSTEM_BUS_ADDRESS': self.bus_address, 'LANG': 'C.UTF-8'}
        return subprocess.run([os.path.join(BUILDDIR, 'src', 'pmctl')] + list(args), env=env,
                              capture_output=True, text=True, timeout=30)

    def test_profile_show_set_status_json(self):
        add_platform(self.laptop)
        self.start()
        r = self.pmctl('profile', 'power-saver')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'low-power')
        r = self.pmctl('profile')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('Profile\tpower-saver', r.stdout)
        self.assertIn('Offered\tpower-saver balanced performance', r.stdout)
        self.assertIn(PLATFORM_PROFILE + '\tlow-power\tlow-power\tpower-saver\t', r.stdout)
        js = json.loads(self.pmctl('--json', 'profile').stdout)
        self.assertEqual(js['profile'], 'power-saver')
        self.assertEqual([p['profile'] for p in js['profiles']], ['power-saver', 'balanced', 'performance'])
        self.assertEqual({p['attribute'] for p in js['platform']}, {PLATFORM_PROFILE} | set(EPP))
        r = self.pmctl('status')
        self.assertIn('PowerProfile\tpower-saver', r.stdout)
        self.assertEqual(json.loads(self.pmctl('--json', 'status').stdout)['PowerProfile'], 'power-saver')
        # usage errors and the refused
        r = self.pmctl('profile', 'turbo')
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn('unknown profile', r.stderr)
        r = self.pmctl('diff')
        self.assertIn('platform_profile', r.stdout)

    def test_profile_without_api(self):
        self.start_daemon(config_text=CONFIG.replace('[Daemon]\n', '[Daemon]\nPowerProfiles=false\n'))
        r = self.pmctl('profile')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('PowerProfiles=false', r.stdout)
        r = self.pmctl('profile', 'power-saver')
        self.assertEqual(r.returncode, 1)
        self.assertTrue(r.stderr.startswith('pmctl: '), r.stderr)


class TestPowerprofilesctl(ProfilesTestCase):
    """Debian's powerprofilesctl, from the power-profiles-daemon package's
    files (never installed, its daemon never run)."""

    def setUp(self):
        super().setUp()
        self.pkgdir = tempfile.mkdtemp(prefix='pp-ppd-')
        self.addCleanup(shutil.rmtree, self.pkgdir, True)
        os.chmod(self.pkgdir, 0o755)
        try:
            r = subprocess.run(['apt-get', 'download', 'power-profiles-daemon'], cwd=self.pkgdir,
                               capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise unittest.SkipTest('cannot run apt-get download: %s' % e)
        debs = glob.glob(os.path.join(self.pkgdir, 'power-profiles-daemon_*.deb'))
        if r.returncode != 0 or not debs:
            raise unittest.SkipTest('apt-get download power-profiles-daemon failed: %s' % r.stderr.strip())
        subprocess.run(['dpkg-deb', '-x', debs[0], os.path.join(self.pkgdir, 'x')], check=True)
        self.ctl = os.path.join(self.pkgdir, 'x', 'usr', 'bin', 'powerprofilesctl')
        if not os.path.exists(self.ctl):
            raise unittest.SkipTest('the package has no usr/bin/powerprofilesctl')

    def ctl_run(self, *args):
        r = subprocess.run(['/usr/bin/python3', self.ctl] + list(args),
                           env={'PATH': '/usr/bin:/bin', 'DBUS_SYSTEM_BUS_ADDRESS': self.bus_address,
                                'LANG': 'C.UTF-8'},
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return r.stdout

    def test_list_get_set_launch(self):
        add_platform(self.laptop)
        self.start()
        out = self.ctl_run('list')
        self.assertIn('* balanced:', out)
        self.assertIn('  performance:', out)
        self.assertIn('  power-saver:', out)
        self.assertEqual(self.ctl_run('get').strip(), 'balanced')
        self.ctl_run('set', 'power-saver')
        self.assertEqual(self.ctl_run('get').strip(), 'power-saver')
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'low-power')
        self.assertIn('* power-saver:', self.ctl_run('list'))
        # launch: the command runs while performance is held
        seen = os.path.join(self.pkgdir, 'seen')
        self.ctl_run('set', 'balanced')
        self.ctl_run('launch', '-p', 'performance', '-r', 'test', '--',
                     'cp', self.laptop.path(PLATFORM_PROFILE), seen)
        with open(seen) as f:
            self.assertEqual(f.read().strip(), 'performance')
        self.assertEqual(self.ctl_run('get').strip(), 'balanced')
        self.assertEqual(self.laptop.read(PLATFORM_PROFILE), 'balanced')


if __name__ == '__main__':
    main()
