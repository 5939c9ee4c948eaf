/*
 * WS2812B decoder for the simulator harness: fed with the edges of the data
 * line (cycle stamps), it rebuilds the latched frames and checks the timing
 * against the datasheet. It knows nothing about simavr, so it is easy to reason
 * about on its own.
 */
#ifndef WS2812_H
#define WS2812_H

#include <stdint.h>

#define WS2812_MAX_PIXELS 256

typedef struct ws2812 {
	uint32_t freq;			/* core clock, Hz */
	uint64_t one_min;		/* a high pulse this long (cycles) or longer is a 1 bit */
	uint64_t latch;			/* a low time longer than this (cycles) latches the frame */
	int level;				/* current line level */
	uint64_t rise, fall;	/* cycle of the last rising / falling edge */
	uint32_t nbits;			/* bits of the frame being received */
	int errored;			/* a violation was reported for this frame */
	uint8_t grb[WS2812_MAX_PIXELS * 3];
	/* called with the violation and the cycle it happened at (once per frame) */
	void (*on_error)(void *ctx, uint64_t cycle, const char *what);
	/* called with each latched frame, pixels as R,G,B triplets */
	void (*on_frame)(void *ctx, uint64_t cycle, const uint8_t *rgb, int npixels);
	void *ctx;
} ws2812_t;

void ws2812_init(ws2812_t *ws, uint32_t freq);
/* The data line changed to 'level' at 'cycle'. */
void ws2812_edge(ws2812_t *ws, uint64_t cycle, int level);
/* Latch the frame in progress if the line has been low long enough by 'cycle'. */
void ws2812_poll(ws2812_t *ws, uint64_t cycle);
/* Forget a frame in progress and take the line as low (MCU reset). */
void ws2812_abort(ws2812_t *ws, uint64_t cycle);

#endif
