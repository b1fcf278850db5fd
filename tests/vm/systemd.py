# SPDX-License-Identifier: GPL-2.0-or-later
"""powerpolicy VM tier: the installed daemon under real systemd, logind,
journald and polkit (issue 21).

One boot with the host's systemd as PID 1 (vmlib.INIT_SYSTEMD): the host
root read-only over 9p, tmpfs-backed overlays on /etc /var /root /usr, and
`meson install` of the build (staged on the host with --destdir in the
work directory, copied over the guest's root by /init) so that the unit,
bus policy, D-Bus service file, polkit policy, udev rules and
configuration are where a user has them. systemd starts the agent as a
service (ppvm-agent.service) and only what ppvm.target needs: journald,
udevd, dbus, logind, polkitd.

The scenario `installed` checks the issue's six points; the system sleep
(point 5, check_sleep) is last: the 9p lower does not survive it, and after
the wake only what was copied up into the overlay's tmpfs runs.
"""

import json
import os
import re
import shutil
import subprocess
import time

import vmlib
import scenarios

PMCTL = '/usr/bin/pmctl'
UNIT = 'powerpolicyd.service'
DROPIN = '/etc/powerpolicy/powerpolicy.conf.d/50-ppvm.conf'
# MESSAGE_ID of a sleep record (src/common/pp-log.c)
SLEEP_RECORD_ID = '93d17684318b47619ab684159922780b'

# units the test does not need: masked in the guest (a boot under TCG is
# slow enough); a unit missing on the host is masked harmlessly. Other
# power tools the host has installed for the benchmarks (bench/effect,
# bench/notebooks run TLP and powertop themselves) must not run in the
# guest either: their rules are masked like this (vmlib.FOREIGN_RULES)
MASK = '''systemd-timesyncd.service systemd-pstore.service systemd-random-seed.service
systemd-remount-fs.service systemd-binfmt.service proc-sys-fs-binfmt_misc.automount
sys-kernel-debug.mount sys-kernel-tracing.mount sys-kernel-config.mount
sys-fs-fuse-connections.mount dev-hugepages.mount dev-mqueue.mount systemd-firstboot.service
systemd-sysusers.service systemd-hwdb-update.service ldconfig.service
systemd-journal-catalog-update.service systemd-update-done.service
systemd-machine-id-commit.service systemd-repart.service systemd-pcrphase-sysinit.service
systemd-pcrphase.service systemd-update-utmp.service systemd-journal-flush.service
systemd-modules-load.service systemd-sysctl.service systemd-ask-password-console.path
systemd-ask-password-wall.path apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer
e2scrub_all.timer fstrim.timer man-db.timer systemd-tmpfiles-clean.timer logrotate.timer
e2scrub_reap.service postgresql.service cron.service rsyslog.service syslog.socket
apparmor.service networking.service ssh.service getty@tty1.service
serial-getty@ttyS0.service console-setup.service keyboard-setup.service
systemd-networkd.service systemd-resolved.service NetworkManager.service
powerpolicy-metrics.timer
tlp.service tlp-sleep.service tuned.service laptop-mode.service
power-profiles-daemon.service'''.split()

TARGET = '''[Unit]
Description=powerpolicy VM tier (issue 21)
Requires=basic.target
After=basic.target
Wants=ppvm-agent.service dbus.service systemd-logind.service polkit.service
AllowIsolate=yes
'''

AGENT_UNIT = '''[Unit]
Description=powerpolicy VM tier agent (answers the host over virtio-serial)
DefaultDependencies=no

[Service]
ExecStart=/usr/bin/python3 /run/ppvm/agent.py
'''

# a lid switch (SW_LID, open) through uinput, held until killed: the
# daemon then takes logind's handle-lid-switch inhibitor
UINPUT_LID = r'''
import fcntl, os, signal, struct, time
fd = os.open('/dev/uinput', os.O_WRONLY | os.O_NONBLOCK)
fcntl.ioctl(fd, 0x40045564, 5)      # UI_SET_EVBIT EV_SW
fcntl.ioctl(fd, 0x4004556d, 0)      # UI_SET_SWBIT SW_LID
name = b'ppvm lid switch'
os.write(fd, struct.pack('80sHHHHi', name, 0x19, 0x1, 0x1, 1, 0) + b'\0' * (4 * 64 * 4))
fcntl.ioctl(fd, 0x5501)             # UI_DEV_CREATE
signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
while True:
    time.sleep(3600)
'''

# Before the system sleep: copy files of the 9p lower up into the overlay's
# tmpfs upper layer, each symlink on the way as a symlink and the file
# itself with its data (utime with the file's own times: overlayfs copies
# up on a change of metadata; this kernel has no metacopy). After the wake
# the lower is dead: opening a file of it, reading a symlink of it or
# listing a directory of it asks the host and never returns.
COPY_UP = r"""
import os, stat, sys

def up(path):
    parts = [p for p in path.split('/') if p]
    cur, hops = '/', 0
    while parts:
        name = parts.pop(0)
        if name == '.':
            continue
        if name == '..':
            cur = os.path.dirname(cur)
            continue
        nxt = os.path.join(cur, name)
        st = os.lstat(nxt)
        if stat.S_ISLNK(st.st_mode):
            os.utime(nxt, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)
            target = os.readlink(nxt)
            hops += 1
            if hops > 40:
                raise OSError('too many symlinks: %s' % path)
            if target.startswith('/'):
                cur = '/'
            parts = [p for p in target.split('/') if p] + parts
        else:
            cur = nxt
    st = os.stat(cur)
    if stat.S_ISREG(st.st_mode):
        os.utime(cur, ns=(st.st_atime_ns, st.st_mtime_ns))

bad = []
for line in sys.stdin:
    p = line.strip()
    # a mapped file may be deleted or in a file system of its own
    if p.startswith('/') and p.split('/')[1] not in ('dev', 'proc', 'sys', 'run', 'tmp') \
            and os.path.lexists(p):
        try:
            up(p)
        except OSError as e:
            bad.append('%s: %s' % (p, e))
print('%s' % '\n'.join(bad))
"""

# what runs after the wake besides the processes already running: the
# systemd-sleep binary's post phase, the daemon's helper and the test's
# system-sleep hook (and the dynamic loader, ld.so.cache and every library of
# each, by the paths the loader opens)
AFTER_WAKE = ('/usr/lib/systemd/systemd-sleep', '/usr/libexec/powerpolicy-video-restore',
              '/bin/busybox')
# the test's system-sleep hook (static busybox) and what it reads
HOOK = '/usr/lib/systemd/system-sleep/50-ppvm'
HOOK_LOG = '/run/ppvm-hook.log'


def copy_up_for_the_wake(vm, pids):
    """Everything the guest runs or reads after the wake into the upper
    layer: the mapped files of @pids (the processes running across the
    sleep), the closures of AFTER_WAKE, the system-sleep hook directories
    with their contents."""
    vm.write('/run/ppvm-copyup.py', COPY_UP)
    progs = ' '.join(AFTER_WAKE)
    out = vm.sh(
        "{ for p in %s; do awk '$6 ~ /^\\// {print $6}' /proc/$p/maps; done; "
        "for b in %s; do echo $b; ldd $b 2>/dev/null | awk '$2 == \"=>\" && $3 ~ /^\\// {print $3} "
        "$1 ~ /^\\// {print $1}'; done; echo /etc/ld.so.cache; echo /etc/localtime; } "
        "| sort -u | /usr/bin/python3 /run/ppvm-copyup.py" % (' '.join(str(p) for p in pids), progs),
        timeout=180)
    assert not out.strip(), 'could not copy up:\n' + out
    # the hook directories systemd-sleep lists after the wake (252: the
    # /lib path, through the /lib symlink the upper layer owns), copied up
    # with what they hold: a directory made anew in the upper layer is
    # opaque, its listing never reaches the lower. Other power tools'
    # hooks are left out, as their rules and units are (TLP's runs
    # `tlp resume`, a script that reads the dead 9p root after the wake)
    foreign = ' '.join('$d/' + pat for pat in vmlib.FOREIGN_RULES)
    hooks = vm.sh('for d in /usr/lib/systemd/system-sleep /etc/systemd/system-sleep '
                  '/usr/local/lib/systemd/system-sleep; do [ -d $d ] || continue; '
                  't=/run/ppvm-hooks$d; mkdir -p $t; cp -a $d/. $t/; rm -rf $d; mkdir -p $d; '
                  'cp -a $t/. $d/; rm -rf $t; for f in %s; do [ -e "$f" ] && rm -f "$f"; done; '
                  'ls -A $d; done' % foreign)
    return hooks.split()


def meson_prefix(builddir):
    r = subprocess.run(['meson', 'introspect', '--buildoptions', builddir],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise vmlib.VMError('meson introspect %s: %s' % (builddir, r.stderr.strip()))
    opts = {o['name']: o['value'] for o in json.loads(r.stdout)}
    return opts.get('prefix')


def stage(vm, root):
    """The guest's installed tree in @root (copied over / by /init)."""
    prefix = meson_prefix(vm.builddir)
    if prefix != '/usr':
        raise vmlib.VMError('%s is configured with --prefix=%s: the installed tier needs '
                            '--prefix=/usr (where polkitd, dbus and systemd look; '
                            'make MESON_ARGS=--prefix=/usr)' % (vm.builddir, prefix))
    destdir = os.path.join(vm.workdir, 'destdir')
    r = subprocess.run(['meson', 'install', '-C', vm.builddir, '--no-rebuild', '--quiet',
                        '--destdir', destdir], capture_output=True, text=True)
    if r.returncode != 0:
        raise vmlib.VMError('meson install --destdir failed: %s%s' % (r.stdout, r.stderr))
    os.makedirs(root)
    # a merged /usr: /lib is usr/lib on the host (and so in the guest)
    for top in sorted(os.listdir(destdir)):
        src = os.path.join(destdir, top)
        real = os.path.realpath('/' + top).lstrip('/')
        shutil.copytree(src, os.path.join(root, real), symlinks=True, dirs_exist_ok=True)
    shutil.rmtree(destdir)
    etc = os.path.join(root, 'etc')
    sysd = os.path.join(etc, 'systemd', 'system')
    os.makedirs(sysd, exist_ok=True)
    with open(os.path.join(sysd, 'ppvm.target'), 'w') as f:
        f.write(TARGET)
    with open(os.path.join(sysd, 'ppvm-agent.service'), 'w') as f:
        f.write(AGENT_UNIT)
    for u in MASK:
        os.symlink('/dev/null', os.path.join(sysd, u))
    for d, text in (('journald.conf.d', '[Journal]\nStorage=volatile\nRateLimitBurst=0\n'
                                        'ForwardToConsole=no\n'),):
        os.makedirs(os.path.join(etc, 'systemd', d), exist_ok=True)
        with open(os.path.join(etc, 'systemd', d, 'ppvm.conf'), 'w') as f:
            f.write(text)
    rules = os.path.join(etc, 'udev', 'rules.d')
    os.makedirs(rules, exist_ok=True)
    import glob
    for d in vmlib.RULES_DIRS:
        for pat in vmlib.FOREIGN_RULES:
            for p in glob.glob(os.path.join(d, pat)):
                t = os.path.join(rules, os.path.basename(p))
                if not os.path.lexists(t):
                    os.symlink('/dev/null', t)
    with open(os.path.join(rules, '59-ppvm-qemu-hid.rules'), 'w') as f:
        f.write('SUBSYSTEM=="usb", ENV{DEVTYPE}=="usb_device", ATTR{idVendor}=="0627", '
                'ATTR{idProduct}=="0001", ENV{ID_AUTOSUSPEND}=""\n')
    os.makedirs(os.path.join(etc, 'powerpolicy', 'powerpolicy.conf.d'), exist_ok=True)


def journal(vm, *args):
    out = vm.sh('journalctl --no-pager -o json %s' % ' '.join(args), timeout=60)
    return [json.loads(line) for line in out.splitlines() if line.startswith('{')]


def exposure(text):
    m = re.search(r'Overall exposure level for \S+: ([0-9.]+)', text)
    assert m, 'no exposure in:\n' + text
    return float(m.group(1))


def name_owned(vm):
    rc, out = vm.sh('busctl --system status org.powerpolicy1 >/dev/null 2>&1', check=False)
    return rc == 0


def wait_active(vm, timeout=90):
    vm.sh('for i in $(seq %d); do systemctl is-active -q %s && busctl --system status '
          'org.powerpolicy1 >/dev/null 2>&1 && exit 0; sleep 0.2; done; '
          'systemctl status --no-pager %s; exit 1' % (timeout * 5, UNIT, UNIT), timeout=timeout + 30)


PROFILES_NAMES = ('org.freedesktop.UPower.PowerProfiles', 'net.hadess.PowerProfiles')
PPCTL = '/run/ppvm-powerprofilesctl'


def powerprofilesctl_text():
    """Debian's powerprofilesctl from the power-profiles-daemon package's
    files (apt-get download, never installed, its daemon never run); None
    when the package cannot be had."""
    import glob
    import tempfile
    tmp = tempfile.mkdtemp(prefix='ppvm-ppd-')
    try:
        r = subprocess.run(['apt-get', 'download', 'power-profiles-daemon'], cwd=tmp,
                           capture_output=True, text=True, timeout=120)
        debs = glob.glob(os.path.join(tmp, 'power-profiles-daemon_*.deb'))
        if r.returncode != 0 or not debs:
            return None
        subprocess.run(['dpkg-deb', '-x', debs[0], os.path.join(tmp, 'x')], check=True)
        with open(os.path.join(tmp, 'x', 'usr', 'bin', 'powerprofilesctl')) as f:
            return f.read()
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_power_profiles(vm):
    """The unit owns both names under the real dbus-daemon; root chooses a
    profile with powerprofilesctl, nobody without a session is refused by
    polkit, and this machine (no platform_profile, no EPP) offers no
    performance."""
    for name in PROFILES_NAMES:
        rc, _ = vm.sh('busctl --system status %s >/dev/null 2>&1' % name, check=False)
        assert rc == 0, 'the installed unit does not own %s' % name
    text = powerprofilesctl_text()
    if text is None:
        print('installed: power profiles: both names owned; powerprofilesctl not run '
              '(apt-get download power-profiles-daemon failed)')
        return
    vm.write(PPCTL, text)
    vm.sh('chmod 755 ' + PPCTL)
    ctl = '/usr/bin/python3 ' + PPCTL
    out = vm.sh(ctl + ' list 2>&1')
    assert '* balanced:' in out and 'power-saver:' in out and 'performance' not in out, out
    vm.sh(ctl + ' set power-saver 2>&1')
    assert vm.sh(ctl + ' get').strip() == 'power-saver'
    rc, out = vm.sh('setpriv --reuid=65534 --regid=65534 --clear-groups %s set balanced 2>&1' % ctl,
                    check=False)
    assert rc != 0 and 'NotAuthorized' in out, \
        'nobody without a session set the profile: rc %s, %s' % (rc, out)
    assert vm.sh(ctl + ' get').strip() == 'power-saver'
    vm.sh(ctl + ' set balanced 2>&1')
    print('installed: power profiles: both names owned, power-saver and balanced offered, '
          'root set power-saver, nobody refused: %s' % out.strip().splitlines()[-1])


def scenario_installed(vm, hw):
    P = lambda *a, **kw: vm.sh(' '.join([PMCTL] + [vmlib.shquote(x) for x in a]) + ' 2>&1', **kw)
    print('installed: system state: %s' % vm.sh('systemctl is-system-running --wait', timeout=240,
                                                   check=False)[1].strip())
    print(vm.sh('systemctl --failed --no-pager --plain --no-legend', check=False)[1])
    base = vm.snapshot()

    # -- 1. enable --now: the unit, its name, its policy, its sandbox --------
    t = time.monotonic()
    vm.sh('systemctl enable --now %s' % UNIT, timeout=120)
    wait_active(vm)
    print('installed: enable --now to the bus name in %.1f s' % (time.monotonic() - t))
    vm.wait({hw.stick + '/power/control': 'auto', hw.kbd + '/power/control': 'on'}, 60,
            'the policy applied by the installed daemon')
    vm.wait(scenarios.want_status([hw.stick], 'suspended'), 60, 'the stick suspended')
    st = vm.sh('systemctl status --no-pager -l %s' % UNIT)
    assert 'active (running)' in st, st
    bad = journal(vm, '-u', UNIT, '-p', 'warning')
    assert not bad, 'the daemon logged warnings or worse under its unit:\n' + \
        '\n'.join(str(e.get('MESSAGE')) for e in bad)
    wf = vm.sh('busctl --system get-property org.powerpolicy1 /org/powerpolicy1 '
               'org.powerpolicy1.Manager WriteFailures').strip()
    assert wf == 't 0', 'write failures under the sandbox: %s\n%s' % (wf, st)
    now = vm.snapshot()
    changed = sorted(k for k in now if base.get(k) != now[k])
    assert changed, 'the daemon changed nothing on this hardware'
    d = P('--json', 'diff')
    listed = set()
    for row in json.loads(d):
        # a module parameter's path is the attribute itself
        p, a = row['path'], row['attribute']
        listed.add(p if p.endswith('/' + a) else os.path.join(p, a))
    # every policy attribute that changed since boot is the daemon's doing
    missing = [k for k in changed if k not in listed]
    assert not missing, 'changed but not in pmctl diff: %s\n%s' % (missing, d)
    print('installed: %d attributes changed, all in pmctl diff' % len(changed))
    live = exposure(vm.sh('systemd-analyze security --no-pager %s' % UNIT))
    off = exposure(vm.sh('systemd-analyze security --no-pager --offline=true '
                         '/usr/lib/systemd/system/%s' % UNIT))
    print('installed: exposure live %.1f, offline %.1f' % (live, off))
    assert live == off, 'systemd-analyze security: live %.1f, offline %.1f' % (live, off)

    # -- 4. polkit -----------------------------------------------------------
    pk = vm.sh('pkaction --verbose --action-id org.powerpolicy1.manage')
    assert 'implicit any:      auth_admin' in pk or re.search(r'implicit any:\s+auth_admin', pk), pk
    rc, out = vm.sh('setpriv --reuid=65534 --regid=65534 --clear-groups %s set %s '
                    'AutosuspendDelayMs 3000 2>&1' % (PMCTL, hw.stick), check=False)
    assert rc != 0 and ('NotAuthorized' in out or 'not authorized' in out.lower()), \
        'an unprivileged caller without a session: rc %s, %s' % (rc, out)
    print('installed: unprivileged: %s' % out.strip().splitlines()[-1])
    P('set', hw.stick, 'AutosuspendDelayMs', '3000')
    vm.wait({hw.stick + '/power/autosuspend_delay_ms': '3000'}, 30, 'the override of root')
    P('reset', hw.stick)

    # -- 7. power-profiles-daemon's API (issue 27) ------------------------------
    check_power_profiles(vm)

    # -- 3. journald: structured entries (the override above has DEVICE= and
    # ATTRIBUTE=), caller text escaped
    evil = 'ppvm\x1b[31m\nMESSAGE_ID=00000000000000000000000000000000'
    P('hold', hw.stick, '--who', evil, '--why', 'ppvm-why\x07', '--', 'true', timeout=60)
    vm.sh('journalctl --sync 2>/dev/null || true')
    entries = journal(vm, '-u', UNIT, '_PID=$(systemctl show -P MainPID %s)' % UNIT)
    ids = [e for e in entries if e.get('MESSAGE_ID')]
    attr = [e for e in entries if e.get('DEVICE') and e.get('ATTRIBUTE')]
    assert ids, 'no journal entry of the daemon with a MESSAGE_ID'
    assert attr, 'no journal entry of the daemon with DEVICE= and ATTRIBUTE='
    print('installed: %d entries, %d with MESSAGE_ID, %d with DEVICE=/ATTRIBUTE=' % (
        len(entries), len(ids), len(attr)))
    for e in entries:
        m = e.get('MESSAGE')
        m = m if isinstance(m, str) else str(m)
        assert '\x1b' not in m and '\x07' not in m and '\n' not in m, 'raw caller text: %r' % m
        assert e.get('MESSAGE_ID') != '0' * 32, 'a caller injected a journal field: %r' % e
    holds = [e for e in entries if 'ppvm' in str(e.get('WHO'))]
    assert holds, 'the hold with a hostile WHO is not in the journal'
    for e in holds:
        for k in ('WHO', 'WHY', 'MESSAGE'):
            v = e.get(k)
            assert isinstance(v, str) and not re.search(r'[\x00-\x1f\x7f]', v), \
                'caller text not escaped in %s=%r' % (k, v)
    print('installed: the caller text as logged: WHO=%s MESSAGE=%s' % (holds[0]['WHO'], holds[0]['MESSAGE']))

    # -- 6a. reload re-reads a changed drop-in --------------------------------
    vm.write(DROPIN, '[Class usb-storage]\nAutosuspendDelayMs=1500\n')
    vm.sh('systemctl reload %s' % UNIT, timeout=60)
    vm.wait({hw.stick + '/power/autosuspend_delay_ms': '1500'}, 30, 'the drop-in after reload')
    # -- 6b. stop restores every original value -------------------------------
    vm.sh('systemctl stop %s' % UNIT, timeout=60)
    after = vm.snapshot()
    d = scenarios.diff(base, after)
    assert not d, 'not restored by systemctl stop:\n' + '\n'.join(d)
    vm.sh('rm -f ' + DROPIN)

    # -- 2. D-Bus activation: enabled starts, disabled does not ---------------
    assert not name_owned(vm)
    P('status', timeout=120)
    assert vm.sh('systemctl is-active %s' % UNIT, check=False)[1].strip() == 'active'
    vm.sh('systemctl stop %s' % UNIT, timeout=60)
    vm.sh('systemctl disable %s' % UNIT, timeout=60)
    rc, out = vm.sh('%s status 2>&1' % PMCTL, check=False, timeout=120)
    state = vm.sh('systemctl is-active %s' % UNIT, check=False)[1].strip()
    assert rc != 0 and state != 'active', 'disabled, pmctl status: rc %s %s (%s)' % (rc, out, state)
    print('installed: disabled: pmctl status exits %s: %s' % (rc, out.strip().splitlines()[-1:]))

    # -- 5. logind: inhibitors, suspend, resume (last: see check_sleep) -------
    check_sleep(vm, hw)


SLEEP_DROPIN = """[Class usb-storage]
AutosuspendDelayMs=1000
[Class sata-disk]
Control=auto
AutosuspendDelayMs=1000
[Class ata-port]
Attr.device/power/control=auto
[Sleep]
VideoQuirks=none
"""


def followed(vm, path):
    """The entries `journalctl -f -o json` wrote to @path so far (the
    last line may be one it is still writing)."""
    out = []
    for line in (vm.read(path) or '').splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def blocked_tasks(vm):
    """The guest's tasks in D state (or systemd-sleep's executor) with
    their kernel stacks: what waits on the dead 9p."""
    out = []
    for p in vm.glob('/proc/[0-9]*/stat'):
        st = vm.read(p) or ''
        if ') D ' in st or 'sd-exec' in st:
            out.append('%s: %s' % (st[:40], vm.read(p.replace('stat', 'stack'))))
    return '\n'.join(out) or 'none'


def check_sleep(vm, hw):
    """Point 5: `systemctl suspend` through logind with the daemon's delay
    and lid inhibitors held; S3 (qemu's system_wakeup cannot wake s2idle,
    tests/vm/README.md), woken through QMP. Last of the boot: only what was
    copied up into the overlay's tmpfs runs after the wake."""
    ahci = hw.pci_by_class('0x010601')
    disk = vm.glob(ahci + '/ata*/host*/target*/*:*:*:*')[0]
    port = ahci + '/' + disk[len(ahci) + 1:].split('/')[0]
    sata = [disk + '/power/control', port + '/power/control', ahci + '/power/control']
    vm.sh('modprobe uinput')
    vm.write('/run/ppvm-lid.py', UINPUT_LID)
    vm.spawn(['/usr/bin/python3', '/run/ppvm-lid.py'], log='/run/ppvm-lid.log')
    vm.write(DROPIN, SLEEP_DROPIN)
    # the AHCI controller may runtime-suspend (qemu has no battery): the
    # sleep layer (RestoreDefaultsBeforeSleep) then has something to put
    # back to on before the sleep and the policy something to apply again
    scenarios.ahci_rule(vm, True)
    vm.sh('systemctl enable --now %s' % UNIT, timeout=120)
    wait_active(vm)
    policy = {hw.stick + '/power/control': 'auto', hw.stick + '/power/autosuspend_delay_ms': '1000',
              hw.kbd + '/power/control': 'on', disk + '/power/autosuspend_delay_ms': '1000'}
    policy.update({k: 'auto' for k in sata})
    vm.wait(policy, 60, 'the policy before the sleep')
    vm.sh('for i in $(seq 300); do systemd-inhibit --list --no-pager | grep -q handle-lid-switch '
          '&& exit 0; sleep 0.2; done; exit 1', timeout=90, check=False)
    inh = vm.sh('systemd-inhibit --list --no-pager --no-legend')
    print('installed: inhibitors before the sleep:\n' + inh)
    mine = [l for l in inh.splitlines() if 'powerpolicy' in l]
    assert any(re.search(r'\bsleep\b.*\bdelay\b', l) for l in mine), 'no sleep delay inhibitor:\n' + inh
    assert any(re.search(r'handle-lid-switch.*\bblock\b', l) for l in mine), \
        'no handle-lid-switch block inhibitor (the lid stays with logind):\n' + inh
    # a journal follower writes what happens across the sleep to /run
    jf = vm.spawn(['journalctl', '-f', '-n', '0', '-o', 'json', '--no-pager'],
                  log='/run/ppvm-journal.json')
    vm.sh('for i in $(seq 100); do [ -e /proc/%d ] && grep -q inotify /proc/%d/fdinfo/* 2>/dev/null '
          '&& exit 0; sleep 0.1; done; exit 0' % (jf, jf))
    pids = vm.sh("echo 1 %d $(pidof systemd-journald systemd-logind dbus-daemon polkitd "
                 "systemd-udevd powerpolicyd python3)" % jf).split()
    scenarios.preload_page_cache(vm, pids)
    t = time.monotonic()
    hooks = copy_up_for_the_wake(vm, pids)
    print('installed: copied up for the wake in %.1f s (system-sleep hooks: %s)' % (
        time.monotonic() - t, hooks or 'none'))
    # a system-sleep hook (run by systemd-sleep after the delay inhibitors
    # are released, before and after the sleep): it reads the AHCI devices'
    # and the stick's power/control as the kernel has them then
    watched = sata + [hw.stick + '/power/control']
    vm.write(HOOK, '#!/bin/busybox sh\nfor f in %s; do read v < $f; echo "$1 $f $v" >> %s; done\n'
             'exit 0\n' % (' '.join(watched), HOOK_LOG))
    vm.sh('chmod 755 ' + HOOK)
    dbus_send = scenarios.in_ram(vm, '/usr/bin/dbus-send')
    success = int(vm.read('/sys/power/suspend_stats/success'))
    delay_max = int(vm.sh('busctl --system get-property org.freedesktop.login1 /org/freedesktop/login1 '
                          'org.freedesktop.login1.Manager InhibitDelayMaxUSec').split()[1]) / 1e6
    quirk_timeout = 5.0   # QuirkTimeoutSec of the shipped configuration
    before = vm.snapshot()
    vm.sh('systemctl suspend')
    # after the wake only what was copied up may run: the agent's own
    # requests (sysfs, /run) and after_wake(); afterwards the guest is
    # marked so (run_boot's diagnostics would start a shell)
    try:
        vm.qmp.wait_event('SUSPEND', 90)
        vm.qmp.cmd('system_wakeup')
        vm.qmp.wait_event('WAKEUP', 30)
        vm.wait({'/sys/power/suspend_stats/success': str(success + 1)}, 60, 'the sleep counted')
        deadline = time.monotonic() + 90
        while True:
            lines = followed(vm, '/run/ppvm-journal.json')
            mine = [e for e in lines if e.get('SYSLOG_IDENTIFIER') == 'powerpolicyd']
            rec = [e for e in mine if e.get('MESSAGE_ID') == SLEEP_RECORD_ID]
            applied = [e for e in mine if e.get('REASON') == 'resume']
            if (rec and applied) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        msgs = [(e.get('SYSLOG_IDENTIFIER'), str(e.get('MESSAGE')), int(e['__MONOTONIC_TIMESTAMP']))
                for e in lines]
        print('installed: the journal across the sleep (daemon, logind, systemd):\n' + '\n'.join(
            '%12d %s: %s' % (t, i, m) for i, m, t in msgs if i != 'kernel'))
        assert rec and applied, (
            'no %s after the wake within 90 s; tasks blocked in the guest:\n%s' % (
                'sleep record' if not rec else 'policy pass for the resume', blocked_tasks(vm)))

        # the delay inhibitor: released before logind starts the sleep (it
        # does once every delay inhibitor is gone), within the daemon's bound
        # (QuirkTimeoutSec: its pre-sleep work is the video helper's save
        # phase) and logind's InhibitDelayMaxSec. The daemon logs the release
        # itself only at info level, which its unit does not journal: the
        # figure is from PrepareForSleep(true) received to sleep.target, an
        # upper bound.
        def first(ident, text):
            ts = [t for i, m, t in msgs if i == ident and text in m]
            assert ts, 'no "%s" of %s in the journal' % (text, ident)
            return ts[0]
        asked = first('systemd-logind', 'The system will suspend now')
        prep = first('powerpolicyd', 'Preparing for sleep')
        entered = first('systemd', 'Reached target sleep.target')
        late = [m for i, m, t in msgs if 'inhibitor timeout is reached' in m]
        assert not late, 'logind waited for the daemon until its timeout: %s' % late
        held = (entered - prep) / 1e6
        print('installed: PrepareForSleep(true) received %.0f ms after logind\'s "will suspend now"; '
              'delay inhibitor released within %.0f ms of it (to sleep.target; bound %.0f s, logind '
              'allows %.0f s)' % ((prep - asked) / 1e3, held * 1000, quirk_timeout, delay_max))
        assert asked <= prep <= entered, (asked, prep, entered)
        assert held < min(quirk_timeout, delay_max), 'the delay inhibitor held %.1f s' % held
        # the resume: systemd-sleep's post phase done, logind's
        # PrepareForSleep(false), the daemon's policy pass
        woke = first('systemd-sleep', 'System returned from sleep state')
        done = first('systemd-logind', "Operation 'sleep' finished")
        resumed = first('powerpolicyd', 'Resumed from logind')
        t_applied = int(applied[0]['__MONOTONIC_TIMESTAMP'])
        assert woke <= done <= resumed <= t_applied, (woke, done, resumed, t_applied)
        print('installed: after the wake: logind done %.0f ms, the daemon resumed %.0f ms, policy '
              'applied %.0f ms (%s)' % ((done - woke) / 1e3, (resumed - woke) / 1e3,
                                        (t_applied - woke) / 1e3, applied[0]['MESSAGE']))
        # the policy applied again, as the kernel shows it: what the hook read
        # before the sleep and right after the wake (the daemon's sleep
        # layer: the AHCI devices on; the kernel keeps the stick's setting
        # across a suspend), then the policy read back after the daemon's
        # resume (the sleep layer undone)
        hook = {}
        for line in (vm.read(HOOK_LOG) or '').splitlines():
            phase, path, value = line.split()
            hook.setdefault(phase, {})[path] = value
        print('installed: the hook read %s' % hook)
        assert hook.get('pre') and hook.get('post'), 'the system-sleep hook did not run in both phases'
        for k in sata:
            assert hook['pre'][k] == 'on' and hook['post'][k] == 'on', (k, hook)
        assert hook['post'][hw.stick + '/power/control'] == 'auto', hook
        assert int(applied[0]['COUNT']) >= 1, 'no write in the resume pass: %s' % applied
        vm.wait(policy, 60, 'the policy after resume')
        vm.wait(scenarios.want_status([hw.stick], 'suspended'), 60, 'the stick suspended after resume')
        # (of the devices there before the sleep: a VT allocated across it
        # brings vcs devices with the kernel's defaults)
        after = vm.snapshot()
        d = scenarios.diff(before, {k: after.get(k) for k in before})
        assert not d, 'the policy attributes after the resume differ from before the sleep:\n' + '\n'.join(d)
        print('installed: %d policy attributes as before the sleep (%d of new devices)' % (
            len(before), len(set(after) - set(before))))
        # the sleep record (issue 20): journalled, and over the bus with pmctl
        r = rec[-1]
        print('installed: the sleep record in the journal: %s' % {
            k: v for k, v in r.items() if k.isupper() and not k.startswith('_')})
        assert r.get('SLEEP_RESULT') == 'ok' and r.get('MEM_SLEEP') == 'deep', r
        # over the bus after the wake: GetSleepHistory(1) and logind's
        # ListInhibitors (what systemd-inhibit --list shows) with
        # dbus-send from the tmpfs; pmctl started from the overlay after
        # the wake left the guest's agent without an answer (not found out)
        call = dbus_send + ['--system', '--print-reply']
        bus = scenarios.dbus_send_dict(scenarios.ram_run(vm, call + [
            '--dest=org.powerpolicy1', '/org/powerpolicy1', 'org.powerpolicy1.Manager.GetSleepHistory',
            'uint32:1'], '/run/ppvm-wake-history.txt', timeout=30))
        print('installed: GetSleepHistory(1)[0] after the wake: %s' % bus)
        assert bus.get('result') == 'ok' and bus.get('mem_sleep') == 'deep', bus
        assert str(bus.get('duration_ms')) == str(r.get('DURATION_MS')), (bus, r)
        # the lid stays with the daemon: its handle-lid-switch block
        # inhibitor still held after the resume, the delay one taken again
        inh = scenarios.ram_run(vm, call + [
            '--dest=org.freedesktop.login1', '/org/freedesktop/login1',
            'org.freedesktop.login1.Manager.ListInhibitors'], '/run/ppvm-wake-inhibitors.txt', timeout=30)
        rows = re.findall(r'struct \{\s*string "([^"]*)"\s*string "([^"]*)"\s*string "([^"]*)"\s*'
                          r'string "([^"]*)"', inh)
        print('installed: ListInhibitors after the resume (what, who, why, mode): %s' % rows)
        assert any(w == 'handle-lid-switch' and who == 'powerpolicy' and m == 'block'
                   for w, who, _, m in rows), inh
        assert any(w == 'sleep' and who == 'powerpolicy' and m == 'delay' for w, who, _, m in rows), \
            'the delay inhibitor was not taken again after the resume:\n' + inh
    finally:
        vm.poisoned = 'the host root over 9p does not survive a system sleep'


def run_boot(builddir, boot_timeout, results, log):
    """The `installed` scenario in a boot of its own."""
    t0 = time.monotonic()
    log('==== boot (systemd as PID 1): installed')
    ok = False
    try:
        with vmlib.VM(builddir, deadline_s=boot_timeout, log=log, systemd=stage) as vm:
            log('vm: systemd boot to the agent in %.1f s' % vm.boot_s)
            try:
                hw = None
                vm.sh('udevadm settle --timeout=120', timeout=150)
                hw = scenarios.Hardware(vm)
                scenario_installed(vm, hw)
                ok = True
            except Exception:
                import traceback
                log(traceback.format_exc())
                if not vm.poisoned:
                    for cmd in ('systemctl status --no-pager -l powerpolicyd',
                                'journalctl --no-pager -b -n 150',
                                'systemctl --failed --no-pager'):
                        try:
                            log('---- %s ----\n%s' % (cmd, vm.sh(cmd, check=False)[1]))
                        except Exception as e:
                            log('(%s: %s)' % (cmd, e))
                log(vm.diagnostics())
    except Exception:
        import traceback
        log(traceback.format_exc())
    dt = time.monotonic() - t0
    results.append(('installed', ok, dt))
    log('%s installed (%.1f s)' % ('PASS' if ok else 'FAIL', dt))
