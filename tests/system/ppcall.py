#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Call one org.powerpolicy1.Manager method and print the outcome as JSON.

Used by the system tests to call the daemon as another user (setpriv):
  ppcall.py METHOD SIGNATURE JSON_ARGS
prints {"ok": true, "result": ...} or {"ok": false, "error": NAME, "message": ...}.
  ppcall.py -
reads a JSON list of [METHOD, SIGNATURE, ARGS] from stdin (arguments too
large for a command line) and prints a JSON list of those outcomes.
"""

import json
import sys

import gi

gi.require_version('Gio', '2.0')
from gi.repository import GLib, Gio  # noqa: E402


def call(bus, method, signature, args):
    params = GLib.Variant(signature, tuple(args)) if signature else None
    try:
        r = bus.call_sync('org.powerpolicy1', '/org/powerpolicy1', 'org.powerpolicy1.Manager',
                          method, params, None, Gio.DBusCallFlags.NONE, 30000, None)
        return {'ok': True, 'result': r.unpack() if r is not None else None}
    except GLib.GError as e:
        name = Gio.DBusError.get_remote_error(e)
        Gio.DBusError.strip_remote_error(e)
        return {'ok': False, 'error': name, 'message': e.message}


def main():
    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    if sys.argv[1] == '-':
        out = [call(bus, m, s, a) for (m, s, a) in json.load(sys.stdin)]
    else:
        out = call(bus, sys.argv[1], sys.argv[2], json.loads(sys.argv[3]))
    print(json.dumps(out, default=str))


if __name__ == '__main__':
    main()
