# SPDX-License-Identifier: GPL-2.0-or-later
"""Harness for powerpolicy system tests.

The real powerpolicyd runs inside a umockdev testbed (all of /sys, /dev and
udev redirected) on a private system bus. The harness refuses to start the
daemon anywhere else: as root on a real machine the daemon would change the
machine's own power settings.
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import gi

gi.require_version('UMockdev', '1.0')
gi.require_version('Gio', '2.0')
from gi.repository import GLib, Gio, UMockdev  # noqa: E402

import dbusmock  # noqa: E402

from ppjournal import JournalSink  # noqa: E402
from pptags import TaggingTestbed, namespace_argv  # noqa: E402

BUS_NAME = 'org.powerpolicy1'
OBJ_PATH = '/org/powerpolicy1'
IFACE = 'org.powerpolicy1.Manager'

BUILDDIR = os.environ.get('PP_BUILDDIR') or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', '..', 'build')


class NotInTestbed(RuntimeError):
    pass


def sanitizer_env():
    """The sanitizer settings of `make test-sanitize` (ASAN_OPTIONS and
    the like), for the programs a test starts with an environment of its
    own: the daemon and pmctl report under them too."""
    return {k: v for k, v in os.environ.items()
            if k in ('ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'G_SLICE')}


def preload_active():
    return 'libumockdev-preload' in os.environ.get('LD_PRELOAD', '')


def line_of(text, section, line):
    """The 1-based line number of @line in [@section] of the configuration
    @text (for FILE:LINE origins)."""
    lines = text.splitlines()
    start = lines.index('[%s]' % section)
    for n in range(start + 1, len(lines)):
        if lines[n].startswith('['):
            break
        if lines[n] == line:
            return n + 1
    raise AssertionError('%s not in [%s]' % (line, section))


def wait_until(cond, timeout=5.0, message='condition'):
    """Poll @cond until it returns a true value; fail after @timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError('timed out after %.1fs waiting for %s' % (timeout, message))
        ctx = GLib.MainContext.default()
        while ctx.pending():
            ctx.iteration(False)
        time.sleep(0.005)


class WriteWatch:
    """Which of @files were written (closed after a write) since the
    watch began: inotify on the testbed's plain files."""
    IN_CLOSE_WRITE = 0x8

    def __init__(self, files):
        import ctypes
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), 'inotify_init1')
        self.by_wd = {}
        for f in files:
            wd = self.libc.inotify_add_watch(self.fd, f.encode(), self.IN_CLOSE_WRITE)
            if wd < 0:
                raise OSError(ctypes.get_errno(), 'inotify_add_watch %s' % f)
            self.by_wd[wd] = f
        self.seen = set()

    def written(self):
        import struct
        try:
            while True:
                buf = os.read(self.fd, 65536)
                off = 0
                while off + 16 <= len(buf):
                    wd, _mask, _cookie, length = struct.unpack_from('iIII', buf, off)
                    if wd in self.by_wd:
                        self.seen.add(self.by_wd[wd])
                    off += 16 + length
        except BlockingIOError:
            pass
        return set(self.seen)

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


# Like python-dbusmock's private system bus, but any local user may
# connect, so tests can call the daemon as an unprivileged user.
PRIVATE_BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <keep_umask/>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


def start_private_system_bus():
    """Start a private system bus; sets DBUS_SYSTEM_BUS_ADDRESS. Returns the pid."""
    fd, conf = tempfile.mkstemp(prefix='pp-bus-', suffix='.conf')
    with os.fdopen(fd, 'w') as f:
        f.write(PRIVATE_BUS_CONFIG)
    pid, address = dbusmock.DBusTestCase.start_dbus(conf=conf)
    os.unlink(conf)
    os.environ['DBUS_SYSTEM_BUS_ADDRESS'] = address
    return pid


def wait_for_name(bus, timeout=10):
    """Wait until powerpolicyd owns its name on @bus."""
    def owned():
        r = bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                          'org.freedesktop.DBus', 'NameHasOwner',
                          GLib.Variant('(s)', (BUS_NAME,)), None,
                          Gio.DBusCallFlags.NONE, -1, None)
        return r.unpack()[0]
    wait_until(owned, timeout, 'powerpolicyd to own %s' % BUS_NAME)


PCI = '/sys/devices/pci0000:00'
XHCI = PCI + '/0000:00:14.0'
ROOTHUB = XHCI + '/usb1'
HUB = ROOTHUB + '/1-1'
MOUSE = HUB + '/1-1.1'
STORAGE = HUB + '/1-1.2'
AHCI = PCI + '/0000:00:17.0'
SCSI_HOST = AHCI + '/ata1/host0/scsi_host/host0'
HDA = PCI + '/0000:00:1f.3'
AC = '/sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC'
BAT = '/sys/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/PNP0C0A:00/power_supply/BAT0'
POWER_SAVE = '/sys/module/snd_hda_intel/parameters/power_save'
ACPI_VIDEO_FLAGS = '/proc/sys/kernel/acpi_video_flags'

# The policy every test runs with unless it says otherwise.
TEST_CONFIG = """\
[Daemon]
RestoreOnExit=true

[Class pci]
Control=on
[Class pci:battery]
Control=auto

[Class usb]
Control=auto
AutosuspendDelayMs=2000
[Class usb:battery]
AutosuspendDelayMs=1000

[Class usb-hub]
Control=auto
# the kernel's delay, whatever [Class usb] says (the class cascade)
AutosuspendDelayMs=
[Class usb-hub:battery]
AutosuspendDelayMs=

[Class usb-storage]
Control=auto
AutosuspendDelayMs=5000
[Class usb-storage:battery]
AutosuspendDelayMs=2000

[Class usb-hid]
Control=on

[Class sata-host]
LinkPowerPolicy=med_power_with_dipm
[Class sata-host:battery]
LinkPowerPolicy=min_power

[Class pci-audio]
Control=auto

[Module snd_hda_intel]
power_save=10
[Module snd_hda_intel:battery]
power_save=1
"""


def usb_attrs(control='on', delay='2000', wakeup='disabled'):
    return ['power/control', control,
            'power/autosuspend_delay_ms', delay,
            'power/wakeup', wakeup,
            'power/runtime_status', 'active']


# the testbeds this process made (Laptop), removed by exit_after_tests()
_TESTBED_ROOTS = []


class Laptop:
    """A simulated laptop in a umockdev testbed."""

    def __init__(self):
        # devices are tagged "powerpolicy" as udev's rules would (pptags)
        self.tb = TaggingTestbed(UMockdev.Testbed.new())
        self.root = self.tb.get_root_dir()
        # umockdev removes the directory only when the Testbed is finalized,
        # which Python may never do before it exits (and doing it then would
        # fail on a directory already gone): exit_after_tests() removes it
        _TESTBED_ROOTS.append(self.root)
        self._build()

    def path(self, syspath):
        """Where a /sys path lives in the testbed's directory."""
        return self.root + syspath

    def read(self, syspath):
        with open(self.path(syspath)) as f:
            return f.read().strip()

    def write(self, syspath, value):
        with open(self.path(syspath), 'w') as f:
            f.write(value)

    def add(self, subsystem, name, parent, attrs, props):
        path = self.tb.add_device(subsystem, name, parent, attrs, props)
        assert path, 'umockdev could not add %s (is the test running under umockdev-wrapper?)' % name
        return path

    def add_usb(self, parent, name, klass, control='on', delay='2000', extra_props=()):
        props = ['DEVTYPE', 'usb_device']
        if klass:
            props += ['POWERPOLICY_CLASS', klass]
        props += list(extra_props)
        return self.add('usb', name, parent,
                        usb_attrs(control, delay) + ['busnum', '1', 'idVendor', '046d'],
                        props)

    def _build(self):
        add = self.add
        self.xhci = add('pci', 'pci0000:00/0000:00:14.0', None,
                        ['power/control', 'on', 'power/runtime_status', 'active',
                         'class', '0x0c0330', 'vendor', '0x8086', 'device', '0x9ded'],
                        ['PCI_CLASS', 'C0330', 'DRIVER', 'xhci_hcd'])
        assert self.xhci == XHCI, self.xhci
        self.roothub = self.add_usb(self.xhci, 'usb1', 'usb-hub', delay='0')
        self.hub = self.add_usb(self.roothub, '1-1', 'usb-hub')
        self.mouse = self.add_usb(self.hub, '1-1.1', 'usb-hid')
        self.storage = self.add_usb(self.hub, '1-1.2', 'usb-storage')
        self.ahci = add('pci', 'pci0000:00/0000:00:17.0', None,
                        ['power/control', 'on', 'power/runtime_status', 'active',
                         'class', '0x010601'],
                        ['PCI_CLASS', '10601', 'DRIVER', 'ahci'])
        self.tb.set_attribute_link(self.ahci, 'driver', '../../../bus/pci/drivers/ahci')
        ata = add('ata_port', 'ata1', self.ahci, [], [])
        host = add('scsi', 'host0', ata, [], ['DEVTYPE', 'scsi_host'])
        self.scsi_host = add('scsi_host', 'scsi_host/host0', host,
                             ['link_power_management_policy', 'max_performance'],
                             ['POWERPOLICY_CLASS', 'sata-host'])
        self.hda = add('pci', 'pci0000:00/0000:00:1f.3', None,
                       ['power/control', 'on', 'power/runtime_status', 'active',
                        'class', '0x040300'],
                       ['POWERPOLICY_CLASS', 'pci-audio', 'DRIVER', 'snd_hda_intel'])
        self.ac = add('power_supply', 'LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC', None,
                      ['type', 'Mains', 'online', '1'], ['POWER_SUPPLY_ONLINE', '1'])
        self.bat = add('power_supply',
                       'LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/PNP0C0A:00/power_supply/BAT0', None,
                       ['type', 'Battery', 'present', '1', 'scope', 'System',
                        'status', 'Discharging'], [])
        # module parameters are not part of the umockdev format: plain files
        os.makedirs(os.path.dirname(self.path(POWER_SAVE)), exist_ok=True)
        self.write(POWER_SAVE, '0\n')
        # umockdev redirects /proc only for files the testbed has: a shadow
        # so that a daemon preparing for sleep never writes the real one
        os.makedirs(self.path('/proc/sys/kernel'), exist_ok=True)
        self.write(ACPI_VIDEO_FLAGS, '0\n')

    def set_ac(self, online):
        self.tb.set_attribute(self.ac, 'online', '1' if online else '0')
        self.tb.set_property(self.ac, 'POWER_SUPPLY_ONLINE', '1' if online else '0')
        self.tb.uevent(self.ac, 'change')

    def cleanup(self):
        # umockdev removes the testbed's directory when the Testbed goes;
        # removing it here would pull it from under emulated evdev nodes
        self.tb = None


class Daemon:
    """A powerpolicyd process inside @laptop's testbed."""

    def __init__(self, laptop, config_text=TEST_CONFIG, args=(), bus_address=None,
                 workdir=None, config_path=None, default_config=False, env_extra=None):
        """default_config: pass no --config (the daemon's default path);
        env_extra: variables added to the daemon's environment."""
        self.laptop = laptop
        self.default_config = default_config
        self.env_extra = dict(env_extra or {})
        self.workdir = workdir or tempfile.mkdtemp(prefix='pp-test-')
        self.config_path = config_path or os.path.join(self.workdir, 'powerpolicy.conf')
        if config_text is not None:
            with open(self.config_path, 'w') as f:
                f.write(config_text)
        self.runtime_dir = os.path.join(self.workdir, 'run')
        self.state_dir = os.path.join(self.workdir, 'state')
        self.log_path = os.path.join(self.workdir, 'daemon-%d.log' % int(time.monotonic() * 1000))
        # where the daemon looks for other power tools (TLP, tuned, ...):
        # an empty root of its own, never the machine's /
        self.conflicts_root = os.path.join(self.workdir, 'conflicts-root')
        os.makedirs(self.conflicts_root, exist_ok=True)
        self.args = list(args)
        self.bus_address = bus_address
        self.proc = None
        self.journal = None

    def attach_journal(self):
        """Start the daemon as under systemd, its standard error connected
        to the journal: a stand-in journald (ppjournal.JournalSink) gets
        its log, each event with all its fields. Returns the sink."""
        self.journal = JournalSink(os.path.join(self.workdir, 'journal'), self.log_path)
        return self.journal

    def env(self):
        root = self.laptop.root if self.laptop else None
        if not root or not os.path.isdir(os.path.join(root, 'sys')):
            raise NotInTestbed('refusing to start powerpolicyd: no umockdev testbed')
        if not preload_active():
            raise NotInTestbed('refusing to start powerpolicyd: the umockdev preload is not '
                               'active (run the test under umockdev-wrapper)')
        env = {
            'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
            'LD_PRELOAD': os.environ['LD_PRELOAD'],
            # never inherited: the C library sets it with setenv, not os.environ
            'UMOCKDEV_DIR': root,
            'G_DEBUG': 'fatal-criticals',
            'LANG': 'C.UTF-8',
            **sanitizer_env(),
        }
        if self.bus_address:
            env['DBUS_SYSTEM_BUS_ADDRESS'] = self.bus_address
        else:
            # a bus that cannot exist: --oneshot must not need one
            env['DBUS_SYSTEM_BUS_ADDRESS'] = 'unix:path=/nonexistent/pp-no-bus'
        env.update(self.env_extra)
        return env

    def command(self):
        config = [] if self.default_config else ['--config', self.config_path]
        return [os.path.join(BUILDDIR, 'src', 'powerpolicyd')] + config + [
                '--runtime-dir', self.runtime_dir,
                '--state-dir', self.state_dir,
                '--verbose'] + self.args

    def namespaced_command(self):
        """command() with the testbed's udev tag index as /run/udev."""
        return namespace_argv(self.laptop.root, self.command(),
                              self.journal.directory if self.journal else None,
                              self.conflicts_root)

    def start(self):
        env = self.env()
        self.log = open(self.log_path, 'a')
        self.proc = subprocess.Popen(self.namespaced_command(), env=env, stdout=self.log,
                                     stderr=self.journal.client if self.journal else subprocess.STDOUT)
        return self

    def run(self, timeout=30):
        """Run to completion (--oneshot); returns (exit status, log text)."""
        env = self.env()
        with open(self.log_path, 'a') as log:
            rc = subprocess.run(self.namespaced_command(), env=env, stdout=log, stderr=subprocess.STDOUT,
                                timeout=timeout).returncode
        return rc, self.read_log()

    def read_log(self):
        try:
            with open(self.log_path) as f:
                return f.read()
        except FileNotFoundError:
            return ''

    def cleanup(self):
        """Remove the work directory (configuration, state, log)."""
        shutil.rmtree(self.workdir, ignore_errors=True)

    def stop(self, sig=signal.SIGTERM, timeout=10):
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
            raise AssertionError('powerpolicyd did not exit within %ds after signal %d' % (timeout, sig))
        finally:
            self.log.close()
            if self.journal:
                self.journal.close()
        self.proc = None
        return rc


class PowerPolicyTestCase(dbusmock.DBusTestCase):
    """Base class: a fresh laptop testbed and private system bus per test."""

    @classmethod
    def setUpClass(cls):
        if not preload_active():
            raise unittest.SkipTest('not running under umockdev-wrapper')
        if not os.path.exists(os.path.join(BUILDDIR, 'src', 'powerpolicyd')):
            raise unittest.SkipTest('powerpolicyd not built in %s' % BUILDDIR)
        # bursts of uevents overflow the default datagram queue
        try:
            with open('/proc/sys/net/unix/max_dgram_qlen', 'w') as f:
                f.write('65536')
        except OSError:
            pass
        cls.system_bus_pid = start_private_system_bus()
        cls.dbus_con = cls.get_dbus(system_bus=True)
        cls.bus_address = os.environ['DBUS_SYSTEM_BUS_ADDRESS']

    def setUp(self):
        self.laptop = Laptop()
        self.daemons = []
        # not Gio.bus_get_sync(): its cached connection would outlive the bus
        self.bus = Gio.DBusConnection.new_for_address_sync(
            self.bus_address,
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.signals = []
        self._subscriptions = []

    def stop_daemons(self):
        """Stop every daemon this test started that still runs."""
        for d in self.daemons:
            if d.proc is not None:
                try:
                    d.stop()
                except AssertionError:
                    pass

    # what AddressSanitizer, LeakSanitizer and UBSan print (make test-sanitize)
    SANITIZER_REPORTS = ('ERROR: AddressSanitizer', 'ERROR: LeakSanitizer', 'runtime error:')

    def tearDown(self):
        self.stop_daemons()
        reports = []
        for d in self.daemons:
            log = d.read_log()
            sys.stdout.write('---- %s ----\n%s\n' % (' '.join(d.command()), log))
            reports += [r for r in self.SANITIZER_REPORTS if r in log]
        for d in self.daemons:
            d.cleanup()
        for sub in self._subscriptions:
            self.bus.signal_unsubscribe(sub)
        self.laptop.cleanup()
        # a daemon's sanitizer report fails the test, whatever its exit status
        self.assertEqual(reports, [], 'sanitizer report in the daemon log (above)')

    # -- daemon -----------------------------------------------------------

    def new_daemon(self, **kwargs):
        kwargs.setdefault('bus_address', self.bus_address)
        d = Daemon(self.laptop, **kwargs)
        self.daemons.append(d)
        return d

    def start_daemon(self, **kwargs):
        d = self.new_daemon(**kwargs).start()
        self.wait_for_name()
        return d

    def wait_for_name(self, timeout=10):
        wait_for_name(self.bus, timeout)

    # -- mocks ------------------------------------------------------------

    def start_polkit(self):
        """python-dbusmock's polkitd: denies everything until told otherwise."""
        proc, obj = self.spawn_server_template('polkitd', {}, stdout=subprocess.DEVNULL)
        self.addCleanup(lambda: (proc.terminate(), proc.wait()))
        self.polkit = obj
        return obj

    def staged_for_others(self, *paths):
        """StagedForOthers(*paths), removed when the test ends."""
        staged = StagedForOthers(*paths)
        self.addCleanup(staged.cleanup)
        return staged

    def call_as(self, user, method, signature=None, args=(), timeout=60):
        return call_as_user(self.bus_address, user, method, signature, args, timeout)

    # -- D-Bus ------------------------------------------------------------

    def call(self, method, args=None, signature=None, timeout=5000):
        params = GLib.Variant(signature, args) if signature else None
        r = self.bus.call_sync(BUS_NAME, OBJ_PATH, IFACE, method, params, None,
                               Gio.DBusCallFlags.NONE, timeout, None)
        return r.unpack()

    def get_property(self, name):
        r = self.bus.call_sync(BUS_NAME, OBJ_PATH, 'org.freedesktop.DBus.Properties', 'Get',
                               GLib.Variant('(ss)', (IFACE, name)), None,
                               Gio.DBusCallFlags.NONE, 5000, None)
        return r.unpack()[0]

    def assertDBusError(self, name, method, args=None, signature=None):
        with self.assertRaises(GLib.GError) as cm:
            self.call(method, args, signature)
        remote = Gio.DBusError.get_remote_error(cm.exception)
        self.assertEqual(remote, name, cm.exception.message)
        return cm.exception

    def subscribe(self, member, interface=IFACE):
        def cb(conn, sender, path, iface, signal_name, params):
            self.signals.append((signal_name, params.unpack()))
        sub = self.bus.signal_subscribe(None, interface, member, OBJ_PATH, None,
                                        Gio.DBusSignalFlags.NONE, cb)
        self._subscriptions.append(sub)

    # -- sysfs ------------------------------------------------------------

    def attr(self, syspath, name):
        return self.laptop.read(syspath + '/' + name)

    def wait_attr(self, syspath, name, value, timeout=5):
        wait_until(lambda: self.attr(syspath, name) == value, timeout,
                   '%s/%s == %r (is %r)' % (syspath, name, value, self.attr(syspath, name)))


def exit_after_tests(code):
    """Remove the testbeds this process made, now that every daemon is
    stopped, and exit at once: at the interpreter's own exit umockdev may
    finalize a Testbed and abort on its directory being gone."""
    for root in _TESTBED_ROOTS:
        shutil.rmtree(root, ignore_errors=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main():
    result = unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2),
                           exit=False).result
    exit_after_tests(0 if result.wasSuccessful() else 1)


PPCALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ppcall.py')

# setpriv: run a command as nobody:nogroup (or another user)
AS_NOBODY = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups']


def _searchable_by_others(path):
    """True when every directory from / down to @path lets others in."""
    path = os.path.abspath(path)
    while True:
        if not os.stat(path).st_mode & 0o001:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


class StagedForOthers:
    """Copies of files (scripts, binaries) in a fresh world-readable
    temporary directory, for a process that runs as another uid: the source
    and build trees may be in a directory only their owner may enter (a
    clone in a 0700 directory). Remove with cleanup() (or use as a context
    manager)."""

    def __init__(self, *paths):
        parent = tempfile.gettempdir()
        if not _searchable_by_others(parent):
            parent = '/tmp'   # TMPDIR is private: the system's (always 1777)
        self.dir = tempfile.mkdtemp(prefix='pp-staged-', dir=parent)
        os.chmod(self.dir, 0o755)
        self.paths = {}
        for src in paths:
            dst = os.path.join(self.dir, os.path.basename(src))
            shutil.copyfile(src, dst)
            os.chmod(dst, 0o755)
            self.paths[src] = dst

    def __getitem__(self, src):
        return self.paths[src]

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.cleanup()


def call_as_user(bus_address, user, method, signature=None, args=(), timeout=60):
    """Call a Manager method as @user (via setpriv); returns ppcall's dict."""
    import json
    with StagedForOthers(PPCALL) as staged:
        cmd = ['setpriv', '--reuid=' + user, '--regid=nogroup', '--clear-groups',
               '/usr/bin/python3', staged[PPCALL], method, signature or '', json.dumps(list(args))]
        env = {'PATH': '/usr/bin:/bin', 'DBUS_SYSTEM_BUS_ADDRESS': bus_address, 'LANG': 'C.UTF-8'}
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise AssertionError('ppcall as %s failed: %s' % (user, r.stderr))
    return json.loads(r.stdout)
