#include "matrix.h"

#include <avr/io.h>
#include <util/delay.h>

#define ROWS_D 0xFC /* PD2..PD7: rows 0..5 */
#define ROW6_B _BV(PB1)
#define COLS_C 0x3F /* PC0..PC5: columns 0..5 */
#define COL6_B _BV(PB2)

void matrix_init(void)
{
    /* Rows Hi-Z: input, no pull-up; the PORT bits stay 0 so selecting is a DDR write. */
    DDRD &= (uint8_t)~ROWS_D;
    PORTD &= (uint8_t)~ROWS_D;
    DDRB &= (uint8_t)~(ROW6_B | COL6_B);
    PORTB &= (uint8_t)~ROW6_B;
    /* Columns: inputs with pull-ups. */
    DDRC &= (uint8_t)~COLS_C;
    PORTC |= COLS_C;
    PORTB |= COL6_B;
}

uint8_t matrix_read_row(uint8_t row)
{
    if (row < 6)
        DDRD |= (uint8_t)(_BV(PD2) << row);
    else
        DDRB |= ROW6_B;
    /* The pull-ups (about 35 kOhm) must discharge the column wiring through the diode. */
    _delay_us(5);
    uint8_t open = (uint8_t)((PINC & COLS_C) | ((PINB & COL6_B) ? 0x40 : 0));
    if (row < 6)
        DDRD &= (uint8_t)~(_BV(PD2) << row);
    else
        DDRB &= (uint8_t)~ROW6_B;
    return (uint8_t)(~open & 0x7F);
}
