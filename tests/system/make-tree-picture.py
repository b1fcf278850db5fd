#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Draw README's picture of the power tree: the real powerpolicyd on the
demo laptop (demo.py's testbed, plus the GPU that supplies the audio
function through a device link, as in test_tree.py; the USB stick and the
audio function runtime-suspended), then

    pmctl tree --format=dot | dot -Tsvg > docs/tree.svg

Safe like demo.py: it runs under umockdev-wrapper (all of /sys, /dev and
udev are a testbed), on a private system bus with a mocked logind, and
the harness refuses to start the daemon outside a testbed. Nothing on
this machine is touched. Needs root (the daemon's private mount
namespace), Graphviz' dot, python3-dbusmock.

  tests/system/make-tree-picture.py [--builddir build] [--output docs/tree.svg]
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dbusmock  # noqa: E402

import ppharness  # noqa: E402
from ppharness import Daemon, Laptop, exit_after_tests  # noqa: E402
from gi.repository import Gio  # noqa: E402
from test_tree import add_tree_devices  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--builddir', default=ppharness.BUILDDIR)
    parser.add_argument('--output', default=os.path.join(HERE, '..', '..', 'docs', 'tree.svg'))
    parser.add_argument('--format', default='svg', choices=('svg', 'png'),
                        help='what dot writes (svg for the README)')
    opts = parser.parse_args()
    builddir = os.path.abspath(opts.builddir)
    output = os.path.abspath(opts.output)
    ppharness.BUILDDIR = builddir

    dot = shutil.which('dot')
    if dot is None:
        sys.exit('make-tree-picture: Graphviz (dot) is not installed')
    if not ppharness.preload_active():
        os.execvp('umockdev-wrapper', ['umockdev-wrapper', sys.executable] + sys.argv)

    bus_pid = ppharness.start_private_system_bus()
    bus_address = os.environ['DBUS_SYSTEM_BUS_ADDRESS']
    logind = dbusmock.DBusTestCase.spawn_server_template('logind', {}, stdout=subprocess.DEVNULL)[0]

    laptop = Laptop()
    add_tree_devices(laptop)
    shipped = os.path.join(HERE, '..', '..', 'data', 'powerpolicy.conf')
    daemon = Daemon(laptop, bus_address=bus_address, config_text=None,
                    config_path=os.path.abspath(shipped))
    daemon.start()
    rc = 1
    try:
        ppharness.wait_for_name(Gio.bus_get_sync(Gio.BusType.SYSTEM, None))
        # the policy allowed the stick and the audio function to suspend:
        # the kernel did (their runtime_status, as the kernel reports it)
        for dev in (ppharness.STORAGE, ppharness.HDA):
            laptop.write(dev + '/power/runtime_status', 'suspended\n')
        env = {'PATH': os.environ.get('PATH', ''), 'DBUS_SYSTEM_BUS_ADDRESS': bus_address,
               'LANG': 'C.UTF-8'}
        tree = subprocess.run([os.path.join(builddir, 'src', 'pmctl'), 'tree', '--format=dot'],
                              env=env, capture_output=True, text=True, timeout=60)
        if tree.returncode != 0:
            sys.exit('make-tree-picture: pmctl tree failed: %s' % tree.stderr.strip())
        svg = subprocess.run([dot, '-T' + opts.format], input=tree.stdout.encode(),
                             capture_output=True, timeout=120)
        if svg.returncode != 0:
            sys.exit('make-tree-picture: dot failed: %s' % svg.stderr.decode().strip())
        os.makedirs(os.path.dirname(output), exist_ok=True)
        tmp = output + '.tmp'
        with open(tmp, 'wb') as f:
            f.write(svg.stdout)
        os.replace(tmp, output)
        print('wrote %s (%d bytes)' % (output, len(svg.stdout)))
        rc = 0
    finally:
        daemon.stop(signal.SIGTERM)
        daemon.cleanup()
        laptop.cleanup()
        logind.terminate()
        logind.wait()
        dbusmock.DBusTestCase.stop_dbus(bus_pid)
    return rc


if __name__ == '__main__':
    exit_after_tests(main())
