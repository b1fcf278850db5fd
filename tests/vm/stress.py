# SPDX-License-Identifier: GPL-2.0-or-later
"""powerpolicy VM tier: hostile USB devices, a hotplug storm and kill -9
in the middle of it (issue 30), on the real kernel with USB gadgets
through dummy_hcd and configfs.

scenario_hostile is short and runs in the default run (the gadgets'
boot); the storm scenarios run with `tests/vm/run --stress` (make
test-vm-stress). Every scenario removes its gadgets, configfs
directories and modules in a finally block, whatever happened.
"""

import json
import os
import random
import re
import signal
import time

import vmlib
import scenarios as sc

CFS = '/sys/kernel/config/usb_gadget'

# the gadgets' host-side drivers and the gadget functions they use
MODULES = 'libcomposite usb_f_hid usb_f_acm usb_f_mass_storage usbhid cdc_acm usb-storage'

TEARDOWN = r"""CFS=/sys/kernel/config/usb_gadget
for G in $CFS/ppst-*; do
    [ -d "$G" ] || continue
    echo > $G/UDC 2>/dev/null
    rm -f $G/configs/c.1/*.*
    rmdir $G/configs/c.1/strings/0x409 $G/configs/c.1 $G/functions/* $G/strings/0x409 $G
done
rm -f /run/ppst-*
modprobe -r dummy_hcd usb_f_hid usb_f_acm usb_f_mass_storage
[ -z "$(ls -d $CFS/ppst-* 2>/dev/null)" ] && [ ! -e /sys/module/dummy_hcd ]
"""

# a gadget (name, vid, pid) with configuration c.1; its strings are
# written apart (write_bytes), so that they may hold any byte
MK = r"""mk() {
    G=$CFS/ppst-$1
    mkdir $G
    echo $2 > $G/idVendor; echo $3 > $G/idProduct
    echo 0x0200 > $G/bcdUSB; echo 0x0100 > $G/bcdDevice
    mkdir $G/strings/0x409
    mkdir -p $G/configs/c.1/strings/0x409
    echo ppst > $G/configs/c.1/strings/0x409/configuration
    echo 100 > $G/configs/c.1/MaxPower
}
CFS=/sys/kernel/config/usb_gadget
"""

SETUP = r"""set -e
modprobe dummy_hcd num=%(udcs)d
modprobe -a %(modules)s
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
"""

HID_DESC = ('05010906a101050719e029e71500250175019508810295017508810395057501050819012905910295017503'
            '910395067508150025650507190029658100c0')


def write_bytes(vm, files):
    """Write raw bytes ({path: bytes}) in the guest, any byte included."""
    spec = json.dumps({p: d.hex() for p, d in files.items()})
    vm.sh('python3 -c %s %s' % (vmlib.shquote(
        'import json,sys\nfor p,h in json.loads(sys.argv[1]).items():\n'
        '    open(p,"wb").write(bytes.fromhex(h))'), vmlib.shquote(spec)))


def share_bytes(vm, name):
    with open(os.path.join(vm.workdir, 'share', name), 'rb') as f:
        return f.read()


# ---------------------------------------------------------------------------
# 1. hostile strings, many interfaces, a device that vanishes while its
# driver binds

# terminal escape sequences (OSC title, clear screen, colour), BEL, a C1
# CSI (U+009B), a newline that would forge a log line, CR, DEL, invalid
# UTF-8 (0xff 0xfe, a truncated sequence): configfs takes any byte; the
# kernel makes UTF-16 of them for the descriptor (dropping invalid
# UTF-8), and the host side makes UTF-8 of that again
EVIL_MANUFACTURER = b'\x1b]0;PWNED\x07\x1b[2J\x1b[31mEvil\xc2\x9b1m Corp'
EVIL_PRODUCT = b'PPVM\nJan 01 00:00:00 ppvm powerpolicyd[1]: FORGED line\r\x7f Touch\x1b[0m'
# invalid UTF-8 makes the gadget's UTF-16 conversion fail (utf8s_to_utf16s
# answers -EINVAL), and the host side has no such string: it goes into
# the configuration's string, whose absence the host survives
EVIL_CONFIG = b'cfg\xff\xfe\xc3(\x1b[5m'
# the longest string configfs takes: 126 bytes (USB_MAX_STRING_LEN; a
# string descriptor holds at most 126 UTF-16 units)
LONGEST = 126
EVIL_SERIAL = (b'\x1b[7m' * 31 + b'Z\x07')
assert len(EVIL_SERIAL) == LONGEST


def longest(tag):
    s = b'\x1b[1m' + tag + b'\n'
    return s + b'L' * (LONGEST - len(s) - 1) + b'\x08'


# C0 controls other than tab and newline, DEL; C1 controls are checked on
# the decoded text
RAW_C0 = re.compile(rb'[\x00-\x08\x0b-\x1f\x7f]')
RAW_C1 = re.compile('[\u0080-\u009f]')


def raw_controls(data):
    """What in @data is a raw control character or invalid UTF-8: a list
    of short descriptions (empty: clean)."""
    bad = []
    for m in RAW_C0.finditer(data):
        bad.append('byte 0x%02x at %d: %r' % (data[m.start()], m.start(),
                                                data[max(0, m.start() - 40):m.start() + 20]))
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as e:
        bad.append('invalid UTF-8 at %d: %r' % (e.start, data[max(0, e.start - 40):e.start + 20]))
        text = data.decode('utf-8', 'replace')
    for m in RAW_C1.finditer(text):
        bad.append('C1 U+%04X: %r' % (ord(m.group()), text[max(0, m.start() - 40):m.start() + 20]))
    return bad[:10]


def bind_udc(vm, gadget, udc):
    vm.sh('echo %s > %s/ppst-%s/UDC' % (udc, CFS, gadget))


def udc_names(vm):
    return sorted(os.path.basename(p) for p in vm.glob('/sys/class/udc/*'))


def host_device(vm, vid, pid, timeout=60):
    return sc.usb_by_ids(vm, vid, pid, timeout)


def scenario_hostile(vm, hw):
    """Gadgets whose strings carry escape sequences, newlines, C1
    controls, invalid UTF-8 and the longest strings configfs takes; a
    gadget with as many interfaces as configfs and dummy_hcd allow; a
    mass-storage gadget detached at random moments while usb-storage
    binds. pmctl's list, show, tree, explain, wakeups, sleep-history (text
    and --json) and monitor, and the daemon's --verbose log, carry no raw
    control character; --json is valid JSON; the daemon keeps serving."""
    monitor = None
    try:
        vm.sh(SETUP % {'udcs': 3, 'modules': MODULES}, timeout=60)
        udcs = udc_names(vm)
        assert len(udcs) >= 3, 'dummy_hcd gave %s' % udcs
        sc.start(vm)
        monitor = vm.spawn([vm.powerpolicyd('pmctl'), 'monitor'], log='/run/ppvm/monitor.out')
        # A: HID, so that an input device is named after the strings
        # (hid-generic: "MANUFACTURER PRODUCT"), which the daemon logs
        vm.sh(MK + 'mk evil 0x1d6b 0x0110\nF=$G/functions/hid.usb0\nmkdir $F\n'
              'echo 0 > $F/protocol; echo 0 > $F/subclass; echo 8 > $F/report_length')
        s = CFS + '/ppst-evil/strings/0x409/'
        write_bytes(vm, {s + 'manufacturer': EVIL_MANUFACTURER, s + 'product': EVIL_PRODUCT,
                         s + 'serialnumber': EVIL_SERIAL,
                         CFS + '/ppst-evil/configs/c.1/strings/0x409/configuration': EVIL_CONFIG,
                         CFS + '/ppst-evil/functions/hid.usb0/report_desc': bytes.fromhex(HID_DESC)})
        vm.sh('ln -s %s/ppst-evil/functions/hid.usb0 %s/ppst-evil/configs/c.1/' % (CFS, CFS))
        bind_udc(vm, 'evil', udcs[0])
        # B: the longest strings, and as many interfaces as bind (two for
        # each ACM function; configfs allows 16 interfaces in a
        # configuration, dummy_hcd's endpoints fewer)
        vm.sh(MK + 'mk many 0x1d6b 0x0111\nfor i in $(seq 0 7); do mkdir $G/functions/acm.m$i; '
              'ln -s $G/functions/acm.m$i $G/configs/c.1/; done')
        s = CFS + '/ppst-many/strings/0x409/'
        # one byte more than the longest is refused by configfs
        rc, out = vm.sh("printf '%%0127d' 0 > %sproduct" % s, check=False)
        assert rc != 0, 'configfs took a 127-byte string'
        write_bytes(vm, {s + 'manufacturer': longest(b'M'), s + 'product': longest(b'P'),
                         s + 'serialnumber': longest(b'S')})
        functions = 8
        while True:
            rc, out = vm.sh('echo %s > %s/ppst-many/UDC' % (udcs[1], CFS), check=False)
            if rc == 0:
                break
            functions -= 1
            assert functions > 0, 'not even one ACM function binds: %s' % out
            vm.sh('rm %s/ppst-many/configs/c.1/acm.m%d' % (CFS, functions))
        evil = host_device(vm, '1d6b', '0110')
        many = host_device(vm, '1d6b', '0111')
        vm.wait({many + '/bNumInterfaces': str(2 * functions)}, 30, 'the interfaces of B')
        vm.wait({evil + '/product': True, many + '/product': True}, 30, 'the strings')
        got = vm.read(evil + '/manufacturer', evil + '/product', evil + '/serial',
                      evil + '/configuration', many + '/product', many + '/serial')
        print('hostile: %d ACM functions bound (%d interfaces) on %s; the strings as the kernel '
              'has them: %s' % (functions, 2 * functions, sc.name(many), json.dumps(got)))
        # (the kernel's UTF-16 round trip keeps every control character)
        assert '\x1b]0;PWNED\x07' in got[evil + '/manufacturer'], got
        assert '\nJan 01' in got[evil + '/product'], got
        # C: mass storage, detached at random moments while usb-storage
        # probes it and scans its SCSI host (delay_use: 1 s)
        vm.sh('dd if=/dev/zero of=/run/ppst-disk.img bs=1M count=4 2>/dev/null\n' + MK +
              'mk gone 0x1d6b 0x0112\nF=$G/functions/mass_storage.usb0\nmkdir $F\n'
              'echo 0 > $F/lun.0/removable\necho /run/ppst-disk.img > $F/lun.0/file\n'
              'echo PPVM Vanishing > $G/strings/0x409/product\n'
              'ln -s $F $G/configs/c.1/')
        rng = random.Random(os.environ.get('PP_VM_SEED', 30))
        delays = [round(rng.uniform(0, 1.5), 3) for _ in range(4)]
        for d in delays:
            vm.sh('echo %s > %s/ppst-gone/UDC; sleep %s; echo > %s/ppst-gone/UDC' % (
                udcs[2], CFS, d, CFS))
        print('hostile: the storage gadget detached %s s after each attach' % delays)
        vm.sh('udevadm settle --timeout=60', timeout=150)
        # the daemon has them all (the HID input device too)
        paths = {d.get('path') for d in sc.pmctl_json(vm, 'list')}
        assert evil in paths and many in paths, 'the gadgets are not managed: %s' % sorted(paths)
        gone = [p for p in paths if re.search(r'/dummy_hcd\.2/usb\d+/\d+-1(/|$)', p)]
        assert not gone, 'the vanished storage gadget is still listed: %s' % gone
        inputs = vm.glob(evil + '/*/0003:*/input/input*/name')
        assert inputs, 'no input device for the HID gadget'
        # every command, text and JSON, with the gadgets and a hostile
        # argument of the user's own
        hostile_arg = '\x1b]0;arg\x07\nno-such\x1b[2J'
        commands = [('list',), ('show', evil), ('show', many), ('show', hostile_arg),
                    ('tree',), ('explain', evil), ('explain', many), ('wakeups',),
                    ('sleep-history',)]
        problems = []
        runs = [(('--json',) if js else ()) + c for c in commands for js in (False, True)]
        # one guest command for them all (each pmctl's output and status in
        # a file of the share)
        pmctl = vm.powerpolicyd('pmctl')
        vm.sh('\n'.join('%s %s > /run/ppvm/pmctl-%d.out 2>&1; echo $? > /run/ppvm/pmctl-%d.rc' % (
            pmctl, ' '.join(vmlib.shquote(a) for a in args), i, i) for i, args in enumerate(runs)),
            timeout=300)
        for i, args in enumerate(runs):
            out = share_bytes(vm, 'pmctl-%d.out' % i)
            rc = int(share_bytes(vm, 'pmctl-%d.rc' % i))
            what = 'pmctl ' + ' '.join(map(repr, args))
            bad = raw_controls(out)
            if bad:
                problems.append('%s: %s' % (what, bad))
            if args[0] == '--json' and rc == 0:
                try:
                    json.loads(out.decode('utf-8'))
                except ValueError as e:
                    problems.append('%s: not JSON (%s): %r' % (what, e, out[:300]))
            if hostile_arg not in args and rc != 0:
                problems.append('%s exited %s: %r' % (what, rc, out[:300]))
            elif hostile_arg in args and rc == 0:
                problems.append('%s: no error for a device that does not exist' % what)
        # the daemon keeps serving; then monitor and the log
        sc.pmctl_json(vm, 'status')
        vm.kill(monitor, signal.SIGTERM)
        vm.waitpid(monitor, 10)
        monitor = None
        for f in ('monitor.out', 'daemon.log'):
            bad = raw_controls(share_bytes(vm, f))
            if bad:
                problems.append('%s: %s' % (f, bad))
        log = share_bytes(vm, 'daemon.log')
        forged = [ln for ln in log.split(b'\n') if ln.startswith(b'Jan 01 00:00:00 ppvm')]
        if forged:
            problems.append('daemon.log: forged lines %r' % forged)
        assert not problems, 'raw control characters or broken output:\n' + '\n'.join(problems)
        sc.stop(vm)
    finally:
        if monitor is not None:
            vm.kill(monitor, signal.SIGKILL)
        vm.sh(TEARDOWN, timeout=60)


# ---------------------------------------------------------------------------
# 2. a hotplug storm, 3. kill -9 in the middle of it (make test-vm-stress)

# the guest's side of the storm: detach the gadget's UDC, wait for its
# host side to go, attach, wait for it, every second cycle unbind cdc_acm
# from it and bind it again; until @cycles or the stop file. Progress in
# a file of the share; a step that does not happen within 20 s ends it
# with the reason.
STORM_PY = r'''
import glob, json, os, sys, time
gadget, udc, cycles, stop, progress = sys.argv[1:6]
cycles = int(cycles)
DRV = '/sys/bus/usb/drivers/cdc_acm/'

def dev():
    for p in glob.glob('/sys/bus/usb/devices/*/idProduct'):
        try:
            if open(p).read().strip() == '0120' and \
                    open(os.path.dirname(p) + '/idVendor').read().strip() == '1d6b':
                return os.path.dirname(p)
        except OSError:
            pass
    return None

def until(cond, what):
    for _ in range(2000):
        v = cond()
        if v:
            return v
        time.sleep(0.02)
    raise SystemExit('storm: %s did not happen within 40 s' % what)

def udc_write(v):
    with open(gadget + '/UDC', 'w') as f:
        f.write(v + '\n')

done = rebinds = 0
t0 = time.monotonic()
def report(final=False):
    with open(progress + '.tmp', 'w') as f:
        json.dump({'cycles': done, 'rebinds': rebinds, 'seconds': time.monotonic() - t0,
                   'final': final}, f)
    os.rename(progress + '.tmp', progress)

# the gadget is attached at the start and at the end of every cycle
while done < cycles and not os.path.exists(stop):
    udc_write('')
    until(lambda: dev() is None, 'the gadget gone')
    udc_write(udc)
    d = until(dev, 'the host side of the gadget')
    intf = os.path.basename(d) + ':1.0'
    if done % 2 == 0:
        until(lambda: os.path.exists(DRV + intf), 'cdc_acm bound')
        with open(DRV + 'unbind', 'w') as f:
            f.write(intf)
        until(lambda: not os.path.exists(DRV + intf), 'cdc_acm unbound')
        with open(DRV + 'bind', 'w') as f:
            f.write(intf)
        until(lambda: os.path.exists(DRV + intf), 'cdc_acm bound again')
        rebinds += 1
    done += 1
    if done % 10 == 0:
        report()
report(True)
'''

# a client of the daemon: ListDevices and GetStatistics("") every 100 ms
# until the stop file; every call's outcome and the slowest answer
CLIENT_PY = r'''
import json, os, sys, time
import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib
stop, out = sys.argv[1:3]
bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
r = {'calls': 0, 'answered': 0, 'errors': [], 'slowest_ms': 0.0}
def call(method, args):
    t = time.monotonic()
    r['calls'] += 1
    try:
        bus.call_sync('org.powerpolicy1', '/org/powerpolicy1', 'org.powerpolicy1.Manager',
                      method, args, None, Gio.DBusCallFlags.NONE, 25000, None)
        r['answered'] += 1
    except GLib.Error as e:
        if len(r['errors']) < 20:
            r['errors'].append('%s: %s' % (method, e.message))
    r['slowest_ms'] = max(r['slowest_ms'], (time.monotonic() - t) * 1000)
while not os.path.exists(stop):
    t = time.monotonic()
    call('ListDevices', None)
    call('GetStatistics', GLib.Variant('(s)', ('',)))
    if r['calls'] % 20 == 0:
        with open(out + '.tmp', 'w') as f:
            json.dump(r, f)
        os.rename(out + '.tmp', out)
    time.sleep(max(0.0, 0.1 - (time.monotonic() - t)))
r['final'] = True
with open(out + '.tmp', 'w') as f:
    json.dump(r, f)
os.rename(out + '.tmp', out)
'''

STORM_GADGET = MK + r"""mk storm 0x1d6b 0x0120
echo "PPVM Storm" > $G/strings/0x409/product
echo "PPST-0001" > $G/strings/0x409/serialnumber
mkdir $G/functions/acm.usb0
ln -s $G/functions/acm.usb0 $G/configs/c.1/
"""

RUNTIME_DIR = '/run/powerpolicy'
STATE_DIR = '/var/lib/powerpolicy'


def storm_cycles():
    return int(os.environ.get('PP_VM_STORM_CYCLES', '1000'))


def setup_storm(vm):
    vm.sh(SETUP % {'udcs': 1, 'modules': MODULES}, timeout=60)
    udc = udc_names(vm)[0]
    vm.sh(STORM_GADGET)
    bind_udc(vm, 'storm', udc)
    dev = host_device(vm, '1d6b', '0120')
    # (the driver's link to the interface; the agent reads files)
    ok, _, _ = vm.poll({'/sys/bus/usb/drivers/cdc_acm/%s:1.0/bInterfaceClass' % sc.name(dev): '02'},
                       30)
    assert ok, 'cdc_acm not bound to the gadget after 30 s:\n' + vm.sh(
        'ls %s; cat %s/*:1.0/modalias; lsmod | grep -i acm; dmesg | tail -20' % (dev, dev),
        check=False)[1]
    vm.write('/run/ppst-storm.py', STORM_PY)
    vm.write('/run/ppst-client.py', CLIENT_PY)
    vm.sh('udevadm settle --timeout=60', timeout=150)
    return udc, dev


def spawn_storm(vm, udc, cycles, tag):
    vm.sh('rm -f /run/ppst-stop-storm /run/ppvm/%s.json' % tag)
    return vm.spawn(['/usr/bin/python3', '/run/ppst-storm.py', '%s/ppst-storm' % CFS, udc,
                     str(cycles), '/run/ppst-stop-storm', '/run/ppvm/%s.json' % tag],
                    log='/run/ppvm/%s.log' % tag)


def progress(vm, name):
    try:
        return json.loads(share_bytes(vm, name))
    except (OSError, ValueError):
        return {}


def wait_storm(vm, pid, tag, timeout):
    """Wait for the storm to end (its progress file, read on the host: the
    agent answers slowly in a storm); its last progress."""
    t0 = time.monotonic()
    while not progress(vm, tag + '.json').get('final'):
        assert time.monotonic() - t0 < timeout, 'the storm ran past %d s: %s\n%s' % (
            timeout, progress(vm, tag + '.json'), vm.share_file(tag + '.log'))
        if os.path.getsize(os.path.join(vm.workdir, 'share', tag + '.log')) > 0:
            break
        time.sleep(2)
    rc = vm.waitpid(pid, 120)
    p = progress(vm, tag + '.json')
    assert rc == 0 and p.get('final'), 'the storm failed (%s): %s\n%s' % (
        rc, p, vm.share_file(tag + '.log'))
    return p


def drain_udev(vm, bound, what):
    """Wait until udev has sent every event of @what: a storm outruns
    udevd under TCG, which then works through a backlog of events for
    devices long gone. Its queue is empty when /run/udev/queue is gone
    (udevd removes it then; udevadm settle waits for the same). Bounded by
    @bound seconds (the host's); then `udevadm settle`, whose wait for
    udevd's answer to its ping came first: one given --timeout=120 while
    udevd had a backlog still ran when the agent's 150 s were over, so the
    agent's bound over it is more than twice its --timeout. The seconds
    it took."""
    t0 = time.monotonic()
    ok, _, _ = vm.poll({'/run/udev/queue': None}, bound, interval=0.5)
    assert ok, 'udev still had events queued %.0f s after %s' % (bound, what)
    vm.sh('udevadm settle --timeout=60', timeout=150)
    return time.monotonic() - t0


def daemon_figures(vm, pid):
    """(RssAnon in kB, open file descriptors) of @pid."""
    out = vm.sh("grep '^RssAnon:' /proc/%d/status; ls /proc/%d/fd | wc -l" % (pid, pid))
    lines = out.split('\n')
    return int(lines[0].split()[1]), int(lines[1])


def state_files(vm):
    """The files the daemon leaves in its runtime and state directories."""
    out = vm.sh('find %s %s -type f 2>/dev/null; true' % (RUNTIME_DIR, STATE_DIR))
    return sorted(out.split())


def scenario_storm(vm, hw):
    """PP_VM_STORM_CYCLES (default 1000) attach/detach cycles of an ACM
    gadget, cdc_acm unbound and bound again in every second one, while a
    client asks ListDevices and GetStatistics every 100 ms: every call
    answered, the daemon's RssAnon back within 1 MiB and its descriptors
    back to their count, and SIGTERM restores the boot snapshot."""
    client = None
    try:
        udc, dev = setup_storm(vm)
        boot = vm.snapshot()
        files0 = state_files(vm)
        sc.start(vm)
        pid = vm.daemon
        vm.sh('rm -f /run/ppst-stop-client')
        client = vm.spawn(['/usr/bin/python3', '/run/ppst-client.py', '/run/ppst-stop-client',
                           '/run/ppvm/client.json'], log='/run/ppvm/client.log')
        # warm up: the client's first calls and ten cycles, so that what
        # GLib and the daemon allocate once is in the baseline
        t0 = time.monotonic()
        while progress(vm, 'client.json').get('calls', 0) < 20:
            assert time.monotonic() - t0 < 120, 'the client made no calls: %s' % vm.share_file(
                'client.log')
            time.sleep(1)
        start_figures = daemon_figures(vm, pid)
        wait_storm(vm, spawn_storm(vm, udc, 10, 'warmup'), 'warmup', 300)
        drain_udev(vm, 120, 'the warm-up')
        rss0, fd0 = daemon_figures(vm, pid)
        cycles = storm_cycles()
        ts = time.monotonic()
        p = wait_storm(vm, spawn_storm(vm, udc, cycles, 'storm'), 'storm', 60 + cycles * 3)
        storm_s = time.monotonic() - ts
        # (udev may take as long again as the storm did)
        drain_s = drain_udev(vm, max(120, storm_s), 'the storm')
        # the daemon is done with the last events when its descriptors are
        # back (udev's monitor hands it each event; bounded wait)
        t0 = time.monotonic()
        while True:
            rss1, fd1 = daemon_figures(vm, pid)
            if fd1 == fd0 or time.monotonic() - t0 > 60:
                break
            time.sleep(1)
        vm.write('/run/ppst-stop-client', '')
        assert vm.waitpid(client, 120) == 0, vm.share_file('client.log')
        client = None
        c = progress(vm, 'client.json')
        print('storm: %d cycles (%d cdc_acm rebinds) in %.0f s (guest %.0f s), udev done %.0f s '
              'later; client: %d calls, %d answered, slowest %.0f ms; daemon RssAnon %d kB at '
              'start, %d kB after warm-up, %d kB after; fds %d at start, %d after warm-up, '
              '%d after' % (
                  p['cycles'], p['rebinds'], storm_s, p['seconds'], drain_s, c['calls'],
                  c['answered'], c['slowest_ms'], start_figures[0], rss0, rss1, start_figures[1],
                  fd0, fd1))
        assert p['cycles'] == cycles, p
        assert c.get('final') and c['calls'] > 0 and c['answered'] == c['calls'], \
            'not every call answered: %s' % c
        assert fd1 == fd0, 'the daemon holds %d descriptors after the storm, %d before' % (fd1, fd0)
        assert rss1 - rss0 <= 1024, 'RssAnon grew by %d kB over the storm' % (rss1 - rss0)
        sc.pmctl_json(vm, 'status')
        assert dev in {d.get('path') for d in sc.pmctl_json(vm, 'list')}, \
            'the gadget, attached again, is not managed'
        sc.stop(vm)
        d = sc.diff(boot, vm.snapshot())
        assert not d, 'after the storm and SIGTERM not every value is back:\n' + '\n'.join(d)
        left = sorted(set(state_files(vm)) - set(files0))
        assert not left, 'state files left behind: %s' % left
    finally:
        if client is not None:
            vm.kill(client, signal.SIGKILL)
        vm.sh('touch /run/ppst-stop-storm; sleep 0.5', check=False)
        vm.sh(TEARDOWN, timeout=60)


def scenario_crashes(vm, hw):
    """kill -9 of the daemon at ten random moments of a storm, each
    followed by a restart; after the last restart and SIGTERM every power
    attribute and module parameter equals the boot snapshot and no state
    file is left behind."""
    storm = None
    try:
        udc, dev = setup_storm(vm)
        boot = vm.snapshot()
        files0 = state_files(vm)
        sc.start(vm)
        rng = random.Random(os.environ.get('PP_VM_SEED', 30))
        # an endless storm (stopped by its file), killed into at random
        storm = spawn_storm(vm, udc, 10 ** 6, 'crashes')
        ts = time.monotonic()
        moments = []
        for i in range(10):
            wait = rng.uniform(0.5, 6.0)
            time.sleep(wait)
            before = progress(vm, 'crashes.json').get('cycles', 0)
            pid, vm.daemon = vm.daemon, None
            vm.kill(pid, signal.SIGKILL)
            assert vm.waitpid(pid, 120) is not None, 'powerpolicyd survived SIGKILL'
            moments.append('%.1f s (cycle %d)' % (wait, before))
            # a restart in the middle of the storm
            sc.start(vm)
        vm.write('/run/ppst-stop-storm', '')
        p = wait_storm(vm, storm, 'crashes', 120)
        storm = None
        drain_s = drain_udev(vm, max(120, time.monotonic() - ts), 'the storm')
        print('crashes: kill -9 after %s; the storm ran %d cycles in %.0f s (guest), udev done '
              '%.0f s later' % (', '.join(moments), p['cycles'], p['seconds'], drain_s))
        assert p['cycles'] > 10, 'the storm hardly ran: %s' % p
        sc.pmctl_json(vm, 'status')
        sc.stop(vm)
        d = sc.diff(boot, vm.snapshot())
        assert not d, 'after ten kill -9, restarts and SIGTERM not every value is back:\n' + \
            '\n'.join(d)
        left = sorted(set(state_files(vm)) - set(files0))
        assert not left, 'state files left behind: %s' % left
    finally:
        vm.sh('touch /run/ppst-stop-storm', check=False)
        if storm is not None:
            vm.waitpid(storm, 60)
        vm.sh(TEARDOWN, timeout=60)


# a guest udev rule that lets the e1000e PCI function suspend (qemu has
# no battery; class pci is auto only on battery), so that the daemon has
# written something to it when its driver goes
NET_RULE = '/etc/udev/rules.d/61-ppvm-net.rules'


def net_rule(vm, on):
    if on:
        vm.write(NET_RULE, 'SUBSYSTEM=="pci", ATTR{class}=="0x020000", '
                 'ENV{POWERPOLICY_AUTOSUSPEND}="1"\n')
    else:
        vm.sh('rm -f ' + NET_RULE)
    vm.sh('udevadm control --reload && '
          'udevadm trigger --action=change --subsystem-match=pci --attr-match=class=0x020000 '
          '&& udevadm settle --timeout=60', timeout=150)


def scenario_pciunbind(vm, hw):
    """A PCI driver's unbind (e1000e) is handled like a removal: what the
    daemon wrote to the function is written back (the kernel shows its
    own value), the device leaves ListDevices; bind brings it and the
    policy back; SIGTERM restores the boot snapshot."""
    bdf = sc.name(hw.net)
    assert vm.glob(hw.net + '/driver'), 'e1000e not bound to %s' % bdf
    drv = vm.realpath(hw.net + '/driver')
    try:
        net_rule(vm, True)
        boot = vm.snapshot()
        own = vm.read(hw.net + '/power/control')
        sc.start(vm)
        vm.wait({hw.net + '/power/control': 'auto'}, 30, 'the policy on the e1000e function')
        vm.sh('echo %s > %s/unbind' % (bdf, drv))
        t0 = time.monotonic()
        while hw.net in {d.get('path') for d in sc.pmctl_json(vm, 'list')}:
            assert time.monotonic() - t0 < 30, 'the unbound function is still listed after 30 s'
            time.sleep(0.5)
        now = vm.read(hw.net + '/power/control')
        assert now == own, 'after unbind power/control reads %s, its own value is %s' % (now, own)
        sc.pmctl_json(vm, 'status')
        vm.sh('echo %s > %s/bind' % (bdf, drv))
        vm.wait({hw.net + '/power/control': 'auto'}, 30, 'the policy back after bind')
        assert hw.net in {d.get('path') for d in sc.pmctl_json(vm, 'list')}, 'not listed after bind'
        sc.stop(vm)
        d = sc.diff(boot, vm.snapshot())
        assert not d, 'after unbind, bind and SIGTERM not every value is back:\n' + '\n'.join(d)
    finally:
        if not vm.glob(hw.net + '/driver'):
            vm.sh('echo %s > %s/bind' % (bdf, drv), check=False)
        net_rule(vm, False)
