/*
 * WS2812B decoder: edges -> bits -> GRB bytes -> pixels, plus timing checks.
 *
 * Bit value: a high pulse shorter than 650 ns is a 0 (<= 10 cycles at 16 MHz),
 * longer is a 1 (>= 11 cycles). A low time over 50 us (800 cycles) latches.
 * Timing windows (WS2812B datasheet, widened a little since parts differ):
 *   T0H 200-500 ns, T1H 550-1000 ns, bit period 1250 +- 600 ns within a pixel,
 *   low gap between two pixels at most 40 us (the strip latches at 50 us).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ws2812.h"

#define ONE_MIN_NS 650.0
#define LATCH_NS 50000.0
#define T0H_MIN_NS 200.0
#define T0H_MAX_NS 500.0
#define T1H_MIN_NS 550.0
#define T1H_MAX_NS 1000.0
#define PERIOD_MIN_NS 650.0
#define PERIOD_MAX_NS 1850.0
#define GAP_MAX_NS 40000.0

static double ns(const ws2812_t *ws, uint64_t cycles)
{
	return (double)cycles * 1e9 / ws->freq;
}

__attribute__((format(printf, 3, 4)))
static void violation(ws2812_t *ws, uint64_t cycle, const char *fmt, ...)
{
	char what[160];
	va_list ap;
	if (ws->errored)
		return;		/* one report per frame is enough to point at the bug */
	ws->errored = 1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (ws->on_error)
		ws->on_error(ws->ctx, cycle, what);
}

void ws2812_init(ws2812_t *ws, uint32_t freq)
{
	memset(ws, 0, sizeof *ws);
	ws->freq = freq;
	/* cycle thresholds: 650 ns -> 10.4 -> 11 cycles, 50 us -> 800 cycles at 16 MHz */
	ws->one_min = (uint64_t)(ONE_MIN_NS * freq / 1e9) + 1;
	ws->latch = (uint64_t)(LATCH_NS * freq / 1e9);
}

static void latch(ws2812_t *ws)
{
	uint64_t at = ws->fall + ws->latch;
	uint8_t rgb[WS2812_MAX_PIXELS * 3];
	uint32_t npix = ws->nbits / 24;

	if (ws->nbits % 24)
		violation(ws, at, "incomplete last pixel: %u bits after %u full pixels",
			ws->nbits % 24, npix);
	if (npix > WS2812_MAX_PIXELS)
		npix = WS2812_MAX_PIXELS;
	for (uint32_t i = 0; i < npix; i++) {
		rgb[3 * i + 0] = ws->grb[3 * i + 1];
		rgb[3 * i + 1] = ws->grb[3 * i + 0];
		rgb[3 * i + 2] = ws->grb[3 * i + 2];
	}
	if (ws->on_frame)
		ws->on_frame(ws->ctx, at, rgb, (int)npix);
	ws->nbits = 0;
	ws->errored = 0;
	memset(ws->grb, 0, sizeof ws->grb);
}

void ws2812_poll(ws2812_t *ws, uint64_t cycle)
{
	if (ws->nbits && !ws->level && cycle - ws->fall > ws->latch)
		latch(ws);
}

void ws2812_abort(ws2812_t *ws, uint64_t cycle)
{
	ws->nbits = 0;
	ws->errored = 0;
	ws->level = 0;
	ws->fall = cycle;
	memset(ws->grb, 0, sizeof ws->grb);
}

static void rising(ws2812_t *ws, uint64_t cycle)
{
	if (!ws->nbits) {
		ws->rise = cycle;
		return;
	}
	uint64_t low = cycle - ws->fall;
	if (low > ws->latch) {
		latch(ws);	/* the previous frame ended; this edge starts a new one */
	} else if (ws->nbits % 24 == 0) {
		if (ns(ws, low) > GAP_MAX_NS)
			violation(ws, cycle, "low gap %.2f us between pixels (max 40 us) before pixel %u",
				ns(ws, low) / 1000, ws->nbits / 24);
	} else {
		double period = ns(ws, cycle - ws->rise);
		if (period < PERIOD_MIN_NS || period > PERIOD_MAX_NS)
			violation(ws, cycle, "bit period %.0f ns outside 650-1850 ns in pixel %u bit %u",
				period, ws->nbits / 24, ws->nbits % 24);
	}
	ws->rise = cycle;
}

static void falling(ws2812_t *ws, uint64_t cycle)
{
	uint64_t high = cycle - ws->rise;
	double h = ns(ws, high);
	int bit = high >= ws->one_min;

	/* the bit index in the messages is the one being received */
	if (bit && (h < T1H_MIN_NS || h > T1H_MAX_NS))
		violation(ws, cycle, "T1H %.0f ns outside 550-1000 ns in pixel %u bit %u",
			h, ws->nbits / 24, ws->nbits % 24);
	if (!bit && (h < T0H_MIN_NS || h > T0H_MAX_NS))
		violation(ws, cycle, "T0H %.0f ns outside 200-500 ns in pixel %u bit %u",
			h, ws->nbits / 24, ws->nbits % 24);
	if (ws->nbits < WS2812_MAX_PIXELS * 24 && bit)
		ws->grb[ws->nbits / 8] |= 0x80 >> (ws->nbits % 8);
	ws->nbits++;
	ws->fall = cycle;
}

void ws2812_edge(ws2812_t *ws, uint64_t cycle, int level)
{
	level = !!level;
	if (level == ws->level)
		return;
	ws->level = level;
	if (level)
		rising(ws, cycle);
	else
		falling(ws, cycle);
}
