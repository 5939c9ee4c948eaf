#include "uart.h"

#include <avr/interrupt.h>
#include <avr/io.h>

/* Sizes are powers of two so the uint8_t indices wrap for free. TX holds a burst of
 * messages (a CHANGE is 13 bytes, 7 switches can change in one row scan). */
#define RX_SIZE 64
#define TX_SIZE 256
#define RX_MASK (RX_SIZE - 1)

static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint8_t rx_head, rx_tail; /* head: ISR writes; tail: main reads */
static volatile uint8_t tx_buf[TX_SIZE];
static volatile uint8_t tx_head, tx_tail; /* head: main writes; tail: ISR reads */
static volatile uint16_t rx_overruns;
static uint16_t tx_dropped;

void uart_init(void)
{
    /* U2X: 16 MHz / (8 * (16 + 1)) = 117647 baud, 2.1 % off 115200 (within 8N1 margin). */
    UCSR0A = _BV(U2X0);
    UBRR0 = 16;
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00); /* 8N1 */
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

ISR(USART_RX_vect)
{
    uint8_t status = UCSR0A;
    uint8_t b = UDR0;
    if (status & _BV(DOR0))
        rx_overruns++;
    uint8_t next = (uint8_t)((rx_head + 1) & RX_MASK);
    if (next == rx_tail) {
        rx_overruns++; /* the frame it belongs to will fail its CRC */
        return;
    }
    rx_buf[rx_head] = b;
    rx_head = next;
}

ISR(USART_UDRE_vect)
{
    if (tx_head == tx_tail) {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
        return;
    }
    UDR0 = tx_buf[tx_tail];
    tx_tail = (uint8_t)(tx_tail + 1);
}

uint8_t uart_rx_pending(void)
{
    return rx_head != rx_tail;
}

int16_t uart_getc(void)
{
    uint8_t t = rx_tail;
    if (t == rx_head)
        return -1;
    uint8_t b = rx_buf[t];
    rx_tail = (uint8_t)((t + 1) & RX_MASK);
    return b;
}

void uart_write_frame(const uint8_t *data, uint8_t len)
{
    uint8_t head = tx_head;
    uint8_t used = (uint8_t)(head - tx_tail); /* tx_tail is one byte: read atomically */
    if ((uint16_t)used + len > TX_SIZE - 1) {
        tx_dropped++;
        return;
    }
    while (len--) {
        tx_buf[head] = *data++;
        head = (uint8_t)(head + 1);
    }
    uint8_t sreg = SREG;
    cli(); /* UCSR0B is also written by the UDRE interrupt */
    tx_head = head;
    UCSR0B |= _BV(UDRIE0);
    SREG = sreg;
}

uint16_t uart_tx_dropped(void)
{
    return tx_dropped;
}

uint16_t uart_rx_overruns(void)
{
    uint16_t n;
    uint8_t sreg = SREG;
    cli();
    n = rx_overruns;
    SREG = sreg;
    return n;
}
