/* Commands and their ACKs (docs/protocol.md, "Commands from the host"). */
#include <string.h>

#include "check.h"
#include "proto.h"

/* Everything the controller sends is decoded by the same receiver the host would use. */
#define MAXOUT 32
static struct {
    int n;
    uint8_t seq[MAXOUT], type[MAXOUT], len[MAXOUT];
    uint8_t payload[MAXOUT][FRAME_MAX_PAYLOAD];
} out;
static frame_rx_t decoder;
static uint32_t now = 5000;
static uint8_t host_seq;

static void on_out(void *ctx, uint8_t seq, uint8_t type, const uint8_t *payload, uint8_t len)
{
    (void)ctx;
    CHECK(out.n < MAXOUT);
    out.seq[out.n] = seq;
    out.type[out.n] = type;
    out.len[out.n] = len;
    memcpy(out.payload[out.n], payload, len);
    out.n++;
}

static void tx(const uint8_t *frame, uint8_t len)
{
    for (uint8_t i = 0; i < len; i++)
        frame_rx_byte(&decoder, frame[i], now);
}

static void start(void)
{
    memset(&out, 0, sizeof out);
    frame_rx_init(&decoder, on_out, 0);
    proto_init(tx, 0x02);
    host_seq = 0;
}

static void command(uint8_t type, const uint8_t *payload, uint8_t len)
{
    uint8_t f[FRAME_MAX];
    uint8_t n = frame_encode(f, host_seq++, type, payload, len);
    out.n = 0;
    for (uint8_t i = 0; i < n; i++)
        proto_rx_byte(f[i], now);
}

/* The last command got exactly one ACK, first among the frames it caused. */
static void expect_ack(uint8_t type, uint8_t status)
{
    CHECK(out.n >= 1);
    CHECK_EQ(out.type[0], MSG_ACK);
    CHECK_EQ(out.len[0], 3);
    CHECK_EQ(out.payload[0][0], (uint8_t)(host_seq - 1));
    CHECK_EQ(out.payload[0][1], type);
    CHECK_EQ(out.payload[0][2], status);
}

static void test_hello(void)
{
    start();
    proto_send_hello();
    CHECK_EQ(out.n, 1);
    CHECK_EQ(out.seq[0], 0);
    CHECK_EQ(out.type[0], MSG_HELLO);
    const uint8_t hello[7] = {1, 1, 0, 0, 0x02, 49, 19};
    CHECK_EQ(out.len[0], 7);
    CHECK(!memcmp(out.payload[0], hello, 7));
    const uint8_t api = 1;
    command(CMD_HELLO, &api, 1);
    expect_ack(CMD_HELLO, ACK_DONE);
    CHECK_EQ(out.n, 2);
    CHECK_EQ(out.seq[0], 1); /* the controller's own numbering */
    CHECK_EQ(out.type[1], MSG_HELLO);
    CHECK_EQ(out.seq[1], 2);
    command(CMD_HELLO, 0, 0);
    expect_ack(CMD_HELLO, ACK_BAD_LENGTH);
    CHECK_EQ(out.n, 1);
}

static void test_heartbeat_and_snapshot(void)
{
    start();
    CHECK(!proto_host_alive());
    command(CMD_HEARTBEAT, 0, 0);
    expect_ack(CMD_HEARTBEAT, ACK_DONE);
    CHECK(proto_host_alive());
    command(CMD_GET_SNAPSHOT, 0, 0);
    expect_ack(CMD_GET_SNAPSHOT, ACK_DONE);
    CHECK_EQ(proto_take_requests() & PROTO_REQ_SNAPSHOT, PROTO_REQ_SNAPSHOT);
    const uint8_t one = 0;
    command(CMD_GET_SNAPSHOT, &one, 1);
    expect_ack(CMD_GET_SNAPSHOT, ACK_BAD_LENGTH);
    CHECK_EQ(proto_take_requests() & PROTO_REQ_SNAPSHOT, 0);

    out.n = 0;
    proto_send_heartbeat(0x01020304);
    CHECK_EQ(out.type[0], MSG_HEARTBEAT);
    CHECK_EQ(out.len[0], 9);
    const uint8_t hb[9] = {4, 3, 2, 1, 3, 0, 0, 0, 1}; /* 3 good frames, no errors */
    CHECK(!memcmp(out.payload[0], hb, 9));

    out.n = 0;
    const uint8_t closed[7] = {1, 2, 3, 4, 5, 6, 1};
    proto_send_snapshot(1000, closed, 255);
    CHECK_EQ(out.type[0], MSG_SNAPSHOT);
    CHECK_EQ(out.len[0], 12);
    const uint8_t snap[12] = {0xE8, 3, 0, 0, 1, 2, 3, 4, 5, 6, 1, 255};
    CHECK(!memcmp(out.payload[0], snap, 12));

    out.n = 0;
    proto_send_change(7, 48, 1, 2);
    CHECK_EQ(out.type[0], MSG_CHANGE);
    const uint8_t change[7] = {7, 0, 0, 0, 48, 1, 2};
    CHECK_EQ(out.len[0], 7);
    CHECK(!memcmp(out.payload[0], change, 7));
}

static void test_host_alive_timeout(void)
{
    start();
    command(CMD_HEARTBEAT, 0, 0);
    CHECK(proto_host_alive());
    proto_take_requests();
    now += PROTO_HOST_TIMEOUT_MS - 1;
    proto_poll(now, 1);
    CHECK(proto_host_alive());
    now += 1;
    proto_poll(now, 1);
    CHECK(!proto_host_alive());
    CHECK_EQ(proto_take_requests() & PROTO_REQ_PIXELS, PROTO_REQ_PIXELS);
    command(0x90, 0, 0); /* an unknown command is still a good frame */
    expect_ack(0x90, ACK_UNKNOWN_TYPE);
    CHECK(proto_host_alive());
}

static void test_set_indicators(void)
{
    start();
    uint8_t d[12] = {10, 20, 30, 0x00, 1, 2, 3, 0x01, 4, 5, 6, 0x12};
    command(CMD_SET_INDICATORS, d, 12);
    expect_ack(CMD_SET_INDICATORS, ACK_DONE);
    const pixel_t *px = proto_pixels();
    CHECK_EQ(px[0].r, 10);
    CHECK_EQ(px[0].g, 20);
    CHECK_EQ(px[0].b, 30);
    CHECK_EQ(px[2].pattern, 0x12);
    CHECK_EQ(proto_take_requests() & PROTO_REQ_PIXELS, PROTO_REQ_PIXELS);
    command(CMD_SET_INDICATORS, d, 11);
    expect_ack(CMD_SET_INDICATORS, ACK_BAD_LENGTH);
    uint8_t bad[12] = {99, 99, 99, 0x00, 99, 99, 99, 0x00, 99, 99, 99, 0x04};
    command(CMD_SET_INDICATORS, bad, 12);
    expect_ack(CMD_SET_INDICATORS, ACK_OUT_OF_RANGE);
    CHECK_EQ(px[0].r, 10); /* no effect, not even on the valid pixels */
}

static void test_set_strip(void)
{
    start();
    uint8_t d[1 + 4 * 12];
    memset(d, 7, sizeof d);
    for (int i = 0; i < 12; i++)
        d[1 + 4 * i + 3] = 0x03;
    d[0] = 5;
    command(CMD_SET_STRIP, d, 1 + 4 * 11); /* 11 pixels: hollows 5..15 */
    expect_ack(CMD_SET_STRIP, ACK_DONE);
    const pixel_t *px = proto_pixels();
    CHECK_EQ(px[PIXEL_HOLLOW0 + 4].r, 0);
    CHECK_EQ(px[PIXEL_HOLLOW0 + 5].r, 7);
    CHECK_EQ(px[PIXEL_HOLLOW0 + 15].r, 7);
    d[0] = 6;
    command(CMD_SET_STRIP, d, 1 + 4 * 11); /* 6 + 11 passes 16 */
    expect_ack(CMD_SET_STRIP, ACK_OUT_OF_RANGE);
    d[0] = 16;
    command(CMD_SET_STRIP, d, 5);
    expect_ack(CMD_SET_STRIP, ACK_OUT_OF_RANGE);
    d[0] = 15;
    command(CMD_SET_STRIP, d, 5);
    expect_ack(CMD_SET_STRIP, ACK_DONE);
    command(CMD_SET_STRIP, d, 1); /* no pixel */
    expect_ack(CMD_SET_STRIP, ACK_BAD_LENGTH);
    command(CMD_SET_STRIP, d, 6); /* not whole pixels */
    expect_ack(CMD_SET_STRIP, ACK_BAD_LENGTH);
    command(CMD_SET_STRIP, d, 0);
    expect_ack(CMD_SET_STRIP, ACK_BAD_LENGTH);
    d[0] = 0;
    d[4] = 0x05; /* mode 5 */
    command(CMD_SET_STRIP, d, 5);
    expect_ack(CMD_SET_STRIP, ACK_OUT_OF_RANGE);
    CHECK_EQ(px[PIXEL_HOLLOW0].r, 0);
}

static void test_set_slots(void)
{
    start();
    uint8_t d[1 + 2 * 17] = {3, 0x05, 0x00, 0x00, 0x00, 0x03, 0x80};
    command(CMD_SET_SLOTS, d, 7);
    expect_ack(CMD_SET_SLOTS, ACK_DONE);
    const slots_t *slots = proto_slots();
    CHECK_EQ(slots->count, 3);
    CHECK_EQ(slots->mask[0], 0x0005);
    CHECK_EQ(slots->mask[2], 0x8003);
    CHECK_EQ(proto_take_requests() & PROTO_REQ_PIXELS, PROTO_REQ_PIXELS);
    command(CMD_SET_SLOTS, d, 6); /* 3 slots need 7 bytes */
    expect_ack(CMD_SET_SLOTS, ACK_BAD_LENGTH);
    command(CMD_SET_SLOTS, d, 0);
    expect_ack(CMD_SET_SLOTS, ACK_BAD_LENGTH);
    d[0] = 17;
    command(CMD_SET_SLOTS, d, 35);
    expect_ack(CMD_SET_SLOTS, ACK_OUT_OF_RANGE);
    CHECK_EQ(slots->count, 3); /* a refused command changes nothing */
    d[0] = 0;
    command(CMD_SET_SLOTS, d, 1); /* no cycle */
    expect_ack(CMD_SET_SLOTS, ACK_DONE);
    CHECK_EQ(slots->count, 0);
}

static void test_unknown_types(void)
{
    start();
    command(0x87, 0, 0);
    expect_ack(0x87, ACK_UNKNOWN_TYPE);
    command(MSG_HELLO, 0, 0); /* a controller type from the host */
    expect_ack(MSG_HELLO, ACK_UNKNOWN_TYPE);
    CHECK_EQ(out.n, 1);
}

int main(void)
{
    RUN(test_hello);
    RUN(test_heartbeat_and_snapshot);
    RUN(test_host_alive_timeout);
    RUN(test_set_indicators);
    RUN(test_set_strip);
    RUN(test_set_slots);
    RUN(test_unknown_types);
    DONE();
    return 0;
}
