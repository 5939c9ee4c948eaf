#include "debounce.h"

#include <string.h>

void debounce_init(debounce_t *d)
{
    memset(d, 0, sizeof *d);
}

uint8_t debounce_closed(const debounce_t *d, uint8_t sw)
{
    return (uint8_t)((d->closed[sw >> 3] >> (sw & 7)) & 1);
}

uint8_t debounce_row(debounce_t *d, uint8_t row, uint8_t raw)
{
    uint8_t changed = 0;
    uint8_t sw = (uint8_t)(row * DEBOUNCE_COLS);
    for (uint8_t c = 0; c < DEBOUNCE_COLS; c++, sw++) {
        uint8_t reading = (uint8_t)((raw >> c) & 1);
        if (reading == debounce_closed(d, sw)) {
            d->count[sw] = 0; /* a bounce back restarts the count */
            continue;
        }
        if (++d->count[sw] < DEBOUNCE_READINGS)
            continue;
        d->count[sw] = 0;
        d->closed[sw >> 3] ^= (uint8_t)(1u << (sw & 7));
        changed |= (uint8_t)(1u << c);
    }
    return changed;
}
