#include "ws2812.h"

#include <avr/interrupt.h>
#include <avr/io.h>

#if F_CPU != 16000000UL
#error "the WS2812 cycle counts below are for 16 MHz"
#endif

#define DATA_BIT _BV(PB0)

void ws2812_init(void)
{
    PORTB &= (uint8_t)~DATA_BIT; /* idle low */
    DDRB |= DATA_BIT;
}

/* One pixel: 24 bits, MSB first. Cycle counts at 16 MHz (62.5 ns), counted from the
 * `out hi` at cycle 0 of each bit:
 *   c0      out hi            line goes high
 *   c1-c4   4 x nop
 *   c5      sbrs data,7       bit 1: skips, c5-c6
 *   c6      out lo            bit 0 only: low after 6 cycles  -> T0H = 6  (375 ns)
 *   c7-c11  5 x nop
 *   c12     out lo            bit 1: low after 12 cycles      -> T1H = 12 (750 ns)
 *   c13     lsl data
 *   c14     dec bits
 *   c15-c17 3 x nop
 *   c18-c19 brne (taken)      next `out hi` at c20            -> bit period 20 (1.25 us)
 * At a byte boundary brne falls through (1), then dec/brne/ld/ldi take 6 more: the low
 * time of a byte's last bit grows by 5 cycles (0.31 us), far below the 50 us latch.
 * T0L = 14 (875 ns), T1L = 8 (500 ns), within the WS2812B's +-150 ns. */
static void send_pixel(const uint8_t *p, uint8_t hi, uint8_t lo)
{
    uint8_t bytes = 3, bits, data;
    __asm__ volatile(
        "1:                     \n\t"
        "ld   %[data], %a[p]+   \n\t"
        "ldi  %[bits], 8        \n\t"
        "2:                     \n\t"
        "out  %[port], %[hi]    \n\t"
        "nop                    \n\t"
        "nop                    \n\t"
        "nop                    \n\t"
        "nop                    \n\t"
        "sbrs %[data], 7        \n\t"
        "out  %[port], %[lo]    \n\t"
        "nop                    \n\t"
        "nop                    \n\t"
        "nop                    \n\t"
        "nop                    \n\t"
        "nop                    \n\t"
        "out  %[port], %[lo]    \n\t"
        "lsl  %[data]           \n\t"
        "dec  %[bits]           \n\t"
        "nop                    \n\t"
        "nop                    \n\t"
        "nop                    \n\t"
        "brne 2b                \n\t"
        "dec  %[bytes]          \n\t"
        "brne 1b                \n\t"
        : [p] "+e"(p), [bytes] "+r"(bytes), [bits] "=&d"(bits), [data] "=&r"(data)
        : [port] "I"(_SFR_IO_ADDR(PORTB)), [hi] "r"(hi), [lo] "r"(lo));
}

void ws2812_write(const uint8_t *grb, uint8_t n)
{
    while (n--) {
        uint8_t sreg = SREG;
        cli();
        /* PORTB is read with interrupts off; no ISR writes PORTB. */
        uint8_t lo = PORTB & (uint8_t)~DATA_BIT;
        send_pixel(grb, (uint8_t)(lo | DATA_BIT), lo);
        SREG = sreg; /* between pixels an ISR may run: it only stretches the low gap */
        grb += 3;
    }
}
