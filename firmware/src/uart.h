/* USART0 at 115200 8N1, interrupt driven, ring buffers both ways. */
#ifndef UART_H
#define UART_H

#include <stdint.h>

void uart_init(void);
/* Next received byte, or -1 when none is waiting. */
int16_t uart_getc(void);
uint8_t uart_rx_pending(void);
/* Queues a whole frame, or drops it whole (counted) when the TX buffer lacks room:
 * the main loop never waits for the line. */
void uart_write_frame(const uint8_t *data, uint8_t len);
uint16_t uart_tx_dropped(void);  /* frames dropped for lack of room */
uint16_t uart_rx_overruns(void); /* bytes lost: ring full or hardware overrun */

#endif
