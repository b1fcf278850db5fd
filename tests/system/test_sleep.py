#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System tests: system sleep, lid actions and video quirks (issue 6).

logind is python-dbusmock's template: its Inhibit() returns a real fd and
its ListInhibitors() drops an entry when every copy of that fd is closed,
which is how the release of the delay inhibitor is observed. Its Suspend()
is recorded but emits no PrepareForSleep: the tests emit it. The lid is an
emulated evdev switch (ppevdev.py). The restore helper is a recording
script (QuirkHelper=). /sys/power/* and /proc/sys/kernel/acpi_video_flags
are plain files in the testbed (TESTING.md); the real ones are never
touched: the harness refuses to run the daemon without UMOCKDEV_DIR.
"""

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


from ppharness import (  # noqa: E402
    PCI, STORAGE, TEST_CONFIG, Daemon, main, wait_until,
)
from ppevdev import DOCK, LID, SW_DOCK, SW_LID  # noqa: E402
from test_input import InputTestCase  # noqa: E402

SRCDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
QUIRKS_DIR = os.path.abspath(os.path.join(SRCDIR, 'data', 'video-quirks'))
LOGIND = ('org.freedesktop.login1', '/org/freedesktop/login1', 'org.freedesktop.login1.Manager')
# what a lid action may ask logind for
LOGIND_ACTIONS = ('Suspend', 'Hibernate', 'HybridSleep', 'SuspendThenHibernate', 'LockSessions')
GPU = PCI + '/0000:00:02.0'
DMI = '/sys/devices/virtual/dmi/id'

# Dell Inspiron 1501 with an ATI GPU: 20-video-quirk-pm-dell.quirkdb lines
# 52-58 give s3_bios, s3_mode and (vendor 0x1002) radeon_off.
INSPIRON_1501 = {'sys_vendor': 'Dell Inc.', 'product_name': 'Inspiron 1501',
                 'bios_vendor': 'Dell Inc.', 'bios_version': 'A05'}
INSPIRON_1501_QUIRKS = ['s3_bios', 's3_mode', 'radeon_off']
# Dell Latitude D630, BIOS A10: lines 33-38 (compare_lt A12).
LATITUDE_D630 = {'sys_vendor': 'Dell Inc.', 'product_name': 'Latitude D630',
                 'bios_vendor': 'Dell Inc.', 'bios_version': 'A10'}
LATITUDE_D630_QUIRKS = ['vbe_post', 'vbestate_restore', 'no_fb']

SLEEP_CONFIG = TEST_CONFIG + """
[Lid]
HandleLid=true
OnClose=suspend
OnCloseExternalPower=suspend
OnCloseDocked=ignore
HoldoffSec=0

[Sleep]
QuirkTimeoutSec=2
QuirkHelper={helper}
"""


def process_alive(pid):
    """True while @pid runs (a zombie counts as gone)."""
    try:
        with open('/proc/%s/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except FileNotFoundError:
        return False


class SleepDaemon(Daemon):
    """The daemon with the source tree's quirk database."""

    def env(self):
        env = super().env()
        env['POWERPOLICY_VIDEO_QUIRKS_DIR'] = QUIRKS_DIR
        return env


class SleepTestCase(InputTestCase):

    def setUp(self):
        super().setUp()
        self.work = tempfile.mkdtemp(prefix='pp-sleep-')
        self.addCleanup(shutil.rmtree, self.work, True)
        self.helper_log = os.path.join(self.work, 'helper.log')
        self.hang_flag = os.path.join(self.work, 'hang')
        self.helper = os.path.join(self.work, 'record-helper')
        self.helper_pids = os.path.join(self.work, 'helper.pids')
        # hanging: deaf to SIGTERM, with a child that keeps stdout open
        with open(self.helper, 'w') as f:
            f.write('#!/bin/sh\n'
                    'echo "$*" >> %s\n'
                    'if [ -e %s ]; then\n'
                    '  trap "" TERM\n'
                    '  sleep 1000 & echo $! >> %s\n'
                    '  echo $$ >> %s\n'
                    '  exec sleep 1000\n'
                    'fi\n'
                    'exit 0\n' % (self.helper_log, self.hang_flag,
                                   self.helper_pids, self.helper_pids))
        os.chmod(self.helper, stat.S_IRWXU)
        # kernel files the daemon may write: plain files in the testbed
        self.flags = self.make_file('/proc/sys/kernel/acpi_video_flags', '0\n')
        self.power_state = self.make_file('/sys/power/state', 'freeze mem disk\n')
        self.mem_sleep = self.make_file('/sys/power/mem_sleep', 's2idle [deep]\n')
        self.power_disk = self.make_file('/sys/power/disk', '[platform] shutdown reboot suspend\n')
        self.logind = None

    def make_file(self, path, text):
        full = self.laptop.root + path
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w') as f:
            f.write(text)
        return full

    def read_file(self, full):
        with open(full) as f:
            return f.read().strip()

    # -- machine -----------------------------------------------------------

    def add_machine(self, dmi, vendor='0x1002', device='0x7149', driver='radeon', kms=False):
        tb = self.laptop.tb
        attrs = []
        for k, v in dmi.items():
            attrs += [k, v]
        path = tb.add_device('dmi', 'virtual/dmi/id', None, attrs, [])
        self.assertEqual(path, DMI)
        gpu = tb.add_device('pci', 'pci0000:00/0000:00:02.0', None,
                            ['class', '0x030000', 'vendor', vendor, 'device', device,
                             'power/control', 'on', 'power/runtime_status', 'active'],
                            ['PCI_CLASS', '30000', 'DRIVER', driver])
        self.assertEqual(gpu, GPU)
        tb.set_attribute_link(gpu, 'driver', '../../../bus/pci/drivers/' + driver)
        if kms:
            tb.add_device('drm', 'drm/card0', gpu, ['dev', '226:0'], ['DEVTYPE', 'drm_minor'])

    def add_backlight(self):
        return self.laptop.tb.add_device('backlight', 'pci0000:00/0000:00:02.0/backlight/intel_backlight'
                                         if os.path.exists(self.laptop.path(GPU)) else
                                         'virtual/backlight/acpi_video0', None,
                                         ['type', 'firmware', 'brightness', '7',
                                          'max_brightness', '10', 'bl_power', '0'], [])

    # -- daemon and logind --------------------------------------------------

    def start_logind(self):
        proc, obj = self.spawn_server_template('logind', {}, stdout=subprocess.DEVNULL)
        self.addCleanup(lambda: (proc.terminate(), proc.wait()))
        self.logind = obj
        self.logind_proc = proc
        return obj

    def stop_logind(self):
        self.logind_proc.terminate()
        self.logind_proc.wait()
        self.logind = None

    def start(self, config=None, args=(), workdir=None):
        text = (config or SLEEP_CONFIG).format(helper=self.helper)
        d = SleepDaemon(self.laptop, config_text=text, args=args, bus_address=self.bus_address,
                        workdir=workdir)
        self.daemons.append(d)
        d.start()
        self.wait_for_name()
        self.daemon = d
        return d

    def logind_inhibitors(self, what, mode):
        return [i for i in self.logind.ListInhibitors() if i[0] == what and i[3] == mode]

    def wait_delay_inhibitors(self, n, timeout=5):
        wait_until(lambda: len(self.logind_inhibitors('sleep', 'delay')) == n, timeout,
                   '%d sleep delay inhibitor(s) (have %r)' % (n, self.logind.ListInhibitors()))

    def prepare_for_sleep(self, start):
        self.logind.EmitSignal(LOGIND[2], 'PrepareForSleep', 'b', [start])

    def suspend_calls(self):
        return [c for c in self.logind.GetMethodCalls('Suspend')]

    def helper_lines(self):
        try:
            with open(self.helper_log) as f:
                return [line.split() for line in f.read().splitlines()]
        except FileNotFoundError:
            return []

    def barrier(self):
        """A round trip through the daemon: whatever it sent before is on the bus."""
        self.call('GetVideoQuirks')


class TestLogindSleep(SleepTestCase):

    def test_delay_inhibitor_at_start(self):
        self.start_logind()
        self.add_machine(INSPIRON_1501)
        self.start()
        self.wait_delay_inhibitors(1)
        self.assertEqual(self.get_property('Backend'), 'logind')

    def daemon_pipes(self):
        """The daemon's pipe fds (the mock's inhibitor fds are pipes)."""
        fd_dir = '/proc/%d/fd' % self.daemon.proc.pid
        pipes = set()
        for fd in os.listdir(fd_dir):
            try:
                if os.readlink(os.path.join(fd_dir, fd)).startswith('pipe:'):
                    pipes.add(fd)
            except FileNotFoundError:
                pass
        return pipes

    def backend_signals(self):
        return [a[1]['Backend'] for (s, a) in self.signals
                if s == 'PropertiesChanged' and 'Backend' in a[1]]

    def test_backend_follows_logind(self):
        self.add_machine(INSPIRON_1501)
        self.start()
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        self.assertEqual(self.get_property('Backend'), 'kernel')
        pipes = self.daemon_pipes()
        # logind appears: delay and lid-switch block inhibitors, Backend logind
        self.start_logind()
        wait_until(lambda: self.get_property('Backend') == 'logind', 5, 'Backend logind')
        self.wait_delay_inhibitors(1)
        wait_until(lambda: len(self.logind_inhibitors('handle-lid-switch', 'block')) == 1, 5,
                   'handle-lid-switch block inhibitor')
        wait_until(lambda: self.backend_signals() == ['logind'], 5,
                   'PropertiesChanged Backend logind (have %r)' % self.backend_signals())
        # the mock counts an inhibitor before its fd reaches the daemon
        wait_until(lambda: len(self.daemon_pipes() - pipes) == 2, 5,
                   'the daemon holding both inhibitor fds')
        # sleep goes through logind now
        self.call('Suspend', (False,), '(b)')
        self.assertEqual(len(self.suspend_calls()), 1)
        self.assertEqual(self.read_file(self.power_state), 'freeze mem disk')
        # logind leaves: inhibitor fds closed, Backend kernel
        self.stop_logind()
        wait_until(lambda: self.get_property('Backend') == 'kernel', 5, 'Backend kernel')
        wait_until(lambda: self.backend_signals() == ['logind', 'kernel'], 5,
                   'PropertiesChanged Backend kernel (have %r)' % self.backend_signals())
        self.assertEqual(self.daemon_pipes(), pipes)
        # and sleep through the kernel
        self.call('Suspend', (False,), '(b)', timeout=10000)
        self.assertEqual(self.read_file(self.power_state), 'mem')
        # logind comes back
        self.start_logind()
        wait_until(lambda: self.get_property('Backend') == 'logind', 5, 'Backend logind again')
        self.wait_delay_inhibitors(1)

    def test_logind_leaving_during_sleep_runs_resume(self):
        self.start_logind()
        self.add_machine(INSPIRON_1501)
        self.start()
        self.wait_delay_inhibitors(1)
        self.prepare_for_sleep(True)
        self.wait_delay_inhibitors(0)
        self.assertEqual(self.helper_lines(), [['suspend'] + INSPIRON_1501_QUIRKS])
        # no PrepareForSleep(false) will ever come: the resume phase runs
        self.stop_logind()
        wait_until(lambda: len(self.helper_lines()) == 2, 5, 'helper resume phase')
        self.assertEqual(self.helper_lines()[1], ['resume'] + INSPIRON_1501_QUIRKS)
        self.assertEqual(self.get_property('Backend'), 'kernel')

    def test_prepare_for_sleep_flags_helper_release(self):
        self.start_logind()
        self.add_machine(INSPIRON_1501)
        self.start()
        self.wait_delay_inhibitors(1)
        self.assertEqual(self.read_file(self.flags), '0')
        self.prepare_for_sleep(True)
        self.wait_delay_inhibitors(0)
        # s3_bios | s3_mode
        self.assertEqual(self.read_file(self.flags), '3')
        self.assertEqual(self.helper_lines(), [['suspend'] + INSPIRON_1501_QUIRKS])

    def test_hanging_helper_killed_inhibitor_released_within_bound(self):
        self.start_logind()
        self.add_machine(INSPIRON_1501)
        self.start()
        self.wait_delay_inhibitors(1)
        open(self.hang_flag, 'w').close()
        t0 = time.monotonic()
        self.prepare_for_sleep(True)
        # QuirkTimeoutSec=2: released at the bound, not before, not much after
        self.wait_delay_inhibitors(0, timeout=4)
        elapsed = time.monotonic() - t0
        self.assertGreaterEqual(elapsed, 1.5)
        self.assertLess(elapsed, 3.5)
        self.assertIn('suspend phase', self.daemon.read_log())
        self.assertIn('exceeded 2 s: killed', self.daemon.read_log())
        self.assertEqual(self.helper_lines(), [['suspend'] + INSPIRON_1501_QUIRKS])
        # the hung helper and the child it started are gone
        with open(self.helper_pids) as f:
            pids = f.read().split()
        self.assertEqual(len(pids), 2)
        wait_until(lambda: not any(process_alive(p) for p in pids), 3,
                   'the helper and its child killed (%s)' % pids)

    def test_helper_that_cannot_start_does_not_delay_sleep(self):
        self.start_logind()
        self.add_machine(INSPIRON_1501)
        self.helper = os.path.join(self.work, 'no-such-helper')
        self.start()
        self.wait_delay_inhibitors(1)
        t0 = time.monotonic()
        self.prepare_for_sleep(True)
        self.wait_delay_inhibitors(0, timeout=4)
        self.assertLess(time.monotonic() - t0, 1.5)
        self.assertIn('Cannot run the video restore helper', self.daemon.read_log())
        # the kernel flags are still written
        self.assertEqual(self.read_file(self.flags), '3')

    def test_kernel_flags_kept_without_s3_quirks(self):
        self.start_logind()
        # acpi_sleep=s3_bios on the kernel command line; the D630's quirks
        # have neither s3_bios nor s3_mode: pm-utils leaves the flags alone
        self.make_file('/proc/sys/kernel/acpi_video_flags', '1\n')
        self.add_machine(LATITUDE_D630, vendor='0x8086', device='0x2a02', driver='i915')
        self.start()
        self.wait_delay_inhibitors(1)
        self.prepare_for_sleep(True)
        self.wait_delay_inhibitors(0)
        self.assertEqual(self.helper_lines(), [['suspend'] + LATITUDE_D630_QUIRKS])
        self.assertEqual(self.read_file(self.flags), '1')

    def test_resume_helper_reapply_new_delay(self):
        self.start_logind()
        self.add_machine(INSPIRON_1501)
        self.start()
        self.wait_attr(STORAGE, 'power/autosuspend_delay_ms', '5000')
        self.wait_delay_inhibitors(1)
        self.prepare_for_sleep(True)
        self.wait_delay_inhibitors(0)
        # firmware reset an attribute while the machine slept
        self.laptop.write(STORAGE + '/power/autosuspend_delay_ms', '2000')
        self.prepare_for_sleep(False)
        self.wait_delay_inhibitors(1)
        self.wait_attr(STORAGE, 'power/autosuspend_delay_ms', '5000')
        wait_until(lambda: len(self.helper_lines()) == 2, 5, 'helper resume phase')
        self.assertEqual(self.helper_lines(), [['suspend'] + INSPIRON_1501_QUIRKS,
                                               ['resume'] + INSPIRON_1501_QUIRKS])

    def test_resume_saves_last_known_working(self):
        self.start_logind()
        self.add_machine(INSPIRON_1501)
        d = self.start()
        rows = self.call('GetVideoQuirks')[0]
        self.assertEqual({r[1] for r in rows}, {'database'})
        self.prepare_for_sleep(True)
        self.wait_delay_inhibitors(0)
        self.prepare_for_sleep(False)
        self.wait_delay_inhibitors(1)
        lkw = os.path.join(d.state_dir, 'video-quirks-last-known-working')
        wait_until(lambda: os.path.exists(lkw), 5, 'last known working saved')
        d.stop()
        # the same state directory
        self.start(workdir=d.workdir)
        rows = self.call('GetVideoQuirks')[0]
        self.assertEqual([r[0] for r in rows], INSPIRON_1501_QUIRKS)
        self.assertEqual({r[1] for r in rows}, {'last-known-working'})


class TestLid(SleepTestCase):

    def setUp(self):
        super().setUp()
        self.lid = self.evdev.add(LID)

    def on_battery(self):
        tb = self.laptop.tb
        tb.set_attribute(self.laptop.ac, 'online', '0')
        tb.set_property(self.laptop.ac, 'POWER_SUPPLY_ONLINE', '0')

    def close_lid(self, docked=False, inhibited=False):
        self.lid.set_switch(SW_LID, 1)
        self.wait_property('LidClosed', True)
        self.wait_log('Lid closed, %sdocked, lid inhibitor %s'
                      % ('' if docked else 'not ', 'held' if inhibited else 'not held'))
        self.barrier()

    def test_lid_close_on_battery_suspends_once(self):
        self.start_logind()
        self.on_battery()
        self.start()
        self.assertTrue(self.get_property('OnBattery'))
        self.close_lid()
        wait_until(lambda: len(self.suspend_calls()) == 1, 5, 'logind Suspend called')
        # a change that does not change the decision does not act again
        self.laptop.set_ac(True)
        self.wait_property('OnBattery', False)
        self.barrier()
        self.assertEqual(len(self.suspend_calls()), 1)
        self.assertEqual(self.logind.GetMethodCalls('Hibernate'), [])

    def test_lid_block_inhibitor_while_handling(self):
        self.start_logind()
        self.start()
        wait_until(lambda: len(self.logind_inhibitors('handle-lid-switch', 'block')) == 1, 5,
                   'handle-lid-switch block inhibitor')

    def test_docked_does_not_suspend(self):
        self.start_logind()
        dock = self.evdev.add(DOCK)
        dock.switches[SW_DOCK] = 1
        self.on_battery()
        self.start()
        self.wait_property('Docked', True)
        self.close_lid(docked=True)
        self.assertEqual(self.suspend_calls(), [])
        # undocked with the lid still closed: logind's re-evaluation
        dock.set_switch(SW_DOCK, 0)
        self.wait_property('Docked', False)
        wait_until(lambda: len(self.suspend_calls()) == 1, 5, 'Suspend after undocking')

    def test_ac_unplugged_with_lid_closed_suspends(self):
        self.start_logind()
        self.start(config=SLEEP_CONFIG.replace('OnCloseExternalPower=suspend',
                                               'OnCloseExternalPower=ignore'))
        self.assertFalse(self.get_property('OnBattery'))
        self.close_lid()
        self.assertEqual(self.suspend_calls(), [])
        # unplugged with the lid still closed: OnClose now decides
        self.laptop.set_ac(False)
        self.wait_property('OnBattery', True)
        wait_until(lambda: len(self.suspend_calls()) == 1, 5, 'Suspend after AC unplug')

    def test_lid_inhibitor_prevents_suspend(self):
        self.start_logind()
        self.on_battery()
        self.start()
        fd = self.inhibit('lid')
        self.close_lid(inhibited=True)
        self.assertEqual(self.suspend_calls(), [])
        os.close(fd)
        wait_until(lambda: len(self.suspend_calls()) == 1, 5, 'Suspend after the inhibitor is released')

    def test_holdoff_prevents_suspend(self):
        self.start_logind()
        self.on_battery()
        self.start(config=SLEEP_CONFIG.replace('HoldoffSec=0', 'HoldoffSec=3'))
        t0 = time.monotonic()
        self.close_lid()
        self.assertLess(time.monotonic() - t0, 2.5, 'the lid closed too late to test the holdoff')
        self.assertEqual(self.suspend_calls(), [])
        # once the holdoff is over the closed lid acts
        wait_until(lambda: len(self.suspend_calls()) == 1, 6, 'Suspend after the holdoff')

    def test_handle_lid_false_does_nothing(self):
        self.start_logind()
        self.on_battery()
        self.start(config=SLEEP_CONFIG.replace('HandleLid=true', 'HandleLid=false'))
        self.close_lid()
        self.assertTrue(self.get_property('LidClosed'))
        self.assertEqual(self.suspend_calls(), [])
        self.assertEqual(self.logind_inhibitors('handle-lid-switch', 'block'), [])

    def test_power_off_display_and_lid_open_undoes_it(self):
        self.start_logind()
        bl = self.add_backlight()
        self.start(config=SLEEP_CONFIG.replace('OnCloseExternalPower=suspend',
                                               'OnCloseExternalPower=power-off-display'))
        self.close_lid()
        self.wait_attr(bl, 'bl_power', '4')
        self.lid.set_switch(SW_LID, 0)
        self.wait_attr(bl, 'bl_power', '0')
        self.assertEqual(self.suspend_calls(), [])


    def test_power_off_display_stands_through_policy_passes(self):
        # the panel off is a standing layer: a policy pass (Reload) puts it
        # back when something else turned the panel on; once the lid is
        # open the layer is gone and a pass leaves the panel alone
        self.start_logind()
        bl = self.add_backlight()
        self.start(config=SLEEP_CONFIG.replace('OnCloseExternalPower=suspend',
                                               'OnCloseExternalPower=power-off-display'))
        self.close_lid()
        self.wait_attr(bl, 'bl_power', '4')
        self.laptop.tb.set_attribute(bl, 'bl_power', '0')
        self.call('Reload')
        self.wait_attr(bl, 'bl_power', '4')
        self.lid.set_switch(SW_LID, 0)
        self.wait_attr(bl, 'bl_power', '0')
        self.laptop.tb.set_attribute(bl, 'bl_power', '1')
        self.call('Reload')
        self.assertEqual(self.attr(bl, 'bl_power'), '1')
        self.assertEqual(self.suspend_calls(), [])

    def test_power_off_display_restored_after_crash(self):
        self.start_logind()
        bl = self.add_backlight()
        config = SLEEP_CONFIG.replace('OnCloseExternalPower=suspend',
                                      'OnCloseExternalPower=power-off-display')
        d = self.start(config=config)
        self.close_lid()
        self.wait_attr(bl, 'bl_power', '4')
        d.stop(signal.SIGKILL)
        self.assertEqual(self.attr(bl, 'bl_power'), '4')
        # the lid opened while no daemon ran: the next run puts the panel back
        self.lid.set_switch(SW_LID, 0)
        d2 = self.start(config=config, workdir=d.workdir)
        self.assertIn('did not exit cleanly', d2.read_log())
        self.assertEqual(self.attr(bl, 'bl_power'), '0')

    def logind_calls(self):
        return {m: [c[1] for c in self.logind.GetMethodCalls(m)] for m in LOGIND_ACTIONS}

    def check_lid_action(self, action, method, args):
        """Lid closed on battery with OnClose=@action: logind's @method
        called once with @args, nothing else asked of logind."""
        self.start_logind()
        self.on_battery()
        self.start(config=SLEEP_CONFIG.replace('\nOnClose=suspend\n', '\nOnClose=%s\n' % action))
        self.assertTrue(self.get_property('OnBattery'))
        self.close_lid()
        wait_until(lambda: len(self.logind.GetMethodCalls(method)) == 1, 5,
                   'logind %s called' % method)
        self.barrier()
        expected = {m: [] for m in LOGIND_ACTIONS}
        expected[method] = [args]
        self.assertEqual(self.logind_calls(), expected)

    def test_lid_hibernate(self):
        self.check_lid_action('hibernate', 'Hibernate', [False])

    def test_lid_hybrid_sleep(self):
        self.check_lid_action('hybrid-sleep', 'HybridSleep', [False])

    def test_lid_suspend_then_hibernate(self):
        self.check_lid_action('suspend-then-hibernate', 'SuspendThenHibernate', [False])

    def test_lid_lock(self):
        self.check_lid_action('lock', 'LockSessions', [])

    def test_lid_power_off_display_on_battery(self):
        self.start_logind()
        bl = self.add_backlight()
        self.on_battery()
        self.start(config=SLEEP_CONFIG.replace('\nOnClose=suspend\n', '\nOnClose=power-off-display\n'))
        self.assertEqual(self.attr(bl, 'bl_power'), '0')
        self.close_lid()
        self.wait_attr(bl, 'bl_power', '4')
        self.lid.set_switch(SW_LID, 0)
        self.wait_property('LidClosed', False)
        self.wait_attr(bl, 'bl_power', '0')
        self.barrier()
        self.assertEqual(self.logind_calls(), {m: [] for m in LOGIND_ACTIONS})

    def test_lid_ignore(self):
        self.start_logind()
        bl = self.add_backlight()
        self.on_battery()
        self.start(config=SLEEP_CONFIG.replace('\nOnClose=suspend\n', '\nOnClose=ignore\n'))
        self.close_lid()
        self.assertEqual(self.logind_calls(), {m: [] for m in LOGIND_ACTIONS})
        self.assertEqual(self.attr(bl, 'bl_power'), '0')
        self.assertNotIn('Asking logind', self.daemon.read_log())


class TestKernelSleep(SleepTestCase):

    def test_no_logind_suspend_writes_mem(self):
        self.start_logind()
        self.add_machine(INSPIRON_1501)
        self.start(args=['--no-logind'], config=SLEEP_CONFIG + 'MemSleep=s2idle\n')
        self.assertEqual(self.get_property('Backend'), 'kernel')
        # never talked to logind
        self.assertEqual(self.logind.ListInhibitors(), [])
        self.call('Suspend', (False,), '(b)', timeout=10000)
        self.assertEqual(self.read_file(self.power_state), 'mem')
        self.assertEqual(self.read_file(self.mem_sleep), 's2idle')
        self.assertEqual(self.read_file(self.flags), '3')
        self.assertEqual(self.helper_lines(), [['suspend'] + INSPIRON_1501_QUIRKS,
                                               ['resume'] + INSPIRON_1501_QUIRKS])
        self.assertEqual(self.suspend_calls(), [])
        # settings, journalled: put back on exit (the chosen mem_sleep, not
        # the list); /sys/power/state is an action and stays as written
        self.assertEqual(self.daemon.stop(), 0)
        self.assertEqual(self.read_file(self.mem_sleep), 'deep')
        self.assertEqual(self.read_file(self.flags), '0')
        self.assertEqual(self.read_file(self.power_state), 'mem')

    def test_mem_sleep_by_power_source(self):
        """[Sleep:battery] / [Sleep:low-battery] MemSleep= (TLP's
        MEM_SLEEP_ON_AC/BAT), chosen at sleep time for the power source."""
        self.add_machine(INSPIRON_1501)
        laptop = self.laptop
        for name, value in (('capacity', '50'), ('energy_now', '25000000'),
                            ('energy_full', '50000000')):
            laptop.tb.set_attribute(laptop.bat, name, value)
        config = SLEEP_CONFIG + ('MemSleep=auto\n[Sleep:battery]\nMemSleep=s2idle\n'
                                 '[Sleep:low-battery]\nMemSleep=shallow\n')
        self.make_file('/sys/power/mem_sleep', 's2idle shallow [deep]\n')
        self.start(args=['--no-logind'], config=config)
        # on AC: auto, nothing written
        self.call('Suspend', (False,), '(b)', timeout=10000)
        self.assertEqual(self.read_file(self.mem_sleep), 's2idle shallow [deep]')
        # on battery: [Sleep:battery]
        laptop.set_ac(False)
        self.wait_property('OnBattery', True)
        self.call('Suspend', (False,), '(b)', timeout=10000)
        self.assertEqual(self.read_file(self.mem_sleep), 's2idle')
        # low battery: [Sleep:low-battery]
        laptop.tb.set_attribute(laptop.bat, 'energy_now', '5000000')
        laptop.tb.uevent(laptop.bat, 'change')
        self.wait_property('LowBattery', True)
        self.call('Suspend', (False,), '(b)', timeout=10000)
        self.assertEqual(self.read_file(self.mem_sleep), 'shallow')
        # back on AC: auto is the kernel's choice from before
        laptop.set_ac(True)
        self.wait_property('OnBattery', False)
        self.assertFalse(self.get_property('LowBattery'))
        self.call('Suspend', (False,), '(b)', timeout=10000)
        self.assertEqual(self.read_file(self.mem_sleep), 'deep')
        self.assertIn('MemSleep=shallow from [Sleep:low-battery]', self.daemon.read_log())

    def test_no_logind_hibernate_writes_disk(self):
        self.add_machine(INSPIRON_1501)
        self.start(config=SLEEP_CONFIG + 'HibernateMode=shutdown\n')
        # logind is not on the bus: the kernel path without --no-logind
        self.assertEqual(self.get_property('Backend'), 'kernel')
        self.call('Hibernate', (False,), '(b)', timeout=10000)
        self.assertEqual(self.read_file(self.power_state), 'disk')
        self.assertEqual(self.read_file(self.power_disk), 'shutdown')
        self.assertEqual(self.daemon.stop(), 0)
        self.assertEqual(self.read_file(self.power_disk), 'platform')

    def test_state_missing_is_not_supported(self):
        self.make_file('/sys/power/state', 'freeze mem\n')
        self.start(args=['--no-logind'])
        self.assertDBusError('org.powerpolicy1.Error.NotSupported', 'Hibernate', (False,), '(b)')
        self.assertEqual(self.read_file(self.power_state), 'freeze mem')
        self.assertEqual(self.helper_lines(), [])

    def test_suspend_needs_authorization(self):
        self.start_polkit()
        self.start(args=['--no-logind'])
        r = self.call_as('nobody', 'Suspend', '(b)', [False])
        self.assertEqual(r.get('error'), 'org.powerpolicy1.Error.NotAuthorized', r)
        self.assertEqual(self.read_file(self.power_state), 'freeze mem disk')


class TestVideoQuirks(SleepTestCase):

    def test_property_matches_database(self):
        self.add_machine(LATITUDE_D630, vendor='0x8086', device='0x2a02', driver='i915')
        self.start()
        self.assertEqual(self.get_property('VideoQuirks'), LATITUDE_D630_QUIRKS)
        rows = self.call('GetVideoQuirks')[0]
        self.assertEqual([r[0] for r in rows], LATITUDE_D630_QUIRKS)
        self.assertEqual({r[1] for r in rows}, {'database'})
        self.assertTrue(rows[0][2].startswith(QUIRKS_DIR + '/20-video-quirk-pm-dell.quirkdb:35'), rows)

    def test_kms_means_no_quirks(self):
        self.add_machine(LATITUDE_D630, vendor='0x8086', device='0x2a02', driver='i915', kms=True)
        self.start()
        self.assertEqual(self.get_property('VideoQuirks'), ['no_chvt'])
        self.assertEqual(self.call('GetVideoQuirks')[0][0][1], 'driver')

    def test_config_overrides_and_reload(self):
        self.add_machine(LATITUDE_D630, vendor='0x8086', device='0x2a02', driver='i915')
        d = self.start()
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        with open(d.config_path, 'a') as f:
            f.write('VideoQuirks=s3_bios,pci-save\n')
        self.call('Reload')
        self.assertEqual(self.get_property('VideoQuirks'), ['s3_bios', 'save_pci'])
        self.assertEqual({r[1] for r in self.call('GetVideoQuirks')[0]}, {'config'})
        wait_until(lambda: any(s == 'PropertiesChanged' and 'VideoQuirks' in a[1]
                               for (s, a) in self.signals), 5, 'PropertiesChanged VideoQuirks')

    def test_unknown_machine_default_set(self):
        self.add_machine({'sys_vendor': 'Nobody', 'product_name': 'Nothing'},
                         vendor='0x8086', device='0x0046', driver='i915')
        self.start()
        self.assertEqual(self.get_property('VideoQuirks'),
                         ['vbe_post', 'dpms_on', 'dpms_suspend', 'vbestate_restore',
                          'vbemode_restore', 'vga_mode_3'])


class TestHelper(SleepTestCase):
    """The shipped restore helper, run inside the testbed."""

    def run_helper(self, *args):
        exe = os.path.join(os.environ.get('PP_BUILDDIR', ''), 'src', 'video-restore',
                           'powerpolicy-video-restore')
        if not os.path.exists(exe):
            self.skipTest('powerpolicy-video-restore not built')
        empty = tempfile.mkdtemp(prefix='pp-nopath-')
        self.addCleanup(os.rmdir, empty)
        env = {'PATH': empty,      # no vbetool, radeontool, chvt: logged and skipped
               'LD_PRELOAD': os.environ['LD_PRELOAD'],
               'UMOCKDEV_DIR': self.laptop.root,
               'POWERPOLICY_VIDEO_RESTORE_STATE': os.path.join(self.work, 'state')}
        return subprocess.run([exe] + list(args), env=env, capture_output=True, text=True, timeout=10)

    def test_save_pci_reset_brightness_missing_tools(self):
        self.add_machine(LATITUDE_D630, vendor='0x8086', device='0x2a02', driver='i915')
        self.laptop.tb.set_attribute(GPU, 'config', 'ORIGINAL-CONFIG')
        bl = self.add_backlight()
        r = self.run_helper('suspend', 'save_pci', 'vbestate_restore', 'no_chvt')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('vbetool is not installed, skipping it', r.stderr)
        self.assertEqual(self.read_file(os.path.join(self.work, 'state', 'pci-config')), 'ORIGINAL-CONFIG')
        # the firmware lost the config space while asleep
        self.laptop.tb.set_attribute(GPU, 'config', 'X')
        r = self.run_helper('resume', 'save_pci', 'reset_brightness', 'vbe_post', 'no_chvt')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.attr(GPU, 'config'), 'ORIGINAL-CONFIG')
        self.assertEqual(self.attr(bl, 'brightness'), '7')
        self.assertIn('vbetool is not installed', r.stderr)

    def test_fbcon_only_around_vbe_quirks(self):
        fb = self.laptop.tb.add_device('graphics', 'virtual/graphics/fb0', None, ['state', '0'], [])
        # kernel mode setting: no quirks, the console is left alone
        r = self.run_helper('suspend', 'no_chvt')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.attr(fb, 'state'), '0')
        r = self.run_helper('suspend', 'vbe_post', 'no_fb', 'no_chvt')
        self.assertEqual(self.attr(fb, 'state'), '0')
        # a VBE quirk: suspended before sleep, resumed after
        r = self.run_helper('suspend', 'vbe_post', 'no_chvt')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.attr(fb, 'state'), '1')
        r = self.run_helper('resume', 'vbe_post', 'no_chvt')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.attr(fb, 'state'), '0')

    def test_symlinked_attribute_refused(self):
        # the daemon's checked writer: an attribute that is a symlink is
        # never followed, even to another attribute under /sys/devices
        bl = self.add_backlight()
        brightness = os.path.join(self.laptop.path(bl), 'brightness')
        os.unlink(brightness)
        os.symlink('max_brightness', brightness)
        r = self.run_helper('resume', 'reset_brightness', 'no_chvt')
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn('refusing to write', r.stderr)
        self.assertIn('symlink', r.stderr)
        self.assertEqual(self.attr(bl, 'max_brightness'), '10')

    def test_usage(self):
        r = self.run_helper('sideways')
        self.assertEqual(r.returncode, 2)
        self.assertIn('Usage', r.stderr)


if __name__ == '__main__':
    main()
