#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""pmctl against the real powerpolicyd in a umockdev testbed (issues 2 and 3)."""

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ppharness import (  # noqa: E402
    HUB, STORAGE, BUILDDIR, PowerPolicyTestCase, TEST_CONFIG, main, sanitizer_env, wait_until,
)

PMCTL = os.path.join(BUILDDIR, 'src', 'pmctl')
NOT_RUNNING = 'pmctl: powerpolicyd is not running (org.powerpolicy1 is not on the system bus)\n'


class PmctlTestCase(PowerPolicyTestCase):

    def pmctl_env(self, bus=None):
        return {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'LANG': 'C.UTF-8',
                'DBUS_SYSTEM_BUS_ADDRESS': bus or self.bus_address, **sanitizer_env()}

    def pmctl(self, *args, bus=None, timeout=30):
        r = subprocess.run([PMCTL] + list(args), env=self.pmctl_env(bus),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr

    def pmctl_tty(self, *args, env=None):
        """Run with stdout on a pseudo-terminal (stdin not a terminal) and
        extra environment; returns (rc, stdout text)."""
        e = self.pmctl_env()
        e.update(env or {})
        master, slave = pty.openpty()
        p = subprocess.Popen([PMCTL] + list(args), env=e, stdout=slave, stdin=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, universal_newlines=True)
        os.close(slave)
        out = b''
        while True:
            r, _, _ = select.select([master], [], [], 10)
            if not r:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.close(master)
        rc = p.wait(timeout=10)
        p.stderr.close()
        return rc, out.decode().replace('\r\n', '\n')


class TestNotRunning(PmctlTestCase):

    def test_every_command_one_line(self):
        for args in (['status'], ['list'], ['show', '1-1'], ['explain', '1-1'], ['reload'], ['monitor'],
                     ['--json', 'status'], ['tree'], ['tree', '1-1'], ['power-down', '1-1'],
                     ['power-up', '1-1', '--subtree'], ['hold', '1-1', '--', 'true'],
                     ['inhibit', '--', 'true'], ['inhibitors'], ['quirks'], ['suspend'],
                     ['hibernate']):
            rc, out, err = self.pmctl(*args)
            self.assertEqual(rc, 1, args)
            self.assertEqual(out, '', args)
            self.assertEqual(err, NOT_RUNNING, args)

    def test_no_bus_socket(self):
        # no bus at all: said so, not "not running" (issue 10)
        rc, out, err = self.pmctl('status', bus='unix:path=/nonexistent/pp-bus')
        self.assertEqual((rc, out), (1, ''))
        self.assertTrue(err.startswith('pmctl: cannot connect to the system bus: '), err)
        self.assertEqual(err.count('\n'), 1, err)


class TestUsage(PmctlTestCase):

    def test_usage_errors(self):
        for args in ([], ['frobnicate'], ['set', '1-1', 'Control'], ['reset'],
                     ['show'], ['show', 'a', 'b'], ['status', 'x'],
                     ['list', '--class'], ['status', '--class', 'usb'], ['--frobnicate', 'list'],
                     ['help', 'frobnicate']):
            rc, out, err = self.pmctl(*args)
            self.assertEqual(rc, 2, (args, err))
            self.assertEqual(out, '', args)
            self.assertTrue(err.startswith('pmctl: '), err)
            self.assertIn("Try 'pmctl --help'.", err)

    def test_help_and_version(self):
        rc, out, err = self.pmctl('--help')
        self.assertEqual((rc, err), (0, ''))
        for cmd in ('status', 'list', 'show', 'set', 'reset', 'reload', 'monitor', 'tree',
                    'power-down', 'power-up', 'hold', 'inhibit', 'inhibitors', 'suspend',
                    'hibernate', 'quirks'):
            self.assertIn('  ' + cmd, out)
        self.assertEqual(self.pmctl('help')[1], out)
        rc, out2, err = self.pmctl('show', '--help')
        self.assertEqual(rc, 0)
        self.assertIn('pmctl [--json] show DEVICE', out2)
        self.assertEqual(self.pmctl('help', 'show')[1], out2)
        rc, out2, err = self.pmctl('hold', '--help')
        self.assertEqual(rc, 0)
        self.assertIn('hold DEVICE [--who WHO] [--why WHY] -- COMMAND...', out2)
        rc, out, err = self.pmctl('--version')
        self.assertEqual(rc, 0)
        self.assertRegex(out, r'^pmctl \d+\.\d+\.\d+\n$')


class TestQueries(PmctlTestCase):

    def setUp(self):
        super().setUp()
        self.start_daemon()
        self.devices = self.call('ListDevices')[0]

    def test_list_tsv(self):
        rc, out, err = self.pmctl('list', '--no-pager')
        self.assertEqual((rc, err), (0, ''))
        lines = out.splitlines()
        self.assertEqual(len(lines), len(self.devices))
        for line, d in zip(lines, self.devices):
            cols = line.split('\t')
            delay = d['autosuspend_delay_ms']
            self.assertEqual(cols, [d['path'], d['class'], d['control'] or '-',
                                    str(delay) if delay >= 0 else '-',
                                    d['runtime_status'], 'yes' if d['held'] else 'no'])
        # cut -f works
        storage = [line for line in lines if line.startswith(STORAGE + '\t')][0]
        self.assertEqual(storage.split('\t')[1:4], ['usb-storage', 'auto', '5000'])

    def test_list_class(self):
        rc, out, err = self.pmctl('list', '--class', 'usb-hub')
        self.assertEqual(rc, 0)
        paths = [line.split('\t')[0] for line in out.splitlines()]
        expected = [d['path'] for d in self.devices if d['class'] == 'usb-hub']
        self.assertEqual(paths, expected)
        self.assertEqual(len(expected), 2)
        rc, out2, err = self.pmctl('--class=usb-hub', 'list')
        self.assertEqual(out2, out)
        rc, out, err = self.pmctl('list', '--class', 'no-such-class')
        self.assertEqual((rc, out, err), (0, '', ''))

    def test_list_json(self):
        rc, out, err = self.pmctl('list', '--json')
        self.assertEqual(rc, 0)
        self.assertEqual(out.count('\n'), 1, 'one compact document when piped')
        self.assertEqual(json.loads(out), self.devices)
        rc, out, err = self.pmctl('--json', 'list', '--class', 'usb-storage')
        self.assertEqual(json.loads(out), [d for d in self.devices if d['class'] == 'usb-storage'])

    def test_show(self):
        info = self.call('GetDevice', ('1-1.2',), '(s)')[0]
        rc, out, err = self.pmctl('show', '1-1.2')
        self.assertEqual((rc, err), (0, ''))
        fields = dict(line.split('\t', 1) for line in out.splitlines())
        self.assertEqual(set(fields), set(info))
        self.assertEqual(out.splitlines()[0], 'path\t' + STORAGE)
        self.assertEqual(fields['control'], 'auto')
        self.assertEqual(fields['autosuspend_delay_ms'], '5000')
        self.assertEqual(fields['parent'], HUB)
        self.assertEqual(fields['suppliers'], '-')
        self.assertEqual(fields['held'], 'no')
        for arg in (STORAGE, '/sys/bus/usb/devices/1-1.2'):
            rc, out2, err = self.pmctl('show', arg)
            self.assertEqual((rc, out2), (0, out))
        rc, out, err = self.pmctl('show', '--json', '1-1.2')
        self.assertEqual(json.loads(out), info)

    def test_show_errors(self):
        rc, out, err = self.pmctl('show', '1-9')
        self.assertEqual((rc, out, err), (1, '', 'pmctl: no such device: 1-9\n'))
        rc, out, err = self.pmctl('show', '/sys/devices/nope')
        self.assertEqual((rc, out, err), (1, '', 'pmctl: no such device: /sys/devices/nope\n'))
        rc, out, err = self.pmctl('show', 'a/b')
        self.assertEqual(rc, 1)
        self.assertTrue(err.startswith('pmctl: invalid argument: '), err)
        self.assertEqual(err.count('\n'), 1)

    def test_status(self):
        rc, out, err = self.pmctl('status')
        self.assertEqual((rc, err), (0, ''))
        fields = dict(line.split('\t', 1) for line in out.splitlines())
        self.assertEqual(fields['Version'], self.get_property('Version'))
        self.assertEqual(fields['OnBattery'], 'no')
        self.assertEqual(fields['Backend'], self.get_property('Backend'))
        n = len(self.devices)
        self.assertTrue(fields['Devices'].startswith('%d (' % n), fields['Devices'])

        rc, out, err = self.pmctl('status', '--json')
        doc = json.loads(out)
        self.assertEqual(doc['Version'], self.get_property('Version'))
        self.assertIs(doc['OnBattery'], False)
        self.assertEqual(doc['devices']['total'], n)
        for st in ('active', 'suspended', 'suspending', 'resuming', 'error', 'unsupported'):
            self.assertEqual(doc['devices'][st],
                             sum(1 for d in self.devices if d['runtime_status'] == st), st)

        self.laptop.set_ac(False)
        wait_until(lambda: self.get_property('OnBattery'), 5, 'OnBattery')
        self.assertIn('OnBattery\tyes\n', self.pmctl('status')[1])

    def test_terminal_output(self):
        rc, out = self.pmctl_tty('list')
        self.assertEqual(rc, 0)
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ['PATH', 'CLASS', 'CONTROL', 'DELAY', 'STATUS', 'HELD'])
        self.assertEqual(len(lines), len(self.devices) + 1)
        self.assertNotIn('\t', out)
        col = lines[0].index('CLASS')
        for line in lines[1:]:
            self.assertEqual(line[col - 2:col], '  ', line)
            self.assertNotEqual(line[col], ' ', line)
        rc, out = self.pmctl_tty('show', '--json', '1-1.2')
        self.assertGreater(out.count('\n'), 5, 'pretty JSON on a terminal')
        self.assertEqual(json.loads(out)['path'], STORAGE)
        rc, out = self.pmctl_tty('status')
        self.assertRegex(out, r'(?m)^Version: +\S')


class TestReload(PmctlTestCase):

    def test_reload_ok(self):
        self.start_daemon()
        rc, out, err = self.pmctl('reload')
        self.assertEqual((rc, out, err), (0, '', ''))

    def test_reload_problems(self):
        d = self.start_daemon()
        with open(d.config_path, 'a') as f:
            f.write('[Class usb-extra]\nControl=sometimes\nthis is not a key\n[Bogus]\n')
        rc, out, err = self.pmctl('reload')
        self.assertEqual(rc, 1)
        self.assertEqual(out, '')
        lines = err.splitlines()
        self.assertEqual(lines[0], 'pmctl: the configuration was reloaded with 3 problems '
                         '(the valid settings are applied):')
        self.assertEqual(len(lines), 5, err)
        n = TEST_CONFIG.count('\n')
        for i, line in enumerate(lines[1:4]):
            self.assertTrue(line.startswith('  %s:%d: ' % (d.config_path, n + 2 + i)), line)
        # and where to check before the next reload (issue 10)
        self.assertRegex(lines[4], r"^Check the configuration .*'/\S*/powerpolicyd --check-config'\.$")

    def test_reload_not_authorized(self):
        self.start_daemon()
        env = self.pmctl_env()
        nobody = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups']
        pmctl = self.staged_for_others(PMCTL)[PMCTL]
        r = subprocess.run(nobody + [pmctl, 'reload'], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout, '')
        self.assertRegex(r.stderr,
                         r'^pmctl: not authorized to reload the configuration \(.*\)\n$')
        # reads are open to everyone
        r = subprocess.run(nobody + [pmctl, 'show', '1-1'], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('path\t' + HUB + '\n', r.stdout)


class TestOverrides(PmctlTestCase):

    def test_set_and_reset(self):
        self.start_daemon()
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        rc, out, err = self.pmctl('set', '1-1.2', 'Control', 'on')
        self.assertEqual((rc, out, err), (0, '', ''))
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')
        rc, out, err = self.pmctl('set', STORAGE, 'AutosuspendDelayMs', '42')
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '42')
        rc, out, err = self.pmctl('reset', '1-1.2')
        self.assertEqual((rc, out, err), (0, '', ''))
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')

    def test_set_errors(self):
        self.start_daemon()
        rc, out, err = self.pmctl('set', '1-1.2', 'Control', 'sometimes')
        self.assertEqual(rc, 1)
        self.assertRegex(err, r"^pmctl: invalid argument: .*'sometimes'.*\n$")
        rc, out, err = self.pmctl('set', '1-1.2', 'Colour', 'red')
        self.assertEqual(rc, 1)
        self.assertRegex(err, r"^pmctl: invalid argument: unknown key 'Colour'.*\n$")
        rc, out, err = self.pmctl('set', '7-7', 'Control', 'on')
        self.assertEqual((rc, err), (1, 'pmctl: no such device: 7-7\n'))
        rc, out, err = self.pmctl('reset', '7-7')
        self.assertEqual((rc, err), (1, 'pmctl: no such device: 7-7\n'))
        rc, out, err = self.pmctl('set', '1-1.2', 'Control')
        self.assertEqual(rc, 2, err)
        rc, out, err = self.pmctl('reset')
        self.assertEqual(rc, 2, err)
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')


class TestMonitor(PmctlTestCase):

    def start_monitor(self, *args):
        p = subprocess.Popen([PMCTL, 'monitor'] + list(args), env=self.pmctl_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, bufsize=0)
        ready = p.stderr.readline()
        self.assertEqual(ready, 'pmctl: monitoring org.powerpolicy1, press Ctrl+C to stop\n')
        return p

    def read_line(self, p, timeout=5):
        """One line of @p's stdout (unbuffered, so select() stays truthful)."""
        buf = getattr(p, 'linebuf', b'')
        deadline = time.monotonic() + timeout
        while b'\n' not in buf:
            r, _, _ = select.select([p.stdout], [], [], max(0, deadline - time.monotonic()))
            self.assertTrue(r, 'no monitor output within %ds (have %r)' % (timeout, buf))
            chunk = os.read(p.stdout.fileno(), 4096)
            self.assertTrue(chunk, 'monitor closed its output')
            buf += chunk
        line, _, p.linebuf = buf.partition(b'\n')
        return line.decode() + '\n'

    def test_monitor_json(self):
        d = self.start_daemon()
        p = self.start_monitor('--json')
        self.laptop.set_ac(False)
        events = []
        while not any(e['signal'] == 'PropertiesChanged' for e in events) or \
                not any(e['signal'] == 'DeviceChanged' and e['path'] == STORAGE for e in events):
            events.append(json.loads(self.read_line(p)))
        props = [e for e in events if e['signal'] == 'PropertiesChanged'][0]
        self.assertEqual(props, {'signal': 'PropertiesChanged', 'changed': {'OnBattery': True},
                                 'invalidated': []})
        dev = [e for e in events if e.get('path') == STORAGE][0]
        self.assertEqual(dev['changed'], {'autosuspend_delay_ms': 2000})

        # the daemon goes away and comes back: told, and followed
        d.stop()
        # DeviceChanged of the battery switch may still be queued before it
        while json.loads(self.read_line(p))['signal'] != 'DaemonStopped':
            pass
        self.start_daemon()
        seen = [json.loads(self.read_line(p))]
        self.assertEqual(seen[0], {'signal': 'DaemonStarted'})
        self.laptop.set_ac(True)
        while not any(e['signal'] == 'PropertiesChanged' for e in seen):
            seen.append(json.loads(self.read_line(p)))

        p.send_signal(signal.SIGINT)
        self.assertEqual(p.wait(timeout=5), 0)
        self.assertEqual(p.stderr.read(), '')

    def test_monitor_one_line_per_signal(self):
        # the battery low when the AC goes: the daemon sends LowBattery and
        # OnBattery in one PropertiesChanged, and monitor prints one line
        # for it, in the signal's order (the proxy's notify:: per property,
        # gathered)
        tb = self.laptop.tb
        tb.set_attribute(self.laptop.bat, 'capacity', '5')
        tb.set_attribute(self.laptop.bat, 'energy_now', '2500000')
        tb.set_attribute(self.laptop.bat, 'energy_full', '50000000')
        self.start_daemon()
        p = self.start_monitor()
        self.laptop.set_ac(False)
        lines = []
        while not any(l.startswith('PropertiesChanged') for l in lines):
            lines.append(self.read_line(p))
        props = [l for l in lines if l.startswith('PropertiesChanged')]
        self.assertEqual(props, ['PropertiesChanged LowBattery=yes OnBattery=yes\n'])
        p.send_signal(signal.SIGINT)
        self.assertEqual(p.wait(timeout=5), 0)

    def test_monitor_text_sigterm(self):
        self.start_daemon()
        p = self.start_monitor()
        self.laptop.set_ac(False)
        lines = []
        while 'PropertiesChanged OnBattery=yes\n' not in lines or \
                'DeviceChanged %s autosuspend_delay_ms=2000\n' % STORAGE not in lines:
            lines.append(self.read_line(p))
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=5), 0)


if __name__ == '__main__':
    main()
