# SPDX-License-Identifier: GPL-2.0-or-later
#
# Convenience wrapper around meson for powerpolicy.
#
#   make demo     the daemon on a simulated laptop (nothing real is touched)
#   make test     every test suite, with the runner's summary
#   make bench    the benchmarks (bench/run)
#   make          build;  make install;  make clean;  make deps
#
# Variables: BUILDDIR (default: build), MESON_ARGS (passed to `meson setup`
# when the build directory is first configured, e.g. --prefix=/usr),
# DESTDIR (for install).
#
# `deps` installs the Debian 12 packages the build and the tests need, and
# only those that are missing; as a non-root user it lists them and stops.

BUILDDIR ?= build
MESON ?= meson
MESON_ARGS ?=
PYTHON := /usr/bin/python3

DEB_PACKAGES := \
	meson ninja-build gcc pkg-config \
	libglib2.0-dev libglib2.0-dev-bin libudev-dev libsystemd-dev \
	libevdev-dev libcmocka-dev libjson-glib-dev \
	umockdev libumockdev-dev gir1.2-umockdev-1.0 \
	python3-dbusmock python3-gi dbus-daemon \
	libxml2-utils groff-base man-db udev polkitd

.PHONY: all build setup demo test bench install clean deps

all: build

deps:
	@if ! command -v dpkg-query >/dev/null 2>&1; then \
		echo "deps: not a Debian system, not checking packages; needed (Debian names): $(DEB_PACKAGES)" >&2; \
		exit 0; \
	fi; \
	missing=""; \
	for pkg in $(DEB_PACKAGES); do \
		case "$$(dpkg-query -W -f='$${Status}' $$pkg 2>/dev/null)" in \
			*" ok installed") ;; \
			*) missing="$$missing $$pkg" ;; \
		esac; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" -ne 0 ]; then \
		echo "deps: missing Debian packages:$$missing" >&2; \
		echo "deps: install them as root: apt-get install --no-install-recommends$$missing" >&2; \
		exit 1; \
	fi; \
	echo "deps: installing$$missing"; \
	log=$$(mktemp); \
	if ! { apt-get update -qq && \
	       DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		       -o DPkg::Lock::Timeout=300 $$missing; } \
	     >"$$log" 2>&1; then \
		cat "$$log" >&2; rm -f "$$log"; \
		echo "deps: installing$$missing failed" >&2; \
		exit 1; \
	fi; \
	rm -f "$$log"

# Configure once; a directory left half-configured by a failed setup is
# wiped and configured again.
setup: deps
	@if [ ! -f "$(BUILDDIR)/build.ninja" ]; then \
		if [ -f "$(BUILDDIR)/meson-private/coredata.dat" ]; then \
			$(MESON) setup --wipe $(MESON_ARGS) "$(BUILDDIR)"; \
		else \
			$(MESON) setup $(MESON_ARGS) "$(BUILDDIR)"; \
		fi; \
	fi

build: setup
	$(MESON) compile -C "$(BUILDDIR)"

# the build's output only when it fails: the story is the demo's
demo: setup
	@log=$$(mktemp); \
	if ! $(MESON) compile -C "$(BUILDDIR)" >"$$log" 2>&1; then \
		cat "$$log" >&2; rm -f "$$log"; \
		echo "demo: the build failed" >&2; \
		exit 1; \
	fi; \
	rm -f "$$log"
	@umockdev-wrapper $(PYTHON) tests/system/demo.py --builddir "$(BUILDDIR)"

test: setup
	$(MESON) test -C "$(BUILDDIR)" --print-errorlogs

bench: build
	bench/run --builddir "$(BUILDDIR)"

install: build
	$(if $(DESTDIR),DESTDIR="$(DESTDIR)") $(MESON) install -C "$(BUILDDIR)" --no-rebuild

clean:
	@case "$(BUILDDIR)" in ""|/|.|..) echo "clean: refusing to remove '$(BUILDDIR)'" >&2; exit 1 ;; esac
	rm -rf "$(BUILDDIR)"
