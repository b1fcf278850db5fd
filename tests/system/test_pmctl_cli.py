#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""pmctl's command line as a new user meets it (issue 10): negative numbers
are values, --json everywhere, tables fitted to the terminal, suggestions
for typos, no bus versus no daemon, no fallback for an older daemon.

Expected values come from the daemon's D-Bus answers and the testbed's
attribute files, or from a fake daemon (python-dbusmock) whose answers the
test chooses."""

import json
import os
import re
import subprocess
import sys
import tempfile

import dbus

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ppharness import STORAGE, TEST_CONFIG, main  # noqa: E402
from test_pmctl import NOT_RUNNING, PMCTL, PmctlTestCase  # noqa: E402

MOCK_IFACE = 'org.freedesktop.DBus.Mock'
SGR = re.compile(r'\033\[[0-9;]*m')


class TestNegativeNumbers(PmctlTestCase):

    def test_set_minus_one_and_show_it(self):
        self.start_daemon()
        rc, out, err = self.pmctl('set', '1-1.2', 'AutosuspendDelayMs', '-1')
        self.assertEqual((rc, out, err), (0, '', ''))
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '-1')
        info = self.call('GetDevice', ('1-1.2',), '(s)')[0]
        self.assertEqual(info['autosuspend_delay_ms'], -1)
        # show prints the value, not the sign for "nothing"
        rc, out, err = self.pmctl('show', '1-1.2')
        fields = dict(line.split('\t', 1) for line in out.splitlines())
        self.assertEqual(fields['autosuspend_delay_ms'], '-1')
        rc, out, err = self.pmctl('show', '--json', '1-1.2')
        self.assertEqual(json.loads(out)['autosuspend_delay_ms'], -1)
        # options still work around a negative number
        rc, out, err = self.pmctl('--json', 'set', '1-1.2', 'AutosuspendDelayMs', '-1', '--no-pager')
        self.assertEqual((rc, out, err), (0, '', ''))
        # a negative number the daemon refuses is its answer, not a usage error
        rc, out, err = self.pmctl('set', '1-1.2', 'AutosuspendDelayMs', '-5')
        self.assertEqual(rc, 1, err)
        self.assertTrue(err.startswith('pmctl: invalid argument: '), err)
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '-1')
        # an option that is no option is still a usage error
        rc, out, err = self.pmctl('set', '1-1.2', 'AutosuspendDelayMs', '-x')
        self.assertEqual(rc, 2, err)
        self.assertIn("unknown option '-x'", err)


class FakeDaemonTestCase(PmctlTestCase):
    """A fake org.powerpolicy1 on the private bus (python-dbusmock)."""

    def start_fake(self):
        proc = self.spawn_server('org.powerpolicy1', '/org/powerpolicy1',
                                 'org.powerpolicy1.Manager', system_bus=True,
                                 stdout=subprocess.DEVNULL)
        self.addCleanup(lambda: (proc.terminate(), proc.wait()))
        return self.dbus_con.get_object('org.powerpolicy1', '/org/powerpolicy1')


class TestShowValues(FakeDaemonTestCase):

    def test_minus_one_and_empty(self):
        obj = self.start_fake()
        obj.AddMethod('org.powerpolicy1.Manager', 'GetDevice', 's', 'a{sv}',
                      "ret = {'path': '/sys/devices/x', 'control': '', "
                      "'autosuspend_delay_ms': dbus.Int32(-1), "
                      "'suppliers': dbus.Array([], signature='s')}",
                      dbus_interface=MOCK_IFACE)
        rc, out, err = self.pmctl('show', 'x', timeout=10)
        self.assertEqual((rc, err), (0, ''))
        fields = dict(line.split('\t', 1) for line in out.splitlines())
        self.assertEqual(fields, {'path': '/sys/devices/x', 'control': '-',
                                  'autosuspend_delay_ms': '-1', 'suppliers': '-'})


class TestQuirksNoFallback(FakeDaemonTestCase):

    def test_daemon_without_get_video_quirks(self):
        obj = self.start_fake()
        obj.AddProperty('org.powerpolicy1.Manager', 'VideoQuirks',
                        dbus.Array(['dpms_on'], signature='s'), dbus_interface=MOCK_IFACE)
        # client and daemon ship together: no list without the reasons
        rc, out, err = self.pmctl('quirks', timeout=10)
        self.assertEqual((rc, out), (1, ''))
        self.assertTrue(err.startswith('pmctl: the running powerpolicyd cannot read the video quirks'),
                        err)
        self.assertEqual(err.count('\n'), 1, err)


class TestJson(PmctlTestCase):

    def test_every_printing_command(self):
        self.start_daemon()
        for args in (['status'], ['list'], ['tree'], ['tree', '1-1'], ['show', '1-1'], ['explain', '1-1'],
                     ['inhibitors'], ['quirks'], ['reload'], ['power-up', '1-1.2']):
            rc, out, err = self.pmctl('--json', *args)
            self.assertEqual((rc, err), (0, ''), args)
            self.assertEqual(out.count('\n'), 1, (args, out))
            json.loads(out)
        rc, out, err = self.pmctl('reload', '--json')
        self.assertEqual(json.loads(out), {'problems': []})

    def test_reload_problems(self):
        d = self.start_daemon()
        with open(d.config_path, 'a') as f:
            f.write('[Class usb-extra]\nControl=sometimes\nthis is not a key\n[Bogus]\n')
        rc, out, err = self.pmctl('reload', '--json')
        self.assertEqual(rc, 1)
        problems = json.loads(out)['problems']
        self.assertEqual(len(problems), 3, problems)
        n = TEST_CONFIG.count('\n')
        for i, p in enumerate(problems):
            self.assertTrue(p.startswith('%s:%d: ' % (d.config_path, n + 2 + i)), p)
        lines = err.splitlines()
        self.assertEqual(lines[0], 'pmctl: the configuration was reloaded with 3 problems '
                         '(the valid settings are applied)')
        self.assertIn('powerpolicyd --check-config', lines[1])
        self.assertEqual(len(lines), 2, err)


class TestTerminalWidth(PmctlTestCase):

    def rows(self, text):
        return [line.split() for line in text.splitlines()]

    def test_list_fits_columns(self):
        self.start_daemon()
        rc, wide = self.pmctl_tty('list', env={'COLUMNS': '500'})
        self.assertEqual(rc, 0)
        self.assertNotIn('…', wide)
        widest = max(len(line) for line in wide.splitlines())
        self.assertGreater(widest, 80, 'the fixture needs a table wider than 80 columns')

        rc, narrow = self.pmctl_tty('list', env={'COLUMNS': '80'})
        self.assertEqual(rc, 0)
        lines = narrow.splitlines()
        self.assertEqual(len(lines), len(wide.splitlines()))
        self.assertTrue(all(len(line) <= 80 for line in lines), narrow)
        self.assertIn('…', narrow)
        # the widest column (PATH) gave way, every other column is whole
        self.assertEqual([r[1:] for r in self.rows(narrow)], [r[1:] for r in self.rows(wide)])
        for short, full in zip(self.rows(narrow)[1:], self.rows(wide)[1:]):
            head, _, tail = short[0].partition('…')
            self.assertTrue(full[0].startswith(head) and full[0].endswith(tail), (short, full))

        # --full: nothing cut
        rc, full = self.pmctl_tty('list', '--full', env={'COLUMNS': '80'})
        self.assertEqual(full, wide)
        # piped: the same tab-separated lines whatever COLUMNS says
        plain = self.pmctl('list')[1]
        r = subprocess.run([PMCTL, 'list'], env=dict(self.pmctl_env(), COLUMNS='40'),
                           stdout=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(r.stdout, plain)
        self.assertNotIn('…', plain)

    def test_tree_colours_fit(self):
        self.start_daemon()
        rc, out = self.pmctl_tty('tree', env={'COLUMNS': '70', 'TERM': 'xterm'})
        self.assertEqual(rc, 0)
        for line in out.splitlines():
            self.assertLessEqual(len(SGR.sub('', line)), 70, line)
        self.assertIn('…', out)
        self.assertNotIn('\t', out)


class TestCommandNames(PmctlTestCase):

    def test_unknown_command_suggests_nearest(self):
        for typo, meant in (('stauts', 'status'), ('lsit', 'list'), ('inhibitor', 'inhibitors'),
                            ('power-dwon', 'power-down'), ('relaod', 'reload')):
            rc, out, err = self.pmctl(typo)
            self.assertEqual((rc, out), (2, ''), typo)
            self.assertEqual(err, "pmctl: unknown command '%s', did you mean '%s'?\n"
                             "Try 'pmctl --help'.\n" % (typo, meant))
        rc, out, err = self.pmctl('help', 'stauts')
        self.assertEqual(rc, 2)
        self.assertIn("did you mean 'status'?", err)
        for word in ('frobnicate', 'x', 'ls'):
            rc, out, err = self.pmctl(word)
            self.assertEqual(rc, 2, word)
            self.assertEqual(err, "pmctl: unknown command '%s'\nTry 'pmctl --help'.\n" % word)


    def test_argument_not_utf8(self):
        # D-Bus strings are UTF-8: a clean usage error, before any call
        for args in (['show', b'1-\xff'], ['set', '1-1', 'Control', b'o\xffn'],
                     ['list', '--class', b'\xff']):
            rc, out, err = self.pmctl(*args)
            self.assertEqual((rc, out), (2, ''), args)
            self.assertRegex(err, r"^pmctl: argument \d of '\w+' is not valid UTF-8\n")


class TestBusOrDaemon(PmctlTestCase):

    def test_no_bus_is_not_no_daemon(self):
        # the bus is up, the name is not on it: not running
        rc, out, err = self.pmctl('list')
        self.assertEqual((rc, out, err), (1, '', NOT_RUNNING))
        # an address where no bus listens: the bus is named as the cause
        with tempfile.TemporaryDirectory() as tmp:
            not_a_socket = os.path.join(tmp, 'bus')
            open(not_a_socket, 'w').close()
            for args in (['list'], ['monitor'], ['set', '1-1', 'Control', 'on']):
                rc, out, err = self.pmctl(*args, bus='unix:path=' + not_a_socket)
                self.assertEqual((rc, out), (1, ''), args)
                self.assertTrue(err.startswith('pmctl: cannot connect to the system bus: '), err)
                self.assertEqual(err.count('\n'), 1, err)


if __name__ == '__main__':
    main()
