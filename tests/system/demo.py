#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make demo: the real powerpolicyd on a simulated laptop, safely.

Runs under umockdev-wrapper: all of /sys, /dev and udev are a testbed, the
system bus is a private one with a mocked logind. Nothing on this machine
is touched.
"""

import argparse
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dbusmock  # noqa: E402

import ppharness  # noqa: E402
from ppharness import Daemon, Laptop, wait_until  # noqa: E402
from gi.repository import Gio  # noqa: E402


def banner(text):
    print('\n\033[1m== %s ==\033[0m' % text if sys.stdout.isatty() else '\n== %s ==' % text,
          flush=True)


def pmctl(builddir, env, *args):
    cmd = [os.path.join(builddir, 'src', 'pmctl')] + list(args)
    print('$ pmctl %s' % ' '.join(args), flush=True)
    r = subprocess.run(cmd, env=env)
    return r.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--builddir', default=ppharness.BUILDDIR)
    opts = parser.parse_args()
    builddir = os.path.abspath(opts.builddir)
    ppharness.BUILDDIR = builddir

    if not ppharness.preload_active():
        os.execvp('umockdev-wrapper', ['umockdev-wrapper', sys.executable] + sys.argv)

    bus_pid = ppharness.start_private_system_bus()
    bus_address = os.environ['DBUS_SYSTEM_BUS_ADDRESS']
    logind = dbusmock.DBusTestCase.spawn_server_template('logind', {}, stdout=subprocess.DEVNULL)[0]

    laptop = Laptop()
    shipped = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "powerpolicy.conf")
    daemon = Daemon(laptop, bus_address=bus_address, config_text=None,
                    config_path=os.path.abspath(shipped))
    banner('simulated laptop: %s' % laptop.root)
    print('PCI xHCI -> root hub -> hub -> mouse + storage; AHCI SATA host; HDA audio;\n'
          'AC adapter + battery. Policy: %s' % daemon.config_path)
    daemon.start()
    status = 0
    try:
        ppharness.wait_for_name(Gio.bus_get_sync(Gio.BusType.SYSTEM, None))
        env = {'PATH': os.environ.get('PATH', ''), 'DBUS_SYSTEM_BUS_ADDRESS': bus_address,
               'LANG': 'C.UTF-8'}
        help_text = subprocess.run([os.path.join(builddir, 'src', 'pmctl'), '--help'],
                                   capture_output=True, text=True, env=env).stdout

        banner('on AC')
        status |= pmctl(builddir, env, 'status')
        status |= pmctl(builddir, env, 'list')
        if ' tree' in help_text:
            status |= pmctl(builddir, env, 'tree')

        banner('AC adapter unplugged: the battery layer applies')
        laptop.set_ac(False)
        wait_until(lambda: laptop.read(ppharness.XHCI + '/power/control') == 'auto', 5,
                   'the battery layer')
        status |= pmctl(builddir, env, 'status')
        status |= pmctl(builddir, env, 'list')
    finally:
        banner('stopping: every original value is written back')
        rc = daemon.stop(signal.SIGTERM)
        print('powerpolicyd exited with status %d; %s/power/control is back to %r'
              % (rc, ppharness.XHCI, laptop.read(ppharness.XHCI + '/power/control')))
        daemon.cleanup()
        logind.terminate()
        logind.wait()
        dbusmock.DBusTestCase.stop_dbus(bus_pid)
    return 1 if status or rc else 0


if __name__ == '__main__':
    sys.exit(main())
