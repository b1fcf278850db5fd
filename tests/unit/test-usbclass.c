/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A USB device's class from the drivers bound to its interfaces: real
 * devices as Linux binds them (lsusb -t), and the corner cases. */
#include "config.h"

#include "pp-test.h"
#include "pp-usbclass.h"

#define MAX_IFACES 8

typedef struct {
  const char     *name;
  guint16         vendor;
  PpUsbInterface  ifaces[MAX_IFACES];
  gsize           n;
  const char     *expected;          /* NULL: no class from the drivers */
} ClassCase;

/* interface codes */
#define KBD        0x03, 0x01, 0x01
#define MOUSE      0x03, 0x01, 0x02
#define HID        0x03, 0x00, 0x00
#define AC         0x01, 0x01, 0x00
#define AS         0x01, 0x02, 0x00
#define BT         0xe0, 0x01, 0x01
#define BCM        0xff, 0x01, 0x01
#define DFU        0xfe, 0x01, 0x01
#define VND        0xff, 0xff, 0xff
#define VND00      0xff, 0x00, 0x00
#define ECM        0x02, 0x06, 0x00
#define NCM        0x02, 0x0d, 0x00
#define MBIM       0x02, 0x0e, 0x00
#define ACM        0x02, 0x02, 0x01
#define CDATA      0x0a, 0x00, 0x00
#define MDATA      0x0a, 0x00, 0x02
#define VC         0x0e, 0x01, 0x00
#define VS         0x0e, 0x02, 0x00
#define PRN        0x07, 0x01, 0x02
#define MSC        0x08, 0x06, 0x50
#define UAS        0x08, 0x06, 0x62
#define RTSX       0xff, 0x06, 0x50
#define HUB        0x09, 0x00, 0x00
#define PTP        0x06, 0x01, 0x01

static const ClassCase class_cases[] = {
  /* HID: boot keyboard and mouse by protocol, other HID usb-hid */
  { "logitech-unifying-c52b", 0x046d,
    { { KBD, "usbhid" }, { MOUSE, "usbhid" }, { HID, "usbhid" } }, 3, "usb-keyboard" },
  { "logitech-mouse-c077", 0x046d, { { MOUSE, "usbhid" } }, 1, "usb-mouse" },
  { "dell-keyboard-2113", 0x413c, { { KBD, "usbhid" }, { HID, "usbhid" } }, 2, "usb-keyboard" },
  { "mouse-with-extra-hid", 0x1bcf, { { HID, "usbhid" }, { MOUSE, "usbhid" } }, 2, "usb-mouse" },
  { "gamepad", 0x046d, { { HID, "usbhid" } }, 1, "usb-hid" },
  /* boot subclass with a protocol that is neither keyboard nor mouse */
  { "hid-boot-protocol-0", 0x1234, { { 0x03, 0x01, 0x00, "usbhid" } }, 1, "usb-hid" },
  /* keyboard codes, but the interface is claimed by another driver */
  { "keyboard-codes-usbfs", 0x1234, { { KBD, "usbfs" } }, 1, NULL },
  /* a keyboard with a card reader: the keyboard wins */
  { "keyboard-with-card-reader", 0x04d9,
    { { MSC, "usb-storage" }, { KBD, "usbhid" } }, 2, "usb-keyboard" },
  /* a headset: audio with HID buttons, HID first (as the rules) */
  { "headset-logitech-0a44", 0x046d,
    { { AC, "snd-usb-audio" }, { AS, "snd-usb-audio" }, { AS, "snd-usb-audio" },
      { HID, "usbhid" } }, 4, "usb-hid" },
  { "usb-dac", 0x262a, { { AC, "snd-usb-audio" }, { AS, "snd-usb-audio" } }, 2, "usb-audio" },
  { "native-instruments-caiaq", 0x17cc, { { VND, "snd-usb-caiaq" } }, 1, "usb-audio" },
  /* Bluetooth */
  { "bt-intel-0026", 0x8087, { { BT, "btusb" }, { BT, "btusb" } }, 2, "bluetooth" },
  { "bt-realtek-b00c", 0x0bda, { { BT, "btusb" }, { BT, "btusb" } }, 2, "bluetooth" },
  { "bt-qualcomm-e300", 0x0cf3, { { BT, "btusb" }, { BT, "btusb" } }, 2, "bluetooth" },
  { "bt-broadcom-216c-vendor-class", 0x0a5c,
    { { BCM, "btusb" }, { BCM, "btusb" }, { VND, NULL }, { DFU, NULL } }, 4, "bluetooth" },
  { "bt-atheros-firmware-loader", 0x0cf3, { { VND, "ath3k" } }, 1, "bluetooth" },
  /* WWAN: vendor modem drivers, QMI, MBIM, WDM, ACM */
  { "sierra-em7455-qmi", 0x1199,
    { { VND, "qcserial" }, { VND, "qcserial" }, { VND, "qcserial" }, { VND, "qmi_wwan" } }, 4, "wwan" },
  { "sierra-mc8790", 0x1199, { { VND, "sierra" }, { VND, "sierra_net" } }, 2, "wwan" },
  { "dell-dw5821e-mbim", 0x413c,
    { { MBIM, "cdc_mbim" }, { MDATA, "cdc_mbim" }, { VND00, "option" }, { VND00, "option" } },
    4, "wwan" },
  { "quectel-ec25", 0x2c7c,
    { { VND, "option" }, { VND00, "option" }, { VND00, "option" }, { VND00, "option" },
      { VND, "qmi_wwan" } }, 5, "wwan" },
  { "modem-wdm-only", 0x1234, { { VND, "cdc_wdm" } }, 1, "wwan" },
  /* CDC ACM: a serial device (TLP #794), a modem's AT ports from a modem
   * vendor or beside a modem function */
  { "serial-acm", 0x1234, { { ACM, "cdc_acm" }, { CDATA, "cdc_acm" } }, 2, "usb-serial" },
  { "arduino-uno-acm", 0x2341, { { ACM, "cdc_acm" }, { CDATA, "cdc_acm" } }, 2, "usb-serial" },
  { "modem-vendor-acm", 0x1bc7, { { ACM, "cdc_acm" }, { CDATA, "cdc_acm" } }, 2, "wwan" },
  { "modem-acm-and-wdm", 0x1234,
    { { ACM, "cdc_acm" }, { CDATA, "cdc_acm" }, { VND, "cdc_wdm" } }, 3, "wwan" },
  { "serial-acm-with-hid", 0x1234, { { ACM, "cdc_acm" }, { HID, "usbhid" } }, 2, "usb-hid" },
  { "serial-acm-beats-storage", 0x1234,
    { { ACM, "cdc_acm" }, { CDATA, "cdc_acm" }, { 0x08, 0x06, 0x50, "usb-storage" } }, 3,
    "usb-serial" },
  { "huawei-ncm-modem", 0x12d1, { { VND, "huawei_cdc_ncm" } }, 1, "wwan" },
  /* a modem vendor's CDC Ethernet / NCM data interface is a modem's */
  { "quectel-ecm-mode", 0x2c7c,
    { { ECM, "cdc_ether" }, { CDATA, "cdc_ether" }, { VND, "option" } }, 3, "wwan" },
  { "sierra-ncm-only", 0x1199, { { NCM, "cdc_ncm" }, { CDATA, "cdc_ncm" } }, 2, "wwan" },
  /* Ethernet: never WWAN from CDC Ethernet/NCM alone (issue 11) */
  { "rtl8153-vendor-config", 0x0bda, { { 0xff, 0xff, 0x00, "r8152" } }, 1, "usb-net" },
  { "rtl8153-ecm-config-r8153_ecm", 0x0bda,
    { { ECM, "r8153_ecm" }, { CDATA, "r8153_ecm" } }, 2, "usb-net" },
  { "rtl8153-ecm-config-cdc_ether", 0x0bda,
    { { ECM, "cdc_ether" }, { CDATA, "cdc_ether" } }, 2, "usb-net" },
  { "rtl8156-ncm", 0x0bda, { { NCM, "cdc_ncm" }, { CDATA, "cdc_ncm" } }, 2, "usb-net" },
  { "ax88179", 0x0b95, { { 0xff, 0xff, 0x00, "ax88179_178a" } }, 1, "usb-net" },
  { "ax88772-asix", 0x0b95, { { 0xff, 0xff, 0x00, "asix" } }, 1, "usb-net" },
  { "lenovo-dock-ecm", 0x17ef, { { ECM, "cdc_ether" }, { CDATA, "cdc_ether" } }, 2, "usb-net" },
  { "phone-tethering-rndis", 0x18d1,
    { { 0xe0, 0x01, 0x03, "rndis_host" }, { CDATA, "rndis_host" } }, 2, "usb-net" },
  /* printers, phones, webcams, hubs, storage */
  { "hp-laserjet-usblp", 0x03f0, { { PRN, "usblp" } }, 1, "printer" },
  { "iphone-tethering", 0x05ac,
    { { PTP, NULL }, { 0xff, 0xfe, 0x02, NULL }, { 0xff, 0xfd, 0x01, "ipheth" } }, 3, "phone" },
  { "webcam-sonix-6713", 0x0c45, { { VC, "uvcvideo" }, { VS, "uvcvideo" } }, 2, "webcam" },
  { "webcam-with-mic-c270", 0x046d,
    { { VC, "uvcvideo" }, { VS, "uvcvideo" }, { AC, "snd-usb-audio" }, { AS, "snd-usb-audio" } },
    4, "usb-audio" },
  { "webcam-gspca", 0x0c45, { { VND, "gspca_sonixj" } }, 1, "webcam" },
  { "hub", 0x05e3, { { HUB, "hub" } }, 1, "usb-hub" },
  { "usb-stick", 0x0781, { { MSC, "usb-storage" } }, 1, "usb-storage" },
  { "uas-disk", 0x174c, { { MSC, NULL }, { UAS, "uas" } }, 2, "usb-storage" },
  { "card-reader-rts5129", 0x0bda, { { RTSX, "rtsx_usb" } }, 1, "usb-storage" },
  { "card-reader-ums-realtek", 0x0bda, { { MSC, "ums-realtek" } }, 1, "usb-storage" },
  /* nothing to go by: the device keeps its class */
  { "nothing-bound-yet", 0x046d, { { KBD, NULL }, { MOUSE, NULL } }, 2, NULL },
  { "empty-driver-name", 0x046d, { { KBD, "" } }, 1, NULL },
  { "unknown-driver", 0x1234, { { VND, "ftdi_sio" } }, 1, NULL },
  { "usbfs-claimed", 0x1234, { { VND, "usbfs" } }, 1, NULL },
  { "no-interfaces", 0x1234, { { 0 } }, 0, NULL },
  /* names are matched whole, not as prefixes of known names */
  { "driver-name-prefix-of-known", 0x1234, { { HID, "usbhi" } }, 1, NULL },
  { "driver-name-extends-known", 0x1234, { { HID, "usbhid2" } }, 1, NULL },
  { "driver-name-case", 0x1234, { { HID, "USBHID" } }, 1, NULL },
  /* a modem vendor does not make an unknown driver a modem */
  { "modem-vendor-unknown-driver", 0x1199, { { VND, "ftdi_sio" } }, 1, NULL },
};

static int
setup (void **state)
{
  return 0;
}

static int
teardown (void **state)
{
  return 0;
}

static void
test_class (void **state)
{
  const ClassCase *c = *state;
  const char *got = pp_usb_class_from_interfaces (c->ifaces, c->n, c->vendor);

  if (g_strcmp0 (got, c->expected) != 0)
    fail_msg ("%s: expected %s, got %s", c->name,
              c->expected ? c->expected : "(none)", got ? got : "(none)");
}

/* the same interfaces in the reverse order give the same class: the
 * choice depends on the kinds of interface, not on their numbers */
static void
test_order_independent (void **state)
{
  const ClassCase *c = *state;
  PpUsbInterface reversed[MAX_IFACES];

  for (gsize i = 0; i < c->n; i++)
    reversed[i] = c->ifaces[c->n - 1 - i];
  assert_string_equal (pp_usb_class_from_interfaces (reversed, c->n, c->vendor) ?: "(none)",
                       c->expected ? c->expected : "(none)");
}

/* The vendor is read only when pp_usb_class_needs_vendor() says so: a
 * case that does not need it gets its class with any vendor, and every
 * case whose class follows the vendor (a modem vendor's ACM or NCM
 * interfaces) is one that needs it. */
static void
test_needs_vendor (void **state)
{
  const ClassCase *c = *state;
  const char *with = pp_usb_class_from_interfaces (c->ifaces, c->n, c->vendor);

  if (pp_usb_class_needs_vendor (c->ifaces, c->n))
    return;
  assert_string_equal (pp_usb_class_from_interfaces (c->ifaces, c->n, 0) ?: "(none)",
                       with ?: "(none)");
  assert_string_equal (pp_usb_class_from_interfaces (c->ifaces, c->n, 0x1199) ?: "(none)",
                       with ?: "(none)");
}

static void
test_needs_vendor_drivers (void **state)
{
  const PpUsbInterface acm[] = { { 0x02, 0x02, 0x01, "cdc_acm" } };
  const PpUsbInterface ncm[] = { { 0x02, 0x0d, 0x00, "cdc_ncm" } };
  const PpUsbInterface hid[] = { { 0x03, 0x01, 0x02, "usbhid" }, { 0x02, 0x02, 0x01, NULL } };

  assert_true (pp_usb_class_needs_vendor (acm, 1));
  assert_true (pp_usb_class_needs_vendor (ncm, 1));
  assert_false (pp_usb_class_needs_vendor (hid, 2));
  assert_false (pp_usb_class_needs_vendor (NULL, 3));
  assert_false (pp_usb_class_needs_vendor (acm, 0));
}

static void
test_null_list (void **state)
{
  assert_null (pp_usb_class_from_interfaces (NULL, 3, 0x1234));
  assert_null (pp_usb_class_from_interfaces (NULL, 0, 0x1234));
}

typedef struct {
  const char *name;
  const char *udev_class;
  const char *driver;
  const char *expected;
} EffectiveCase;

static const EffectiveCase effective_cases[] = {
  /* a class set by rules always wins over the inference */
  { "rules-win", "usb-storage", "usbhid", "usb-storage" },
  { "rules-admin-class", "usb-serial", "option", "usb-serial" },
  { "inferred", NULL, "btusb", "bluetooth" },
  { "empty-rules-class-is-unset", "", "btusb", "bluetooth" },
  { "nothing-subsystem", NULL, NULL, "usb" },
  { "unknown-driver-subsystem", NULL, "ftdi_sio", "usb" },
};

static void
test_effective (void **state)
{
  const EffectiveCase *c = *state;
  PpUsbInterface iface = { 0xff, 0xff, 0xff, c->driver };

  assert_string_equal (pp_usb_class_effective (c->udev_class, "usb", &iface, 1, 0x1234),
                       c->expected);
}

static void
test_modem_vendors (void **state)
{
  static const guint16 modems[] = { 0x0bdb, 0x05c6, 0x1199, 0x2cb7, 0x2c7c, 0x1bc7 };
  static const guint16 others[] = { 0x0000, 0x0bda, 0x0b95, 0x046d, 0x413c, 0x8087, 0xffff };

  for (gsize i = 0; i < G_N_ELEMENTS (modems); i++)
    assert_true (pp_usb_class_is_modem_vendor (modems[i]));
  for (gsize i = 0; i < G_N_ELEMENTS (others); i++)
    assert_false (pp_usb_class_is_modem_vendor (others[i]));
}

int
main (void)
{
  PpTestList *list = pp_test_list_new ();

  for (gsize i = 0; i < G_N_ELEMENTS (class_cases); i++)
    {
      pp_test_list_add (list, "class", class_cases[i].name, test_class, setup, teardown,
                        &class_cases[i]);
      pp_test_list_add (list, "reversed", class_cases[i].name, test_order_independent,
                        setup, teardown, &class_cases[i]);
      pp_test_list_add (list, "needs-vendor", class_cases[i].name, test_needs_vendor,
                        setup, teardown, &class_cases[i]);
    }
  pp_test_list_add (list, "needs-vendor", "drivers", test_needs_vendor_drivers, setup, teardown,
                    NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (effective_cases); i++)
    pp_test_list_add (list, "effective", effective_cases[i].name, test_effective, setup,
                      teardown, &effective_cases[i]);
  pp_test_list_add (list, "null", "list", test_null_list, setup, teardown, NULL);
  pp_test_list_add (list, "modem", "vendors", test_modem_vendors, setup, teardown, NULL);
  return pp_test_list_run (list, "usbclass");
}
