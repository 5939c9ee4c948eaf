#include "frame.h"

#include <string.h>

#ifdef __AVR__
#include <util/crc16.h>
#endif

uint16_t frame_crc16(uint16_t crc, const uint8_t *data, uint8_t len)
{
    while (len--) {
#ifdef __AVR__
        /* avr-libc's hand-written assembly; the same CRC as the portable loop below. */
        crc = _crc_xmodem_update(crc, *data++);
#else
        crc ^= (uint16_t)*data++ << 8;
        for (uint8_t i = 0; i < 8; i++)
            crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
#endif
    }
    return crc;
}

uint8_t frame_encode(uint8_t *out, uint8_t seq, uint8_t type, const uint8_t *payload, uint8_t len)
{
    if (len > FRAME_MAX_PAYLOAD)
        return 0;
    out[0] = FRAME_SYNC;
    out[1] = len;
    out[2] = seq;
    out[3] = type;
    if (len)
        memcpy(out + 4, payload, len);
    uint16_t crc = frame_crc16(0xFFFF, out + 1, (uint8_t)(len + 3));
    out[4 + len] = (uint8_t)(crc >> 8);
    out[5 + len] = (uint8_t)crc;
    return (uint8_t)(len + FRAME_OVERHEAD);
}

void frame_rx_init(frame_rx_t *rx, frame_handler handler, void *ctx)
{
    memset(rx, 0, sizeof *rx);
    rx->handler = handler;
    rx->ctx = ctx;
}

/* Drops the first k held bytes; what is left is re-scanned by settle(). */
static void drop(frame_rx_t *rx, uint8_t k)
{
    rx->n = (uint8_t)(rx->n - k);
    memmove(rx->buf, rx->buf + k, rx->n);
}

/* Brings the buffer to a state where it is empty or holds one incomplete candidate
 * starting with a sync byte, delivering every complete intact frame found on the way.
 * A discarded candidate loses only its sync byte, so frames hidden inside it (after a
 * bogus LEN) are found again. */
static void settle(frame_rx_t *rx)
{
    while (rx->n) {
        if (rx->buf[0] != FRAME_SYNC) {
            uint8_t k = 1;
            while (k < rx->n && rx->buf[k] != FRAME_SYNC)
                k++;
            drop(rx, k);
            continue;
        }
        if (rx->n < 2)
            return;
        uint8_t len = rx->buf[1];
        if (len > FRAME_MAX_PAYLOAD) {
            rx->errors++;
            drop(rx, 1);
            continue;
        }
        uint8_t total = (uint8_t)(len + FRAME_OVERHEAD);
        if (rx->n < total)
            return;
        uint16_t crc = frame_crc16(0xFFFF, rx->buf + 1, (uint8_t)(len + 3));
        if (rx->buf[4 + len] == (uint8_t)(crc >> 8) && rx->buf[5 + len] == (uint8_t)crc) {
            rx->frames++;
            if (rx->handler)
                rx->handler(rx->ctx, rx->buf[2], rx->buf[3], rx->buf + 4, len);
            drop(rx, total);
        } else {
            rx->errors++;
            drop(rx, 1);
        }
    }
}

void frame_rx_poll(frame_rx_t *rx, uint32_t now_ms)
{
    if (!rx->n || (uint32_t)(now_ms - rx->last_ms) <= FRAME_TIMEOUT_MS)
        return;
    /* Every candidate still held has its next byte more than 20 ms away: each one is
     * thrown away in turn, but complete frames found while re-scanning are kept. */
    while (rx->n) {
        rx->errors++;
        drop(rx, 1);
        settle(rx);
    }
}

void frame_rx_byte(frame_rx_t *rx, uint8_t b, uint32_t now_ms)
{
    frame_rx_poll(rx, now_ms);
    if (!rx->n && b != FRAME_SYNC)
        return; /* bytes before a sync byte are ignored */
    rx->buf[rx->n++] = b; /* settle() keeps n below FRAME_MAX, so this fits */
    rx->last_ms = now_ms;
    settle(rx);
}
