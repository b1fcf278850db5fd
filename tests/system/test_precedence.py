#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System tests of issue 26: the hwdb's device knowledge above every class
layer, an empty assignment as the device's own value (written back when the
layer that changed it ends, also across a restart), [Daemon] PowerSource=,
and power supplies that appear by a "change" uevent only (the kernel's ACPI
ac and battery drivers send no "add").

The hwdb-listed device is modelled on the Fibocom L850 (2cb7:0007, WWAN),
which systemd's 60-autosuspend-chromiumos.hwdb lists with
ID_AUTOSUSPEND=1 and ID_AUTOSUSPEND_DELAY_MS=7000.
"""

import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ppharness import (  # noqa: E402
    AC, BAT, BUILDDIR, HDA, HUB, POWER_SAVE, STORAGE, TEST_CONFIG, XHCI,
    PowerPolicyTestCase, line_of, main, wait_until,
)

PMCTL = os.path.join(BUILDDIR, 'src', 'pmctl')

# a class that forces power/control=on in every layer (as the shipped
# wwan class did), and a shorter delay on battery than the hwdb's
HWDB_CONFIG = TEST_CONFIG + """
[Class wwan]
Control=on
AutosuspendDelayMs=2000
[Class wwan:battery]
Control=on
AutosuspendDelayMs=1000
"""

# the audio controller: its own value on AC, runtime PM on battery
OWN_CONFIG = TEST_CONFIG.replace('[Class pci-audio]\nControl=auto\n',
                                 '[Class pci-audio]\nControl=\n'
                                 '[Class pci-audio:battery]\nControl=auto\n', 1)
assert OWN_CONFIG != TEST_CONFIG


class PrecedenceTestCase(PowerPolicyTestCase):

    def explain(self, device):
        """{attribute: (current, decided, layer, origin)}"""
        return {r[0]: tuple(r[1:]) for r in self.call('Explain', (device,), '(s)')[0]}

    def origin(self, d, config, section, line):
        return '%s:%d [%s]' % (d.config_path, line_of(config, section, line), section)

    def pmctl(self, *args):
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.bus_address)
        p = subprocess.run([PMCTL] + list(args), env=env, capture_output=True, text=True,
                           timeout=30)
        return p.returncode, p.stdout, p.stderr

    def remove_supplies(self):
        """A machine whose power supplies udev does not report (a desktop on
        a UPS, a virtual machine)."""
        for dev in (self.laptop.ac, self.laptop.bat):
            self.laptop.tb.remove_device(dev)


class TestHwdb(PrecedenceTestCase):

    def add_modem(self, extra_props=()):
        # udev's 60-autosuspend.rules already set it auto from the hwdb
        return self.laptop.add_usb(HUB, '1-1.3', 'wwan', control='auto', delay='2000',
                                   extra_props=['ID_AUTOSUSPEND', '1',
                                                'ID_AUTOSUSPEND_DELAY_MS', '7000'] +
                                   list(extra_props))

    def test_hwdb_listed_device_stays_auto_above_class(self):
        modem = self.add_modem()
        self.start_daemon(config_text=HWDB_CONFIG)
        self.wait_attr(modem, 'power/autosuspend_delay_ms', '7000')
        self.assertEqual(self.attr(modem, 'power/control'), 'auto')
        rows = self.explain(modem)
        self.assertEqual(rows['power/control'], ('auto', 'auto', 'hwdb', 'ID_AUTOSUSPEND=1'))
        self.assertEqual(rows['power/autosuspend_delay_ms'],
                         ('7000', '7000', 'hwdb', 'ID_AUTOSUSPEND_DELAY_MS=7000'))

        # on battery: the class's 1000 ms is shorter than the model's safe
        # minimum and does not apply either
        self.laptop.set_ac(False)
        wait_until(lambda: self.get_property('OnBattery'), 5, 'OnBattery')
        self.wait_attr(STORAGE, 'power/autosuspend_delay_ms', '2000')
        wait_until(lambda: self.laptop.read(POWER_SAVE) == '1', 5, 'the battery pass to end')
        self.assertEqual(self.attr(modem, 'power/control'), 'auto')
        self.assertEqual(self.attr(modem, 'power/autosuspend_delay_ms'), '7000')
        self.assertEqual(self.explain(modem)['power/autosuspend_delay_ms'][2], 'hwdb')

    def test_administrator_property_above_hwdb(self):
        modem = self.add_modem(['POWERPOLICY_AUTOSUSPEND', '0'])
        self.start_daemon(config_text=HWDB_CONFIG)
        self.wait_attr(modem, 'power/control', 'on')
        self.assertEqual(self.explain(modem)['power/control'],
                         ('on', 'on', 'udev', 'POWERPOLICY_AUTOSUSPEND=0'))

    def test_override_above_hwdb_and_back(self):
        modem = self.add_modem()
        self.start_daemon(config_text=HWDB_CONFIG)
        self.wait_attr(modem, 'power/autosuspend_delay_ms', '7000')
        self.call('SetOverride', (modem, 'Control', 'on'), '(sss)')
        self.wait_attr(modem, 'power/control', 'on')
        self.assertEqual(self.explain(modem)['power/control'][2], 'override')
        self.call('ClearOverrides', (modem,), '(s)')
        self.wait_attr(modem, 'power/control', 'auto')
        self.assertEqual(self.explain(modem)['power/control'][2], 'hwdb')


class TestOwnValue(PrecedenceTestCase):

    def test_battery_value_back_to_own_value_on_ac(self):
        d = self.start_daemon(config_text=OWN_CONFIG)
        # on AC nothing decides the audio controller's control
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        self.assertEqual(self.explain(HDA)['power/control'][1:3], ('', 'own'))

        self.laptop.set_ac(False)
        self.wait_attr(HDA, 'power/control', 'auto')

        self.laptop.set_ac(True)
        self.wait_attr(HDA, 'power/control', 'on')
        self.assertEqual(self.laptop.read(HDA + '/power/control'), 'on')
        self.assertEqual(self.explain(HDA)['power/control'],
                         ('on', 'on', 'own',
                          self.origin(d, OWN_CONFIG, 'Class pci-audio', 'Control=')))

    def test_override_ended_back_to_own_value(self):
        self.start_daemon(config_text=OWN_CONFIG)
        self.call('SetOverride', (HDA, 'Control', 'auto'), '(sss)')
        self.wait_attr(HDA, 'power/control', 'auto')
        self.call('ClearOverrides', (HDA,), '(s)')
        self.wait_attr(HDA, 'power/control', 'on')
        self.assertEqual(self.explain(HDA)['power/control'][1:3], ('on', 'own'))

    def test_own_value_known_across_restart(self):
        """RestoreOnExit=false leaves the battery values in place; the next
        run still knows the device's own value and writes it back on AC."""
        config = OWN_CONFIG.replace('RestoreOnExit=true', 'RestoreOnExit=false', 1)
        self.laptop.tb.set_attribute(self.laptop.ac, 'online', '0')
        d = self.start_daemon(config_text=config)
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        self.assertEqual(d.stop(signal.SIGTERM), 0)
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')

        # back on AC while no daemon runs
        self.laptop.tb.set_attribute(self.laptop.ac, 'online', '1')
        d2 = self.start_daemon(workdir=d.workdir, config_text=config)
        self.wait_attr(HDA, 'power/control', 'on')
        self.assertEqual(self.explain(HDA)['power/control'][1:3], ('on', 'own'))
        self.assertNotIn('did not exit cleanly', d2.read_log())
        # what the first run changed and no layer sets now goes back too
        self.assertEqual(d2.stop(signal.SIGTERM), 0)

    def test_attribute_no_layer_mentions_goes_back_after_restart(self):
        """An attribute only the :battery layer sets: after a restart on AC
        (RestoreOnExit=false) it gets its own value back."""
        base = TEST_CONFIG.replace('RestoreOnExit=true', 'RestoreOnExit=false', 1)
        self.laptop.tb.set_attribute(self.laptop.ac, 'online', '0')
        d = self.start_daemon(config_text=base)
        self.assertEqual(self.attr(XHCI, 'power/control'), 'auto')
        self.assertEqual(d.stop(signal.SIGTERM), 0)
        self.laptop.tb.set_attribute(self.laptop.ac, 'online', '1')
        # the second run's policy leaves the xHCI controller's control alone
        config = base.replace('[Class pci]\nControl=on\n[Class pci:battery]\nControl=auto\n', '', 1)
        self.assertNotEqual(config, base)
        d2 = self.start_daemon(workdir=d.workdir, config_text=config)
        self.wait_attr(XHCI, 'power/control', 'on')
        self.assertEqual(d2.stop(signal.SIGTERM), 0)


class TestPowerSourceConfig(PrecedenceTestCase):

    def test_forced_battery_without_battery(self):
        self.remove_supplies()
        config = TEST_CONFIG.replace('[Daemon]\n', '[Daemon]\nPowerSource=battery\n', 1)
        d = self.start_daemon(config_text=config)
        self.assertTrue(self.get_property('OnBattery'))
        # no battery says it is low
        self.assertFalse(self.get_property('LowBattery'))
        self.assertEqual(self.get_property('PowerSource'), 'battery')
        self.assertEqual(self.attr(XHCI, 'power/control'), 'auto')
        self.assertEqual(self.laptop.read(POWER_SAVE), '1')
        current, decided, layer, origin = self.explain(XHCI)['power/control']
        self.assertEqual((current, decided, layer), ('auto', 'auto', 'battery'))
        self.assertIn('PowerSource=battery %s:2' % d.config_path, origin)

        rc, out, err = self.pmctl('status')
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r'PowerSource\s+battery \(fixed by the configuration')
        rc, out, err = self.pmctl('--json', 'status')
        self.assertEqual(rc, 0, err)
        status = json.loads(out)
        self.assertEqual((status['PowerSource'], status['OnBattery']), ('battery', True))

        # Reload switches it live
        with open(d.config_path, 'w') as f:
            f.write(TEST_CONFIG)
        self.call('Reload')
        wait_until(lambda: not self.get_property('OnBattery'), 5, 'OnBattery false')
        self.wait_attr(XHCI, 'power/control', 'on')
        self.assertEqual(self.get_property('PowerSource'), 'auto')
        self.assertNotIn('PowerSource', self.explain(XHCI)['power/control'][3])
        rc, out, err = self.pmctl('status')
        self.assertRegex(out, r'PowerSource\s+auto \(from the power supplies\)')

    def test_forced_ac_on_battery(self):
        self.laptop.tb.set_attribute(self.laptop.ac, 'online', '0')
        config = TEST_CONFIG.replace('[Daemon]\n', '[Daemon]\nPowerSource=ac\n', 1)
        self.start_daemon(config_text=config)
        self.assertFalse(self.get_property('OnBattery'))
        self.assertEqual(self.get_property('PowerSource'), 'ac')
        self.assertEqual(self.attr(XHCI, 'power/control'), 'on')
        # a supply's change does not move a fixed source
        self.laptop.tb.set_attribute(self.laptop.bat, 'capacity', '5')
        self.laptop.tb.uevent(self.laptop.bat, 'change')
        self.laptop.set_ac(False)
        # uevents are taken in order: once a device added after them has
        # its policy, the supplies' changes were seen
        dev = self.laptop.add_usb(HUB, '1-1.3', 'usb-storage', control='on', delay='100')
        self.laptop.tb.uevent(dev, 'add')
        self.wait_attr(dev, 'power/autosuspend_delay_ms', '5000')
        self.assertFalse(self.get_property('OnBattery'))
        self.assertFalse(self.get_property('LowBattery'))
        self.assertEqual(self.attr(XHCI, 'power/control'), 'on')

    def test_forced_battery_low_only_when_a_battery_says_so(self):
        self.laptop.tb.set_attribute(self.laptop.bat, 'capacity', '5')
        config = TEST_CONFIG.replace('[Daemon]\n', '[Daemon]\nPowerSource=battery\n', 1)
        self.start_daemon(config_text=config)
        # AC is online, but the source is fixed: the battery's charge counts
        self.assertTrue(self.get_property('OnBattery'))
        self.assertTrue(self.get_property('LowBattery'))

    def test_check_config_reports_bad_value(self):
        config = TEST_CONFIG.replace('[Daemon]\n', '[Daemon]\nPowerSource=mains\n', 1)
        d = self.new_daemon(config_text=config, args=['--check-config'],
                            bus_address='unix:path=/nonexistent/bus')
        rc, log = d.run()
        self.assertEqual(rc, 1, log)
        self.assertIn('%s:2' % d.config_path, log)
        self.assertIn('auto|ac|battery', log)


class TestChangeOnlySupply(PrecedenceTestCase):

    def test_supply_appearing_by_change_switches_on_battery(self):
        """The kernel's ACPI ac and battery drivers announce their supplies
        with "change" only: the first "change" of an unknown supply is its
        appearance."""
        self.remove_supplies()
        self.start_daemon()
        self.assertFalse(self.get_property('OnBattery'))
        self.assertEqual(self.attr(XHCI, 'power/control'), 'on')

        ac = self.laptop.add('power_supply', AC[len('/sys/devices/'):], None,
                             ['type', 'Mains', 'online', '0'], ['POWER_SUPPLY_ONLINE', '0'])
        bat = self.laptop.add('power_supply', BAT[len('/sys/devices/'):], None,
                              ['type', 'Battery', 'present', '1', 'scope', 'System',
                               'status', 'Discharging', 'capacity', '80'], [])
        self.assertEqual((ac, bat), (AC, BAT))
        self.laptop.tb.uevent(ac, 'change')
        self.laptop.tb.uevent(bat, 'change')
        wait_until(lambda: self.get_property('OnBattery'), 5, 'OnBattery after change uevents')
        self.wait_attr(XHCI, 'power/control', 'auto')

        # the battery goes (present 0: the kernel removes it) and comes back
        # with a "change" again
        self.laptop.tb.uevent(bat, 'remove')
        self.laptop.tb.remove_device(bat)
        wait_until(lambda: not self.get_property('OnBattery'), 5, 'OnBattery false without battery')
        self.wait_attr(XHCI, 'power/control', 'on')
        bat = self.laptop.add('power_supply', BAT[len('/sys/devices/'):], None,
                              ['type', 'Battery', 'present', '1', 'scope', 'System',
                               'status', 'Discharging', 'capacity', '80'], [])
        self.laptop.tb.uevent(bat, 'change')
        wait_until(lambda: self.get_property('OnBattery'), 5, 'OnBattery after the battery came back')
        self.wait_attr(XHCI, 'power/control', 'auto')


if __name__ == '__main__':
    main()
