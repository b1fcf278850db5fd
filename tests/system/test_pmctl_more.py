#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""pmctl commands of issues 4, 5 and 6 against the real powerpolicyd in a
umockdev testbed: tree, power-down, power-up, hold, inhibit, inhibitors,
quirks, suspend, hibernate.

Expected values come from the daemon's D-Bus answers and the testbed's
attribute files, never from pmctl itself. Sleep goes to the testbed's
/sys/power/state or to python-dbusmock's logind on the private bus: never
to the real machine."""

import json
import os
import pty
import select
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ppharness import (  # noqa: E402
    AHCI, HDA, HUB, MOUSE, ROOTHUB, STORAGE, XHCI, main, wait_until,
)
from test_pmctl import PMCTL, PmctlTestCase  # noqa: E402
from test_tree import GPU, STORAGE_PORT, add_tree_devices  # noqa: E402
from test_sleep import LATITUDE_D630, SLEEP_CONFIG, SleepTestCase  # noqa: E402


class MoreTestCase(PmctlTestCase):

    def pmctl_in(self, *args, stdin=subprocess.DEVNULL, env=None, timeout=30):
        """pmctl with stdin not a terminal (unless given) and extra env."""
        e = self.pmctl_env()
        e.update(env or {})
        r = subprocess.run([PMCTL] + list(args), env=e, stdin=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr


    def device(self, dev):
        return self.call('GetDevice', (dev,), '(s)')[0]

    def inhibitors(self):
        return self.call('ListInhibitors')[0]

    def start_holding(self, *args):
        """pmctl ARGS... whose COMMAND prints 'ready' and waits for a line
        on stdin: returns the running pmctl once COMMAND is running."""
        p = subprocess.Popen([PMCTL] + list(args) + ['/bin/sh', '-c', 'echo ready; read x; exit 3'],
                             env=self.pmctl_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True)
        self.addCleanup(lambda: p.poll() is None and (p.kill(), p.wait()))
        r, _, _ = select.select([p.stdout], [], [], 10)
        self.assertTrue(r, 'COMMAND did not start')
        self.assertEqual(p.stdout.readline(), 'ready\n', p.stderr.read() if p.poll() is not None else '')
        return p

    def finish_holding(self, p):
        p.stdin.write('go\n')
        p.stdin.close()
        rc = p.wait(timeout=10)
        err = p.stderr.read()
        p.stdout.close()
        p.stderr.close()
        return rc, err


class TestPmctlTree(MoreTestCase):

    def setUp(self):
        super().setUp()
        add_tree_devices(self.laptop)

    def flatten(self, nodes, parent=None, out=None):
        out = {} if out is None else out
        for n in nodes:
            self.assertNotIn(n['path'], out, 'each device once')
            out[n['path']] = (parent, n)
            self.flatten(n['children'], n['path'], out)
        return out

    def test_tree_text(self):
        self.start_daemon()
        devices = {d['path']: d for d in self.call('ListDevices')[0]}
        rc, out, err = self.pmctl('tree')
        self.assertEqual((rc, err), (0, ''))
        lines = out.splitlines()
        rows = [line.split('\t') for line in lines]
        self.assertTrue(all(len(r) == 6 for r in rows), out)

        # every device once, its columns from the daemon; the path rebuilt
        # from the indentation (3 columns a level) and the names
        dev_rows = [r for r in rows if r[1] != '']
        self.assertEqual(len(dev_rows), len(devices))
        stack = []
        seen = []
        for r in dev_rows:
            name = r[0].lstrip('│├└─ ')
            depth = (len(r[0]) - len(name)) // 3
            path = name if depth == 0 else stack[depth - 1] + '/' + name
            stack[depth:] = [path]
            seen.append(path)
            d = devices[path]
            self.assertEqual(r[1:5], [d['class'], d['control'] or '-', d['runtime_status'],
                                      'yes' if d['held'] else 'no'], r)
            self.assertEqual(r[5], '[blocked by %s]' % d['blocker'] if d['blocker'] else '', r)
        self.assertEqual(sorted(seen), sorted(devices))

        # the hub is kept awake by the mouse (usb-hid stays on): marked
        self.assertEqual(devices[HUB]['blocker'], MOUSE)
        hub_line = [line for line in lines if line.split('\t')[0].endswith('─ 1-1')][0]
        self.assertTrue(hub_line.endswith('\t[blocked by %s]' % MOUSE), hub_line)

        # indentation: roots at column 0 by full path, children below
        self.assertIn(XHCI + '\tpci\t', out)
        i = lines.index([line for line in lines if line.startswith(XHCI + '\t')][0])
        self.assertTrue(lines[i + 1].startswith('└─ usb1\t'), lines[i + 1])
        # usb1's children: hub 1-1, the last; its interface 1-0:1.0 is not
        # a managed device (the rules tag USB devices, not interfaces)
        self.assertNotIn(ROOTHUB + '/1-0:1.0', devices)
        self.assertTrue(lines[i + 2].startswith('   └─ 1-1\t'), lines[i + 2])
        self.assertTrue(lines[i + 3].startswith('      ├─ 1-1.1\t'), lines[i + 3])
        # a parent the daemon does not list (scsi host0 in ata1): still below AHCI
        ahci = [n for n in lines if n.startswith(AHCI + '\t')]
        self.assertEqual(len(ahci), 1)

        # the device link GPU -> HDA, on both ends
        self.assertEqual(devices[GPU]['consumers'], [HDA])
        gpu_i = lines.index([line for line in lines if line.startswith(GPU + '\t')][0])
        self.assertEqual(rows[gpu_i + 1][0].strip(), '→ consumer ' + HDA)
        hda_i = lines.index([line for line in lines if line.startswith(HDA + '\t')][0])
        self.assertEqual(rows[hda_i + 1][0].strip(), '← supplier ' + GPU)

        # a subtree only
        rc, out2, err = self.pmctl('tree', '1-1')
        self.assertEqual((rc, err), (0, ''))
        first = out2.splitlines()[0].split('\t')
        self.assertEqual(first[0], HUB)
        self.assertIn('├─ 1-1.1\tusb-hid\t', out2)
        self.assertIn('└─ 1-1.2\tusb-storage\t', out2)
        self.assertNotIn('1-1:1.0', out2)     # an interface: not managed
        self.assertNotIn(XHCI + '\t', out2)

        # ASCII drawing outside UTF-8
        rc, out3, err = self.pmctl_in('tree', '1-1', env={'LANG': 'C', 'LC_ALL': 'C'})
        self.assertEqual(rc, 0, err)
        self.assertIn('|- 1-1.1\t', out3)
        self.assertIn('`- 1-1.2\t', out3)

    def test_tree_json(self):
        self.start_daemon()
        devices = {d['path']: d for d in self.call('ListDevices')[0]}
        rc, out, err = self.pmctl('tree', '--json')
        self.assertEqual((rc, err), (0, ''))
        doc = json.loads(out)
        flat = self.flatten(doc)
        self.assertEqual(set(flat), set(devices))
        for path, (parent, node) in flat.items():
            d = devices[path]
            for key in ('class', 'control', 'runtime_status', 'held', 'blocker',
                        'suppliers', 'consumers'):
                self.assertEqual(node[key], d[key], (path, key))
            # placed under the nearest managed ancestor
            above = os.path.dirname(path)
            while above not in devices and above != '/':
                above = os.path.dirname(above)
            self.assertEqual(parent, above if above in devices else None, path)
        self.assertEqual(flat[STORAGE][0], HUB)
        self.assertEqual(flat[HUB][1]['blocker'], MOUSE)
        self.assertEqual(flat[HDA][1]['suppliers'], [GPU])

        rc, out, err = self.pmctl('--json', 'tree', STORAGE)
        doc = json.loads(out)
        self.assertEqual(len(doc), 1)
        self.assertEqual(doc[0]['path'], STORAGE)
        self.assertEqual(doc[0]['children'], [])

        rc, out, err = self.pmctl('tree', '7-7')
        self.assertEqual((rc, out, err), (1, '', 'pmctl: no such device: 7-7\n'))
        rc, out, err = self.pmctl('tree', 'a', 'b')
        self.assertEqual(rc, 2, err)

    def test_tree_terminal_highlights_blockers(self):
        self.start_daemon()
        rc, out = self.pmctl_tty('tree', env={'TERM': 'xterm'})
        self.assertEqual(rc, 0)
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ['DEVICE', 'CLASS', 'CONTROL', 'STATUS', 'HELD', 'BLOCKER'])
        # the mouse keeps the hub awake: it is bold red, the marker coloured
        mouse = [line for line in lines if '─ \033[1;31m1-1.1' in line][0]
        self.assertIn('├─ \033[1;31m1-1.1\033[0m', mouse)
        hub = [line for line in lines if '─ 1-1 ' in line][0]
        self.assertIn('\033[33m[blocked by %s]\033[0m' % MOUSE, hub)
        # colours do not shift the columns
        col = lines[0].index('CLASS')
        plain = mouse.replace('\033[1;31m', '').replace('\033[0m', '')
        self.assertEqual(plain[col:].split()[0], 'usb-hid')
        rc, out = self.pmctl_tty('tree', env={'TERM': 'xterm', 'NO_COLOR': '1'})
        self.assertNotIn('\033', out)
        self.assertIn('[blocked by %s]' % MOUSE, out)


class TestPmctlTreeRobust(MoreTestCase):
    """A fake daemon (python-dbusmock) whose device list no sysfs would
    give: cycles of parents and of device links, parents nobody lists."""

    DEVICES = [
        # a <-> b device links both ways
        ('/sys/devices/a', '', ['/sys/devices/b'], ['/sys/devices/b'], ''),
        ('/sys/devices/b', '', ['/sys/devices/a'], ['/sys/devices/a'], '/sys/devices/gone'),
        # a parent nobody lists: below the nearest listed ancestor, or a root
        ('/sys/devices/a/m/n', '/sys/devices/a/m', [], [], ''),
        ('/sys/devices/x/y/z', '/sys/devices/x/y', [], [], ''),
        # parents in a cycle, and a device its own parent
        ('/sys/devices/c', '/sys/devices/d', [], [], ''),
        ('/sys/devices/d', '/sys/devices/c', [], [], ''),
        ('/sys/devices/e', '/sys/devices/e', [], [], ''),
        # the same path twice: shown once
        ('/sys/devices/a', '', [], [], ''),
    ]

    def setUp(self):
        super().setUp()
        proc = self.spawn_server('org.powerpolicy1', '/org/powerpolicy1',
                                 'org.powerpolicy1.Manager', system_bus=True,
                                 stdout=subprocess.DEVNULL)
        self.addCleanup(lambda: (proc.terminate(), proc.wait()))
        obj = self.dbus_con.get_object('org.powerpolicy1', '/org/powerpolicy1')
        items = []
        for path, parent, sup, con, blocker in self.DEVICES:
            items.append("{'path': %r, 'parent': %r, 'class': 'x', 'control': 'auto', "
                         "'runtime_status': 'active', 'held': False, 'blocker': %r, "
                         "'suppliers': dbus.Array(%r, signature='s'), "
                         "'consumers': dbus.Array(%r, signature='s')}"
                         % (path, parent, blocker, sup, con))
        obj.AddMethod('org.powerpolicy1.Manager', 'ListDevices', '', 'aa{sv}',
                      'ret = [%s]' % ', '.join(items), dbus_interface='org.freedesktop.DBus.Mock')
        obj.AddMethod('org.powerpolicy1.Manager', 'GetDevice', 's', 'a{sv}',
                      "ret = {'path': args[0]}", dbus_interface='org.freedesktop.DBus.Mock')

    def test_cycles_and_missing_parents(self):
        rc, out, err = self.pmctl('--json', 'tree', timeout=10)
        self.assertEqual((rc, err), (0, ''))
        doc = json.loads(out)
        seen = []

        def walk(nodes, parent):
            for n in nodes:
                seen.append((n['path'], parent))
                walk(n['children'], n['path'])
        walk(doc, None)
        self.assertEqual(sorted(p for p, _ in seen), sorted(set(d[0] for d in self.DEVICES)))
        placed = dict(seen)
        self.assertEqual(placed['/sys/devices/a/m/n'], '/sys/devices/a')
        self.assertIsNone(placed['/sys/devices/x/y/z'])
        self.assertIsNone(placed['/sys/devices/e'])
        self.assertEqual({placed['/sys/devices/c'], placed['/sys/devices/d']},
                         {None, '/sys/devices/c'})

        rc, out, err = self.pmctl('tree', timeout=10)
        self.assertEqual((rc, err), (0, ''))
        lines = out.splitlines()
        self.assertIn('└─ m/n\tx\tauto\tactive\tno\t', lines)
        self.assertIn('/sys/devices/x/y/z\tx\tauto\tactive\tno\t', lines)
        # each link shown once on each side, not followed
        self.assertEqual(sum(1 for line in lines if '→ consumer /sys/devices/b' in line), 1)
        self.assertEqual(sum(1 for line in lines if '← supplier /sys/devices/a' in line), 1)
        # a blocker the daemon does not list is still named
        self.assertIn('/sys/devices/b\tx\tauto\tactive\tno\t[blocked by /sys/devices/gone]',
                      lines)
        rc, out, err = self.pmctl('tree', '/sys/devices/c', timeout=10)
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(out.splitlines()), 2, out)


class TestPmctlPower(MoreTestCase):

    def setUp(self):
        super().setUp()
        add_tree_devices(self.laptop)

    def test_power_down_up_rows(self):
        self.start_daemon()
        rc, out, err = self.pmctl('power-down', '1-1', '--subtree')
        self.assertEqual((rc, err), (0, ''))
        rows = [line.split('\t') for line in out.splitlines()]
        self.assertTrue(all(len(r) == 3 for r in rows), out)
        result = {r[0]: r[1] for r in rows}
        self.assertEqual(result[MOUSE], 'skipped')
        self.assertEqual(result[STORAGE], 'suspended')
        self.assertEqual(result[HUB], 'skipped')
        self.assertEqual(rows[-1][0], HUB, 'children first')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '0')
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')

        rc, out, err = self.pmctl('power-up', '--json', '1-1.2')
        self.assertEqual((rc, err), (0, ''))
        doc = json.loads(out)
        self.assertEqual([r['path'] for r in doc][-1], STORAGE)
        self.assertEqual({r['result'] for r in doc}, {'on'})
        self.assertEqual(set(doc[0]), {'path', 'result', 'detail'})
        # ancestors first
        self.assertEqual([r['path'] for r in doc][:3], [XHCI, ROOTHUB, HUB])
        # resumed, then the policy's again: auto with its delay
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        self.assertTrue(doc[-1]['detail'].endswith('then the policy: power/control=auto'), doc)
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')

    def test_power_down_off(self):
        self.start_daemon()
        rc, out, err = self.pmctl('power-down', '--off', '1-1.2')
        self.assertEqual((rc, err), (0, ''))
        self.assertEqual(out.split('\t')[:2], [STORAGE, 'off'])
        self.assertEqual(self.laptop.read(STORAGE_PORT), '1')
        rc, out, err = self.pmctl('power-up', '1-1.2')
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.laptop.read(STORAGE_PORT), '0')

    def test_power_failed_exit_status(self):
        self.start_daemon()
        # writes to the disk's power/control fail from now on
        ctl = self.laptop.path(STORAGE + '/power/control')
        os.unlink(ctl)
        os.symlink('/dev/full', ctl)
        rc, out, err = self.pmctl('power-down', '1-1.2')
        self.assertEqual(rc, 1)
        row = out.rstrip('\n').split('\t')
        self.assertEqual(row[:2], [STORAGE, 'failed'])
        self.assertEqual(err, 'pmctl: power down 1-1.2: 1 of 1 device failed\n')
        rc, out, err = self.pmctl('--json', 'power-down', '1-1.2')
        self.assertEqual(rc, 1)
        self.assertEqual(json.loads(out)[0]['result'], 'failed')

    def test_power_errors(self):
        self.start_daemon()
        rc, out, err = self.pmctl('power-down', '7-7')
        self.assertEqual((rc, out, err), (1, '', 'pmctl: no such device: 7-7\n'))
        rc, out, err = self.pmctl('power-up', '7-7', '--subtree')
        self.assertEqual((rc, out, err), (1, '', 'pmctl: no such device: 7-7\n'))
        for args in (['power-down'], ['power-up'], ['power-up', '1-1', '--off'],
                     ['power-down', '1-1', '1-2'], ['tree', '--subtree']):
            rc, out, err = self.pmctl(*args)
            self.assertEqual(rc, 2, (args, err))
            self.assertIn("Try 'pmctl --help'.", err)
        # without polkit only root may
        nobody = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups']
        pmctl = self.staged_for_others(PMCTL)[PMCTL]
        r = subprocess.run(nobody + [pmctl, 'power-down', '1-1.2'], env=self.pmctl_env(),
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stderr, r'^pmctl: not authorized to power down 1-1.2 \(.*\)\n$')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')


class TestPmctlHold(MoreTestCase):

    def test_hold_exit_status(self):
        self.start_daemon()
        rc, out, err = self.pmctl('hold', '1-1.2', '--', '/bin/sh', '-c', 'exit 7')
        self.assertEqual((rc, out, err), (7, '', ''))
        rc, out, err = self.pmctl('hold', '1-1.2', '/bin/sh', '-c', 'kill -TERM $$')
        self.assertEqual(rc, 128 + signal.SIGTERM)
        rc, out, err = self.pmctl('hold', '1-1.2', '--', 'no-such-command-pmctl')
        self.assertEqual(rc, 127)
        self.assertTrue(err.startswith('pmctl: cannot run no-such-command-pmctl: '), err)
        # the hold was refused: COMMAND never runs
        with tempfile.TemporaryDirectory() as tmp:
            flag = os.path.join(tmp, 'ran')
            rc, out, err = self.pmctl('hold', '7-7', '--', '/bin/touch', flag)
            self.assertEqual((rc, err), (1, 'pmctl: no such device: 7-7\n'))
            self.assertFalse(os.path.exists(flag))
        self.assertEqual(self.pmctl('hold', '1-1.2')[0], 2)
        self.assertEqual(self.pmctl('hold', '--', 'true')[0], 2)
        self.assertEqual(self.inhibitors(), [])

    def test_hold_while_command_runs(self):
        self.start_daemon()
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'auto')
        p = self.start_holding('hold', '--who', 'tester', '1-1.2', '--why', 'copying', '--')
        self.assertTrue(self.device(STORAGE)['held'])
        # the device and its ancestors are on
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')
        self.assertEqual(self.attr(HUB, 'power/control'), 'on')
        self.assertEqual(self.inhibitors(), [('hold', 'tester', 'copying', STORAGE, p.pid)])
        rc, out, err = self.pmctl('inhibitors')
        self.assertEqual(out, 'hold\ttester\tcopying\t%s\t%d\n' % (STORAGE, p.pid))
        rc, out, err = self.pmctl('list')
        self.assertIn(STORAGE + '\tusb-storage\ton\t5000\tactive\tyes\n', out)
        rc, out, err = self.pmctl('tree', '1-1')
        self.assertIn('└─ 1-1.2\tusb-storage\ton\tactive\tyes\t', out)

        rc, err = self.finish_holding(p)
        self.assertEqual((rc, err), (3, ''))
        wait_until(lambda: not self.device(STORAGE)['held'], 5, 'the hold to go')
        self.wait_attr(STORAGE, 'power/control', 'auto')
        self.assertEqual(self.inhibitors(), [])

    def test_fd_does_not_leak_into_command(self):
        self.start_daemon()
        # COMMAND leaves a process behind: it must not keep the hold
        rc, out, err = self.pmctl('hold', '1-1.2', '--', '/bin/sh', '-c',
                                  'sleep 60 >/dev/null 2>&1 </dev/null & echo $!')
        self.assertEqual(rc, 0, err)
        straggler = int(out)
        self.addCleanup(lambda: os.kill(straggler, signal.SIGKILL))
        wait_until(lambda: self.inhibitors() == [], 5, 'the hold to end with pmctl')
        self.assertFalse(self.device(STORAGE)['held'])
        os.kill(straggler, 0)   # still running
        # and COMMAND sees only stdin, stdout and stderr
        rc, out, err = self.pmctl('hold', '1-1.2', '--', '/bin/ls', '/proc/self/fd')
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(out.split()), ['0', '1', '2', '3'])  # 3: ls's own directory

    def test_sigterm_reaches_command(self):
        self.start_daemon()
        p = self.start_holding('hold', '1-1.2', '--')
        self.assertTrue(self.device(STORAGE)['held'])
        why = self.inhibitors()[0][2]
        self.assertEqual(why, "/bin/sh -c 'echo ready; read x; exit 3'")
        self.assertEqual(self.inhibitors()[0][1], 'pmctl')
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=10), 128 + signal.SIGTERM)
        wait_until(lambda: self.inhibitors() == [], 5, 'the hold to go')


class TestPmctlInhibit(MoreTestCase):

    def test_inhibit_and_inhibitors(self):
        self.start_daemon()
        rc, out, err = self.pmctl('inhibitors')
        self.assertEqual((rc, out, err), (0, '', ''))
        p = self.start_holding('inhibit', '--what', 'idle:lid', '--who', 'tester',
                               '--why', 'presenting')
        self.assertEqual(self.inhibitors(), [('idle:lid', 'tester', 'presenting', '', p.pid)])
        rc, out, err = self.pmctl('inhibitors')
        self.assertEqual((rc, out, err), (0, 'idle:lid\ttester\tpresenting\t-\t%d\n' % p.pid, ''))
        rc, out, err = self.pmctl('inhibitors', '--json')
        self.assertEqual(json.loads(out), [{'what': 'idle:lid', 'who': 'tester', 'why': 'presenting',
                                            'device': '', 'pid': p.pid}])
        rc, out, err = self.pmctl('status')
        fields = dict(line.split('\t', 1) for line in out.splitlines())
        self.assertEqual(fields['Inhibitors'],
                         '1 (idle:lid by tester[%d]: presenting)' % p.pid)
        rc, out = self.pmctl_tty('inhibitors')
        self.assertEqual(out.splitlines()[0].split(), ['WHAT', 'WHO', 'WHY', 'DEVICE', 'PID'])
        rc, err = self.finish_holding(p)
        self.assertEqual((rc, err), (3, ''))
        wait_until(lambda: self.inhibitors() == [], 5, 'the inhibitor to go')

    def test_inhibit_default_what(self):
        self.start_daemon()
        # COMMAND is pmctl itself: it sees the inhibitor it runs under
        rc, out, err = self.pmctl('inhibit', PMCTL, 'inhibitors')
        self.assertEqual(rc, 0, err)
        row = out.rstrip('\n').split('\t')
        self.assertEqual(row[:4], ['idle', 'pmctl', PMCTL + ' inhibitors', '-'])
        self.assertEqual(self.inhibitors(), [])

    def test_inhibit_errors(self):
        self.start_daemon()
        with tempfile.TemporaryDirectory() as tmp:
            flag = os.path.join(tmp, 'ran')
            rc, out, err = self.pmctl('inhibit', '--what', 'sleep', '--', '/bin/touch', flag)
            self.assertEqual(rc, 1)
            self.assertTrue(err.startswith('pmctl: invalid argument: '), err)
            self.assertFalse(os.path.exists(flag))
        for args in (['inhibit'], ['inhibit', '--what', 'idle'], ['inhibitors', 'x'],
                     ['inhibitors', '--what', 'idle'], ['hold', '1-1', '--what', 'idle', '--', 'true']):
            rc, out, err = self.pmctl(*args)
            self.assertEqual(rc, 2, (args, err))
        self.assertEqual(self.inhibitors(), [])


class TestPmctlStatus(MoreTestCase):

    def test_status_shows_idle_lid_dock(self):
        self.start_daemon()
        rc, out, err = self.pmctl('status')
        self.assertEqual((rc, err), (0, ''))
        fields = dict(line.split('\t', 1) for line in out.splitlines())
        for name in ('UserIdle', 'LidClosed', 'Docked', 'LowBattery'):
            self.assertEqual(fields[name], 'yes' if self.get_property(name) else 'no', name)
        self.assertEqual(fields['IdleTimeoutSec'], str(self.get_property('IdleTimeoutSec')))
        self.assertEqual(fields['VideoQuirks'], ','.join(self.get_property('VideoQuirks')) or '-')
        self.assertEqual(fields['Inhibitors'], '0')
        names = [line.split('\t')[0] for line in out.splitlines()]
        self.assertEqual(names[:10], ['Version', 'Backend', 'OnBattery', 'PowerSource', 'LowBattery',
                                      'UserIdle', 'IdleTimeoutSec', 'LidClosed', 'Docked',
                                      'VideoQuirks'])
        self.assertEqual(fields['PowerSource'], 'auto (from the power supplies)')


class TestPmctlSleep(MoreTestCase, SleepTestCase):

    def test_quirks(self):
        self.add_machine(LATITUDE_D630)
        self.start()
        quirks = self.get_property('VideoQuirks')
        rows = self.call('GetVideoQuirks')[0]
        self.assertTrue(quirks)
        rc, out, err = self.pmctl('quirks', '--json')
        self.assertEqual((rc, err), (0, ''))
        doc = json.loads(out)
        self.assertEqual(doc['quirks'], quirks)
        self.assertEqual([(s['quirk'], s['source'], s['detail']) for s in doc['sources']],
                         [tuple(r) for r in rows])
        self.assertEqual({s['source'] for s in doc['sources']}, {'database'})
        rc, out, err = self.pmctl('quirks')
        self.assertEqual(out, ''.join('%s\t%s\t%s\n' % tuple(r) for r in rows))

    def test_quirks_from_config(self):
        self.add_machine(LATITUDE_D630)
        self.start(SLEEP_CONFIG + 'VideoQuirks=dpms_on,vbe_post\n')
        rc, out, err = self.pmctl('quirks', '--json')
        self.assertEqual((rc, err), (0, ''))
        doc = json.loads(out)
        self.assertEqual(doc['quirks'], ['dpms_on', 'vbe_post'])
        self.assertEqual([(s['quirk'], s['source']) for s in doc['sources']],
                         [('dpms_on', 'config'), ('vbe_post', 'config')])
        rc, out, err = self.pmctl('status')
        self.assertIn('VideoQuirks\tdpms_on,vbe_post\n', out)

    def test_suspend_kernel_backend(self):
        self.start(args=('--no-logind',))
        self.assertEqual(self.get_property('Backend'), 'kernel')
        rc, out, err = self.pmctl_in('suspend')
        self.assertEqual((rc, out, err), (0, '', ''))
        self.assertEqual(self.read_file(self.power_state), 'mem')
        # a plain file: what the daemon wrote is all it holds now
        self.make_file('/sys/power/state', 'freeze mem disk\n')
        rc, out, err = self.pmctl_in('hibernate')
        self.assertEqual((rc, out, err), (0, '', ''))
        self.assertEqual(self.read_file(self.power_state), 'disk')
        # a kernel without the state: refused, nothing written
        self.make_file('/sys/power/state', 'freeze\n')
        rc, out, err = self.pmctl_in('suspend')
        self.assertEqual(rc, 1)
        self.assertTrue(err.startswith('pmctl: cannot suspend the system: not supported'), err)
        self.assertEqual(self.read_file(self.power_state), 'freeze')

    def test_suspend_logind(self):
        self.start_logind()
        self.start()
        self.assertEqual(self.get_property('Backend'), 'logind')
        rc, out, err = self.pmctl_in('suspend')
        self.assertEqual((rc, out, err), (0, '', ''))
        wait_until(lambda: self.logind.GetMethodCalls('Suspend'), 5, 'logind Suspend')
        self.assertEqual([c[1] for c in self.logind.GetMethodCalls('Suspend')], [[False]])
        # stdin on a terminal: polkit may ask
        master, slave = pty.openpty()
        try:
            rc, out, err = self.pmctl_in('hibernate', stdin=slave)
        finally:
            os.close(slave)
            os.close(master)
        self.assertEqual((rc, err), (0, ''))
        wait_until(lambda: self.logind.GetMethodCalls('Hibernate'), 5, 'logind Hibernate')
        self.assertEqual([c[1] for c in self.logind.GetMethodCalls('Hibernate')], [[True]])
        self.assertEqual(self.read_file(self.power_state), 'freeze mem disk')
        # not root, no polkit: refused
        nobody = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups']
        pmctl = self.staged_for_others(PMCTL)[PMCTL]
        r = subprocess.run(nobody + [pmctl, 'suspend'], env=self.pmctl_env(),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stderr, r'^pmctl: not authorized to suspend the system \(.*\)\n$')
        self.assertEqual(len(self.logind.GetMethodCalls('Suspend')), 1)


if __name__ == '__main__':
    main()
