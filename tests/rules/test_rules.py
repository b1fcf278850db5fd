#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The shipped 60-powerpolicy.rules and 99-powerpolicy-tag.rules, run by
the real udev rules engine.

Emulated devices live in a umockdev testbed; `udevadm test --action=add`
processes them with the testbed's environment, so the real rules and
builtins (usb_id reading the USB descriptors, hwdb, path_id) run against
the fake sysfs and print the properties real udev would have stored.

udevadm reads rules only from the standard directories and writes its
database to /run/udev. Each run therefore happens in a private mount
namespace with a tmpfs on /run: the rules under test are copied to
/run/udev/rules.d there, and vanish with the namespace. Nothing on this
machine (a running udevd, its database) sees them. /etc/udev/rules.d is
hidden too, so local rules cannot change the outcome.

Every device is checked twice: with the system's own rules (as on a
Debian system, where 50-udev-default.rules has imported usb_id already)
and with our file alone (which must import usb_id itself).

Run under umockdev-wrapper, as root (mount namespaces); exits 77 (skip)
when that is not possible.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_RULES = os.path.join(HERE, '..', '..', 'data', 'udev-rules', '60-powerpolicy.rules')
RULES = os.path.abspath(os.environ.get('PP_RULES_FILE', DEFAULT_RULES))
DEFAULT_TAG_RULES = os.path.join(HERE, '..', '..', 'data', 'udev-rules', '99-powerpolicy-tag.rules')
TAG_RULES = os.path.abspath(os.environ.get('PP_TAG_RULES_FILE', DEFAULT_TAG_RULES))
FIXTURES = os.path.join(HERE, '..', 'fixtures')
# the system tests' harness tags testbed devices from the same file
sys.path.insert(0, os.path.join(HERE, '..', 'system'))
import pptags  # noqa: E402

# Stand-ins for what other packages provide through the hwdb or their own
# rules on a real system (libmtp's 69-libmtp.hwdb, SANE's 20-sane.hwdb;
# both are imported by 50-udev-default.rules, before our file), and an
# administrator's rule that classifies a device before ours.
HELPER_RULES = r'''
SUBSYSTEM=="usb", ENV{DEVTYPE}=="usb_device", ATTR{idVendor}=="18d1", ATTR{idProduct}=="4ee1", ENV{ID_MTP_DEVICE}="1", ENV{ID_MEDIA_PLAYER}="1"
SUBSYSTEM=="usb", ENV{DEVTYPE}=="usb_device", ATTR{idVendor}=="04a9", ATTR{idProduct}=="1905", ENV{libsane_matched}="yes"
SUBSYSTEM=="usb", ENV{DEVTYPE}=="usb_device", ATTR{idVendor}=="feed", ATTR{idProduct}=="0001", ENV{POWERPOLICY_CLASS}="custom"
SUBSYSTEM=="platform", KERNEL=="pp-hwdb-autosuspend", ENV{ID_AUTOSUSPEND}="1"
SUBSYSTEM=="platform", KERNEL=="pp-classified", ENV{POWERPOLICY_CLASS}="my-platform"
'''

# An administrator's rule that sorts after 60-powerpolicy.rules (and before
# the tag file): its device must be tagged too.
ADMIN_RULES = r'''
SUBSYSTEM=="platform", KERNEL=="pp-admin", ENV{POWERPOLICY_AUTOSUSPEND}="0"
'''

# Runs inside the private mount namespace: $1 = "system" or "alone",
# $2 = action, $3 = device, $4 = rules under test, $5 = helper rules,
# $6 = tag rules under test, $7 = administrator's rules.
NAMESPACE_SCRIPT = r'''
set -e
mount -n -t tmpfs -o mode=0755 pp-rules-test /run
mkdir -p /run/udev/rules.d
cp "$4" /run/udev/rules.d/60-powerpolicy.rules
cp "$5" /run/udev/rules.d/59-powerpolicy-test-helpers.rules
cp "$6" /run/udev/rules.d/99-powerpolicy-tag.rules
cp "$7" /run/udev/rules.d/80-powerpolicy-test-admin.rules
if [ -d /etc/udev/rules.d ]; then
    mount -n -t tmpfs -o mode=0755 pp-empty /etc/udev/rules.d
fi
if [ "$1" = alone ]; then
    for d in /usr/lib/udev/rules.d /usr/local/lib/udev/rules.d; do
        if [ -d "$d" ]; then
            mount -n -t tmpfs -o mode=0755 pp-empty "$d"
        fi
    done
fi
exec udevadm test --action="$2" "$3"
'''


def preload_active():
    return 'libumockdev-preload' in os.environ.get('LD_PRELOAD', '')


def usb_descriptors(configurations, device_class=0, vendor=0x1234, product=0x5678):
    """The binary `descriptors` attribute udev's usb_id reads, as the kernel
    gives it: the device descriptor, then every configuration descriptor,
    each followed by its interface descriptors. @configurations is a list of
    configurations, each a list of interfaces (class, subclass, protocol).
    Every interface descriptor is followed by an endpoint descriptor, as on
    real devices (usb_id skips an interface descriptor that ends the file)."""
    device = struct.pack('<BBHBBBBHHHBBBB', 18, 1, 0x0200, device_class, 0, 0, 64,
                         vendor, product, 0x0100, 1, 2, 0, len(configurations))
    out = device
    for value, interfaces in enumerate(configurations, start=1):
        body = b''
        for number, (cls, sub, proto) in enumerate(interfaces):
            body += struct.pack('<BBBBBBBBB', 9, 4, number, 0, 1, cls, sub, proto, 0)
            body += struct.pack('<BBBBHB', 7, 5, 0x81 + (number % 15), 3, 8, 10)
        out += struct.pack('<BBHBBBBB', 9, 2, 9 + len(body), len(interfaces), value, 0,
                           0xa0, 50)
        out += body
    return out


# Real devices, as `lsusb -v` reports them (ids, device class, and the
# interfaces of each configuration), and the class the shipped rules must
# give them. Keys name the device; the expectations are the policy's
# contract (powerpolicyd(8), DEVICES), so a change here is a change of
# classification.
BT = (0xe0, 0x01, 0x01)
BCM_BT = (0xff, 0x01, 0x01)
DFU = (0xfe, 0x01, 0x01)
VENDOR = (0xff, 0xff, 0xff)
CDC_DATA = (0x0a, 0x00, 0x00)
MBIM = (0x02, 0x0e, 0x00)
MBIM_DATA = (0x0a, 0x00, 0x02)
CDC_ACM = (0x02, 0x02, 0x01)
CCID = (0x0b, 0x00, 0x00)
KEYBOARD = (0x03, 0x01, 0x01)
MOUSE = (0x03, 0x01, 0x02)
HID = (0x03, 0x00, 0x00)
AUDIO_CONTROL = (0x01, 0x01, 0x00)
AUDIO_STREAM = (0x01, 0x02, 0x00)
VIDEO_CONTROL = (0x0e, 0x01, 0x00)
VIDEO_STREAM = (0x0e, 0x02, 0x00)
REAL_USB_DEVICES = {
    # name: (vendor, product, device class, configurations, expected class)
    # Bluetooth: Intel 7265, 9260/9560, AX200, AX210, AX211; Realtek;
    # Qualcomm Atheros; Broadcom BCM20702 with its vendor class (issue 11).
    'bt_intel_0a2b': (0x8087, 0x0a2b, 0xe0, [[BT, BT]], 'bluetooth'),
    'bt_intel_0026': (0x8087, 0x0026, 0xe0, [[BT, BT]], 'bluetooth'),
    'bt_intel_0029': (0x8087, 0x0029, 0xe0, [[BT, BT]], 'bluetooth'),
    'bt_intel_0032': (0x8087, 0x0032, 0xe0, [[BT, BT]], 'bluetooth'),
    'bt_intel_0033': (0x8087, 0x0033, 0xe0, [[BT, BT]], 'bluetooth'),
    'bt_realtek_b00c': (0x0bda, 0xb00c, 0xe0, [[BT, BT]], 'bluetooth'),
    'bt_qualcomm_e300': (0x0cf3, 0xe300, 0xe0, [[BT, BT]], 'bluetooth'),
    'bt_broadcom_216c': (0x0a5c, 0x216c, 0xff, [[BCM_BT, BCM_BT, VENDOR, DFU]], 'bluetooth'),
    'bt_dell_broadcom_8197': (0x413c, 0x8197, 0xff, [[BCM_BT, BCM_BT, VENDOR, DFU]],
                              'bluetooth'),
    # vendor class ff/01/01 from a vendor btusb does not bind that way
    'vendor_ff0101_unknown': (0x1234, 0x0001, 0xff, [[BCM_BT]], None),
    # WWAN: Sierra EM7455 (QMI config and MBIM config), Dell DW5821e
    # (QMI and MBIM configs), Quectel EC25 (vendor interfaces only).
    'wwan_sierra_9071': (0x1199, 0x9071, 0x00,
                         [[VENDOR, VENDOR, VENDOR, VENDOR],
                          [MBIM, MBIM_DATA, VENDOR, VENDOR]], 'wwan'),
    'wwan_dell_dw5821e': (0x413c, 0x81d7, 0x00,
                          [[VENDOR, (0xff, 0x00, 0x00), (0xff, 0x00, 0x00), (0xff, 0xff, 0x30)],
                           [MBIM, MBIM_DATA, (0xff, 0x00, 0x00), (0xff, 0xff, 0x30)]], 'wwan'),
    'wwan_quectel_ec25': (0x2c7c, 0x0125, 0xef,
                          [[VENDOR, (0xff, 0x00, 0x00), (0xff, 0x00, 0x00),
                            (0xff, 0x00, 0x00), VENDOR]], 'wwan'),
    # Fibocom L850-GL: MBIM with CDC ACM AT ports; Telit HE910: CDC ACM
    # ports only, from a modem vendor
    'wwan_fibocom_l850': (0x2cb7, 0x0007, 0x00,
                          [[MBIM, MBIM_DATA, CDC_ACM, CDC_DATA, CDC_ACM, CDC_DATA]], 'wwan'),
    'wwan_telit_he910': (0x1bc7, 0x0021, 0x02,
                         [[CDC_ACM, CDC_DATA, CDC_ACM, CDC_DATA, CDC_ACM, CDC_DATA]], 'wwan'),
    # CDC ACM serial devices (TLP #794): Arduino Uno R3 (device class 02),
    # Raspberry Pi Pico running MicroPython (02/02/00 and a vendor reset
    # interface), u-blox 7 GPS receiver, and a CDC ACM port (02/02/01) of an
    # unknown vendor
    'serial_arduino_uno': (0x2341, 0x0043, 0x02, [[CDC_ACM, CDC_DATA]], 'usb-serial'),
    'serial_rpi_pico': (0x2e8a, 0x0005, 0xef,
                        [[(0x02, 0x02, 0x00), CDC_DATA, (0xff, 0x00, 0x01)]], 'usb-serial'),
    'serial_ublox_gps7': (0x1546, 0x01a7, 0x02, [[CDC_ACM, CDC_DATA]], 'usb-serial'),
    'serial_cdc_acm': (0x1234, 0x0002, 0x02, [[CDC_ACM, CDC_DATA]], 'usb-serial'),
    # Smart-card readers (CCID 0b/00/00): Alcor Micro AU9540, Gemalto PC
    # Twin Reader, Identiv SCR3310; a YubiKey 5 (OTP keyboard, FIDO HID and
    # CCID) is a keyboard first -- HID comes first, and it stays on as well.
    'smartcard_alcor_au9540': (0x058f, 0x9540, 0x00, [[CCID]], 'smartcard'),
    'smartcard_gemalto_pc_twin': (0x08e6, 0x3437, 0x00, [[CCID]], 'smartcard'),
    'smartcard_identiv_scr3310': (0x04e6, 0x5116, 0x00, [[CCID]], 'smartcard'),
    'yubikey_5': (0x1050, 0x0407, 0x00, [[KEYBOARD, HID, CCID]], 'usb-keyboard'),
    # Ethernet: RTL8153 (vendor config + CDC Ethernet config, issue 11),
    # RTL8156 (vendor, NCM, ECM), ASIX AX88179, a plain CDC ECM adapter and
    # a CDC NCM adapter of unknown vendors.
    'net_rtl8153': (0x0bda, 0x8153, 0x00,
                    [[(0xff, 0xff, 0x00)], [(0x02, 0x06, 0x00), CDC_DATA]], 'usb-net'),
    'net_rtl8156': (0x0bda, 0x8156, 0x00,
                    [[(0xff, 0xff, 0x00)], [(0x02, 0x0d, 0x00), (0x0a, 0x00, 0x01)],
                     [(0x02, 0x06, 0x00), CDC_DATA]], 'usb-net'),
    'net_ax88179': (0x0b95, 0x1790, 0xff, [[(0xff, 0xff, 0x00)]], 'usb-net'),
    'net_cdc_ecm': (0x1234, 0x0003, 0x02, [[(0x02, 0x06, 0x00), CDC_DATA]], 'usb-net'),
    'net_cdc_ncm': (0x1234, 0x0004, 0x02, [[(0x02, 0x0d, 0x00), (0x0a, 0x00, 0x01)]],
                    'usb-net'),
    # RNDIS is no CDC ACM port (issue 26, seen on the VM tier): qemu's
    # usb-net (RNDIS 02/02/ff and CDC Ethernet configurations), a phone
    # sharing its connection (RNDIS as e0/01/03)
    'net_rndis_qemu': (0x0525, 0xa4a2, 0x02,
                       [[(0x02, 0x02, 0xff), CDC_DATA], [(0x02, 0x06, 0x00), CDC_DATA]],
                       'usb-net'),
    'net_rndis_tethering': (0x04e8, 0x6863, 0x00, [[(0xe0, 0x01, 0x03), CDC_DATA]], 'usb-net'),
    # HID: Logitech Unifying receiver (keyboard boot, mouse boot, vendor
    # HID), a boot mouse (Logitech M-U0026), a game pad (no boot protocol).
    'hid_unifying_c52b': (0x046d, 0xc52b, 0x00, [[KEYBOARD, MOUSE, HID]], 'usb-keyboard'),
    'hid_mouse_c077': (0x046d, 0xc077, 0x00, [[MOUSE]], 'usb-mouse'),
    'hid_keyboard_dell_2113': (0x413c, 0x2113, 0x00, [[KEYBOARD, HID]], 'usb-keyboard'),
    'hid_gamepad': (0x046d, 0xc21d, 0xff, [[HID]], 'usb-hid'),
    # Logitech H390 headset: audio with HID buttons; HID comes first, so it
    # is "usb-hid" (never autosuspended, as audio would be).
    'headset_logitech_0a44': (0x046d, 0x0a44, 0x00,
                              [[AUDIO_CONTROL, AUDIO_STREAM, AUDIO_STREAM, HID]], 'usb-hid'),
    'audio_dac': (0x262a, 0x10e1, 0x00, [[AUDIO_CONTROL, AUDIO_STREAM]], 'usb-audio'),
    # Printers: HP LaserJet (bidirectional 07/01/02), HP with IPP over USB
    # (07/01/04) beside a vendor interface.
    'printer_hp_laserjet': (0x03f0, 0x4117, 0x00, [[(0x07, 0x01, 0x02)]], 'printer'),
    'printer_hp_ipp': (0x03f0, 0x5611, 0x00,
                       [[(0x07, 0x01, 0x02), (0x07, 0x01, 0x04), (0xff, 0x04, 0x01)]],
                       'printer'),
    # Card readers: Realtek RTS5129 (vendor class ff/06/50, rtsx_usb),
    # Realtek RTS5153 (mass storage 08/06/50).
    'cardreader_rts5129': (0x0bda, 0x0129, 0xff, [[(0xff, 0x06, 0x50)]], 'usb-storage'),
    'cardreader_rts5153': (0x0bda, 0x0153, 0x00, [[(0x08, 0x06, 0x50)]], 'usb-storage'),
    'storage_uas': (0x174c, 0x55aa, 0x00, [[(0x08, 0x06, 0x50), (0x08, 0x06, 0x62)]],
                    'usb-storage'),
    # Webcams: Sonix (0c45:6713), Chicony (04f2:b6d9), both video only;
    # Logitech C270 with its microphone is an audio device.
    'webcam_sonix_6713': (0x0c45, 0x6713, 0xef, [[VIDEO_CONTROL, VIDEO_STREAM]], 'webcam'),
    'webcam_chicony_b6d9': (0x04f2, 0xb6d9, 0xef, [[VIDEO_CONTROL, VIDEO_STREAM]], 'webcam'),
    'webcam_mic_c270': (0x046d, 0x0825, 0xef,
                        [[VIDEO_CONTROL, VIDEO_STREAM, AUDIO_CONTROL, AUDIO_STREAM]],
                        'usb-audio'),
}

# PCI functions: (vendor, device, class code, expected class)
REAL_PCI_DEVICES = {
    # Intel Management Engine (mei_me), issue 11: plain "pci" (the
    # default policy excludes its driver instead).
    'mei_9d3a': ('0000:00:16.0', 0x8086, 0x9d3a, '0x078000', None),
    'mei_43e0': ('0000:00:16.1', 0x8086, 0x43e0, '0x078000', None),
    'ethernet_i219': ('0000:00:1f.6', 0x8086, 0x15d7, '0x020000', 'pci-net'),
    'ethernet_r8169': ('0000:03:00.0', 0x10ec, 0x8168, '0x020000', 'pci-net'),
    'wifi_ax201': ('0000:00:14.3', 0x8086, 0xa0f0, '0x028000', None),
}


class RulesTest(unittest.TestCase):
    """One test method per expectation; each one checks both rule sets."""

    @classmethod
    def setUpClass(cls):
        gi_umockdev()
        from gi.repository import UMockdev
        cls.tb = UMockdev.Testbed.new()
        cls.root = cls.tb.get_root_dir()
        cls.workdir = tempfile.mkdtemp(prefix='pp-rules-')
        cls.helpers = os.path.join(cls.workdir, 'helpers.rules')
        with open(cls.helpers, 'w') as f:
            f.write(HELPER_RULES)
        cls.admin = os.path.join(cls.workdir, 'admin.rules')
        with open(cls.admin, 'w') as f:
            f.write(ADMIN_RULES)
        cls.devices = {}
        cls._build()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.workdir, ignore_errors=True)
        cls.tb = None

    @classmethod
    def add(cls, key, subsystem, name, parent, attrs, props):
        path = cls.tb.add_device(subsystem, name, parent, attrs, props)
        assert path, 'umockdev could not add %s (not under umockdev-wrapper?)' % name
        cls.devices[key] = path
        return path

    @classmethod
    def add_usb(cls, key, parent, name, interfaces=None, device_class=0,
                vendor=0x1234, product=0x5678, configurations=None):
        busnum, _, devpath = name.partition('-')
        path = cls.add(key, 'usb', name, parent,
                       ['idVendor', '%04x' % vendor, 'idProduct', '%04x' % product,
                        'bDeviceClass', '%02x' % device_class,
                        'busnum', busnum.replace('usb', ''), 'devnum', str(len(cls.devices) + 1),
                        'power/control', 'on', 'power/autosuspend_delay_ms', '2000'],
                       ['DEVTYPE', 'usb_device',
                        'PRODUCT', '%x/%x/100' % (vendor, product),
                        'TYPE', '%d/0/0' % device_class])
        cls.tb.set_attribute_binary(path, 'descriptors',
                                    usb_descriptors(configurations or [interfaces],
                                                    device_class, vendor, product))
        return path

    @classmethod
    def add_pci(cls, key, slot, pci_class, vendor=0x8086, device=0x1234):
        return cls.add(key, 'pci', 'pci0000:00/' + slot, None,
                       ['class', pci_class, 'vendor', '0x%04x' % vendor, 'device', '0x%04x' % device,
                        'power/control', 'on'],
                       ['PCI_CLASS', pci_class[2:].upper().lstrip('0'),
                        'PCI_SLOT_NAME', slot])

    @classmethod
    def _build(cls):
        xhci = cls.add_pci('xhci', '0000:00:14.0', '0x0c0330')
        roothub = cls.add_usb('roothub', xhci, 'usb1', [(0x09, 0, 0)], device_class=0x09,
                              vendor=0x1d6b, product=0x0002)
        hub = cls.add_usb('hub', roothub, '1-1', [(0x09, 0, 0)], device_class=0x09,
                          vendor=0x05e3, product=0x0610)
        cls.add_usb('mouse', hub, '1-1.1', [(0x03, 0x01, 0x02)], vendor=0x046d, product=0xc077)
        cls.add('mouse_interface', 'usb', '1-1.1:1.0', cls.devices['mouse'],
                ['bInterfaceClass', '03', 'bInterfaceSubClass', '01',
                 'bInterfaceProtocol', '02'],
                ['DEVTYPE', 'usb_interface', 'INTERFACE', '3/1/2'])
        cls.add_usb('keyboard_storage', hub, '1-1.2',
                    [(0x03, 0x01, 0x01), (0x03, 0x00, 0x00), (0x08, 0x06, 0x50)])
        cls.add_usb('audio', hub, '1-1.3', [(0x01, 0x01, 0x00), (0x01, 0x02, 0x00)])
        cls.add_usb('bluetooth', hub, '1-1.4', [(0xe0, 0x01, 0x01), (0xe0, 0x01, 0x01)],
                    device_class=0xe0, vendor=0x8087, product=0x0026)
        cls.add_usb('wwan_mbim', hub, '1-1.5', [(0x02, 0x0e, 0x00), (0x0a, 0x00, 0x02)],
                    vendor=0x2c7c, product=0x0125)
        cls.add_usb('wwan_vendor', hub, '1-1.6', [(0xff, 0xff, 0xff), (0xff, 0xff, 0xff)],
                    vendor=0x1199, product=0x9071)
        cls.add_usb('printer', hub, '1-1.7', [(0x07, 0x01, 0x02)],
                    vendor=0x03f0, product=0x0c17)
        cls.add_usb('phone_mtp_adb', hub, '1-1.8', [(0xff, 0xff, 0x00), (0xff, 0x42, 0x01)],
                    vendor=0x04e8, product=0x6860)
        cls.add_usb('phone_ptp', hub, '1-1.9', [(0x06, 0x01, 0x01)],
                    vendor=0x04a9, product=0x3218)
        cls.add_usb('phone_hwdb', hub, '1-1.10', [(0xff, 0xff, 0x00)],
                    vendor=0x18d1, product=0x4ee1)
        cls.add_usb('scanner', hub, '1-1.11', [(0xff, 0xff, 0xff)],
                    vendor=0x04a9, product=0x1905)
        cls.add_usb('storage', hub, '1-1.12', [(0x08, 0x06, 0x50)],
                    vendor=0x0781, product=0x5567)
        cls.add_usb('webcam', hub, '1-1.13', [(0x0e, 0x01, 0x00), (0x0e, 0x02, 0x00)],
                    device_class=0xef, vendor=0x0c45, product=0x6366)
        cls.add_usb('custom', hub, '1-1.14', [(0x03, 0x01, 0x02)],
                    vendor=0xfeed, product=0x0001)

        hub2 = cls.add_usb('hub2', roothub, '1-2', [(0x09, 0, 0)], device_class=0x09,
                           vendor=0x05e3, product=0x0610)
        for port, (key, (vendor, product, dclass, configs, _)) in enumerate(
                sorted(REAL_USB_DEVICES.items()), start=1):
            cls.add_usb(key, hub2, '1-2.%d' % port, device_class=dclass, vendor=vendor,
                        product=product, configurations=configs)
        for key, (slot, vendor, device, pci_class, _) in sorted(REAL_PCI_DEVICES.items()):
            cls.add_pci(key, slot, pci_class, vendor, device)

        cls.add_pci('gpu', '0000:00:02.0', '0x030000')
        cls.add_pci('gpu_3d', '0000:01:00.0', '0x030200')
        cls.add_pci('hda', '0000:00:1f.3', '0x040300')
        cls.add_pci('nvme', '0000:02:00.0', '0x010802')
        ahci = cls.add_pci('ahci', '0000:00:17.0', '0x010601')
        ata = cls.add('ata1', 'ata_port', 'ata1', ahci, [], [])
        host = cls.add('scsi_host_parent', 'scsi', 'host0', ata, [], ['DEVTYPE', 'scsi_host'])
        cls.add('sata_host', 'scsi_host', 'scsi_host/host0', host,
                ['link_power_management_policy', 'max_performance'], [])
        cls.add_scsi_device('sata_disk', host, 0, 0, 0, 0, vendor='ATA')
        cls.add_scsi_device('sata_cdrom', cls.add_ata_host(ahci, 2, 2), 2, 0, 0, 0,
                            scsi_type=5, vendor='ATA')
        # as the kernel builds a USB stick: the device, its interface bound
        # to usb-storage, the SCSI host, target and device (the disk)
        usb_if = cls.add('storage_interface', 'usb', '1-1.12:1.0', cls.devices['storage'],
                         ['bInterfaceClass', '08', 'bInterfaceSubClass', '06',
                          'bInterfaceProtocol', '50'],
                         ['DEVTYPE', 'usb_interface', 'INTERFACE', '8/6/80',
                          'DRIVER', 'usb-storage'])
        usb_host = cls.add('usb_storage_host_parent', 'scsi', 'host1',
                           usb_if, [], ['DEVTYPE', 'scsi_host'])
        cls.add('usb_storage_host', 'scsi_host', 'scsi_host/host1', usb_host, [], [])
        cls.add_scsi_device('usb_storage_disk', usb_host, 1, 0, 0, 0, vendor='SanDisk')
        # a card reader: one logical unit per slot, removable disks
        reader = cls.devices['cardreader_rts5153']
        reader_if = cls.add('cardreader_interface', 'usb', os.path.basename(reader) + ':1.0',
                            reader, ['bInterfaceClass', '08'],
                            ['DEVTYPE', 'usb_interface', 'DRIVER', 'usb-storage'])
        reader_host = cls.add('cardreader_host', 'scsi', 'host3', reader_if, [],
                              ['DEVTYPE', 'scsi_host'])
        cls.add_scsi_device('cardreader_lun0', reader_host, 3, 0, 0, 0, vendor='Generic-')
        cls.add_scsi_device('cardreader_lun1', reader_host, 3, 0, 0, 1, vendor='Generic-',
                            target=cls.devices['cardreader_lun0_target'])
        # a UAS disk enclosure (driver uas)
        uas = cls.devices['storage_uas']
        uas_if = cls.add('uas_interface', 'usb', os.path.basename(uas) + ':1.0', uas,
                         ['bInterfaceClass', '08', 'bInterfaceProtocol', '62'],
                         ['DEVTYPE', 'usb_interface', 'DRIVER', 'uas'])
        uas_host = cls.add('uas_host', 'scsi', 'host4', uas_if, [], ['DEVTYPE', 'scsi_host'])
        cls.add_scsi_device('uas_disk', uas_host, 4, 0, 0, 0, vendor='ASMT')

        # for the tag rules
        cls.add('ac', 'power_supply', 'LNXSYSTM:00/ACPI0003:00/power_supply/AC', None,
                ['type', 'Mains', 'online', '1'], ['POWER_SUPPLY_ONLINE', '1'])
        lid = cls.add('lid_input', 'input', 'LNXSYSTM:00/PNP0C0D:00/input/input0', None,
                      ['name', 'Lid Switch'], ['PRODUCT', '19/0/5/0', 'NAME', '"Lid Switch"'])
        cls.add('lid_event', 'input', 'event0', lid, [],
                ['DEVNAME', 'input/event0', 'MAJOR', '13', 'MINOR', '64'])
        gpu_card = cls.add('drm_card', 'drm', 'drm/card0', cls.devices['gpu'], [],
                           ['DEVTYPE', 'drm_minor', 'DEVNAME', 'dri/card0',
                            'MAJOR', '226', 'MINOR', '0'])
        cls.add('drm_connector', 'drm', 'card0-HDMI-A-1', gpu_card,
                ['status', 'disconnected', 'enabled', 'disabled'], [])
        cls.add('drm_edp', 'drm', 'card0-eDP-1', gpu_card,
                ['status', 'connected', 'enabled', 'enabled', 'amdgpu/panel_power_savings', '0'],
                [])
        for name in ('pp-hwdb-autosuspend', 'pp-classified', 'pp-admin', 'pp-plain'):
            cls.add(name, 'platform', name, None, ['power/control', 'on'], [])

    @classmethod
    def add_ata_host(cls, controller, port, host):
        """An ATA port of @controller and its SCSI host, as libata builds
        them (the port ataN is a device of no subsystem on a real kernel;
        umockdev needs one)."""
        ata = cls.add('ata%d' % port, 'ata_port', 'ata%d' % port, controller, [], [])
        return cls.add('ata%d_host' % port, 'scsi', 'host%d' % host, ata, [],
                       ['DEVTYPE', 'scsi_host'])

    @classmethod
    def add_scsi_device(cls, key, host, h, c, t, lun, scsi_type=0, vendor='ATA', target=None):
        """A SCSI target and device (logical unit) below @host, with what a
        real kernel (6.1) shows for a disk before anything changed its runtime
        PM: power/control "on" and autosuspend_delay_ms -1."""
        if target is None:
            target = cls.add(key + '_target', 'scsi', 'target%d:%d:%d' % (h, c, t), host,
                             ['power/control', 'auto'], ['DEVTYPE', 'scsi_target'])
        return cls.add(key, 'scsi', '%d:%d:%d:%d' % (h, c, t, lun), target,
                       ['type', str(scsi_type), 'vendor', vendor.ljust(8), 'model', 'Disk',
                        'power/control', 'on', 'power/autosuspend_delay_ms', '-1',
                        'power/runtime_status', 'active'],
                       ['DEVTYPE', 'scsi_device', 'MODALIAS', 'scsi:t-0x%02x' % scsi_type])

    def udev_properties(self, key, mode, action='add'):
        """The properties `udevadm test` computes for device @key."""
        env = {
            'PATH': os.environ.get('PATH', '/usr/sbin:/usr/bin:/sbin:/bin'),
            'LD_PRELOAD': os.environ['LD_PRELOAD'],
            # never inherited: umockdev sets it with setenv(), not in os.environ
            'UMOCKDEV_DIR': self.root,
            'LANG': 'C.UTF-8',
        }
        cmd = ['unshare', '--mount', '--propagation', 'private',
               'sh', '-c', NAMESPACE_SCRIPT, 'sh',
               mode, action, self.devices[key], RULES, self.helpers, TAG_RULES, self.admin]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0,
                         'udevadm test failed for %s (%s):\n%s\n%s' %
                         (key, mode, r.stdout, r.stderr))
        props = {}
        for line in r.stdout.splitlines():
            name, sep, value = line.partition('=')
            if sep:
                props[name] = value
        self.assertEqual(props.get('DEVPATH'), self.devices[key][len('/sys'):],
                         'no property list for %s in:\n%s\n%s' % (key, r.stdout, r.stderr))
        self.last_output = r.stdout + r.stderr
        return props

    def assertClass(self, key, expected):
        for mode in ('system', 'alone'):
            with self.subTest(device=key, rules=mode):
                props = self.udev_properties(key, mode)
                self.assertEqual(props.get('POWERPOLICY_CLASS'), expected,
                                 '%s with %s rules: %s\n%s' %
                                 (key, mode, sorted(props.items()), self.last_output[-4000:]))

    # USB
    # A boot-protocol mouse and keyboard have classes finer than usb-hid
    # since issue 11 (their wakeup policy differs).
    def test_hid_mouse(self):
        self.assertClass('mouse', 'usb-mouse')

    def test_composite_keyboard_storage_is_keyboard(self):
        self.assertClass('keyboard_storage', 'usb-keyboard')

    def test_audio(self):
        self.assertClass('audio', 'usb-audio')

    def test_bluetooth(self):
        self.assertClass('bluetooth', 'bluetooth')

    def test_wwan_mbim(self):
        self.assertClass('wwan_mbim', 'wwan')

    def test_wwan_vendor_interfaces(self):
        self.assertClass('wwan_vendor', 'wwan')

    def test_printer(self):
        self.assertClass('printer', 'printer')

    def test_phone_mtp_with_adb(self):
        self.assertClass('phone_mtp_adb', 'phone')

    def test_phone_ptp(self):
        self.assertClass('phone_ptp', 'phone')

    def test_phone_known_to_hwdb(self):
        self.assertClass('phone_hwdb', 'phone')

    def test_scanner_known_to_sane(self):
        self.assertClass('scanner', 'scanner')

    def test_hubs(self):
        self.assertClass('roothub', 'usb-hub')
        self.assertClass('hub', 'usb-hub')

    def test_storage_stick(self):
        self.assertClass('storage', 'usb-storage')

    def test_storage_stick_is_not_hid(self):
        for mode in ('system', 'alone'):
            props = self.udev_properties('storage', mode)
            self.assertEqual(props.get('ID_USB_INTERFACES'), ':080650:')
            self.assertNotEqual(props.get('POWERPOLICY_CLASS'), 'usb-hid')

    # Webcams have a class of their own since issue 11 (idle policy).
    def test_webcam(self):
        self.assertClass('webcam', 'webcam')

    def test_real_usb_devices(self):
        for key, (_, _, _, _, expected) in sorted(REAL_USB_DEVICES.items()):
            self.assertClass(key, expected)

    def test_real_pci_devices(self):
        for key, (_, _, _, _, expected) in sorted(REAL_PCI_DEVICES.items()):
            self.assertClass(key, expected)

    def test_interfaces_of_every_configuration_listed(self):
        # the premise of issue 11: usb_id lists the CDC Ethernet interface
        # of the RTL8153's second configuration, yet it is no modem
        for mode in ('system', 'alone'):
            with self.subTest(rules=mode):
                props = self.udev_properties('net_rtl8153', mode)
                self.assertEqual(props.get('ID_USB_INTERFACES'), ':ffff00:020600:0a0000:')
                self.assertEqual(props.get('POWERPOLICY_CLASS'), 'usb-net')

    def test_interface_not_classified(self):
        self.assertClass('mouse_interface', None)

    def test_earlier_rule_class_kept(self):
        self.assertClass('custom', 'custom')

    def test_remove_not_classified(self):
        for mode in ('system', 'alone'):
            props = self.udev_properties('mouse', mode, action='remove')
            self.assertNotIn('POWERPOLICY_CLASS', props)

    # PCI and SCSI
    def test_pci_gpu(self):
        self.assertClass('gpu', 'pci-gpu')
        self.assertClass('gpu_3d', 'pci-gpu')

    def test_pci_audio(self):
        self.assertClass('hda', 'pci-audio')

    def test_nvme(self):
        self.assertClass('nvme', 'nvme')

    def test_other_pci_unclassified(self):
        self.assertClass('xhci', None)
        self.assertClass('ahci', None)

    def test_sata_host(self):
        self.assertClass('sata_host', 'sata-host')

    def test_scsi_host_without_link_policy(self):
        self.assertClass('usb_storage_host', None)

    # Disks (issue 17): on a real kernel a USB stick never autosuspends
    # while its SCSI disk keeps power/control=on, autosuspend_delay_ms=-1.
    # TLP's AHCI_RUNTIME_PM_ON_AC/BAT writes power/control (and
    # AHCI_RUNTIME_PM_TIMEOUT, in seconds, autosuspend_delay_ms) of
    # /sys/block/sd*/device of disks behind an ATA port, and power/control of
    # the ports (/sys/bus/pci/devices/*/ata*); the disks are these sata-disk
    # devices. The ports themselves are devices of no subsystem: the kernel
    # sends no uevent for them and udev cannot classify or tag them; their
    # transport class devices (ata_port, linking to the port as "device")
    # are ata-port (RealKernelDisksTest). TLP applies AHCI_RUNTIME_PM to USB
    # disks too; here a stick's disk follows the stick (usb-storage-disk).
    def test_usb_storage_disk(self):
        self.assertClass('usb_storage_disk', 'usb-storage-disk')

    def test_card_reader_slots(self):
        self.assertClass('cardreader_lun0', 'usb-storage-disk')
        self.assertClass('cardreader_lun1', 'usb-storage-disk')

    def test_uas_disk(self):
        self.assertClass('uas_disk', 'usb-storage-disk')

    def test_sata_disk(self):
        self.assertClass('sata_disk', 'sata-disk')

    def test_ata_port_without_port_link_unclassified(self):
        self.assertClass('ata1', None)

    def test_sata_optical_drive_unclassified(self):
        self.assertClass('sata_cdrom', None)

    def test_scsi_targets_and_hosts_unclassified(self):
        # their runtime PM is allowed by the kernel: they follow the disks
        for key in ('usb_storage_disk_target', 'usb_storage_host_parent', 'scsi_host_parent'):
            self.assertClass(key, None)

    # DRM: the internal panel's connector has a class (panel power savings)
    def test_edp_panel(self):
        self.assertClass('drm_edp', 'panel')
        self.assertClass('drm_connector', None)
        self.assertClass('drm_card', None)
        self.assertTagged('drm_edp', True)

    # 99-powerpolicy-tag.rules: the devices powerpolicyd enumerates
    def assertTagged(self, key, expected):
        for mode in ('system', 'alone'):
            with self.subTest(device=key, rules=mode):
                props = self.udev_properties(key, mode)
                current = props.get('CURRENT_TAGS', '')
                self.assertEqual(':powerpolicy:' in current, expected,
                                 '%s with %s rules: %s\n%s' %
                                 (key, mode, sorted(props.items()), self.last_output[-4000:]))
                # the system tests' harness tags testbed devices from the
                # same file: it must come to the same answer
                kernel_and_rules = {k: v for k, v in props.items()
                                    if k not in ('TAGS', 'CURRENT_TAGS')}
                self.assertEqual(pptags.TagRules(TAG_RULES).tagged(props['SUBSYSTEM'],
                                                                   kernel_and_rules),
                                 expected, '%s: the harness (tests/system/pptags.py) disagrees' % key)

    def test_tag_classified_devices(self):
        for key in ('mouse', 'keyboard_storage', 'hub', 'roothub', 'storage', 'custom',
                    'gpu', 'hda', 'nvme', 'sata_host', 'usb_storage_disk', 'sata_disk',
                    'cardreader_lun1'):
            self.assertTagged(key, True)

    def test_tag_generic_classes(self):
        # the default policy's subsystems, even unclassified
        for key in ('webcam', 'xhci', 'ahci', 'usb_storage_host'):
            self.assertTagged(key, True)

    def test_tag_what_the_daemon_watches(self):
        # AC/battery, user activity and the lid, external displays
        for key in ('ac', 'lid_input', 'lid_event', 'drm_card', 'drm_connector'):
            self.assertTagged(key, True)

    def test_tag_device_properties(self):
        # the hwdb's ID_AUTOSUSPEND, a class from another rule, and an
        # administrator's property set after 60-powerpolicy.rules
        for key in ('pp-hwdb-autosuspend', 'pp-classified', 'pp-admin'):
            self.assertTagged(key, True)

    def test_untagged(self):
        # interfaces, ports and bus-only devices are not the daemon's
        for key in ('mouse_interface', 'ata1', 'scsi_host_parent', 'pp-plain',
                    'usb_storage_disk_target', 'sata_cdrom'):
            self.assertTagged(key, False)

    def test_remove_not_tagged(self):
        for mode in ('system', 'alone'):
            props = self.udev_properties('mouse', mode, action='remove')
            self.assertNotIn(':powerpolicy:', props.get('CURRENT_TAGS', ''))


class RealKernelDisksTest(unittest.TestCase):
    """The disks of issue 17 as a real kernel (6.1 under qemu) shows them,
    recorded with umockdev-record (tests/fixtures/README.md), in a testbed
    of their own (their SCSI host numbers are those of the boot they were
    recorded in, and would clash with the devices above)."""

    setUpClass = RulesTest.__dict__['setUpClass']
    tearDownClass = RulesTest.__dict__['tearDownClass']
    udev_properties = RulesTest.udev_properties
    assertClass = RulesTest.assertClass
    assertTagged = RulesTest.assertTagged

    @classmethod
    def _build(cls):
        for name, key in (('qemu-usb-stick-disk', 'stick_disk'), ('qemu-ahci-disk', 'sata_disk')):
            path = os.path.join(FIXTURES, name + '.umockdev')
            assert cls.tb.add_from_file(path), path
            with open(path) as f:
                cls.devices[key] = '/sys' + f.readline()[3:].strip()
        cls.devices['stick'] = cls.devices['stick_disk'].split('/2-1:1.0/')[0]
        # the ATA port: a device of no subsystem with an empty uevent file,
        # which umockdev-record leaves out
        ata1 = cls.devices['sata_disk'].split('/host1/')[0]
        assert ata1.endswith('/ata1'), ata1
        with open(cls.root + ata1 + '/uevent', 'w'):
            pass
        os.makedirs(cls.root + ata1 + '/power')
        with open(cls.root + ata1 + '/power/control', 'w') as f:
            f.write('on\n')
        cls.devices['ata_port'] = ata1 + '/ata_port/ata1'

    def test_stick(self):
        self.assertClass('stick', 'usb-storage')
        self.assertTagged('stick', True)

    def test_stick_disk(self):
        self.assertClass('stick_disk', 'usb-storage-disk')
        self.assertTagged('stick_disk', True)

    def test_sata_disk(self):
        self.assertClass('sata_disk', 'sata-disk')
        self.assertTagged('sata_disk', True)

    def test_ata_port(self):
        # the port's class device, through which the policy reaches the port
        self.assertClass('ata_port', 'ata-port')
        self.assertTagged('ata_port', True)


def gi_umockdev():
    import gi
    gi.require_version('UMockdev', '1.0')


def check_environment():
    """None when the test can run, else the reason to skip."""
    if os.geteuid() != 0:
        return 'needs root (private mount namespace for the udev rules directory)'
    for tool in ('udevadm', 'unshare', 'mount'):
        if shutil.which(tool) is None:
            return '%s not found (Debian: udev, util-linux, mount)' % tool
    if not os.path.isfile(RULES):
        return None   # let the test fail loudly: the file under test is missing
    r = subprocess.run(['unshare', '--mount', '--propagation', 'private',
                        'sh', '-c', 'mount -n -t tmpfs -o mode=0755 pp-probe /run'],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return 'cannot create a private mount namespace: %s' % r.stderr.strip()
    try:
        gi_umockdev()
    except (ImportError, ValueError) as e:
        return 'umockdev GObject introspection not available: %s' % e
    return None


def main():
    reason = check_environment()
    if reason is not None:
        print('SKIP: %s' % reason)
        sys.exit(SKIP)
    if not preload_active():
        os.execvp('umockdev-wrapper', ['umockdev-wrapper', sys.executable] + sys.argv)
    if not os.path.isfile(RULES):
        print('FAIL: rules file %s does not exist' % RULES)
        sys.exit(1)
    unittest.main(verbosity=2)


if __name__ == '__main__':
    main()
