# SPDX-License-Identifier: GPL-2.0-or-later
"""Real notebooks in a umockdev testbed, judged side by side with TLP.

A machine is a tests/fixtures/notebooks/*.machine file (its format and the
source of every machine: tests/fixtures/README.md): the PCI devices, the USB
devices with their binary `descriptors`, the power supplies. This module
builds it into a testbed, lets the real udev rules and hwdb classify every
device (`udevadm test`, with the shipped 60-powerpolicy.rules and
99-powerpolicy-tag.rules, as tests/rules does), then runs, each time from
the devices' own values:

  powerpolicyd --oneshot with the shipped configuration, on AC and on
  battery (the AC adapter's `online` 1 or 0), and
  TLP with its defaults (`tlp start`, which reads the power source), in a
  private mount namespace
  whose /etc/tlp.conf is empty and whose tools that reach hardware outside
  sysfs are /bin/true (as bench/coldplug runs it),

and reads every device's power/control afterwards. Used by bench/notebooks
(the table) and tests/system/test_notebooks.py (the assertions).

The process must run as root under umockdev-wrapper.
"""

import os
import re
import shutil
import struct
import subprocess
import tempfile

import pptags

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, '..', '..'))
FIXTURES = os.path.join(SRC, 'tests', 'fixtures', 'notebooks')
SHIPPED_CONFIG = os.path.join(SRC, 'data', 'powerpolicy.conf')
RULES = os.path.join(SRC, 'data', 'udev-rules', '60-powerpolicy.rules')
TAG_RULES = os.path.join(SRC, 'data', 'udev-rules', '99-powerpolicy-tag.rules')
PRELOAD = 'libumockdev-preload.so'
TIMEOUT = 120

# `udevadm test` in a private mount namespace: the rules under test in
# /run/udev/rules.d, the host's local rules hidden, the system's own rules
# and hwdb as installed (as tests/rules/test_rules.py, mode "system").
UDEV_SCRIPT = r'''
set -e
mount -n -t tmpfs -o mode=0755 pp-notebooks /run
mkdir -p /run/udev/rules.d
cp "$2" /run/udev/rules.d/60-powerpolicy.rules
cp "$3" /run/udev/rules.d/99-powerpolicy-tag.rules
if [ -d /etc/udev/rules.d ]; then
    mount -n -t tmpfs -o mode=0755 pp-empty /etc/udev/rules.d
fi
exec udevadm test --action=add "$1"
'''

# TLP in a private mount namespace: what it writes outside the testbed
# (/run/tlp, /var/lib/tlp) goes to a tmpfs (a tmpfs on all of /run, so
# that /run/tlp is never created on the machine), /etc/tlp.conf is an empty
# file (TLP's defaults, /usr/share/tlp/defaults.conf), and the helpers that
# reach hardware through ioctls are /bin/true.
TLP_SCRIPT = r'''
set -e
mount -t tmpfs -o mode=0755 pp-notebooks /run
mkdir /run/tlp
for d in /var/lib/tlp /etc/tlp.d; do
    [ -d "$d" ] && mount -t tmpfs pp-notebooks "$d"
done
[ -f /etc/tlp.conf ] && mount --bind "$PP_NOTEBOOKS_TLP_CONF" /etc/tlp.conf
for b in hdparm ethtool iw rfkill modprobe udevadm systemctl; do
    p=$(command -v "$b" || true)
    [ -n "$p" ] && mount --bind /bin/true "$(readlink -f "$p")"
done
export LD_PRELOAD="$PP_NOTEBOOKS_PRELOAD"
exec "$@"
'''

# properties `udevadm test` prints that are the event's, not the device's
EVENT_KEYS = {'ACTION', 'SEQNUM', 'USEC_INITIALIZED', 'TAGS', 'CURRENT_TAGS', 'DEVLINKS'}


class FixtureError(ValueError):
    pass


# ---- the fixture format ----------------------------------------------------

def _num(text):
    return int(text, 0)


def _bcd(text):
    """A BCD version as lsusb prints it ("2.00", "12.11") -> 0x0200, 0x1211."""
    major, _, minor = text.partition('.')
    return (int(major, 16) << 8) | int(minor or '0', 16)


# descriptor line letter -> (bDescriptorType, struct layout after bLength and
# bDescriptorType, converters of the fields as `lsusb -v` prints them)
_DESCRIPTORS = {
    # bcdUSB bDeviceClass bDeviceSubClass bDeviceProtocol bMaxPacketSize0
    # idVendor idProduct bcdDevice iManufacturer iProduct iSerial
    # bNumConfigurations
    'D': (1, '<HBBBBHHHBBBB', (_bcd, _num, _num, _num, _num, _num, _num, _bcd,
                               _num, _num, _num, _num)),
    # wTotalLength ("-": computed) bNumInterfaces bConfigurationValue
    # iConfiguration bmAttributes MaxPower (mA)
    'C': (2, '<HBBBBB', (None, _num, _num, _num, _num, lambda t: _num(t) // 2)),
    # bFirstInterface bInterfaceCount bFunctionClass bFunctionSubClass
    # bFunctionProtocol iFunction
    'A': (11, '<BBBBBB', (_num,) * 6),
    # bInterfaceNumber bAlternateSetting bNumEndpoints bInterfaceClass
    # bInterfaceSubClass bInterfaceProtocol iInterface
    'I': (4, '<BBBBBBB', (_num,) * 7),
    # bEndpointAddress bmAttributes wMaxPacketSize bInterval
    'E': (5, '<BBHB', (_num,) * 4),
    # HID: bcdHID bCountryCode bNumDescriptors bDescriptorType
    # wDescriptorLength
    'H': (33, '<HBBBH', (_bcd, _num, _num, _num, _num)),
    # SuperSpeed endpoint companion: bMaxBurst bmAttributes wBytesPerInterval
    'S': (48, '<BBH', (_num,) * 3),
}


def descriptors(lines):
    """The binary `descriptors` attribute of a usb_device from the
    descriptor lines of a .machine file (the fields `lsusb -v` prints, in
    its order); returns (bytes, interfaces of alternate setting 0 as
    (number, class, subclass, protocol), device class triple)."""
    out = []
    interfaces = []
    device_class = None
    config_at = None
    for line in lines:
        kind, *fields = line.split()
        if kind not in _DESCRIPTORS:
            raise FixtureError('unknown descriptor line %r' % line)
        dtype, layout, conv = _DESCRIPTORS[kind]
        if len(fields) != len(conv):
            raise FixtureError('%s descriptor needs %d fields: %r' % (kind, len(conv), line))
        values = []
        for c, f in zip(conv, fields):
            values.append(0 if (c is None and f == '-') else (c or _num)(f))
        body = struct.pack(layout, *values)
        desc = bytearray(struct.pack('<BB', 2 + len(body), dtype) + body)
        if kind == 'C':
            config_at = (len(out), fields[0] == '-')
        if kind == 'D':
            device_class = tuple(values[1:4])
        if kind == 'I' and values[1] == 0:
            interfaces.append((values[0], values[3], values[4], values[5]))
        out.append(desc)
    if config_at is not None and config_at[1]:
        total = sum(len(d) for d in out[config_at[0]:])
        struct.pack_into('<H', out[config_at[0]], 2, total)
    return b''.join(bytes(d) for d in out), interfaces, device_class


def parse_machine(path):
    """A .machine file as a dict: name, title, pci, usb, supplies."""
    m = {'name': None, 'title': None, 'pci': [], 'usb': [], 'supplies': [], 'path': path}
    current = None
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0].rstrip()
            if not line.strip():
                continue
            where = '%s:%d' % (os.path.basename(path), n)
            if raw[0].isspace():
                if current is None:
                    raise FixtureError('%s: descriptor line outside a usb device' % where)
                current['lines'].append(line.strip())
                continue
            word, *rest = line.split()
            current = None
            if word == 'machine':
                m['name'], m['title'] = rest[0], ' '.join(rest[1:])
            elif word == 'pci' and len(rest) == 6 and rest[5].startswith('own='):
                addr, parent, klass, ids, driver, own = rest
                vendor, device = ids.split(':')
                m['pci'].append({'addr': addr, 'parent': None if parent == '-' else parent,
                                 'class': _num(klass), 'vendor': int(vendor, 16),
                                 'device': int(device, 16),
                                 'driver': None if driver == '-' else driver,
                                 'own': own[4:]})
            elif word == 'supply' and len(rest) == 2:
                m['supplies'].append({'name': rest[0], 'type': rest[1]})
            elif word == 'usb' and len(rest) == 3:
                current = {'name': rest[0], 'parent': rest[1],
                           'drivers': [] if rest[2] == '-' else rest[2].split(','),
                           'lines': []}
                m['usb'].append(current)
            else:
                raise FixtureError('%s: cannot parse %r' % (where, line))
    if not m['name']:
        raise FixtureError('%s: no machine line' % path)
    return m


def machines():
    return sorted(os.path.join(FIXTURES, f) for f in os.listdir(FIXTURES)
                  if f.endswith('.machine'))


# ---- the testbed -------------------------------------------------------------

def _driver_link(tb, syspath, bus, driver):
    ups = len(syspath.strip('/').split('/')) - 1
    tb.set_attribute_link(syspath, 'driver', '../' * ups + 'bus/%s/drivers/%s' % (bus, driver))


class Notebook:
    """One machine built into a UMockdev.Testbed; devices are keyed by a
    short label (the PCI address, the USB port name)."""

    def __init__(self, UMockdev, path):
        self.m = parse_machine(path)
        self.name = self.m['name']
        self.tb = UMockdev.Testbed.new()
        self.root = self.tb.get_root_dir()
        self.devices = {}      # label -> syspath (PCI and USB devices)
        self.kind = {}         # label -> 'pci' | 'usb'
        self.info = {}         # label -> text for the table
        self.interfaces = {}   # usb label -> [(class, subclass, protocol, driver)]
        self.watched = {}      # testbed file -> original content
        self.ac = None
        self.battery = None
        self._build()

    def path(self, syspath):
        return self.root + syspath

    def read(self, syspath, attr):
        try:
            with open(self.path(syspath) + '/' + attr) as f:
                return f.read().strip()
        except OSError:
            return None

    def _add(self, subsystem, name, parent, attrs, props):
        flat_a = [str(x) for kv in attrs for x in kv]
        flat_p = [str(x) for kv in props for x in kv]
        path = self.tb.add_device(subsystem, name, parent, flat_a, flat_p)
        if path is None:
            raise RuntimeError('umockdev could not add %s (not under umockdev-wrapper?)' % name)
        return path

    def _build(self):
        pci_path = {}
        for d in self.m['pci']:
            addr = '0000:' + d['addr']
            cls = d['class']
            attrs = [('vendor', '0x%04x' % d['vendor']), ('device', '0x%04x' % d['device']),
                     ('class', '0x%06x' % cls), ('power/control', d['own']),
                     ('power/runtime_status', 'active'), ('power/runtime_suspended_time', '0'),
                     ('power/wakeup', 'disabled')]
            props = [('PCI_CLASS', '%X' % cls), ('PCI_ID', '%04X:%04X' % (d['vendor'], d['device'])),
                     ('MODALIAS', 'pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X' % (
                         d['vendor'], d['device'], 0, 0, cls >> 16, (cls >> 8) & 0xff, cls & 0xff))]
            if d['driver']:
                props.append(('DRIVER', d['driver']))
            if d['parent']:
                path = self._add('pci', addr, pci_path[d['parent']], attrs, props)
            else:
                path = self._add('pci', 'pci0000:00/' + addr, None, attrs, props)
            if d['driver']:
                _driver_link(self.tb, path, 'pci', d['driver'])
            pci_path[d['addr']] = path
            self._track(d['addr'], 'pci', path, '%04x:%04x %s' % (
                d['vendor'], d['device'], d['driver'] or '(no driver)'))
        for s in self.m['supplies']:
            online = s['type'] == 'Mains'
            if online:
                attrs = [('type', 'Mains'), ('online', '1')]
                path = self._add('power_supply', 'LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/'
                                 + s['name'], None, attrs, [('POWER_SUPPLY_ONLINE', '1')])
                self.ac = path
            else:
                attrs = [('type', 'Battery'), ('present', '1'), ('scope', 'System'),
                         ('status', 'Charging'), ('capacity', '80')]
                path = self._add('power_supply', 'LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/PNP0C0A:00/'
                                 'power_supply/' + s['name'], None, attrs, [])
                self.battery = path
        usb_path = {}
        for u in self.m['usb']:
            data, ifaces, dev_class = descriptors(u['lines'])
            vendor, product = struct.unpack_from('<HH', data, 8)
            bcd_device = struct.unpack_from('<H', data, 12)[0]
            name = u['name']
            root_hub = name.startswith('usb')
            busnum = int(name[3:]) if root_hub else int(name.split('-')[0])
            hub = dev_class[0] == 9
            # the kernel's own value (Documentation/driver-api/usb/power-management.rst):
            # hubs auto, other devices on unless their driver enables
            # autosuspend; Debian's btusb does (CONFIG_BT_HCIBTUSB_AUTOSUSPEND=y)
            own = 'auto' if hub or 'btusb' in u['drivers'] else 'on'
            attrs = [('idVendor', '%04x' % vendor), ('idProduct', '%04x' % product),
                     ('bcdDevice', '%04x' % bcd_device),
                     ('bDeviceClass', '%02x' % dev_class[0]),
                     ('bDeviceSubClass', '%02x' % dev_class[1]),
                     ('bDeviceProtocol', '%02x' % dev_class[2]),
                     ('bNumInterfaces', '%2d' % len(ifaces)), ('bConfigurationValue', '1'),
                     ('busnum', str(busnum)), ('devnum', str(len(usb_path) + 1)),
                     ('power/control', own),
                     ('power/autosuspend_delay_ms', '0' if root_hub else '2000'),
                     ('power/autosuspend', '0' if root_hub else '2'),
                     ('power/runtime_status', 'active'), ('power/active_duration', '0'),
                     ('power/connected_duration', '0'), ('power/wakeup', 'disabled'),
                     ('power/level', own)]
            props = [('DEVTYPE', 'usb_device'), ('DRIVER', 'usb'),
                     ('PRODUCT', '%x/%x/%x' % (vendor, product, bcd_device)),
                     ('TYPE', '%d/%d/%d' % dev_class), ('BUSNUM', '%03d' % busnum),
                     ('DEVNUM', '%03d' % (len(usb_path) + 1))]
            parent = pci_path[u['parent']] if root_hub else usb_path[u['parent']]
            path = self._add('usb', name, parent, attrs, props)
            self.tb.set_attribute_binary(path, 'descriptors', data)
            _driver_link(self.tb, path, 'usb', 'usb')
            usb_path[name] = path
            label = name
            desc = '%04x:%04x' % (vendor, product)
            self.interfaces[label] = []
            if len(u['drivers']) not in (0, len(ifaces)):
                raise FixtureError('%s: %d interface drivers for %d interfaces' % (
                    name, len(u['drivers']), len(ifaces)))
            for i, (num, cls, sub, proto) in enumerate(ifaces):
                drv = u['drivers'][i] if u['drivers'] else None
                iname = '%s:1.%d' % (name if not root_hub else '%d-0' % busnum, num)
                iattrs = [('bInterfaceNumber', '%02x' % num), ('bAlternateSetting', ' 0'),
                          ('bInterfaceClass', '%02x' % cls),
                          ('bInterfaceSubClass', '%02x' % sub),
                          ('bInterfaceProtocol', '%02x' % proto)]
                iprops = [('DEVTYPE', 'usb_interface'), ('INTERFACE', '%d/%d/%d' % (cls, sub, proto)),
                          ('PRODUCT', '%x/%x/%x' % (vendor, product, bcd_device)),
                          ('TYPE', '%d/%d/%d' % dev_class),
                          ('MODALIAS', 'usb:v%04Xp%04Xd%04Xdc%02Xdsc%02Xdp%02Xic%02Xisc%02Xip%02Xin%02X' % (
                              vendor, product, bcd_device, dev_class[0], dev_class[1],
                              dev_class[2], cls, sub, proto, num))]
                if drv:
                    iprops.append(('DRIVER', drv))
                ipath = self._add('usb', iname, path, iattrs, iprops)
                if drv:
                    _driver_link(self.tb, ipath, 'usb', drv)
                self.interfaces[label].append((cls, sub, proto, drv))
            drivers = sorted(set(u['drivers'])) or ['(no driver)']
            self._track(label, 'usb', path, '%s %s' % (desc, ','.join(drivers)))
        # module parameters and /proc files TLP writes: plain files
        for rel, value in (('sys/module/snd_hda_intel/parameters/power_save', '1'),
                           ('sys/module/snd_hda_intel/parameters/power_save_controller', 'Y'),
                           ('sys/module/pcie_aspm/parameters/policy',
                            '[default] performance powersave powersupersave'),
                           ('proc/sys/vm/dirty_writeback_centisecs', '500'),
                           ('proc/sys/vm/dirty_expire_centisecs', '3000'),
                           ('proc/sys/vm/dirty_ratio', '20'),
                           ('proc/sys/vm/dirty_background_ratio', '10'),
                           ('proc/sys/vm/laptop_mode', '0'),
                           ('proc/sys/kernel/nmi_watchdog', '1'),
                           ('proc/sys/kernel/watchdog', '1')):
            p = os.path.join(self.root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, 'w') as f:
                f.write(value + '\n')

    def _track(self, label, kind, path, info):
        self.devices[label] = path
        self.kind[label] = kind
        self.info[label] = info

    def env(self):
        env = {'PATH': os.environ.get('PATH', '/usr/sbin:/usr/bin:/sbin:/bin'),
               'LD_PRELOAD': os.environ.get('LD_PRELOAD', ''),
               # never inherited: umockdev sets it with setenv(), not in os.environ
               'UMOCKDEV_DIR': self.root, 'LANG': 'C.UTF-8',
               'DBUS_SYSTEM_BUS_ADDRESS': 'unix:path=/nonexistent/pp-no-bus'}
        if PRELOAD not in env['LD_PRELOAD'] or not os.path.isdir(self.root + '/sys/devices'):
            raise RuntimeError('refusing to run anything: no umockdev testbed and preload')
        return env

    # -- udev

    def classify(self):
        """Run the real rules on every device (parents first) and store what
        they compute in the testbed, as udevd would; returns
        {label: properties}."""
        found = {}
        order = sorted(self._all_syspaths(), key=lambda p: p.count('/'))
        for syspath in order:
            props = self.udev_properties(syspath)
            for key, value in props.items():
                if key in EVENT_KEYS or key in ('DEVPATH', 'SUBSYSTEM'):
                    continue
                self.tb.set_property(syspath, key, value)
            # 60-autosuspend.rules: ATTR{power/control}="auto" (and the
            # delay) for devices the hwdb lists; `udevadm test` does not
            # write attributes, udevd does
            has_control = os.path.isfile(self.path(syspath) + '/power/control')
            if props.get('ID_AUTOSUSPEND') == '1' and has_control:
                self.tb.set_attribute(syspath, 'power/control', 'auto')
            if props.get('ID_AUTOSUSPEND_DELAY_MS') and has_control:
                self.tb.set_attribute(syspath, 'power/autosuspend_delay_ms',
                                      props['ID_AUTOSUSPEND_DELAY_MS'])
            pptags.retag(self.tb, self.root, syspath)
            for label, path in self.devices.items():
                if path == syspath:
                    found[label] = props
        self._remember()
        return found

    def _all_syspaths(self):
        out = []
        for dirpath, dirnames, filenames in os.walk(self.root + '/sys/devices'):
            if 'uevent' in filenames and not os.path.islink(dirpath):
                out.append(dirpath[len(self.root):])
            dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))
                           and d not in ('power', 'driver', 'subsystem')]
        return out

    def udev_properties(self, syspath):
        cmd = ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', UDEV_SCRIPT,
               'sh', syspath, RULES, TAG_RULES]
        r = subprocess.run(cmd, env=self.env(), capture_output=True, text=True, timeout=TIMEOUT)
        if r.returncode != 0:
            raise RuntimeError('udevadm test %s failed:\n%s%s' % (syspath, r.stdout, r.stderr[-3000:]))
        props = {}
        for line in r.stdout.splitlines():
            name, sep, value = line.partition('=')
            if sep and re.fullmatch(r'[A-Z0-9_]+', name):
                props[name] = value
        if props.get('DEVPATH') != syspath[len('/sys'):]:
            raise RuntimeError('no properties for %s from udevadm test:\n%s%s' % (
                syspath, r.stdout[-3000:], r.stderr[-3000:]))
        return props

    # -- the devices' own values, and putting them back

    def _remember(self):
        self.watched = {}
        for syspath in self._all_syspaths():
            for attr in ('power/control', 'power/autosuspend_delay_ms', 'power/wakeup',
                         'power/autosuspend', 'power/level'):
                p = self.path(syspath) + '/' + attr
                if os.path.isfile(p):
                    with open(p) as f:
                        self.watched[p] = f.read()
        for dirpath, _, filenames in os.walk(self.root + '/sys/module'):
            for fn in filenames:
                p = os.path.join(dirpath, fn)
                with open(p) as f:
                    self.watched[p] = f.read()

    def reset(self):
        for p, value in self.watched.items():
            with open(p, 'w') as f:
                f.write(value)

    def controls(self):
        return {label: self.read(path, 'power/control') for label, path in self.devices.items()}

    def set_source(self, battery):
        if self.ac:
            self.tb.set_attribute(self.ac, 'online', '0' if battery else '1')
            self.tb.set_property(self.ac, 'POWER_SUPPLY_ONLINE', '0' if battery else '1')
        if self.battery:
            self.tb.set_attribute(self.battery, 'status', 'Discharging' if battery else 'Charging')

    # -- the tools

    def run_powerpolicy(self, daemon, battery, config=SHIPPED_CONFIG):
        """powerpolicyd --oneshot from the own values; returns (controls, log)."""
        self.reset()
        self.set_source(battery)
        work = tempfile.mkdtemp(prefix='pp-notebooks-')
        try:
            argv = [daemon, '--config', config, '--runtime-dir', os.path.join(work, 'run'),
                    '--state-dir', os.path.join(work, 'state'), '--oneshot']
            r = subprocess.run(pptags.namespace_argv(self.root, argv), env=self.env(),
                               capture_output=True, text=True, timeout=TIMEOUT)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        if r.returncode != 0:
            raise RuntimeError('powerpolicyd --oneshot exited %d:\n%s%s' % (
                r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
        return self.controls(), r.stdout + r.stderr

    def run_tlp(self, battery):
        """`tlp start` with TLP's defaults, from the own values, the AC
        adapter online or not (`tlp ac`/`tlp bat` leave USB autosuspend to
        `tlp start` and TLP's udev rule);
        returns (controls, output) or (None, reason) when TLP is missing."""
        if shutil.which('tlp') is None:
            return None, 'tlp not installed'
        self.reset()
        self.set_source(battery)
        work = tempfile.mkdtemp(prefix='pp-notebooks-tlp-')
        try:
            conf = os.path.join(work, 'tlp.conf')
            with open(conf, 'w') as f:
                f.write('# TLP defaults (/usr/share/tlp/defaults.conf)\n')
            env = self.env()
            env['PP_NOTEBOOKS_PRELOAD'] = env.pop('LD_PRELOAD')
            env['PP_NOTEBOOKS_TLP_CONF'] = conf
            argv = ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', TLP_SCRIPT,
                    'pp-notebooks-tlp', 'tlp', 'start']
            r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=TIMEOUT)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        out = r.stdout + r.stderr
        if r.returncode != 0:
            raise RuntimeError('tlp exited %d:\n%s' % (r.returncode, out[-3000:]))
        # `tlp start` reads the power source itself; make sure it saw ours
        expected = 'battery mode' if battery else 'AC mode'
        if expected not in out:
            raise RuntimeError('tlp start did not start in %s:\n%s' % (expected, out[-3000:]))
        return self.controls(), out


# ---- judging ----------------------------------------------------------------

# USB interface classes that must not be suspended by a policy on its own
# (a keyboard or mouse loses its first input, audio clicks and drops,
# printers lose jobs): HID boot keyboards and mice, audio, printers
def safety_kind(interfaces):
    for cls, sub, proto, _ in interfaces:
        if cls == 3 and sub == 1 and proto in (1, 2):
            return 'input'
        if cls == 1:
            return 'audio'
        if cls == 7:
            return 'printer'
    return None


def allowed(controls):
    return {label for label, value in controls.items() if value == 'auto'}


def violations(nb, own, after):
    """Devices of a safety kind that are auto after a tool and were not
    auto by their own value (the kernel's, the driver's or udev's)."""
    out = []
    for label, value in after.items():
        if nb.kind[label] != 'usb' or value != 'auto' or own.get(label) == 'auto':
            continue
        kind = safety_kind(nb.interfaces[label])
        if kind:
            out.append((label, kind))
    return out


def judge(UMockdev, path, daemon, with_tlp=True, config=SHIPPED_CONFIG):
    """Everything for one machine: a dict the table and the test read."""
    nb = Notebook(UMockdev, path)
    props = nb.classify()
    own = nb.controls()
    result = {'name': nb.name, 'title': nb.m['title'], 'labels': sorted(nb.devices),
              'info': nb.info, 'kind': nb.kind, 'own': own,
              'class': {k: v.get('POWERPOLICY_CLASS', '') for k, v in props.items()},
              'hwdb': {k for k, v in props.items() if v.get('ID_AUTOSUSPEND') == '1'},
              'safety': {k: safety_kind(i) for k, i in nb.interfaces.items()},
              'usb_interfaces': {k: v.get('ID_USB_INTERFACES') for k, v in props.items()
                                 if nb.kind[k] == 'usb'},
              'runs': {}, 'logs': {}}
    for battery in (False, True):
        mode = 'battery' if battery else 'AC'
        controls, log = nb.run_powerpolicy(daemon, battery, config)
        result['runs']['powerpolicy ' + mode] = controls
        result['logs']['powerpolicy ' + mode] = log
        if with_tlp:
            controls, log = nb.run_tlp(battery)
            if controls is not None:
                result['runs']['TLP ' + mode] = controls
            result['logs']['TLP ' + mode] = log
    result['violations'] = {run: violations(nb, own, c) for run, c in result['runs'].items()}
    result['less_than_own'] = {
        run: sorted(allowed(own) - allowed(c)) for run, c in result['runs'].items()}
    nb.reset()
    return result
