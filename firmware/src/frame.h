/* Framing of docs/protocol.md: 0xA5 | LEN | SEQ | TYPE | PAYLOAD | CRC16 (big-endian).
 * Pure C (no AVR headers): compiled natively by the unit tests. */
#ifndef FRAME_H
#define FRAME_H

#include <stdint.h>

#define FRAME_SYNC 0xA5
#define FRAME_MAX_PAYLOAD 48
#define FRAME_OVERHEAD 6 /* sync, LEN, SEQ, TYPE, CRC hi, CRC lo */
#define FRAME_MAX (FRAME_MAX_PAYLOAD + FRAME_OVERHEAD)
#define FRAME_TIMEOUT_MS 20 /* more than this between two bytes of a frame discards it */

/* CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final XOR. */
uint16_t frame_crc16(uint16_t crc, const uint8_t *data, uint8_t len);

/* Writes one frame into out (room for FRAME_MAX bytes); returns its length,
 * or 0 when len is over FRAME_MAX_PAYLOAD. */
uint8_t frame_encode(uint8_t *out, uint8_t seq, uint8_t type, const uint8_t *payload, uint8_t len);

/* Called for every intact frame; payload points into the receiver's buffer and is only
 * valid during the call. The callback must not feed the receiver. */
typedef void (*frame_handler)(void *ctx, uint8_t seq, uint8_t type, const uint8_t *payload,
                              uint8_t len);

typedef struct {
    uint8_t buf[FRAME_MAX]; /* buf[0] is always the sync byte of the candidate frame */
    uint8_t n;              /* bytes held */
    uint32_t last_ms;       /* when buf[n-1] arrived */
    uint16_t frames;        /* intact frames (wraps) */
    uint16_t errors;        /* frames thrown away (wraps) */
    frame_handler handler;
    void *ctx;
} frame_rx_t;

void frame_rx_init(frame_rx_t *rx, frame_handler handler, void *ctx);
/* One received byte at time now_ms. */
void frame_rx_byte(frame_rx_t *rx, uint8_t b, uint32_t now_ms);
/* Applies the inter-byte timeout without a new byte (call when the input is idle). */
void frame_rx_poll(frame_rx_t *rx, uint32_t now_ms);

#endif
