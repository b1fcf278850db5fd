#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System tests of issue 12 (all but Explain): what the daemon changed
(ListChanges), the overrides (ListOverrides), other power tools installed
and other programs changing what the daemon wrote (Conflicts, never
fight), the structured journal events (GLib's journald writer to a
stand-in journald, ppjournal.py) and caller text escaped in the log."""

import json
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gi.repository import GLib, Gio  # noqa: E402

from ppharness import (  # noqa: E402
    BUS_NAME, HDA, HUB, IFACE, MOUSE, OBJ_PATH, POWER_SAVE, SCSI_HOST, STORAGE, XHCI,
    PowerPolicyTestCase, main, wait_until,
)
from test_pmctl import PmctlTestCase  # noqa: E402
from test_sleep import SLEEP_CONFIG, SleepTestCase  # noqa: E402

POWER_SAVE_NAME = 'power_save'

MSG_POLICY_APPLIED = 'ba005311daf1443f94941e4734a9e236'
MSG_WRITE_FAILED = '997f4a4bb4194c6cacda2b3246e1ed26'
MSG_FOREIGN_CHANGE = '98f4495805b8407391b6d2d2ab0470f9'
MSG_FOREIGN_GIVE_UP = '0df4d9c569ac4de1b533afda9607c70f'
MSG_CONFLICT = '97f883d66b9848d8b09cf46e0eed065d'
MSG_OVERRIDE_SET = 'b2352fd3f8d74d0985962be1423f6079'
MSG_OVERRIDE_CLEARED = '1d414b0dc75643abb5be14c1ff730117'
MSG_HOLD_TAKEN = '3ac38327f50c4070a7eb435d6d539652'
MSG_HOLD_RELEASED = 'ea18fa59500a459a93d8a3c2be3980a5'
MSG_INHIBITOR_TAKEN = '64a5b49d06124bc6b07a9f27b498a164'
MSG_INHIBITOR_RELEASED = 'e544dca42ee542ad9d5c750c6cc1142b'


class ConflictsTestCase(PowerPolicyTestCase):

    def setUp(self):
        super().setUp()
        self.journal = None

    def start(self, **kwargs):
        """A daemon that logs to a stand-in journald (ppjournal.py)."""
        d = self.new_daemon(**kwargs)
        self.journal = d.attach_journal()
        d.start()
        self.wait_for_name()
        return d

    def events(self, message_id, **fields):
        return [r for r in self.journal.events()
                if r.get('MESSAGE_ID') == message_id and
                all(r.get(k) == v for k, v in fields.items())]

    def conflicts(self):
        return self.get_property('Conflicts')

    def changes(self):
        return self.call('ListChanges')[0]

    def hold(self, device, who, why):
        r, fds = self.bus.call_with_unix_fd_list_sync(
            BUS_NAME, OBJ_PATH, IFACE, 'Hold', GLib.Variant('(sss)', (device, who, why)),
            GLib.VariantType('(h)'), Gio.DBusCallFlags.NONE, 5000, None, None)
        return fds.steal_fds()[r.unpack()[0]]

    def inhibit(self, what, who, why):
        r, fds = self.bus.call_with_unix_fd_list_sync(
            BUS_NAME, OBJ_PATH, IFACE, 'Inhibit', GLib.Variant('(sss)', (what, who, why)),
            GLib.VariantType('(h)'), Gio.DBusCallFlags.NONE, 5000, None, None)
        return fds.steal_fds()[r.unpack()[0]]


class TestListChanges(ConflictsTestCase):

    def test_changes_and_restore(self):
        before = {
            (HDA, 'power/control'): self.attr(HDA, 'power/control'),
            (STORAGE, 'power/control'): self.attr(STORAGE, 'power/control'),
            (STORAGE, 'power/autosuspend_delay_ms'): self.attr(STORAGE, 'power/autosuspend_delay_ms'),
            (SCSI_HOST, 'link_power_management_policy'):
                self.attr(SCSI_HOST, 'link_power_management_policy'),
            (POWER_SAVE, POWER_SAVE_NAME): self.laptop.read(POWER_SAVE),
        }
        d = self.start()
        rows = self.changes()
        self.assertEqual(rows, sorted(rows))
        by_key = {(p, a): (o, c) for p, a, o, c in rows}
        self.assertEqual(by_key[(HDA, 'power/control')], ('on', 'auto'))
        self.assertEqual(by_key[(STORAGE, 'power/control')], ('on', 'auto'))
        self.assertEqual(by_key[(STORAGE, 'power/autosuspend_delay_ms')], ('2000', '5000'))
        self.assertEqual(by_key[(SCSI_HOST, 'link_power_management_policy')],
                         ('max_performance', 'med_power_with_dipm'))
        self.assertEqual(by_key[(POWER_SAVE, POWER_SAVE_NAME)], ('0', '10'))
        # every row: the value before the daemon, and the value now
        for (path, attribute), (original, current) in by_key.items():
            with self.subTest(path=path, attribute=attribute):
                if (path, attribute) in before:
                    self.assertEqual(original, before[(path, attribute)])
                if path == POWER_SAVE:
                    self.assertEqual(current, self.laptop.read(POWER_SAVE))
                else:
                    self.assertEqual(current, self.attr(path, attribute))
                self.assertNotEqual(original, current)
        # the mouse stays on (usb-hid Control=on): unchanged, not listed
        self.assertNotIn((MOUSE, 'power/control'), by_key)
        # open to everyone
        r = self.call_as('nobody', 'ListChanges')
        self.assertTrue(r['ok'], r)
        self.assertEqual([tuple(x) for x in r['result'][0]], [tuple(x) for x in rows])

        # stop with RestoreOnExit: every original is back
        self.assertEqual(d.stop(signal.SIGTERM), 0)
        for (path, attribute), original in before.items():
            with self.subTest(restored=(path, attribute)):
                if path == POWER_SAVE:
                    self.assertEqual(self.laptop.read(POWER_SAVE), original)
                else:
                    self.assertEqual(self.attr(path, attribute), original)

        # a new run: an override back to the original is no change; the
        # row returns when the override goes
        self.start()
        self.assertIn((HDA, 'power/control', 'on', 'auto'), self.changes())
        self.call('SetOverride', (HDA, 'Control', 'on'), '(sss)')
        self.assertNotIn(HDA, [r[0] for r in self.changes()])
        self.call('ClearOverrides', (HDA,), '(s)')
        self.assertIn((HDA, 'power/control', 'on', 'auto'), self.changes())
        # PowerUp resumes it (control=on) and hands it back to the
        # policy at once: auto, listed again
        self.call('PowerUp', (HDA, False), '(sb)')
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        self.assertIn((HDA, 'power/control', 'on', 'auto'), self.changes())

    def test_dry_run_changes_nothing_lists_nothing(self):
        self.start(args=['--dry-run'])
        self.assertEqual(self.changes(), [])
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')


class TestListOverrides(ConflictsTestCase):

    def test_overrides_listed(self):
        self.start()
        self.assertEqual(self.call('ListOverrides')[0], [])
        self.call('SetOverride', ('1-1.2', 'Wakeup', 'enabled'), '(sss)')
        self.call('SetOverride', ('1-1.2', 'Control', 'on'), '(sss)')
        self.call('SetOverride', (STORAGE, 'AutosuspendDelayMs', '100'), '(sss)')
        self.call('SetOverride', (HDA, 'Control', 'on'), '(sss)')
        # by path (0000:00:14.0 before 0000:00:1f.3), keys in a fixed order
        expected = [
            (STORAGE, 'Control', 'on'),
            (STORAGE, 'AutosuspendDelayMs', '100'),
            (STORAGE, 'Wakeup', 'enabled'),
            (HDA, 'Control', 'on'),
        ]
        self.assertEqual(self.call('ListOverrides')[0], expected)
        r = self.call_as('nobody', 'ListOverrides')
        self.assertTrue(r['ok'], r)
        self.assertEqual([tuple(x) for x in r['result'][0]], expected)
        # the journal: one override-set per key, override-cleared
        self.assertEqual(len(self.events(MSG_OVERRIDE_SET, DEVICE=STORAGE)), 3)
        self.assertEqual(len(self.events(MSG_OVERRIDE_SET, DEVICE=STORAGE,
                                         ATTRIBUTE='AutosuspendDelayMs', VALUE='100')), 1)
        self.call('ClearOverrides', ('1-1.2',), '(s)')
        self.assertEqual(self.call('ListOverrides')[0], [(HDA, 'Control', 'on')])
        self.assertEqual(len(self.events(MSG_OVERRIDE_CLEARED, DEVICE=STORAGE)), 1)


class TestForeignChanges(ConflictsTestCase):

    def switch_power(self, on_ac):
        """Switch the power source and wait for the full pass to end (the
        module parameter is written last in a pass)."""
        self.laptop.set_ac(on_ac)
        wait_until(lambda: self.laptop.read(POWER_SAVE) == ('10' if on_ac else '1'), 5,
                   'the %s layer' % ('AC' if on_ac else 'battery'))

    def test_foreign_write_detected_third_gives_up(self):
        self.start()
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        subject = HDA + '/power/control'
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        self.assertEqual(self.conflicts(), [])

        # 1st and 2nd: reported, and the daemon's value written again
        for n, on_ac in ((1, False), (2, True)):
            self.laptop.write(HDA + '/power/control', 'on')
            self.switch_power(on_ac)
            self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
            rows = dict(self.conflicts())
            self.assertIn(subject, rows)
            self.assertIn('changed by another program %d time' % n, rows[subject])
            self.assertIn("ours 'auto', found 'on'", rows[subject])
            self.assertNotIn('no longer written', rows[subject])
            self.assertEqual(len(self.events(MSG_FOREIGN_CHANGE, DEVICE=HDA)), n)
        rec = self.events(MSG_FOREIGN_CHANGE, DEVICE=HDA)[0]
        self.assertEqual(rec['ATTRIBUTE'], 'power/control')
        self.assertEqual(rec['VALUE'], 'auto')
        self.assertEqual(rec['FOREIGN_VALUE'], 'on')
        self.assertEqual(rec['COUNT'], '1')
        self.assertEqual(rec['POWERPOLICY_CLASS'], 'pci-audio')
        wait_until(lambda: any(s[0] == 'PropertiesChanged' and 'Conflicts' in s[1][1]
                               for s in self.signals), 5, 'PropertiesChanged(Conflicts)')

        # 3rd: given up, said so, no longer written
        self.laptop.write(HDA + '/power/control', 'on')
        self.switch_power(False)
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        give_up = self.events(MSG_FOREIGN_GIVE_UP, DEVICE=HDA, ATTRIBUTE='power/control')
        self.assertEqual(len(give_up), 1)
        self.assertEqual(give_up[0]['COUNT'], '3')
        self.assertIn('no longer written until Reload', dict(self.conflicts())[subject])
        self.switch_power(True)
        self.assertEqual(self.attr(HDA, 'power/control'), 'on')
        # nothing new to report while given up
        self.assertEqual(len(self.events(MSG_FOREIGN_GIVE_UP, DEVICE=HDA)), 1)
        self.assertEqual(len(self.events(MSG_FOREIGN_CHANGE, DEVICE=HDA)), 2)
        # other devices are still managed
        self.assertEqual(self.attr(XHCI, 'power/control'), 'on')

        # Reload: starts afresh, the daemon's value again
        self.call('Reload')
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        self.assertEqual(self.conflicts(), [])


    def test_device_added_again_is_not_foreign(self):
        # re-plugged with its remove missed (or its driver reset it): the
        # kernel's values are no other program's change
        self.start()
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        self.laptop.write(HDA + '/power/control', 'on')
        self.laptop.tb.uevent(HDA, 'add')
        wait_until(lambda: self.attr(HDA, 'power/control') == 'auto', 5, 'policy applied again')
        self.assertEqual(self.events(MSG_FOREIGN_CHANGE, DEVICE=HDA), [])
        self.assertEqual(self.conflicts(), [])


class TestResume(SleepTestCase):

    def test_firmware_reset_across_hibernation_is_not_foreign(self):
        self.start(args=['--no-logind'], config=SLEEP_CONFIG + 'HibernateMode=shutdown\n')
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        # "firmware" resets the attribute while the machine is off: after
        # hibernation the full pass puts the policy back and reports nothing
        self.laptop.write(HDA + '/power/control', 'on')
        self.call('Hibernate', (False,), '(b)', timeout=10000)
        self.wait_attr(HDA, 'power/control', 'auto')
        self.assertEqual(self.get_property('Conflicts'), [])
        log = self.daemon.read_log()
        self.assertNotIn('another program', log)
        self.assertIn('Resumed from disk', log)
        self.assertIn('After resume from hibernation: re-applying the whole policy', log)
        # a setting of its own (no device): its own path, its name
        self.assertIn(('/sys/power/disk', 'disk', 'platform', 'shutdown'),
                      self.call('ListChanges')[0])

    def test_device_reset_across_suspend_is_not_foreign(self):
        """After a suspend no full pass: a device the kernel reset comes
        back as a uevent (re-enumerated, or its driver bound again), and
        that is no other program's change."""
        self.start_logind()
        self.make_file('/sys/power/suspend_stats/success', '0\n')
        self.make_file('/sys/power/suspend_stats/fail', '0\n')
        self.start()
        self.wait_delay_inhibitors(1)
        self.assertEqual(self.attr(HDA, 'power/control'), 'auto')
        self.prepare_for_sleep(True)
        self.wait_delay_inhibitors(0)
        # the kernel counts a suspend
        self.make_file('/sys/power/suspend_stats/success', '1\n')
        self.prepare_for_sleep(False)
        self.wait_delay_inhibitors(1)
        self.laptop.write(HDA + '/power/control', 'on')
        self.laptop.tb.uevent(HDA, 'bind')
        self.wait_attr(HDA, 'power/control', 'auto')
        self.assertEqual(self.get_property('Conflicts'), [])
        log = self.daemon.read_log()
        self.assertNotIn('another program', log)
        self.assertNotIn('re-applying the whole policy', log)


class TestInstalledTools(ConflictsTestCase):

    def make_root(self, d):
        root = d.conflicts_root
        wants = os.path.join(root, 'etc/systemd/system/multi-user.target.wants')
        os.makedirs(wants)
        os.makedirs(os.path.join(root, 'usr/lib/systemd/system'))
        for unit in ('tlp.service', 'power-profiles-daemon.service'):
            with open(os.path.join(root, 'usr/lib/systemd/system', unit), 'w') as f:
                f.write('[Service]\nExecStart=/usr/sbin/%s\n' % unit.split('.')[0])
            os.symlink('/usr/lib/systemd/system/' + unit, os.path.join(wants, unit))
        os.makedirs(os.path.join(root, 'run/tlp'))
        return root

    def test_tlp_detected_once_reload_finds_more(self):
        d = self.new_daemon()
        root = self.make_root(d)
        self.journal = d.attach_journal()
        d.start()
        self.wait_for_name()
        rows = self.conflicts()
        self.assertEqual([r[0] for r in rows], ['tlp'])
        self.assertIn('autosuspend', rows[0][1])
        tlp = self.events(MSG_CONFLICT, TOOL='tlp')
        self.assertEqual(len(tlp), 1)
        self.assertIn('tlp', tlp[0]['EVIDENCE'])
        # power-profiles-daemon writes no device attribute: no conflict
        self.assertEqual(self.events(MSG_CONFLICT, TOOL='power-profiles-daemon'), [])

        # tuned appears; Reload reports it, and tlp not again
        os.makedirs(os.path.join(root, 'run/tuned'))
        with open(os.path.join(root, 'run/tuned/tuned.pid'), 'w') as f:
            f.write('4242\n')
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        self.call('Reload')
        self.assertEqual([r[0] for r in self.conflicts()], ['tlp', 'tuned'])
        self.assertEqual(len(self.events(MSG_CONFLICT, TOOL='tlp')), 1)
        self.assertEqual(len(self.events(MSG_CONFLICT, TOOL='tuned')), 1)
        wait_until(lambda: any(s[0] == 'PropertiesChanged' and 'Conflicts' in s[1][1]
                               for s in self.signals), 5, 'PropertiesChanged(Conflicts)')
        self.assertIn('tuned', d.read_log())

    def test_nothing_installed_no_conflict(self):
        self.start()
        self.assertEqual(self.conflicts(), [])
        self.assertEqual(self.events(MSG_CONFLICT), [])


class TestJournal(ConflictsTestCase):

    def test_fields(self):
        lpm = self.laptop.path(SCSI_HOST + '/link_power_management_policy')
        os.unlink(lpm)
        os.mkdir(lpm)
        self.start()
        applied = self.events(MSG_POLICY_APPLIED, REASON='start')
        self.assertEqual(len(applied), 1)
        self.assertGreater(int(applied[0]['COUNT']), 0)
        self.assertEqual(applied[0]['FAILED'], '1')
        self.assertEqual(applied[0]['POWERPOLICY_EVENT'], 'policy-applied')
        self.assertEqual(applied[0]['PRIORITY'], '6')
        failed = self.events(MSG_WRITE_FAILED)
        self.assertEqual(len(failed), 1)
        self.assertEqual(failed[0]['DEVICE'], SCSI_HOST)
        self.assertEqual(failed[0]['ATTRIBUTE'], 'link_power_management_policy')
        self.assertEqual(failed[0]['VALUE'], 'med_power_with_dipm')
        self.assertEqual(failed[0]['POWERPOLICY_CLASS'], 'sata-host')
        self.assertIn('ORIGINAL', failed[0])
        self.assertEqual(failed[0]['PRIORITY'], '4')

        self.call('SetOverride', (HUB, 'Control', 'on'), '(sss)')
        rec = self.events(MSG_OVERRIDE_SET)
        self.assertEqual(len(rec), 1)
        self.assertEqual((rec[0]['DEVICE'], rec[0]['ATTRIBUTE'], rec[0]['VALUE']),
                         (HUB, 'Control', 'on'))
        self.laptop.set_ac(False)
        wait_until(lambda: self.events(MSG_POLICY_APPLIED, REASON='battery'), 5,
                   'policy-applied on battery')

        fd = self.hold('1-1.2', 'journal-test', 'copying')
        taken = self.events(MSG_HOLD_TAKEN)
        self.assertEqual(len(taken), 1)
        self.assertEqual((taken[0]['DEVICE'], taken[0]['WHO'], taken[0]['WHY']),
                         (STORAGE, 'journal-test', 'copying'))
        self.assertEqual(taken[0]['PID'], str(os.getpid()))
        os.close(fd)
        wait_until(lambda: self.events(MSG_HOLD_RELEASED, DEVICE=STORAGE), 5, 'hold-released')

        fd = self.inhibit('idle', 'journal-test', 'presenting')
        taken = self.events(MSG_INHIBITOR_TAKEN)
        self.assertEqual((taken[0]['WHAT'], taken[0]['WHO'], taken[0]['WHY']),
                         ('idle', 'journal-test', 'presenting'))
        os.close(fd)
        wait_until(lambda: self.events(MSG_INHIBITOR_RELEASED, WHO='journal-test'), 5,
                   'inhibitor-released')

    def test_caller_text_escaped(self):
        d = self.start()
        who = 'evil\nFAKE-LINE injected\x1b[31m'
        why = 'tab\there\rreturn\x07bell'
        fd = self.hold('1-1.2', who, why)
        fd2 = self.inhibit('idle:lid', who, why)
        os.close(fd)
        os.close(fd2)
        wait_until(lambda: self.events(MSG_INHIBITOR_RELEASED), 5, 'inhibitor-released')
        wait_until(lambda: self.events(MSG_HOLD_RELEASED), 5, 'hold-released')
        # a device argument with control characters: refused, and nothing
        # of it reaches a log line raw
        for method, args, sig in (('Hold', ('1-1.2\nFAKE-LINE\x1b', 'w', 'y'), '(sss)'),
                                  ('SetOverride', ('1-9\nFAKE-LINE\x1b', 'Control', 'on'), '(sss)')):
            with self.assertRaises(GLib.GError):
                if method == 'Hold':
                    self.hold(*args)
                else:
                    self.call(method, args, sig)
        # the daemon's own log: one line per event, no raw control
        # character from the caller
        log = d.read_log()
        self.assertNotIn('\x1b', log)
        self.assertNotIn('\x07', log)
        self.assertNotIn('\r', log)
        for line in log.splitlines():
            self.assertFalse(line.startswith('FAKE-LINE'), line)
        self.assertIn('evil\\nFAKE-LINE injected\\x1b[31m', log)
        # the journal's fields
        for rec in self.events(MSG_HOLD_TAKEN) + self.events(MSG_INHIBITOR_TAKEN):
            self.assertEqual(rec['WHO'], 'evil\\nFAKE-LINE injected\\x1b[31m')
            self.assertEqual(rec['WHY'], 'tab\\there\\rreturn\\x07bell')
        self.assertEqual(len(self.events(MSG_HOLD_TAKEN)), 1)
        self.assertEqual(len(self.events(MSG_INHIBITOR_TAKEN)), 1)


class TestPmctlChanges(PmctlTestCase):

    def test_diff(self):
        self.start_daemon()
        rc, out, err = self.pmctl('diff')
        self.assertEqual((rc, err), (0, ''))
        lines = [line.split('\t') for line in out.splitlines()]
        self.assertIn([HDA, 'power/control', 'on', 'auto'], lines)
        self.assertIn([POWER_SAVE, POWER_SAVE_NAME, '0', '10'], lines)
        self.assertEqual(len(lines), len(self.call('ListChanges')[0]))
        rc, out, err = self.pmctl('--json', 'diff')
        self.assertEqual(rc, 0, err)
        rows = json.loads(out)
        self.assertIn({'path': HDA, 'attribute': 'power/control', 'original': 'on',
                       'current': 'auto'}, rows)
        # on a terminal: a header, the current values highlighted
        rc, out = self.pmctl_tty('diff', env={'TERM': 'xterm'})
        self.assertEqual(rc, 0)
        self.assertIn('ORIGINAL', out)
        self.assertIn('\033[33mauto\033[0m', out)
        rc, out = self.pmctl_tty('diff', env={'TERM': 'xterm', 'NO_COLOR': '1'})
        self.assertNotIn('\033[', out)

    def test_diff_empty(self):
        self.start_daemon(args=['--dry-run'])
        self.assertEqual(self.pmctl('diff'), (0, '', ''))
        self.assertEqual(self.pmctl('--json', 'diff'), (0, '[]\n', ''))
        rc, out = self.pmctl_tty('diff')
        self.assertEqual(rc, 0)
        self.assertIn('Nothing changed', out)

    def test_overrides(self):
        self.start_daemon()
        self.assertEqual(self.pmctl('overrides'), (0, '', ''))
        rc, out = self.pmctl_tty('overrides')
        self.assertIn('No overrides', out)
        self.assertEqual(self.pmctl('set', '1-1.2', 'Control', 'on')[0], 0)
        self.assertEqual(self.pmctl('set', '1-1.2', 'AutosuspendDelayMs', '300')[0], 0)
        rc, out, err = self.pmctl('overrides')
        self.assertEqual((rc, err), (0, ''))
        self.assertEqual(out, '%s\tControl\ton\n%s\tAutosuspendDelayMs\t300\n' % (STORAGE, STORAGE))
        rc, out, err = self.pmctl('--json', 'overrides')
        self.assertEqual(json.loads(out), [
            {'path': STORAGE, 'key': 'Control', 'value': 'on'},
            {'path': STORAGE, 'key': 'AutosuspendDelayMs', 'value': '300'}])
        self.assertEqual(self.pmctl('reset', '1-1.2')[0], 0)
        self.assertEqual(self.pmctl('overrides'), (0, '', ''))

    def test_status_shows_conflicts(self):
        d = self.new_daemon()
        os.makedirs(os.path.join(d.conflicts_root, 'run/tlp'))
        d.start()
        self.wait_for_name()
        rc, out, err = self.pmctl('status')
        self.assertEqual(rc, 0, err)
        fields = dict(line.split('\t', 1) for line in out.splitlines())
        self.assertTrue(fields['Conflicts'].startswith('tlp: '), fields['Conflicts'])
        rc, out, err = self.pmctl('--json', 'status')
        status = json.loads(out)
        self.assertEqual([c['subject'] for c in status['Conflicts']], ['tlp'])
        self.assertIn('what', status['Conflicts'][0])
        if 'DryRun' in status:
            self.assertIs(status['DryRun'], False)
        rc, out = self.pmctl_tty('status', env={'TERM': 'xterm'})
        self.assertIn('\033[33mtlp: ', out)


if __name__ == '__main__':
    main()
