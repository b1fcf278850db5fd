#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System tests: a record for every system sleep (issue 20).

The kernel's side is simulated in the testbed: /sys/power/suspend_stats/*,
/sys/power/mem_sleep, /sys/power/pm_wakeup_irq, the battery's energy or
charge, the devices' power/wakeup_count and /sys/class/wakeup/* are plain
files the test changes between the daemon's snapshot before the sleep and
the one after it:
- logind's path: after PrepareForSleep(true) has been handled (the delay
  inhibitor released, which the daemon does right after its snapshot),
  before PrepareForSleep(false);
- the kernel path: /sys/power/state is a FIFO, so that the daemon's write
  of "mem" blocks as it does on a real kernel until the test (the
  "kernel") has changed the files and reads it.
"""

import json
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ppharness import (  # noqa: E402
    BUILDDIR, HUB, MOUSE, ROOTHUB, XHCI, main, sanitizer_env, wait_until,
)
from test_sleep import INSPIRON_1501, SLEEP_CONFIG, SleepDaemon, SleepTestCase  # noqa: E402

PMCTL = os.path.join(BUILDDIR, 'src', 'pmctl')
STATS = '/sys/power/suspend_stats'
MSG_SLEEP_RECORD = '93d17684318b47619ab684159922780b'
RTC_SOURCE = 'virtual/wakeup/wakeup9'
# the xHCI's wakeup source: on kernels with /sys/class/wakeup (5.4+) every
# device's source is listed there too, and the daemon reads only the class
XHCI_SOURCE = 'pci0000:00/0000:00:14.0/wakeup/wakeup3'


class SleepReportTestCase(SleepTestCase):

    def setUp(self):
        super().setUp()
        self.journal = None
        self.set_stats(success=4, fail=0, last_failed_dev='', last_failed_step='',
                       last_failed_errno=0)
        self.make_file('/sys/power/mem_sleep', '[s2idle] deep\n')
        tb = self.laptop.tb
        tb.set_attribute(self.laptop.bat, 'energy_now', '50000000')
        tb.set_attribute(self.laptop.bat, 'energy_full', '60000000')
        tb.set_attribute(XHCI, 'power/wakeup', 'enabled')
        tb.set_attribute(XHCI, 'power/wakeup_count', '5')
        self.rtc = tb.add_device('wakeup', RTC_SOURCE, None,
                                 ['name', 'rtc_alarm', 'event_count', '2', 'wakeup_count', '0'], [])
        self.xhci_source = tb.add_device('wakeup', XHCI_SOURCE, None,
                                         ['name', '0000:00:14.0', 'event_count', '5',
                                          'wakeup_count', '0'], [])
        tb.set_attribute_link(self.xhci_source, 'device', '../../../0000:00:14.0')

    def set_stats(self, **values):
        for k, v in values.items():
            self.make_file(STATS + '/' + k, '%s\n' % v)

    def start(self, config=None, args=(), workdir=None):
        text = (config or SLEEP_CONFIG).format(helper=self.helper)
        d = SleepDaemon(self.laptop, config_text=text, args=args, bus_address=self.bus_address,
                        workdir=workdir)
        self.journal = d.attach_journal()
        self.daemons.append(d)
        d.start()
        self.wait_for_name()
        self.daemon = d
        return d

    def history(self, count=10):
        return self.call('GetSleepHistory', (count,), '(u)')[0]

    def pmctl(self, *args):
        env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'LANG': 'C.UTF-8',
               'DBUS_SYSTEM_BUS_ADDRESS': self.bus_address,
               # pmctl wakeups reads power/wakeup_count itself: the testbed's
               'LD_PRELOAD': os.environ['LD_PRELOAD'], 'UMOCKDEV_DIR': self.laptop.root,
               **sanitizer_env()}
        r = subprocess.run([PMCTL] + list(args), env=env, capture_output=True, text=True, timeout=30)
        return r.returncode, r.stdout, r.stderr

    def simulate_resume(self, hw_us=None, energy=None, charge=None, success=5, fail=0,
                        failed=None, wake=True):
        """What the kernel changes while the machine sleeps."""
        tb = self.laptop.tb
        self.set_stats(success=success, fail=fail)
        if failed:
            self.set_stats(last_failed_dev=failed[0], last_failed_step=failed[1],
                           last_failed_errno=failed[2])
        if hw_us is not None:
            self.set_stats(last_hw_sleep=hw_us, total_hw_sleep=1000 + hw_us)
        if energy is not None:
            tb.set_attribute(self.laptop.bat, 'energy_now', str(energy))
        if charge is not None:
            tb.set_attribute(self.laptop.bat, 'charge_now', str(charge))
        if wake:
            # one counter, two names (power/wakeup_count is the source's event_count)
            tb.set_attribute(XHCI, 'power/wakeup_count', '6')
            tb.set_attribute(self.xhci_source, 'event_count', '6')
            self.make_file('/sys/power/pm_wakeup_irq', '9\n')

    def logind_cycle(self, **resume):
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        self.prepare_for_sleep(True)
        self.wait_delay_inhibitors(0)
        self.simulate_resume(**resume)
        self.prepare_for_sleep(False)
        wait_until(lambda: self.last_sleep_signals(), 5, 'PropertiesChanged LastSleep')
        return self.history()

    def last_sleep_signals(self):
        return [a[1]['LastSleep'] for (s, a) in self.signals
                if s == 'PropertiesChanged' and 'LastSleep' in a[1]]


class TestLogindRecord(SleepReportTestCase):

    def test_ok_sleep_record_and_journal(self):
        self.set_stats(last_hw_sleep=0, total_hw_sleep=1000)
        self.start_logind()
        self.add_machine(INSPIRON_1501)
        self.start()
        self.wait_delay_inhibitors(1)
        self.assertEqual(self.get_property('LastSleep'), {})
        self.assertEqual(self.history(), [])
        records = self.logind_cycle(hw_us=100000, energy=49000000)
        self.assertEqual(len(records), 1)
        r = records[0]
        self.assertEqual(r['state'], 'mem')   # the suspend counters moved
        self.assertEqual(r['mem_sleep'], 's2idle')
        self.assertEqual(r['result'], 'ok')
        self.assertEqual((r['failed_step'], r['failed_device'], r['error']), ('', '', ''))
        self.assertGreater(r['duration_ms'], 0)
        now = time.time() * 1e6
        self.assertLess(abs(r['start'] - now), 60e6)
        self.assertGreaterEqual(r['end'], r['start'])
        # hardware sleep: total_hw_sleep grew by 100 ms
        self.assertEqual(r['hw_sleep_ms'], 100)
        self.assertAlmostEqual(r['hw_sleep_share'], min(1.0, 100.0 / r['duration_ms']), delta=0.02)
        self.assertTrue(r['hw_sleep_reliable'])
        # 1 Wh drawn over the sleep
        self.assertEqual((r['energy_before_mwh'], r['energy_after_mwh']), (50000.0, 49000.0))
        hours = r['duration_ms'] / 3600000.0
        self.assertAlmostEqual(r['drain_mw'], 1000.0 / hours, delta=1000.0 / hours * 0.01)
        self.assertAlmostEqual(r['drain_percent_per_hour'], r['drain_mw'] / 60000.0 * 100, places=3)
        self.assertEqual(r['wake_irq'], '9')
        self.assertEqual(r['woken_by'], [XHCI])
        self.assertEqual(len(r['awake_devices']), len(r['awake_blockers']))
        self.assertIn(XHCI, r['awake_devices'])
        # the hubs stay up for the mouse the test policy keeps on
        blockers = dict(zip(r['awake_devices'], r['awake_blockers']))
        self.assertEqual(blockers[HUB], MOUSE)
        self.assertEqual(blockers[ROOTHUB], MOUSE)
        self.assertEqual(blockers[MOUSE], '')
        # LastSleep is the record, announced
        self.assertEqual(self.get_property('LastSleep'), r)
        self.assertEqual(self.last_sleep_signals()[-1], r)
        # one journal entry
        entries = [e for e in self.journal.events() if e.get('MESSAGE_ID') == MSG_SLEEP_RECORD]
        self.assertEqual(len(entries), 1, entries)
        e = entries[0]
        self.assertEqual((e['SLEEP_STATE'], e['MEM_SLEEP'], e['SLEEP_RESULT']), ('mem', 's2idle', 'ok'))
        self.assertEqual(e['DURATION_MS'], str(r['duration_ms']))
        self.assertEqual(e['WOKEN_BY'], XHCI)
        self.assertEqual(e['WAKE_IRQ'], '9')
        self.assertNotIn('FAILED_STEP', e)

    def test_failed_sleep_charge_only_battery_no_hw_sleep(self):
        tb = self.laptop.tb
        # a battery that reports charge only: µAh × µV
        for attr in ('energy_now', 'energy_full'):
            os.unlink(self.laptop.path(self.laptop.bat + '/' + attr))
        tb.set_attribute(self.laptop.bat, 'charge_now', '4000000')
        tb.set_attribute(self.laptop.bat, 'charge_full', '5000000')
        tb.set_attribute(self.laptop.bat, 'voltage_now', '12000000')
        self.start_logind()
        self.start()
        self.wait_delay_inhibitors(1)
        r = self.logind_cycle(charge=3900000, success=4, fail=1,
                              failed=('0000:00:14.0', 'suspend', -16), wake=False)[0]
        self.assertEqual(r['result'], 'failed')
        self.assertEqual((r['failed_step'], r['failed_device'], r['failed_errno']),
                         ('suspend', '0000:00:14.0', -16))
        # no last_hw_sleep (kernel before 6.5): unknown
        self.assertEqual(r['hw_sleep_share'], -1.0)
        self.assertFalse(r['hw_sleep_reliable'])
        self.assertEqual((r['energy_before_mwh'], r['energy_after_mwh']), (48000.0, 46800.0))
        self.assertGreater(r['drain_mw'], 0)
        self.assertEqual(r['wake_irq'], '')
        self.assertEqual(r['woken_by'], [])
        e = [e for e in self.journal.events() if e.get('MESSAGE_ID') == MSG_SLEEP_RECORD][0]
        self.assertEqual((e['SLEEP_RESULT'], e['FAILED_STEP'], e['FAILED_DEVICE'], e['FAILED_ERRNO']),
                         ('failed', 'suspend', '0000:00:14.0', '-16'))
        self.assertEqual(e['PRIORITY'], '4')

    def test_counter_wrap(self):
        # success is an int the kernel printed with %d before 6.8: -1 is
        # 2^32 - 1, and the next suspend wraps it to 0
        self.set_stats(success=-1)
        self.start_logind()
        self.start()
        self.wait_delay_inhibitors(1)
        r = self.logind_cycle(success=0, wake=False)[0]
        self.assertEqual((r['state'], r['result']), ('mem', 'ok'))
        # fail wrapping from 2^32 - 1 while success stays: a failed sleep
        self.set_stats(fail=4294967295)
        self.signals.clear()
        self.wait_delay_inhibitors(1)
        r = self.logind_cycle(success=0, fail=0, failed=('1-1', 'suspend', -5), wake=False)[0]
        self.assertEqual((r['result'], r['failed_device']), ('failed', '1-1'))

    def test_kept_across_restart_bad_records_skipped(self):
        self.start_logind()
        d = self.start()
        self.wait_delay_inhibitors(1)
        first = self.logind_cycle(energy=49000000)[0]
        self.signals.clear()
        self.wait_delay_inhibitors(1)
        second = self.logind_cycle(energy=48000000, success=6)[0]
        self.assertEqual(self.history(10), [second, first])
        self.assertEqual(self.history(1), [second])
        path = os.path.join(d.state_dir, 'sleep-history')
        with open(path) as f:
            self.assertEqual(len([l for l in f if l.startswith('v1 ')]), 2)
        d.stop()
        # damage: a bad line in the middle, a truncated record at the end
        with open(path) as f:
            lines = f.read().splitlines(True)
        lines.insert(2, 'v1 start=12 duration_ms=x state=mem result=ok\n')
        lines.append(lines[1][:40])
        with open(path, 'w') as f:
            f.write(''.join(lines))
        self.start(workdir=d.workdir)
        self.assertEqual(self.history(10), [second, first])
        self.assertEqual(self.get_property('LastSleep'), second)
        log = self.daemon.read_log()
        self.assertIn('line 3: bad value for duration_ms: record skipped', log)
        self.assertIn('line 5: truncated record: record skipped', log)


class TestKernelRecord(SleepReportTestCase):

    def daemon_has_open(self, path):
        fd_dir = '/proc/%d/fd' % self.daemon.proc.pid
        for fd in os.listdir(fd_dir):
            try:
                if os.readlink(os.path.join(fd_dir, fd)) == path:
                    return True
            except FileNotFoundError:
                pass
        return False

    def kernel(self, on_sleep):
        """/sys/power/state as a FIFO served by a thread: the daemon's reads
        get the offered states, its write of the state blocks until
        @on_sleep() has changed the files (the sleep)."""
        os.unlink(self.power_state)
        os.mkfifo(self.power_state)
        result = {}

        def serve():
            try:
                # the daemon reads the offered states, then the current value;
                # each read has its own writer: the next one only once the
                # daemon closed the FIFO (else both would land in one read)
                for _ in range(2):
                    with open(self.power_state, 'w') as f:
                        f.write('freeze mem disk\n')
                    deadline = time.monotonic() + 10
                    while self.daemon_has_open(self.power_state):
                        if time.monotonic() > deadline:
                            raise AssertionError('the daemon keeps /sys/power/state open')
                        time.sleep(0.005)
                deadline = time.monotonic() + 10
                while 'Writing mem to /sys/power/state' not in self.daemon.read_log():
                    if time.monotonic() > deadline:
                        raise AssertionError('the daemon never wrote /sys/power/state')
                    time.sleep(0.01)
                on_sleep()
                with open(self.power_state) as f:
                    result['written'] = f.read()
            except Exception as e:   # reported by the test
                result['error'] = e
        t = threading.Thread(target=serve, daemon=True)
        t.start()
        return t, result

    def test_kernel_path_record(self):
        self.set_stats(last_hw_sleep=0, total_hw_sleep=1000, max_hw_sleep=4294967295)
        self.add_machine(INSPIRON_1501)
        self.start(args=['--no-logind'])
        self.subscribe('PropertiesChanged', 'org.freedesktop.DBus.Properties')
        t, result = self.kernel(lambda: self.simulate_resume(hw_us=20000, energy=49500000))
        self.call('Suspend', (False,), '(b)', timeout=15000)
        t.join(10)
        self.assertNotIn('error', result)
        self.assertEqual(result['written'], 'mem')
        r = self.history()[0]
        self.assertEqual((r['state'], r['mem_sleep'], r['result']), ('mem', 's2idle', 'ok'))
        self.assertEqual(r['hw_sleep_ms'], 20)
        self.assertTrue(r['hw_sleep_reliable'])
        self.assertEqual(r['energy_after_mwh'], 49500.0)
        self.assertEqual(r['woken_by'], [XHCI])
        self.assertEqual(r['wake_irq'], '9')
        wait_until(lambda: self.last_sleep_signals(), 5, 'PropertiesChanged LastSleep')
        self.assertEqual(self.get_property('LastSleep'), r)
        # the helper ran both phases around it
        self.assertEqual([line[0] for line in self.helper_lines()], ['suspend', 'resume'])

    def test_kernel_path_failed_sleep(self):
        self.add_machine(INSPIRON_1501)
        self.start(args=['--no-logind'])
        t, result = self.kernel(lambda: self.simulate_resume(
            success=4, fail=1, failed=('1-1.2', 'suspend_noirq', -5), wake=False))
        self.call('Suspend', (False,), '(b)', timeout=15000)
        t.join(10)
        self.assertNotIn('error', result)
        r = self.history()[0]
        self.assertEqual((r['result'], r['failed_step'], r['failed_device'], r['failed_errno']),
                         ('failed', 'suspend_noirq', '1-1.2', -5))

    def test_bus_answers_while_state_write_blocks(self):
        """The write of /sys/power/state returns only after resume (here:
        once the test reads the FIFO): D-Bus keeps answering meanwhile,
        the write being off the main loop."""
        self.add_machine(INSPIRON_1501)
        self.start(args=['--no-logind'])
        quirks = self.call('GetVideoQuirks')
        suspend_returned = threading.Event()
        during = {}

        def asleep():
            # the daemon logged 'Writing mem to /sys/power/state' and nobody
            # reads the FIFO: its write cannot have returned
            try:
                during['quirks'] = self.call('GetVideoQuirks', timeout=5000)
                during['backend'] = self.get_property('Backend')
            except Exception as e:   # asserted below; the FIFO is read anyway
                during['error'] = e
            during['suspend_returned'] = suspend_returned.is_set()

        t, result = self.kernel(asleep)
        self.call('Suspend', (False,), '(b)', timeout=15000)
        suspend_returned.set()
        t.join(10)
        self.assertNotIn('error', result)
        self.assertNotIn('error', during)
        self.assertEqual(during, {'quirks': quirks, 'backend': 'kernel',
                                  'suspend_returned': False})
        self.assertEqual(result['written'], 'mem')
        self.assertEqual(self.history()[0]['result'], 'ok')

    def test_read_only_calls_open_to_everyone(self):
        self.add_machine(INSPIRON_1501)
        self.start(args=['--no-logind'])
        t, result = self.kernel(lambda: self.simulate_resume())
        self.call('Suspend', (False,), '(b)', timeout=15000)
        t.join(10)
        r = self.call_as('nobody', 'GetSleepHistory', '(u)', [5])
        self.assertTrue(r['ok'], r)
        self.assertEqual(len(r['result'][0]), 1)
        self.assertEqual(r['result'][0][0]['result'], 'ok')
        # CheckSleep reads /sys/power/state: a file again, not the FIFO
        os.unlink(self.power_state)
        self.make_file('/sys/power/state', 'freeze mem disk\n')
        r = self.call_as('nobody', 'CheckSleep')
        self.assertTrue(r['ok'], r)
        self.assertEqual([row[0] for row in r['result'][0]], ['s2idle', 'shallow', 'deep', 'hibernate'])

    def test_dry_run_records_nothing(self):
        self.start(args=['--no-logind', '--dry-run'])
        self.call('Suspend', (False,), '(b)', timeout=15000)
        self.assertEqual(self.history(), [])


class TestPmctlSleepReport(SleepReportTestCase):

    def sleep_once(self, **resume):
        self.start_logind()
        self.start()
        self.wait_delay_inhibitors(1)
        return self.logind_cycle(**resume)[0]

    def test_sleep_history_table_last_json(self):
        r = self.sleep_once(hw_us=100000, energy=49000000)
        rc, out, err = self.pmctl('sleep-history')
        self.assertEqual(rc, 0, err)
        rows = [line.split('\t') for line in out.splitlines()]
        self.assertEqual(len(rows), 1, out)
        when, length, mode, hw, drain, percent, woken, result = rows[0]
        self.assertEqual(mode, 'mem/s2idle')
        self.assertEqual(hw, '%.0f%%' % (r['hw_sleep_share'] * 100))
        self.assertEqual(drain, '%.0f mW' % r['drain_mw'])
        self.assertEqual(percent, '%.2f' % r['drain_percent_per_hour'])
        self.assertEqual((woken, result), (XHCI, 'ok'))
        # --last: every detail
        rc, out, err = self.pmctl('sleep-history', '--last')
        self.assertEqual(rc, 0, err)
        pairs = [line.split('\t', 1) for line in out.splitlines()]
        fields = dict(pairs)
        self.assertEqual(fields['State'], 'mem')
        self.assertEqual(fields['Mem sleep'], 's2idle')
        self.assertEqual(fields['Result'], 'ok')
        self.assertEqual(fields['Wake IRQ'], '9')
        self.assertEqual(fields['Woken by'], XHCI)
        self.assertEqual(fields['Energy'], '50000 mWh -> 49000 mWh')
        self.assertEqual(fields['Hardware sleep'],
                         '%.1f%% (100 ms)' % (r['hw_sleep_share'] * 100))
        awake = [v for (k, v) in pairs if k == 'Awake device']
        self.assertEqual(len(awake), len(r['awake_devices']))
        self.assertIn(XHCI, [a.split(' ')[0] for a in awake])
        # --json: the records as the daemon has them
        rc, out, err = self.pmctl('--json', 'sleep-history')
        self.assertEqual(rc, 0, err)
        self.assertEqual(json.loads(out), [r])
        rc, out, err = self.pmctl('sleep-history', '--last', '--json')
        self.assertEqual(json.loads(out), r)
        rc, out, err = self.pmctl('sleep-history', '-n', '0')
        self.assertEqual(rc, 2)
        self.assertIn('--count must be between 1 and 100', err)

    def test_wakeups(self):
        self.sleep_once()
        rc, out, err = self.pmctl('--json', 'wakeups')
        self.assertEqual(rc, 0, err)
        data = json.loads(out)
        xhci = [d for d in data['devices'] if d['path'] == XHCI]
        self.assertEqual(len(xhci), 1, data)
        self.assertEqual((xhci[0]['wakeup'], xhci[0]['events']), ('enabled', 6))
        self.assertEqual(data['woken_by'][0]['source'], XHCI)
        self.assertEqual(data['woken_by'][0]['sleeps'], 1)
        # the mouse's wakeup (disabled, not set by the test policy)
        mouse = [d for d in data['devices'] if d['path'].endswith('/1-1.1')][0]
        self.assertEqual((mouse['wakeup'], mouse['layer']), ('disabled', ''))
        rc, out, err = self.pmctl('wakeups')
        self.assertEqual(rc, 0, err)
        self.assertIn('%s\tpci\tenabled\t6\t' % XHCI, out)

    def test_wakeup_layer_from_config(self):
        self.start(config=SLEEP_CONFIG + '\n[Class usb-hid]\nWakeup=enabled\n')
        rc, out, err = self.pmctl('--json', 'wakeups')
        self.assertEqual(rc, 0, err)
        mouse = [d for d in json.loads(out)['devices'] if d['path'].endswith('/1-1.1')][0]
        self.assertEqual((mouse['wakeup'], mouse['layer']), ('enabled', 'class'))
        self.assertIn('powerpolicy.conf:', mouse['origin'])

    def test_sleep_check(self):
        self.make_file('/sys/power/resume', '0:0\n')
        self.start(config=SLEEP_CONFIG + 'MemSleep=deep\n')
        rc, out, err = self.pmctl('--json', 'sleep-check')
        self.assertEqual(rc, 0, err)
        rows = {r['state']: r for r in json.loads(out)}
        self.assertEqual(list(rows), ['s2idle', 'shallow', 'deep', 'hibernate'])
        self.assertTrue(rows['s2idle']['available'])
        self.assertEqual(rows['s2idle']['used_by'], '')
        self.assertFalse(rows['shallow']['available'])
        self.assertIn('not in /sys/power/mem_sleep', rows['shallow']['reason'])
        self.assertEqual((rows['deep']['available'], rows['deep']['used_by']), (True, 'suspend'))
        self.assertIn('MemSleep=deep', rows['deep']['reason'])
        self.assertFalse(rows['hibernate']['available'])
        self.assertIn('no resume device', rows['hibernate']['reason'])
        # a resume device and enough swap
        self.make_file('/sys/power/resume', '8:2\n')
        self.make_file('/proc/swaps', 'Filename\tType\tSize\tUsed\tPriority\n'
                       '/dev/sda2 partition\t8388604\t0\t-2\n')
        self.make_file('/proc/meminfo', 'MemTotal: 8000000 kB\nActive(anon): 1000000 kB\n'
                       'Inactive(anon): 500000 kB\n')
        rc, out, err = self.pmctl('sleep-check')
        self.assertEqual(rc, 0, err)
        lines = {line.split('\t')[0]: line.split('\t') for line in out.splitlines()}
        self.assertEqual(lines['hibernate'][1:3], ['yes', 'hibernate'])
        # too little swap, with the reason
        self.make_file('/proc/meminfo', 'Active(anon): 8000000 kB\nInactive(anon): 1000000 kB\n')
        rc, out, err = self.pmctl('sleep-check')
        lines = {line.split('\t')[0]: line.split('\t') for line in out.splitlines()}
        self.assertEqual(lines['hibernate'][1], 'no')
        self.assertIn('not enough free swap', lines['hibernate'][3])

    def test_metrics(self):
        r = self.sleep_once(hw_us=100000, energy=49000000, success=5, fail=2)
        rc, out, err = self.pmctl('metrics')
        self.assertEqual(rc, 0, err)
        samples = dict(line.rsplit(' ', 1) for line in out.splitlines() if line and line[0] != '#')
        self.assertAlmostEqual(float(samples['powerpolicy_last_sleep_drain_watts']),
                               r['drain_mw'] / 1000, delta=0.001)
        self.assertAlmostEqual(float(samples['powerpolicy_last_sleep_hardware_sleep_ratio']),
                               r['hw_sleep_share'], places=6)
        self.assertEqual(samples['powerpolicy_sleep_failures_total'], '2')
        check = subprocess.run(['/usr/bin/python3', os.path.join(os.path.dirname(__file__), '..',
                                                                 'unit', 'check-metrics.py')],
                               input=out, capture_output=True, text=True)
        self.assertIn(check.returncode, (0, 77), check.stdout + check.stderr)


if __name__ == '__main__':
    main()
