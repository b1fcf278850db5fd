# SPDX-License-Identifier: GPL-2.0-or-later
"""powerpolicy VM tier: a real kernel under qemu (host side).

A Debian kernel (/boot/vmlinuz-*, its modules under /lib/modules) boots
under qemu (TCG) with an initramfs built here at test time: busybox and the
modules 9p, virtio, overlay, xHCI, USB storage, HID, AHCI, NVMe, e1000e and
HD audio need. Its /init mounts the host's root read-only over 9p, puts
tmpfs and tmpfs-backed overlays where the guest writes, and switch_roots
into tests/vm/agent.py, which answers requests over a virtio-serial port.
A second 9p share, the work directory's share/, is writable: the daemon's
log and the agent's copy live there. The work directory (a mktemp) is
removed when the VM is; qemu is killed at the latest when the boot's
deadline passes.

Everything the guest writes stays in the guest (its tmpfs and overlays)
or in the work directory.
"""

import glob
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.abspath(os.path.join(HERE, '..', '..'))
QEMU = 'qemu-system-x86_64'
BUSYBOX = '/bin/busybox'

# what /init loads, in this order, with every dependency modprobe names
MODULES = ['virtio_pci', '9pnet_virtio', '9p', 'virtio_console', 'overlay',
           'xhci_pci', 'usb_storage', 'uas', 'sd_mod', 'usbhid', 'hid_generic',
           'evdev', 'ahci', 'nvme', 'e1000e', 'snd_hda_intel']

# other power tools' udev rules, masked in the guest: the host's own
# rules are the guest's, and TLP's or hdparm's would reset what we set
FOREIGN_RULES = ('*tlp*', '*hdparm*', '*laptop-mode*', '*laptop_mode*', '*powertop*',
                 '*tuned*', '*auto-cpufreq*', '*power-profiles*')
RULES_DIRS = ('/lib/udev/rules.d', '/usr/lib/udev/rules.d', '/etc/udev/rules.d',
              '/usr/local/lib/udev/rules.d')


class VMError(Exception):
    pass


def die_with_parent():
    """In qemu's child before exec: SIGKILL when the harness dies, however
    it dies (PR_SET_PDEATHSIG), so that no qemu outlives the test."""
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)


def exit_on_sigterm():
    """SIGTERM (a CI timeout) unwinds like Ctrl-C: qemu is killed and the
    work directory removed on the way out."""
    def handler(signum, frame):
        raise SystemExit('terminated by signal %d' % signum)
    signal.signal(signal.SIGTERM, handler)


def find_kernel():
    """(version, vmlinuz) of a kernel with its modules; VMError naming
    what is missing otherwise."""
    if shutil.which(QEMU) is None:
        raise VMError('%s not found (Debian: apt-get install qemu-system-x86, or make deps)' % QEMU)
    if not os.path.exists(BUSYBOX):
        raise VMError('%s not found (Debian: apt-get install busybox-static, or make deps)' % BUSYBOX)
    with open(BUSYBOX, 'rb') as f:
        if b'ld-linux' in f.read(4096):
            raise VMError('%s is dynamically linked: the initramfs needs busybox-static' % BUSYBOX)
    found = []
    for vmlinuz in glob.glob('/boot/vmlinuz-*'):
        ver = vmlinuz[len('/boot/vmlinuz-'):]
        if os.path.exists('/lib/modules/%s/modules.dep' % ver) and os.access(vmlinuz, os.R_OK):
            found.append((ver, vmlinuz))
    if not found:
        raise VMError('no readable /boot/vmlinuz-* with modules under /lib/modules '
                      '(Debian: apt-get install linux-image-amd64, or make deps)')
    pref = os.environ.get('PP_VM_KERNEL')
    if pref:
        for ver, vmlinuz in found:
            if ver == pref:
                return ver, vmlinuz
        raise VMError('PP_VM_KERNEL=%s: no such kernel with modules' % pref)

    def key(vk):
        return [int(x) if x.isdigit() else x for x in re.split(r'[.-]', vk[0])]
    found.sort(key=lambda vk: [str(k).zfill(8) for k in key(vk)])
    return found[-1]


def module_files(kver):
    files = []
    for m in MODULES:
        r = subprocess.run(['modprobe', '--show-depends', '-S', kver, m],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise VMError('modprobe --show-depends %s for %s failed: %s' % (m, kver, r.stderr.strip()))
        for line in r.stdout.splitlines():
            parts = line.split()
            if parts and parts[0] == 'insmod' and parts[1] not in files:
                files.append(parts[1])
    for f in files:
        if not f.endswith('.ko'):
            raise VMError('%s: compressed modules are not supported by busybox insmod' % f)
    return files


class Cpio:
    """A newc cpio archive (what the kernel unpacks as initramfs)."""

    def __init__(self, path):
        self.f = open(path, 'wb')
        self.ino = 1

    def _entry(self, name, mode, data=b'', target=None):
        if target is not None:
            data = target.encode()
        name_b = name.encode() + b'\0'
        hdr = '070701' + ''.join('%08x' % v for v in (
            self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name_b), 0))
        self.ino += 1
        self.f.write(hdr.encode() + name_b)
        self.f.write(b'\0' * ((4 - (110 + len(name_b)) % 4) % 4))
        self.f.write(data)
        self.f.write(b'\0' * ((4 - len(data) % 4) % 4))

    def dir(self, name):
        self._entry(name, stat.S_IFDIR | 0o755)

    def file(self, name, data, mode=0o644):
        self._entry(name, stat.S_IFREG | mode, data)

    def close(self):
        self._entry('TRAILER!!!', 0)
        self.f.close()


# What both /init scripts do first: the kernel's file systems, busybox's
# applets and the modules of the initramfs.
INIT_COMMON = r"""/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo "ppvm: loading modules"
for m in $(cat /modules.list); do insmod "$m" || echo "ppvm: insmod $m failed"; done
"""

INIT = r"""#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /newroot /ovl
""" + INIT_COMMON + r"""mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=524288 hostroot /newroot || {
    echo "ppvm: FATAL cannot mount the host root over 9p"; poweroff -f; }
for d in tmp run dev/shm; do mount -t tmpfs -o mode=1777 tmpfs /newroot/$d 2>/dev/null || mount -t tmpfs tmpfs /newroot/$d; done
chmod 755 /newroot/run
mount -t tmpfs tmpfs /ovl
for d in etc var root; do
    mkdir -p /ovl/$d/up /ovl/$d/work
    mount -t overlay overlay -o lowerdir=/newroot/$d,upperdir=/ovl/$d/up,workdir=/ovl/$d/work /newroot/$d || {
        echo "ppvm: FATAL overlay on /$d"; poweroff -f; }
done
mkdir -p /newroot/run/ppvm
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 ppshare /newroot/run/ppvm || {
    echo "ppvm: FATAL cannot mount the share"; poweroff -f; }
mount --move /dev /newroot/dev
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
echo "ppvm: switch_root"
exec switch_root /newroot /usr/bin/python3 /run/ppvm/agent.py
"""


# For a boot with systemd as PID 1 (tests/vm/systemd.py): the guest's root
# is one tmpfs-backed overlay on the host root (9p, read-only), so that
# the guest can also remove files: the host's /.dockerenv (in a container
# host) would make systemd believe it runs in a container. The installed
# tree staged in the share (root/) is copied over it before switch_root,
# and systemd starts the agent as a service (ppvm-agent.service).
INIT_SYSTEMD = r"""#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /newroot /ovl /lower
""" + INIT_COMMON + r"""mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=524288 hostroot /lower || {
    echo "ppvm: FATAL cannot mount the host root over 9p"; poweroff -f; }
mount -t tmpfs tmpfs /ovl
mkdir -p /ovl/up /ovl/work
# after a system sleep the 9p lower is dead (its fids are gone with qemu's
# device reset) and 9p answers readlink and the lookup of a missing name
# only from the host: the upper layer owns the root's symlinks (/lib, /bin,
# ... of the merged /usr, which every exec and path walk crosses) and a
# whiteout for /selinux (libselinux's constructor looks it up in every
# program linked with it); tests/vm/README.md
for l in /lower/*; do [ -L "$l" ] && ln -s "$(readlink "$l")" /ovl/up/"${l##*/}"; done
[ -e /lower/selinux ] || mknod /ovl/up/selinux c 0 0
mount -t overlay overlay -o lowerdir=/lower,upperdir=/ovl/up,workdir=/ovl/work /newroot || {
    echo "ppvm: FATAL overlay on /"; poweroff -f; }
for d in tmp run dev/shm; do mount -t tmpfs -o mode=1777 tmpfs /newroot/$d; done
chmod 755 /newroot/run
mkdir -p /newroot/run/ppvm
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 ppshare /newroot/run/ppvm || {
    echo "ppvm: FATAL cannot mount the share"; poweroff -f; }
rm -f /newroot/.dockerenv /newroot/run/.containerenv
for d in /newroot/run/ppvm/root/*; do cp -a "$d"/. /newroot/"${d##*/}"/ || {
    echo "ppvm: FATAL cannot copy the installed tree ($d)"; poweroff -f; }; done
mount --move /dev /newroot/dev
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
echo "ppvm: switch_root into systemd"
exec switch_root /newroot /lib/systemd/systemd
"""


def build_initramfs(path, kver, init=INIT):
    cp = Cpio(path)
    for d in ('bin', 'sbin', 'lib', 'lib/modules', 'proc', 'sys', 'dev', 'newroot', 'ovl', 'lower'):
        cp.dir(d)
    with open(BUSYBOX, 'rb') as f:
        cp.file('bin/busybox', f.read(), 0o755)
    cp.file('init', init.encode(), 0o755)
    names = []
    for i, ko in enumerate(module_files(kver)):
        name = 'lib/modules/%02d-%s' % (i, os.path.basename(ko))
        with open(ko, 'rb') as f:
            cp.file(name, f.read())
        names.append('/' + name)
    cp.file('modules.list', ('\n'.join(names) + '\n').encode())
    cp.close()


class QMP:
    def __init__(self, path, timeout):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise VMError('QMP socket %s did not appear' % path)
                time.sleep(0.05)
        self.sock.settimeout(30)
        self.f = self.sock.makefile('rwb', buffering=0)
        self.events = []
        self._recv()   # greeting
        self.cmd('qmp_capabilities')

    def _recv(self):
        line = self.f.readline()
        if not line:
            raise VMError('QMP connection closed')
        return json.loads(line)

    def cmd(self, name, **args):
        msg = {'execute': name}
        if args:
            msg['arguments'] = args
        self.f.write((json.dumps(msg) + '\n').encode())
        while True:
            r = self._recv()
            if 'event' in r:
                self.events.append(r)
                continue
            if 'error' in r:
                raise VMError('QMP %s: %s' % (name, r['error'].get('desc')))
            return r.get('return')

    def wait_event(self, name, timeout=30, pred=None):
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e['event'] == name and (pred is None or pred(e)):
                    return self.events.pop(i)
            left = deadline - time.monotonic()
            if left <= 0:
                raise VMError('no QMP event %s within %ds' % (name, timeout))
            self.sock.settimeout(left)
            try:
                r = self._recv()
            except socket.timeout:
                continue
            finally:
                self.sock.settimeout(30)
            if 'event' in r:
                self.events.append(r)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class VM:
    """One boot of the guest. Use as a context manager: qemu is killed
    and the work directory removed on the way out, whatever happened."""

    def __init__(self, builddir, deadline_s=240, extra_drives=('stick2', 'stick3'), s3=True,
                 log=print, systemd=None, extra_args=(), prepare=None):
        # extra_args: more qemu arguments (devices a scenario or a benchmark
        # adds to the laptop below), appended as given
        # prepare: None, or a function(workdir) that writes the files more
        # devices need into the work directory (an ACPI table, a phone's
        # directory) and returns their qemu arguments, appended after
        # extra_args; it runs before qemu starts
        # systemd: None (the agent is PID 1), or a function that stages the
        # guest's installed tree in the share (tests/vm/systemd.py); the
        # guest then boots systemd as PID 1
        self.systemd = systemd
        self.builddir = os.path.abspath(builddir)
        self.deadline = time.monotonic() + deadline_s
        self.extra_drives = extra_drives
        self.s3 = s3
        self.extra_args = tuple(extra_args)
        self.prepare = prepare
        self.log = log
        self.proc = None
        self.qmp = None
        self.ctl = None
        self.workdir = None
        self.req_id = 0
        self.daemon = None
        self.boot_s = None
        # why the guest can run no more commands (after a system sleep)
        self.poisoned = None
        # kernel command line for a boot into systemd
        self.systemd_cmdline = (' systemd.unit=ppvm.target fstab=no systemd.show_status=false '
                                'systemd.journald.forward_to_console=0')

    # -- lifecycle ----------------------------------------------------------

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def argv(self, kver, vmlinuz):
        w = self.workdir
        a = [QEMU, '-machine', 'q35', '-accel', 'tcg,thread=multi,tb-size=256',
             '-cpu', 'max', '-smp', '1', '-m', '768', '-display', 'none', '-vga', 'none',
             '-monitor', 'none', '-serial', 'file:' + os.path.join(w, 'console.log'),
             '-no-reboot', '-nodefaults',
             '-kernel', vmlinuz, '-initrd', os.path.join(w, 'initramfs.cpio'),
             '-append', 'console=ttyS0 rdinit=/init panic=-1 loglevel=6 '
                        'mem_sleep_default=deep' + (self.systemd_cmdline if self.systemd else ''),
             '-qmp', 'unix:%s,server=on,wait=off' % os.path.join(w, 'qmp.sock'),
             '-virtfs', 'local,path=/,mount_tag=hostroot,security_model=none,readonly=on,'
                        'multidevs=remap,id=hostroot',
             '-virtfs', 'local,path=%s,mount_tag=ppshare,security_model=none,id=ppshare'
                        % os.path.join(w, 'share'),
             '-chardev', 'socket,id=ctl,path=%s,server=on,wait=off' % os.path.join(w, 'ctl.sock'),
             '-device', 'virtio-serial-pci,id=vser',
             '-device', 'virtserialport,chardev=ctl,name=ppctl',
             # a laptop's hardware: xHCI with a hub, keyboard, mouse, stick
             '-device', 'qemu-xhci,id=xhci',
             '-device', 'usb-hub,bus=xhci.0,port=1,id=hub',
             '-device', 'usb-kbd,bus=xhci.0,port=1.1,id=kbd',
             '-device', 'usb-mouse,bus=xhci.0,port=1.2,id=mouse',
             '-drive', 'if=none,id=stick,format=raw,file=' + self.image('stick'),
             '-device', 'usb-storage,bus=xhci.0,port=2,drive=stick,id=stickdev',
             '-drive', 'if=none,id=sata,format=raw,file=' + self.image('sata'),
             '-device', 'ide-hd,bus=ide.0,drive=sata',
             '-drive', 'if=none,id=nvm,format=raw,file=' + self.image('nvme'),
             '-device', 'nvme,serial=ppvm0001,drive=nvm',
             '-netdev', 'user,id=net0,restrict=on',
             '-device', 'e1000e,netdev=net0',
             '-audiodev', 'none,id=snd0',
             '-device', 'intel-hda', '-device', 'hda-duplex,audiodev=snd0']
        if self.s3:
            a += ['-global', 'ICH9-LPC.disable_s3=0']
        for d in self.extra_drives:
            a += ['-drive', 'if=none,id=%s,format=raw,file=%s' % (d, self.image(d))]
        return a + list(self.extra_args)

    def image(self, name):
        p = os.path.join(self.workdir, name + '.img')
        if not os.path.exists(p):
            with open(p, 'wb') as f:
                f.truncate(16 << 20)
        return p

    def start(self):
        kver, vmlinuz = find_kernel()
        if os.geteuid() != 0:
            raise VMError('the VM tier needs root (qemu reads /boot and shares / over 9p '
                          'with security_model=none)')
        t0 = time.monotonic()
        self.workdir = tempfile.mkdtemp(prefix='ppvm-')
        os.makedirs(os.path.join(self.workdir, 'share'))
        shutil.copy(os.path.join(HERE, 'agent.py'), os.path.join(self.workdir, 'share', 'agent.py'))
        if self.systemd:
            self.systemd(self, os.path.join(self.workdir, 'share', 'root'))
        if self.prepare is not None:
            self.extra_args += tuple(self.prepare(self.workdir))
        build_initramfs(os.path.join(self.workdir, 'initramfs.cpio'), kver,
                        INIT_SYSTEMD if self.systemd else INIT)
        self.qemu_log = open(os.path.join(self.workdir, 'qemu.log'), 'wb')
        self.proc = subprocess.Popen(self.argv(kver, vmlinuz), stdin=subprocess.DEVNULL,
                                     stdout=self.qemu_log, stderr=subprocess.STDOUT,
                                     start_new_session=True, preexec_fn=die_with_parent)
        self.qmp = QMP(os.path.join(self.workdir, 'qmp.sock'), 20)
        self.ctl = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.ctl.connect(os.path.join(self.workdir, 'ctl.sock'))
        self._buf = b''
        self._ready = self._read_reply(None, min(300 if self.systemd else 120, self.left()))
        self.boot_s = time.monotonic() - t0
        self.log('vm: booted %s to the agent in %.1f s' % (kver, self.boot_s))

    def left(self):
        return self.deadline - time.monotonic()

    def close(self):
        if self.proc is not None:
            if self.proc.poll() is None and self.ctl is not None:
                try:
                    self.ctl.settimeout(3)
                    self.ctl.sendall(b'{"op": "poweroff"}\n')
                    self.proc.wait(timeout=5)
                except (OSError, subprocess.TimeoutExpired, socket.timeout):
                    pass
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            self.qemu_log.close()
            self.proc = None
        if self.qmp:
            self.qmp.close()
        if self.ctl:
            self.ctl.close()
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def kill_if_late(self):
        if self.left() <= 0:
            raise VMError('the boot ran past its deadline; qemu is killed')

    # -- diagnostics --------------------------------------------------------

    def console(self):
        try:
            with open(os.path.join(self.workdir, 'console.log'), errors='replace') as f:
                return f.read()
        except (OSError, TypeError):
            return ''

    def share_file(self, name):
        try:
            with open(os.path.join(self.workdir, 'share', name), errors='replace') as f:
                return f.read()
        except (OSError, TypeError):
            return ''

    def diagnostics(self):
        out = ['---- guest console (last 150 lines) ----']
        out += self.console().splitlines()[-150:]
        try:
            with open(os.path.join(self.workdir, 'qemu.log'), errors='replace') as f:
                q = f.read().strip()
            if q:
                out += ['---- qemu ----', q]
        except (OSError, TypeError):
            pass
        for name in sorted(os.listdir(os.path.join(self.workdir, 'share'))) if self.workdir else []:
            if name.endswith('.log'):
                out += ['---- guest %s ----' % name] + self.share_file(name).splitlines()[-200:]
        return '\n'.join(out)

    # -- the agent ----------------------------------------------------------

    def _read_line(self, timeout):
        """One line from the agent; socket.makefile() is unusable after a
        timeout, so the buffer is ours."""
        deadline = time.monotonic() + timeout
        while b'\n' not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise VMError('the guest agent did not answer within %.0f s' % timeout)
            self.ctl.settimeout(left)
            try:
                chunk = self.ctl.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                return b''
            self._buf += chunk
        line, self._buf = self._buf.split(b'\n', 1)
        return line + b'\n'

    def _read_reply(self, want_id, timeout):
        while True:
            line = self._read_line(max(0.1, timeout))
            if not line:
                raise VMError('the guest agent hung up (qemu %s)' %
                              ('exited %s' % self.proc.poll() if self.proc.poll() is not None else 'runs'))
            r = json.loads(line)
            # a late answer to a request that timed out: skip it
            if want_id is None or r.get('id') is None or r.get('id') >= want_id:
                break
        r = json.loads(line)
        if want_id is not None and r.get('id') != want_id:
            raise VMError('agent answered %r to request %r' % (r.get('id'), want_id))
        if 'error' in r:
            raise VMError('agent: ' + r['error'])
        return r

    def request(self, op, timeout=60, reply_timeout=None, **args):
        self.kill_if_late()
        # (a program copied into a tmpfs under /run may still be spawned)
        if self.poisoned and (op in ('sh', 'snapshot') or (
                op == 'spawn' and not args['argv'][0].startswith('/run/'))):
            raise VMError('the guest cannot run %s any more: %s' % (op, self.poisoned))
        self.req_id += 1
        args.update(op=op, id=self.req_id)
        self.ctl.settimeout(30)
        self.ctl.sendall((json.dumps(args) + '\n').encode())
        if reply_timeout is None:
            # slow is not dead: under load the guest answers late
            reply_timeout = timeout + 60
        return self._read_reply(self.req_id, min(reply_timeout, max(self.left(), 1)))

    def sh(self, cmd, timeout=60, check=True):
        r = self.request('sh', cmd=cmd, timeout=timeout)
        if r.get('timeout'):
            raise VMError('guest command timed out after %ds: %s\n%s' % (timeout, cmd, r['out']))
        if check and r['rc'] != 0:
            raise VMError('guest command failed (%s): %s\n%s' % (r['rc'], cmd, r['out']))
        return r['out'] if check else (r['rc'], r['out'])

    def read(self, *paths):
        v = self.request('read', paths=list(paths))['values']
        return v[paths[0]] if len(paths) == 1 else v

    def poll(self, want, timeout=30, interval=0.05):
        """Wait in the guest until every path reads its value; returns
        (ok, elapsed, values). The deadline is the host's: the guest's
        clock runs at its own pace under TCG, and jumps across a sleep."""
        t0 = time.monotonic()
        while True:
            left = timeout - (time.monotonic() - t0)
            r = self.request('poll', want=want, timeout=max(0.0, min(2.0, left)), interval=interval)
            if r['ok'] or left <= 0:
                return r['ok'], time.monotonic() - t0, r['values']

    def wait(self, want, timeout=30, what=None):
        ok, elapsed, values = self.poll(want, timeout)
        if not ok:
            raise AssertionError('timed out after %ds waiting for %s: %s' % (
                timeout, what or want, json.dumps(values, indent=1)))
        return elapsed

    def spawn(self, argv, log=None, env=None):
        return self.request('spawn', argv=argv, log=log, env=env or {})['pid']

    def kill(self, pid, sig):
        self.request('signal', pid=pid, sig=int(sig))

    def waitpid(self, pid, timeout=10):
        """The exit status of @pid, or None if it still runs after
        @timeout seconds (the host's)."""
        t0 = time.monotonic()
        while True:
            # the agent does not answer while the guest sleeps or resumes,
            # and a request sent then is lost (virtio_console sets up its
            # queues again on resume): ask again
            try:
                r = self.request('wait', pid=pid, timeout=0.5, reply_timeout=10)
            except VMError as e:
                if 'did not answer' not in str(e) or time.monotonic() - t0 > timeout:
                    raise
                continue
            if not r['running']:
                return r['rc']
            if time.monotonic() - t0 > timeout:
                return None

    def glob(self, pattern):
        return self.request('glob', pattern=pattern)['paths']

    def realpath(self, path):
        return self.request('realpath', path=path)['path']

    def snapshot(self):
        return self.request('snapshot', timeout=60)['snapshot']

    def write(self, path, value):
        self.request('write', path=path, value=value)

    # -- the guest's system -------------------------------------------------

    def setup_system(self, subsystems=('usb', 'pci', 'scsi', 'scsi_host', 'scsi_disk', 'block',
                                       'input', 'power_supply', 'nvme', 'net', 'sound',
                                       'ata_port', 'ata_link', 'ata_device', 'hid')):
        """udev rules (ours in, other power tools' masked), bus policy,
        systemd-udevd with trigger + settle, dbus-daemon --system."""
        t0 = time.monotonic()
        masks = []
        for d in RULES_DIRS:
            for pat in FOREIGN_RULES:
                masks += [os.path.basename(p) for p in glob.glob(os.path.join(d, pat))]
        cmds = ['set -e', 'mkdir -p /etc/udev/rules.d /etc/dbus-1/system.d /etc/powerpolicy/powerpolicy.conf.d '
                '/run/udev /run/dbus /var/lib/powerpolicy']
        for m in sorted(set(masks)):
            cmds.append('ln -sf /dev/null /etc/udev/rules.d/%s' % m)
        rules = sorted(glob.glob(os.path.join(SRCDIR, 'data', 'udev-rules', '*.rules')))
        if not rules:
            raise VMError('no udev rules under data/udev-rules')
        for r in rules:
            cmds.append('cp %s /etc/udev/rules.d/' % r)
        # qemu's USB keyboard, mouse and tablet are in systemd's autosuspend
        # hwdb (ID_AUTOSUSPEND=1, from ChromiumOS's list), which makes
        # systemd's 60-autosuspend.rules and the daemon let them suspend: a
        # real keyboard or mouse has no such entry. The guest removes the
        # property between the hwdb import and 60-autosuspend.rules so that
        # they are treated as the keyboard and mouse of a laptop.
        cmds.append("printf '%%s\\n' %s > /etc/udev/rules.d/59-ppvm-qemu-hid.rules" % shquote(
            'SUBSYSTEM=="usb", ENV{DEVTYPE}=="usb_device", ATTR{idVendor}=="0627", '
            'ATTR{idProduct}=="0001", ENV{ID_AUTOSUSPEND}=""'))
        cmds.append('cp %s /etc/dbus-1/system.d/' % os.path.join(SRCDIR, 'data', 'dbus', 'org.powerpolicy1.conf'))
        cmds.append('cp %s /etc/powerpolicy/powerpolicy.conf' % os.path.join(SRCDIR, 'data', 'powerpolicy.conf'))
        self.sh('\n'.join(cmds))
        self.masked_rules = sorted(set(masks))
        self.udevd = self.spawn(['/lib/systemd/systemd-udevd'], log='/run/ppvm/udevd.log')
        self.sh('for i in $(seq 100); do [ -S /run/udev/control ] && exit 0; sleep 0.1; done; '
                'echo no udev control socket; exit 1')
        sub = ' '.join('--subsystem-match=%s' % s for s in subsystems)
        self.sh('udevadm trigger --type=subsystems --action=add && '
                'udevadm trigger --type=devices --action=add %s && udevadm settle --timeout=120' % sub,
                timeout=150)
        self.dbus = self.spawn(['dbus-daemon', '--system', '--nofork', '--nopidfile'],
                               log='/run/ppvm/dbus.log')
        self.sh('for i in $(seq 100); do [ -S /run/dbus/system_bus_socket ] && exit 0; sleep 0.1; done; '
                'echo no system bus socket; exit 1')
        self.log('vm: udev (%d rules masked) and the system bus up in %.1f s' % (
            len(self.masked_rules), time.monotonic() - t0))

    def powerpolicyd(self, name):
        return os.path.join(self.builddir, 'src', name)

    def start_daemon(self, args=(), log='/run/ppvm/daemon.log', wait_bus=True, argv0=None,
                     env=None):
        argv = (argv0 or [self.powerpolicyd('powerpolicyd')]) + [
            '--config', '/etc/powerpolicy/powerpolicy.conf', '--verbose'] + list(args)
        self.daemon = self.spawn(argv, log=log,
                                 env=dict({'G_DEBUG': 'fatal-criticals'}, **(env or {})))
        if wait_bus:
            self.sh('for i in $(seq 300); do '
                    'dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus '
                    'org.freedesktop.DBus.NameHasOwner string:org.powerpolicy1 2>/dev/null '
                    '| grep -q "boolean true" && exit 0; '
                    'kill -0 %d 2>/dev/null || { echo powerpolicyd exited; exit 1; }; sleep 0.1; done; '
                    'echo powerpolicyd did not own its name; exit 1' % self.daemon, timeout=60)
        return self.daemon

    def stop_daemon(self, sig=signal.SIGTERM, timeout=20):
        pid, self.daemon = self.daemon, None
        self.kill(pid, sig)
        rc = self.waitpid(pid, timeout)
        if rc is None:
            self.kill(pid, signal.SIGKILL)
            self.waitpid(pid, 5)
            raise AssertionError('powerpolicyd did not exit within %ds of signal %d' % (timeout, sig))
        return rc

    def pmctl(self, *args, check=True, timeout=60):
        cmd = ' '.join([self.powerpolicyd('pmctl')] + [shquote(a) for a in args])
        return self.sh(cmd + ' 2>&1', timeout=timeout, check=check)

    def daemon_log(self, name='daemon.log'):
        return self.share_file(name)


def shquote(s):
    if re.fullmatch(r'[A-Za-z0-9_./:=,@+-]+', s):
        return s
    return "'" + s.replace("'", "'\\''") + "'"
