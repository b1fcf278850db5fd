#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Render a man page with every groff warning enabled, as man(1) would on a
# terminal, at two line lengths; fail on any warning or error, or on a
# configure variable left unsubstituted.
set -u
page="$1"

if ! command -v groff >/dev/null 2>&1; then
  echo "SKIP: groff is not installed"
  exit 77
fi
if [ ! -r "$page" ]; then
  echo "FAIL: cannot read $page" >&2
  exit 1
fi
if grep -n '@[A-Za-z_]*@' "$page" >&2; then
  echo "FAIL: $page: unsubstituted configure variables (above)" >&2
  exit 1
fi

status=0
for width in 78n 65n; do
  out=$(LC_ALL=C.UTF-8 groff -ww -b -z -man -Tutf8 -rLL="$width" "$page" 2>&1)
  rc=$?
  if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
    printf 'FAIL: %s (line length %s, groff exit %d):\n%s\n' "$page" "$width" "$rc" "$out" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "OK: $page renders without warnings"
exit "$status"
