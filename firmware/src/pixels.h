/* What the strip shows: the host's pixels with their patterns, or the "host gone" sign.
 * Pure C: compiled natively by the unit tests. */
#ifndef PIXELS_H
#define PIXELS_H

#include <stdint.h>

#define PIXELS 19
#define PIXEL_TURN_FIRST 0
#define PIXEL_TURN_SECOND 1
#define PIXEL_ILLEGAL 2
#define PIXEL_HOLLOW0 3
#define PIXEL_HOLLOWS 16

#define PIXEL_STEADY 0
#define PIXEL_SLOW 1
#define PIXEL_FAST 2
#define PIXEL_IN_TURN 3
#define PIXEL_MODES 4

#define PIXEL_NO_SLOT 255

#define PIXEL_SLOTS 16

typedef struct {
    uint8_t r, g, b, pattern; /* pattern: low nibble mode, high nibble reserved (0) */
} pixel_t;

/* The in-turn cycle: `count` slots of a second; during slot s the in-turn hollows whose
 * bit is set in mask[s] are lit (bit i: hollow i, pixel PIXEL_HOLLOW0 + i). A hollow may
 * be in several slots: candidates that share a hollow each light it in their turn. */
typedef struct {
    uint8_t count;
    uint16_t mask[PIXEL_SLOTS];
} slots_t;

/* 1 when the pattern byte's mode is one the firmware knows. */
uint8_t pixels_pattern_valid(uint8_t pattern);

/* The in-turn slot shown at now_ms, or PIXEL_NO_SLOT when there is no cycle. */
uint8_t pixels_slot(const slots_t *slots, uint32_t now_ms);

/* Fills grb (3 * PIXELS bytes, wire order G R B) with what the strip shows at now_ms and
 * returns the in-turn slot being shown (PIXEL_NO_SLOT when none: also while the host is
 * gone, as then the strip shows only the blue "host gone" blink on the illegal indicator). */
uint8_t pixels_render(const pixel_t px[PIXELS], const slots_t *slots, uint32_t now_ms,
                      uint8_t host_alive, uint8_t grb[3 * PIXELS]);

#endif
