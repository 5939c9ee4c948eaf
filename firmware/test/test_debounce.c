/* Debounce: a switch changes after 3 equal readings in a row that differ from its state. */
#include <string.h>

#include "check.h"
#include "debounce.h"

static void test_starts_open(void)
{
    debounce_t d;
    debounce_init(&d);
    for (uint8_t i = 0; i < DEBOUNCE_SWITCHES; i++)
        CHECK_EQ(debounce_closed(&d, i), 0);
}

static void test_three_readings_close_and_open(void)
{
    debounce_t d;
    debounce_init(&d);
    CHECK_EQ(debounce_row(&d, 2, 0x08), 0);
    CHECK_EQ(debounce_row(&d, 2, 0x08), 0);
    CHECK_EQ(debounce_row(&d, 2, 0x08), 0x08);
    CHECK_EQ(debounce_closed(&d, 2 * 7 + 3), 1);
    CHECK_EQ(debounce_row(&d, 2, 0x08), 0); /* no repeat */
    CHECK_EQ(debounce_row(&d, 2, 0x00), 0);
    CHECK_EQ(debounce_row(&d, 2, 0x00), 0);
    CHECK_EQ(debounce_row(&d, 2, 0x00), 0x08);
    CHECK_EQ(debounce_closed(&d, 17), 0);
}

static void test_bounce_restarts_count(void)
{
    debounce_t d;
    debounce_init(&d);
    const uint8_t readings[] = {1, 1, 0, 1, 1, 0, 1, 1};
    for (unsigned i = 0; i < sizeof readings; i++)
        CHECK_EQ(debounce_row(&d, 0, readings[i]), 0);
    CHECK_EQ(debounce_closed(&d, 0), 0);
    CHECK_EQ(debounce_row(&d, 0, 1), 1);
}

static void test_rows_and_columns_are_independent(void)
{
    debounce_t d;
    debounce_init(&d);
    for (int k = 0; k < 3; k++) {
        uint8_t c6 = debounce_row(&d, 6, 0x7F);
        uint8_t c0 = debounce_row(&d, 0, 0x41);
        CHECK_EQ(c6, k == 2 ? 0x7F : 0);
        CHECK_EQ(c0, k == 2 ? 0x41 : 0);
    }
    for (uint8_t sw = 0; sw < DEBOUNCE_SWITCHES; sw++)
        CHECK_EQ(debounce_closed(&d, sw), sw >= 42 || sw == 0 || sw == 6);
    /* Snapshot layout: switch i is bit i % 8 of byte i / 8; 49..55 stay 0. */
    CHECK_EQ(d.closed[0], 0x41);
    CHECK_EQ(d.closed[5], 0xFC); /* switches 42..47 */
    CHECK_EQ(d.closed[6], 0x01); /* switch 48 */
    for (uint8_t b = 1; b < 5; b++)
        CHECK_EQ(d.closed[b], 0);
}

static void test_bits_above_column_6_ignored(void)
{
    debounce_t d;
    debounce_init(&d);
    for (int k = 0; k < 3; k++)
        CHECK_EQ(debounce_row(&d, 3, 0x80), 0);
    for (uint8_t sw = 0; sw < DEBOUNCE_SWITCHES; sw++)
        CHECK_EQ(debounce_closed(&d, sw), 0);
}

int main(void)
{
    RUN(test_starts_open);
    RUN(test_three_readings_close_and_open);
    RUN(test_bounce_restarts_count);
    RUN(test_rows_and_columns_are_independent);
    RUN(test_bits_above_column_6_ignored);
    DONE();
    return 0;
}
