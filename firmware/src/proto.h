/* The controller's side of docs/protocol.md: commands in, messages out.
 * Pure C (the UART is reached through a callback): compiled natively by the unit tests. */
#ifndef PROTO_H
#define PROTO_H

#include <stdint.h>

#include "frame.h"
#include "pixels.h"

#ifndef PROTO_API
#define PROTO_API 1 /* the Makefile's API_LEVEL (another level only to test the host) */
#endif
#define PROTO_VERSION_MAJOR 1
#define PROTO_VERSION_MINOR 0
#define PROTO_VERSION_PATCH 0
#define PROTO_HOST_TIMEOUT_MS 3000

/* Controller messages. */
#define MSG_HELLO 0x01
#define MSG_SNAPSHOT 0x02
#define MSG_CHANGE 0x03
#define MSG_HEARTBEAT 0x04
#define MSG_ACK 0x05
/* Host commands. */
#define CMD_HELLO 0x81
#define CMD_HEARTBEAT 0x82
#define CMD_SET_INDICATORS 0x83
#define CMD_SET_STRIP 0x84
#define CMD_GET_SNAPSHOT 0x85
#define CMD_SET_SLOTS 0x86
/* ACK status. */
#define ACK_DONE 0
#define ACK_BAD_LENGTH 1
#define ACK_UNKNOWN_TYPE 2
#define ACK_OUT_OF_RANGE 3

/* Sends one whole frame (or drops it whole when there is no room). */
typedef void (*proto_tx_fn)(const uint8_t *frame, uint8_t len);

/* Flags returned by proto_take_requests(). */
#define PROTO_REQ_SNAPSHOT 0x01 /* GET_SNAPSHOT was acknowledged: send a SNAPSHOT now */
#define PROTO_REQ_PIXELS 0x02   /* the host's pixels or host_alive changed: render again */

void proto_init(proto_tx_fn tx, uint8_t reset_cause);
void proto_rx_byte(uint8_t b, uint32_t now_ms);
/* Receiver timeout and host-alive timeout; call often (every loop pass). */
void proto_poll(uint32_t now_ms, uint8_t rx_idle);
uint8_t proto_take_requests(void);

uint8_t proto_host_alive(void);
const pixel_t *proto_pixels(void);
const slots_t *proto_slots(void);

void proto_send_hello(void);
void proto_send_snapshot(uint32_t now_ms, const uint8_t closed[7], uint8_t slot);
void proto_send_change(uint32_t now_ms, uint8_t sw, uint8_t closed, uint8_t slot);
void proto_send_heartbeat(uint32_t now_ms);

#endif
