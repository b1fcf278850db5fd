#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System tests of the power-dependency tree (issue 4): PowerDown, PowerUp,
Hold, and the tree fields of the device dictionary."""

import os
import signal
import subprocess
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gi.repository import GLib, Gio  # noqa: E402

from ppharness import (  # noqa: E402
    BUS_NAME, HDA, HUB, IFACE, MOUSE, OBJ_PATH, PCI, ROOTHUB, STORAGE, XHCI, AHCI,
    PowerPolicyTestCase, main, wait_until,
)

NSD = 'org.powerpolicy1.Error.NoSuchDevice'
INV = 'org.powerpolicy1.Error.InvalidArgument'
NAU = 'org.powerpolicy1.Error.NotAuthorized'

GPU = PCI + '/0000:00:02.0'
DEVLINK_NAME = 'pci:0000:00:02.0--pci:0000:00:1f.3'
DEVLINK = '/sys/devices/virtual/devlink/' + DEVLINK_NAME
ROOT_IF = ROOTHUB + '/1-0:1.0'
HUB_IF = HUB + '/1-1:1.0'
HUB_PORT1 = ROOT_IF + '/usb1-port1/disable'     # where 1-1 is plugged
STORAGE_PORT = HUB_IF + '/1-1-port2/disable'    # where 1-1.2 is plugged
MOUSE_PORT = HUB_IF + '/1-1-port1/disable'

HOLDER = textwrap.dedent('''
    import sys, time
    import gi
    gi.require_version('Gio', '2.0')
    from gi.repository import Gio, GLib
    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    r, fds = bus.call_with_unix_fd_list_sync(
        'org.powerpolicy1', '/org/powerpolicy1', 'org.powerpolicy1.Manager', 'Hold',
        GLib.Variant('(sss)', (sys.argv[1], sys.argv[2], sys.argv[3])),
        GLib.VariantType('(h)'), Gio.DBusCallFlags.NONE, 10000, None, None)
    fd = fds.get(r.unpack()[0])
    print('held', flush=True)
    time.sleep(3600)
''')


def add_tree_devices(laptop):
    """A GPU supplying the HDA controller through a device link, and hub
    interfaces with USB port switches."""
    add = laptop.add
    gpu = add('pci', 'pci0000:00/0000:00:02.0', None,
              ['power/control', 'on', 'power/runtime_status', 'active',
               'class', '0x030000', 'vendor', '0x8086', 'device', '0x9a49'],
              ['POWERPOLICY_CLASS', 'pci-gpu'])
    assert gpu == GPU, gpu
    dl = add('devlink', 'virtual/devlink/' + DEVLINK_NAME, None,
             ['status', 'active', 'runtime_pm', '1', 'sync_state_only', '0',
              'auto_remove_on', 'consumer unbind'], [])
    assert dl == DEVLINK, dl
    tb = laptop.tb
    tb.set_attribute_link(dl, 'supplier', '../../../pci0000:00/0000:00:02.0')
    tb.set_attribute_link(dl, 'consumer', '../../../pci0000:00/0000:00:1f.3')
    tb.set_attribute_link(GPU, 'consumer:pci:0000:00:1f.3', '../../virtual/devlink/' + DEVLINK_NAME)
    tb.set_attribute_link(HDA, 'supplier:pci:0000:00:02.0', '../../virtual/devlink/' + DEVLINK_NAME)

    # hub interfaces (no runtime PM of their own) with their ports
    add('usb', '1-0:1.0', ROOTHUB, ['bInterfaceClass', '09'], ['DEVTYPE', 'usb_interface'])
    add('usb', '1-1:1.0', HUB, ['bInterfaceClass', '09'], ['DEVTYPE', 'usb_interface'])
    for port in (HUB_PORT1, STORAGE_PORT, MOUSE_PORT):
        os.makedirs(os.path.dirname(laptop.path(port)), exist_ok=True)
        laptop.write(port, '0\n')


class TreeTestCase(PowerPolicyTestCase):

    def setUp(self):
        super().setUp()
        add_tree_devices(self.laptop)

    def power_down(self, device, subtree=True, mode='auto'):
        return self.call('PowerDown', (device, subtree, mode), '(sbs)')[0]

    def power_up(self, device, subtree=False):
        return self.call('PowerUp', (device, subtree), '(sb)')[0]

    def assertRows(self, rows, expected):
        """@expected: (path, status) or (path, status, detail-substring)."""
        self.assertEqual([r[:2] for r in rows], [e[:2] for e in expected], rows)
        for row, exp in zip(rows, expected):
            if len(exp) > 2:
                self.assertIn(exp[2], row[2], row)

    def device(self, device):
        return self.call('GetDevice', (device,), '(s)')[0]

    def row(self, rows, path):
        return next(r for r in rows if r[0] == path)

    def inhibitors(self):
        return self.call('ListInhibitors')[0]


class TestPowerDown(TreeTestCase):

    def test_subtree_order_and_values(self):
        # the mouse as a plain USB device, so the whole hub may go down
        self.laptop.tb.set_property(MOUSE, 'POWERPOLICY_CLASS', 'usb')
        self.start_daemon()
        self.assertEqual(self.attr(MOUSE, 'power/control'), 'auto')
        self.laptop.write(MOUSE + '/power/control', 'on')
        rows = self.power_down('1-1')
        # children before the parent, sorted, each exactly once
        self.assertRows(rows, [
            (MOUSE, 'suspended', 'power/control=auto, power/autosuspend_delay_ms=0'),
            (STORAGE, 'suspended'),
            (HUB_IF, 'skipped', 'no runtime power management'),
            (HUB, 'suspended'),
        ])
        for dev in (MOUSE, STORAGE, HUB):
            self.assertEqual(self.attr(dev, 'power/control'), 'auto', dev)
            self.assertEqual(self.attr(dev, 'power/autosuspend_delay_ms'), '0', dev)
        # nothing above the subtree was touched
        self.assertEqual(self.attr(ROOTHUB, 'power/autosuspend_delay_ms'), '0')
        self.assertEqual(self.attr(XHCI, 'power/control'), 'on')

    def test_without_subtree_waits_for_children(self):
        self.start_daemon()
        self.laptop.write(STORAGE + '/power/control', 'on')
        # the mouse stays on (usb-hid) and the disk is not allowed to suspend
        rows = self.power_down(HUB, subtree=False)
        self.assertRows(rows, [(HUB, 'skipped', 'kept up by ' + MOUSE)])
        self.assertEqual(self.attr(HUB, 'power/autosuspend_delay_ms'), '2000')
        # a leaf goes down alone
        rows = self.power_down('1-1.2', subtree=False)
        self.assertRows(rows, [(STORAGE, 'suspended')])
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')

    def test_skipped_keep_ancestors_up(self):
        self.laptop.tb.set_property(STORAGE, 'POWERPOLICY_AUTOSUSPEND', '0')
        self.start_daemon()
        rows = self.power_down(XHCI)
        self.assertRows(rows, [
            (ROOT_IF, 'skipped', 'no runtime power management'),
            (MOUSE, 'skipped', 'input device the policy keeps on'),
            (STORAGE, 'skipped', 'POWERPOLICY_AUTOSUSPEND=0'),
            (HUB_IF, 'skipped'),
            (HUB, 'skipped', 'kept up by ' + MOUSE),
            (ROOTHUB, 'skipped', 'kept up by ' + HUB),
            (XHCI, 'skipped', 'kept up by ' + ROOTHUB),
        ])
        # nothing was written on the way up
        self.assertEqual(self.attr(XHCI, 'power/control'), 'on')
        self.assertEqual(self.attr(HUB, 'power/autosuspend_delay_ms'), '2000')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')
        self.assertEqual(self.attr(MOUSE, 'power/control'), 'on')

    def test_device_link_consumer_first(self):
        self.start_daemon()
        rows = self.power_down(GPU)
        self.assertRows(rows, [(HDA, 'suspended'), (GPU, 'suspended', 'power/control=auto')])
        self.assertEqual(self.attr(GPU, 'power/control'), 'auto')
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        # the consumer's own subtree does not pull the supplier in
        rows = self.power_down(HDA)
        self.assertRows(rows, [(HDA, 'suspended')])

    def test_held_consumer_keeps_supplier_up(self):
        self.start_daemon()
        fd = self.hold(HDA)
        # the hold covers the supplier too
        rows = self.power_down(GPU)
        self.assertRows(rows, [(HDA, 'skipped', 'held'), (GPU, 'skipped', 'held')])
        self.assertEqual(self.attr(GPU, 'power/control'), 'on')
        os.close(fd)
        wait_until(lambda: self.inhibitors() == [], 5, 'the hold to go')
        # an active consumer that may not suspend keeps the supplier up
        self.laptop.write(HDA + '/power/control', 'on')
        rows = self.power_down(GPU, subtree=False)
        self.assertRows(rows, [(GPU, 'skipped', 'kept up by ' + HDA)])
        self.assertEqual(self.attr(GPU, 'power/control'), 'on')

    def hold(self, device):
        r, fds = self.bus.call_with_unix_fd_list_sync(
            BUS_NAME, OBJ_PATH, IFACE, 'Hold', GLib.Variant('(sss)', (device, 'test', 'because')),
            GLib.VariantType('(h)'), Gio.DBusCallFlags.NONE, 5000, None, None)
        return fds.steal_fds()[r.unpack()[0]]

    def test_off_mode(self):
        self.start_daemon()
        rows = self.power_down('1-1.2', subtree=False, mode='off')
        self.assertRows(rows, [(STORAGE, 'off', STORAGE_PORT + '=1')])
        self.assertEqual(self.laptop.read(STORAGE_PORT), '1')
        self.assertEqual(self.laptop.read(MOUSE_PORT), '0')
        # a device on a root hub port
        rows = self.power_down(HUB, subtree=False, mode='off')
        self.assertRows(rows, [(HUB, 'skipped', 'kept up by ' + MOUSE)])
        self.assertEqual(self.laptop.read(HUB_PORT1), '0')

        # PowerUp turns the port back on, ancestors first
        rows = self.power_up('1-1.2')
        self.assertRows(rows, [(XHCI, 'on'), (ROOTHUB, 'on'), (HUB, 'on'),
                               (STORAGE, 'on', STORAGE_PORT + '=0')])
        self.assertEqual(self.laptop.read(STORAGE_PORT), '0')
        # resumed, then the policy's again: auto with its delay
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')

    def test_survives_policy_reapplication(self):
        self.laptop.tb.set_property(MOUSE, 'POWERPOLICY_CLASS', 'usb')
        self.start_daemon()
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')
        self.assertRows(self.power_down('1-1.2', subtree=False), [(STORAGE, 'suspended')])
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '0')

        # AC unplugged: the battery layers apply to everything else...
        self.laptop.set_ac(False)
        wait_until(lambda: self.get_property('OnBattery'), 5, 'OnBattery')
        self.wait_attr(MOUSE, 'power/autosuspend_delay_ms', '1000')
        self.assertEqual(self.attr(XHCI, 'power/control'), 'auto')
        # ...but PowerDown's word stands until PowerUp
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '0')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.call('Reload')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '0')
        # a "change" uevent re-applies the device's own policy
        self.laptop.tb.uevent(STORAGE, 'change')
        # uevents are handled in order: once the mouse's is, so was that one
        self.laptop.write(MOUSE + '/power/autosuspend_delay_ms', '7')
        self.laptop.tb.uevent(MOUSE, 'change')
        self.wait_attr(MOUSE, 'power/autosuspend_delay_ms', '1000')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '0')

        # PowerUp ends it: the battery policy's delay, and the policy
        # governs again at the next change
        self.assertRows(self.power_up('1-1.2'), [(XHCI, 'on'), (ROOTHUB, 'on'), (HUB, 'on'),
                                                 (STORAGE, 'on', 'power/autosuspend_delay_ms=2000')])
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '2000')
        self.laptop.set_ac(True)
        wait_until(lambda: not self.get_property('OnBattery'), 5, 'OnBattery false')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')

    def test_off_port_stands_through_policy_passes(self):
        # the switched-off port is the power-off layer's standing request:
        # a policy pass (Reload) switches it off again when something else
        # turned it on; after PowerUp a pass leaves the port alone
        self.start_daemon()
        self.assertRows(self.power_down('1-1.2', subtree=False, mode='off'),
                        [(STORAGE, 'off', STORAGE_PORT + '=1')])
        self.laptop.write(STORAGE_PORT, '0')
        self.call('Reload')
        self.assertEqual(self.laptop.read(STORAGE_PORT), '1')
        self.assertRows(self.power_up('1-1.2'), [(XHCI, 'on'), (ROOTHUB, 'on'), (HUB, 'on'),
                                                 (STORAGE, 'on', STORAGE_PORT + '=0')])
        self.laptop.write(STORAGE_PORT, '1')
        self.call('Reload')
        self.assertEqual(self.laptop.read(STORAGE_PORT), '1')
        self.assertEqual(self.laptop.read(MOUSE_PORT), '0')

    def test_off_port_restored_on_exit(self):
        d = self.start_daemon()
        self.assertRows(self.power_down('1-1.2', subtree=False, mode='off'),
                        [(STORAGE, 'off', STORAGE_PORT + '=1')])
        self.assertRows(self.power_down(GPU, subtree=True),
                        [(HDA, 'suspended'), (GPU, 'suspended')])
        self.assertEqual(self.laptop.read(STORAGE_PORT), '1')
        self.assertEqual(d.stop(), 0)
        # RestoreOnExit=true: the port is enabled again, PowerDown undone
        self.assertEqual(self.laptop.read(STORAGE_PORT), '0')
        self.assertEqual(self.attr(GPU, 'power/control'), 'on')
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        self.assertEqual(self.laptop.read(MOUSE_PORT), '0')

    def test_off_port_restored_after_crash(self):
        d = self.start_daemon()
        self.power_down('1-1.2', subtree=False, mode='off')
        self.assertEqual(self.laptop.read(STORAGE_PORT), '1')
        d.stop(signal.SIGKILL)
        self.assertEqual(self.laptop.read(STORAGE_PORT), '1')
        # the next run puts back what the crashed one left
        d2 = self.start_daemon(workdir=d.workdir)
        self.assertEqual(self.laptop.read(STORAGE_PORT), '0')
        self.assertIn('did not exit cleanly', d2.read_log())

    def test_off_mode_without_switch(self):
        # a PCI hotplug slot: real slots live outside /sys/devices
        slot = self.laptop.path('/sys/bus/pci/slots/3')
        os.makedirs(slot)
        with open(os.path.join(slot, 'address'), 'w') as f:
            f.write('0000:00:02\n')
        with open(os.path.join(slot, 'power'), 'w') as f:
            f.write('1\n')
        self.start_daemon()
        rows = self.power_down(GPU, subtree=False, mode='off')
        self.assertRows(rows, [(GPU, 'skipped', 'outside /sys/devices')])
        with open(os.path.join(slot, 'power')) as f:
            self.assertEqual(f.read().strip(), '1')
        rows = self.power_down(AHCI, subtree=False, mode='off')
        self.assertRows(rows, [(AHCI, 'skipped', 'no PCI hotplug slot')])
        rows = self.power_down(ROOTHUB, subtree=False, mode='off')
        self.assertEqual(rows[0][:2], (ROOTHUB, 'skipped'))

    def test_device_removed_mid_walk(self):
        self.laptop.tb.set_property(MOUSE, 'POWERPOLICY_CLASS', 'usb')
        self.start_daemon()
        # sysfs loses the disk before the daemon hears of it
        self.laptop.tb.remove_device(STORAGE)
        rows = self.power_down(HUB)
        self.assertRows(rows, [
            (MOUSE, 'suspended'),
            (STORAGE, 'skipped', 'device vanished'),
            (HUB_IF, 'skipped'),
            (HUB, 'suspended'),
        ])
        rows = self.power_up(HUB, subtree=True)
        self.assertIn((STORAGE, 'skipped', 'device vanished'), rows)
        # resumed, then handed back to the policy (auto)
        self.assertEqual(self.attr(HUB, 'power/control'), 'auto')
        # the daemon is fine and still answers
        self.assertEqual(self.device(HUB)['path'], HUB)

    def test_hotplug_updates_tree(self):
        self.laptop.tb.set_property(MOUSE, 'POWERPOLICY_CLASS', 'usb')
        self.start_daemon()
        new = self.laptop.add_usb(HUB, '1-1.3', 'usb')
        self.laptop.tb.uevent(new, 'add')
        wait_until(lambda: self.try_device(new), 5, 'the daemon to see 1-1.3')
        rows = self.power_down(HUB)
        self.assertEqual([r[0] for r in rows], [MOUSE, STORAGE, new, HUB_IF, HUB])
        self.laptop.tb.uevent(new, 'remove')
        wait_until(lambda: not self.try_device(new), 5, 'the daemon to drop 1-1.3')
        rows = self.power_down(HUB)
        self.assertEqual([r[0] for r in rows], [MOUSE, STORAGE, HUB_IF, HUB])

    def try_device(self, path):
        try:
            self.device(path)
            return True
        except GLib.GError:
            return False

    def test_errors(self):
        self.start_daemon()
        self.assertDBusError(NSD, 'PowerDown', ('nope', True, 'auto'), '(sbs)')
        self.assertDBusError(NSD, 'PowerDown', ('/sys/devices/nope', False, 'auto'), '(sbs)')
        self.assertDBusError(INV, 'PowerDown', ('/sys/devices/../x', False, 'auto'), '(sbs)')
        self.assertDBusError(INV, 'PowerDown', ('', False, 'auto'), '(sbs)')
        e = self.assertDBusError(INV, 'PowerDown', ('1-1.2', False, 'hard'), '(sbs)')
        self.assertIn('auto or off', e.message)
        self.assertDBusError(INV, 'PowerDown', ('1-1.2', False, ''), '(sbs)')
        self.assertDBusError(NSD, 'PowerUp', ('1-9', False), '(sb)')
        self.assertDBusError(NSD, 'PowerUp', ('/sys/class/nope/x', True), '(sb)')
        self.assertDBusError(NSD, 'Hold', ('1-9', 'me', 'why'), '(sss)')
        self.assertDBusError(INV, 'Hold', ('1-1.2', 'x' * 2000, 'why'), '(sss)')
        # nothing was changed by any of it
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')


class TestPowerUp(TreeTestCase):

    def test_power_up_order(self):
        self.laptop.tb.set_property(MOUSE, 'POWERPOLICY_CLASS', 'usb')
        self.start_daemon()
        self.power_down(XHCI)
        self.assertEqual(self.attr(XHCI, 'power/control'), 'auto')
        rows = self.power_up(XHCI, subtree=True)
        self.assertRows(rows, [
            (XHCI, 'on', 'power/control=on'),
            (ROOTHUB, 'on'),
            (ROOT_IF, 'skipped', 'no runtime power management'),
            (HUB, 'on'),
            (MOUSE, 'on'),
            (STORAGE, 'on'),
            (HUB_IF, 'skipped'),
        ])
        # woken (control=on), then handed back to the policy at once:
        # every device the policy lets autosuspend is auto again; the
        # controller, which no layer sets, has its own value back
        for dev in (ROOTHUB, HUB, MOUSE, STORAGE):
            self.assertEqual(self.attr(dev, 'power/control'), 'auto', dev)
            self.assertIn('; then the policy: power/control=auto', self.row(rows, dev)[2])
        self.assertEqual(self.attr(XHCI, 'power/control'), 'on')
        self.assertNotIn('then the policy', self.row(rows, XHCI)[2])
        # the policy's delay where it has one, else the one PowerDown found
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')
        self.assertEqual(self.attr(MOUSE, 'power/autosuspend_delay_ms'), '2000')
        self.assertEqual(self.attr(HUB, 'power/autosuspend_delay_ms'), '2000')

    def test_power_up_keeps_overrides(self):
        self.laptop.tb.set_property(MOUSE, 'POWERPOLICY_CLASS', 'usb')
        self.start_daemon()
        self.assertEqual(self.attr(MOUSE, 'power/autosuspend_delay_ms'), '2000')
        self.call('SetOverride', (MOUSE, 'AutosuspendDelayMs', '5000'), '(sss)')
        self.assertEqual(self.attr(MOUSE, 'power/autosuspend_delay_ms'), '5000')
        self.assertRows(self.power_down(MOUSE, subtree=False), [(MOUSE, 'suspended')])
        self.assertEqual(self.attr(MOUSE, 'power/autosuspend_delay_ms'), '0')
        rows = self.power_up(MOUSE)
        # the override, not the class's 2000
        self.assertEqual(rows[-1][:2], (MOUSE, 'on'), rows)
        self.assertIn('power/autosuspend_delay_ms=5000', rows[-1][2])
        self.assertEqual(self.attr(MOUSE, 'power/autosuspend_delay_ms'), '5000')
        # the policy governs again at once: control back to auto
        self.assertEqual(self.attr(MOUSE, 'power/control'), 'auto')
        # and the next pass keeps it too
        self.call('Reload')
        self.assertEqual(self.attr(MOUSE, 'power/autosuspend_delay_ms'), '5000')
        self.assertEqual(self.attr(MOUSE, 'power/control'), 'auto')

    def test_power_up_after_port_disconnect(self):
        self.laptop.tb.set_property(MOUSE, 'POWERPOLICY_CLASS', 'usb')
        self.start_daemon()
        # a real kernel disconnects the device behind a disabled port
        for dev, port in ((STORAGE, STORAGE_PORT), (MOUSE, MOUSE_PORT)):
            rows = self.power_down(dev, subtree=False, mode='off')
            self.assertRows(rows, [(dev, 'off', port + '=1')])
            self.laptop.tb.uevent(dev, 'remove')
            self.laptop.tb.remove_device(dev)
            wait_until(lambda: not self.try_device(dev), 5, 'the daemon to drop ' + dev)
        # the port still answers to the device's name and path
        rows = self.power_up('1-1.2')
        self.assertRows(rows, [(STORAGE, 'on', STORAGE_PORT + '=0')])
        self.assertEqual(self.laptop.read(STORAGE_PORT), '0')
        self.assertEqual(self.laptop.read(MOUSE_PORT), '1')
        # once on, the name means nothing any more
        self.assertDBusError(NSD, 'PowerUp', ('1-1.2', False), '(sb)')
        # a subtree PowerUp turns on the ports of what vanished below
        rows = self.power_up(HUB, subtree=True)
        self.assertEqual(rows[-1], (MOUSE, 'on', MOUSE_PORT + '=0'))
        self.assertEqual(self.laptop.read(MOUSE_PORT), '0')
        self.assertDBusError(NSD, 'PowerUp', (MOUSE, False), '(sb)')

    def try_device(self, path):
        try:
            self.device(path)
            return True
        except GLib.GError:
            return False

    def test_consumer_brings_supplier_up(self):
        self.start_daemon()
        self.power_down(GPU)
        rows = self.power_up(HDA)
        self.assertRows(rows, [(GPU, 'on'), (HDA, 'on', '; then the policy: power/control=auto')])
        # the GPU's policy keeps it on; the audio's lets it autosuspend
        self.assertEqual(self.attr(GPU, 'power/control'), 'on')
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')


class TestHold(TreeTestCase):

    def start_holder(self, device, who='holder', why='copying files'):
        env = {'PATH': '/usr/bin:/bin', 'DBUS_SYSTEM_BUS_ADDRESS': self.bus_address,
               'LANG': 'C.UTF-8'}
        proc = subprocess.Popen(['/usr/bin/python3', '-c', HOLDER, device, who, why],
                                env=env, stdout=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (proc.poll() is None and proc.kill(), proc.wait()))
        line = proc.stdout.readline()
        self.assertEqual(line.strip(), 'held')
        return proc

    def test_hold_and_release_on_kill(self):
        self.start_daemon()
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        proc = self.start_holder('1-1.2')
        self.assertEqual(self.inhibitors(), [('hold', 'holder', 'copying files', STORAGE, proc.pid)])
        # the device and everything it depends on
        for dev in (STORAGE, HUB, ROOTHUB, XHCI):
            self.assertEqual(self.attr(dev, 'power/control'), 'on', dev)
            self.assertTrue(self.device(dev)['held'], dev)
        self.assertFalse(self.device(MOUSE)['held'])
        # a held device is not powered down
        rows = self.power_down('1-1.2', subtree=False)
        self.assertRows(rows, [(STORAGE, 'skipped', 'held')])
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')

        proc.send_signal(signal.SIGKILL)
        proc.wait()
        wait_until(lambda: self.inhibitors() == [], 5, 'the hold to go')
        self.wait_attr(STORAGE, 'power/control', 'auto')
        self.assertEqual(self.attr(HUB, 'power/control'), 'auto')
        self.assertFalse(self.device(STORAGE)['held'])

    def test_hold_keeps_suppliers(self):
        self.start_daemon()
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        self.laptop.write(GPU + '/power/control', 'auto')
        r, fds = self.bus.call_with_unix_fd_list_sync(
            BUS_NAME, OBJ_PATH, IFACE, 'Hold', GLib.Variant('(sss)', (HDA, '', 'playing')),
            GLib.VariantType('(h)'), Gio.DBusCallFlags.NONE, 5000, None, None)
        fd = fds.steal_fds()[r.unpack()[0]]
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        self.assertEqual(self.attr(GPU, 'power/control'), 'on')
        self.assertTrue(self.device(GPU)['held'])
        (what, who, why, dev, pid), = self.inhibitors()
        self.assertEqual((what, why, dev, pid), ('hold', 'playing', HDA, os.getpid()))
        self.assertTrue(who.startswith(':'), who)   # empty who: the bus name
        # two holders: the device stays held until both let go
        proc = self.start_holder(HDA)
        os.close(fd)
        wait_until(lambda: len(self.inhibitors()) == 1, 5, 'one hold to go')
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        proc.kill()
        proc.wait()
        wait_until(lambda: self.inhibitors() == [], 5, 'the last hold to go')
        self.wait_attr(HDA, 'power/control', 'auto')
        self.assertFalse(self.device(GPU)['held'])

    def test_hold_keeps_untagged_ancestor(self):
        # a parent udev's rules do not tag (not managed) is still on the
        # held device's path to the root
        bridge = self.laptop.add('platform', 'pp-bridge', None,
                                 ['power/control', 'auto', 'power/runtime_status', 'active'], [])
        child = self.laptop.add('platform', 'pp-child', bridge,
                                ['power/control', 'auto', 'power/runtime_status', 'active'],
                                ['POWERPOLICY_AUTOSUSPEND', '1'])
        self.start_daemon()
        self.assertNotIn(bridge, [d['path'] for d in self.call('ListDevices')[0]])
        self.assertEqual(self.device(child)['parent'], bridge)
        r, fds = self.bus.call_with_unix_fd_list_sync(
            BUS_NAME, OBJ_PATH, IFACE, 'Hold', GLib.Variant('(sss)', (child, 'me', 'test')),
            GLib.VariantType('(h)'), Gio.DBusCallFlags.NONE, 5000, None, None)
        fd = fds.steal_fds()[r.unpack()[0]]
        self.assertEqual(self.attr(child, 'power/control'), 'on')
        self.assertEqual(self.attr(bridge, 'power/control'), 'on')
        os.close(fd)
        self.wait_attr(bridge, 'power/control', 'auto')
        self.wait_attr(child, 'power/control', 'auto')


class TestTreeDBus(TreeTestCase):

    def assert_list_agrees(self):
        # ListDevices searches blockers with what earlier searches of the
        # same answer learned; GetDevice searches each on its own: the
        # same blocker for every device
        listed = {d['path']: d['blocker'] for d in self.call('ListDevices')[0]}
        self.assertGreater(len(listed), 5)
        for path, blocker in listed.items():
            self.assertEqual(self.device(path)['blocker'], blocker, path)
        return listed

    def test_get_device_tree_fields(self):
        self.start_daemon()
        gpu, hda = self.device(GPU), self.device('0000:00:1f.3')
        self.assertEqual(gpu['consumers'], [HDA])
        self.assertEqual(gpu['suppliers'], [])
        self.assertEqual(hda['suppliers'], [GPU])
        self.assertEqual(hda['consumers'], [])
        self.assertFalse(gpu['held'])

        # who keeps the USB controller awake? the mouse (control=on)
        self.laptop.write(XHCI + '/power/control', 'auto')
        self.assertEqual(self.device(XHCI)['blocker'], MOUSE)
        self.assertEqual(self.device(HUB)['blocker'], MOUSE)
        self.assertEqual(self.assert_list_agrees()[HUB], MOUSE)
        # the nearest one wins
        self.laptop.write(ROOTHUB + '/power/control', 'on')
        self.assertEqual(self.device(XHCI)['blocker'], ROOTHUB)
        self.assertEqual(self.assert_list_agrees()[XHCI], ROOTHUB)
        # nothing awake below: no blocker
        self.laptop.write(MOUSE + '/power/control', 'auto')
        self.assertEqual(self.device(HUB)['blocker'], '')
        self.assertEqual(self.assert_list_agrees()[HUB], '')
        # a device that is on itself has no blocker to report
        self.assertEqual(self.device(ROOTHUB)['blocker'], '')
        # a consumer keeps its supplier awake
        self.laptop.write(GPU + '/power/control', 'auto')
        self.laptop.write(HDA + '/power/control', 'on')
        self.assertEqual(self.device(GPU)['blocker'], HDA)
        # and ListDevices carries the same fields
        devices = {d['path']: d for d in self.call('ListDevices')[0]}
        self.assertEqual(devices[GPU]['blocker'], HDA)
        self.assertEqual(devices[HDA]['suppliers'], [GPU])

    def test_device_links_are_not_devices(self):
        self.start_daemon()
        # a device link is an edge: on its ends, never a device of its own
        paths = [d['path'] for d in self.call('ListDevices')[0]]
        self.assertIn(GPU, paths)
        self.assertFalse([p for p in paths if '/devlink' in p], paths)
        for arg in (DEVLINK, '/sys/class/devlink/' + DEVLINK_NAME, DEVLINK_NAME):
            self.assertDBusError(NSD, 'GetDevice', (arg,), '(s)')
            self.assertDBusError(NSD, 'PowerDown', (arg, True, 'auto'), '(sbs)')
            self.assertDBusError(NSD, 'Hold', (arg, 'me', 'why'), '(sss)')
        self.assertEqual(self.device(GPU)['consumers'], [HDA])

        # a link plugged later joins the tree as an edge, and leaves it
        name = 'pci:0000:00:14.0--pci:0000:00:17.0'
        tb = self.laptop.tb
        dl = self.laptop.add('devlink', 'virtual/devlink/' + name, None,
                             ['status', 'active', 'runtime_pm', '1', 'sync_state_only', '0'], [])
        tb.set_attribute_link(dl, 'supplier', '../../../pci0000:00/0000:00:14.0')
        tb.set_attribute_link(dl, 'consumer', '../../../pci0000:00/0000:00:17.0')
        tb.uevent(dl, 'add')
        wait_until(lambda: self.device(XHCI)['consumers'] == [AHCI], 5, 'the new link')
        self.assertEqual(self.device(AHCI)['suppliers'], [XHCI])
        self.assertNotIn(dl, [d['path'] for d in self.call('ListDevices')[0]])
        self.assertDBusError(NSD, 'GetDevice', (dl,), '(s)')
        tb.uevent(dl, 'remove')
        wait_until(lambda: self.device(XHCI)['consumers'] == [], 5, 'the link to go')
        self.assertEqual(self.device(AHCI)['suppliers'], [])

    def test_links_that_are_no_dependency_ignored(self):
        tb = self.laptop.tb
        # sync-state only: no power dependency
        sync = self.laptop.add('devlink', 'virtual/devlink/pci:0000:00:14.0--pci:0000:00:17.0',
                               None, ['status', 'active', 'sync_state_only', '1'], [])
        tb.set_attribute_link(sync, 'supplier', '../../../pci0000:00/0000:00:14.0')
        tb.set_attribute_link(sync, 'consumer', '../../../pci0000:00/0000:00:17.0')
        # an end that does not exist, by link and by name
        dangling = self.laptop.add('devlink', 'virtual/devlink/pci:0000:00:17.0--pci:0000:00:99.0',
                                   None, ['status', 'dormant', 'sync_state_only', '0'], [])
        tb.set_attribute_link(dangling, 'supplier', '../../../pci0000:00/0000:00:17.0')
        tb.set_attribute_link(dangling, 'consumer', '../../../pci0000:00/0000:00:99.0')
        self.start_daemon()
        for dev in (XHCI, AHCI):
            d = self.device(dev)
            self.assertEqual((d['suppliers'], d['consumers']), ([], []), dev)
        self.assertEqual(self.device(GPU)['consumers'], [HDA])
        self.assertRows(self.power_down(AHCI, subtree=False), [(AHCI, 'suspended')])

    def test_authorization_without_polkit(self):
        self.start_daemon()
        r = self.call_as('nobody', 'PowerDown', '(sbs)', ['1-1.2', False, 'auto'])
        self.assertEqual(r.get('error'), NAU, r)
        r = self.call_as('nobody', 'PowerUp', '(sb)', ['1-1.2', False])
        self.assertEqual(r.get('error'), NAU, r)
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')
        # holds are open to every local user (powerpolicyd(8),
        # POWER-DEPENDENCY TREE)
        r = self.call_as('nobody', 'Hold', '(sss)', ['1-1.2', 'nobody', 'test'])
        self.assertTrue(r['ok'], r)
        # ppcall did not keep the descriptor: the hold is gone again
        wait_until(lambda: self.inhibitors() == [], 5, 'the hold to go')
        self.wait_attr(STORAGE, 'power/control', 'auto')


if __name__ == '__main__':
    main()
