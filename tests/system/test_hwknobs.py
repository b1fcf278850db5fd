#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System tests: the hardware knobs of issue 19 part 2.

The testbed files are what the kernel shows:
- /sys/module/pcie_aspm/parameters/policy lists the choices with the
  current one in brackets ("[default] performance powersave
  powersupersave"); a testbed file written "powersave" then reads
  "powersave", which the daemon must take as the same choice;
- link/{l0s,l1,l1_1,l1_2}_aspm and link/clkpm of a PCIe endpoint read 0 or
  1 (kernel 5.5+; absent when the firmware keeps ASPM);
- an NVMe PCI function (driver nvme) has its controller below it,
  nvme/nvme0, with model and power/pm_qos_latency_tolerance_us (the
  nvme driver's 100000 by default);
- an eDP connector of amdgpu (card0-eDP-1) has amdgpu/panel_power_savings
  (0..4, kernel 6.9+).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ppharness import (  # noqa: E402
    AHCI, BAT, PCI, SCSI_HOST, STORAGE, TEST_CONFIG, PowerPolicyTestCase, WriteWatch, main,
    wait_until,
)
from test_sleep import SLEEP_CONFIG, SleepTestCase  # noqa: E402

ASPM_POLICY = '/sys/module/pcie_aspm/parameters/policy'
ASPM_CHOICES = ['default', 'performance', 'powersave', 'powersupersave']
WIFI = PCI + '/0000:00:1c.0/0000:02:00.0'
NIC = PCI + '/0000:00:1f.6'
NVME = PCI + '/0000:00:1d.0/0000:03:00.0'
NVME_CTRL = NVME + '/nvme/nvme0'
APST = 'nvme/nvme0/power/pm_qos_latency_tolerance_us'
GPU = PCI + '/0000:00:08.1/0000:04:00.0'
EDP = GPU + '/drm/card0/card0-eDP-1'
PANEL = 'amdgpu/panel_power_savings'
LINK_FILES = ['link/l0s_aspm', 'link/l1_aspm', 'link/l1_1_aspm', 'link/l1_2_aspm', 'link/clkpm']

ASPM_CONFIG = TEST_CONFIG + """
[Module pcie_aspm:battery]
policy=powersave

[Class wifi]
AspmL1=false
AspmClockPm=true
"""


def bracketed(chosen):
    return ' '.join('[%s]' % c if c == chosen else c for c in ASPM_CHOICES)


class KnobsTestCase(PowerPolicyTestCase):

    def make_file(self, path, text):
        full = self.laptop.path(path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w') as f:
            f.write(text)
        return full

    def add_pci(self, name, attrs=(), props=(), driver=None):
        a = ['power/control', 'on', 'power/runtime_status', 'active'] + list(attrs)
        p = list(props)
        if driver:
            p += ['DRIVER', driver]
        path = self.laptop.add('pci', name, None, a, p)
        if driver:
            up = '../' * (path.count('/') - 1)
            self.laptop.tb.set_attribute_link(path, 'driver', up + 'bus/pci/drivers/' + driver)
        return path

    def add_wifi(self, with_link=True):
        attrs = ['class', '0x028000', 'vendor', '0x8086', 'device', '0x2723']
        if with_link:
            for f in LINK_FILES:
                attrs += [f, '1']
        return self.add_pci('pci0000:00/0000:00:1c.0/0000:02:00.0', attrs,
                            ['POWERPOLICY_CLASS', 'wifi'], driver='iwlwifi')

    def rows(self, device):
        rows = self.call('Explain', (device,), '(s)')[0]
        return {r[0]: tuple(r[1:]) for r in rows}

    def changes(self):
        return {(p, a): (o, c) for (p, a, o, c) in self.call('ListChanges')[0]}


class TestAspm(KnobsTestCase):

    def test_policy_per_layer_bracket_format(self):
        """The pcie_aspm policy follows the layers; the kernel's bracketed
        list is read as the word chosen, journalled, and put back."""
        self.add_wifi()
        policy = self.make_file(ASPM_POLICY, bracketed('default') + '\n')
        self.start_daemon(config_text=ASPM_CONFIG)
        self.assertEqual(self.laptop.read(ASPM_POLICY), bracketed('default'))
        self.laptop.set_ac(False)
        wait_until(lambda: self.laptop.read(ASPM_POLICY) == 'powersave', 5, 'policy powersave')
        self.assertEqual(self.changes()[(ASPM_POLICY, 'policy')], ('default', 'powersave'))
        row = self.rows(WIFI)[ASPM_POLICY]
        self.assertEqual(row[:3], ('powersave', 'powersave', 'battery'))
        # back on AC: the original word, not the list
        self.laptop.set_ac(True)
        wait_until(lambda: self.laptop.read(ASPM_POLICY) == 'default', 5, 'policy default again')
        row = self.rows(WIFI)[ASPM_POLICY]
        self.assertEqual(row[:3], ('default', '', 'class'))
        # on battery again, then stopped: the original comes back
        self.laptop.set_ac(False)
        wait_until(lambda: self.laptop.read(ASPM_POLICY) == 'powersave', 5, 'policy powersave')
        self.daemons[-1].stop()
        self.assertEqual(self.laptop.read(ASPM_POLICY), 'default')
        self.assertTrue(os.path.exists(policy))

    def test_policy_already_chosen_is_not_written(self):
        """The kernel's list with the wanted choice in brackets is the
        wanted value: nothing is written or journalled."""
        self.add_wifi()
        self.make_file(ASPM_POLICY, bracketed('powersave') + '\n')
        self.laptop.set_ac(False)
        self.start_daemon(config_text=ASPM_CONFIG)
        self.assertEqual(self.laptop.read(ASPM_POLICY), bracketed('powersave'))
        self.assertNotIn((ASPM_POLICY, 'policy'), self.changes())
        self.assertEqual(self.rows(WIFI)[ASPM_POLICY][:3], ('powersave', 'powersave', 'battery'))

    def test_link_states_and_restore(self):
        """AspmL1=false turns the L1 substates off with it (the kernel
        would); every original comes back on exit."""
        self.add_wifi()
        self.start_daemon(config_text=ASPM_CONFIG)
        self.wait_attr(WIFI, 'link/l1_aspm', '0')
        self.wait_attr(WIFI, 'link/l1_1_aspm', '0')
        self.wait_attr(WIFI, 'link/l1_2_aspm', '0')
        self.assertEqual(self.attr(WIFI, 'link/clkpm'), '1')
        self.assertEqual(self.attr(WIFI, 'link/l0s_aspm'), '1')
        rows = self.rows(WIFI)
        self.assertEqual(rows['link/l1_aspm'][:3], ('0', '0', 'class'))
        self.assertIn('AspmL1=0', rows['link/l1_2_aspm'][3])
        self.assertNotIn('link/l0s_aspm', rows)
        self.daemons[-1].stop()
        for f in ('link/l1_aspm', 'link/l1_1_aspm', 'link/l1_2_aspm'):
            self.assertEqual(self.attr(WIFI, f), '1', f)

    def test_firmware_controls_aspm(self):
        """No link/ anywhere: the firmware keeps ASPM. Explain says so, and
        neither the policy nor the link states are written."""
        self.add_wifi(with_link=False)
        self.make_file(ASPM_POLICY, bracketed('default') + '\n')
        self.laptop.set_ac(False)
        self.start_daemon(config_text=ASPM_CONFIG)
        rows = self.rows(WIFI)
        for f in ('link/l1_aspm', 'link/l1_1_aspm', 'link/l1_2_aspm', 'link/clkpm'):
            self.assertEqual(rows[f][:2], ('', ''), f)
            self.assertIn('firmware controls ASPM', rows[f][3])
        self.assertEqual(rows[ASPM_POLICY][1], '')
        self.assertIn('firmware controls ASPM', rows[ASPM_POLICY][3])
        self.assertEqual(self.laptop.read(ASPM_POLICY), bracketed('default'))
        self.assertEqual(self.changes(), {k: v for k, v in self.changes().items()
                                          if k[0] != ASPM_POLICY})
        self.assertFalse(os.path.exists(self.laptop.path(WIFI + '/link')))

    def test_dry_run(self):
        self.add_wifi()
        self.make_file(ASPM_POLICY, bracketed('default') + '\n')
        self.laptop.set_ac(False)
        d = self.start_daemon(config_text=ASPM_CONFIG, args=['--dry-run'])
        wait_until(lambda: "would write 'powersave'" in d.read_log(), 5, 'dry-run log')
        self.assertIn("would write '0' to %s/link/l1_aspm" % WIFI, d.read_log())
        self.assertEqual(self.laptop.read(ASPM_POLICY), bracketed('default'))
        self.assertEqual(self.attr(WIFI, 'link/l1_aspm'), '1')


NVME_CONFIG = TEST_CONFIG + """
[Class nvme]
Control=on
ApstQuirks=true
[Class nvme:battery]
ApstLatencyToleranceUs=50000
"""


class TestNvmeApst(KnobsTestCase):

    def add_nvme(self, vendor, device, model):
        nvme = self.add_pci('pci0000:00/0000:00:1d.0/0000:03:00.0',
                            ['class', '0x010802', 'vendor', vendor, 'device', device],
                            ['POWERPOLICY_CLASS', 'nvme'], driver='nvme')
        ctrl = self.laptop.add('nvme', 'nvme/nvme0', nvme,
                               ['model', model, 'firmware_rev', 'S5Z42105',
                                'power/pm_qos_latency_tolerance_us', '100000',
                                'power/control', 'auto'], [])
        self.assertEqual(ctrl, NVME_CTRL)
        return nvme

    def test_quirk_turns_apst_off_and_restores(self):
        self.add_nvme('0x2646', '0x2263', 'KINGSTON SA2000M8500G')
        self.start_daemon(config_text=NVME_CONFIG)
        self.wait_attr(NVME, APST, '0')
        row = self.rows(NVME)[APST]
        self.assertEqual(row[:3], ('0', '0', 'quirk'))
        self.assertIn('NVMe APST quirk kingston-a2000', row[3])
        # on battery too: the quirk is above the layers
        self.laptop.set_ac(False)
        wait_until(lambda: self.rows(NVME)[APST][2] == 'quirk', 5, 'quirk on battery')
        self.assertEqual(self.attr(NVME, APST), '0')
        # the controller device itself is not managed: nothing else written
        self.assertEqual(self.attr(NVME, 'nvme/nvme0/power/control'), 'auto')
        self.daemons[-1].stop()
        self.assertEqual(self.attr(NVME, APST), '100000')

    def test_layers_without_quirk(self):
        self.add_nvme('0x144d', '0xa80a', 'Samsung SSD 980 PRO 1TB')
        self.start_daemon(config_text=NVME_CONFIG)
        self.assertNotIn(APST, self.rows(NVME))
        self.laptop.set_ac(False)
        self.wait_attr(NVME, APST, '50000')
        self.assertEqual(self.rows(NVME)[APST][:3], ('50000', '50000', 'battery'))
        self.laptop.set_ac(True)
        self.wait_attr(NVME, APST, '100000')

    def test_quirk_turned_off(self):
        self.add_nvme('0x144d', '0xa802', 'SM951 NVMe SAMSUNG 256GB')
        self.laptop.set_ac(False)
        self.start_daemon(config_text=NVME_CONFIG.replace('ApstQuirks=true', 'ApstQuirks=false'))
        self.wait_attr(NVME, APST, '50000')
        self.assertEqual(self.rows(NVME)[APST][2], 'battery')

    def test_no_controller_explained(self):
        self.add_pci('pci0000:00/0000:00:1d.0/0000:03:00.0',
                     ['class', '0x010802', 'vendor', '0x2646', 'device', '0x2263'],
                     ['POWERPOLICY_CLASS', 'nvme'], driver='nvme')
        self.laptop.set_ac(False)
        self.start_daemon(config_text=NVME_CONFIG)
        row = self.rows(NVME)['nvme/*/power/pm_qos_latency_tolerance_us']
        self.assertEqual(row[:2], ('', ''))
        self.assertIn('no NVMe controller', row[3])


PANEL_CONFIG = TEST_CONFIG.replace('[Daemon]\n', '[Daemon]\nLowBatteryPercent=20\n', 1) + """
[Class panel]
PanelPowerSavings=0
[Class panel:battery]
PanelPowerSavings=1
[Class panel:low-battery]
PanelPowerSavings=3
"""


class TestPanelPowerSavings(KnobsTestCase):

    def add_panel(self, with_file=True):
        gpu = self.add_pci('pci0000:00/0000:00:08.1/0000:04:00.0',
                           ['class', '0x030000', 'vendor', '0x1002', 'device', '0x1681'],
                           ['POWERPOLICY_CLASS', 'pci-gpu'], driver='amdgpu')
        card = self.laptop.add('drm', 'drm/card0', gpu, ['dev', '226:0'], ['DEVTYPE', 'drm_minor'])
        attrs = ['status', 'connected', 'enabled', 'enabled']
        if with_file:
            attrs += [PANEL, '0']
        edp = self.laptop.add('drm', 'card0-eDP-1', card, attrs,
                              ['DEVTYPE', 'drm_connector', 'POWERPOLICY_CLASS', 'panel'])
        self.assertEqual(edp, EDP)
        return edp

    def panel_changes(self):
        return [a for (s, a) in self.signals if s == 'DeviceChanged' and a[0] == EDP]

    def test_levels_follow_battery_written_only_on_change(self):
        self.add_panel()
        self.laptop.tb.set_attribute(BAT, 'capacity', '80')
        self.start_daemon(config_text=PANEL_CONFIG)
        self.subscribe('DeviceChanged')
        self.assertEqual(self.rows(EDP)[PANEL][:3], ('0', '0', 'class'))
        self.laptop.set_ac(False)
        self.wait_attr(EDP, PANEL, '1')
        wait_until(lambda: len(self.panel_changes()) == 1, 5, 'one DeviceChanged')
        # a full pass that changes nothing on the panel writes nothing
        self.call('Reload')
        self.call('Explain', (EDP,), '(s)')
        self.assertEqual(len(self.panel_changes()), 1, self.panel_changes())
        # low battery: 3
        self.laptop.tb.set_attribute(BAT, 'capacity', '10')
        self.laptop.tb.uevent(BAT, 'change')
        self.wait_attr(EDP, PANEL, '3')
        self.assertEqual(self.rows(EDP)[PANEL][2], 'low-battery')
        self.laptop.set_ac(True)
        self.wait_attr(EDP, PANEL, '0')
        self.daemons[-1].stop()
        self.assertEqual(self.attr(EDP, PANEL), '0')

    def test_panel_without_amdgpu_file(self):
        self.add_panel(with_file=False)
        self.laptop.set_ac(False)
        self.start_daemon(config_text=PANEL_CONFIG)
        row = self.rows(EDP)[PANEL]
        self.assertEqual(row[:2], ('', ''))
        self.assertIn('6.9', row[3])
        self.assertFalse(os.path.exists(self.laptop.path(EDP + '/' + PANEL)))


AROUND_SLEEP_CONFIG = SLEEP_CONFIG + """
[Module pcie_aspm:battery]
policy=powersave
"""


class TestAroundSleep(SleepTestCase):

    def setUp(self):
        super().setUp()
        self.policy = self.make_file(ASPM_POLICY, bracketed('default') + '\n')
        # a PCIe endpoint whose link the OS controls
        self.laptop.add('pci', 'pci0000:00/0000:00:1c.0/0000:02:00.0', None,
                        ['link/l1_aspm', '1', 'power/control', 'on'], [])

    def test_ahci_and_aspm_back_before_release_and_restored(self):
        self.start_logind()
        self.laptop.set_ac(False)
        # the SATA host (class sata-host, RestoreDefaultsClasses=) with
        # runtime PM allowed, as the kernel may leave it
        self.make_file(SCSI_HOST + '/power/control', 'auto\n')
        self.start(AROUND_SLEEP_CONFIG)
        self.wait_delay_inhibitors(1)
        self.wait_attr(AHCI, 'power/control', 'auto')
        wait_until(lambda: self.read_file(self.policy) == 'powersave', 5, 'policy powersave')
        self.prepare_for_sleep(True)
        self.wait_delay_inhibitors(0)
        # written before the inhibitor went
        self.assertEqual(self.attr(AHCI, 'power/control'), 'on')
        self.assertEqual(self.attr(SCSI_HOST, 'power/control'), 'on')
        self.assertEqual(self.read_file(self.policy), 'default')
        log = self.daemon.read_log()
        self.assertLess(log.index('Before sleep: AHCI runtime PM on'),
                        log.index('delay inhibitor released'))
        rows = {r[0]: r[1:] for r in self.call('Explain', (AHCI,), '(s)')[0]}
        self.assertEqual(rows['power/control'][:3], ('on', 'on', 'sleep'))
        self.prepare_for_sleep(False)
        self.wait_attr(AHCI, 'power/control', 'auto')
        # no layer sets it: back to what the kernel had
        self.wait_attr(SCSI_HOST, 'power/control', 'auto')
        wait_until(lambda: self.read_file(self.policy) == 'powersave', 5, 'policy powersave again')
        self.wait_delay_inhibitors(1)
        # the journal still holds the true originals
        self.daemon.stop()
        self.assertEqual(self.attr(AHCI, 'power/control'), 'on')
        self.assertEqual(self.read_file(self.policy), 'default')

    def sys_files(self):
        """Every plain file of the testbed's devices and modules."""
        files = []
        for top in ('sys/devices', 'sys/module'):
            for dirpath, _dirs, names in os.walk(os.path.join(self.laptop.root, top)):
                files += [os.path.join(dirpath, n) for n in names
                          if os.path.isfile(os.path.join(dirpath, n)) and
                          not os.path.islink(os.path.join(dirpath, n))]
        return files

    def sleep_and_watch(self, asleep):
        """A logind sleep: @asleep() between the delay inhibitor's release
        and PrepareForSleep(false), with a value changed behind the
        daemon's back meanwhile (no uevent); returns the files written from
        PrepareForSleep(false) until the daemon took its delay inhibitor
        again (the end of its resume)."""
        self.prepare_for_sleep(True)
        self.wait_delay_inhibitors(0)
        asleep()
        self.laptop.write(STORAGE + '/power/autosuspend_delay_ms', '7000')
        watch = WriteWatch(self.sys_files())
        self.addCleanup(watch.close)
        self.prepare_for_sleep(False)
        self.wait_delay_inhibitors(1)
        wait_until(lambda: len(watch.written()) >= 3, 5, 'the sleep layer undone (%r)' % watch.written())
        self.barrier()
        root = self.laptop.root
        return {f[len(root):] for f in watch.written()}

    def test_after_suspend_only_the_sleep_layer_rewritten(self):
        self.start_logind()
        self.laptop.set_ac(False)
        self.make_file(SCSI_HOST + '/power/control', 'auto\n')
        stats = self.make_file('/sys/power/suspend_stats/success', '0\n')
        self.make_file('/sys/power/suspend_stats/fail', '0\n')
        self.start(AROUND_SLEEP_CONFIG)
        self.wait_delay_inhibitors(1)
        self.wait_attr(STORAGE, 'power/autosuspend_delay_ms', '2000')

        def suspended():
            with open(stats, 'w') as f:
                f.write('1\n')
        written = self.sleep_and_watch(suspended)
        # what the sleep layer changed, nothing else: the kernel keeps its
        # settings across a suspend, so no full pass
        self.assertEqual(written, {AHCI + '/power/control', SCSI_HOST + '/power/control',
                                   ASPM_POLICY})
        self.assertEqual(self.attr(AHCI, 'power/control'), 'auto')
        self.assertEqual(self.attr(SCSI_HOST, 'power/control'), 'auto')
        self.assertEqual(self.read_file(self.policy), 'powersave')
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '7000')
        log = self.daemon.read_log()
        self.assertNotIn('re-applying the whole policy', log)
        # the journal's account: the sleep layer's writes, and their undoing
        self.assertIn('Policy applied (sleep): 3 writes, 0 failed', log)
        self.assertIn('Policy applied (resume): %d writes, 0 failed' % len(written), log)

    def test_after_hibernation_full_pass(self):
        self.start_logind()
        self.laptop.set_ac(False)
        self.make_file('/sys/power/suspend_stats/success', '0\n')
        self.make_file('/sys/power/suspend_stats/fail', '0\n')
        self.start(AROUND_SLEEP_CONFIG)
        self.wait_delay_inhibitors(1)
        self.wait_attr(STORAGE, 'power/autosuspend_delay_ms', '2000')
        # asked of logind through the daemon: a hibernation (the kernel's
        # suspend counters do not move)
        self.call('Hibernate', (False,), '(b)')
        self.assertEqual(len(self.logind.GetMethodCalls('Hibernate')), 1)
        written = self.sleep_and_watch(lambda: None)
        self.assertIn(STORAGE + '/power/autosuspend_delay_ms', written)
        self.assertEqual(self.attr(STORAGE, 'power/autosuspend_delay_ms'), '2000')
        self.assertEqual(self.attr(AHCI, 'power/control'), 'auto')
        self.assertIn('After resume from hibernation: re-applying the whole policy',
                      self.daemon.read_log())

    def test_turned_off(self):
        self.start_logind()
        self.laptop.set_ac(False)
        self.start(AROUND_SLEEP_CONFIG.replace('[Sleep]\n', '[Sleep]\nRestoreDefaultsBeforeSleep=false\n'))
        self.wait_delay_inhibitors(1)
        self.wait_attr(AHCI, 'power/control', 'auto')
        self.prepare_for_sleep(True)
        self.wait_delay_inhibitors(0)
        self.assertEqual(self.attr(AHCI, 'power/control'), 'auto')
        self.assertEqual(self.read_file(self.policy), 'powersave')

    def test_kernel_path(self):
        """Without logind: the defaults before /sys/power/state, the policy
        after."""
        self.laptop.set_ac(False)
        self.start(AROUND_SLEEP_CONFIG)
        self.wait_attr(AHCI, 'power/control', 'auto')
        self.call('Suspend', (False,), '(b)', timeout=10000)
        self.assertEqual(self.read_file(self.power_state), 'mem')
        log = self.daemon.read_log()
        self.assertLess(log.index('Before sleep: AHCI runtime PM on'),
                        log.index('Writing mem to'))
        self.assertIn('%s/power/control = on' % AHCI, log)
        self.wait_attr(AHCI, 'power/control', 'auto')
        self.assertEqual(self.read_file(self.policy), 'powersave')

    def test_dry_run(self):
        self.start_logind()
        self.laptop.set_ac(False)
        self.laptop.write(AHCI + '/power/control', 'auto')
        self.start(AROUND_SLEEP_CONFIG, args=['--dry-run'])
        self.wait_delay_inhibitors(1)
        self.prepare_for_sleep(True)
        self.wait_delay_inhibitors(0)
        self.assertIn("would write 'on' to %s/power/control" % AHCI, self.daemon.read_log())
        self.assertEqual(self.attr(AHCI, 'power/control'), 'auto')


if __name__ == '__main__':
    main()
