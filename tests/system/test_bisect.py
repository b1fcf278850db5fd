#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""pmctl bisect and the daemon's Revert (issue 19, part 3) against the real
powerpolicyd in a umockdev testbed.

The testbed has 40 more USB devices of class usb, each with power/control
"on"; the test policy sets usb to "auto", so the daemon changes 40
devices of that class. A scripted check reads the testbed's power/control
of one chosen device and fails while it is "auto"; it also records which
of the 40 are "on" in each round, so that the test knows what each round
really put back. Expected values come from the testbed's files and the
daemon's D-Bus answers, never from pmctl itself."""

import json
import math
import os
import pty
import select
import shlex
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gi.repository import GLib, Gio  # noqa: E402

from ppharness import (  # noqa: E402
    BUS_NAME, IFACE, OBJ_PATH, ROOTHUB, STORAGE, TEST_CONFIG, main, wait_until,
)
from test_pmctl import PMCTL, PmctlTestCase  # noqa: E402

N = 40
MAX_ROUNDS = math.ceil(math.log2(N)) + 1   # 7

# The check: reads the chosen devices' power/control in the testbed, logs
# which of the 40 are "on", and exits 0 (works) unless a chosen device is
# "auto". With "wait_round" it stops in that round (0-based count of its
# runs) until the file "go" appears, after writing its pid to "ready".
CHECK_SCRIPT = r'''
import json, os, sys, time
conf = json.load(open(sys.argv[1]))
on = [i for i, p in enumerate(conf['controls']) if open(p).read().strip() == 'on']
with open(conf['log'], 'a') as f:
    f.write(json.dumps(on) + '\n')
runs = sum(1 for _ in open(conf['log']))
if conf.get('wait_round') == runs - 1:
    with open(conf['ready'] + '.tmp', 'w') as f:
        f.write(str(os.getpid()))
    os.rename(conf['ready'] + '.tmp', conf['ready'])
    deadline = time.monotonic() + 60
    while not os.path.exists(conf['go']) and time.monotonic() < deadline:
        time.sleep(0.01)
mode = conf.get('mode', 'any')
broken = [open(conf['controls'][c]).read().strip() == 'auto' for c in conf['chosen']]
if mode == 'always-works':
    sys.exit(0)
if mode == 'never-works':
    sys.exit(1)
sys.exit(1 if any(broken) else 0)
'''


class BisectTestCase(PmctlTestCase):

    def setUp(self):
        super().setUp()
        self.devices = [self.laptop.add_usb(ROOTHUB, '1-%d' % (i + 10), None) for i in range(N)]
        self.tmp = tempfile.mkdtemp(prefix='pp-bisect-')
        self.addCleanup(lambda: subprocess.run(['rm', '-rf', self.tmp]))
        self.script = os.path.join(self.tmp, 'check.py')
        with open(self.script, 'w') as f:
            f.write(CHECK_SCRIPT)
        self.n_checks = 0

    def start(self):
        self.start_daemon()
        self.baseline = self.changes()
        changed = {row[0] for row in self.baseline}
        self.assertTrue(set(self.devices) <= changed, 'the policy changes the 40 devices')
        classes = {d['path']: d['class'] for d in self.call('ListDevices')[0]}
        self.assertEqual({classes[d] for d in self.devices}, {'usb'})
        self.assertEqual(sorted(d for d in changed if classes.get(d) == 'usb'), sorted(self.devices))

    def changes(self):
        return self.call('ListChanges')[0]

    def control(self, dev):
        return self.attr(dev, 'power/control')

    def check_command(self, chosen, mode='any', wait_round=None):
        """A --check CMD; a fresh log of which devices were on per run."""
        self.n_checks += 1
        conf = os.path.join(self.tmp, 'conf-%d.json' % self.n_checks)
        self.check_log = os.path.join(self.tmp, 'log-%d' % self.n_checks)
        self.ready = os.path.join(self.tmp, 'ready-%d' % self.n_checks)
        self.go = os.path.join(self.tmp, 'go-%d' % self.n_checks)
        with open(conf, 'w') as f:
            json.dump({'controls': [self.laptop.path(d + '/power/control') for d in self.devices],
                       'chosen': list(chosen), 'log': self.check_log, 'mode': mode,
                       'ready': self.ready, 'go': self.go, 'wait_round': wait_round}, f)
        open(self.check_log, 'w').close()
        return '/usr/bin/python3 %s %s' % (shlex.quote(self.script), shlex.quote(conf))

    def check_runs(self):
        with open(self.check_log) as f:
            return [json.loads(line) for line in f]

    def assert_policy_back(self):
        """No revert is left: ListChanges is what it was before the bisect
        and no device explains a value by a revert."""
        wait_until(lambda: self.changes() == self.baseline, 20, 'ListChanges back to the policy')
        for dev in self.devices:
            layers = {row[3] for row in self.call('Explain', (dev,), '(s)')[0]}
            self.assertNotIn('revert', layers, dev)
            self.assertEqual(self.control(dev), 'auto', dev)

    def assert_rounds_match_checks(self, doc, chosen):
        """Each round's answer is what the check saw, and the devices on
        during the check are exactly those the round put back: the revert
        of the round before was gone."""
        runs = self.check_runs()
        self.assertEqual(len(runs), len(doc['rounds']), (runs, doc['rounds']))
        self.assertEqual(doc['rounds'][0], {'round': 0, 'reverted': [], 'works': False})
        for i, (r, on) in enumerate(zip(doc['rounds'], runs)):
            self.assertEqual(r['round'], i)
            self.assertEqual(sorted(self.devices[j] for j in on), sorted(r['reverted']), r)
            self.assertEqual(r['works'], all(self.devices[c] in r['reverted'] for c in chosen), r)


class TestPmctlBisect(BisectTestCase):

    def bisect_json(self, *args, chosen, **kwargs):
        rc, out, err = self.pmctl('--json', 'bisect', '--class', 'usb', '--check',
                                  self.check_command(chosen, **kwargs), *args)
        return rc, (json.loads(out) if out else None), err

    def test_finds_each_device_within_the_bound(self):
        self.start()
        for chosen in (0, 17, 22, N - 1):
            rc, doc, err = self.bisect_json(chosen=[chosen])
            self.assertEqual(rc, 0, err)
            self.assertEqual(doc['result'], 'found')
            self.assertEqual(doc['devices'], N)
            self.assertEqual(doc['max_rounds'], MAX_ROUNDS)
            self.assertLessEqual(len(doc['rounds']) - 1, MAX_ROUNDS)
            self.assert_rounds_match_checks(doc, [chosen])
            dev = self.devices[chosen]
            device = doc['device']
            self.assertEqual((device['path'], device['class']), (dev, 'usb'))
            explain = {row[0]: row for row in self.call('Explain', (dev,), '(s)')[0]}
            self.assertEqual(device['changes'], [{
                'attribute': 'power/control', 'original': 'on', 'policy': 'auto',
                'layer': 'class', 'origin': explain['power/control'][4]}])
            self.assertEqual(device['commands'], ['pmctl set %s Control on' % dev])
            self.assertEqual(device['udev_rule'], 'ACTION=="add|change", DEVPATH=="%s", '
                             'ENV{POWERPOLICY_AUTOSUSPEND}="0"' % dev[len('/sys'):])
            # the last round put the device found back on its own, and that worked
            self.assertEqual(doc['rounds'][-1]['reverted'], [dev])
            self.assertTrue(doc['rounds'][-1]['works'])
            self.assertNotIn('applied', doc)
            self.assert_policy_back()
        self.assertEqual(self.call('ListOverrides')[0], [])

    def test_text_output(self):
        self.start()
        dev = self.devices[5]
        rc, out, err = self.pmctl('bisect', '--class', 'usb', '--check', self.check_command([5]))
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], 'Bisecting 40 devices of class usb whose attributes the policy '
                         'changes: round 0 and at most 7 more.')
        self.assertEqual(lines[1], 'Round 0: the full policy applied (40 devices changed). '
                         'The problem persists.')
        self.assertTrue(lines[2].startswith('Round 1 of at most 7: 20 of 40 devices back at their '
                                            'original values (1-10 to 1-29). '), lines[2])
        self.assertIn('Found: %s (class usb)' % dev, lines)
        self.assertIn('  pmctl set %s Control on' % dev, lines)
        self.assertIn('  ACTION=="add|change", DEVPATH=="%s", ENV{POWERPOLICY_AUTOSUSPEND}="0"'
                      % dev[len('/sys'):], lines)
        self.assertIn("('pmctl bisect --apply' sets the overrides.)", lines)
        # what the policy does to it, and the configuration line behind it
        row = [line for line in lines if line.startswith('  power/control: on, the policy sets auto')]
        self.assertEqual(len(row), 1, out)
        self.assertRegex(row[0], r"\(class: .*powerpolicy\.conf:\d+ \[Class usb\]\)$")
        self.assert_policy_back()

    def test_apply_writes_the_override(self):
        self.start()
        dev = self.devices[31]
        rc, doc, err = self.bisect_json('--apply', chosen=[31])
        self.assertEqual(rc, 0, err)
        self.assertEqual(doc['result'], 'found')
        self.assertEqual(doc['applied'], ['Control=on'])
        self.assertEqual(self.call('ListOverrides')[0], [(dev, 'Control', 'on')])
        # kept on by the override, the others back at the policy
        wait_until(lambda: self.control(dev) == 'on', 5, 'the device kept on')
        rows = {row[0]: row for row in self.call('Explain', (dev,), '(s)')[0]}
        self.assertEqual(rows['power/control'][1:4], ('on', 'on', 'override'))
        wait_until(lambda: all(self.control(d) == 'auto' for d in self.devices if d != dev), 5,
                   'the other devices back at the policy')
        # the check now works with the full policy
        rc, doc, err = self.bisect_json(chosen=[31])
        self.assertEqual(rc, 1)
        self.assertEqual(doc['result'], 'not-reproduced')

    def test_kill_9_mid_bisect_leaves_no_revert(self):
        self.start()
        cmd = self.check_command([3], wait_round=2)
        p = subprocess.Popen([PMCTL, '--json', 'bisect', '--class', 'usb', '--check', cmd],
                             env=self.pmctl_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.addCleanup(lambda: p.poll() is None and (p.kill(), p.wait()))
        self.addCleanup(lambda: open(self.go, 'w').close())
        wait_until(lambda: os.path.exists(self.ready) or p.poll() is not None, 20, 'round 2 running')
        self.assertIsNone(p.poll(), p.stderr.read() if p.poll() is not None else '')
        # round 2 has devices put back, by a revert of pmctl's
        on = self.check_runs()[-1]
        self.assertTrue(on)
        dev = self.devices[on[0]]
        rows = {row[0]: row for row in self.call('Explain', (dev,), '(s)')[0]}
        self.assertEqual(rows['power/control'][1:4], ('on', 'on', 'revert'))
        self.assertEqual(rows['power/control'][4],
                         'reverted by pmctl bisect (round 2 of at most 7), pid %d' % p.pid)
        self.assertNotEqual(self.changes(), self.baseline)

        p.kill()
        p.wait()
        p.stdout.close()
        p.stderr.close()
        self.assert_policy_back()
        # the check left behind holds nothing: let it end
        with open(self.ready) as f:
            check_pid = int(f.read())
        open(self.go, 'w').close()
        wait_until(lambda: not os.path.exists('/proc/%d' % check_pid) or
                   open('/proc/%d/stat' % check_pid).read().split()[2] == 'Z', 10, 'the check ended')

    def test_sigterm_mid_bisect_stops_the_check(self):
        self.start()
        cmd = self.check_command([3], wait_round=1)
        p = subprocess.Popen([PMCTL, '--json', 'bisect', '--class', 'usb', '--check', cmd],
                             env=self.pmctl_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True)
        self.addCleanup(lambda: p.poll() is None and (p.kill(), p.wait()))
        self.addCleanup(lambda: open(self.go, 'w').close())
        wait_until(lambda: os.path.exists(self.ready) or p.poll() is not None, 20, 'round 1 running')
        with open(self.ready) as f:
            check_pid = int(f.read())
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=20)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(err, 'pmctl: interrupted by SIGTERM after 1 round: nothing is reverted '
                         'any more, the policy applies again\n')
        doc = json.loads(out)
        self.assertEqual(doc['result'], 'interrupted')
        self.assertEqual(len(doc['rounds']), 1)
        # the check was told to stop
        wait_until(lambda: not os.path.exists('/proc/%d' % check_pid) or
                   open('/proc/%d/stat' % check_pid).read().split()[2] == 'Z', 10, 'the check ended')
        self.assertFalse(os.path.exists(self.go))
        self.assert_policy_back()

    def test_interactive_on_a_terminal(self):
        self.start()
        chosen = 12
        master, slave = pty.openpty()
        p = subprocess.Popen([PMCTL, '--json', 'bisect', '--class', 'usb'], env=self.pmctl_env(),
                             stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.close(slave)
        self.addCleanup(lambda: p.poll() is None and (p.kill(), p.wait()))
        self.addCleanup(os.close, master)
        prompt = b'Does the problem persist? [y/n] '
        err = b''
        answers = 0
        while True:
            r, _, _ = select.select([p.stderr], [], [], 20)
            self.assertTrue(r, 'no prompt: %r' % err)
            chunk = os.read(p.stderr.fileno(), 4096)
            if not chunk:
                break
            err += chunk
            if err.endswith(prompt):
                if answers == 1:
                    # no answer: asked again
                    os.write(master, b'maybe\n')
                else:
                    broken = self.control(self.devices[chosen]) == 'auto'
                    os.write(master, b'y\n' if broken else b'N\n')
                answers += 1
        out = p.stdout.read()
        p.stdout.close()
        p.stderr.close()
        self.assertEqual(p.wait(timeout=10), 0, err)
        doc = json.loads(out)
        self.assertEqual(doc['result'], 'found')
        self.assertEqual(doc['device']['path'], self.devices[chosen])
        self.assertLessEqual(len(doc['rounds']) - 1, MAX_ROUNDS)
        text = err.decode()
        self.assertEqual(text.count(prompt.decode()), len(doc['rounds']) + 1)
        self.assertIn('Please answer y (the problem is still there) or n (it works now).\n', text)
        self.assertIn('Round 0: the full policy applied (40 devices changed).\n', text)
        self.assert_policy_back()

    def test_end_of_input_is_no_answer(self):
        self.start()
        master, slave = pty.openpty()
        p = subprocess.Popen([PMCTL, 'bisect', '--class', 'usb'], env=self.pmctl_env(),
                             stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True)
        os.close(slave)
        self.addCleanup(lambda: p.poll() is None and (p.kill(), p.wait()))
        os.write(master, b'y\n\x04')   # round 0 answered, then end of input
        out, err = p.communicate(timeout=20)
        os.close(master)
        self.assertEqual(p.returncode, 1)
        self.assertTrue(err.endswith('pmctl: no answer (end of input)\n'), err)
        self.assert_policy_back()

    def test_problem_not_reproduced(self):
        self.start()
        rc, doc, err = self.bisect_json(chosen=[0], mode='always-works')
        self.assertEqual(rc, 1)
        self.assertEqual(doc['result'], 'not-reproduced')
        self.assertEqual(doc['rounds'], [{'round': 0, 'reverted': [], 'works': True}])
        self.assertEqual(err, 'pmctl: the problem does not show with the full policy applied '
                         '(round 0 worked): nothing to bisect\n')
        self.assert_policy_back()

    def test_no_single_device(self):
        self.start()
        # nothing helps: not even all 40 put back together
        rc, doc, err = self.bisect_json(chosen=[0], mode='never-works')
        self.assertEqual(rc, 1)
        self.assertEqual(doc['result'], 'no-single-device')
        self.assertNotIn('together', doc)
        self.assertEqual(len(doc['rounds']) - 1, MAX_ROUNDS + 1)
        self.assertEqual(sorted(doc['rounds'][-1]['reverted']), sorted(self.devices))
        self.assertTrue(err.startswith('pmctl: no single device explains it, and putting all 40 '
                                       'devices back did not help either'), err)
        self.assert_policy_back()

        # two devices each break it: only putting both back helps
        rc, doc, err = self.bisect_json(chosen=[4, 9])
        self.assertEqual(rc, 1)
        self.assertEqual(doc['result'], 'no-single-device')
        self.assert_rounds_match_checks(doc, [4, 9])
        self.assertIn(self.devices[4], doc['together'])
        self.assertIn(self.devices[9], doc['together'])
        n = len(doc['together'])
        self.assertEqual(err, 'pmctl: no single device explains it: it works with %d devices put '
                         'back together (%s to %s)\n' % (n, os.path.basename(doc['together'][0]),
                                                          os.path.basename(doc['together'][-1])))
        self.assert_policy_back()

    def test_every_class_by_default(self):
        self.start()
        classes = {d['path']: d['class'] for d in self.call('ListDevices')[0]}
        candidates = sorted({row[0] for row in self.baseline if row[0] in classes})
        self.assertGreater(len(candidates), N)
        rc, out, err = self.pmctl('--json', 'bisect', '--check', self.check_command([7]))
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc['devices'], len(candidates))
        self.assertIsNone(doc['class'])
        self.assertEqual(doc['device']['path'], self.devices[7])
        self.assertLessEqual(len(doc['rounds']) - 1, math.ceil(math.log2(len(candidates))) + 1)
        self.assert_policy_back()

    def test_errors(self):
        self.start()
        rc, out, err = self.pmctl('bisect', '--check', '')
        self.assertEqual((rc, out), (2, ''))
        self.assertTrue(err.startswith('pmctl: --check needs a command\n'), err)
        # no terminal to ask on (stdin not one, no controlling terminal)
        r = subprocess.run([PMCTL, 'bisect'], env=self.pmctl_env(), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=30, start_new_session=True)
        self.assertEqual((r.returncode, r.stdout), (2, ''))
        self.assertTrue(r.stderr.startswith('pmctl: no terminal to ask whether the problem persists: '
                                            'give --check CMD\n'), r.stderr)
        rc, out, err = self.pmctl('bisect', 'extra', '--check', 'true')
        self.assertEqual(rc, 2)
        rc, out, err = self.pmctl('bisect', '--class', 'no-such-class', '--check', 'true')
        self.assertEqual((rc, out), (1, ''))
        self.assertEqual(err, 'pmctl: the policy changes no device of class no-such-class '
                         '(it changes devices of other classes): nothing to bisect\n')
        # a check that cannot run stops the bisect at once
        rc, out, err = self.pmctl('bisect', '--class', 'usb', '--check', '/nonexistent/check')
        self.assertEqual(rc, 1)
        self.assertIn("pmctl: the check '/nonexistent/check' could not run (exit status 127)\n", err)
        self.assert_policy_back()

    def test_not_running(self):
        rc, out, err = self.pmctl('bisect', '--check', 'true')
        self.assertEqual((rc, out), (1, ''))
        self.assertEqual(err, 'pmctl: powerpolicyd is not running (org.powerpolicy1 is not on the '
                         'system bus)\n')


class TestRevert(BisectTestCase):
    """The daemon's side: Revert over D-Bus."""

    def revert(self, devices, who='tester', why='bisecting'):
        r, fds = self.bus.call_with_unix_fd_list_sync(
            BUS_NAME, OBJ_PATH, IFACE, 'Revert', GLib.Variant('(asss)', (devices, who, why)),
            GLib.VariantType('(h)'), Gio.DBusCallFlags.NONE, 5000, None, None)
        return fds.steal_fds()[r.unpack()[0]]

    def assertRevertError(self, name, devices, who='tester', why='x'):
        with self.assertRaises(GLib.GError) as cm:
            self.revert(devices, who, why)
        self.assertEqual(Gio.DBusError.get_remote_error(cm.exception), name, cm.exception.message)
        return cm.exception.message

    def test_layer_until_the_fd_closes(self):
        self.start()
        a, b = self.devices[0], self.devices[1]
        # the storage device: its delay is the policy's too (original 2000, policy 5000)
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '5000')
        fd = self.revert([a, '1-11', a, STORAGE])
        # applied when the call returns
        self.assertEqual((self.control(a), self.control(b)), ('on', 'on'))
        self.assertEqual(self.attr(STORAGE, 'power/control'), 'on')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '2000')
        self.assertEqual(self.control(self.devices[2]), 'auto')
        origin = 'reverted by tester (bisecting), pid %d' % os.getpid()
        rows = {row[0]: row for row in self.call('Explain', (STORAGE,), '(s)')[0]}
        self.assertEqual(rows['power/control'], ('power/control', 'on', 'on', 'revert', origin))
        self.assertEqual(rows['power/autosuspend_delay_ms'],
                         ('power/autosuspend_delay_ms', '2000', '2000', 'revert', origin))
        changed = {row[0] for row in self.changes()}
        self.assertFalse({a, b, STORAGE} & changed)

        # a policy pass (AC unplugged) keeps them reverted
        self.laptop.set_ac(False)
        wait_until(lambda: self.get_property('OnBattery'), 5, 'on battery')
        self.wait_attr(self.devices[5], 'power/autosuspend_delay_ms', '1000')
        self.assertEqual((self.control(a), self.attr(a, 'power/autosuspend_delay_ms')), ('on', '2000'))
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '2000')

        os.close(fd)
        self.wait_attr(a, 'power/control', 'auto')
        self.wait_attr(a, 'power/autosuspend_delay_ms', '1000')
        self.wait_attr(STORAGE, 'power/autosuspend_delay_ms', '2000')
        self.wait_attr(STORAGE, 'power/control', 'auto')
        rows = {row[0]: row for row in self.call('Explain', (STORAGE,), '(s)')[0]}
        self.assertEqual(rows['power/control'][3], 'class')

    def test_reverts_nest_power_down_above(self):
        self.start()
        a = self.devices[0]
        fd1 = self.revert([a])
        fd2 = self.revert([a], who='second')
        os.close(fd1)
        # still reverted by the second; a new call reaps the first at once
        fd3 = self.revert([self.devices[1]])
        rows = {row[0]: row for row in self.call('Explain', (a,), '(s)')[0]}
        self.assertEqual(rows['power/control'][3:],
                         ('revert', 'reverted by second (bisecting), pid %d' % os.getpid()))
        self.assertEqual(self.control(a), 'on')
        # PowerDown is above the revert
        self.call('PowerDown', (a, False, 'auto'), '(sbs)')
        self.assertEqual(self.control(a), 'auto')
        self.call('PowerUp', (a, False), '(sb)')
        self.assertEqual(self.control(a), 'on')
        os.close(fd2)
        os.close(fd3)
        self.wait_attr(a, 'power/control', 'auto')
        self.wait_attr(self.devices[1], 'power/control', 'auto')

    def test_closed_fd_released_before_the_next(self):
        self.start()
        # what a bisect does: close one, at once ask for the next; the
        # first must be gone when the second call returns, without waiting
        for i in range(10):
            first = self.devices[:20] if i % 2 == 0 else self.devices[20:]
            second = self.devices[20:] if i % 2 == 0 else self.devices[:20]
            fd = self.revert(first)
            self.assertEqual({self.control(d) for d in first}, {'on'})
            os.close(fd)
            fd = self.revert(second)
            self.assertEqual({self.control(d) for d in first}, {'auto'}, i)
            self.assertEqual({self.control(d) for d in second}, {'on'}, i)
            os.close(fd)
        self.assert_policy_back()

    def test_errors_change_nothing(self):
        self.start()
        self.assertRevertError('org.powerpolicy1.Error.InvalidArgument', [])
        msg = self.assertRevertError('org.powerpolicy1.Error.NoSuchDevice', [self.devices[0], '9-9'])
        self.assertIn("no device named '9-9'", msg)
        self.assertRevertError('org.powerpolicy1.Error.InvalidArgument', [self.devices[0]] * 8193)
        self.assertRevertError('org.powerpolicy1.Error.InvalidArgument', [self.devices[0]], who='w' * 257)
        self.assertRevertError('org.powerpolicy1.Error.InvalidArgument', ['1-1/../1-1.2'])
        # larger than the 1 MiB the call takes
        msg = self.assertRevertError('org.powerpolicy1.Error.InvalidArgument',
                                     ['/sys/devices/' + 'x' * 4000] * 300)
        self.assertIn('larger than 1048576 bytes', msg)
        # errors quote a bounded part of what the caller sent (one device
        # argument at most, as test_hostile bounds every method's errors)
        for devices in (['x' * 600000], ['1-1.2\n\x1b[31m' + 'y' * 3000], ['/sys/../etc/passwd']):
            with self.assertRaises(GLib.GError) as cm:
                self.revert(devices)
            self.assertIn(Gio.DBusError.get_remote_error(cm.exception),
                          ('org.powerpolicy1.Error.InvalidArgument',
                           'org.powerpolicy1.Error.NoSuchDevice'))
            self.assertLess(len(cm.exception.message), 16 * 1024)
        self.assertIsNone(self.daemons[0].proc.poll())
        self.assert_policy_back()
        self.assertEqual(self.control(self.devices[0]), 'auto')

    def test_caller_text_escaped_in_the_log(self):
        d = self.start_daemon()
        forged = 'FORGED: powerpolicyd: everything is fine'
        who = 'x\n' + forged
        why = 'y\r\n' + forged + '\x1b[2J\x07'
        fd = self.revert([self.devices[0]], who, why)
        # Explain gives the caller its text back as it was
        rows = {row[0]: row for row in self.call('Explain', (self.devices[0],), '(s)')[0]}
        self.assertEqual(rows['power/control'][4], 'reverted by %s (%s), pid %d' % (who, why, os.getpid()))
        os.close(fd)
        wait_until(lambda: 'original values released by' in d.read_log(), 5, 'release logged')
        log = d.read_log()
        self.assertIn('x\\nFORGED', log)
        self.assertIn('y\\r\\nFORGED', log)
        for line in log.splitlines():
            self.assertFalse(line.startswith('FORGED'), line)
        for c in ('\r', '\x1b', '\x07'):
            self.assertNotIn(c, log)

    def test_not_authorized_without_polkit(self):
        self.start()
        r = self.call_as('nobody', 'Revert', '(asss)', ([self.devices[0]], 'me', 'x'))
        self.assertFalse(r['ok'])
        self.assertEqual(r['error'], 'org.powerpolicy1.Error.NotAuthorized')
        self.assertEqual(self.control(self.devices[0]), 'auto')
        # polkit's answer counts: denied, then allowed
        polkit = self.start_polkit()
        r = self.call_as('nobody', 'Revert', '(asss)', ([self.devices[0]], 'me', 'x'))
        self.assertEqual(r['error'], 'org.powerpolicy1.Error.NotAuthorized')
        polkit.SetAllowed(['org.powerpolicy1.manage'])
        r = self.call_as('nobody', 'Revert', '(asss)', ([self.devices[0]], 'me', 'x'))
        # allowed; the caller (ppcall) exits at once, and its revert with it
        self.assertTrue(r['ok'], r)
        self.assert_policy_back()

    def test_counted_as_a_token(self):
        self.start_daemon(config_text=TEST_CONFIG.replace(
            '[Daemon]\n', '[Daemon]\nMaxInhibitorsPerUser=2\n'))
        self.baseline = self.changes()
        fds = [self.revert([self.devices[0]]), self.revert([self.devices[1]])]
        msg = self.assertRevertError('org.powerpolicy1.Error.Refused', [self.devices[2]])
        self.assertIn('MaxInhibitorsPerUser=2', msg)
        self.assertEqual(self.control(self.devices[2]), 'auto')
        for fd in fds:
            os.close(fd)
        self.assert_policy_back()

    def test_dry_run_writes_nothing(self):
        d = self.start_daemon()
        self.baseline = self.changes()
        # switched to dry-run by Reload: the policy's values stay, and the
        # originals the journal has are what a revert would write
        with open(d.config_path, 'w') as f:
            f.write(TEST_CONFIG.replace('[Daemon]\n', '[Daemon]\nDryRun=true\n'))
        self.call('Reload')
        self.assertTrue(self.get_property('DryRun'))
        a = self.devices[3]
        fd = self.revert([a])
        self.assertEqual(self.control(a), 'auto')
        rows = {row[0]: row for row in self.call('Explain', (a,), '(s)')[0]}
        self.assertEqual(rows['power/control'][1:4], ('auto', 'on', 'revert'))
        wait_until(lambda: "dry-run: would write 'on' to %s/power/control (now 'auto')" % a
                   in d.read_log(), 5, 'the would-be write logged')
        os.close(fd)
        wait_until(lambda: self.call('Explain', (a,), '(s)')[0][0][3] != 'revert', 5,
                   'the revert released')
        self.assertEqual(self.control(a), 'auto')


if __name__ == '__main__':
    main()
