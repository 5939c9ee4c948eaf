#include "clock.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

static volatile uint32_t uptime_ms;

void clock_init(void)
{
    /* 16 MHz / 64 / 250 = 1 kHz. */
    TCCR0A = _BV(WGM01); /* CTC, TOP = OCR0A */
    OCR0A = (uint8_t)(F_CPU / 64 / 1000 - 1);
    TCNT0 = 0;
    TIMSK0 = _BV(OCIE0A);
    TCCR0B = _BV(CS01) | _BV(CS00); /* clk/64 */
}

ISR(TIMER0_COMPA_vect)
{
    uptime_ms++;
}

uint32_t clock_ms(void)
{
    uint32_t ms;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { ms = uptime_ms; }
    return ms;
}
