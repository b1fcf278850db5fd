#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System tests: the shipped policy on real notebooks (issue 26).

Each machine of tests/fixtures/notebooks (the devices three real notebooks
reported, tests/fixtures/README.md) is built into a umockdev testbed, the
real udev rules and hwdb classify its devices (`udevadm test`), and
`powerpolicyd --oneshot` with the shipped data/powerpolicy.conf runs from
the devices' own values, on AC and on battery (tests/system/ppnotebooks.py;
bench/notebooks prints the same next to TLP).

Per machine:
- test_*_classified: the real rules and hwdb see the devices as what they
  are (the fixtures' descriptors are read the way udev reads a real
  device's);
- test_*_safe: the policy sets no USB keyboard, mouse, audio device or
  printer to auto that was not auto by its own value, on AC or on battery;
- test_*_never_less_than_own: every device whose own value (the kernel's,
  its driver's or udev's hwdb) is auto stays auto, on AC and on battery.
TestJudging shows the safety check sees a policy that lets a keyboard
receiver suspend.

Needs root (mount namespaces) and udevadm; run under umockdev-wrapper.
"""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gi  # noqa: E402
gi.require_version('UMockdev', '1.0')
from gi.repository import UMockdev  # noqa: E402

import ppnotebooks  # noqa: E402

BUILDDIR = os.environ.get('PP_BUILDDIR') or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', '..', 'build')
DAEMON = os.path.join(BUILDDIR, 'src', 'powerpolicyd')
SKIP = 77

# What the real rules must make of the fixtures' devices (label: class).
CLASSES = {
    'hp-kabylake-r': {'usb1': 'usb-hub', 'usb2': 'usb-hub', '1-2': 'usb-keyboard',
                      '1-7': 'bluetooth', '1-9': 'webcam', '00:02.0': 'pci-gpu',
                      '00:1f.3': 'pci-audio', '00:1f.6': 'pci-net', '02:00.0': 'nvme'},
    'dell-latitude-7490': {'usb1': 'usb-hub', '1-5': 'webcam', '1-7': 'bluetooth',
                           '1-9': 'usb-keyboard', '00:1f.3': 'pci-audio', '03:00.0': 'nvme'},
    'thinkpad-t14-gen3': {'usb3': 'usb-hub', '3-2': 'webcam', '3-3': 'bluetooth',
                          '3-4': 'usb-keyboard', '00:1f.3': 'pci-audio', '02:00.0': 'nvme'},
}
# What udev's usb_id reads from the fixtures' binary descriptors
# (ID_USB_INTERFACES: every interface of every configuration)
USB_INTERFACES = {
    'hp-kabylake-r': {'1-2': ':030102:030101:030000:', '1-7': ':e00101:',
                      '1-8': ':ff0000:', '1-9': ':0e0100:0e0200:', 'usb2': ':090000:'},
    'dell-latitude-7490': {'1-5': ':0e0100:0e0200:', '1-7': ':e00101:',
                           '1-9': ':030101:030102:030000:'},
    'thinkpad-t14-gen3': {'3-1': ':ff0000:', '3-2': ':0e0100:0e0200:', '3-3': ':e00101:',
                          '3-4': ':030101:030102:030000:'},
}
# Devices systemd's hwdb lists as safe to autosuspend (libfprint's
# fingerprint readers, ChromiumOS's Intel PCI devices)
HWDB = {
    'hp-kabylake-r': {'1-8', '00:14.0', '00:1f.4'},
    'dell-latitude-7490': {'00:14.0', '00:1f.4'},
    'thinkpad-t14-gen3': {'3-1'},
}

_judged = {}


def judged(name):
    if name not in _judged:
        _judged[name] = ppnotebooks.judge(
            UMockdev, os.path.join(ppnotebooks.FIXTURES, name + '.machine'), DAEMON,
            with_tlp=False)
    return _judged[name]


class NotebookCase(unittest.TestCase):
    machine = None

    def result(self):
        return judged(self.machine)

    def check_classified(self):
        r = self.result()
        got = {label: r['usb_interfaces'].get(label) for label in USB_INTERFACES[self.machine]}
        self.assertEqual(got, USB_INTERFACES[self.machine])
        got = {label: r['class'].get(label, '') for label in CLASSES[self.machine]}
        self.assertEqual(got, CLASSES[self.machine])
        self.assertLessEqual(HWDB[self.machine], r['hwdb'])
        # and udev's 60-autosuspend.rules made them auto, the devices' own value
        for label in HWDB[self.machine]:
            self.assertEqual(r['own'][label], 'auto', label)

    def check_safe(self):
        r = self.result()
        for run in ('powerpolicy AC', 'powerpolicy battery'):
            self.assertEqual(r['violations'][run], [], '%s: %s' % (self.machine, run))
        # a keyboard and mouse receiver is there to be judged
        self.assertIn('input', r['safety'].values())

    def check_never_less_than_own(self):
        r = self.result()
        for run in ('powerpolicy AC', 'powerpolicy battery'):
            with self.subTest(run=run):
                less = r['less_than_own'][run]
                self.assertEqual(less, [], '%s, %s: own value auto, the policy sets on: %s' % (
                    self.machine, run, ', '.join('%s (%s, class %s)' % (
                        label, r['info'][label], r['class'].get(label) or '-')
                        for label in less)))


class TestJudging(unittest.TestCase):
    """The judgement itself can see what it looks for."""

    def test_keyboard_set_auto_is_a_violation(self):
        # a policy that lets the keyboard receiver suspend, on the HP
        with tempfile.TemporaryDirectory(prefix='pp-notebooks-conf-') as d:
            conf = os.path.join(d, 'powerpolicy.conf')
            with open(conf, 'w') as f:
                f.write('[Class usb-keyboard]\nControl=auto\n')
            r = ppnotebooks.judge(UMockdev, os.path.join(ppnotebooks.FIXTURES, 'hp-kabylake-r.machine'),
                                  DAEMON, with_tlp=False, config=conf)
        self.assertEqual(r['own']['1-2'], 'on')
        for run in ('powerpolicy AC', 'powerpolicy battery'):
            self.assertEqual(r['violations'][run], [('1-2', 'input')], run)
        # and a device it leaves alone is not "less than own"
        self.assertNotIn('1-8', r['less_than_own']['powerpolicy AC'])


def _make(machine):
    attrs = {'machine': machine}
    for what in ('classified', 'safe', 'never_less_than_own'):
        attrs['test_' + what] = getattr(NotebookCase, 'check_' + what)
    return type('Test_' + machine.replace('-', '_'), (NotebookCase,), attrs)


for _m in CLASSES:
    globals()['Test_' + _m.replace('-', '_')] = _make(_m)
del _m


def check_environment():
    if os.geteuid() != 0:
        return 'needs root (private mount namespaces for udevadm and the daemon)'
    for tool in ('udevadm', 'unshare', 'mount'):
        if shutil.which(tool) is None:
            return '%s not found (Debian: udev, util-linux, mount)' % tool
    return None


def load_tests(loader, tests, pattern):
    suite = unittest.TestSuite()
    for m in CLASSES:
        suite.addTests(loader.loadTestsFromTestCase(globals()['Test_' + m.replace('-', '_')]))
    suite.addTests(loader.loadTestsFromTestCase(TestJudging))
    return suite


if __name__ == '__main__':
    reason = check_environment()
    if reason:
        print('SKIP: ' + reason)
        sys.exit(SKIP)
    if 'libumockdev-preload' not in os.environ.get('LD_PRELOAD', ''):
        os.execvp('umockdev-wrapper', ['umockdev-wrapper', sys.executable] + sys.argv)
    if os.environ.get('TMPDIR') is None and os.path.isdir('/dev/shm'):
        os.environ['TMPDIR'] = '/dev/shm'
    result = unittest.main(verbosity=2, exit=False).result
    sys.stdout.flush()
    os._exit(0 if result.wasSuccessful() else 1)
