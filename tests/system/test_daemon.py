#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System tests: the real powerpolicyd on a simulated laptop (issue 2)."""

import errno
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from gi.repository import GLib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ppharness import (  # noqa: E402
    AC, AHCI, BAT, HDA, HUB, MOUSE, POWER_SAVE, ROOTHUB, SCSI_HOST, STORAGE, XHCI,
    BUILDDIR, Daemon, NotInTestbed, PowerPolicyTestCase, TEST_CONFIG, main, wait_until,
)

SRCDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')


class TestColdplug(PowerPolicyTestCase):

    def assert_ac_policy(self):
        self.assertEqual(self.attr(XHCI, 'power/control'), 'on')
        self.assertEqual(self.attr(ROOTHUB, 'power/control'), 'auto')
        self.assertEqual(self.attr(HUB, 'power/control'), 'auto')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')
        self.assertEqual(self.attr(SCSI_HOST, 'link_power_management_policy'), 'med_power_with_dipm')
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        self.assertEqual(self.laptop.read(POWER_SAVE), '10')

    def test_coldplug_applies_policy(self):
        self.start_daemon()
        self.assert_ac_policy()
        # attributes the device does not have are never created
        self.assertFalse(os.path.exists(self.laptop.path(XHCI + '/power/autosuspend_delay_ms')))
        self.assertFalse(os.path.exists(self.laptop.path(HDA + '/link_power_management_policy')))

    def test_hid_stays_on(self):
        self.laptop.write(MOUSE + '/power/control', 'auto')
        self.start_daemon()
        self.wait_attr(MOUSE, 'power/control', 'on')
        self.laptop.set_ac(False)
        self.wait_attr(STORAGE, 'power/autosuspend_delay_ms', '2000')
        self.assertEqual(self.attr(MOUSE, 'power/control'), 'on')

    def test_ignore_untouched(self):
        self.laptop.tb.set_property(STORAGE, 'POWERPOLICY_IGNORE', '1')
        self.start_daemon()
        self.assertEqual(self.attr(HUB, 'power/control'), 'auto')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '2000')
        info = self.call('GetDevice', ('1-1.2',), '(s)')[0]
        self.assertTrue(info['ignored'])

    def test_udev_properties_beat_class(self):
        self.laptop.tb.set_property(STORAGE, 'POWERPOLICY_AUTOSUSPEND', '0')
        self.laptop.tb.set_property(HUB, 'POWERPOLICY_AUTOSUSPEND_DELAY_MS', '777')
        self.start_daemon()
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')
        self.assertEqual(self.attr(HUB, 'power/autosuspend_delay_ms'), '777')
        self.assertEqual(self.attr(HUB, 'power/control'), 'auto')


class TestHotplug(PowerPolicyTestCase):

    def test_usb_add_applies(self):
        self.start_daemon()
        self.subscribe('DeviceChanged')
        dev = self.laptop.add_usb(HUB, '1-1.3', 'usb-storage', control='on', delay='100')
        self.laptop.tb.uevent(dev, 'add')
        self.wait_attr(dev, 'power/control', 'auto', timeout=5)
        self.assertEqual(self.attr(dev, 'power/autosuspend_delay_ms'), '5000')
        wait_until(lambda: any(s[0] == 'DeviceChanged' and s[1][0] == dev for s in self.signals),
                   5, 'DeviceChanged for the new device')
        changed = [s[1][1] for s in self.signals if s[1][0] == dev][0]
        self.assertEqual(changed['control'], 'auto')
        self.assertEqual(changed['autosuspend_delay_ms'], 5000)
        paths = [d['path'] for d in self.call('ListDevices')[0]]
        self.assertIn(dev, paths)

    def test_remove_drops_device(self):
        self.start_daemon()
        self.laptop.tb.uevent(STORAGE, 'remove')
        self.laptop.tb.remove_device(STORAGE)

        def gone():
            return STORAGE not in [d['path'] for d in self.call('ListDevices')[0]]
        wait_until(gone, 5, 'the removed device to leave ListDevices')
        # the daemon is still healthy and applies to new devices
        dev = self.laptop.add_usb(HUB, '1-1.4', 'usb', control='on')
        self.laptop.tb.uevent(dev, 'add')
        self.wait_attr(dev, 'power/control', 'auto')

    def test_change_uevent_reclassifies(self):
        self.start_daemon()
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.laptop.tb.set_property(STORAGE, 'POWERPOLICY_CLASS', 'usb-hid')
        self.laptop.tb.uevent(STORAGE, 'change')
        self.wait_attr(STORAGE, 'power/control', 'on')


    def paths(self):
        return [d['path'] for d in self.call('ListDevices')[0]]

    def try_device(self, path):
        try:
            self.call('GetDevice', (path,), '(s)')
            return True
        except GLib.GError:
            return False

    def add_platform(self, name, props):
        return self.laptop.add('platform', name, None,
                               ['power/control', 'on', 'power/runtime_status', 'active'], props)

    def test_only_tagged_devices_managed(self):
        # the rules tag a platform device only for a property of ours
        tagged = self.add_platform('pp-tagged', ['POWERPOLICY_AUTOSUSPEND', '1'])
        plain = self.add_platform('pp-plain', [])
        self.start_daemon()
        self.assertEqual(self.attr(tagged, 'power/control'), 'auto')
        self.assertIn(tagged, self.paths())
        self.assertNotIn(plain, self.paths())
        self.assertEqual(self.attr(plain, 'power/control'), 'on')
        self.assertDBusError('org.powerpolicy1.Error.NoSuchDevice', 'GetDevice', (plain,), '(s)')

        # hotplug: an untagged device is not picked up (the tagged one sent
        # after it shows that its event has been handled)
        plain2 = self.add_platform('pp-plain2', [])
        tagged2 = self.add_platform('pp-tagged2', ['POWERPOLICY_AUTOSUSPEND', '1'])
        self.laptop.tb.uevent(plain2, 'add')
        self.laptop.tb.uevent(tagged2, 'add')
        self.wait_attr(tagged2, 'power/control', 'auto')
        self.assertNotIn(plain2, self.paths())
        self.assertEqual(self.attr(plain2, 'power/control'), 'on')

    def test_device_losing_its_tag_is_forgotten(self):
        dev = self.add_platform('pp-tagged', ['POWERPOLICY_AUTOSUSPEND', '1'])
        self.start_daemon()
        self.assertEqual(self.attr(dev, 'power/control'), 'auto')
        # the administrator's property goes: the rules no longer tag it
        self.laptop.tb.set_property(dev, 'POWERPOLICY_AUTOSUSPEND', '')
        self.laptop.tb.uevent(dev, 'change')
        wait_until(lambda: not self.try_device(dev), 5, 'the untagged device to be forgotten')
        self.assertNotIn(dev, self.paths())
        # as after a remove: what the daemon wrote stays
        self.assertEqual(self.attr(dev, 'power/control'), 'auto')
        # tagged again: managed again
        self.laptop.write(dev + '/power/control', 'on')
        self.laptop.tb.set_property(dev, 'POWERPOLICY_AUTOSUSPEND', '1')
        self.laptop.tb.uevent(dev, 'change')
        self.wait_attr(dev, 'power/control', 'auto')
        self.assertIn(dev, self.paths())

    def test_device_that_lost_its_tag_not_coldplugged(self):
        # Real udevd (>= 247) keeps a device in the index of every tag it
        # ever had (G: in its database); only Q:, CURRENT_TAGS, says that
        # it has the tag now. After a restart the daemon must not manage
        # a device that lost the tag, as it did not before.
        config = TEST_CONFIG + '[Class platform]\nControl=auto\n'
        dev = self.add_platform('pp-tagged', ['POWERPOLICY_AUTOSUSPEND', '1'])
        d = self.start_daemon(config_text=config)
        self.assertIn(dev, self.paths())
        self.laptop.tb.set_property(dev, 'POWERPOLICY_AUTOSUSPEND', '')
        self.laptop.tb.uevent(dev, 'change')
        wait_until(lambda: not self.try_device(dev), 5, 'the untagged device to be forgotten')
        self.assertEqual(d.stop(), 0)
        # what udevd keeps of the device now, as udevd 252 writes it
        dev_id = '+platform:pp-tagged'
        run_udev = os.path.join(self.laptop.root, 'run', 'udev')
        self.assertTrue(os.path.exists(os.path.join(run_udev, 'tags', 'powerpolicy', dev_id)))
        with open(os.path.join(run_udev, 'data', dev_id)) as f:
            db = f.read().splitlines()
        self.assertIn('G:powerpolicy', db)
        self.assertNotIn('Q:powerpolicy', db)
        self.assertIn('V:1', db)

        self.laptop.write(dev + '/power/control', 'on')
        self.start_daemon(config_text=config)
        self.assertNotIn(dev, self.paths())
        self.assertIn(STORAGE, self.paths())
        self.assertEqual(self.attr(dev, 'power/control'), 'on')
        self.assertDBusError('org.powerpolicy1.Error.NoSuchDevice', 'GetDevice', (dev,), '(s)')


class TestPowerSource(PowerPolicyTestCase):

    def test_ac_unplug_switches_layers(self):
        self.start_daemon()
        self.assertFalse(self.get_property('OnBattery'))
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        self.assertEqual(self.attr(XHCI, 'power/control'), 'on')

        self.laptop.set_ac(False)
        # the daemon writes one attribute after the other: wait for each
        self.wait_attr(XHCI, 'power/control', 'auto')
        self.wait_attr(STORAGE, 'power/autosuspend_delay_ms', '2000')
        self.wait_attr(SCSI_HOST, 'link_power_management_policy', 'min_power')
        wait_until(lambda: self.laptop.read(POWER_SAVE) == '1', 5, 'power_save=1')
        self.assertTrue(self.get_property('OnBattery'))
        wait_until(lambda: any(s[0] == 'PropertiesChanged' and s[1][1].get('OnBattery') is True
                               for s in self.signals), 5, 'PropertiesChanged(OnBattery=true)')

        self.laptop.set_ac(True)
        self.wait_attr(XHCI, 'power/control', 'on')
        self.wait_attr(STORAGE, 'power/autosuspend_delay_ms', '5000')
        self.wait_attr(SCSI_HOST, 'link_power_management_policy', 'med_power_with_dipm')
        wait_until(lambda: self.laptop.read(POWER_SAVE) == '10', 5, 'power_save=10')
        self.assertFalse(self.get_property('OnBattery'))

    def test_starts_on_battery(self):
        self.laptop.tb.set_attribute(self.laptop.ac, 'online', '0')
        self.start_daemon()
        self.assertTrue(self.get_property('OnBattery'))
        self.assertEqual(self.attr(XHCI, 'power/control'), 'auto')


class SmallRuntimeDirDaemon(Daemon):
    """The daemon in a private mount namespace where its runtime directory
    is a tiny tmpfs: the journal can be made to fail with a real ENOSPC.
    The test reaches that tmpfs through /proc/PID/root (the daemon's own
    mount namespace); it goes away with the daemon."""

    def command(self):
        return ['unshare', '--mount', '--propagation', 'private', '--',
                'sh', '-ec', 'mount -t tmpfs -o size=64k,mode=0700 pp-test-run "$0"; exec "$@"',
                self.runtime_dir] + super().command()

    def in_namespace(self, path):
        return '/proc/%d/root%s' % (self.proc.pid, path)


class TestRestore(PowerPolicyTestCase):

    ORIGINALS = [
        (XHCI, 'power/control', 'on'),
        (HUB, 'power/control', 'on'),
        (STORAGE, 'power/control', 'on'),
        (STORAGE, 'power/autosuspend_delay_ms', '2000'),
        (SCSI_HOST, 'link_power_management_policy', 'max_performance'),
        (HDA, 'power/control', 'on'),
    ]

    def assert_originals(self):
        for dev, attr, value in self.ORIGINALS:
            self.assertEqual(self.attr(dev, attr), value, '%s/%s' % (dev, attr))
        self.assertEqual(self.laptop.read(POWER_SAVE), '0')

    def test_sigterm_restores(self):
        d = self.start_daemon()
        self.laptop.set_ac(False)
        # module parameters are written last in a pass: the pass is complete
        wait_until(lambda: self.laptop.read(POWER_SAVE) == '1', 5, 'the battery layer')
        self.assertEqual(self.attr(XHCI, 'power/control'), 'auto')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '2000')
        self.laptop.set_ac(True)
        wait_until(lambda: self.laptop.read(POWER_SAVE) == '10', 5, 'the AC layer')
        self.assertNotEqual(self.attr(HDA, 'power/control'), 'on')
        self.assertEqual(d.stop(signal.SIGTERM), 0)
        self.assert_originals()
        self.assertEqual(os.listdir(os.path.join(d.runtime_dir, 'originals')), [])

    def test_sigint_restores(self):
        d = self.start_daemon()
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        self.assertEqual(d.stop(signal.SIGINT), 0)
        self.assert_originals()

    def test_restore_on_exit_false_keeps_policy(self):
        d = self.start_daemon(config_text=TEST_CONFIG.replace('RestoreOnExit=true',
                                                              'RestoreOnExit=false'))
        self.assertEqual(d.stop(signal.SIGTERM), 0)
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        # the originals stay for the next run, marked kept (not a crash's)
        names = os.listdir(os.path.join(d.runtime_dir, 'originals'))
        self.assertIn('kept', names)
        text, _ = self.journal_text(d)
        self.assertIn('%s/power/control\ton\n' % HDA, text)

    def journal_text(self, d):
        """Everything the daemon's journal of originals holds, and how many files."""
        directory = os.path.join(d.runtime_dir, 'originals')
        names = sorted(os.listdir(directory))
        text = ''
        for name in names:
            with open(os.path.join(directory, name)) as f:
                text += f.read()
        return text, len(names)

    def test_journal_pruned_after_unplug(self):
        d = self.start_daemon()
        _, files_at_start = self.journal_text(d)
        gone = []
        for i in range(3, 23):
            dev = self.laptop.add_usb(HUB, '1-1.%d' % i, 'usb-storage', control='on', delay='100')
            self.laptop.tb.uevent(dev, 'add')
            self.wait_attr(dev, 'power/control', 'auto')
            self.laptop.tb.uevent(dev, 'remove')
            self.laptop.tb.remove_device(dev)
            wait_until(lambda: dev not in [x['path'] for x in self.call('ListDevices')[0]], 5,
                       'the daemon to drop ' + dev)
            gone.append(dev)
        text, files = self.journal_text(d)
        # the devices that went left nothing behind; what stays is one file
        for dev in gone:
            self.assertNotIn(dev + '/', text)
        self.assertIn(STORAGE + '/power/control', text)
        self.assertLessEqual(files, max(files_at_start, 1))
        self.assertEqual(d.stop(signal.SIGTERM), 0)
        self.assert_originals()

    def test_unjournalled_pass_retried(self):
        d = self.new_daemon()
        # the journal cannot be written (its directory's place is taken,
        # standing in for a full runtime directory): nothing is changed
        os.makedirs(d.runtime_dir)
        blocker = os.path.join(d.runtime_dir, 'originals')
        with open(blocker, 'w') as f:
            f.write('in the way\n')
        d.start()
        self.wait_for_name()
        self.assertIn('Cannot record original values', d.read_log())
        self.assert_originals()
        # a device plugged in meanwhile is not changed either
        dev = self.laptop.add_usb(HUB, '1-1.3', 'usb-storage', control='on', delay='100')
        self.laptop.tb.uevent(dev, 'add')
        wait_until(lambda: dev in [x['path'] for x in self.call('ListDevices')[0]], 5,
                   'the daemon to see ' + dev)
        self.assertEqual(self.attr(dev, 'power/control'), 'on')
        self.assert_originals()
        # once the journal can be written, the next event (an unrelated
        # one) applies everything, the new device included
        os.unlink(blocker)
        self.laptop.tb.uevent(HDA, 'change')
        self.wait_attr(dev, 'power/control', 'auto')
        # module parameters are written last in a pass: the pass is complete
        wait_until(lambda: self.laptop.read(POWER_SAVE) == '10', 5, 'the whole pass')
        self.assertEqual(self.attr(dev, 'power/autosuspend_delay_ms'), '5000')
        self.assertEqual(self.attr(XHCI, 'power/control'), 'on')
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')
        # and all of it is journalled: stopping puts every original back
        self.assertEqual(d.stop(signal.SIGTERM), 0)
        self.assert_originals()
        self.assertEqual(self.attr(dev, 'power/control'), 'on')
        self.assertEqual(self.attr(dev, 'power/autosuspend_delay_ms'), '100')

    def test_journal_full_retried(self):
        d = SmallRuntimeDirDaemon(self.laptop, bus_address=self.bus_address)
        self.daemons.append(d)
        os.makedirs(d.runtime_dir)
        d.start()
        try:
            self.wait_for_name()
        except AssertionError:
            if 'mount' in d.read_log() or 'unshare' in d.read_log():
                self.skipTest('cannot mount a private tmpfs here: ' + d.read_log()[-200:])
            raise
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        # fill the runtime directory: the next record fails with ENOSPC
        filler = d.in_namespace(os.path.join(d.runtime_dir, 'filler'))
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while True:
                os.write(fd, b'\0' * 4096)
        except OSError as e:
            self.assertEqual(e.errno, errno.ENOSPC)
        finally:
            os.close(fd)
        dev = self.laptop.add_usb(HUB, '1-1.3', 'usb-storage', control='on', delay='100')
        self.laptop.tb.uevent(dev, 'add')
        wait_until(lambda: 'No space left on device' in d.read_log(), 5, 'the record to fail')
        self.assertEqual(self.attr(dev, 'power/control'), 'on')
        # space returns: the next event applies the device plugged in meanwhile
        os.unlink(filler)
        self.laptop.tb.uevent(HDA, 'change')
        self.wait_attr(dev, 'power/control', 'auto')
        # module parameters are written last in a pass: the pass is complete
        wait_until(lambda: self.laptop.read(POWER_SAVE) == '10', 5, 'the whole pass')
        self.assertEqual(self.attr(dev, 'power/autosuspend_delay_ms'), '5000')
        self.assertEqual(d.stop(signal.SIGTERM), 0)
        self.assert_originals()
        self.assertEqual(self.attr(dev, 'power/control'), 'on')
        self.assertEqual(self.attr(dev, 'power/autosuspend_delay_ms'), '100')

    def test_crash_then_restart_restores(self):
        d = self.start_daemon()
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        d.stop(signal.SIGKILL)
        self.assertTrue(os.listdir(os.path.join(d.runtime_dir, 'originals')))
        # a restart with a policy that changes nothing shows the originals back
        d2 = self.start_daemon(workdir=d.workdir, config_text='[Daemon]\nRestoreOnExit=true\n')
        self.assert_originals()
        self.assertIn('did not exit cleanly', d2.read_log())
        self.assertEqual(d2.stop(), 0)

    def test_crash_restart_same_policy_keeps_true_originals(self):
        d = self.start_daemon()
        d.stop(signal.SIGKILL)
        d2 = self.start_daemon(workdir=d.workdir)
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        self.assertEqual(d2.stop(), 0)
        # the originals written back are those from before the first run
        self.assert_originals()


class TestBadInput(PowerPolicyTestCase):

    def test_broken_config_line_reported_rest_applies(self):
        config = TEST_CONFIG.replace('[Class usb-hid]\n',
                                     '[Class usb-hid]\nthis line is broken\nWakeup=sometimes\n')
        d = self.start_daemon(config_text=config)
        log = d.read_log()
        self.assertIn("%s:" % d.config_path, log)
        lines = config.splitlines()
        broken = lines.index('this line is broken') + 1
        self.assertIn('%s:%d: malformed line' % (d.config_path, broken), log)
        self.assertIn("%s:%d: invalid value 'sometimes' for Wakeup" % (d.config_path, broken + 1), log)
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')

    def test_dropins_later_wins(self):
        d = self.new_daemon()
        os.makedirs(d.config_path + '.d')
        with open(d.config_path + '.d/10-a.conf', 'w') as f:
            f.write('[Class pci-audio]\nControl=on\n')
        with open(d.config_path + '.d/20-b.conf', 'w') as f:
            f.write('[Class usb-storage]\nAutosuspendDelayMs=4242\n[Bogus]\nx=1\n')
        d.start()
        self.wait_for_name()
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '4242')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.assertIn('20-b.conf:3: unknown section [Bogus]', d.read_log())

    def default_config_paths(self):
        """The files the daemon reads without --config, from the build's config.h."""
        defs = {}
        with open(os.path.join(BUILDDIR, 'config.h')) as f:
            for line in f:
                parts = line.split(None, 2)
                if len(parts) == 3 and parts[0] == '#define':
                    defs[parts[1]] = parts[2].strip().strip('"')
        etc = os.path.join(defs['PP_SYSCONFDIR'], 'powerpolicy', 'powerpolicy.conf')
        vendor = os.path.join(defs['PP_DATADIR'], 'powerpolicy', 'powerpolicy.conf')
        return [etc, etc + '.d', vendor]

    def test_missing_config_uses_builtin_defaults(self):
        present = [p for p in self.default_config_paths() if os.path.exists(p)]
        if present:
            self.skipTest('an installed configuration exists: %s' % ', '.join(present))
        self.laptop.write(MOUSE + '/power/control', 'auto')
        d = self.new_daemon(config_text=None, default_config=True)
        d.start()
        self.wait_for_name()
        self.assertIn('built-in defaults', d.read_log())
        # the shipped policy never autosuspends a HID device, and lets a
        # storage stick autosuspend
        self.assertEqual(self.attr(MOUSE, 'power/control'), 'on')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')

    def test_explicit_missing_config_fails(self):
        before = self.attr(HDA, 'power/control')
        d = self.new_daemon(config_text=None)
        rc, log = d.run()
        self.assertEqual(rc, 1, log)
        self.assertIn('cannot read the configuration', log)
        self.assertIn(d.config_path, log)
        self.assertNotIn('built-in defaults', log)
        self.assertEqual(self.attr(HDA, 'power/control'), before)

    def test_bad_lines_dropped_rest_applies(self):
        # a NUL byte, invalid UTF-8 and a duplicate section: each reported
        # with its line, the rest of the file applies
        config = TEST_CONFIG.replace('[Class usb-hid]\n',
                                     '[Class usb-hid]\nbad\x00line\nAttr.x=caf\xe9\n', 1)
        config += '[Class usb-hid]\nControl=on\n'
        d = self.new_daemon(config_text=None)
        with open(d.config_path, 'w', encoding='latin-1') as f:
            f.write(config)
        d.start()
        self.wait_for_name()
        log = d.read_log()
        lines = config.splitlines()
        bad = lines.index('bad\x00line') + 1
        self.assertIn('%s:%d: line contains a NUL byte' % (d.config_path, bad), log)
        self.assertIn('%s:%d: line is not valid UTF-8' % (d.config_path, bad + 1), log)
        self.assertIn('%s:%d: section [Class usb-hid] appears again' % (d.config_path, len(lines) - 1),
                      log)
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')

    def test_failing_attribute_reported_rest_applies(self):
        target = self.laptop.path(STORAGE + '/power/control')
        os.unlink(target)
        os.symlink('/dev/full', target)
        lpm = self.laptop.path(SCSI_HOST + '/link_power_management_policy')
        os.unlink(lpm)
        os.mkdir(lpm)
        d = self.start_daemon()
        log = d.read_log()
        self.assertIn(STORAGE, log)
        self.assertIn('power/control', log)
        self.assertIn('/dev/full', log)
        self.assertIn("Cannot write 'med_power_with_dipm' to %s/link_power_management_policy" % SCSI_HOST,
                      log)
        self.assertIn('Is a directory', log)
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')
        self.assertEqual(self.attr(HUB, 'power/control'), 'auto')
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        # logged once, however often the policy re-applies (module
        # parameters are written last in a pass: the pass is complete)
        self.laptop.set_ac(False)
        wait_until(lambda: self.laptop.read(POWER_SAVE) == '1', 5, 'the battery layer')
        self.laptop.set_ac(True)
        wait_until(lambda: self.laptop.read(POWER_SAVE) == '10', 5, 'the AC layer')
        failures = [line for line in d.read_log().splitlines() if 'Cannot write' in line]
        self.assertEqual(len([f for f in failures if 'link_power_management_policy' in f]), 1)
        self.assertEqual(len([f for f in failures if STORAGE + '/power/control' in f]), 1)
        self.assertEqual(d.stop(), 0)

    def test_bad_udev_property_reported(self):
        self.laptop.tb.set_property(STORAGE, 'POWERPOLICY_AUTOSUSPEND_DELAY_MS', 'soon')
        d = self.start_daemon()
        self.assertIn('POWERPOLICY_AUTOSUSPEND_DELAY_MS=soon', d.read_log())
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')


class TestCheckConfig(PowerPolicyTestCase):
    """powerpolicyd --check-config: every problem as FILE:LINE, exit 1 if any."""

    def check(self, config_text=None, config_path=None, quirks=None):
        """Run --check-config with @quirks ({name: text}) as the quirk database."""
        qdir = tempfile.mkdtemp(prefix='pp-quirks-')
        self.addCleanup(shutil.rmtree, qdir, True)
        for name, text in (quirks or {}).items():
            with open(os.path.join(qdir, name), 'w') as f:
                f.write(text)
        d = self.new_daemon(config_text=config_text, config_path=config_path,
                            args=['--check-config'], bus_address='unix:path=/nonexistent/bus',
                            env_extra={'POWERPOLICY_VIDEO_QUIRKS_DIR': qdir})
        before = self.laptop_snapshot()
        rc, log = d.run()
        # writes nothing: no state directories, no attribute changed
        self.assertFalse(os.path.exists(d.runtime_dir))
        self.assertFalse(os.path.exists(d.state_dir))
        self.assertEqual(self.laptop_snapshot(), before)
        return d, qdir, rc, log

    def laptop_snapshot(self):
        return {(dev, a): self.attr(dev, a) for dev, a in (
            (HDA, 'power/control'), (STORAGE, 'power/control'),
            (STORAGE, 'power/autosuspend_delay_ms'), (SCSI_HOST, 'link_power_management_policy'))}

    def test_shipped_config_ok(self):
        shipped = os.path.abspath(os.path.join(SRCDIR, 'data', 'powerpolicy.conf'))
        good_db = 'match system.hardware.vendor regex Foo\naddquirk --quirk-s3-bios\nendmatch\n'
        d, _, rc, log = self.check(config_path=shipped, quirks={'10-good.quirkdb': good_db})
        self.assertEqual(rc, 0, log)
        self.assertIn('configuration OK', log)
        # the shipped file carries the driver exclusions and :idle sections
        with open(shipped) as f:
            text = f.read()
        self.assertIn('ExcludeDrivers=mei_me nouveau radeon xhci_hcd amdgpu nvidia\n', text)
        self.assertIn('LowBatteryPercent=20\n', text)
        self.assertIn('[Class pci:idle]\n', text)

    def test_problems_reported_exit_1(self):
        config = '[Daemon]\nIdleTimeoutSec\nMaxInhibitors=0\n[Class usb]\nControl=auto\n'
        bad_db = 'match system.hardware.vendor regex Foo\nfrobnicate\nendmatch\n'
        d, qdir, rc, log = self.check(config_text=config, quirks={'10-bad.quirkdb': bad_db})
        self.assertEqual(rc, 1, log)
        self.assertIn('%s:2: malformed line' % d.config_path, log)
        self.assertIn("%s:3: invalid value '0' for MaxInhibitors" % d.config_path, log)
        self.assertIn("%s:2: unknown directive 'frobnicate'" % os.path.join(qdir, '10-bad.quirkdb'),
                      log)
        self.assertIn('3 problems found', log)

    def test_dropins_checked(self):
        d = self.new_daemon(args=['--check-config'], bus_address='unix:path=/nonexistent/bus',
                            config_text='[Class usb]\nControl=auto\n')
        os.makedirs(d.config_path + '.d')
        dropin = d.config_path + '.d/50-local.conf'
        with open(dropin, 'w') as f:
            f.write('[Class usb-hid]\nControl=on\nControl=auto\n')
        rc, log = d.run()
        self.assertEqual(rc, 1, log)
        self.assertIn('%s:3: Control set again in [Class usb-hid] (before at line 2), '
                      'the later value wins' % dropin, log)

    def test_missing_file(self):
        d, _, rc, log = self.check(config_text=None)
        self.assertEqual(rc, 1, log)
        self.assertIn(d.config_path, log)
        self.assertNotIn('configuration OK', log)


class TestModes(PowerPolicyTestCase):

    def test_oneshot_without_bus(self):
        d = self.new_daemon(args=['--oneshot'], bus_address='unix:path=/nonexistent/bus')
        rc, log = d.run()
        self.assertEqual(rc, 0, log)
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')
        self.assertEqual(self.laptop.read(POWER_SAVE), '10')
        # a one-shot run leaves no crash record behind
        self.assertFalse(os.path.exists(os.path.join(d.runtime_dir, 'originals')) and
                         os.listdir(os.path.join(d.runtime_dir, 'originals')))

    def test_oneshot_failure_exit_status(self):
        target = self.laptop.path(STORAGE + '/power/control')
        os.unlink(target)
        os.mkdir(target)
        d = self.new_daemon(args=['--oneshot'])
        rc, log = d.run()
        self.assertEqual(rc, 1, log)
        self.assertIn('attribute writes failed', log)
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')

    def test_dry_run_writes_nothing(self):
        before = {(dev, a): self.attr(dev, a) for dev, a, _ in TestRestore.ORIGINALS}
        d = self.start_daemon(args=['--dry-run'])
        self.laptop.set_ac(False)
        wait_until(lambda: self.get_property('OnBattery'), 5, 'OnBattery')
        after = {(dev, a): self.attr(dev, a) for dev, a, _ in TestRestore.ORIGINALS}
        self.assertEqual(before, after)
        self.assertEqual(self.laptop.read(POWER_SAVE), '0')
        self.assertIn('dry-run: would write', d.read_log())
        self.assertEqual(d.stop(), 0)

    def test_dry_run_oneshot(self):
        d = self.new_daemon(args=['--oneshot', '--dry-run'])
        rc, log = d.run()
        self.assertEqual(rc, 0, log)
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        self.assertIn("dry-run: would write 'auto' to %s/power/control" % HDA, log)

    def test_second_daemon_exits_nonzero(self):
        self.start_daemon()
        d2 = self.new_daemon().start()
        rc = d2.proc.wait(timeout=10)
        d2.log.close()
        d2.proc = None
        self.assertNotEqual(rc, 0)
        self.assertIn('cannot own the name org.powerpolicy1', d2.read_log())

    def test_version_and_help(self):
        exe = self.new_daemon().command()[0]
        out = subprocess.run([exe, '--version'], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0)
        self.assertRegex(out.stdout, r'^powerpolicyd \d+\.\d+')
        out = subprocess.run([exe, '--help'], capture_output=True, text=True)
        for opt in ('--config', '--state-dir', '--runtime-dir', '--no-logind', '--dry-run',
                    '--oneshot', '--check-config', '--verbose', '--version'):
            self.assertIn(opt, out.stdout)
        out = subprocess.run([exe, '--bogus'], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)

    def test_harness_refuses_outside_testbed(self):
        outside = Daemon(None)
        self.addCleanup(outside.cleanup)
        with self.assertRaises(NotInTestbed):
            outside.start()
        saved = os.environ['LD_PRELOAD']
        try:
            os.environ['LD_PRELOAD'] = ''
            with self.assertRaises(NotInTestbed):
                self.new_daemon().start()
        finally:
            os.environ['LD_PRELOAD'] = saved


class TestDBus(PowerPolicyTestCase):

    def test_list_devices(self):
        self.start_daemon()
        devices = {d['path']: d for d in self.call('ListDevices')[0]}
        for p in (XHCI, ROOTHUB, HUB, MOUSE, STORAGE, AHCI, SCSI_HOST, HDA, AC, BAT):
            self.assertIn(p, devices)
        s = devices[STORAGE]
        self.assertEqual(s['class'], 'usb-storage')
        self.assertEqual(s['subsystem'], 'usb')
        self.assertEqual(s['parent'], HUB)
        self.assertEqual(s['control'], 'auto')
        self.assertEqual(s['autosuspend_delay_ms'], 5000)
        self.assertEqual(s['wakeup'], 'disabled')
        self.assertEqual(s['runtime_status'], 'active')
        self.assertEqual(s['suppliers'], [])
        self.assertEqual(s['consumers'], [])
        self.assertFalse(s['held'])
        self.assertEqual(s['blocker'], '')
        self.assertEqual(devices[XHCI]['parent'], '')
        self.assertEqual(devices[XHCI]['autosuspend_delay_ms'], -1)
        self.assertEqual(devices[AC]['runtime_status'], 'unsupported')
        self.assertEqual(devices[AC]['control'], '')
        self.assertEqual(devices[AHCI]['driver'], 'ahci')
        self.assertEqual(devices[SCSI_HOST]['class'], 'sata-host')

    def test_get_device_resolution(self):
        self.start_daemon()
        for arg in (STORAGE, '1-1.2', '/sys/bus/usb/devices/1-1.2', '0000:00:1f.3',
                    '/sys/class/scsi_host/host0'):
            info = self.call('GetDevice', (arg,), '(s)')[0]
            self.assertTrue(info['path'] in (STORAGE, HDA, SCSI_HOST), arg)
        self.assertEqual(self.call('GetDevice', ('/sys/bus/usb/devices/1-1.2',), '(s)')[0]['path'],
                         STORAGE)
        self.assertEqual(self.call('GetDevice', ('/sys/class/scsi_host/host0',), '(s)')[0]['path'],
                         SCSI_HOST)

    def test_get_device_errors(self):
        self.start_daemon()
        nsd = 'org.powerpolicy1.Error.NoSuchDevice'
        inv = 'org.powerpolicy1.Error.InvalidArgument'
        self.assertDBusError(nsd, 'GetDevice', ('1-9',), '(s)')
        self.assertDBusError(nsd, 'GetDevice', ('/sys/devices/nonexistent',), '(s)')
        self.assertDBusError(nsd, 'GetDevice', ('/etc/passwd',), '(s)')
        self.assertDBusError(nsd, 'GetDevice', ('/sys/module/snd_hda_intel',), '(s)')
        self.assertDBusError(inv, 'GetDevice', ('',), '(s)')
        self.assertDBusError(inv, 'GetDevice', (STORAGE + '/../../..',), '(s)')
        self.assertDBusError(inv, 'GetDevice', ('x' * 5000,), '(s)')
        self.assertDBusError(inv, 'GetDevice', ('usb1/1-1',), '(s)')

    def test_properties(self):
        self.start_daemon()
        self.assertRegex(self.get_property('Version'), r'^\d+\.\d+')
        self.assertFalse(self.get_property('OnBattery'))
        self.assertIn(self.get_property('Backend'), ('logind', 'kernel'))

    def test_reload(self):
        d = self.start_daemon()
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        with open(d.config_path, 'w') as f:
            f.write(TEST_CONFIG.replace('[Class pci-audio]\nControl=auto',
                                        '[Class pci-audio]\nControl=on'))
        self.call('Reload')
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        with open(d.config_path, 'a') as f:
            f.write('[Class usb]\nnonsense\n')
        err = self.assertDBusError('org.powerpolicy1.Error.InvalidArgument', 'Reload')
        self.assertIn('malformed line', err.message)
        self.assertIn(d.config_path, err.message)
        # still applied what was valid
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')

    def test_reload_vanished_config_keeps_policy(self):
        d = self.start_daemon(config_text=TEST_CONFIG.replace('[Class pci-audio]\nControl=auto',
                                                              '[Class pci-audio]\nControl=on'))
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        os.unlink(d.config_path)
        err = self.assertDBusError('org.powerpolicy1.Error.InvalidArgument', 'Reload')
        self.assertIn(d.config_path, err.message)
        self.assertIn('keeping the configuration in force', err.message)
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')

    def test_sighup_reloads(self):
        d = self.start_daemon()
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        with open(d.config_path, 'w') as f:
            f.write(TEST_CONFIG.replace('[Class pci-audio]\nControl=auto',
                                        '[Class pci-audio]\nControl=on'))
        d.proc.send_signal(signal.SIGHUP)
        self.wait_attr(HDA, 'power/control', 'on')
        self.assertIsNone(d.proc.poll())
        self.assertEqual(d.stop(), 0)


if __name__ == '__main__':
    main()
