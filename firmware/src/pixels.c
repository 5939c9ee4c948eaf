#include "pixels.h"

#include <string.h>

#define SLOW_HALF_MS 500
#define FAST_HALF_MS 125
#define SLOT_MS 1000
#define SLOT_ON_MS 800

uint8_t pixels_pattern_valid(uint8_t pattern)
{
    return (uint8_t)((pattern & 0x0F) < PIXEL_MODES);
}

uint8_t pixels_slot(const slots_t *slots, uint32_t now_ms)
{
    if (!slots->count)
        return PIXEL_NO_SLOT;
    /* One cycle of `count` seconds, phase-locked to uptime so every pixel agrees. */
    return (uint8_t)((now_ms / SLOT_MS) % slots->count);
}

static void put(uint8_t *grb, uint8_t i, const pixel_t *p)
{
    grb[3 * i] = p->g;
    grb[3 * i + 1] = p->r;
    grb[3 * i + 2] = p->b;
}

uint8_t pixels_render(const pixel_t px[PIXELS], const slots_t *slots, uint32_t now_ms,
                      uint8_t host_alive, uint8_t grb[3 * PIXELS])
{
    uint16_t ms_in_s = (uint16_t)(now_ms % 1000);
    uint8_t slow_on = ms_in_s < SLOW_HALF_MS;
    memset(grb, 0, 3 * PIXELS);
    if (!host_alive) {
        static const pixel_t gone = {0, 0, 64, PIXEL_SLOW};
        if (slow_on)
            put(grb, PIXEL_ILLEGAL, &gone);
        return PIXEL_NO_SLOT;
    }
    uint8_t fast_on = (ms_in_s % (2 * FAST_HALF_MS)) < FAST_HALF_MS; /* 1000 = 4 * 250 */
    uint8_t slot = pixels_slot(slots, now_ms);
    uint8_t turn_on = ms_in_s < SLOT_ON_MS; /* slots are whole seconds of uptime */
    uint16_t in_slot = slot == PIXEL_NO_SLOT ? 0 : slots->mask[slot];
    for (uint8_t i = 0; i < PIXELS; i++) {
        uint8_t on;
        switch (px[i].pattern & 0x0F) {
        case PIXEL_STEADY: on = 1; break;
        case PIXEL_SLOW: on = slow_on; break;
        case PIXEL_FAST: on = fast_on; break;
        case PIXEL_IN_TURN: /* an indicator in turn keeps the cycle's rhythm */
            on = turn_on && slot != PIXEL_NO_SLOT &&
                 (i < PIXEL_HOLLOW0 || ((in_slot >> (i - PIXEL_HOLLOW0)) & 1));
            break;
        default: on = 0; break; /* never stored: commands are validated */
        }
        if (on)
            put(grb, i, &px[i]);
    }
    return slot;
}
