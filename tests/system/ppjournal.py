# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in journald for one daemon of a system test.

The daemon logs as it does under systemd, with no hook of its own: GLib's
g_log_writer_is_journald() finds its standard error connected to a stream
socket named /run/systemd/journal/stdout, and g_log_writer_journald()
sends every message, each event with all its fields, as a datagram to
/run/systemd/journal/socket. Both are this module's:

- the stream pair is made in a private mount namespace of its own (so the
  name exists nowhere on the machine) and handed back over a socket pair;
- the datagram socket is bound in the test's work directory, which the
  daemon's namespace mounts on /run/systemd/journal (pptags.namespace_argv).

What arrives is kept as records (dicts of the native protocol's fields)
and, for the test's log, written to the daemon's log file one line per
message; what the daemon writes to its standard error directly goes there
too.
"""

import os
import select
import socket
import struct
import subprocess
import sys
import threading

STDOUT_PAIR_SCRIPT = r'''
import os, socket, subprocess, sys
back = socket.socket(fileno=int(sys.argv[1]))
subprocess.run(['mount', '-n', '-t', 'tmpfs', '-o', 'mode=0755', 'pp-test-journal', '/run'], check=True)
os.makedirs('/run/systemd/journal')
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind('/run/systemd/journal/stdout')
listener.listen(1)
client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
client.connect('/run/systemd/journal/stdout')
server, _ = listener.accept()
socket.send_fds(back, [b'x'], [client.fileno(), server.fileno()])
'''


def journald_stderr_pair():
    """(client, server): a connected stream pair whose server end is named
    /run/systemd/journal/stdout, as systemd connects a service's standard
    error to the journal. Needs root (unshare, mount)."""
    here, there = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        subprocess.run(['unshare', '--mount', '--propagation', 'private', sys.executable, '-c',
                        STDOUT_PAIR_SCRIPT, str(there.fileno())],
                       pass_fds=[there.fileno()], check=True, timeout=30)
        _, fds, _, _ = socket.recv_fds(here, 1, 2)
    finally:
        here.close()
        there.close()
    if len(fds) != 2:
        raise RuntimeError('the stand-in journald stream pair was not made')
    return socket.socket(fileno=fds[0]), socket.socket(fileno=fds[1])


def parse_native(data):
    """One datagram of journald's native protocol as a dict: KEY=VALUE
    lines, or KEY, newline, a 64-bit little-endian size, the value and a
    newline for a value that holds a newline."""
    rec = {}
    pos = 0
    while pos < len(data):
        nl = data.find(b'\n', pos)
        if nl < 0:
            nl = len(data)
        line = data[pos:nl]
        if b'=' in line:
            key, _, value = line.partition(b'=')
            pos = nl + 1
        else:
            key = line
            (size,) = struct.unpack('<Q', data[nl + 1:nl + 9])
            value = data[nl + 9:nl + 9 + size]
            pos = nl + 9 + size + 1
        rec[key.decode()] = value.decode('utf-8', 'replace')
    return rec


class JournalSink:
    """The journal of one daemon: see the top of this module."""

    def __init__(self, directory, log_path):
        os.makedirs(directory, mode=0o755, exist_ok=True)
        self.directory = directory
        self.log_path = log_path
        self.datagrams = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.datagrams.bind(os.path.join(directory, 'socket'))
        self.client, self.server = journald_stderr_pair()
        self.records = []
        self.lock = threading.Lock()
        self.closing = threading.Event()
        self.threads = [threading.Thread(target=self._read_datagrams, daemon=True),
                        threading.Thread(target=self._read_stream, daemon=True)]
        for t in self.threads:
            t.start()

    def _log(self, text):
        with open(self.log_path, 'a', encoding='utf-8', errors='replace') as log:
            log.write(text)

    def _drain(self):
        """Take every datagram queued now (the caller holds the lock)."""
        while True:
            try:
                data = self.datagrams.recv(1 << 20, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return
            rec = parse_native(data)
            self.records.append(rec)
            self._log('%s-%s: %s\n' % (rec.get('GLIB_DOMAIN', rec.get('SYSLOG_IDENTIFIER', '?')),
                                       rec.get('PRIORITY', '?'), rec.get('MESSAGE', '')))

    def _read_datagrams(self):
        while not self.closing.is_set():
            ready, _, _ = select.select([self.datagrams], [], [], 0.1)
            if ready:
                with self.lock:
                    self._drain()

    def _read_stream(self):
        while True:
            data = self.server.recv(65536)
            if not data:
                return
            with self.lock:
                self._log(data.decode('utf-8', 'replace'))

    def events(self):
        """Every record so far. A message the daemon logged before it
        answered a call is here once the answer came."""
        with self.lock:
            self._drain()
            return list(self.records)

    def close(self):
        """After the daemon exited: the rest of its log, then the sockets."""
        self.client.close()
        self.threads[1].join(timeout=10)
        self.closing.set()
        self.threads[0].join(timeout=10)
        with self.lock:
            self._drain()
        self.server.close()
        self.datagrams.close()
        # a restarted daemon in the same directory binds the socket again
        try:
            os.unlink(os.path.join(self.directory, 'socket'))
        except FileNotFoundError:
            pass
