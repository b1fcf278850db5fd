#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System tests of the D-Bus surface: overrides, authorization, errors (issue 3)."""

import configparser
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ppharness import (  # noqa: E402
    HDA, HUB, MOUSE, SCSI_HOST, STORAGE, XHCI,
    PowerPolicyTestCase, main, wait_until,
)

NSD = 'org.powerpolicy1.Error.NoSuchDevice'
INV = 'org.powerpolicy1.Error.InvalidArgument'
NAU = 'org.powerpolicy1.Error.NotAuthorized'
REF = 'org.powerpolicy1.Error.Refused'
FAI = 'org.powerpolicy1.Error.Failed'
NSU = 'org.powerpolicy1.Error.NotSupported'


def overrides_file(d):
    return os.path.join(d.state_dir, 'overrides')


class TestOverrides(PowerPolicyTestCase):

    def test_set_and_clear(self):
        self.start_daemon()
        self.subscribe('DeviceChanged')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.call('SetOverride', ('1-1.2', 'Control', 'on'), '(sss)')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')
        wait_until(lambda: any(s[1][0] == STORAGE and s[1][1].get('control') == 'on'
                               for s in self.signals), 5, 'DeviceChanged(control=on)')
        self.call('SetOverride', (STORAGE, 'AutosuspendDelayMs', '123'), '(sss)')
        self.call('SetOverride', ('/sys/bus/usb/devices/1-1.2', 'Wakeup', 'enabled'), '(sss)')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '123')
        self.assertEqual(self.attr(STORAGE, 'power/wakeup'), 'enabled')
        # override beats the udev property layer, which beats the class
        info = self.call('GetDevice', ('1-1.2',), '(s)')[0]
        self.assertEqual((info['control'], info['autosuspend_delay_ms'], info['wakeup']),
                         ('on', 123, 'enabled'))

        self.call('ClearOverrides', ('1-1.2',), '(s)')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')
        # no layer sets wakeup: the original comes back
        self.assertEqual(self.attr(STORAGE, 'power/wakeup'), 'disabled')

    def test_override_beats_udev_property(self):
        self.laptop.tb.set_property(STORAGE, 'POWERPOLICY_AUTOSUSPEND', '0')
        self.start_daemon()
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')
        self.call('SetOverride', ('1-1.2', 'Control', 'auto'), '(sss)')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')

    def test_override_survives_battery_switch_and_restart(self):
        d = self.start_daemon()
        self.call('SetOverride', ('0000:00:1f.3', 'Control', 'on'), '(sss)')
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        self.laptop.set_ac(False)
        self.wait_attr(XHCI, 'power/control', 'auto')
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')

        cp = configparser.ConfigParser()
        cp.optionxform = str
        cp.read(overrides_file(d))
        self.assertEqual(cp[HDA]['Control'], 'on')

        self.assertEqual(d.stop(), 0)
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')   # original was on
        self.laptop.write(HDA + '/power/control', 'auto')
        self.start_daemon(workdir=d.workdir)
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        self.call('ClearOverrides', (HDA,), '(s)')
        self.assertNotIn(HDA, open(overrides_file(d)).read())

    def test_device_name_with_brackets_survives_restart(self):
        # a name GKeyFile cannot take as a group name (issue 14)
        dev = self.laptop.add('platform', 'platform/odd[1]:x', None,
                              ['power/control', 'auto', 'power/runtime_status', 'active'],
                              ['POWERPOLICY_CLASS', 'odd'])  # tagged by the rules
        d = self.start_daemon()
        self.call('SetOverride', (dev, 'Control', 'on'), '(sss)')
        self.assertEqual(self.attr(dev, 'power/control'), 'on')
        text = open(overrides_file(d)).read()
        self.assertIn('[escaped:/sys/devices/platform/odd%5B1%5D:x]', text)
        # an earlier version's file, a plain path as group, still reads
        with open(overrides_file(d), 'a') as f:
            f.write('\n[%s]\nControl=on\n' % HDA)
        self.assertEqual(d.stop(), 0)
        self.assertEqual(self.attr(dev, 'power/control'), 'auto')
        self.start_daemon(workdir=d.workdir)
        self.assertEqual(self.attr(dev, 'power/control'), 'on')
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        self.assertNotIn('corrupt', self.daemons[-1].read_log())

    def test_bad_arguments(self):
        self.start_daemon()
        self.assertDBusError(INV, 'SetOverride', ('1-1.2', 'Bogus', 'on'), '(sss)')
        self.assertDBusError(INV, 'SetOverride', ('1-1.2', 'power/control', 'on'), '(sss)')
        self.assertDBusError(INV, 'SetOverride', ('1-1.2', 'Control', 'sometimes'), '(sss)')
        self.assertDBusError(INV, 'SetOverride', ('1-1.2', 'AutosuspendDelayMs', '-5'), '(sss)')
        self.assertDBusError(INV, 'SetOverride', ('1-1.2', 'AutosuspendDelayMs', '1e3'), '(sss)')
        self.assertDBusError(INV, 'SetOverride', ('1-1.2', 'Wakeup', ''), '(sss)')
        self.assertDBusError(INV, 'SetOverride', ('', 'Control', 'on'), '(sss)')
        self.assertDBusError(INV, 'SetOverride', ('a' * 5000, 'Control', 'on'), '(sss)')
        self.assertDBusError(INV, 'SetOverride', (STORAGE + '/../1-1.1', 'Control', 'auto'), '(sss)')
        self.assertDBusError(INV, 'SetOverride', ('../../etc', 'Control', 'auto'), '(sss)')
        self.assertDBusError(NSD, 'SetOverride', ('9-9', 'Control', 'on'), '(sss)')
        self.assertDBusError(NSD, 'SetOverride', ('/sys/devices/virtual/nope', 'Control', 'on'), '(sss)')
        self.assertDBusError(NSD, 'SetOverride', ('/tmp', 'Control', 'on'), '(sss)')
        self.assertDBusError(NSD, 'ClearOverrides', ('9-9',), '(s)')
        # a symlink that leads out of /sys/devices
        os.makedirs(self.laptop.path('/sys/class/evil'), exist_ok=True)
        os.symlink('/sys/module/snd_hda_intel', self.laptop.path('/sys/class/evil/link'))
        self.assertDBusError(NSD, 'SetOverride', ('/sys/class/evil/link', 'Control', 'on'), '(sss)')
        # the device lacks the attribute
        self.assertDBusError(NSU, 'SetOverride', (SCSI_HOST, 'Control', 'on'), '(sss)')
        # nothing was written or persisted by any of that
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.assertEqual(self.attr(MOUSE, 'power/control'), 'on')
        self.assertFalse(os.path.exists(overrides_file(self.daemons[0])))

    def test_ignored_device_refused(self):
        self.laptop.tb.set_property(STORAGE, 'POWERPOLICY_IGNORE', '1')
        self.start_daemon()
        self.assertDBusError(REF, 'SetOverride', ('1-1.2', 'Control', 'auto'), '(sss)')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')

    def test_failed_write_takes_override_back(self):
        d = self.start_daemon()
        failures = self.get_property('WriteFailures')
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        target = self.laptop.path(HUB + '/power/wakeup')
        os.unlink(target)
        os.mkdir(target)
        err = self.assertDBusError(FAI, 'SetOverride', ('1-1', 'Wakeup', 'enabled'), '(sss)')
        self.assertIn('power/wakeup', err.message)
        # counted, and announced once with the new value
        self.assertEqual(self.get_property('WriteFailures'), failures + 1)
        wait_until(lambda: [s for s in self.signals if 'WriteFailures' in s[1][1]], 5,
                   'PropertiesChanged(WriteFailures)')
        self.assertEqual([s[1][1]['WriteFailures'] for s in self.signals
                          if 'WriteFailures' in s[1][1]], [failures + 1])
        self.assertFalse(os.path.exists(overrides_file(d)) and HUB in open(overrides_file(d)).read())
        # the daemon is fine and other overrides work
        self.call('SetOverride', ('1-1', 'Control', 'on'), '(sss)')
        self.assertEqual(self.attr(HUB, 'power/control'), 'on')

    def test_corrupt_state_file(self):
        d = self.new_daemon()
        os.makedirs(d.state_dir)
        with open(overrides_file(d), 'w') as f:
            f.write('[/sys/devices/x\nControl=on\n\x01garbage')
        d.start()
        self.wait_for_name()
        self.assertIn('is corrupt', d.read_log())
        aside = [n for n in os.listdir(d.state_dir) if n.startswith('overrides.corrupt-')]
        self.assertEqual(len(aside), 1)
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.call('SetOverride', ('1-1.2', 'Control', 'on'), '(sss)')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')

    def test_override_for_absent_device_applies_on_hotplug(self):
        d = self.new_daemon()
        os.makedirs(d.state_dir)
        newdev = HUB + '/1-1.3'
        with open(overrides_file(d), 'w') as f:
            f.write('[%s]\nControl=on\n' % newdev)
        d.start()
        self.wait_for_name()
        dev = self.laptop.add_usb(HUB, '1-1.3', 'usb-storage', control='auto')
        self.laptop.tb.uevent(dev, 'add')
        # power/control is written last in a device's pass
        self.wait_attr(dev, 'power/control', 'on')
        self.assertEqual(self.attr(dev, 'power/autosuspend_delay_ms'), '5000')

    def test_list_inhibitors_empty(self):
        self.start_daemon()
        self.assertEqual(self.call('ListInhibitors')[0], [])


class TestAuthorization(PowerPolicyTestCase):

    def test_read_only_calls_open_to_everyone(self):
        self.start_daemon()
        r = self.call_as('nobody', 'ListDevices')
        self.assertTrue(r['ok'], r)
        self.assertIn(STORAGE, [d['path'] for d in r['result'][0]])
        r = self.call_as('nobody', 'GetDevice', '(s)', ['1-1.2'])
        self.assertTrue(r['ok'], r)

    def test_no_polkit_only_root(self):
        self.start_daemon()
        r = self.call_as('nobody', 'SetOverride', '(sss)', ['1-1.2', 'Control', 'on'])
        self.assertEqual(r['error'], NAU, r)
        self.assertIn('polkit is not running', r['message'])
        r = self.call_as('nobody', 'Reload')
        self.assertEqual(r['error'], NAU, r)
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')

    def test_polkit_denied(self):
        self.start_polkit()
        self.start_daemon()
        r = self.call_as('nobody', 'SetOverride', '(sss)', ['1-1.2', 'Control', 'on'])
        self.assertEqual(r['error'], NAU, r)
        r = self.call_as('nobody', 'ClearOverrides', '(s)', ['1-1.2'])
        self.assertEqual(r['error'], NAU, r)
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')

    def test_polkit_allowed(self):
        polkit = self.start_polkit()
        polkit.SetAllowed(['org.powerpolicy1.manage'])
        self.start_daemon()
        r = self.call_as('nobody', 'SetOverride', '(sss)', ['1-1.2', 'Control', 'on'])
        self.assertTrue(r['ok'], r)
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')
        r = self.call_as('nobody', 'Reload')
        self.assertTrue(r['ok'], r)
        # the unknown-action case stays denied
        polkit.SetAllowed(['org.powerpolicy1.sleep'])
        r = self.call_as('nobody', 'ClearOverrides', '(s)', ['1-1.2'])
        self.assertEqual(r['error'], NAU, r)

    def test_polkit_hang_is_bounded_and_loop_stays_responsive(self):
        polkit = self.start_polkit()
        polkit.SetAllowed(['org.powerpolicy1.manage'])
        polkit.SimulateHang(True)
        self.start_daemon()
        import subprocess
        from ppharness import PPCALL
        import json
        env = {'PATH': '/usr/bin:/bin', 'DBUS_SYSTEM_BUS_ADDRESS': self.bus_address}
        start = time.monotonic()
        ppcall = self.staged_for_others(PPCALL)[PPCALL]
        proc = subprocess.Popen(['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups',
                                 '/usr/bin/python3', ppcall, 'SetOverride', '(sss)',
                                 json.dumps(['1-1.2', 'Control', 'on'])],
                                env=env, stdout=subprocess.PIPE, text=True)
        wait_until(lambda: polkit.HaveHangingCalls(), 10, 'the daemon to ask polkit')
        # while polkit hangs the daemon keeps answering
        t0 = time.monotonic()
        self.call('ListDevices')
        self.assertLess(time.monotonic() - t0, 2.0)
        out, _ = proc.communicate(timeout=30)
        r = json.loads(out)
        self.assertEqual(r['error'], NAU, r)
        self.assertIn('did not answer', r['message'])
        self.assertLess(time.monotonic() - start, 20)
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')

    def test_root_needs_no_polkit(self):
        self.start_polkit()   # denies everything
        self.start_daemon()
        self.call('SetOverride', ('1-1.2', 'Control', 'on'), '(sss)')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')


if __name__ == '__main__':
    main()
