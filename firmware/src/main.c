/* Tabletop Arbiter board controller: see docs/protocol.md and firmware/README.md. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <string.h>

#include "clock.h"
#include "debounce.h"
#include "matrix.h"
#include "pixels.h"
#include "proto.h"
#include "uart.h"
#include "ws2812.h"

#define HEARTBEAT_MS 500
#define SNAPSHOT_MS 1000
#define LATCH_MS 2 /* >= 1 ms of low line between strip writes (WS2812B needs 50-280 us) */
#define STATUS_LED _BV(PB5)

/* MCUSR as it was at reset. .noinit: .bss is cleared after .init3 runs. */
static uint8_t reset_flags __attribute__((section(".noinit")));

/* Runs before main (avr-libc's recipe): a watchdog reset leaves the watchdog running with
 * its shortest timeout, so it must be stopped before the C start-up code. */
void early_init(void) __attribute__((naked, used, section(".init3")));
void early_init(void)
{
    reset_flags = MCUSR;
    MCUSR = 0;
    wdt_disable();
}

static debounce_t db;
static uint8_t shown[3 * PIXELS]; /* what the strip shows now */
static uint8_t slot = PIXEL_NO_SLOT;

static void send_snapshot(uint32_t now)
{
    proto_send_snapshot(now, db.closed, slot);
}

/* Renders the strip for `now` and writes it if what it shows changed. Returns 0 when a
 * write is due but the latch time since the last write has not passed yet. */
static uint8_t update_strip(uint32_t now, uint8_t force, uint32_t *last_write)
{
    uint8_t grb[3 * PIXELS];
    slot = pixels_render(proto_pixels(), proto_slots(), now, proto_host_alive(), grb);
    if (!force && !memcmp(grb, shown, sizeof grb))
        return 1;
    if ((uint32_t)(now - *last_write) < LATCH_MS)
        return 0;
    ws2812_write(grb, PIXELS);
    memcpy(shown, grb, sizeof grb);
    *last_write = clock_ms();
    return 1;
}

int main(void)
{
    uint8_t reset_cause = reset_flags & 0x0F; /* PORF, EXTRF, BORF, WDRF */

    DDRB |= STATUS_LED;
    clock_init();
    uart_init();
    matrix_init();
    ws2812_init();
    debounce_init(&db);
    proto_init(uart_write_frame, reset_cause);
    sei();
    wdt_enable(WDTO_1S);

    proto_send_hello();

    uint32_t now = clock_ms();
    uint32_t scanned_ms = now;
    uint32_t next_heartbeat = now + HEARTBEAT_MS;
    uint32_t next_snapshot = 0;
    uint32_t last_write = now - LATCH_MS;
    uint8_t row = 0, scans = 0;
    uint8_t settled = 0; /* first debounced scan done and reported */
    uint8_t strip_due = 1, first_write = 1;

    for (;;) {
        wdt_reset();
        now = clock_ms();

        int16_t c;
        while ((c = uart_getc()) >= 0) {
            proto_rx_byte((uint8_t)c, now);
            /* After each byte, so the SNAPSHOT follows its ACK. */
            uint8_t req = proto_take_requests();
            if (req & PROTO_REQ_PIXELS)
                strip_due = 1;
            if ((req & PROTO_REQ_SNAPSHOT) && settled)
                send_snapshot(now);
        }
        proto_poll(now, !uart_rx_pending());
        if (proto_take_requests() & PROTO_REQ_PIXELS)
            strip_due = 1;

        if (now != scanned_ms) {
            /* One row per millisecond; a late loop pass just skips a row. */
            scanned_ms = now;
            strip_due = 1; /* blink phases move with time */
            uint8_t changed = debounce_row(&db, row, matrix_read_row(row));
            for (uint8_t col = 0; settled && changed; col++, changed >>= 1)
                if (changed & 1) {
                    uint8_t sw = (uint8_t)(row * DEBOUNCE_COLS + col);
                    proto_send_change(now, sw, debounce_closed(&db, sw), slot);
                }
            if (++row == MATRIX_ROWS) {
                row = 0;
                /* The matrix starts all open: after DEBOUNCE_READINGS full scans the
                 * debounced state is true, and only then is it reported. */
                if (!settled && ++scans >= DEBOUNCE_READINGS) {
                    settled = 1;
                    send_snapshot(now);
                    next_snapshot = now + SNAPSHOT_MS;
                }
            }
        }

        if (strip_due && update_strip(now, first_write, &last_write)) {
            strip_due = 0;
            first_write = 0;
        }

        if ((int32_t)(now - next_heartbeat) >= 0) {
            next_heartbeat += HEARTBEAT_MS;
            if ((int32_t)(now - next_heartbeat) >= 0)
                next_heartbeat = now + HEARTBEAT_MS; /* fell behind: do not burst */
            proto_send_heartbeat(now);
            PINB = STATUS_LED; /* writing a PIN bit toggles the output */
        }
        if (settled && (int32_t)(now - next_snapshot) >= 0) {
            next_snapshot += SNAPSHOT_MS;
            if ((int32_t)(now - next_snapshot) >= 0)
                next_snapshot = now + SNAPSHOT_MS;
            send_snapshot(now);
        }

        /* Sleep until the next interrupt (tick or UART) when nothing is waiting. Interrupts
         * are off while checking; `sei` takes effect after `sleep`, so a wake-up cannot
         * slip in between. */
        cli();
        if (!uart_rx_pending() && clock_ms() == now && !strip_due) {
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
        }
        sei();
    }
}
