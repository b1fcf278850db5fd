#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""powerpolicy VM tier: the agent that runs inside the guest.

PID 1 of the guest after switch_root (tests/vm/vmlib.py builds the
initramfs). It reads one JSON request a line from the virtio-serial port
named "ppctl" and answers each with one JSON line: run a shell command,
start or signal a background process, read files, wait in the guest for an
attribute to reach a value, snapshot every power attribute. Nothing here
decides whether a test passed: the host does.
"""

import glob
import json
import os
import signal
import subprocess
import sys
import time

PROCS = {}


def log(msg):
    sys.stderr.write('[agent] %s\n' % msg)
    sys.stderr.flush()


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def reap():
    """Collect orphans (PID 1's duty); keep the status of our own."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        p = PROCS.get(pid)
        if p is not None and p.returncode is None:
            p.returncode = os.waitstatus_to_exitcode(status)


# the power attributes whose values are policy (not state)
POWER_FILES = ('power/control', 'power/autosuspend_delay_ms', 'power/wakeup')


def snapshot():
    """Every power attribute that is policy (not state) of every device on
    a bus or in a class, every module parameter, and /sys/power's choices.
    (Walking all of /sys/devices takes seconds under TCG; the devices are
    all on a bus or in a class.)"""
    snap = {}
    devices = set()
    for link in glob.glob('/sys/bus/*/devices/*') + glob.glob('/sys/class/*/*'):
        devices.add(os.path.realpath(link))
    for d in devices:
        for f in POWER_FILES + ('link_power_management_policy',):
            v = read(os.path.join(d, f))
            if v is not None:
                snap[os.path.join(d, f)] = v
    for p in glob.glob('/sys/module/*/parameters/*'):
        v = read(p)
        if v is not None:
            snap[p] = v
    for p in ('/sys/power/mem_sleep', '/sys/power/disk', '/sys/power/pm_async'):
        v = read(p)
        if v is not None:
            snap[p] = v
    return snap


def handle(req):
    op = req['op']
    if op == 'sh':
        try:
            r = subprocess.run(['/bin/sh', '-c', req['cmd']], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=req.get('timeout', 60),
                               env=req.get('env') or None)
            return {'rc': r.returncode, 'out': r.stdout.decode('utf-8', 'replace')}
        except subprocess.TimeoutExpired as e:
            out = (e.output or b'').decode('utf-8', 'replace')
            return {'rc': None, 'out': out, 'timeout': True}
    if op == 'spawn':
        out = open(req['log'], 'ab') if req.get('log') else subprocess.DEVNULL
        env = dict(os.environ)
        env.update(req.get('env') or {})
        p = subprocess.Popen(req['argv'], stdout=out, stderr=subprocess.STDOUT, env=env,
                             stdin=subprocess.DEVNULL)
        if out is not subprocess.DEVNULL:
            out.close()
        PROCS[p.pid] = p
        return {'pid': p.pid}
    if op == 'signal':
        p = PROCS.get(req['pid'])
        if p is not None and p.poll() is None:
            p.send_signal(req['sig'])
        return {}
    if op == 'wait':
        # counted, not read from the clock: the guest's clock may jump
        # across a system sleep
        p = PROCS[req['pid']]
        for _ in range(int(req.get('timeout', 10) / 0.02)):
            if p.poll() is not None:
                break
            time.sleep(0.02)
        return {'rc': p.returncode, 'running': p.returncode is None}
    if op == 'time':
        # run a command, timed by the guest's clock; for bench/vm
        env = dict(os.environ)
        env.update(req.get('env') or {})
        t0 = time.monotonic()
        r = subprocess.run(req['argv'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=req.get('timeout', 120), env=env)
        return {'seconds': time.monotonic() - t0, 'rc': r.returncode,
                'out': r.stdout.decode('utf-8', 'replace')}
    if op == 'read':
        return {'values': {p: read(p) for p in req['paths']}}
    if op == 'poll':
        # wait in the guest for every path to read its value
        want = req['want']
        deadline = time.monotonic() + req.get('timeout', 30)
        start = time.monotonic()
        while True:
            cur = {p: read(p) for p in want}
            # a value of true: the file exists, whatever it reads
            if all(cur[p] == v or (v is True and cur[p] is not None) for p, v in want.items()):
                return {'ok': True, 'elapsed': time.monotonic() - start, 'values': cur}
            if time.monotonic() > deadline:
                return {'ok': False, 'elapsed': time.monotonic() - start, 'values': cur}
            time.sleep(req.get('interval', 0.05))
    if op == 'snapshot':
        return {'snapshot': snapshot()}
    if op == 'glob':
        return {'paths': sorted(glob.glob(req['pattern']))}
    if op == 'realpath':
        return {'path': os.path.realpath(req['path'])}
    if op == 'write':
        with open(req['path'], 'w') as f:
            f.write(req['value'])
        return {}
    raise ValueError('unknown op %r' % op)


def find_port():
    for d in glob.glob('/sys/class/virtio-ports/*'):
        if read(d + '/name') == 'ppctl':
            return '/dev/' + os.path.basename(d)
    return None


def main():
    os.environ.setdefault('PATH', '/usr/sbin:/usr/bin:/sbin:/bin')
    os.environ['LANG'] = 'C.UTF-8'
    port = None
    for _ in range(100):
        port = find_port()
        if port and os.path.exists(port):
            break
        time.sleep(0.1)
    if not port:
        log('no virtio-serial port named ppctl')
        return 1
    fd = os.open(port, os.O_RDWR)
    rf = os.fdopen(fd, 'rb', buffering=0)
    os.write(fd, b'{"ready": true}\n')
    buf = b''
    while True:
        chunk = rf.read(65536)
        if not chunk:
            time.sleep(0.05)
            continue
        buf += chunk
        while b'\n' in buf:
            line, buf = buf.split(b'\n', 1)
            if not line.strip():
                continue
            req = json.loads(line)
            reap()
            if req.get('op') == 'poweroff':
                os.write(fd, (json.dumps({'id': req.get('id')}) + '\n').encode())
                os.sync()
                os.system('/bin/busybox poweroff -f')
                return 0
            try:
                rep = handle(req)
            except Exception as e:  # reported to the host, which fails the test
                rep = {'error': '%s: %s' % (type(e).__name__, e)}
            rep['id'] = req.get('id')
            data = (json.dumps(rep) + '\n').encode()
            while data:
                n = os.write(fd, data)
                data = data[n:]


if __name__ == '__main__':
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    sys.exit(main())
