# SPDX-License-Identifier: GPL-2.0-or-later
#
# Convenience wrapper around meson for powerpolicy.
#
#   make demo     the daemon on a simulated laptop (nothing real is touched)
#   make test     every test suite, with the runner's summary
#   make test-sanitize  every test suite built with ASan+UBSan (leaks too),
#                 in its own build directory (SANITIZE_BUILDDIR)
#   make fuzz     the libFuzzer targets (clang), each for FUZZ_SECONDS, in
#                 its own build directory (FUZZ_BUILDDIR); tests/fuzz/README.md
#   make bench    the benchmarks (bench/run)
#   make bench-effect  what each power tool saves on the VM's real kernel,
#                 side by side in one boot (bench/effect; root and qemu as
#                 for test-vm, TLP and powertop in the guest)
#   make test-vm  the VM tier: a real kernel under qemu (tests/vm/README.md),
#                 with the installed daemon under systemd (its own build,
#                 INSTALLED_BUILDDIR) as the last boot
#   make test-vm-installed  only that boot (issue 21)
#   make test-vm-stress  the VM tier's long scenarios (issue 30): a
#                 hotplug storm, kill -9 in it, a PCI unbind; a boot of
#                 their own
#   make          build;  make install;  make clean;  make deps
#
# Variables: BUILDDIR (default: build), MESON_ARGS (passed to `meson setup`
# when the build directory is first configured, e.g. --prefix=/usr),
# DESTDIR (for install).
#
# `deps` installs the Debian 12 packages the build and the tests need, and
# only those that are missing; as a non-root user it lists them and stops.

BUILDDIR ?= build
SANITIZE_BUILDDIR ?= build-sanitize
FUZZ_BUILDDIR ?= build-fuzz
# the long recorded runs (tests/fuzz/README.md): FUZZ_RUNS=10000000 stops a
# target there; FUZZ_SANITIZE=undefined (in another FUZZ_BUILDDIR) runs
# several times faster than ASan on GLib's many small allocations
FUZZ_RUNS ?=
FUZZ_SANITIZE ?= address,undefined
INSTALLED_BUILDDIR ?= build-installed
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= config quirkdb lkw devarg restore overrides sleep-history props device-row
# meson test arguments for test-sanitize (default: every test)
SANITIZE_TESTS ?=
MESON ?= meson
MESON_ARGS ?=
PYTHON := /usr/bin/python3

DEB_PACKAGES := \
	meson ninja-build gcc pkg-config \
	libglib2.0-dev libglib2.0-dev-bin libudev-dev libsystemd-dev \
	libevdev-dev libcmocka-dev libjson-glib-dev \
	umockdev libumockdev-dev gir1.2-umockdev-1.0 \
	python3-dbusmock python3-gi dbus-daemon \
	libxml2-utils groff-base man-db udev polkitd \
	graphviz python3-prometheus-client

# the VM tier (make test-vm): qemu, a Debian kernel whose files under /boot
# and /lib/modules the guest boots (it never becomes the machine's boot
# kernel), a static busybox for the initramfs, and iasl (acpica-tools)
# for the battery's ACPI table
VM_DEB_PACKAGES := qemu-system-x86 linux-image-amd64 busybox-static acpica-tools
DEB_PACKAGES += $(VM_DEB_PACKAGES)

.PHONY: all build setup demo test test-sanitize test-vm test-vm-stress test-vm-installed installed-build fuzz bench bench-effect install clean deps

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

# The sanitizers: ASan and UBSan compiled in, LeakSanitizer on, every
# report fatal. The system tests run the daemon under umockdev's preload
# library, which comes before libasan in LD_PRELOAD: ASan is told not to
# insist on being first (verify_asan_link_order=0), which is safe because
# the preload library only wraps file and socket calls. GLib's slice
# allocator would hide leaked GVariants and lists from LeakSanitizer.
SANITIZE_ENV := \
	G_SLICE=always-malloc \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:verify_asan_link_order=0:detect_stack_use_after_return=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0

test-sanitize: deps
	@if [ ! -f "$(SANITIZE_BUILDDIR)/build.ninja" ]; then \
		$(MESON) setup $(if $(wildcard $(SANITIZE_BUILDDIR)/meson-private/coredata.dat),--wipe) \
			-Db_sanitize=address,undefined -Db_lundef=false -Dman=false \
			-Dc_args=-fno-sanitize-recover=all $(MESON_ARGS) "$(SANITIZE_BUILDDIR)"; \
	fi
	$(SANITIZE_ENV) $(MESON) test -C "$(SANITIZE_BUILDDIR)" --print-errorlogs \
		--timeout-multiplier 3 $(SANITIZE_TESTS)

fuzz: deps
	@command -v clang >/dev/null 2>&1 || { echo "fuzz: needs clang (Debian: apt-get install clang)" >&2; exit 1; }
	@if [ ! -f "$(FUZZ_BUILDDIR)/build.ninja" ]; then \
		CC=clang $(MESON) setup $(if $(wildcard $(FUZZ_BUILDDIR)/meson-private/coredata.dat),--wipe) \
			-Dfuzzing=true -Db_sanitize=$(FUZZ_SANITIZE) -Db_lundef=false -Dman=false \
			"-Dc_args=-fsanitize=fuzzer-no-link -fno-sanitize-recover=all" "$(FUZZ_BUILDDIR)"; \
	fi
	$(MESON) compile -C "$(FUZZ_BUILDDIR)"
	tests/fuzz/run --builddir "$(FUZZ_BUILDDIR)" --seconds "$(FUZZ_SECONDS)" \
		$(if $(FUZZ_RUNS),--runs "$(FUZZ_RUNS)") $(FUZZ_TARGETS)

# The VM tier: boots a real kernel under qemu (one boot at a time, each
# bounded by a deadline that kills qemu) and runs the scenarios of
# tests/vm/scenarios.py in it, as root (two boots), then the installed
# daemon under systemd as PID 1 (tests/vm/systemd.py, a third boot).
# Fails, with the reason, where qemu or the kernel is missing after deps.
test-vm: build installed-build
	$(PYTHON) tests/vm/run --builddir "$(BUILDDIR)" --installed-builddir "$(INSTALLED_BUILDDIR)"

# The VM tier's long scenarios (issue 30, tests/vm/README.md): a PCI
# unbind, a hotplug storm of PP_VM_STORM_CYCLES (default 1000) gadget
# cycles and kill -9 in a storm, in a boot of their own (deadline 3600 s).
test-vm-stress: build
	$(PYTHON) tests/vm/run --builddir "$(BUILDDIR)" --stress

# Only the installed daemon under systemd in the VM (issue 21).
test-vm-installed: installed-build
	$(PYTHON) tests/vm/run --builddir "$(INSTALLED_BUILDDIR)" installed

# The build the installed boot installs into the guest: configured with
# --prefix=/usr (where systemd, dbus-daemon and polkitd look), without the
# tests (it installs only the daemon, pmctl, helpers and data).
installed-build: deps
	@if [ ! -f "$(INSTALLED_BUILDDIR)/build.ninja" ]; then \
		$(MESON) setup $(if $(wildcard $(INSTALLED_BUILDDIR)/meson-private/coredata.dat),--wipe) \
			--prefix=/usr -Dtests=false "$(INSTALLED_BUILDDIR)"; \
	fi
	$(MESON) compile -C "$(INSTALLED_BUILDDIR)"

bench: build
	bench/run --builddir "$(BUILDDIR)"

# One boot of the VM tier's guest: kernel defaults, powerpolicyd (shipped
# configuration) on AC and on battery, tlp ac/bat, powertop --auto-tune;
# per device the suspended share over an idle window (bench/README.md,
# "bench/effect"). Exit 0 when the run completed: misses are printed.
bench-effect: build
	$(PYTHON) bench/effect --builddir "$(BUILDDIR)"

install: build
	$(if $(DESTDIR),DESTDIR="$(DESTDIR)") $(MESON) install -C "$(BUILDDIR)" --no-rebuild

clean:
	@case "$(BUILDDIR)" in ""|/|.|..) echo "clean: refusing to remove '$(BUILDDIR)'" >&2; exit 1 ;; esac
	rm -rf "$(BUILDDIR)"
