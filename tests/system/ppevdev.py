# SPDX-License-Identifier: GPL-2.0-or-later
"""Emulated evdev devices in a umockdev testbed, without uinput.

TESTING.md "Input devices (evdev) without uinput": an event node is a
umockdev device whose ioctls are answered here, the way libevdev probes a
device in libevdev_new_from_fd() (EVIOCGBIT(0) and per type, EVIOCGNAME,
EVIOCGPHYS, EVIOCGUNIQ, EVIOCGID, EVIOCGVERSION, EVIOCGPROP, EVIOCGKEY,
EVIOCGLED, EVIOCGSW, EVIOCGABS, EVIOCGREP), plus EVIOCGRAB and
EVIOCSCLOCKID. Events are injected by writing struct input_event records
to the testbed's end of the node; an unplug makes read() fail with ENODEV.

The ioctl handlers run in a thread of their own with its own main context,
so the daemon's ioctls are answered even while the test blocks in a D-Bus
call.
"""

import errno
import os
import struct
import threading
import time

import gi

gi.require_version('UMockdev', '1.0')
from gi.repository import GLib, UMockdev  # noqa: E402

# linux/input-event-codes.h
EV_SYN, EV_KEY, EV_REL, EV_ABS, EV_MSC, EV_SW, EV_LED, EV_SND, EV_REP = 0, 1, 2, 3, 4, 5, 0x11, 0x12, 0x14
EV_MAX = 0x1f
SYN_REPORT, SYN_DROPPED = 0, 3
KEY_ESC, KEY_A, KEY_SPACE = 1, 30, 57
BTN_LEFT, BTN_RIGHT, BTN_MIDDLE = 0x110, 0x111, 0x112
REL_X, REL_Y, REL_WHEEL = 0, 1, 8
MSC_SCAN = 4
LED_NUML, LED_CAPSL = 0, 1
SW_LID, SW_TABLET_MODE, SW_DOCK = 0, 1, 5
BUS_USB, BUS_HOST = 0x03, 0x19

_EVIOC_TYPE = ord('E')
_STRUCT_EVENT = 'llHHi'

KEYBOARD = {
    'name': 'Emulated Keyboard', 'id': (BUS_USB, 0x046d, 0xc31c, 0x0110),
    'props': ['ID_INPUT_KEY', '1', 'ID_INPUT_KEYBOARD', '1'],
    'codes': {EV_SYN: [SYN_REPORT], EV_KEY: list(range(KEY_ESC, KEY_SPACE + 1)),
              EV_MSC: [MSC_SCAN], EV_LED: [LED_NUML, LED_CAPSL], EV_REP: []},
}
MOUSE = {
    'name': 'Emulated Mouse', 'id': (BUS_USB, 0x046d, 0xc077, 0x0111),
    'props': ['ID_INPUT_MOUSE', '1'],
    'codes': {EV_SYN: [SYN_REPORT], EV_KEY: [BTN_LEFT, BTN_RIGHT, BTN_MIDDLE],
              EV_REL: [REL_X, REL_Y, REL_WHEEL], EV_MSC: [MSC_SCAN]},
}
LID = {
    'name': 'Lid Switch', 'id': (BUS_HOST, 0, 0x0005, 0),
    'props': ['ID_INPUT_SWITCH', '1'],
    'codes': {EV_SYN: [SYN_REPORT], EV_SW: [SW_LID]},
}
DOCK = {
    'name': 'ThinkPad Extra Buttons', 'id': (BUS_HOST, 0x17aa, 0x5054, 0x4101),
    'props': ['ID_INPUT_SWITCH', '1', 'ID_INPUT_KEY', '1'],
    'codes': {EV_SYN: [SYN_REPORT], EV_SW: [SW_TABLET_MODE, SW_DOCK]},
}


def _bits(codes, size):
    buf = bytearray(size)
    for c in codes:
        if c // 8 < size:
            buf[c // 8] |= 1 << (c % 8)
    return bytes(buf)


class _HandlerThread:
    """One thread and main context answering the ioctls of every device."""

    def __init__(self):
        self.context = GLib.MainContext.new()
        self.loop = GLib.MainLoop.new(self.context, False)
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.ready.wait()

    def _run(self):
        self.context.push_thread_default()
        self.ready.set()
        self.loop.run()
        self.context.pop_thread_default()

    def call(self, func, *args):
        """Run @func in the handler thread (so that umockdev registers the
        device with that thread's main context) and return its result."""
        done = threading.Event()
        result = {}

        def cb(*_args):
            try:
                result['value'] = func(*args)
            except Exception as e:  # noqa: BLE001 - re-raised in the caller
                result['error'] = e
            done.set()
            return False
        src = GLib.idle_source_new()
        src.set_callback(cb)
        src.attach(self.context)
        done.wait()
        if 'error' in result:
            raise result['error']
        return result.get('value')

    def stop(self):
        self.loop.quit()
        self.thread.join(5)


class EvdevDevice:
    """An emulated /dev/input/eventN with its input parent."""

    def __init__(self, emulator, number, spec, parent=None):
        self.emulator = emulator
        self.tb = emulator.tb
        self.number = number
        self.spec = spec
        self.devnode = '/dev/input/event%d' % number
        self.switches = {code: 0 for code in spec['codes'].get(EV_SW, [])}
        self.keys = set()
        self.unplugged = False
        # every ioctl fails: libevdev cannot open it (a broken device)
        self.broken = False
        self.n_ioctls = 0
        self.input_path = self.tb.add_device(
            'input', 'input%d' % number, parent,
            ['name', spec['name'].decode(errors='replace') if isinstance(spec['name'], bytes)
             else spec['name']],
            ['ID_INPUT', '1'] + spec['props'])
        assert self.input_path, 'umockdev could not add input%d (not under umockdev-wrapper?)' % number
        self.syspath = self.input_path + '/event%d' % number
        props = ''.join('E: %s=%s\n' % (spec['props'][i], spec['props'][i + 1])
                        for i in range(0, len(spec['props']), 2))
        ok = self.tb.add_from_string(
            'P: %s\nN: input/event%d\nE: SUBSYSTEM=input\nE: DEVNAME=%s\n'
            'E: MAJOR=13\nE: MINOR=%d\nE: ID_INPUT=1\n%s' % (
                self.syspath[len('/sys'):], number, self.devnode, 64 + number, props))
        assert ok, 'umockdev could not add %s' % self.devnode
        self.handler = UMockdev.IoctlBase()
        self.handler.connect('handle-ioctl', self._on_ioctl)
        self.handler.connect('handle-read', self._on_read)
        emulator.thread.call(self.tb.attach_ioctl, self.devnode, self.handler)
        self.fd = self.tb.get_dev_fd(self.devnode)

    # -- ioctls -------------------------------------------------------------

    def _reply(self, client, size, payload, ret):
        data = client.get_arg().resolve(0, size)
        data.update(0, payload[:size])
        client.complete(ret, 0)

    def _on_ioctl(self, handler, client):
        req = client.get_request()
        typ = (req >> 8) & 0xff
        nr = req & 0xff
        size = (req >> 16) & 0x3fff
        self.n_ioctls += 1
        codes = self.spec['codes']
        if typ != _EVIOC_TYPE:
            client.complete(-1, errno.ENOTTY)
            return True
        if self.broken:
            client.complete(-1, errno.EIO)
            return True
        if nr == 0x01:      # EVIOCGVERSION
            self._reply(client, 4, struct.pack('i', 0x010001), 0)
        elif nr == 0x02:    # EVIOCGID
            self._reply(client, 8, struct.pack('HHHH', *self.spec['id']), 0)
        elif nr == 0x03:    # EVIOCGREP
            self._reply(client, 8, struct.pack('II', 250, 33), 0)
        elif nr == 0x06:    # EVIOCGNAME(len)
            name = self.spec['name']
            # bytes: a device's own name, invalid UTF-8 included
            name = (name if isinstance(name, bytes) else name.encode()) + b'\0'
            name = name[:size]
            self._reply(client, size, name + bytes(size - len(name)), len(name))
        elif nr in (0x07, 0x08):    # EVIOCGPHYS, EVIOCGUNIQ
            client.complete(-1, errno.ENOENT)
        elif nr == 0x09:    # EVIOCGPROP(len)
            self._reply(client, size, bytes(size), size)
        elif nr == 0x18:    # EVIOCGKEY(len): keys held down
            self._reply(client, size, _bits(self.keys, size), size)
        elif nr in (0x19, 0x1a):    # EVIOCGLED, EVIOCGSND: all off
            self._reply(client, size, bytes(size), size)
        elif nr == 0x1b:    # EVIOCGSW(len): current switch state
            on = [c for c, v in self.switches.items() if v]
            self._reply(client, size, _bits(on, size), size)
        elif 0x20 <= nr <= 0x20 + EV_MAX:   # EVIOCGBIT(ev, len)
            ev = nr - 0x20
            bits = list(codes.keys()) if ev == 0 else codes.get(ev, [])
            self._reply(client, size, _bits(bits, size), size)
        elif 0x40 <= nr < 0x80:     # EVIOCGABS(abs): no axes here
            self._reply(client, 24, bytes(24), 0)
        elif nr in (0x90, 0xa0):    # EVIOCGRAB, EVIOCSCLOCKID
            if nr == 0x90:
                self.emulator.grabs.append(self.devnode)
            client.complete(0, 0)
        else:
            client.complete(-1, errno.EINVAL)
        return True

    def _on_read(self, handler, client):
        if self.unplugged:
            client.complete(-1, errno.ENODEV)
            return True
        return False

    # -- events -------------------------------------------------------------

    def send(self, events):
        """Write (type, code, value) events, each batch ending in SYN_REPORT,
        with CLOCK_MONOTONIC times (what EVIOCSCLOCKID asked for)."""
        t = time.clock_gettime(time.CLOCK_MONOTONIC)
        sec, usec = int(t), int((t % 1) * 1e6)
        buf = b''
        for typ, code, value in list(events) + [(EV_SYN, SYN_REPORT, 0)]:
            if typ == EV_SW:
                self.switches[code] = value
            buf += struct.pack(_STRUCT_EVENT, sec, usec, typ, code, value)
        os.write(self.fd, buf)

    def key(self, code=KEY_A):
        """A key press and release (the code is irrelevant to the daemon)."""
        self.send([(EV_MSC, MSC_SCAN, 4), (EV_KEY, code, 1)])
        self.send([(EV_KEY, code, 0)])

    def move(self, dx=1, dy=0):
        self.send([(EV_REL, REL_X, dx), (EV_REL, REL_Y, dy)])

    def set_switch(self, code, value):
        self.send([(EV_SW, code, value)])

    def fail_reads(self):
        """What a reader sees first when the device is unplugged: read()
        fails with ENODEV (one byte is written to wake a poll()ing reader)."""
        self.unplugged = True
        os.write(self.fd, b'\0')

    def remove(self):
        """udev's part of an unplug: the event node and the input device go."""
        self.tb.uevent(self.syspath, 'remove')
        self.tb.uevent(self.input_path, 'remove')

    def unplug(self):
        self.fail_reads()
        self.remove()


class EvdevEmulator:
    """Creates emulated evdev devices in @tb; call stop() after the daemon
    has exited (a reader left with the node open gets SIGABRT)."""

    def __init__(self, tb):
        self.tb = tb
        self.thread = _HandlerThread()
        self.devices = []
        self.grabs = []
        self._next = 0

    def add(self, spec, parent=None, uevent=False):
        dev = EvdevDevice(self, self._next, spec, parent)
        self._next += 1
        self.devices.append(dev)
        if uevent:
            self.tb.uevent(dev.input_path, 'add')
            self.tb.uevent(dev.syspath, 'add')
        return dev

    def stop(self):
        self.thread.stop()
