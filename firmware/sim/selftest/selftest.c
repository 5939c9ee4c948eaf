/*
 * Self-test program for arbiter-sim (not the real firmware): exercises what the
 * harness models, with the real firmware's pin map.
 *
 * - At start: prints "selftest start mcusr=XX" (MCUSR in hex, then cleared).
 * - Scans the 7x7 matrix continuously (a row is selected by driving it low,
 *   columns have pull-ups); on every change prints "closed N N N ..." with the
 *   closed switches in increasing order ("closed" alone when none), and
 *   rewrites the strip.
 * - Strip (PB0, 19 pixels, GRB, exact WS2812B timing at 16 MHz: T0H 6 cycles,
 *   T1H 12 cycles, bit period 20 cycles, interrupts off within a pixel):
 *   pixel i = R i*13, G 255-i*13, B number of closed switches.
 * - Toggles the status LED PB5 every 100 ms.
 * - UART commands (single bytes): '?' prints "state N N ..." (same list as
 *   "closed", a different word so a host can tell the answer apart); 'w'
 *   rewrites the strip; 'g' writes it with a 45 us low gap between pixels 9 and
 *   10 (a timing violation); 'i' writes it with 12 stray bits after the last
 *   pixel (an incomplete pixel).
 * UART: 115200 baud 8N1 (U2X0, UBRR0 16).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>
#include <util/atomic.h>
#include <util/delay.h>

#define NPIX 19

static volatile uint16_t ms;

ISR(TIMER1_COMPA_vect)
{
	ms++;
}

static void uart_putc(char c)
{
	while (!(UCSR0A & _BV(UDRE0)))
		;
	UDR0 = c;
}

static void uart_puts(const char *s)
{
	while (*s)
		uart_putc(*s++);
}

static void uart_dec(uint8_t v)
{
	if (v >= 10)
		uart_putc('0' + v / 10);
	uart_putc('0' + v % 10);
}

static void uart_hex(uint8_t v)
{
	static const char hex[] = "0123456789abcdef";
	uart_putc(hex[v >> 4]);
	uart_putc(hex[v & 15]);
}

/* One pixel (or its first 'bits' bits), MSB of g first. Cycle counts in comments. */
static void send_bits(uint8_t g, uint8_t r, uint8_t b, uint8_t bits)
{
	uint8_t hi = PORTB | _BV(PB0), lo = PORTB & ~_BV(PB0);
	asm volatile(
		"1:\n\t"
		"out %[port], %[hi]\n\t"	/* t0: rising edge */
		"nop\n\tnop\n\tnop\n\tnop\n\t"	/* t1-t4 */
		"sbrs %[g], 7\n\t"		/* t5 (skips at t6 for a 1) */
		"out %[port], %[lo]\n\t"	/* t6: a 0 falls (T0H = 6 cycles) */
		"lsl %[b]\n\t"			/* t7: both paths meet here */
		"rol %[r]\n\t"			/* t8 */
		"rol %[g]\n\t"			/* t9 */
		"nop\n\tnop\n\t"		/* t10-t11 */
		"out %[port], %[lo]\n\t"	/* t12: a 1 falls (T1H = 12 cycles) */
		"dec %[n]\n\t"			/* t13 */
		"nop\n\tnop\n\tnop\n\tnop\n\t"	/* t14-t17 */
		"brne 1b\n\t"			/* t18-t19: period 20 cycles = 1.25 us */
		: [g] "+r"(g), [r] "+r"(r), [b] "+r"(b), [n] "+r"(bits)
		: [port] "I"(_SFR_IO_ADDR(PORTB)), [hi] "r"(hi), [lo] "r"(lo));
}

/* mode: 'w' normal, 'g' long gap, 'i' incomplete last pixel */
static void write_strip(uint8_t nclosed, char mode)
{
	for (uint8_t i = 0; i < NPIX; i++) {
		cli();
		if (mode == 'g' && i == 10)
			_delay_us(43);	/* + the loop: about 45 us, between 40 (max) and 50 (latch) */
		send_bits(255 - i * 13, i * 13, nclosed, 24);
		if (mode != 'g')
			sei();
	}
	if (mode == 'i')
		send_bits(0xff, 0xff, 0xff, 12);
	sei();
	_delay_us(80);	/* latch */
}

static uint8_t closed[7];	/* row -> bit per column */

static void scan(uint8_t *out)
{
	for (uint8_t r = 0; r < 7; r++) {
		if (r < 6)
			DDRD |= _BV(PD2 + r);	/* PORTD bit is 0: the row is driven low */
		else
			DDRB |= _BV(PB1);
		_delay_us(2);
		uint8_t cols = (~PINC & 0x3f) | ((PINB & _BV(PB2)) ? 0 : 0x40);
		DDRD &= ~0xfc;
		DDRB &= ~_BV(PB1);
		out[r] = cols;
	}
}

static uint8_t print_closed(const char *word)
{
	uint8_t n = 0;
	uart_puts(word);
	for (uint8_t i = 0; i < 49; i++)
		if (closed[i / 7] >> (i % 7) & 1) {
			uart_putc(' ');
			uart_dec(i);
			n++;
		}
	uart_puts("\n");
	return n;
}

int main(void)
{
	uint8_t mcusr = MCUSR;
	MCUSR = 0;

	/* rows: inputs, no pull-up (Hi-Z); columns: inputs with pull-up */
	DDRD &= ~0xfc;
	PORTD &= ~0xfc;
	DDRB = _BV(PB0) | _BV(PB5);
	PORTB = _BV(PB2);
	DDRC &= ~0x3f;
	PORTC |= 0x3f;

	UCSR0A = _BV(U2X0);
	UBRR0 = 16;
	UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
	UCSR0B = _BV(RXEN0) | _BV(TXEN0);

	OCR1A = 249;	/* 16 MHz / 64 / 250 = 1 kHz */
	TCCR1B = _BV(WGM12) | _BV(CS11) | _BV(CS10);
	TIMSK1 = _BV(OCIE1A);
	sei();

	uart_puts("selftest start mcusr=");
	uart_hex(mcusr);
	uart_puts("\n");
	scan(closed);
	uint8_t nclosed = print_closed("closed");
	write_strip(nclosed, 'w');

	uint16_t led_at = 0;
	for (;;) {
		uint8_t now[7], changed = 0;
		scan(now);
		for (uint8_t r = 0; r < 7; r++) {
			changed |= now[r] ^ closed[r];
			closed[r] = now[r];
		}
		if (changed) {
			nclosed = print_closed("closed");
			write_strip(nclosed, 'w');
		}
		if (UCSR0A & _BV(RXC0)) {
			char c = UDR0;
			if (c == '?')
				print_closed("state");
			else if (c == 'w' || c == 'g' || c == 'i')
				write_strip(nclosed, c);
		}
		uint16_t t;
		ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
			t = ms;
		}
		if ((uint16_t)(t - led_at) >= 100) {
			led_at = t;
			PINB = _BV(PB5);	/* writing 1 to PINx toggles PORTx */
		}
	}
}
