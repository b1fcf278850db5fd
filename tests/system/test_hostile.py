#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile local clients (issue 14): limits on what a caller can make the
daemon keep, bounded replies, malformed and oversized arguments on every
method as `nobody`, caller text escaped in the log. Hostile devices
(issue 30): device strings with escape sequences, newlines, invalid UTF-8
and the longest lengths USB allows, and hostile pmctl arguments, never
reach the log or a terminal raw."""

import json
import os
import select
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ppevdev  # noqa: E402
from ppharness import (  # noqa: E402
    AS_NOBODY, BUS_NAME, IFACE, OBJ_PATH, PPCALL, TEST_CONFIG,
    PowerPolicyTestCase, main, wait_until)
from test_pmctl import PMCTL, PmctlTestCase  # noqa: E402
from gi.repository import GLib, Gio  # noqa: E402

REFUSED = 'org.powerpolicy1.Error.Refused'
INVALID = 'org.powerpolicy1.Error.InvalidArgument'
# the daemon's limits (pp-token.h) and the bus's message limit (dbus-daemon)
TEXT_MAX = 256
PER_USER = 64
TOTAL = 4096
BUS_MESSAGE_MAX = 32 * 1024 * 1024
# a syspath, at most PATH_MAX with its NUL
SYSPATH_MAX = 4095
STORAGE = '/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1.2'


class TestHostile(PowerPolicyTestCase):

    def fd_call(self, method, args):
        r, fds = self.bus.call_with_unix_fd_list_sync(
            BUS_NAME, OBJ_PATH, IFACE, method, GLib.Variant('(sss)', args),
            GLib.VariantType('(h)'), Gio.DBusCallFlags.NONE, 5000, None, None)
        stolen = fds.steal_fds()
        self.assertEqual(len(stolen), 1)
        return stolen[r.unpack()[0]]

    def inhibit(self, what='idle', who='test', why='testing'):
        return self.fd_call('Inhibit', (what, who, why))

    def hold(self, device='1-1.2', who='test', why='testing'):
        return self.fd_call('Hold', (device, who, why))

    def close_all(self, fds):
        for fd in fds:
            os.close(fd)
        fds.clear()

    def inhibitors(self):
        return self.call('ListInhibitors')[0]

    def daemon_fds(self):
        return len(os.listdir('/proc/%d/fd' % self.daemon.proc.pid))

    def as_nobody(self, calls):
        """[(method, signature, args)] called by one client as nobody."""
        if os.geteuid() != 0:
            self.skipTest('needs root to run as nobody')
        ppcall = self.staged_for_others(PPCALL)[PPCALL]
        r = subprocess.run(AS_NOBODY + ['/usr/bin/python3', ppcall, '-'],
                           input=json.dumps(calls), capture_output=True, text=True, timeout=120,
                           env={'PATH': '/usr/bin:/bin', 'LANG': 'C.UTF-8',
                                'DBUS_SYSTEM_BUS_ADDRESS': self.bus_address})
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_oversized_what_refused(self):
        self.daemon = self.start_daemon()
        for what in ('idle:' * 1000 + 'idle', 'idle:' * 7 + 'lid', 'x' * (4 << 20)):
            with self.subTest(length=len(what)):
                e = self.assertDBusError(INVALID, 'Inhibit', (what, 'who', 'why'), '(sss)')
                self.assertLess(len(e.message), 256)
        self.assertEqual(self.inhibitors(), [])

    def test_unknown_and_repeated_words_refused(self):
        self.daemon = self.start_daemon()
        for what in ('', 'sleep', 'idle:sleep', 'idle:idle', 'lid:idle:lid', 'idle:', ':lid',
                     'IDLE', 'idle lid', 'handle-lid-switch'):
            with self.subTest(what=what):
                self.assertDBusError(INVALID, 'Inhibit', (what, 'who', 'why'), '(sss)')
        # the known words, in either order, are taken
        for what in ('idle', 'lid', 'idle:lid', 'lid:idle'):
            os.close(self.inhibit(what))
        wait_until(lambda: self.inhibitors() == [], 5, 'inhibitors released')

    def test_oversized_who_why_refused(self):
        self.daemon = self.start_daemon()
        long = 'w' * (TEXT_MAX + 1)
        for args in (('idle', long, 'why'), ('idle', 'who', long)):
            self.assertDBusError(INVALID, 'Inhibit', args, '(sss)')
        for args in (('1-1.2', long, 'why'), ('1-1.2', 'who', long)):
            self.assertDBusError(INVALID, 'Hold', args, '(sss)')
        # at the limit: taken
        os.close(self.inhibit('idle', 'w' * TEXT_MAX, 'y' * TEXT_MAX))

    def test_oversized_arguments_as_root_bounded_replies(self):
        # root passes authorization: the arguments reach the parsers, whose
        # errors quote them; no reply may grow with what the caller sends
        self.daemon = self.start_daemon()
        control = self.attr(STORAGE, 'power/control')
        big = 'v' * (1 << 20)
        for method, sig, args in (('SetOverride', '(sss)', ('1-1.2', 'Control', big)),
                                  ('SetOverride', '(sss)', ('1-1.2', big, 'on')),
                                  ('PowerDown', '(sbs)', ('1-1.2', False, big)),
                                  ('GetDevice', '(s)', (big,)),
                                  ('Hold', '(sss)', ('1-1.2', 'who', big))):
            with self.subTest(method=method):
                e = self.assertDBusError(INVALID, method, args, sig)
                self.assertLess(len(e.message), 1024, e.message[:200])
        # just below the bound, the argument's own check answers
        e = self.assertDBusError(INVALID, 'SetOverride', ('1-1.2', 'Control', 'v' * 8000), '(sss)')
        self.assertLess(len(e.message), 16 * 1024)
        self.assertEqual(self.attr(STORAGE, 'power/control'), control)
        self.assertIsNone(self.daemon.proc.poll())

    def test_no_such_device_message_escaped_and_bounded(self):
        # a device argument within its 4 KiB bound but with control
        # characters: NoSuchDevice quotes it escaped and cut short
        self.daemon = self.start_daemon()
        nsd = 'org.powerpolicy1.Error.NoSuchDevice'
        for arg, text in (('no\x1b[31m\x07dev\n' + 'y' * 3000, "no device named 'no\\x1b[31m\\x07dev\\n"),
                          ('/sys/devices/none\r\x1b[2J' + 'z' * 3000,
                           "'/sys/devices/none\\r\\x1b[2J")):
            for method, sig, args in (('GetDevice', '(s)', (arg,)),
                                      ('Hold', '(sss)', (arg, 'who', 'why'))):
                with self.subTest(method=method, arg=arg[:20]):
                    e = self.assertDBusError(nsd, method, args, sig)
                    self.assertIn(text, e.message)
                    for c in ('\n', '\r', '\x1b', '\x07'):
                        self.assertNotIn(c, e.message)
                    self.assertLess(len(e.message), 512, e.message)
        self.assertIsNone(self.daemon.proc.poll())

    def test_per_user_limit_refused(self):
        self.daemon = self.start_daemon()
        fds = []
        self.addCleanup(self.close_all, fds)
        # holds and inhibitors count together
        for i in range(PER_USER):
            fds.append(self.hold() if i % 2 else self.inhibit())
        for method, args in (('Inhibit', ('idle', 'who', 'why')), ('Hold', ('1-1.2', 'who', 'why'))):
            e = self.assertDBusError(REFUSED, method, args, '(sss)')
            self.assertIn('MaxInhibitorsPerUser=%d' % PER_USER, e.message)
            self.assertIn('uid %d' % os.geteuid(), e.message)
        self.assertEqual(len(self.inhibitors()), PER_USER)
        # another user is not limited by this one's
        if os.geteuid() == 0:
            r = self.as_nobody([['Inhibit', '(sss)', ['idle', 'nobody', 'x']]])
            self.assertTrue(r[0]['ok'], r)
        # one released: one more may be taken
        os.close(fds.pop())
        wait_until(lambda: len(self.inhibitors()) == PER_USER - 1, 5, 'one released')
        fds.append(self.inhibit())

    def test_configured_limits_and_reload(self):
        config = TEST_CONFIG.replace('[Daemon]\n', '[Daemon]\nMaxInhibitorsPerUser=2\nMaxInhibitors=3\n', 1)
        self.assertIn('MaxInhibitorsPerUser=2', config)
        self.daemon = self.start_daemon(config_text=config)
        fds = []
        self.addCleanup(self.close_all, fds)
        fds += [self.hold(), self.inhibit()]
        e = self.assertDBusError(REFUSED, 'Inhibit', ('idle', 'who', 'why'), '(sss)')
        self.assertIn('MaxInhibitorsPerUser=2', e.message)
        # the total counts every user's
        config = config.replace('MaxInhibitors=3', 'MaxInhibitors=2')
        with open(self.daemon.config_path, 'w') as f:
            f.write(config)
        self.call('Reload')
        if os.geteuid() == 0:
            r = self.as_nobody([['Inhibit', '(sss)', ['idle', 'nobody', 'x']]])
            self.assertFalse(r[0]['ok'], r)
            self.assertIn('MaxInhibitors=2', r[0]['message'], r)
        # Reload takes new limits; tokens already given out stay
        with open(self.daemon.config_path, 'w') as f:
            f.write(TEST_CONFIG)
        self.call('Reload')
        fds.append(self.inhibit())
        self.assertEqual(len(self.inhibitors()), 3)

    def test_list_inhibitors_bounded_at_the_limits(self):
        self.daemon = self.start_daemon()
        fds = []
        self.addCleanup(self.close_all, fds)
        # one user's worth, every text at its limit
        for i in range(PER_USER):
            who, why = chr(ord('a') + i % 26) * TEXT_MAX, 'y' * TEXT_MAX
            fds.append(self.hold('1-1.2', who, why) if i % 2 else self.inhibit('idle:lid', who, why))
        r = self.bus.call_sync(BUS_NAME, OBJ_PATH, IFACE, 'ListInhibitors', None, None,
                               Gio.DBusCallFlags.NONE, 5000, None)
        rows = r.unpack()[0]
        self.assertEqual(len(rows), PER_USER)
        size = r.get_size()
        # every entry within the documented worst case (pp-token.h): what 8,
        # who and why 256, a syspath < PATH_MAX, framing < 40 bytes
        per_entry = 8 + 2 * TEXT_MAX + SYSPATH_MAX + 40
        self.assertLessEqual(size, PER_USER * (8 + 2 * TEXT_MAX + len(STORAGE) + 40) + 8)
        # at the total limit the reply stays far below the bus's limit
        self.assertLess(TOTAL * per_entry, BUS_MESSAGE_MAX * 0.6)

    def test_10000_holds_fd_count_back_to_baseline(self):
        self.daemon = self.start_daemon()
        self.inhibitors()
        baseline = self.daemon_fds()
        control = self.attr(STORAGE, 'power/control')
        # in batches of 50 calls in flight (below the per-user limit: each
        # hold is closed as soon as its answer arrives)
        errors = []
        done = [0]

        def answered(conn, res, data):
            try:
                r, fds = conn.call_with_unix_fd_list_finish(res)
                for fd in fds.steal_fds():
                    os.close(fd)
            except GLib.GError as e:
                errors.append(e.message)
            done[0] += 1

        for batch in range(200):
            for i in range(50):
                self.bus.call_with_unix_fd_list(
                    BUS_NAME, OBJ_PATH, IFACE, 'Hold',
                    GLib.Variant('(sss)', ('1-1.2', 'churn', str(batch * 50 + i))),
                    GLib.VariantType('(h)'), Gio.DBusCallFlags.NONE, 10000, None, None,
                    answered, None)
            wait_until(lambda: done[0] == (batch + 1) * 50, 30, 'batch %d answered' % batch)
            wait_until(lambda: self.inhibitors() == [], 30, 'batch %d released' % batch)
        self.assertEqual(errors, [])
        wait_until(lambda: self.daemon_fds() == baseline, 10,
                   'the daemon back to %d fds' % baseline)
        self.assertEqual(self.attr(STORAGE, 'power/control'), control)

    def test_malformed_and_oversized_arguments_as_nobody(self):
        self.daemon = self.start_daemon()
        before = {name: self.attr(STORAGE, 'power/' + name)
                  for name in ('control', 'autosuspend_delay_ms')}
        huge = 'A\n\x1b[31m' + 'x' * (512 * 1024)
        nasty = ['', '/', '..', '/sys/../etc/passwd', '/sys/devices/../../etc', '1-1.2\n',
                 '[1-1.2]', '\x01\x02', 'é' * 3000, huge]
        calls = []
        # every method with a wrong signature
        for method in ('Suspend', 'Hibernate', 'GetDevice', 'SetOverride', 'ClearOverrides',
                       'PowerDown', 'PowerUp', 'Hold', 'Inhibit'):
            calls.append([method, '(i)', [7]])
            calls.append([method, '', []])
        for method in ('ListDevices', 'ListInhibitors', 'GetVideoQuirks', 'Reload'):
            calls.append([method, '(s)', [huge]])
        # every string argument oversized or malformed
        for s in nasty:
            calls += [['GetDevice', '(s)', [s]],
                      ['SetOverride', '(sss)', [s, 'Control', 'on']],
                      ['SetOverride', '(sss)', ['1-1.2', s, 'on']],
                      ['SetOverride', '(sss)', ['1-1.2', 'Control', s]],
                      ['ClearOverrides', '(s)', [s]],
                      ['PowerDown', '(sbs)', [s, True, 'off']],
                      ['PowerDown', '(sbs)', ['1-1.2', False, s]],
                      ['PowerUp', '(sb)', [s, True]],
                      ['Hold', '(sss)', [s, 'who', 'why']],
                      ['Inhibit', '(sss)', [s, 'who', 'why']]]
        # who and why are free text: only too long is wrong
        calls += [['Hold', '(sss)', ['1-1.2', huge, 'why']],
                  ['Hold', '(sss)', ['1-1.2', 'who', huge]],
                  ['Inhibit', '(sss)', ['idle', huge, 'why']],
                  ['Inhibit', '(sss)', ['idle', 'who', huge]]]
        results = self.as_nobody(calls)
        self.assertEqual(len(results), len(calls))
        allowed = ('org.freedesktop.DBus.Error.InvalidArgs',
                   'org.freedesktop.DBus.Error.UnknownMethod',
                   'org.powerpolicy1.Error.InvalidArgument',
                   'org.powerpolicy1.Error.NoSuchDevice',
                   'org.powerpolicy1.Error.NotAuthorized')
        for (method, sig, args), r in zip(calls, results):
            shown = (method, sig, [a[:40] if isinstance(a, str) else a for a in args])
            with self.subTest(call=shown):
                self.assertFalse(r['ok'], r)
                self.assertIn(r['error'], allowed, r)
                # errors quote at most a bounded part of the argument
                self.assertLess(len(r['message']), 16 * 1024)
        # the daemon is still there, nothing changed, nothing kept
        self.assertIsNone(self.daemon.proc.poll())
        self.assertEqual(self.inhibitors(), [])
        for name, value in before.items():
            self.assertEqual(self.attr(STORAGE, 'power/' + name), value)

    def test_control_characters_escaped_in_the_log(self):
        self.daemon = self.start_daemon()
        forged = 'FORGED: powerpolicyd: everything is fine'
        who = 'x\n' + forged
        why = 'y\r\n' + forged + '\x1b[2J\x07'
        fd = self.inhibit('idle', who, why)
        fd2 = self.hold('1-1.2', who, why)
        # the caller gets its text back unchanged
        rows = self.inhibitors()
        self.assertIn(('idle', who, why, '', os.getpid()), rows)
        os.close(fd)
        os.close(fd2)
        wait_until(lambda: self.inhibitors() == [], 5, 'released')
        wait_until(lambda: 'Inhibitor of idle released' in self.daemon.read_log(), 5, 'release logged')
        log = self.daemon.read_log()
        self.assertIn('x\\nFORGED', log)
        self.assertIn('y\\r\\nFORGED', log)
        self.assertIn('\\x1b[2J\\x07', log)
        for line in log.splitlines():
            self.assertFalse(line.startswith('FORGED'), line)
        for c in ('\r', '\x1b', '\x07'):
            self.assertNotIn(c, log)


# a forged log line after a newline, terminal escapes (OSC title, clear
# screen, BEL, CSI as the C1 character U+009B) and invalid UTF-8
FORGED = b'FORGED: powerpolicyd: all is well'
EVIL = b'Evil\x1b]0;owned\x07\x1b[2J\r\n' + FORGED + b'\xc2\x9b31m\xff\xfe\x80'
# a USB string descriptor holds at most 126 UTF-16 code units: as UTF-8,
# 126 three-byte characters
LONGEST_USB_STRING = '\u2603' * 126
# the kernel names a USB input device "MANUFACTURER PRODUCT", cut to 127 bytes
INPUT_NAME = (EVIL + b' ' + LONGEST_USB_STRING.encode())[:127]
# a device's kernel name in the testbed: anything a directory name holds
# (no '/' and no newline: umockdev's uevent files are line based)
EVIL_NAME = '1-1.3\x1b[31m\x07\u009b2J'
def strings(data):
    """Every string in a JSON document."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for k, v in data.items():
            yield k
            yield from strings(v)
    elif isinstance(data, list):
        for v in data:
            yield from strings(v)


CONTROLS = [chr(c) for c in range(0x20) if c not in (0x0a, 0x09)] + ['\x7f', '\u009b']


class TestHostileDevices(PmctlTestCase):

    def setUp(self):
        super().setUp()
        self.evdev = ppevdev.EvdevEmulator(self.laptop.tb)

    def tearDown(self):
        # the daemon must be gone before the emulated nodes are
        self.stop_daemons()
        self.evdev.stop()
        super().tearDown()

    def add_hostile_device(self):
        tb = self.laptop.tb
        dev = self.laptop.add_usb(self.laptop.hub, EVIL_NAME, 'usb-hid')
        for attr, value in (('manufacturer', EVIL), ('product', LONGEST_USB_STRING.encode()),
                            ('serial', EVIL + b'\n' + EVIL)):
            tb.set_attribute_binary(dev, attr, value)
        spec = dict(ppevdev.KEYBOARD, name=INPUT_NAME)
        self.evdev.add(spec, parent=dev)
        return dev

    def assertClean(self, text, what):
        """No raw control character but newline and tab (the output's own
        line and column structure), no forged line."""
        for c in CONTROLS:
            self.assertNotIn(c, text, '%s: raw %r in %r' % (what, c, text[:2000]))
        for line in text.splitlines():
            self.assertFalse(line.startswith(FORGED.decode()), '%s: forged line %r' % (what, line))

    def pmctl_env(self, bus=None):
        # pmctl wakeups reads power/wakeup_count itself: the testbed's
        return {**super().pmctl_env(bus), 'LD_PRELOAD': os.environ['LD_PRELOAD'],
                'UMOCKDEV_DIR': self.laptop.root}

    def pmctl_bytes(self, *args):
        r = subprocess.run([PMCTL] + list(args), env=self.pmctl_env(), capture_output=True,
                           timeout=30)
        return (r.returncode, r.stdout.decode('utf-8', 'surrogateescape'),
                r.stderr.decode('utf-8', 'surrogateescape'))

    def start_with_sleep_record(self, dev):
        """A daemon whose sleep history names the hostile device as what
        failed, woke and kept the machine awake (percent-encoded, as the
        daemon writes it)."""
        def enc(text):
            return ''.join(c if c.isalnum() or c in '/:.-_' else '%%%02X' % b
                           for c in text for b in c.encode())
        d = self.new_daemon()
        os.makedirs(d.state_dir, exist_ok=True)
        with open(os.path.join(d.state_dir, 'sleep-history'), 'w') as f:
            f.write('v1 start=1700000000000000 end=1700000001000000 duration_ms=1000 state=mem '
                    'mem_sleep=s2idle result=failed failed_step=suspend failed_device=%s '
                    'failed_errno=-5 error=%s woken_by=%s awake_devices=%s awake_blockers=%s\n'
                    % (enc(dev), enc(EVIL.decode(errors='replace')), enc(dev), enc(dev),
                       enc(dev)))
        d.start()
        self.wait_for_name()
        return d

    def test_device_strings_escaped_everywhere(self):
        dev = self.add_hostile_device()
        self.daemon = self.start_with_sleep_record(dev)
        wait_until(lambda: 'Watching /dev/input/event0' in self.daemon.read_log(), 10,
                   'the input device watched')
        log = self.daemon.read_log()
        self.assertClean(log, 'daemon log')
        # the name as the journal shows it: escaped, one line
        self.assertIn('Watching /dev/input/event0 (Evil\\x1b]0;owned\\x07\\x1b[2J\\r\\n'
                      'FORGED: powerpolicyd: all is well\\xc2\\x9b31m\\xff\\xfe\\x80 ', log)
        name = dev.rsplit('/', 1)[1]
        for args in (['list'], ['list', '--class', 'usb-hid'], ['show', name], ['tree'],
                     ['tree', name], ['explain', name], ['wakeups'], ['sleep-history'],
                     ['status'], ['diff'], ['overrides'], ['inhibitors'], ['stats'],
                     ['sleep-check'], ['metrics'], ['tree', '--format', 'dot']):
            with self.subTest(args=args):
                rc, out, err = self.pmctl_bytes(*args)
                self.assertEqual(rc, 0, (args, err))
                self.assertClean(out, ' '.join(args))
                self.assertClean(err, ' '.join(args) + ' (stderr)')
                if args[0] == 'metrics' or 'dot' in args:
                    continue
                rc, out, err = self.pmctl_bytes('--json', *args)
                self.assertEqual(rc, 0, (args, err))
                self.assertClean(err, '--json ' + ' '.join(args) + ' (stderr)')
                # JSON's own escaping: parses, and the name comes back whole
                data = json.loads(out)
                if args[0] in ('list', 'show', 'tree', 'sleep-history', 'wakeups'):
                    self.assertIn(dev, set(strings(data)), args)
        rc, out, _ = self.pmctl_bytes('list')
        self.assertIn('1-1.3\\x1b[31m\\x07\\xc2\\x9b2J', out)
        # the daemon keeps serving
        self.assertTrue(self.call('ListDevices')[0])

    def test_monitor_escapes_device_strings(self):
        self.daemon = self.start_daemon()
        p = subprocess.Popen([PMCTL, 'monitor'], env=self.pmctl_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        try:
            ready = p.stderr.readline()
            self.assertIn(b'monitoring', ready)
            dev = self.add_hostile_device()
            self.laptop.tb.uevent(dev, 'add')
            wait_until(lambda: any(d['path'] == dev for d in self.devices()), 10, 'device added')
            # a change the monitor reports: the device's policy
            self.call('SetOverride', (dev, 'AutosuspendDelayMs', '1234'), '(sss)')
            out = b''
            deadline = time.monotonic() + 10
            while b'1234' not in out and time.monotonic() < deadline:
                r, _, _ = select.select([p.stdout], [], [], max(0, deadline - time.monotonic()))
                if r:
                    out += os.read(p.stdout.fileno(), 65536)
            self.assertIn(b'1234', out)
            text = out.decode('utf-8', 'surrogateescape')
            self.assertClean(text, 'monitor')
            self.assertIn('DeviceChanged %s' % dev.replace('\x1b', '\\x1b').replace('\x07', '\\x07')
                          .replace('\u009b', '\\xc2\\x9b'), text)
        finally:
            p.terminate()
            p.wait(10)
            p.stdout.close()
            p.stderr.close()

    def devices(self):
        return [dict(d) for d in self.call('ListDevices')[0]]

    def test_hostile_arguments_escaped(self):
        self.daemon = self.start_daemon()
        arg = '1-1\x1b]0;owned\x07\x1b[2J\nFORGED: pmctl: fine\x9b'
        for args in (['show', arg], ['explain', arg], ['tree', arg], ['set', arg, 'Control', 'on'],
                     ['set', '1-1.2', 'Control', arg], ['reset', arg], ['power-down', arg],
                     ['hold', arg, '--', 'true'], ['no-such-command' + arg], ['list', '--class', arg],
                     ['sleep-history', '-n', arg], ['--json', 'show', arg], ['stats', '--class', arg]):
            with self.subTest(args=args):
                rc, out, err = self.pmctl_bytes(*args)
                # a class nobody has is an empty list, not an error
                if args[0] not in ('list', 'stats'):
                    self.assertNotEqual(rc, 0, (args, out, err))
                self.assertClean(out, 'stdout')
                self.assertClean(err, 'stderr')
        rc, out, err = self.pmctl_bytes('show', arg)
        self.assertIn('no such device: 1-1\\x1b]0;owned\\x07\\x1b[2J\\nFORGED', err)
        self.assertClean(self.daemon.read_log(), 'daemon log')
        self.assertTrue(self.call('ListDevices')[0])


class TestUnbind(PowerPolicyTestCase):
    """A PCI driver's unbind is handled like a removal: what the daemon
    wrote to the device goes back, its originals leave the journal, the
    device leaves the table; a bind adds it again."""

    def paths(self):
        return [d['path'] for d in self.call('ListDevices')[0]]

    def journal_text(self, d):
        text = ''
        directory = os.path.join(d.runtime_dir, 'originals')
        for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
            with open(os.path.join(directory, name)) as f:
                text += f.read()
        return text

    def test_pci_unbind_writes_back_and_bind_applies_again(self):
        hda = self.laptop.hda
        d = self.start_daemon()
        self.wait_attr(hda, 'power/control', 'auto')
        self.wait_attr(STORAGE, 'power/control', 'auto')
        self.assertIn(hda + '/power/control\ton', self.journal_text(d))

        self.laptop.tb.uevent(hda, 'unbind')
        self.wait_attr(hda, 'power/control', 'on')
        wait_until(lambda: hda not in self.paths(), 5, 'the unbound device to leave ListDevices')
        wait_until(lambda: hda not in self.journal_text(d), 5, 'its originals to leave the journal')
        self.assertIn('driver unbound', d.read_log())
        # the other devices keep their policy, and their originals
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.assertIn(STORAGE + '/power/control', self.journal_text(d))

        # a value set while no driver is bound is nobody's to undo at exit
        self.laptop.write(hda + '/power/control', 'auto')
        self.laptop.tb.uevent(STORAGE, 'change')
        wait_until(lambda: 'uevent change ' + STORAGE in d.read_log(), 5, 'a later uevent handled')
        self.assertEqual(d.stop(), 0)
        self.assertEqual(self.attr(hda, 'power/control'), 'auto')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')

    def test_bind_after_unbind_is_a_new_device(self):
        hda = self.laptop.hda
        d = self.start_daemon()
        self.wait_attr(hda, 'power/control', 'auto')
        self.laptop.tb.uevent(hda, 'unbind')
        self.wait_attr(hda, 'power/control', 'on')
        wait_until(lambda: hda not in self.paths(), 5, 'the unbound device to leave ListDevices')
        self.laptop.tb.uevent(hda, 'bind')
        self.wait_attr(hda, 'power/control', 'auto')
        wait_until(lambda: hda in self.paths(), 5, 'the bound device back in ListDevices')
        self.assertIn(hda + '/power/control\ton', self.journal_text(d))
        self.assertEqual(d.stop(), 0)
        self.assertEqual(self.attr(hda, 'power/control'), 'on')


if __name__ == '__main__':
    main()
