/* WS2812B strip on PB0, bit-banged at 16 MHz (see ws2812.c for the cycle counts). */
#ifndef WS2812_H
#define WS2812_H

#include <stdint.h>

void ws2812_init(void);
/* Sends n pixels of 3 bytes each (G R B). Interrupts are off only within one pixel.
 * The caller must leave the line low for the latch (> 80 us) before the next call. */
void ws2812_write(const uint8_t *grb, uint8_t n);

#endif
