#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System tests: drivers excluded by class (ExcludeDrivers=), USB classes
from the drivers bound to a device's interfaces (issue 11), and Explain
with `pmctl explain` (issue 12).

The devices are built from what real hardware reports: the Intel
Management Engine of a Skylake-U notebook (8086:9d3a, class 0x078000,
driver mei_me), a Bluetooth controller with vendor-specific interface
codes ff/ff/ff that btusb binds by vendor id, and a Realtek RTL8153
Ethernet adapter (0bda:8153) whose first configuration is the vendor
interface ff/ff/00 (r8152) and whose second is CDC Ethernet 02/06/00 +
data 0a/00/00 (cdc_ether).
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gi.repository import GLib, Gio  # noqa: E402

from ppharness import (  # noqa: E402
    line_of, BUILDDIR, BUS_NAME, HUB, OBJ_PATH, PCI, STORAGE, TEST_CONFIG, XHCI,
    PowerPolicyTestCase, main, usb_attrs, wait_until,
)
import ppevdev  # noqa: E402
from ppevdev import KEYBOARD  # noqa: E402

PMCTL = os.path.join(BUILDDIR, 'src', 'pmctl')
MEI = PCI + '/0000:00:16.0'
NSD = 'org.powerpolicy1.Error.NoSuchDevice'
INV = 'org.powerpolicy1.Error.InvalidArgument'
POWERDOWN_ORIGIN = 'PowerDown (auto) over D-Bus, until PowerUp'

CONFIG = TEST_CONFIG.replace('[Daemon]\n', '[Daemon]\nIdleTimeoutSec=0\n', 1).replace(
    '[Class pci]\nControl=on\n',
    '[Class pci]\nControl=on\nExcludeDrivers=mei_me nouveau radeon\n', 1) + """
[Class pci:idle]
Control=auto

[Class usb-storage:idle]
AutosuspendDelayMs=200

[Class bluetooth]
Control=on

[Class wwan]
Control=on

[Class usb-net]
Control=auto
AutosuspendDelayMs=3000
"""
IDLE_CONFIG = CONFIG.replace('IdleTimeoutSec=0', 'IdleTimeoutSec=1', 1)



class ExplainTestCase(PowerPolicyTestCase):

    def setUp(self):
        super().setUp()
        self.evdev = ppevdev.EvdevEmulator(self.laptop.tb)

    def tearDown(self):
        # the daemon must be gone before the emulated nodes are
        self.stop_daemons()
        self.evdev.stop()
        super().tearDown()

    def start(self, config=CONFIG):
        self.daemon = self.start_daemon(config_text=config)
        return self.daemon

    def origin(self, section, line, config=CONFIG):
        return '%s:%d [%s]' % (self.daemon.config_path, line_of(config, section, line), section)

    def explain(self, device):
        return self.call('Explain', (device,), '(s)')[0]

    def rows(self, device):
        """{attribute: (current, decided, layer, origin)}"""
        rows = self.explain(device)
        table = {r[0]: tuple(r[1:]) for r in rows}
        self.assertEqual(len(table), len(rows), rows)
        return table

    def device(self, device):
        return self.call('GetDevice', (device,), '(s)')[0]

    def add_mei(self, bound=True):
        props = ['PCI_CLASS', '78000', 'PCI_ID', '8086:9D3A']
        if bound:
            props += ['DRIVER', 'mei_me']
        mei = self.laptop.add('pci', 'pci0000:00/0000:00:16.0', None,
                              ['power/control', 'on', 'power/runtime_status', 'active',
                               'power/autosuspend_delay_ms', '100',
                               'class', '0x078000', 'vendor', '0x8086', 'device', '0x9d3a'],
                              props)
        self.assertEqual(mei, MEI)
        if bound:
            self.bind(mei, 'pci', 'mei_me', uevent=False)
        return mei

    def bind(self, syspath, bus, driver, uevent=True):
        """Bind @driver as the kernel would: the driver link, then "bind"."""
        depth = syspath.count('/') - 1
        self.laptop.tb.set_attribute_link(syspath, 'driver',
                                          '../' * depth + 'bus/%s/drivers/%s' % (bus, driver))
        self.laptop.tb.set_property(syspath, 'DRIVER', driver)
        if uevent:
            self.laptop.tb.uevent(syspath, 'bind')

    def unbind(self, syspath):
        os.unlink(self.laptop.path(syspath + '/driver'))
        self.laptop.tb.set_property(syspath, 'DRIVER', '')
        self.laptop.tb.uevent(syspath, 'unbind')

    def add_usb_device(self, name, vendor, product, klass=None, control='on'):
        props = ['DEVTYPE', 'usb_device', 'PRODUCT', '%s/%s/100' % (vendor.lstrip('0'), product)]
        if klass:
            props += ['POWERPOLICY_CLASS', klass]
        return self.laptop.add('usb', name, HUB,
                               usb_attrs(control, '2000') +
                               ['idVendor', vendor, 'idProduct', product, 'bDeviceClass', '00'],
                               props)

    def add_interface(self, device, name, codes):
        c, s, p = codes
        return self.laptop.add('usb', name, device,
                               ['bInterfaceClass', c, 'bInterfaceSubClass', s,
                                'bInterfaceProtocol', p],
                               ['DEVTYPE', 'usb_interface',
                                'INTERFACE', '%d/%d/%d' % (int(c, 16), int(s, 16), int(p, 16))])


class TestExcludeDrivers(ExplainTestCase):

    def test_mei_me_untouched_on_battery_and_idle(self):
        self.add_mei()
        self.evdev.add(KEYBOARD)
        self.laptop.set_ac(False)
        self.start(IDLE_CONFIG)
        self.assertTrue(self.get_property('OnBattery'))
        # the other PCI devices of the class are set ...
        self.wait_attr(XHCI, 'power/control', 'auto')
        wait_until(lambda: self.get_property('UserIdle'), 10, 'UserIdle')
        self.wait_attr(STORAGE, 'power/autosuspend_delay_ms', '200')
        # ... the Management Engine is left as its driver set it
        self.assertEqual(self.attr(MEI, 'power/control'), 'on')
        self.assertEqual(self.attr(MEI, 'power/autosuspend_delay_ms'), '100')
        why = 'driver mei_me excluded by %s:%d [Class pci]' % (
            self.daemon.config_path,
            line_of(IDLE_CONFIG, 'Class pci', 'ExcludeDrivers=mei_me nouveau radeon'))
        self.assertEqual(self.device(MEI)['excluded'], why)
        self.assertEqual(self.device(MEI)['driver'], 'mei_me')
        self.assertEqual(self.device(XHCI)['excluded'], '')
        self.assertEqual(self.rows(MEI), {
            'power/control': ('on', '', 'excluded', why),
            'power/autosuspend_delay_ms': ('100', '', 'excluded', why),
        })
        # a Reload does not change that
        self.call('Reload')
        self.assertEqual(self.attr(MEI, 'power/control'), 'on')
        self.assertEqual(self.attr(XHCI, 'power/control'), 'auto')
        # nothing to override, nothing to power down
        err = self.assertDBusError('org.powerpolicy1.Error.Refused', 'SetOverride',
                                   ('0000:00:16.0', 'Control', 'auto'), '(sss)')
        self.assertIn(why, err.message)
        rows = self.call('PowerDown', (MEI, False, 'auto'), '(sbs)')[0]
        self.assertEqual(rows, [(MEI, 'skipped', 'its driver is excluded (ExcludeDrivers=)')])
        self.assertEqual(self.attr(MEI, 'power/control'), 'on')
        # pmctl show says why
        r = subprocess.run([PMCTL, 'show', '0000:00:16.0'], capture_output=True, text=True,
                           env={'PATH': '/usr/bin:/bin', 'LANG': 'C.UTF-8',
                                'DBUS_SYSTEM_BUS_ADDRESS': self.bus_address})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('excluded\t' + why + '\n', r.stdout)

    def test_driver_bound_later_gets_original_back(self):
        self.add_mei(bound=False)
        self.laptop.set_ac(False)
        d = self.start()
        # no driver yet: an ordinary PCI device of the class
        self.wait_attr(MEI, 'power/control', 'auto')
        self.assertEqual(self.device(MEI)['excluded'], '')
        self.bind(MEI, 'pci', 'mei_me')
        # what the daemon wrote goes back to the original
        self.wait_attr(MEI, 'power/control', 'on')
        wait_until(lambda: self.device(MEI)['excluded'].startswith('driver mei_me excluded by '),
                   5, 'excluded')
        self.assertEqual(self.attr(XHCI, 'power/control'), 'auto')
        # and stays so through a change of the power source
        self.laptop.set_ac(True)
        wait_until(lambda: not self.get_property('OnBattery'), 5, 'AC')
        self.laptop.set_ac(False)
        self.wait_attr(XHCI, 'power/control', 'auto')
        self.assertEqual(self.attr(MEI, 'power/control'), 'on')
        self.assertEqual(d.stop(), 0)
        self.assertEqual(self.attr(MEI, 'power/control'), 'on')


class TestUsbInterfaceDrivers(ExplainTestCase):

    def test_vendor_class_bound_to_btusb_is_bluetooth(self):
        # a controller with vendor-specific codes: the rules leave it "usb"
        dev = self.add_usb_device('1-1.5', '0a12', '0042')
        iface = self.add_interface(dev, '1-1.5:1.0', ('ff', 'ff', 'ff'))
        self.start()
        self.wait_attr(dev, 'power/control', 'auto')
        self.assertEqual(self.device(dev)['class'], 'usb')
        # the interface binds after the device appeared
        self.bind(iface, 'usb', 'btusb')
        wait_until(lambda: self.device(dev)['class'] == 'bluetooth', 5, 'class bluetooth')
        self.wait_attr(dev, 'power/control', 'on')
        self.assertEqual(self.rows(dev)['power/control'][1:],
                         ('on', 'class', self.origin('Class bluetooth', 'Control=on')))
        # unbound again: back to "usb", and its policy
        self.unbind(iface)
        wait_until(lambda: self.device(dev)['class'] == 'usb', 5, 'class usb')
        self.wait_attr(dev, 'power/control', 'auto')

    def test_rtl8153_stays_usb_net(self):
        # as the rules classify it (by vendor and product id) ...
        ruled = self.add_usb_device('1-1.5', '0bda', '8153', klass='usb-net')
        self.add_interface(ruled, '1-1.5:1.0', ('ff', 'ff', '00'))
        # ... and without the rules' class, in its CDC Ethernet
        # configuration (cdc_ether on both interfaces)
        cdc = self.add_usb_device('1-1.6', '0bda', '8153')
        comm = self.add_interface(cdc, '1-1.6:2.0', ('02', '06', '00'))
        data = self.add_interface(cdc, '1-1.6:2.1', ('0a', '00', '00'))
        self.start()
        self.bind(ruled + '/1-1.5:1.0', 'usb', 'r8152')
        self.bind(comm, 'usb', 'cdc_ether')
        self.bind(data, 'usb', 'cdc_ether')
        wait_until(lambda: self.device(cdc)['class'] == 'usb-net', 5, 'class usb-net')
        for dev in (ruled, cdc):
            self.wait_attr(dev, 'power/autosuspend_delay_ms', '3000')
            self.assertEqual(self.attr(dev, 'power/control'), 'auto')
            self.assertEqual(self.device(dev)['class'], 'usb-net', dev)

    def test_rules_class_wins(self):
        dev = self.add_usb_device('1-1.5', '0a12', '0042', klass='usb-storage', control='on')
        iface = self.add_interface(dev, '1-1.5:1.0', ('ff', 'ff', 'ff'))
        self.bind(iface, 'usb', 'btusb', uevent=False)
        self.start()
        self.wait_attr(dev, 'power/autosuspend_delay_ms', '5000')
        self.assertEqual(self.device(dev)['class'], 'usb-storage')
        self.laptop.tb.uevent(iface, 'bind')
        # a later event for the same device: still the rules' class
        self.laptop.tb.uevent(dev, 'change')
        self.wait_attr(dev, 'power/control', 'auto')
        self.assertEqual(self.device(dev)['class'], 'usb-storage')

    def test_bound_before_start(self):
        dev = self.add_usb_device('1-1.5', '0a12', '0042')
        iface = self.add_interface(dev, '1-1.5:1.0', ('ff', 'ff', 'ff'))
        self.bind(iface, 'usb', 'btusb', uevent=False)
        self.start()
        self.assertEqual(self.device(dev)['class'], 'bluetooth')
        self.assertEqual(self.attr(dev, 'power/control'), 'on')


class TestExplain(ExplainTestCase):

    def test_class_rows_with_file_and_line(self):
        self.start()
        self.assertEqual(self.rows(STORAGE), {
            'power/control': ('auto', 'auto', 'class', self.origin('Class usb-storage', 'Control=auto')),
            'power/autosuspend_delay_ms': ('5000', '5000', 'class',
                                           self.origin('Class usb-storage', 'AutosuspendDelayMs=5000')),
            'power/wakeup': ('disabled', '', 'own', 'not set by [Class usb] or [Class usb-storage]'),
        })
        # another attribute than power/: after them
        rows = self.explain(self.laptop.scsi_host)
        self.assertEqual(rows[-1], ('link_power_management_policy', 'med_power_with_dipm',
                                    'med_power_with_dipm', 'class',
                                    self.origin('Class sata-host',
                                                'LinkPowerPolicy=med_power_with_dipm')))

    def test_battery_rows(self):
        self.laptop.set_ac(False)
        self.start()
        rows = self.rows(STORAGE)
        self.assertEqual(rows['power/autosuspend_delay_ms'],
                         ('2000', '2000', 'battery',
                          self.origin('Class usb-storage:battery', 'AutosuspendDelayMs=2000')))
        self.assertEqual(rows['power/control'][2], 'class')
        self.assertEqual(self.rows(XHCI)['power/control'],
                         ('auto', 'auto', 'battery', self.origin('Class pci:battery', 'Control=auto')))

    def test_idle_rows(self):
        kbd = self.evdev.add(KEYBOARD)
        self.start(IDLE_CONFIG)
        wait_until(lambda: self.get_property('UserIdle'), 10, 'UserIdle')
        self.wait_attr(STORAGE, 'power/autosuspend_delay_ms', '200')
        self.assertEqual(self.rows(STORAGE)['power/autosuspend_delay_ms'],
                         ('200', '200', 'idle',
                          self.origin('Class usb-storage:idle', 'AutosuspendDelayMs=200',
                                      IDLE_CONFIG)))
        kbd.key()
        self.wait_attr(STORAGE, 'power/autosuspend_delay_ms', '5000')
        self.assertEqual(self.rows(STORAGE)['power/autosuspend_delay_ms'][2], 'class')

    def test_udev_property_rows(self):
        dev = self.laptop.add_usb(self.laptop.hub, '1-1.5', 'usb-storage',
                                  extra_props=['POWERPOLICY_AUTOSUSPEND', '0',
                                               'POWERPOLICY_WAKEUP', 'enabled'])
        self.start()
        rows = self.rows(dev)
        self.assertEqual(rows['power/control'], ('on', 'on', 'udev', 'POWERPOLICY_AUTOSUSPEND=0'))
        self.assertEqual(rows['power/wakeup'], ('enabled', 'enabled', 'udev',
                                                'POWERPOLICY_WAKEUP=enabled'))
        self.assertEqual(rows['power/autosuspend_delay_ms'][2], 'class')

    def test_override_rows(self):
        self.start()
        self.call('SetOverride', (STORAGE, 'Wakeup', 'enabled'), '(sss)')
        self.assertEqual(self.rows(STORAGE)['power/wakeup'],
                         ('enabled', 'enabled', 'override', 'override set over D-Bus'))
        # the override ended: no layer sets it, and the daemon had changed
        # it, so its own value is decided and written back
        self.call('ClearOverrides', (STORAGE,), '(s)')
        self.assertEqual(self.rows(STORAGE)['power/wakeup'],
                         ('disabled', 'disabled', 'own', 'not set by [Class usb] or [Class usb-storage]'))

    def test_hold_rows(self):
        self.start()
        r, fds = self.bus.call_with_unix_fd_list_sync(
            BUS_NAME, OBJ_PATH, 'org.powerpolicy1.Manager', 'Hold',
            GLib.Variant('(sss)', ('1-1.2', 'tester', 'copying files')),
            GLib.VariantType('(h)'), Gio.DBusCallFlags.NONE, 5000, None, None)
        fd = fds.steal_fds()[r.unpack()[0]]
        held_by = 'held by tester (copying files), pid %d' % os.getpid()
        self.assertEqual(self.rows(STORAGE)['power/control'], ('on', 'on', 'hold', held_by))
        # what the held device depends on says for whom
        self.assertEqual(self.rows(HUB)['power/control'],
                         ('on', 'on', 'hold', held_by + ', for ' + STORAGE))
        os.close(fd)
        self.wait_attr(STORAGE, 'power/control', 'auto')
        self.assertEqual(self.rows(STORAGE)['power/control'][2], 'class')

    def test_power_down_rows(self):
        self.start()
        self.call('SetOverride', (STORAGE, 'Wakeup', 'enabled'), '(sss)')
        self.call('PowerDown', (STORAGE, False, 'auto'), '(sbs)')
        rows = self.rows(STORAGE)
        self.assertEqual(rows['power/control'], ('auto', 'auto', 'power-down', POWERDOWN_ORIGIN))
        self.assertEqual(rows['power/autosuspend_delay_ms'],
                         ('0', '0', 'power-down', POWERDOWN_ORIGIN))
        self.assertEqual(rows['power/wakeup'][2], 'override')
        self.call('PowerUp', (STORAGE, False), '(sb)')
        self.assertEqual(self.rows(STORAGE)['power/control'][2], 'class')

    def test_ignored_rows(self):
        dev = self.laptop.add_usb(self.laptop.hub, '1-1.5', 'usb-storage',
                                  extra_props=['POWERPOLICY_IGNORE', '1'])
        self.start()
        self.assertEqual(self.rows(dev), {
            'power/control': ('on', '', 'ignored', 'POWERPOLICY_IGNORE=1'),
            'power/autosuspend_delay_ms': ('2000', '', 'ignored', 'POWERPOLICY_IGNORE=1'),
            'power/wakeup': ('disabled', '', 'ignored', 'POWERPOLICY_IGNORE=1'),
        })

    def test_no_class_section_and_missing_attributes(self):
        self.start()
        # a power supply has no power/ attributes and no class section
        self.assertEqual(self.explain(self.laptop.ac), [])

    def test_errors_and_open_to_everyone(self):
        self.start()
        self.assertDBusError(NSD, 'Explain', ('1-9',), '(s)')
        self.assertDBusError(NSD, 'Explain', ('/sys/devices/nonexistent',), '(s)')
        self.assertDBusError(INV, 'Explain', ('',), '(s)')
        self.assertDBusError(INV, 'Explain', ('x' * 5000,), '(s)')
        self.assertDBusError(INV, 'Explain', (STORAGE + '/../..',), '(s)')
        r = self.call_as('nobody', 'Explain', '(s)', ['1-1.2'])
        self.assertTrue(r['ok'], r)
        self.assertEqual(len(r['result'][0]), 3)


class TestPmctlExplain(ExplainTestCase):

    def pmctl(self, *args):
        r = subprocess.run([PMCTL] + list(args), capture_output=True, text=True, timeout=30,
                           env={'PATH': '/usr/bin:/bin', 'LANG': 'C.UTF-8',
                                'DBUS_SYSTEM_BUS_ADDRESS': self.bus_address})
        return r.returncode, r.stdout, r.stderr

    def test_text_and_json(self):
        self.start()
        self.call('SetOverride', (STORAGE, 'Wakeup', 'enabled'), '(sss)')
        rc, out, err = self.pmctl('explain', '1-1.2')
        self.assertEqual((rc, err), (0, ''))
        self.assertEqual(out.splitlines(), [
            'power/control\tauto\tauto\tclass\t' + self.origin('Class usb-storage', 'Control=auto'),
            'power/autosuspend_delay_ms\t5000\t5000\tclass\t' +
            self.origin('Class usb-storage', 'AutosuspendDelayMs=5000'),
            'power/wakeup\tenabled\tenabled\toverride\toverride set over D-Bus',
        ])
        rc, out, err = self.pmctl('--json', 'explain', STORAGE)
        self.assertEqual((rc, err), (0, ''))
        self.assertEqual(out.count('\n'), 1)
        rows = json.loads(out)
        self.assertEqual(rows[2], {'attribute': 'power/wakeup', 'current': 'enabled',
                                   'decided': 'enabled', 'layer': 'override',
                                   'origin': 'override set over D-Bus'})
        self.assertEqual([r['attribute'] for r in rows],
                         ['power/control', 'power/autosuspend_delay_ms', 'power/wakeup'])
        # the override ended: the own value the daemon writes back
        self.call('ClearOverrides', (STORAGE,), '(s)')
        rc, out, err = self.pmctl('explain', '1-1.2')
        self.assertEqual(out.splitlines()[2],
                         'power/wakeup\tdisabled\tdisabled\town\tnot set by [Class usb] or [Class usb-storage]')
        rc, out, err = self.pmctl('explain', '--json', '1-1.2')
        self.assertEqual(json.loads(out)[2]['decided'], 'disabled')
        # an attribute left alone (never changed, no layer sets it): "-" in
        # text, "" in JSON
        rc, out, err = self.pmctl('explain', self.laptop.hub)
        wakeup = [l for l in out.splitlines() if l.startswith('power/wakeup\t')]
        self.assertEqual(len(wakeup), 1, out)
        self.assertEqual(wakeup[0].split('\t')[2:4], ['-', 'own'])
        rc, out, err = self.pmctl('explain', '--json', self.laptop.hub)
        self.assertEqual([r['decided'] for r in json.loads(out) if r['attribute'] == 'power/wakeup'], [''])

    def test_errors(self):
        self.start()
        rc, out, err = self.pmctl('explain', '1-9')
        self.assertEqual((rc, out), (1, ''))
        self.assertEqual(err.count('\n'), 1, err)
        self.assertIn('1-9', err)
        rc, out, err = self.pmctl('explain')
        self.assertEqual(rc, 2)
        rc, out, err = self.pmctl('help', 'explain')
        self.assertEqual(rc, 0)
        self.assertIn('explain DEVICE', out)


if __name__ == '__main__':
    main()
