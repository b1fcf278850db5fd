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
import dbusmock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ppharness import PRIVATE_BUS_CONFIG, STORAGE, TEST_CONFIG, main, wait_until  # noqa: E402
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


class TestListReply(FakeDaemonTestCase):
    """pmctl list reads ListDevices' reply in place (sd-bus): every type a
    value may have, device text with control characters, and the errors
    of the call, each printed as pmctl always printed them."""

    ODD_ROWS = (
        "ret = ["
        "{'path': '/sys/devices/a\\x1b]0;x\\x07\\r\\nFORGED\\u009b31m\\ufffd\\x7f', 'class': 'usb',"
        " 'control': 'auto', 'autosuspend_delay_ms': dbus.Int32(2000),"
        " 'runtime_status': 'suspended', 'held': True,"
        " 'consumers': dbus.Array(['x\\ty', 'z'], signature='s'), 'excluded': 'no\\nway'},"
        "{'path': '/sys/devices/odd', 'class': dbus.Int32(3),"
        " 'control': dbus.Array(['on', 'auto'], signature='s'), 'autosuspend_delay_ms': 'soon',"
        " 'runtime_status': dbus.Boolean(True), 'held': 'maybe', 'u': dbus.UInt32(7),"
        " 'x': dbus.Int64(-8), 'd': dbus.Double(1.5), 'o': dbus.ObjectPath('/a/b'),"
        " 'ass': dbus.Dictionary({'k': 'v'}, signature='ss'),"
        " 'st': dbus.Struct(('s', dbus.Int32(1)), signature='si'),"
        " 'ay': dbus.ByteArray(b'ab'), 'empty': dbus.Array([], signature='s')},"
        "{'path': '/sys/devices/dup', 'class': dbus.ObjectPath('/usb'), 'control': dbus.UInt32(5),"
        " 'autosuspend_delay_ms': dbus.UInt32(9), 'runtime_status': dbus.Int64(-1),"
        " 'held': dbus.Int32(1)},"
        "dbus.Dictionary({}, signature='sv'),"
        "{'path': '/sys/devices/usb2', 'class': 'usb', 'autosuspend_delay_ms': dbus.Int32(-1)},"
        "]")

    def list_devices(self, obj, out_sig, code):
        obj.AddMethod('org.powerpolicy1.Manager', 'ListDevices', '', out_sig, code,
                      dbus_interface=MOCK_IFACE)

    def test_every_value_type_and_escaping(self):
        obj = self.start_fake()
        self.list_devices(obj, 'aa{sv}', self.ODD_ROWS)
        rc, out, err = self.pmctl('list', timeout=10)
        self.assertEqual((rc, err), (0, ''))
        self.assertEqual(out.split('\n'), [
            '/sys/devices/a\\x1b]0;x\\x07\\r\\nFORGED\\xc2\\x9b31m\ufffd\\x7f\tusb\tauto\t2000\t'
            'suspended\tyes',
            # not a string: printed as pmctl show prints it; a delay that
            # is no int32 is none
            '/sys/devices/odd\t3\ton,auto\t-\tyes\tmaybe',
            '/sys/devices/dup\t/usb\t5\t-\t-1\t1',
            '-\t-\t-\t-\t-\t-',
            '/sys/devices/usb2\tusb\t-\t-\t-\t-',
            ''])
        # --class compares string classes only
        rc, out, err = self.pmctl('list', '--class', 'usb', timeout=10)
        self.assertEqual([line.split('\t')[0] for line in out.splitlines()],
                         ['/sys/devices/a\\x1b]0;x\\x07\\r\\nFORGED\\xc2\\x9b31m\ufffd\\x7f',
                          '/sys/devices/usb2'])
        rc, out, err = self.pmctl('list', '--class', '', timeout=10)
        self.assertEqual(len(out.splitlines()), 3, out)
        rc, out, err = self.pmctl('--json', 'list', timeout=10)
        self.assertEqual((rc, err), (0, ''))
        self.assertEqual(out.count('\n'), 1, out)
        self.assertTrue(out.startswith(
            '[{"path":"/sys/devices/a\\u001b]0;x\\u0007\\r\\nFORGED\u009b31m\ufffd\\u007f",'
            '"class":"usb","control":"auto","autosuspend_delay_ms":2000,'
            '"runtime_status":"suspended","held":true,"consumers":["x\\ty","z"],'
            '"excluded":"no\\nway"},'), out)
        data = json.loads(out)
        self.assertEqual(data[1], {
            'path': '/sys/devices/odd', 'class': 3, 'control': ['on', 'auto'],
            'autosuspend_delay_ms': 'soon', 'runtime_status': True, 'held': 'maybe', 'u': 7,
            'x': -8, 'd': 1.5, 'o': '/a/b', 'ass': {'k': 'v'}, 'st': ['s', 1], 'ay': [97, 98],
            'empty': []})
        self.assertEqual(data[2:], [
            {'path': '/sys/devices/dup', 'class': '/usb', 'control': 5,
             'autosuspend_delay_ms': 9, 'runtime_status': -1, 'held': 1},
            {}, {'path': '/sys/devices/usb2', 'class': 'usb', 'autosuspend_delay_ms': -1}])
        rc, out, err = self.pmctl('--json', 'list', '--class', 'usb', timeout=10)
        self.assertEqual([d['path'] for d in json.loads(out)][1:], ['/sys/devices/usb2'])
        # an empty list: no line; JSON's empty array
        self.list_devices(obj, 'aa{sv}', 'ret = []')
        self.assertEqual(self.pmctl('list', timeout=10), (0, '', ''))
        self.assertEqual(self.pmctl('--json', 'list', timeout=10), (0, '[]\n', ''))

    def test_errors_of_the_call(self):
        obj = self.start_fake()
        for name, message, said in (
                ('org.powerpolicy1.Error.Failed', 'boom\\n\\x1b[2Jagain',
                 'cannot list the devices: boom [2Jagain'),
                ('org.powerpolicy1.Error.NotAuthorized', 'no',
                 'not authorized to list the devices (no)'),
                ('org.freedesktop.DBus.Error.AccessDenied', 'denied',
                 'not authorized to list the devices (denied)'),
                ('org.freedesktop.DBus.Error.UnknownMethod', 'gone',
                 'the running powerpolicyd cannot list the devices (gone); is it older than pmctl'),
                ('org.example.Error.Odd', 'odd',
                 'cannot list the devices: odd (org.example.Error.Odd)')):
            with self.subTest(name=name):
                self.list_devices(obj, 'aa{sv}', "raise dbus.exceptions.DBusException("
                                  "'%s', name='%s')" % (message, name))
                for args in (['list'], ['--json', 'list']):
                    rc, out, err = self.pmctl(*args, timeout=10)
                    self.assertEqual((rc, out), (1, ''))
                    self.assertTrue(err.startswith('pmctl: ' + said), err)
                    self.assertEqual(err.count('\n'), 1, err)
        # a reply of another type: said, never read
        self.list_devices(obj, 's', "ret = 'x'")
        self.assertEqual(self.pmctl('list', timeout=10),
                         (1, '', 'pmctl: cannot list the devices: Method \u201cListDevices\u201d '
                          'returned type \u201c(s)\u201d, but expected \u201c(aa{sv})\u201d\n'))

    def test_bus_lost_during_the_call(self):
        # a bus of its own, which goes away while the fake daemon answers
        fd, conf = tempfile.mkstemp(prefix='pp-bus-', suffix='.conf')
        with os.fdopen(fd, 'w') as f:
            f.write(PRIVATE_BUS_CONFIG)
        bus_pid, address = dbusmock.DBusTestCase.start_dbus(conf=conf)
        os.unlink(conf)
        self.addCleanup(lambda: os.path.exists('/proc/%d' % bus_pid) and
                        dbusmock.DBusTestCase.stop_dbus(bus_pid))
        fake = subprocess.Popen([sys.executable, '-m', 'dbusmock', '--system', 'org.powerpolicy1',
                                 '/org/powerpolicy1', 'org.powerpolicy1.Manager'],
                                env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address),
                                stdout=subprocess.DEVNULL)
        self.addCleanup(lambda: (fake.kill(), fake.wait()))
        con = dbus.bus.BusConnection(address)
        self.addCleanup(con.close)
        wait_until(lambda: con.name_has_owner('org.powerpolicy1'), 10, 'the fake on its bus')
        with tempfile.TemporaryDirectory() as tmp:
            asked = os.path.join(tmp, 'asked')
            con.get_object('org.powerpolicy1', '/org/powerpolicy1').AddMethod(
                'org.powerpolicy1.Manager', 'ListDevices', '', 'aa{sv}',
                'open(%r, "w").close(); import time; time.sleep(30); ret = []' % asked,
                dbus_interface=MOCK_IFACE)
            p = subprocess.Popen([PMCTL, 'list'], env=self.pmctl_env(address),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 universal_newlines=True)
            wait_until(lambda: os.path.exists(asked), 10, 'the call to reach the fake')
            dbusmock.DBusTestCase.stop_dbus(bus_pid)
            out, err = p.communicate(timeout=20)
        self.assertEqual((p.returncode, out, err), (
            1, '', 'pmctl: lost the connection to the system bus (trying to list the devices)\n'))


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
