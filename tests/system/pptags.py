# SPDX-License-Identifier: GPL-2.0-or-later
"""udev's "powerpolicy" tag for devices in a umockdev testbed.

powerpolicyd enumerates the devices udev's rules tagged "powerpolicy"
(data/udev-rules/99-powerpolicy-tag.rules) and follows tagged devices on
hotplug. umockdev keeps a device's properties in its uevent file and creates
no tags, so the test harness does what udev would:

- the decision is read from the shipped rules file itself (its
  ENV{NAME}=="?*" and SUBSYSTEM=="..." lines), so the harness tags exactly
  the devices the rules would; tests/rules/test_rules.py checks the same
  file with the real `udevadm test`;
- libudev's tag enumeration lists /run/udev/tags/<tag>/<device id>: the
  harness creates that file in the testbed's run/udev, which the daemon
  sees as /run/udev (namespace_argv());
- udevd keeps a database entry for every device it has processed; libudev
  reads it for the device's tags (and, without one, tries again on every
  property lookup): the harness writes a minimal entry (the tags only, the
  properties stay in the uevent file where umockdev keeps them), with the
  lines udevd 252 writes for tags: G: for every tag the device ever had,
  Q: for the tags of its last event, V:1 (the database version that has
  Q:; without it sd-device takes every tag as current);
- as udevd (>= 247) does, a device that loses the tag keeps its entry in
  the tag index and its G: line: only Q: and CURRENT_TAGS tell;
- uevents carry the tags as TAGS/CURRENT_TAGS properties (what udevd sends
  on a real system): the harness sets them in the device's properties
  (umockdev keeps them in the uevent file and sends them with each uevent).
"""

import os
import re

TAG = 'powerpolicy'
HERE = os.path.dirname(os.path.abspath(__file__))
TAG_RULES = os.path.join(HERE, '..', '..', 'data', 'udev-rules', '99-powerpolicy-tag.rules')

_ENV_RULE = re.compile(r'^ENV\{([A-Z0-9_]+)\}=="\?\*", GOTO="powerpolicy_tag"$')
_SUBSYSTEM_RULE = re.compile(r'^SUBSYSTEM=="([a-z0-9_|]+)", GOTO="powerpolicy_tag"$')
_DEVTYPE_RULE = re.compile(
    r'^SUBSYSTEM=="([a-z0-9_]+)", ENV\{DEVTYPE\}=="([a-z0-9_]+)", GOTO="powerpolicy_tag"$')
_IGNORED = (
    'ACTION=="remove", GOTO="powerpolicy_tag_end"',
    'GOTO="powerpolicy_tag_end"',
    'LABEL="powerpolicy_tag"',
    'TAG+="powerpolicy"',
    'LABEL="powerpolicy_tag_end"',
)


class TagRules:
    """What 99-powerpolicy-tag.rules tags, read from the file."""

    def __init__(self, path=TAG_RULES):
        self.properties = set()
        self.subsystems = set()
        self.devtypes = set()       # (subsystem, devtype)
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith('#') or line in _IGNORED:
                    continue
                m = _ENV_RULE.match(line)
                if m:
                    self.properties.add(m.group(1))
                    continue
                m = _SUBSYSTEM_RULE.match(line)
                if m:
                    self.subsystems.update(m.group(1).split('|'))
                    continue
                m = _DEVTYPE_RULE.match(line)
                if m:
                    self.devtypes.add((m.group(1), m.group(2)))
                    continue
                # a rule this reader does not know: teach it, do not guess
                raise ValueError('%s: cannot read rule: %s' % (path, line))

    def tagged(self, subsystem, props):
        if any(props.get(p) for p in self.properties):
            return True
        return subsystem in self.subsystems or (subsystem, props.get('DEVTYPE')) in self.devtypes


_RULES = None


def rules():
    global _RULES
    if _RULES is None:
        _RULES = TagRules()
    return _RULES


def read_device(root, syspath):
    """(subsystem, properties) of a testbed device, or None."""
    d = root + syspath
    try:
        subsystem = os.path.basename(os.readlink(os.path.join(d, 'subsystem')))
        with open(os.path.join(d, 'uevent')) as f:
            text = f.read()
    except OSError:
        return None
    props = {}
    for line in text.splitlines():
        k, sep, v = line.partition('=')
        if sep:
            props[k] = v
    return subsystem, props


def device_id(syspath, subsystem, props):
    """udev's name for a device in /run/udev (as libudev's tag index uses
    it): b/c<major>:<minor>, n<ifindex>, else +<subsystem>:<sysname>."""
    major, minor = props.get('MAJOR'), props.get('MINOR')
    if major and minor and major != '0':
        return '%s%s:%s' % ('b' if subsystem == 'block' else 'c', major, minor)
    if subsystem == 'net' and props.get('IFINDEX'):
        return 'n' + props['IFINDEX']
    return '+%s:%s' % (subsystem, os.path.basename(syspath).replace('!', '/'))


def _dev_link(root, syspath, subsystem, props):
    """/sys/dev/char|block/MAJOR:MINOR, which the kernel has and umockdev
    does not create: libudev finds a device named c13:64 through it."""
    major, minor = props.get('MAJOR'), props.get('MINOR')
    if not major or not minor or major == '0':
        return
    d = os.path.join(root, 'sys', 'dev', 'block' if subsystem == 'block' else 'char')
    link = os.path.join(d, '%s:%s' % (major, minor))
    if os.path.lexists(link):
        return
    os.makedirs(d, exist_ok=True)
    # relative, inside the testbed (see TESTING.md on umockdev's realpath)
    os.symlink(os.path.relpath(root + syspath, d), link)


def tag_properties(subsystem, props):
    """The TAGS/CURRENT_TAGS properties udevd would send for a device with
    @props (a dict), as a list of (key, value): for adding a device with its
    tags in one go (index_device() then creates its index entry)."""
    if not rules().tagged(subsystem, props):
        return []
    return [('TAGS', ':%s:' % TAG), ('CURRENT_TAGS', ':%s:' % TAG)]


def _write_db(root, dev_id, had_tag, tagged):
    """udevd's database entry of a device, as little as libudev needs: when
    it was initialized, all its tags (G:, they stick), the current ones
    (Q:), and the database version udevd 252 writes (V:1)."""
    d = os.path.join(root, 'run', 'udev', 'data')
    os.makedirs(d, exist_ok=True)
    text = 'I:1\n'
    if had_tag or tagged:
        text += 'G:%s\n' % TAG
    if tagged:
        text += 'Q:%s\n' % TAG
    text += 'V:1\n'
    with open(os.path.join(d, dev_id), 'w') as f:
        f.write(text)


def index_device(root, syspath, subsystem, props):
    """What udevd keeps for a device added with tag_properties(): its
    database entry, its entry in the tag index, and
    /sys/dev/char|block/MAJOR:MINOR."""
    _dev_link(root, syspath, subsystem, props)
    dev_id = device_id(syspath, subsystem, props)
    tagged = ':%s:' % TAG in props.get('CURRENT_TAGS', '')
    _write_db(root, dev_id, tagged, tagged)
    if tagged:
        tag_dir = os.path.join(root, 'run', 'udev', 'tags', TAG)
        os.makedirs(tag_dir, exist_ok=True)
        open(os.path.join(tag_dir, dev_id), 'w').close()


def retag(tb, root, syspath):
    """Tag (or untag) @syspath as the rules would; True if tagged."""
    dev = read_device(root, syspath)
    if dev is None:
        return False
    subsystem, props = dev
    tagged = rules().tagged(subsystem, props)
    tag_dir = os.path.join(root, 'run', 'udev', 'tags', TAG)
    dev_id = device_id(syspath, subsystem, props)
    tag_file = os.path.join(tag_dir, dev_id)
    _dev_link(root, syspath, subsystem, props)
    _write_db(root, dev_id, ':%s:' % TAG in props.get('TAGS', ''), tagged)
    if tagged:
        os.makedirs(tag_dir, exist_ok=True)
        open(tag_file, 'w').close()
        for key in ('TAGS', 'CURRENT_TAGS'):
            if props.get(key) != ':%s:' % TAG:
                tb.set_property(syspath, key, ':%s:' % TAG)
    else:
        # as udevd: the entry in the tag index stays (tags stick, the
        # index lists every device that ever had the tag); TAGS keeps
        # every tag the device ever had, CURRENT_TAGS lists those of the
        # last event (absent when none; an empty TAGS= or CURRENT_TAGS=
        # makes libudev crash, udevd never sends one)
        if 'CURRENT_TAGS' in props:
            uevent = os.path.join(root + syspath, 'uevent')
            with open(uevent) as f:
                lines = [line for line in f if not line.startswith('CURRENT_TAGS=')]
            with open(uevent, 'w') as f:
                f.writelines(lines)
    return tagged


def untag(root, syspath):
    """udevd's records of a removed device go."""
    dev = read_device(root, syspath)
    if dev is None:
        return
    dev_id = device_id(syspath, *dev)
    for f in (os.path.join(root, 'run', 'udev', 'tags', TAG, dev_id),
              os.path.join(root, 'run', 'udev', 'data', dev_id)):
        if os.path.exists(f):
            os.unlink(f)


class TaggingTestbed:
    """A UMockdev.Testbed that tags devices the way the shipped rules do,
    whenever a device is added, its properties change, or a uevent other
    than "remove" is sent (udev runs its rules then)."""

    def __init__(self, tb):
        self._tb = tb
        self._root = tb.get_root_dir()

    def __getattr__(self, name):
        return getattr(self._tb, name)

    @property
    def testbed(self):
        """The UMockdev.Testbed itself."""
        return self._tb

    def add_device(self, subsystem, name, parent, attrs, props):
        path = self._tb.add_device(subsystem, name, parent, attrs, props)
        if path:
            retag(self._tb, self._root, path)
        return path

    def add_from_string(self, text):
        ok = self._tb.add_from_string(text)
        if ok:
            for line in text.splitlines():
                if line.startswith('P: '):
                    retag(self._tb, self._root, '/sys' + line[3:].strip())
        return ok

    def set_property(self, syspath, name, value):
        self._tb.set_property(syspath, name, value)
        if name not in ('TAGS', 'CURRENT_TAGS'):
            retag(self._tb, self._root, syspath)

    def uevent(self, syspath, action):
        if action != 'remove':
            retag(self._tb, self._root, syspath)
        self._tb.uevent(syspath, action)

    def remove_device(self, syspath):
        untag(self._root, syspath)
        self._tb.remove_device(syspath)


# umockdev (0.17) redirects /sys, /dev and /proc, but not /run/udev, where
# libudev finds its tag index: the daemon runs in a private mount namespace
# whose /run/udev is the testbed's (a tmpfs /run hides the machine's own
# udev database as well).
# With a conflicts root ($3), the places where the daemon looks for other
# power tools (src/backends/pp-conflicts.c) show the test's tree instead of
# the machine's: /run is the root's run/, and each unit directory (and
# /etc/laptop-mode) that exists on the machine is covered by the root's
# copy, or by an empty tmpfs when the root has none. A directory the
# machine lacks has nothing to hide (and no mount point): the test's copy
# of it stays unseen. /lib goes first: where it is /usr/lib (merged /usr),
# the /usr/lib mount lands on top of it.
NAMESPACE_SCRIPT = r'''
set -e
if [ -n "$3" ]; then
    for d in lib/systemd/system usr/lib/systemd/system etc/systemd/system etc/laptop-mode; do
        [ -d "/$d" ] || continue
        if [ -d "$3/$d" ]; then
            mount -n --bind "$3/$d" "/$d"
        else
            mount -n -t tmpfs -o mode=0755 pp-test-empty "/$d"
        fi
    done
    mount -n --bind "$3/run" /run
else
    mount -n -t tmpfs -o mode=0755 pp-test-run /run
fi
mkdir -p /run/udev
mount -n --bind "$1" /run/udev
if [ -n "$2" ]; then
    mkdir -p /run/systemd/journal
    mount -n --bind "$2" /run/systemd/journal
fi
shift 3
exec "$@"
'''


def namespace_argv(root, argv, journal_dir=None, conflicts_root=None):
    """@argv run with the testbed's run/udev as /run/udev (needs root and
    unshare(1)), @journal_dir, when given, as /run/systemd/journal
    (ppjournal.py), and @conflicts_root, when given, as what the daemon's
    scan for other power tools sees (its run/ as /run); the command keeps
    the pid of the returned process."""
    run_udev = os.path.join(root, 'run', 'udev')
    if os.path.realpath(run_udev).startswith('/run/'):
        raise RuntimeError('the testbed (%s) must not lie under /run' % root)
    os.makedirs(run_udev, exist_ok=True)
    if conflicts_root:
        if os.path.realpath(conflicts_root).startswith('/run/'):
            raise RuntimeError('the conflicts root (%s) must not lie under /run' % conflicts_root)
        os.makedirs(os.path.join(conflicts_root, 'run'), exist_ok=True)
    return (['unshare', '--mount', '--propagation', 'private', '/bin/sh', '-c',
             NAMESPACE_SCRIPT, 'pp-test-namespace', run_udev, journal_dir or '',
             conflicts_root or ''] + list(argv))
