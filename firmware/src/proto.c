#include "proto.h"

#include <string.h>

_Static_assert(sizeof(pixel_t) == 4, "pixel_t is copied from R G B PATTERN bytes");

static struct {
    proto_tx_fn tx;
    frame_rx_t rx;
    pixel_t px[PIXELS]; /* as the host set them; kept while the host is gone */
    slots_t slots;      /* the in-turn cycle */
    uint32_t now_ms;    /* time of the byte being handled */
    uint32_t host_ms;   /* when the last good host frame arrived */
    uint8_t seq;
    uint8_t reset_cause;
    uint8_t host_alive;
    uint8_t requests;
} p;

static void send(uint8_t type, const uint8_t *payload, uint8_t len)
{
    uint8_t buf[FRAME_MAX];
    /* SEQ advances even if the UART drops the frame: the host sees the gap. */
    uint8_t n = frame_encode(buf, p.seq++, type, payload, len);
    p.tx(buf, n);
}

static void put_u32(uint8_t *out, uint32_t v)
{
    out[0] = (uint8_t)v;
    out[1] = (uint8_t)(v >> 8);
    out[2] = (uint8_t)(v >> 16);
    out[3] = (uint8_t)(v >> 24);
}

static void put_u16(uint8_t *out, uint16_t v)
{
    out[0] = (uint8_t)v;
    out[1] = (uint8_t)(v >> 8);
}

void proto_send_hello(void)
{
    const uint8_t m[7] = {PROTO_API, PROTO_VERSION_MAJOR, PROTO_VERSION_MINOR,
                          PROTO_VERSION_PATCH, p.reset_cause, 49, PIXELS};
    send(MSG_HELLO, m, sizeof m);
}

void proto_send_snapshot(uint32_t now_ms, const uint8_t closed[7], uint8_t slot)
{
    uint8_t m[12];
    put_u32(m, now_ms);
    memcpy(m + 4, closed, 7);
    m[11] = slot;
    send(MSG_SNAPSHOT, m, sizeof m);
}

void proto_send_change(uint32_t now_ms, uint8_t sw, uint8_t closed, uint8_t slot)
{
    uint8_t m[7];
    put_u32(m, now_ms);
    m[4] = sw;
    m[5] = closed;
    m[6] = slot;
    send(MSG_CHANGE, m, sizeof m);
}

void proto_send_heartbeat(uint32_t now_ms)
{
    uint8_t m[9];
    put_u32(m, now_ms);
    put_u16(m + 4, p.rx.frames);
    put_u16(m + 6, p.rx.errors);
    m[8] = p.host_alive;
    send(MSG_HEARTBEAT, m, sizeof m);
}

/* Validates `count` pixels (4 bytes each) and copies them to px[first..] only if all are
 * valid, so a rejected command has no effect. */
static uint8_t set_pixels(uint8_t first, const uint8_t *data, uint8_t count)
{
    for (uint8_t i = 0; i < count; i++)
        if (!pixels_pattern_valid(data[4 * i + 3]))
            return ACK_OUT_OF_RANGE;
    memcpy(&p.px[first], data, 4u * count); /* pixel_t is 4 plain bytes: R G B PATTERN */
    p.requests |= PROTO_REQ_PIXELS;
    return ACK_DONE;
}

static uint8_t command(uint8_t type, const uint8_t *d, uint8_t len)
{
    switch (type) {
    case CMD_HELLO:
        return len == 1 ? ACK_DONE : ACK_BAD_LENGTH; /* any host API level is answered */
    case CMD_HEARTBEAT:
    case CMD_GET_SNAPSHOT:
        return len == 0 ? ACK_DONE : ACK_BAD_LENGTH;
    case CMD_SET_INDICATORS:
        if (len != 12)
            return ACK_BAD_LENGTH;
        return set_pixels(PIXEL_TURN_FIRST, d, 3);
    case CMD_SET_STRIP: {
        /* LEN <= 48 already caps the count at 11. */
        if (len < 5 || (len - 1) % 4)
            return ACK_BAD_LENGTH;
        uint8_t first = d[0], count = (uint8_t)((len - 1) / 4);
        if (first >= PIXEL_HOLLOWS || first + count > PIXEL_HOLLOWS)
            return ACK_OUT_OF_RANGE;
        return set_pixels((uint8_t)(PIXEL_HOLLOW0 + first), d + 1, count);
    }
    case CMD_SET_SLOTS:
        if (len < 1)
            return ACK_BAD_LENGTH;
        if (d[0] > PIXEL_SLOTS)
            return ACK_OUT_OF_RANGE;
        if (len != 1 + 2 * d[0])
            return ACK_BAD_LENGTH;
        p.slots.count = d[0];
        for (uint8_t s = 0; s < d[0]; s++)
            p.slots.mask[s] = (uint16_t)(d[1 + 2 * s] | (d[2 + 2 * s] << 8));
        p.requests |= PROTO_REQ_PIXELS;
        return ACK_DONE;
    default:
        return ACK_UNKNOWN_TYPE; /* also controller types (below 0x80) echoed back */
    }
}

static void on_frame(void *ctx, uint8_t seq, uint8_t type, const uint8_t *payload, uint8_t len)
{
    (void)ctx;
    /* Any intact frame proves the host is there, even one we cannot carry out. */
    p.host_ms = p.now_ms;
    if (!p.host_alive) {
        p.host_alive = 1;
        p.requests |= PROTO_REQ_PIXELS;
    }
    uint8_t status = command(type, payload, len);
    const uint8_t ack[3] = {seq, type, status};
    send(MSG_ACK, ack, sizeof ack);
    if (status != ACK_DONE)
        return;
    if (type == CMD_HELLO)
        proto_send_hello();
    else if (type == CMD_GET_SNAPSHOT)
        p.requests |= PROTO_REQ_SNAPSHOT; /* main owns the switch state */
}

void proto_init(proto_tx_fn tx, uint8_t reset_cause)
{
    memset(&p, 0, sizeof p);
    p.tx = tx;
    p.reset_cause = reset_cause;
    frame_rx_init(&p.rx, on_frame, 0);
}

void proto_rx_byte(uint8_t b, uint32_t now_ms)
{
    p.now_ms = now_ms;
    frame_rx_byte(&p.rx, b, now_ms);
}

void proto_poll(uint32_t now_ms, uint8_t rx_idle)
{
    p.now_ms = now_ms;
    /* Only when no byte is waiting: a byte stamped late must not look like a gap. */
    if (rx_idle)
        frame_rx_poll(&p.rx, now_ms);
    if (p.host_alive && (uint32_t)(now_ms - p.host_ms) >= PROTO_HOST_TIMEOUT_MS) {
        p.host_alive = 0;
        p.requests |= PROTO_REQ_PIXELS;
    }
}

uint8_t proto_take_requests(void)
{
    uint8_t r = p.requests;
    p.requests = 0;
    return r;
}

uint8_t proto_host_alive(void)
{
    return p.host_alive;
}

const pixel_t *proto_pixels(void)
{
    return p.px;
}

const slots_t *proto_slots(void)
{
    return &p.slots;
}
