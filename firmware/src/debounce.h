/* Debouncing of the 7 x 7 switch matrix. Pure C: compiled natively by the unit tests. */
#ifndef DEBOUNCE_H
#define DEBOUNCE_H

#include <stdint.h>

#define DEBOUNCE_ROWS 7
#define DEBOUNCE_COLS 7
#define DEBOUNCE_SWITCHES (DEBOUNCE_ROWS * DEBOUNCE_COLS)
#define DEBOUNCE_BYTES ((DEBOUNCE_SWITCHES + 7) / 8)
/* A switch takes a new state after this many equal readings in a row that differ from it. */
#define DEBOUNCE_READINGS 3

typedef struct {
    /* Debounced state, switch i is bit i % 8 of closed[i / 8]: the SNAPSHOT layout. */
    uint8_t closed[DEBOUNCE_BYTES];
    uint8_t count[DEBOUNCE_SWITCHES]; /* readings in a row that differ from the state */
} debounce_t;

/* All switches open (the state before the first scan). */
void debounce_init(debounce_t *d);
/* One reading of row `row`: bit c of raw is 1 when switch row * 7 + c reads closed.
 * Returns the columns whose debounced state changed (bit c set). */
uint8_t debounce_row(debounce_t *d, uint8_t row, uint8_t raw);
uint8_t debounce_closed(const debounce_t *d, uint8_t sw);

#endif
