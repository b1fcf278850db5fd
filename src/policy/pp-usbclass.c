/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A USB device's class from the drivers bound to its interfaces. */
#include "config.h"

#include <string.h>

#include "pp-usbclass.h"

/* In the order a composite device picks (the rules' order): lower wins. */
typedef enum {
  RANK_KEYBOARD,
  RANK_MOUSE,
  RANK_HID,
  RANK_AUDIO,
  RANK_BLUETOOTH,
  RANK_WWAN,
  RANK_SERIAL,
  RANK_PRINTER,
  RANK_PHONE,
  RANK_WEBCAM,
  RANK_NET,
  RANK_HUB,
  RANK_STORAGE,
  RANK_NONE,
} Rank;

static const char *const rank_class[] = {
  [RANK_KEYBOARD]  = PP_USB_CLASS_KEYBOARD,
  [RANK_MOUSE]     = PP_USB_CLASS_MOUSE,
  [RANK_HID]       = PP_USB_CLASS_HID,
  [RANK_AUDIO]     = PP_USB_CLASS_AUDIO,
  [RANK_BLUETOOTH] = PP_USB_CLASS_BLUETOOTH,
  [RANK_WWAN]      = PP_USB_CLASS_WWAN,
  [RANK_SERIAL]    = PP_USB_CLASS_SERIAL,
  [RANK_PRINTER]   = PP_USB_CLASS_PRINTER,
  [RANK_PHONE]     = PP_USB_CLASS_PHONE,
  [RANK_WEBCAM]    = PP_USB_CLASS_WEBCAM,
  [RANK_NET]       = PP_USB_CLASS_NET,
  [RANK_HUB]       = PP_USB_CLASS_HUB,
  [RANK_STORAGE]   = PP_USB_CLASS_STORAGE,
};
G_STATIC_ASSERT (G_N_ELEMENTS (rank_class) == RANK_NONE);

typedef struct {
  const char *name;
  Rank        rank;
} DriverRank;

/* Drivers by exact name. The modem drivers are TLP's USB_DRIVERS_EXCLUDE
 * list and ModemManager's usual port drivers; the network drivers are the
 * USB Ethernet drivers of drivers/net/usb whose devices are adapters. */
static const DriverRank drivers[] = {
  { "usbhid",         RANK_HID },
  { "btusb",          RANK_BLUETOOTH },
  { "ath3k",          RANK_BLUETOOTH },
  { "bcm203x",        RANK_BLUETOOTH },
  { "bfusb",          RANK_BLUETOOTH },
  { "bpa10x",         RANK_BLUETOOTH },
  { "option",         RANK_WWAN },
  { "qcserial",       RANK_WWAN },
  { "qcaux",          RANK_WWAN },
  { "sierra",         RANK_WWAN },
  { "sierra_net",     RANK_WWAN },
  { "qmi_wwan",       RANK_WWAN },
  { "cdc_mbim",       RANK_WWAN },
  { "cdc_wdm",        RANK_WWAN },
  { "cdc_acm",        RANK_SERIAL },
  { "huawei_cdc_ncm", RANK_WWAN },
  { "hso",            RANK_WWAN },
  { "zte_ev",         RANK_WWAN },
  { "moto_modem",     RANK_WWAN },
  { "usblp",          RANK_PRINTER },
  { "ipheth",         RANK_PHONE },
  { "uvcvideo",       RANK_WEBCAM },
  { "r8152",          RANK_NET },
  { "r8153_ecm",      RANK_NET },
  { "cdc_ether",      RANK_NET },
  { "cdc_ncm",        RANK_NET },
  { "cdc_eem",        RANK_NET },
  { "cdc_subset",     RANK_NET },
  { "rndis_host",     RANK_NET },
  { "ax88179_178a",   RANK_NET },
  { "asix",           RANK_NET },
  { "smsc95xx",       RANK_NET },
  { "smsc75xx",       RANK_NET },
  { "lan78xx",        RANK_NET },
  { "aqc111",         RANK_NET },
  { "dm9601",         RANK_NET },
  { "mcs7830",        RANK_NET },
  { "sr9700",         RANK_NET },
  { "sr9800",         RANK_NET },
  { "rtl8150",        RANK_NET },
  { "pegasus",        RANK_NET },
  { "hub",            RANK_HUB },
  { "usb-storage",    RANK_STORAGE },
  { "uas",            RANK_STORAGE },
  { "rtsx_usb",       RANK_STORAGE },
};

/* Drivers by prefix: families of drivers for one kind of device. */
static const DriverRank driver_prefixes[] = {
  { "snd-usb-", RANK_AUDIO },      /* snd-usb-audio, -caiaq, -us122l, -6fire ... */
  { "gspca_",   RANK_WEBCAM },     /* gspca_sonixj, gspca_zc3xx ... */
  { "ums-",     RANK_STORAGE },    /* ums-realtek, ums-alauda ... */
};

/* Network drivers a modem also uses for its data interface: a modem only
 * with a modem vendor's id. */
static const char *const modem_capable_net_drivers[] = {
  "cdc_ether",
  "cdc_ncm",
  "rndis_host",
};

static const guint16 modem_vendors[] = {
  0x0bdb,   /* Ericsson */
  0x05c6,   /* Qualcomm */
  0x1199,   /* Sierra Wireless */
  0x2cb7,   /* Fibocom */
  0x2c7c,   /* Quectel */
  0x1bc7,   /* Telit */
};

gboolean
pp_usb_class_is_modem_vendor (guint16 vendor_id)
{
  for (gsize i = 0; i < G_N_ELEMENTS (modem_vendors); i++)
    if (modem_vendors[i] == vendor_id)
      return TRUE;
  return FALSE;
}

static gboolean
is_modem_capable_net_driver (const char *driver)
{
  for (gsize i = 0; i < G_N_ELEMENTS (modem_capable_net_drivers); i++)
    if (g_str_equal (driver, modem_capable_net_drivers[i]))
      return TRUE;
  return FALSE;
}

static Rank
interface_rank (const PpUsbInterface *iface,
                guint16               vendor_id)
{
  const char *driver = iface->driver;

  if (driver == NULL || *driver == '\0')
    return RANK_NONE;

  for (gsize i = 0; i < G_N_ELEMENTS (drivers); i++)
    {
      if (!g_str_equal (driver, drivers[i].name))
        continue;
      if (drivers[i].rank == RANK_HID &&
          iface->interface_class == PP_USB_INTERFACE_CLASS_HID &&
          iface->interface_subclass == 0x01)
        {
          /* HID boot interface: the protocol says keyboard or mouse */
          if (iface->interface_protocol == 0x01)
            return RANK_KEYBOARD;
          if (iface->interface_protocol == 0x02)
            return RANK_MOUSE;
        }
      if (drivers[i].rank == RANK_NET && is_modem_capable_net_driver (driver) &&
          pp_usb_class_is_modem_vendor (vendor_id))
        return RANK_WWAN;
      /* CDC ACM ports: a modem's AT ports from a modem vendor, else a
       * serial device (TLP #794) */
      if (drivers[i].rank == RANK_SERIAL && pp_usb_class_is_modem_vendor (vendor_id))
        return RANK_WWAN;
      return drivers[i].rank;
    }

  for (gsize i = 0; i < G_N_ELEMENTS (driver_prefixes); i++)
    if (g_str_has_prefix (driver, driver_prefixes[i].name))
      return driver_prefixes[i].rank;

  return RANK_NONE;
}

gboolean
pp_usb_class_needs_vendor (const PpUsbInterface *interfaces,
                           gsize                 n_interfaces)
{
  for (gsize i = 0; interfaces != NULL && i < n_interfaces; i++)
    {
      const char *driver = interfaces[i].driver;

      if (driver == NULL)
        continue;
      if (is_modem_capable_net_driver (driver))
        return TRUE;
      for (gsize j = 0; j < G_N_ELEMENTS (drivers); j++)
        if (drivers[j].rank == RANK_SERIAL && g_str_equal (driver, drivers[j].name))
          return TRUE;
    }
  return FALSE;
}

const char *
pp_usb_class_from_interfaces (const PpUsbInterface *interfaces,
                              gsize                 n_interfaces,
                              guint16               vendor_id)
{
  Rank best = RANK_NONE;

  if (interfaces == NULL)
    return NULL;

  for (gsize i = 0; i < n_interfaces; i++)
    best = MIN (best, interface_rank (&interfaces[i], vendor_id));

  return best == RANK_NONE ? NULL : rank_class[best];
}

const char *
pp_usb_class_effective (const char           *udev_class,
                        const char           *subsystem,
                        const PpUsbInterface *interfaces,
                        gsize                 n_interfaces,
                        guint16               vendor_id)
{
  const char *inferred;

  if (udev_class != NULL && *udev_class != '\0')
    return udev_class;
  inferred = pp_usb_class_from_interfaces (interfaces, n_interfaces, vendor_id);
  return inferred != NULL ? inferred : subsystem;
}
