/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A USB device's class from the drivers bound to its interfaces
 * (powerpolicyd(8), DEVICES),
 * as TLP classifies USB devices. Pure: the interface list comes in, a
 * class name goes out; reading the "driver" links and re-evaluating on
 * bind/unbind uevents is the daemon's job. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Class names this file can return (also set by 60-powerpolicy.rules). */
#define PP_USB_CLASS_KEYBOARD  "usb-keyboard"
#define PP_USB_CLASS_MOUSE     "usb-mouse"
#define PP_USB_CLASS_HID       "usb-hid"
#define PP_USB_CLASS_AUDIO     "usb-audio"
#define PP_USB_CLASS_BLUETOOTH "bluetooth"
#define PP_USB_CLASS_WWAN      "wwan"
#define PP_USB_CLASS_PRINTER   "printer"
#define PP_USB_CLASS_PHONE     "phone"
#define PP_USB_CLASS_WEBCAM    "webcam"
#define PP_USB_CLASS_NET       "usb-net"
#define PP_USB_CLASS_HUB       "usb-hub"
#define PP_USB_CLASS_STORAGE   "usb-storage"
#define PP_USB_CLASS_SERIAL    "usb-serial"
/* set by the rules only (60-powerpolicy.rules) */
#define PP_USB_CLASS_SCANNER   "scanner"
#define PP_USB_CLASS_SMARTCARD "smartcard"

/* One interface of a USB device (a usb_interface child such as "1-2:1.0"):
 * its bInterfaceClass/SubClass/Protocol and the name of the driver bound
 * to it (the basename of its "driver" link: "usbhid", "snd-usb-audio",
 * "r8152", ...), NULL while no driver is bound. */
typedef struct {
  guint8      interface_class;
  guint8      interface_subclass;
  guint8      interface_protocol;
  const char *driver;
} PpUsbInterface;

/* HID: the one class whose subclass and protocol the inference reads
 * (boot keyboard or mouse); a reader may leave them 0 for the others. */
#define PP_USB_INTERFACE_CLASS_HID 0x03

/* The class a USB device gets from the drivers bound to its interfaces, or
 * NULL when none of them tells (no driver bound yet, only unknown drivers,
 * usbfs): the device then keeps the class it has. Several interfaces pick
 * in the order of the rules: usb-keyboard, usb-mouse, usb-hid, usb-audio,
 * bluetooth, wwan, usb-serial (cdc_acm; wwan for a modem vendor),
 * printer, phone, webcam, usb-net, usb-hub, usb-storage
 * (the first classes are the ones that must not be autosuspended, so a
 * composite device lands there). A network driver (cdc_ether, cdc_ncm,
 * rndis_host) alone never makes a modem, except on a device of a vendor
 * that makes nothing but modems (@vendor_id, see
 * pp_usb_class_is_modem_vendor()). The returned string is static. */
const char *pp_usb_class_from_interfaces (const PpUsbInterface *interfaces,
                                          gsize                 n_interfaces,
                                          guint16               vendor_id);

/* Whether pp_usb_class_from_interfaces() looks at the vendor for these
 * interfaces (a modem-capable network driver, a serial driver): the
 * caller reads idVendor only then. */
gboolean    pp_usb_class_needs_vendor    (const PpUsbInterface *interfaces,
                                          gsize                 n_interfaces);

/* The class to use for a USB device (DEVTYPE usb_device): @udev_class (the
 * POWERPOLICY_CLASS property, NULL or "" when unset) always wins; else the
 * class from its interface drivers; else @subsystem ("usb"). */
const char *pp_usb_class_effective       (const char           *udev_class,
                                          const char           *subsystem,
                                          const PpUsbInterface *interfaces,
                                          gsize                 n_interfaces,
                                          guint16               vendor_id);

/* Vendors whose USB devices are modems (TLP's USB_WWAN_VENDORS: Ericsson
 * 0bdb, Qualcomm 05c6, Sierra Wireless 1199, Fibocom 2cb7; plus Quectel
 * 2c7c and Telit 1bc7), as in 60-powerpolicy.rules. */
gboolean    pp_usb_class_is_modem_vendor (guint16               vendor_id);

G_END_DECLS
