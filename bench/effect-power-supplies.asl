/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench/effect: a laptop's AC adapter (ACPI0003) and battery (PNP0C0A) whose state
 * lives in qemu's pc-testdev port 0xe0 (AC online, bit 0), 0xe1 (charge %) and
 * 0xe2 (battery present, bit 0); a write to port 0x2005 raises IRQ 5, the
 * generic event device (ACPI0013) notifies both (Notify 0x80): the kernel's
 * ac and battery drivers send their change uevents. */
DefinitionBlock ("ssdt.aml", "SSDT", 2, "PPVM", "PWRSUPLY", 0x00000001)
{
  Scope (\_SB)
  {
    OperationRegion (PTDV, SystemIO, 0xE0, 0x04)
    Field (PTDV, ByteAcc, NoLock, Preserve) { ACON, 8, BPCT, 8, BPRS, 8, Offset (0x04) }
    OperationRegion (PIRQ, SystemIO, 0x2005, 0x01)
    Field (PIRQ, ByteAcc, NoLock, WriteAsZeros) { IRQ5, 8 }
    Device (AC)
    {
      Name (_HID, "ACPI0003")
      Name (_UID, Zero)
      Name (_PCL, Package () { \_SB })
      Method (_STA, 0, NotSerialized) { Return (0x0F) }
      Method (_PSR, 0, NotSerialized) { Return (And (ACON, One)) }
    }
    Device (BAT0)
    {
      Name (_HID, EisaId ("PNP0C0A"))
      Name (_UID, One)
      Name (_PCL, Package () { \_SB })
      Method (_STA, 0, NotSerialized) { If (And (BPRS, One)) { Return (0x1F) } Return (0x0F) }
      Method (_BIF, 0, NotSerialized)
      {
        Return (Package (0x0D) { Zero, 50000, 50000, One, 12000, 5000, 2500, 500, 500,
                                 "PPVM-BAT0", "0001", "LION", "PPVM" })
      }
      Name (PBST, Package (0x04) { Zero, Zero, Zero, 12000 })
      Method (_BST, 0, Serialized)
      {
        Local0 = BPCT
        If (LGreater (Local0, 100)) { Local0 = 100 }
        Local1 = Multiply (Local0, 500)
        If (And (ACON, One))
        {
          If (LLess (Local0, 100)) { Local2 = 2 } Else { Local2 = 0 }
          Local3 = 0
          If (LLess (Local0, 100)) { Local3 = 15000 }
        }
        Else { Local2 = One  Local3 = 10000 }
        PBST [Zero] = Local2
        PBST [One] = Local3
        PBST [2] = Local1
        Return (PBST)
      }
    }
    Device (GED0)
    {
      Name (_HID, "ACPI0013")
      Name (_UID, Zero)
      Name (_CRS, ResourceTemplate () { Interrupt (ResourceConsumer, Level, ActiveHigh, Exclusive, ,, ) { 5 } })
      Method (_EVT, 1, Serialized) { IRQ5 = Zero  Notify (\_SB.AC, 0x80)  Notify (\_SB.BAT0, 0x80) }
    }
  }
}
