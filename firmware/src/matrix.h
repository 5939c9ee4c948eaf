/* The 7 x 7 diode matrix: rows PD2..PD7, PB1 (selected = output low, else Hi-Z);
 * columns PC0..PC5, PB2 (inputs with pull-ups; low = closed). */
#ifndef MATRIX_H
#define MATRIX_H

#include <stdint.h>

#define MATRIX_ROWS 7

void matrix_init(void);
/* Selects `row`, waits for the lines to settle, reads the columns and releases the row.
 * Bit c of the result is 1 when switch row * 7 + c is closed. */
uint8_t matrix_read_row(uint8_t row);

#endif
