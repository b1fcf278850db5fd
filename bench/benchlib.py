# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared helpers of the powerpolicy benchmark: a umockdev testbed shaped
like a real machine, reset of the attributes between runs, and the safety
checks that keep every tool away from the real /sys.

Import only from a process running under umockdev-wrapper (see
ensure_umockdev_preload()).
"""

import ctypes
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile

PYTHON = '/usr/bin/python3'
PRELOAD = 'libumockdev-preload.so'
BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
SRC_DIR = os.path.dirname(BENCH_DIR)

# What the policy in bench.conf writes, and what the equivalent TLP
# settings are; floor-walker.c carries the same table.
POLICY = {
    'pci': {'power/control': 'auto'},
    'usb': {'power/autosuspend_delay_ms': '1000',
            'power/wakeup': 'disabled',
            'power/control': 'auto'},
    'scsi_host': {'link_power_management_policy': 'med_power_with_dipm'},
}
MODULE_PARAMS = {'snd_hda_intel/parameters/power_save': '1'}

# udev's "powerpolicy" tag, as the system tests' harness gives it
sys.path.insert(0, os.path.join(SRC_DIR, 'tests', 'system'))
import pptags  # noqa: E402


def ensure_umockdev_preload():
    """Re-exec the running script under umockdev-wrapper unless the preload
    library is already loaded (UMockdev needs it for parents and uevents)."""
    if PRELOAD in os.environ.get('LD_PRELOAD', ''):
        return
    wrapper = shutil.which('umockdev-wrapper')
    if wrapper is None:
        sys.exit('bench: umockdev-wrapper not found (apt-get install umockdev)')
    if os.environ.get('PP_BENCH_REEXEC'):
        sys.exit('bench: umockdev-wrapper did not load %s' % PRELOAD)
    os.environ['PP_BENCH_REEXEC'] = '1'
    os.execv(wrapper, [wrapper, PYTHON] + sys.argv)


def ensure_private_mounts():
    """Re-exec the running script in a private mount namespace (unshare(1),
    needs root): umockdev does not redirect /run/udev, where libudev finds
    udev's tag index, so use_testbed_udev() mounts the testbed's there."""
    if os.environ.get('PP_BENCH_NAMESPACE'):
        return
    unshare = shutil.which('unshare')
    if unshare is None or os.geteuid() != 0:
        sys.exit('bench: needs root and unshare(1): the daemon enumerates udev\'s tag '
                 'index, which the testbed provides in a private /run/udev')
    os.environ['PP_BENCH_NAMESPACE'] = '1'
    os.execv(unshare, [unshare, '--mount', '--propagation', 'private', PYTHON] + sys.argv)


def use_testbed_udev(root):
    """In the private mount namespace: a tmpfs on /run (the machine's own
    udev database hidden) and the testbed's run/udev as /run/udev."""
    run_udev = os.path.join(root, 'run', 'udev')
    os.makedirs(run_udev, exist_ok=True)
    env = {'PATH': '/usr/sbin:/usr/bin:/sbin:/bin'}      # no preload for mount(8)
    subprocess.run(['mount', '-n', '-t', 'tmpfs', '-o', 'mode=0755', 'pp-bench-run', '/run'],
                   check=True, env=env)
    os.makedirs('/run/udev')
    subprocess.run(['mount', '-n', '--bind', run_udev, '/run/udev'], check=True, env=env)


def bench_tmpdir():
    """A tmpfs for the testbed: /dev/shm when present (4x faster than a disk
    for 10,000 devices). bench/run sets PP_BENCH_TMPDIR to a directory of
    its own there, so that what an aborted run leaves is removed."""
    own = os.environ.get('PP_BENCH_TMPDIR')
    if own and os.path.isdir(own):
        return own
    if os.path.isdir('/dev/shm') and os.access('/dev/shm', os.W_OK):
        return '/dev/shm'
    return None


def median(values):
    return statistics.median(values) if values else float('nan')


def percentile(values, p):
    """Nearest-rank percentile."""
    if not values:
        return float('nan')
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


# ---- the machine ---------------------------------------------------------

class Machine:
    """Builds the device tree into a UMockdev.Testbed and remembers every
    attribute the policy (or TLP/powertop) may write, with its original
    value, so that runs can be reset without a rebuild."""

    def __init__(self, tb):
        self.tb = tb
        self.root = tb.get_root_dir()
        self.n_devices = 0
        self.count = {}
        self.watched = {}        # absolute file in the testbed -> original
        self.usb_hotplug_parents = []
        self.serial = 0
        self.tagged = set()      # syspaths udev's rules tag (what the daemon manages)

    # -- low level

    def add(self, subsystem, name, parent, attrs, props, driver=None):
        """attrs/props: lists of (key, value)."""
        props = list(props) + pptags.tag_properties(subsystem, dict(props))
        flat_a = [str(x) for kv in attrs for x in kv]
        flat_p = [str(x) for kv in props for x in kv]
        path = self.tb.add_device(subsystem, name, parent, flat_a, flat_p)
        if path is None:
            raise RuntimeError('umockdev could not add %s under %s' % (name, parent))
        pptags.index_device(self.root, path, subsystem, dict(props))
        if ('TAGS', ':%s:' % pptags.TAG) in props:
            self.tagged.add(path)
        if driver is not None:
            self.tb.set_attribute_link(path, 'driver',
                                       '../../../bus/%s/drivers/%s' % (subsystem, driver))
        self.n_devices += 1
        self.count[subsystem] = self.count.get(subsystem, 0) + 1
        attr_keys = {k for k, _ in attrs}
        for rel in POLICY.get(subsystem, {}):
            if rel in attr_keys:
                self.watch(path, rel)
        return path

    def watch(self, syspath, rel):
        f = self.file(syspath, rel)
        with open(f) as fd:
            self.watched[f] = fd.read()

    def file(self, syspath, rel=None):
        """Testbed file for a /sys path (outside the preload's reach)."""
        p = self.root + syspath
        return os.path.join(p, rel) if rel else p

    # -- kinds of devices

    def pci(self, parent, name, cls, vendor, device, driver, extra_props=(), wakeup=None):
        attrs = [
            ('vendor', '0x%04x' % vendor), ('device', '0x%04x' % device),
            ('subsystem_vendor', '0x17aa'), ('subsystem_device', '0x2292'),
            ('class', '0x%06x' % cls), ('revision', '0x01'), ('irq', '16'),
            ('enable', '1'), ('numa_node', '-1'), ('d3cold_allowed', '1'),
            ('modalias', 'pci:v%08Xd%08Xsv000017AAsd00002292bc%02Xsc%02Xi%02X' % (
                vendor, device, cls >> 16, (cls >> 8) & 0xff, cls & 0xff)),
            ('power/control', 'on'), ('power/runtime_status', 'active'),
            ('power/runtime_suspended_time', '0'), ('power/runtime_active_time', '123456'),
            ('power/runtime_enabled', 'forbidden'), ('power/async', 'enabled'),
        ]
        if wakeup is not None:
            attrs.append(('power/wakeup', wakeup))
        props = [
            ('DRIVER', driver), ('PCI_CLASS', '%X' % cls),
            ('PCI_ID', '%04X:%04X' % (vendor, device)), ('PCI_SUBSYS_ID', '17AA:2292'),
            ('PCI_SLOT_NAME', name), ('MODALIAS', attrs[10][1]),
            ('ID_PCI_CLASS_FROM_DATABASE', 'class %06x' % cls),
            ('ID_VENDOR_FROM_DATABASE', 'Vendor %04x' % vendor),
            ('ID_MODEL_FROM_DATABASE', 'Model %04x' % device),
        ] + list(extra_props)
        return self.add('pci', name, parent, attrs, props, driver)

    def usb_device(self, parent, name, busnum, devnum, cls, vid, pid, maxchild=0,
                   wakeup='enabled', props=()):
        self.serial += 1
        attrs = [
            ('busnum', busnum), ('devnum', devnum), ('devpath', name.split('-', 1)[-1]),
            ('idVendor', '%04x' % vid), ('idProduct', '%04x' % pid), ('bcdDevice', '0100'),
            ('bDeviceClass', '%02x' % cls), ('bDeviceSubClass', '00'), ('bDeviceProtocol', '00'),
            ('bNumInterfaces', ' 1'), ('bConfigurationValue', '1'), ('bMaxPower', '100mA'),
            ('speed', '480'), ('version', ' 2.00'), ('maxchild', str(maxchild)),
            ('removable', 'removable' if cls != 9 else 'fixed'), ('authorized', '1'),
            ('avoid_reset_quirk', '0'), ('quirks', '0x0'), ('ltm_capable', 'no'),
            ('manufacturer', 'Vendor %04x' % vid), ('product', 'Product %04x' % pid),
            ('serial', 'SN%08d' % self.serial),
            ('power/control', 'on'), ('power/autosuspend_delay_ms', '2000'),
            ('power/autosuspend', '2'), ('power/level', 'on'),
            ('power/wakeup', wakeup), ('power/persist', '1'),
            ('power/active_duration', '987654'), ('power/connected_duration', '987654'),
            ('power/runtime_status', 'active'), ('power/runtime_suspended_time', '0'),
            ('power/runtime_active_time', '987654'), ('power/runtime_enabled', 'forbidden'),
        ]
        uprops = [
            ('DEVTYPE', 'usb_device'), ('DRIVER', 'usb'),
            ('PRODUCT', '%x/%x/100' % (vid, pid)), ('TYPE', '%d/0/0' % cls),
            ('BUSNUM', '%03d' % busnum), ('DEVNUM', '%03d' % devnum),
            ('ID_VENDOR', 'Vendor_%04x' % vid), ('ID_VENDOR_ENC', 'Vendor\\x20%04x' % vid),
            ('ID_VENDOR_ID', '%04x' % vid), ('ID_MODEL', 'Product_%04x' % pid),
            ('ID_MODEL_ENC', 'Product\\x20%04x' % pid), ('ID_MODEL_ID', '%04x' % pid),
            ('ID_REVISION', '0100'), ('ID_SERIAL', 'Vendor_%04x_Product_%04x_SN%08d' % (vid, pid, self.serial)),
            ('ID_SERIAL_SHORT', 'SN%08d' % self.serial), ('ID_BUS', 'usb'),
            ('ID_USB_INTERFACES', ':%02x0000:' % cls),
            ('ID_VENDOR_FROM_DATABASE', 'Vendor %04x' % vid),
            ('ID_PATH', 'pci-0000:00:14.0-usb-0:%s' % name), ('ID_PATH_TAG', 'pci-0000_00_14_0-usb-0_x'),
        ] + list(props)
        return self.add('usb', name, parent, attrs, uprops, 'usb')

    def usb_interface(self, parent, name, icls, isub, iproto, driver):
        attrs = [
            ('bInterfaceClass', '%02x' % icls), ('bInterfaceSubClass', '%02x' % isub),
            ('bInterfaceProtocol', '%02x' % iproto), ('bInterfaceNumber', '00'),
            ('bAlternateSetting', ' 0'), ('bNumEndpoints', '01'), ('authorized', '1'),
            ('supports_autosuspend', '1'),
            ('modalias', 'usb:v0000p0000d0100dc00dsc00dp00ic%02Xisc%02Xip%02Xin00' % (icls, isub, iproto)),
            ('power/runtime_status', 'active'), ('power/runtime_suspended_time', '0'),
            ('power/runtime_active_time', '987654'), ('power/async', 'enabled'),
        ]
        props = [
            ('DEVTYPE', 'usb_interface'), ('DRIVER', driver),
            ('INTERFACE', '%d/%d/%d' % (icls, isub, iproto)), ('MODALIAS', attrs[8][1]),
            ('ID_VENDOR_FROM_DATABASE', 'Vendor'), ('ID_USB_INTERFACE_NUM', '00'),
        ]
        return self.add('usb', name, parent, attrs, props, driver)

    # -- composite parts

    def usb_leaf(self, parent, busnum, port_path, devnum, kind):
        """A USB device with its interfaces: kind 'hid' (2 interfaces),
        'storage', 'btusb' (2), 'webcam' (2)."""
        kinds = {
            'hid': (0, 0x046d, 0xc52b, [(3, 1, 1, 'usbhid'), (3, 1, 2, 'usbhid')],
                    [('ID_AUTOSUSPEND', '1')]),
            'storage': (0, 0x0781, 0x5583, [(8, 6, 0x50, 'usb-storage')], []),
            'btusb': (0xe0, 0x8087, 0x0a2b, [(0xe0, 1, 1, 'btusb'), (0xe0, 1, 1, 'btusb')], []),
            'webcam': (0xef, 0x04f2, 0xb604, [(0x0e, 1, 0, 'uvcvideo'), (0x0e, 2, 0, 'uvcvideo')],
                       [('ID_AUTOSUSPEND', '1'), ('ID_AUTOSUSPEND_DELAY_MS', '5000')]),
        }
        cls, vid, pid, ifaces, props = kinds[kind]
        name = '%d-%s' % (busnum, port_path)
        dev = self.usb_device(parent, name, busnum, devnum, cls, vid, pid,
                              wakeup='enabled' if kind == 'hid' else 'disabled', props=props)
        for i, (ic, isub, ip, drv) in enumerate(ifaces):
            self.usb_interface(dev, '%s:1.%d' % (name, i), ic, isub, ip, drv)
        return dev

    def usb_hub(self, parent, busnum, port_path, devnum, ports):
        name = '%d-%s' % (busnum, port_path)
        dev = self.usb_device(parent, name, busnum, devnum, 9, 0x05e3, 0x0610,
                              maxchild=ports, wakeup='disabled')
        self.usb_interface(dev, '%s:1.0' % name, 9, 0, 0, 'hub')
        return dev

    def xhci(self, parent, pciname, bus_a, bus_b, n_hubs, leaves_per_hub):
        ctrl = self.pci(parent, pciname, 0x0c0330, 0x8086, 0xa36d, 'xhci_hcd', wakeup='enabled')
        for busnum, speed in ((bus_a, '480'), (bus_b, '5000')):
            root = self.usb_device(ctrl, 'usb%d' % busnum, busnum, 1, 9, 0x1d6b,
                                   2 if speed == '480' else 3, maxchild=max(n_hubs, 4),
                                   wakeup='disabled')
            self.usb_interface(root, '%d-0:1.0' % busnum, 9, 0, 0, 'hub')
        devnum = 2
        kinds = ('hid', 'storage', 'btusb', 'webcam')
        for h in range(n_hubs):
            hub = self.usb_hub(self.file_parent(ctrl, 'usb%d' % bus_a), bus_a, str(h + 1),
                               devnum, leaves_per_hub)
            devnum += 1
            for l in range(leaves_per_hub):
                self.usb_leaf(hub, bus_a, '%d.%d' % (h + 1, l + 1), devnum,
                              kinds[(h + l) % len(kinds)])
                devnum += 1
            self.usb_hotplug_parents.append((hub, bus_a, str(h + 1)))
        return ctrl

    def file_parent(self, ctrl, child):
        return ctrl + '/' + child

    def ahci(self, parent, pciname, first_host, n_ports, n_disks):
        ctrl = self.pci(parent, pciname, 0x010601, 0x8086, 0xa352, 'ahci')
        for p in range(n_ports):
            h = first_host + p
            # ataN is a plain directory, as in the kernel
            host = self.add('scsi', 'ata%d/host%d' % (h + 1, h), ctrl, [],
                            [('DEVTYPE', 'scsi_host')])
            self.add('scsi_host', 'scsi_host/host%d' % h, host, [
                ('link_power_management_policy', 'max_performance'),
                ('proc_name', 'ahci'), ('state', 'running'), ('can_queue', '32'),
                ('ahci_host_caps', '0xe736ff45'), ('em_message_type', '0'),
            ], [])
            if p < n_disks:
                sdev = self.add('scsi', 'target%d:0:0/%d:0:0:0' % (h, h), host, [
                    ('vendor', 'ATA     '), ('model', 'Samsung SSD 870 '), ('rev', '1B6Q'),
                    ('type', '0'), ('state', 'running'),
                    ('power/control', 'auto'), ('power/runtime_status', 'active'),
                    ('power/autosuspend_delay_ms', '-1'),
                ], [('DEVTYPE', 'scsi_device'), ('DRIVER', 'sd'), ('MODALIAS', 'scsi:t-0x00')], 'sd')
                self.add('block', 'block/%s' % disk_name(h), sdev,
                         [('size', '1953525168'), ('ro', '0'), ('removable', '0'),
                          ('queue/rotational', '0')],
                         [('DEVTYPE', 'disk'), ('ID_BUS', 'ata'), ('ID_TYPE', 'disk'),
                          ('ID_MODEL', 'Samsung_SSD_870'), ('ID_SERIAL', 'S%d' % h)])
        return ctrl


def disk_name(n):
    letters = ''
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        letters = chr(ord('a') + r) + letters
    return 'sd' + letters


def build_machine(tb, target):
    """About @target devices: a fixed platform (host bridge, GPU, audio,
    NVMe, NIC, SATA, AC adapter, the chipset xHCI) plus PCIe segments, each a
    root port with an xHCI (2 root hubs, hubs, HID/storage/bluetooth/webcam
    devices and their interfaces), an AHCI with 4 SATA hosts and a NIC, until
    the count is reached."""
    m = Machine(tb)
    root = 'pci0000:00'

    def p(name):
        return '%s/%s' % (root, name)

    # platform
    m.add('pci', p('0000:00:00.0'), None, [
        ('vendor', '0x8086'), ('device', '0x3e34'), ('class', '0x060000'),
        ('power/control', 'on'), ('power/runtime_status', 'unsupported'),
        ('power/runtime_suspended_time', '0')], [('PCI_CLASS', '60000')])
    m.watch('/sys/devices/' + p('0000:00:00.0'), 'power/control')
    gpu = m.pci(None, p('0000:00:02.0'), 0x030000, 0x8086, 0x3ea0, 'i915')
    m.add('drm', 'drm/card0', gpu, [('dev', '226:0')], [('DEVTYPE', 'drm_minor')])
    audio = m.pci(None, p('0000:00:1f.3'), 0x040380, 0x8086, 0x9dc8, 'snd_hda_intel')
    m.add('sound', 'sound/card0', audio, [('id', 'PCH'), ('number', '0')], [('SOUND_INITIALIZED', '1')])
    m.pci(None, p('0000:00:1f.0'), 0x060100, 0x8086, 0x9d84, 'lpc_ich')
    m.pci(None, p('0000:00:1f.4'), 0x0c0500, 0x8086, 0x9da3, 'i801_smbus')
    m.pci(None, p('0000:00:16.0'), 0x078000, 0x8086, 0x9de0, 'mei_me')
    nic = m.pci(None, p('0000:00:1f.6'), 0x020000, 0x8086, 0x15be, 'e1000e', wakeup='enabled')
    m.add('net', 'net/enp0s31f6', nic, [('address', '8c:16:45:00:00:01'), ('operstate', 'up')],
          [('INTERFACE', 'enp0s31f6'), ('ID_NET_NAME_PATH', 'enp0s31f6')])
    rp = m.pci(None, p('0000:00:1d.0'), 0x060400, 0x8086, 0x9db0, 'pcieport')
    nvme = m.pci(rp, '0000:3d:00.0', 0x010802, 0x144d, 0xa808, 'nvme')
    ctl = m.add('nvme', 'nvme/nvme0', nvme, [('model', 'Samsung SSD 970'), ('state', 'live')], [])
    m.add('block', 'nvme0n1', ctl, [('size', '1000215216')], [('DEVTYPE', 'disk')])
    m.ahci(None, p('0000:00:17.0'), 0, 6, 2)
    acpi = m.add('platform', 'platform/ACPI0003:00', None, [('modalias', 'acpi:ACPI0003:')],
                 [('DRIVER', 'ac')], None)
    m.add('power_supply', 'power_supply/AC', acpi,
          [('type', 'Mains'), ('online', '1')], [('POWER_SUPPLY_NAME', 'AC'),
                                                 ('POWER_SUPPLY_TYPE', 'Mains'),
                                                 ('POWER_SUPPLY_ONLINE', '1')])
    m.xhci(None, p('0000:00:14.0'), 1, 2, 2, 4)

    # /sys/module: not part of the .umockdev format, plain files
    mod = os.path.join(m.root, 'sys/module/snd_hda_intel/parameters')
    os.makedirs(mod, exist_ok=True)
    for name, value in (('power_save', '0'), ('power_save_controller', 'Y'),
                        ('probe_mask', '-1')):
        with open(os.path.join(mod, name), 'w') as f:
            f.write(value + '\n')
    m.watched[os.path.join(mod, 'power_save')] = '0\n'

    # PCIe segments until the target is reached
    seg = 0
    usb_bus = 3
    host = 6
    while m.n_devices < target:
        domain, bus = divmod(seg, 200)
        domain += 1      # a second socket or VMD domain per 200 segments
        proot = 'pci%04x:00' % domain
        rp = m.pci(None, '%s/%04x:00:%02x.%d' % (proot, domain, (seg % 200) // 8 + 1, seg % 8),
                   0x060400, 0x8086, 0x9db8, 'pcieport')
        b = bus + 1
        m.xhci(rp, '%04x:%02x:00.0' % (domain, b), usb_bus, usb_bus + 1, 2, 4)
        usb_bus += 2
        m.ahci(rp, '%04x:%02x:00.1' % (domain, b), host, 4, 1)
        host += 4
        nic = m.pci(rp, '%04x:%02x:00.2' % (domain, b), 0x020000, 0x8086, 0x1533, 'igb',
                    wakeup='disabled')
        m.add('net', 'net/enP%dp%ds0f2' % (domain, b), nic, [('address', '8c:16:45:00:%02x:02' % (seg % 256)),
                                                ('operstate', 'down')], [('INTERFACE', 'enP%dp%ds0f2' % (domain, b))])
        seg += 1
    return m


def create_proc_shadows(root):
    """/proc files that TLP and powertop write: redirected only when a copy
    exists in the testbed, so create every one of them."""
    files = {
        'proc/sys/vm/dirty_writeback_centisecs': '500',
        'proc/sys/vm/dirty_expire_centisecs': '3000',
        'proc/sys/vm/dirty_ratio': '20',
        'proc/sys/vm/dirty_background_ratio': '10',
        'proc/sys/vm/laptop_mode': '0',
        'proc/sys/kernel/nmi_watchdog': '1',
        'proc/sys/kernel/watchdog': '1',
        'proc/sys/fs/xfs/age_buffer_centisecs': '1500',
        'proc/sys/fs/xfs/xfssyncd_centisecs': '3000',
        'proc/sys/fs/xfs/xfsbufd_centisecs': '100',
    }
    for rel, value in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(value + '\n')


def reset(machine):
    """Write back every watched attribute that differs from its original;
    returns how many differed (= attributes the last run changed)."""
    changed = 0
    for path, orig in machine.watched.items():
        try:
            with open(path) as f:
                now = f.read()
        except FileNotFoundError:
            now = None
        if now == orig:
            continue
        changed += 1
        with open(path, 'w') as f:
            f.write(orig)
    return changed


def count_changed(machine):
    n = 0
    for path, orig in machine.watched.items():
        try:
            with open(path) as f:
                if f.read() != orig:
                    n += 1
        except FileNotFoundError:
            n += 1
    return n


def testbed_env(tb, extra=None):
    """The environment of a child that must see only the testbed: the
    preload and UMOCKDEV_DIR set explicitly (the C library's setenv does not
    reach os.environ)."""
    root = tb.get_root_dir()
    env = dict(os.environ)
    env['UMOCKDEV_DIR'] = root
    if PRELOAD not in env.get('LD_PRELOAD', ''):
        env['LD_PRELOAD'] = 'libumockdev-preload.so.0'
    env.pop('DBUS_SESSION_BUS_ADDRESS', None)
    if extra:
        env.update(extra)
    return env


def check_testbed_env(env, tb):
    """Refuse to start anything that could reach the real /sys."""
    root = tb.get_root_dir()
    if env.get('UMOCKDEV_DIR') != root or not os.path.isdir(os.path.join(root, 'sys/devices')):
        raise SystemExit('bench: refusing to run: UMOCKDEV_DIR does not point at the testbed')
    if PRELOAD not in env.get('LD_PRELOAD', ''):
        raise SystemExit('bench: refusing to run: umockdev preload not in LD_PRELOAD')


class Inotify:
    """Minimal inotify through ctypes: wait for a close-after-write on
    a file, with a timeout."""
    IN_MODIFY = 0x2
    IN_CLOSE_WRITE = 0x8

    def __init__(self):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), 'inotify_init1')

    def add(self, path, mask):
        wd = self.libc.inotify_add_watch(self.fd, path.encode(), mask)
        if wd < 0:
            raise OSError(ctypes.get_errno(), 'inotify_add_watch %s' % path)
        return wd

    def remove(self, wd):
        self.libc.inotify_rm_watch(self.fd, wd)

    def drain(self):
        try:
            while os.read(self.fd, 65536):
                pass
        except BlockingIOError:
            pass

    def read_wds(self):
        """The watch descriptors of the events waiting (none: [])."""
        wds = []
        try:
            while True:
                buf = os.read(self.fd, 65536)
                if not buf:
                    break
                off = 0
                while off + 16 <= len(buf):
                    wd, _mask, _cookie, length = struct.unpack_from('iIII', buf, off)
                    wds.append(wd)
                    off += 16 + length
        except BlockingIOError:
            pass
        return wds

    def close(self):
        os.close(self.fd)


def new_tmpdir(prefix):
    return tempfile.mkdtemp(prefix=prefix, dir=bench_tmpdir())
