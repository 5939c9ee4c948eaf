/* Pixel patterns: steady, slow and fast blinks, in-turn slots, "host gone". */
#include <string.h>

#include "check.h"
#include "pixels.h"

static pixel_t px[PIXELS];
static slots_t slots;
static uint8_t grb[3 * PIXELS];

static int lit(uint8_t i)
{
    return grb[3 * i] || grb[3 * i + 1] || grb[3 * i + 2];
}

static void set(uint8_t i, uint8_t r, uint8_t g, uint8_t b, uint8_t pattern)
{
    px[i].r = r;
    px[i].g = g;
    px[i].b = b;
    px[i].pattern = pattern;
}

static void test_steady_and_grb_order(void)
{
    memset(px, 0, sizeof px);
    set(5, 10, 20, 30, 0);
    CHECK_EQ(pixels_render(px, &slots, 12345, 1, grb), PIXEL_NO_SLOT);
    CHECK_EQ(grb[15], 20); /* G */
    CHECK_EQ(grb[16], 10); /* R */
    CHECK_EQ(grb[17], 30); /* B */
    for (uint8_t i = 0; i < PIXELS; i++)
        CHECK_EQ(lit(i), i == 5);
}

static void test_slow_and_fast_blink(void)
{
    memset(px, 0, sizeof px);
    set(0, 1, 1, 1, PIXEL_SLOW);
    set(1, 1, 1, 1, PIXEL_FAST);
    const struct {
        uint32_t t;
        int slow, fast;
    } cases[] = {{0, 1, 1},      {124, 1, 1},    {125, 1, 0},  {249, 1, 0},   {250, 1, 1},
                 {499, 1, 0},    {500, 0, 1},    {624, 0, 1},  {625, 0, 0},   {999, 0, 0},
                 {1000, 1, 1},   {7500, 0, 1},   {7875, 0, 0}, {86400000, 1, 1}};
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        pixels_render(px, &slots, cases[k].t, 1, grb);
        CHECK_EQ(lit(0), cases[k].slow);
        CHECK_EQ(lit(1), cases[k].fast);
    }
}

static void test_in_turn_slots(void)
{
    memset(px, 0, sizeof px);
    memset(&slots, 0, sizeof slots);
    set(3, 9, 0, 0, PIXEL_IN_TURN); /* hollow 0 */
    set(4, 9, 0, 0, PIXEL_IN_TURN); /* hollow 1 */
    set(5, 9, 0, 0, PIXEL_SLOW);    /* not in turn: its mask bit means nothing */
    set(0, 9, 0, 0, PIXEL_IN_TURN); /* an indicator keeps the rhythm */
    CHECK_EQ(pixels_slot(&slots, 0), PIXEL_NO_SLOT);
    CHECK_EQ(pixels_render(px, &slots, 100, 1, grb), PIXEL_NO_SLOT);
    CHECK(!lit(3) && !lit(4) && !lit(0)); /* no cycle: in-turn pixels wait */
    slots.count = 3;
    slots.mask[0] = 0x0001 | 0x0004; /* hollows 0 and 2 */
    slots.mask[1] = 0x0000;          /* an empty slot */
    slots.mask[2] = 0x0003;          /* hollows 0 and 1: hollow 0 is in two slots */
    CHECK_EQ(pixels_slot(&slots, 0), 0);
    CHECK_EQ(pixels_slot(&slots, 1999), 1);
    CHECK_EQ(pixels_slot(&slots, 2000), 2);
    CHECK_EQ(pixels_slot(&slots, 3000), 0);
    CHECK_EQ(pixels_render(px, &slots, 100, 1, grb), 0);
    CHECK(lit(3) && !lit(4) && lit(0));
    CHECK_EQ(pixels_render(px, &slots, 799, 1, grb), 0);
    CHECK(lit(3));
    CHECK_EQ(pixels_render(px, &slots, 800, 1, grb), 0);
    CHECK(!lit(3) && !lit(4) && !lit(0));
    CHECK_EQ(pixels_render(px, &slots, 1500, 1, grb), 1);
    CHECK(!lit(3) && !lit(4) && lit(0)); /* no hollow in slot 1; the indicator keeps time */
    CHECK_EQ(pixels_render(px, &slots, 2000, 1, grb), 2);
    CHECK(lit(3) && lit(4) && lit(0));
    CHECK_EQ(pixels_render(px, &slots, 3000, 1, grb), 0);
    CHECK(lit(3) && !lit(4));
    slots.count = 16;
    CHECK_EQ(pixels_slot(&slots, 15000), 15);
    CHECK_EQ(pixels_slot(&slots, 16000), 0);
}

static void test_host_gone(void)
{
    memset(px, 0, sizeof px);
    for (uint8_t i = 0; i < PIXELS; i++)
        set(i, 50, 50, 50, 0x03);
    CHECK_EQ(pixels_render(px, &slots, 0, 0, grb), PIXEL_NO_SLOT);
    for (uint8_t i = 0; i < PIXELS; i++)
        CHECK_EQ(lit(i), i == PIXEL_ILLEGAL);
    CHECK_EQ(grb[6], 0);
    CHECK_EQ(grb[7], 0);
    CHECK_EQ(grb[8], 64); /* blue */
    pixels_render(px, &slots, 500, 0, grb);
    for (uint8_t i = 0; i < PIXELS; i++)
        CHECK(!lit(i));
    /* The host's pixels were kept. */
    memset(&slots, 0, sizeof slots);
    slots.count = 1;
    slots.mask[0] = 0x0080; /* hollow 7 */
    CHECK_EQ(pixels_render(px, &slots, 0, 1, grb), 0);
    CHECK(lit(10) && !lit(3));
}

static void test_pattern_validation(void)
{
    CHECK(pixels_pattern_valid(0x00));
    CHECK(pixels_pattern_valid(0xF3));
    CHECK(!pixels_pattern_valid(0x04));
    CHECK(!pixels_pattern_valid(0x1F));
}

int main(void)
{
    RUN(test_steady_and_grb_order);
    RUN(test_slow_and_fast_blink);
    RUN(test_in_turn_slots);
    RUN(test_host_gone);
    RUN(test_pattern_validation);
    DONE();
    return 0;
}
