#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Feed the exposition text on stdin to the reference parser of the
Prometheus Python client (python3-prometheus-client); exit 77 (skip) when
it is not installed. Checks that every family parses, keeps its type, and
that the sample count matches the number of sample lines."""

import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print('prometheus_client not installed (apt-get install python3-prometheus-client)')
    sys.exit(77)

text = sys.stdin.read()
types = {}
for line in text.splitlines():
    if line.startswith('# TYPE '):
        _, _, name, kind = line.split(' ', 3)
        types[name] = kind
sample_lines = [l for l in text.splitlines() if l and not l.startswith('#')]
# the families every exposition has, whatever the daemon's state
for required in ('powerpolicy_devices', 'powerpolicy_write_failures_total',
                 'powerpolicy_on_battery', 'powerpolicy_user_idle'):
    if required not in types:
        sys.exit('family %s missing' % required)
if not sample_lines:
    sys.exit('no samples')

n_samples = 0
seen = set()
for fam in text_string_to_metric_families(text):
    # the client strips _total from counter family names
    name = fam.name + '_total' if fam.type == 'counter' else fam.name
    if name not in types:
        sys.exit('family %s not announced with # TYPE' % name)
    if fam.type != types[name]:
        sys.exit('%s: type %s, announced %s' % (name, fam.type, types[name]))
    if not name.startswith('powerpolicy_'):
        sys.exit('%s: not prefixed powerpolicy_' % name)
    seen.add(name)
    n_samples += len(fam.samples)

if seen != set(types):
    sys.exit('families lost by the parser: %s' % sorted(set(types) - seen))
if n_samples != len(sample_lines):
    sys.exit('%d samples parsed, %d sample lines' % (n_samples, len(sample_lines)))
print('%d families, %d samples: ok' % (len(seen), n_samples))
