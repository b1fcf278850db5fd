#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System tests: the class cascade, the low-battery layer and the shipped
safety defaults (issue 19).

[Class SUBSYSTEM] sections reach classified devices and [Class CLASS]
refines them, layer by layer; Explain names the section and line that
won. The :low-battery layers apply on battery at or below
LowBatteryPercent=, from the system batteries' combined energy, followed
through the power_supply "change" uevents the kernel sends as the charge
moves (LowBattery property, PropertiesChanged, pmctl status). The
shipped configuration keeps every safety class on against a drop-in that
wants all USB devices autosuspended.
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ppharness import (  # noqa: E402
    line_of, BUILDDIR, HUB, PCI, PowerPolicyTestCase, main, usb_attrs, wait_until,
)

PMCTL = os.path.join(BUILDDIR, 'src', 'pmctl')
POWERPOLICYD = os.path.join(BUILDDIR, 'src', 'powerpolicyd')
HERE = os.path.dirname(os.path.abspath(__file__))
SHIPPED_CONFIG = os.path.join(HERE, '..', '..', 'data', 'powerpolicy.conf')
BAT1 = '/sys/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/PNP0C0A:01/power_supply/BAT1'
GPU = PCI + '/0000:01:00.0'

CONFIG = """\
[Daemon]
IdleTimeoutSec=0
LowBatteryPercent=20

[Class usb]
Control=auto
AutosuspendDelayMs=2000
[Class usb:battery]
AutosuspendDelayMs=1000
[Class usb:low-battery]
AutosuspendDelayMs=250

[Class webcam]
AutosuspendDelayMs=700
[Class webcam:low-battery]
AutosuspendDelayMs=100

[Class usb-hid]
Control=on
[Class usb-hid:battery]
Control=on
[Class usb-hid:low-battery]
Control=on

[Class pci]
Control=on
ExcludeDrivers=amdgpu
[Class pci:battery]
Control=auto

[Class pci-gpu]
Control=auto
"""



class CascadeTestCase(PowerPolicyTestCase):

    def setUp(self):
        super().setUp()
        lt = self.laptop
        self.webcam = lt.add_usb(lt.hub, '1-1.5', 'webcam', control='on', delay='2000')
        self.other = lt.add_usb(lt.hub, '1-1.6', None, control='on', delay='2000')
        # a battery as ACPI reports it: energy in µWh, 50% charged
        self.set_battery(lt.bat, 50, 25000000, 50000000)

    def set_battery(self, bat, capacity, energy_now, energy_full, uevent=False):
        tb = self.laptop.tb
        tb.set_attribute(bat, 'capacity', str(capacity))
        tb.set_attribute(bat, 'energy_now', str(energy_now))
        tb.set_attribute(bat, 'energy_full', str(energy_full))
        if uevent:
            tb.uevent(bat, 'change')

    def origin(self, config, section, line):
        return '%s:%d [%s]' % (self.daemon.config_path, line_of(config, section, line), section)

    def rows(self, device):
        return {r[0]: tuple(r[1:]) for r in self.call('Explain', (device,), '(s)')[0]}

    def wait_property(self, name, value):
        wait_until(lambda: self.get_property(name) == value, 5, '%s == %r' % (name, value))

    def pmctl(self, *args):
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.bus_address)
        return subprocess.run([PMCTL] + list(args), env=env, capture_output=True, text=True,
                              timeout=30)


class TestCascade(CascadeTestCase):

    def test_subsystem_reaches_classified_device(self):
        self.daemon = self.start_daemon(config_text=CONFIG)
        # [Class usb] Control=auto reaches the webcam; [Class webcam] refines the delay
        self.wait_attr(self.webcam, 'power/control', 'auto')
        self.assertEqual(self.attr(self.webcam, 'power/autosuspend_delay_ms'), '700')
        # a device of no class of its own reads [Class usb] alone
        self.wait_attr(self.other, 'power/control', 'auto')
        self.assertEqual(self.attr(self.other, 'power/autosuspend_delay_ms'), '2000')
        rows = self.rows(self.webcam)
        self.assertEqual(rows['power/control'],
                         ('auto', 'auto', 'class', self.origin(CONFIG, 'Class usb', 'Control=auto')))
        self.assertEqual(rows['power/autosuspend_delay_ms'],
                         ('700', '700', 'class',
                          self.origin(CONFIG, 'Class webcam', 'AutosuspendDelayMs=700')))
        self.assertEqual(rows['power/wakeup'][1:3], ('', 'own'))
        self.assertEqual(rows['power/wakeup'][3], 'not set by [Class usb] or [Class webcam]')

    def test_subsystem_battery_layer_beats_class_base(self):
        """For each layer, the subsystem first, then the class: on battery
        [Class usb:battery] beats the base section [Class webcam]."""
        self.laptop.tb.set_attribute(self.laptop.ac, 'online', '0')
        self.daemon = self.start_daemon(config_text=CONFIG)
        self.wait_attr(self.webcam, 'power/autosuspend_delay_ms', '1000')
        self.assertEqual(self.rows(self.webcam)['power/autosuspend_delay_ms'],
                         ('1000', '1000', 'battery',
                          self.origin(CONFIG, 'Class usb:battery', 'AutosuspendDelayMs=1000')))
        # the mouse pins Control=on in every layer
        self.assertEqual(self.attr(self.laptop.mouse, 'power/control'), 'on')

    def test_excluded_driver_cascades(self):
        gpu = self.laptop.add('pci', 'pci0000:00/0000:01:00.0', None,
                              ['power/control', 'on', 'power/runtime_status', 'active',
                               'class', '0x030000'],
                              ['POWERPOLICY_CLASS', 'pci-gpu', 'DRIVER', 'amdgpu'])
        self.assertEqual(gpu, GPU)
        self.laptop.tb.set_attribute_link(gpu, 'driver', '../../../bus/pci/drivers/amdgpu')
        self.daemon = self.start_daemon(config_text=CONFIG)
        rows = self.rows(GPU)
        where = '%s:%d [Class pci]' % (self.daemon.config_path,
                                       line_of(CONFIG, 'Class pci', 'ExcludeDrivers=amdgpu'))
        self.assertEqual(rows['power/control'],
                         ('on', '', 'excluded', 'driver amdgpu excluded by ' + where))
        self.assertEqual(self.attr(GPU, 'power/control'), 'on')
        # another driver bound: [Class pci-gpu] applies
        os.unlink(self.laptop.path(GPU + '/driver'))
        self.laptop.tb.set_attribute_link(gpu, 'driver', '../../../bus/pci/drivers/vfio-pci')
        self.laptop.tb.set_property(GPU, 'DRIVER', 'vfio-pci')
        self.laptop.tb.uevent(GPU, 'bind')
        self.wait_attr(GPU, 'power/control', 'auto')
        self.assertEqual(self.rows(GPU)['power/control'][2], 'class')


class TestLowBattery(CascadeTestCase):

    def test_enter_and_leave_through_change_uevents(self):
        lt = self.laptop
        self.daemon = self.start_daemon(config_text=CONFIG)
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        self.assertFalse(self.get_property('LowBattery'))
        # low charge on AC: no low-battery layer
        self.set_battery(lt.bat, 10, 5000000, 50000000, uevent=True)
        self.wait_attr(self.other, 'power/autosuspend_delay_ms', '2000')
        self.assertFalse(self.get_property('LowBattery'))

        lt.set_ac(False)
        self.wait_property('LowBattery', True)
        self.wait_attr(self.other, 'power/autosuspend_delay_ms', '250')
        self.wait_attr(self.webcam, 'power/autosuspend_delay_ms', '100')
        wait_until(lambda: any(s[0] == 'PropertiesChanged' and s[1][1].get('LowBattery') is True
                               for s in self.signals), 5, 'PropertiesChanged(LowBattery=true)')
        self.assertEqual(self.rows(self.webcam)['power/autosuspend_delay_ms'],
                         ('100', '100', 'low-battery',
                          self.origin(CONFIG, 'Class webcam:low-battery', 'AutosuspendDelayMs=100')))
        out = self.pmctl('status')
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, r'LowBattery\W+(yes|true)')
        out = self.pmctl('--json', 'status')
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn('true', json.dumps(json.loads(out.stdout)).split('LowBattery')[1][:12])

        # charging back above the threshold (still on battery): the layer goes
        self.set_battery(lt.bat, 21, 10500000, 50000000, uevent=True)
        self.wait_property('LowBattery', False)
        self.wait_attr(self.other, 'power/autosuspend_delay_ms', '1000')
        self.wait_attr(self.webcam, 'power/autosuspend_delay_ms', '1000')
        wait_until(lambda: any(s[0] == 'PropertiesChanged' and s[1][1].get('LowBattery') is False
                               for s in self.signals), 5, 'PropertiesChanged(LowBattery=false)')
        # exactly at the threshold: low (at or below)
        self.set_battery(lt.bat, 20, 10000000, 50000000, uevent=True)
        self.wait_property('LowBattery', True)
        # AC again: not low whatever the charge
        lt.set_ac(True)
        self.wait_property('LowBattery', False)
        self.wait_attr(self.other, 'power/autosuspend_delay_ms', '2000')
        self.assertIn('Low battery: yes', self.daemon.read_log())

    def test_combined_energy_of_two_batteries(self):
        lt = self.laptop
        # a ThinkPad's internal 24 Wh battery at 10% and its external 72 Wh
        # one at 90%: 70% together, not low (the mean of the percentages
        # would not be either, but the internal one alone would be)
        self.set_battery(lt.bat, 10, 2400000, 24000000)
        bat1 = lt.add('power_supply', 'LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/PNP0C0A:01/power_supply/BAT1',
                      None, ['type', 'Battery', 'present', '1', 'scope', 'System',
                             'status', 'Discharging', 'capacity', '90',
                             'energy_now', '64800000', 'energy_full', '72000000'], [])
        self.assertEqual(bat1, BAT1)
        lt.tb.set_attribute(lt.ac, 'online', '0')
        self.daemon = self.start_daemon(config_text=CONFIG)
        self.assertTrue(self.get_property('OnBattery'))
        self.assertFalse(self.get_property('LowBattery'))
        self.assertEqual(self.attr(self.other, 'power/autosuspend_delay_ms'), '1000')
        # the external one drains to 20%: (2.4 + 14.4) / 96 = 17.5%
        self.set_battery(bat1, 20, 14400000, 72000000, uevent=True)
        self.wait_property('LowBattery', True)
        self.wait_attr(self.other, 'power/autosuspend_delay_ms', '250')

    def test_threshold_follows_reload(self):
        lt = self.laptop
        self.set_battery(lt.bat, 30, 15000000, 50000000)
        lt.tb.set_attribute(lt.ac, 'online', '0')
        self.daemon = self.start_daemon(config_text=CONFIG)
        self.assertFalse(self.get_property('LowBattery'))
        with open(self.daemon.config_path, 'w') as f:
            f.write(CONFIG.replace('LowBatteryPercent=20', 'LowBatteryPercent=35'))
        self.call('Reload')
        self.wait_property('LowBattery', True)
        self.wait_attr(self.other, 'power/autosuspend_delay_ms', '250')

    def test_bad_percent_reported(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, 'powerpolicy.conf')
            with open(path, 'w') as f:
                f.write('[Daemon]\nLowBatteryPercent=120\n')
            out = subprocess.run([POWERPOLICYD, '--check-config', '--config', path],
                                 capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 1)
        self.assertIn("%s:2: invalid value '120' for LowBatteryPercent (expected a battery "
                      "charge in percent, 0 to 100)" % path, out.stdout + out.stderr)


class TestShippedSafety(CascadeTestCase):

    # the classes with a named hazard: a device of each, initially
    # allowed to suspend
    SAFETY = ('usb-hid', 'usb-keyboard', 'usb-mouse', 'usb-audio',
              'printer', 'phone', 'usb-serial')
    # the classes that keep their own value: a device of each, initially
    # on (as the kernel leaves a controller whose driver did not enable
    # autosuspend)
    OWN = ('bluetooth', 'scanner', 'smartcard')

    def test_safety_classes_stay_on(self):
        """The shipped file plus a drop-in that wants every USB device
        autosuspended, in every layer: each safety class stays on, each
        own-value class keeps its own value, on AC, on battery and low on
        battery; a plain USB device does suspend."""
        lt = self.laptop
        devices = {}
        own = {}
        for n, klass in enumerate(self.SAFETY + self.OWN):
            initial = 'on' if klass in self.OWN else 'auto'
            dev = lt.add('usb', '1-1.%d' % (10 + n), HUB,
                         usb_attrs(initial, '2000') + ['busnum', '1'],
                         ['DEVTYPE', 'usb_device', 'POWERPOLICY_CLASS', klass])
            (own if klass in self.OWN else devices)[klass] = dev
        with open(SHIPPED_CONFIG) as f:
            shipped = f.read()
        d = self.new_daemon(config_text=shipped)
        os.makedirs(d.config_path + '.d')
        with open(os.path.join(d.config_path + '.d', '50-usb.conf'), 'w') as f:
            f.write('[Daemon]\nIdleTimeoutSec=0\n'
                    '[Class usb]\nControl=auto\n[Class usb:battery]\nControl=auto\n'
                    '[Class usb:low-battery]\nControl=auto\n[Class usb:idle]\nControl=auto\n')
        d.start()
        self.wait_for_name()
        self.daemon = d

        def check(situation):
            for klass, dev in devices.items():
                self.wait_attr(dev, 'power/control', 'on')
                layer = self.rows(dev)['power/control'][2]
                self.assertIn(layer, ('class', 'battery', 'low-battery'), (klass, situation))
            self.wait_attr(self.other, 'power/control', 'auto')
            # the pass that reached the plain device has decided these too
            for klass, dev in own.items():
                self.assertEqual(self.attr(dev, 'power/control'), 'on', (klass, situation))

        check('ac')
        lt.set_ac(False)
        self.wait_property('OnBattery', True)
        check('battery')
        self.set_battery(lt.bat, 5, 2500000, 50000000, uevent=True)
        self.wait_property('LowBattery', True)
        check('low-battery')


if __name__ == '__main__':
    main()
