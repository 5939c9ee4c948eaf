/*
 * The host end of the simulated UART: a pseudo-terminal in raw mode, with
 * byte queues both ways and an optional symlink to its slave side. Like a
 * USB-serial adapter: bytes for a host that has no port open are dropped.
 */
#ifndef PTY_H
#define PTY_H

#include <stddef.h>
#include <stdint.h>

#define PTY_BUF 4096

typedef struct { uint8_t data[PTY_BUF]; size_t head, len; } fifo_t;

typedef struct pty {
	int master;
	char slave[64];		/* /dev/pts/N */
	const char *link;	/* symlink to the slave, or NULL */
	fifo_t rx, tx;		/* host -> firmware, firmware -> host */
} pty_t;

/* Create the pty and the link; on failure returns -1 with a message in err. */
int pty_open(pty_t *p, const char *link, char *err, size_t errlen);
/* poll() flags of the master now; POLLHUP means no host has the port open. */
short pty_state(const pty_t *p);
/* Move bytes between the queues and the master, given its poll() flags. */
void pty_io(pty_t *p, short revents);
/* Remove the link if it still points to our pty (a newer harness may own it). */
void pty_unlink(const pty_t *p);

void fifo_put(fifo_t *f, uint8_t c);
int fifo_get(fifo_t *f);	/* -1 when empty */

#endif
