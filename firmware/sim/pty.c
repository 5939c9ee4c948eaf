/* Pseudo-terminal for the simulated UART; see pty.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include "pty.h"

void fifo_put(fifo_t *f, uint8_t c)
{
	if (f->len == PTY_BUF)
		return;		/* nobody reads: drop, like a full USB buffer */
	f->data[(f->head + f->len++) % PTY_BUF] = c;
}

int fifo_get(fifo_t *f)
{
	if (!f->len)
		return -1;
	uint8_t c = f->data[f->head];
	f->head = (f->head + 1) % PTY_BUF;
	f->len--;
	return c;
}

int pty_open(pty_t *p, const char *link, char *err, size_t errlen)
{
	struct termios tio;
	memset(p, 0, sizeof *p);
	p->link = link;
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (p->master < 0 || grantpt(p->master) || unlockpt(p->master)) {
		snprintf(err, errlen, "cannot create a pseudo-terminal: %s", strerror(errno));
		return -1;
	}
	snprintf(p->slave, sizeof p->slave, "%s", ptsname(p->master));
	/* raw mode: on Linux a master's termios calls act on the slave side */
	if (tcgetattr(p->master, &tio) == 0) {
		cfmakeraw(&tio);
		cfsetspeed(&tio, B115200);
		tcsetattr(p->master, TCSANOW, &tio);
	}
	/*
	 * Open and close the slave once: from then on the master reports POLLHUP
	 * while no host has the port open, which is how we know to drop output
	 * (a fresh pty would queue it and hand stale bytes to the first host).
	 */
	int fd = open(p->slave, O_RDWR | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", p->slave, strerror(errno));
		return -1;
	}
	close(fd);
	if (link) {
		char tmp[4096];
		snprintf(tmp, sizeof tmp, "%s.tmp%d", link, (int)getpid());
		unlink(tmp);
		/* a new link replaces a stale one in one step: no moment without it */
		if (symlink(p->slave, tmp) || rename(tmp, link)) {
			snprintf(err, errlen, "cannot link %s to %s: %s", link, p->slave, strerror(errno));
			unlink(tmp);
			return -1;
		}
	}
	return 0;
}

short pty_state(const pty_t *p)
{
	struct pollfd m = { .fd = p->master, .events = POLLIN };
	poll(&m, 1, 0);
	return m.revents;
}

void pty_io(pty_t *p, short revents)
{
	uint8_t b[512];

	if (revents & POLLHUP) {
		p->tx.len = 0;	/* no host: the bytes fall on the floor */
		return;		/* and reading would only give EIO */
	}
	while (p->tx.len) {
		size_t n = p->tx.len, end = PTY_BUF - p->tx.head;
		if (n > end)
			n = end;
		ssize_t w = write(p->master, p->tx.data + p->tx.head, n);
		if (w <= 0)
			break;	/* EAGAIN: the host is slow, keep it for later */
		p->tx.head = (p->tx.head + w) % PTY_BUF;
		p->tx.len -= w;
	}
	if (!(revents & POLLIN))
		return;
	while (p->rx.len < PTY_BUF) {
		size_t room = PTY_BUF - p->rx.len;
		ssize_t n = read(p->master, b, room < sizeof b ? room : sizeof b);
		if (n <= 0)
			break;	/* EAGAIN, or EIO when the host just closed the port */
		for (ssize_t i = 0; i < n; i++)
			fifo_put(&p->rx, b[i]);
	}
}

void pty_unlink(const pty_t *p)
{
	char target[sizeof p->slave];
	if (!p->link)
		return;
	ssize_t n = readlink(p->link, target, sizeof target - 1);
	if (n > 0) {
		target[n] = 0;
		if (!strcmp(target, p->slave))
			unlink(p->link);
	}
}
