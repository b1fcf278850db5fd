#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System tests: the one dry-run switch (issue 9).

With DryRun=true in the configuration (not --dry-run), the daemon goes
through everything that writes: start, a battery switch, user idle, a lid
close that powers the panel off, PrepareForSleep(true/false) from logind,
Suspend on the kernel path, PowerDown --off and stop. The testbed's sys/
and proc/ trees must come out byte for byte as they went in, no helper
may run, and each would-be action must be in the log.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ppharness import (  # noqa: E402
    AC, HUB, POWER_SAVE, STORAGE, TEST_CONFIG, XHCI, main, wait_until,
)
from ppevdev import KEYBOARD, LID, SW_LID  # noqa: E402
from test_sleep import INSPIRON_1501, SLEEP_CONFIG, SleepTestCase  # noqa: E402
from test_tree import STORAGE_PORT  # noqa: E402

DRY_RUN_CONFIG = SLEEP_CONFIG.replace('[Daemon]\n', '[Daemon]\nDryRun=true\nIdleTimeoutSec=1\n', 1) \
    .replace('OnCloseExternalPower=suspend', 'OnCloseExternalPower=power-off-display') \
    .replace('\nOnClose=suspend\n', '\nOnClose=power-off-display\n') + """MemSleep=s2idle

[Class usb-storage:idle]
AutosuspendDelayMs=200

[Module snd_hda_intel:idle]
power_save=1
"""


def snapshot(root, skip=()):
    """Every file, directory and symlink under sys/ and proc/ of @root:
    path -> ('L', target) | ('D',) | ('F', bytes). @skip: testbed paths
    (and what lies below them) the test itself changes."""
    snap = {}
    for top in ('sys', 'proc'):
        base = os.path.join(root, top)
        for dirpath, dirnames, filenames in os.walk(base):
            rel_dir = '/' + os.path.relpath(dirpath, root)
            if any(rel_dir == s or rel_dir.startswith(s + '/') for s in skip):
                dirnames[:] = []
                continue
            for name in dirnames + filenames:
                full = os.path.join(dirpath, name)
                rel = os.path.join(rel_dir, name)
                if os.path.islink(full):
                    snap[rel] = ('L', os.readlink(full))
                elif os.path.isdir(full):
                    snap[rel] = ('D',)
                else:
                    try:
                        with open(full, 'rb') as f:
                            snap[rel] = ('F', f.read())
                    except OSError as e:
                        snap[rel] = ('E', e.errno)
    return snap


class TestDryRun(SleepTestCase):

    def assertSnapshotUnchanged(self, before, what):
        after = snapshot(self.laptop.root, skip=(AC,))
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        self.assertEqual(changed, [], 'DryRun=true, yet %s changed the testbed: %s' % (
            what, ['%s: %r -> %r' % (k, before.get(k), after.get(k)) for k in changed[:10]]))

    def test_config_dry_run_writes_nothing(self):
        # the hub interface with the port the disk is plugged into
        self.laptop.add('usb', '1-1:1.0', HUB, ['bInterfaceClass', '09'], ['DEVTYPE', 'usb_interface'])
        os.makedirs(os.path.dirname(self.laptop.path(STORAGE_PORT)), exist_ok=True)
        self.laptop.write(STORAGE_PORT, '0\n')
        self.add_machine(INSPIRON_1501)
        bl = self.add_backlight()
        kbd = self.evdev.add(KEYBOARD)
        lid = self.evdev.add(LID)
        # attributes that differ from the policy, so every layer would write
        self.laptop.write(STORAGE + '/power/control', 'on')
        self.start_logind()
        before = snapshot(self.laptop.root, skip=(AC,))

        d = self.start(config=DRY_RUN_CONFIG)
        self.wait_log('Dry run: nothing will be written')
        self.assertSnapshotUnchanged(before, 'start')

        # battery switch (the test changes the AC device itself: skipped)
        self.laptop.set_ac(False)
        self.wait_property('OnBattery', True)
        self.barrier()
        self.assertSnapshotUnchanged(before, 'a battery switch')

        # user idle, then active again
        self.wait_property('UserIdle', True, timeout=5)
        self.barrier()
        self.assertSnapshotUnchanged(before, 'user idle')
        kbd.key()
        self.wait_property('UserIdle', False)

        # lid close: power-off-display on battery
        lid.set_switch(SW_LID, 1)
        self.wait_property('LidClosed', True)
        self.wait_log('would write \'4\' to %s/bl_power' % bl)
        self.assertSnapshotUnchanged(before, 'a lid close')
        lid.set_switch(SW_LID, 0)
        self.wait_property('LidClosed', False)

        # logind's sleep
        self.wait_delay_inhibitors(1)
        self.prepare_for_sleep(True)
        self.wait_delay_inhibitors(0)
        self.prepare_for_sleep(False)
        self.wait_delay_inhibitors(1)
        self.assertSnapshotUnchanged(before, 'PrepareForSleep(true/false)')

        # Suspend on the kernel path: logind leaves the bus
        self.stop_logind()
        wait_until(lambda: self.get_property('Backend') == 'kernel', 5, 'Backend kernel')
        self.call('Suspend', (False,), '(b)', timeout=10000)
        self.assertSnapshotUnchanged(before, 'Suspend through the kernel')

        # PowerDown --off
        rows = self.call('PowerDown', (STORAGE, False, 'off'), '(sbs)')[0]
        self.assertEqual([r[:2] for r in rows], [(STORAGE, 'off')], rows)
        self.assertSnapshotUnchanged(before, 'PowerDown --off')

        self.assertEqual(d.stop(), 0)
        self.assertSnapshotUnchanged(before, 'stop')

        # nothing ran, nothing was journalled, and each action was logged
        self.assertEqual(self.helper_lines(), [])
        self.assertFalse(os.path.exists(os.path.join(d.runtime_dir, 'originals')))
        log = d.read_log()
        for text in ("would write 'auto' to %s/power/control" % STORAGE,
                     "would write '1' to %s" % POWER_SAVE,
                     "would write '3' to /proc/sys/kernel/acpi_video_flags",
                     "would write 's2idle' to /sys/power/mem_sleep",
                     "would write 'mem' to /sys/power/state",
                     "would write '1' to %s" % STORAGE_PORT,
                     'would run the video restore helper for suspend',
                     'would run the video restore helper for resume'):
            self.assertIn('dry-run: ' + text, log)

    def test_reload_switches_dry_run(self):
        d = self.start_daemon(config_text=TEST_CONFIG)
        self.daemon = d
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.assertIs(self.get_property('DryRun'), False)
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        # DryRun=true by Reload: from now on nothing is written
        with open(d.config_path, 'w') as f:
            f.write(TEST_CONFIG.replace('[Daemon]\n', '[Daemon]\nDryRun=true\n', 1))
        self.call('Reload')
        self.wait_log('Dry run: nothing will be written')
        # the DryRun property follows, announced by PropertiesChanged
        wait_until(lambda: any(s[0] == 'PropertiesChanged' and s[1][1].get('DryRun') is True
                               for s in self.signals), 5, 'PropertiesChanged(DryRun=true)')
        self.assertIs(self.get_property('DryRun'), True)
        before = snapshot(self.laptop.root, skip=(AC,))
        self.laptop.set_ac(False)
        self.wait_property('OnBattery', True)
        self.barrier()
        self.assertSnapshotUnchanged(before, 'a battery switch after Reload with DryRun=true')
        self.assertIn("dry-run: would write 'auto' to %s/power/control" % XHCI, d.read_log())
        # and off again: the battery layer is written at once
        with open(d.config_path, 'w') as f:
            f.write(TEST_CONFIG)
        self.call('Reload')
        self.wait_property('DryRun', False)
        self.wait_attr(XHCI, 'power/control', 'auto')
        self.assertEqual(self.laptop.read(POWER_SAVE), '1')
        # what was written is journalled and put back
        self.assertEqual(d.stop(), 0)
        self.assertEqual(self.attr(XHCI, 'power/control'), 'on')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')
        self.assertEqual(self.laptop.read(POWER_SAVE), '0')


if __name__ == '__main__':
    main()
