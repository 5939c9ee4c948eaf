/*
 * arbiter-sim: runs the unmodified board controller firmware (an AVR ELF) in
 * simavr, paced to wall-clock time, with
 *   - UART0 on a pseudo-terminal (optionally reachable through a symlink),
 *   - the 7x7 reed/button matrix driven from commands on stdin,
 *   - the WS2812B strip on PB0 decoded and checked (see ws2812.c),
 *   - the status LED on PB5 reported.
 * Protocol of stdin/stdout: see README.md. Single-threaded on purpose: the
 * simulation runs in short batches and stdin/pty are polled in between, so a
 * run is deterministic for a given input timing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_irq.h"
#include "sim_io.h"
#include "sim_regbit.h"
#include "sim_cycle_timers.h"
#include "avr_ioport.h"
#include "avr_uart.h"
#include "pty.h"
#include "ws2812.h"

#define NSW 49
#define BATCH_US 500			/* simulated time per batch: bounds the pty latency */
#define BEHIND_MS 100			/* lag beyond which we give up catching up */
#define BOUNCE_PERIOD_US 300
#define BOUNCE_LEN_US 5000

enum { PB, PC, PD, NPORT };
static const char PORT_NAME[NPORT] = { 'B', 'C', 'D' };
typedef struct { int port, bit; } pin_t;
static const pin_t ROW[7] = { {PD, 2}, {PD, 3}, {PD, 4}, {PD, 5}, {PD, 6}, {PD, 7}, {PB, 1} };
static const pin_t COL[7] = { {PC, 0}, {PC, 1}, {PC, 2}, {PC, 3}, {PC, 4}, {PC, 5}, {PB, 2} };
/* port bits that matter to the matrix: rows (direction, level) and columns (pull-up) */
static const uint8_t MATRIX_BITS[NPORT] = { 0x06, 0x3f, 0xfc };

static struct {
	avr_t *avr;
	uint32_t freq;
	/* matrix */
	int closed[NSW];
	uint64_t bounce_end[NSW], bounce_next[NSW];	/* 0: not bouncing */
	int bounce_final[NSW];
	uint8_t port[NPORT], ddr[NPORT];	/* mirror of PORTx / DDRx */
	int ext_set[NPORT];		/* external pin state last given to simavr, -1: none */
	avr_irq_t *pin_irq[NPORT][8];
	/* strip and LED */
	ws2812_t ws;
	uint8_t frame[WS2812_MAX_PIXELS * 3];
	int frame_n;		/* -1: no frame latched yet */
	/* UART <-> pty */
	pty_t pty;
	avr_irq_t *uart_in;
	int xoff;
	uint64_t byte_cycles, next_feed;
	/* stdin */
	char line[256];
	size_t line_len;
	int line_no, line_too_long;
	int quit;
	/* pacing */
	struct timespec wall0;
	uint64_t cycle0;
	int warned_behind;
} S;

static volatile sig_atomic_t got_signal;

/* ---------------------------------------------------------------- output */

__attribute__((format(printf, 1, 2)))
static void emit(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* simulated seconds with 6 decimals, without going through a double */
static const char *tstr(uint64_t cycle)
{
	static char b[2][32];
	static int i;
	i ^= 1;
	snprintf(b[i], sizeof b[i], "%llu.%06llu", (unsigned long long)(cycle / S.freq),
		(unsigned long long)((cycle % S.freq) * 1000000ULL / S.freq));
	return b[i];
}

/* simavr logs through this: keep its messages off stdout, which is ours */
static void logger(avr_t *avr, const int level, const char *fmt, va_list ap)
{
	if (!avr || avr->log >= level)
		vfprintf(stderr, fmt, ap);
}

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("arbiter-sim: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* ---------------------------------------------------------------- matrix */

static int pin_of(int port, int bit, const uint8_t *reg)
{
	return (reg[port] >> bit) & 1;
}

/*
 * Drive every column from the selected rows and the switches. A row is
 * selected when it is an output driven low; a column reads low iff a selected
 * row has a closed switch in it (the diodes stop ghosting), otherwise it reads
 * its pull-up (an input without pull-up floats; we read it as 0 so that a
 * missing pull-up shows up as "everything closed" instead of passing).
 */
static void matrix_update(void)
{
	uint8_t rows = 0, mask[NPORT] = { 0 }, value[NPORT] = { 0 };

	for (int r = 0; r < 7; r++) {
		if (pin_of(ROW[r].port, ROW[r].bit, S.ddr) && !pin_of(ROW[r].port, ROW[r].bit, S.port))
			rows |= 1 << r;
		/*
		 * A released (Hi-Z) row reads high. Besides, simavr 1.6 polls the
		 * INT0/INT1 pins (PD2/PD3, rows 0 and 1) on every cycle while they
		 * read low, and a pin left at low when made an input stays low.
		 */
		mask[ROW[r].port] |= 1 << ROW[r].bit;
		value[ROW[r].port] |= 1 << ROW[r].bit;
	}
	for (int c = 0; c < 7; c++) {
		int low = 0, p = COL[c].port, b = COL[c].bit;
		for (int r = 0; r < 7; r++)
			if ((rows >> r & 1) && S.closed[r * 7 + c])
				low = 1;
		int level = low ? 0 : pin_of(p, b, S.port);
		mask[p] |= 1 << b;
		value[p] |= level << b;
	}
	for (int p = 0; p < NPORT; p++) {
		if (!mask[p])
			continue;
		/*
		 * The port re-raises every input pin's pull-up on each PORTx write
		 * (the WS2812B code writes PORTB a lot); the "external" state makes
		 * it raise our level instead, so a closed column stays low.
		 */
		if (S.ext_set[p] != (mask[p] << 8 | value[p])) {	/* ioctls are slow */
			S.ext_set[p] = mask[p] << 8 | value[p];
			avr_ioport_external_t ext = { .name = PORT_NAME[p], .mask = mask[p], .value = value[p] };
			avr_ioctl(S.avr, AVR_IOCTL_IOPORT_SET_EXTERNAL(PORT_NAME[p]), &ext);
		}
		for (int c = 0; c < 7; c++)
			if (COL[c].port == p && !(S.ddr[p] >> COL[c].bit & 1))
				avr_raise_irq(S.pin_irq[p][COL[c].bit], value[p] >> COL[c].bit & 1);
	}
}

static void on_port_write(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	int p = (int)(intptr_t)param;
	uint8_t old = S.port[p];
	S.port[p] = value;
	if ((old ^ value) & MATRIX_BITS[p])
		matrix_update();
}

/* raised before DDRx is written, hence the mirror */
static void on_ddr_write(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	int p = (int)(intptr_t)param;
	uint8_t old = S.ddr[p];
	S.ddr[p] = value;
	if ((old ^ value) & MATRIX_BITS[p])
		matrix_update();
}

static void set_switch(int n, int closed)
{
	if (S.closed[n] != closed) {
		S.closed[n] = closed;
		matrix_update();
	}
}

/* ---------------------------------------------------------------- strip and LED */

static void on_ws_error(void *ctx, uint64_t cycle, const char *what)
{
	(void)ctx;
	emit("ws2812-error t=%s %s", tstr(cycle), what);
}

static void print_frame(const char *word, uint64_t cycle)
{
	char line[32 + WS2812_MAX_PIXELS * 7];
	int n = snprintf(line, sizeof line, "%s t=%s n=%d", word, tstr(cycle), S.frame_n < 0 ? 0 : S.frame_n);
	for (int i = 0; i < S.frame_n; i++)
		n += snprintf(line + n, sizeof line - n, " %02x%02x%02x",
			S.frame[3 * i], S.frame[3 * i + 1], S.frame[3 * i + 2]);
	emit("%s", line);
}

static void on_ws_frame(void *ctx, uint64_t cycle, const uint8_t *rgb, int n)
{
	(void)ctx;
	if (n == S.frame_n && !memcmp(rgb, S.frame, 3 * n))
		return;
	S.frame_n = n;
	memcpy(S.frame, rgb, 3 * n);
	print_frame("strip", cycle);
}

static void on_pb0(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq, (void)param;
	ws2812_edge(&S.ws, S.avr->cycle, value & 1);
}

static void on_pb5(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq, (void)param;
	emit("pin t=%s name=PB5 value=%u", tstr(S.avr->cycle), value & 1);
}

/* ---------------------------------------------------------------- UART <-> pty */

static void on_uart_out(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq, (void)param;
	fifo_put(&S.pty.tx, value);
}

static void on_xoff(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq, (void)param;
	S.xoff = value & 1;
}

static void on_xon(avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq, (void)param;
	if (value)
		S.xoff = 0;
}

/* Hand the firmware one byte from the host if the line and its FIFO allow. */
static void uart_feed(void)
{
	uint64_t now = S.avr->cycle;
	if (!S.pty.rx.len || S.xoff || now < S.next_feed)
		return;
	S.next_feed = now + S.byte_cycles;
	avr_raise_irq(S.uart_in, fifo_get(&S.pty.rx));
}

/* ---------------------------------------------------------------- reset */

static void (*core_reset)(avr_t *avr);

/*
 * Runs on every MCU reset (ours and simavr's watchdog), after the I/O
 * registers were cleared. simavr leaves the pin IRQs at their old values, so
 * a pin written to its pre-reset value would not be noticed: bring them back
 * in line with the cleared registers.
 */
static void on_core_reset(avr_t *avr)
{
	if (core_reset)
		core_reset(avr);
	int led = S.pin_irq[PB][5]->value & 1;
	for (int p = 0; p < NPORT; p++) {
		for (int b = 0; b < 8; b++)
			S.pin_irq[p][b]->value = 0;
		avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(PORT_NAME[p]), IOPORT_IRQ_REG_PORT)->value = 0;
		avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(PORT_NAME[p]), IOPORT_IRQ_DIRECTION_ALL)->value = 0;
		S.port[p] = S.ddr[p] = 0;
	}
	if (led)
		emit("pin t=%s name=PB5 value=0", tstr(avr->cycle));
	ws2812_abort(&S.ws, avr->cycle);
	S.xoff = 0;
	matrix_update();
}

static void external_reset(void)
{
	avr_reset(S.avr);
	/* this simavr's avr_reset() clears MCUSR; the reset pin sets EXTRF */
	if (S.avr->reset_flags.extrf.reg)
		avr_regbit_set(S.avr, S.avr->reset_flags.extrf);
	else
		S.avr->data[0x54] |= 1 << 1;	/* MCUSR of the ATmega328P */
	emit("reset t=%s", tstr(S.avr->cycle));
}

/* ---------------------------------------------------------------- commands */

static int parse_switch(const char *s, int *n)
{
	char *end;
	if (!s || !*s)
		return -1;
	long v = strtol(s, &end, 10);
	if (*end || v < 0 || v >= NSW)
		return -1;
	*n = (int)v;
	return 0;
}

static void command(char *line)
{
	char *argv[4];
	int argc = 0, n;
	uint64_t now = S.avr->cycle;

	for (char *tok = strtok(line, " \t\r"); tok && argc < 4; tok = strtok(NULL, " \t\r"))
		argv[argc++] = tok;
	if (!argc)
		return;		/* empty lines are harmless */
	const char *cmd = argv[0], *arg = argc > 1 ? argv[1] : NULL;
	int want = (!strcmp(cmd, "close") || !strcmp(cmd, "open") || !strcmp(cmd, "bounce")
		|| !strcmp(cmd, "bounce-open") || !strcmp(cmd, "set")) ? 2 : 1;

	if (strcmp(cmd, "close") && strcmp(cmd, "open") && strcmp(cmd, "bounce")
		&& strcmp(cmd, "bounce-open") && strcmp(cmd, "set") && strcmp(cmd, "reset")
		&& strcmp(cmd, "time") && strcmp(cmd, "strip") && strcmp(cmd, "quit")) {
		emit("error line %d: unknown command '%s'", S.line_no, cmd);
	} else if (argc != want) {
		emit("error line %d: %s takes %s", S.line_no, cmd,
			want == 2 ? (strcmp(cmd, "set") ? "one switch number 0-48" : "one 13-digit hex bitmap")
				: "no argument");
	} else if (!strcmp(cmd, "set")) {
		uint64_t bits = 0;
		size_t len = strlen(arg);
		char *end;
		if (len < 1 || len > 13 || (bits = strtoull(arg, &end, 16), *end) || bits >> NSW) {
			emit("error line %d: set needs up to 13 hex digits with bits 0-48 only, got '%s'",
				S.line_no, arg);
			return;
		}
		for (int i = 0; i < NSW; i++) {
			S.closed[i] = bits >> i & 1;
			S.bounce_end[i] = 0;
		}
		matrix_update();
	} else if (want == 2) {
		if (parse_switch(arg, &n)) {
			emit("error line %d: switch must be 0-48, got '%s'", S.line_no, arg);
			return;
		}
		S.bounce_end[n] = 0;
		if (!strcmp(cmd, "close") || !strcmp(cmd, "open")) {
			set_switch(n, cmd[0] == 'c');
		} else {
			/* chatter from now on, the first toggle right away */
			S.bounce_final[n] = !strcmp(cmd, "bounce");
			S.bounce_next[n] = now;
			S.bounce_end[n] = now + (uint64_t)S.freq / 1000000 * BOUNCE_LEN_US;
		}
	} else if (!strcmp(cmd, "reset")) {
		external_reset();
	} else if (!strcmp(cmd, "time")) {
		emit("time t=%s", tstr(now));
	} else if (!strcmp(cmd, "strip")) {
		print_frame("strip", now);
	} else {
		S.quit = 1;
	}
}

static void read_stdin(void)
{
	char b[512];
	ssize_t n = read(0, b, sizeof b);
	if (n == 0) {
		S.quit = 1;	/* our parent went away */
		return;
	}
	for (ssize_t i = 0; i < n && !S.quit; i++) {
		if (b[i] != '\n') {
			if (S.line_len < sizeof S.line - 1)
				S.line[S.line_len++] = b[i];
			else
				S.line_too_long = 1;
			continue;
		}
		S.line_no++;
		S.line[S.line_len] = 0;
		if (S.line_too_long)
			emit("error line %d: line too long", S.line_no);
		else
			command(S.line);
		S.line_len = 0;
		S.line_too_long = 0;
	}
}

/* ---------------------------------------------------------------- main loop */

static uint64_t bounce_step(void)
{
	uint64_t now = S.avr->cycle, next = UINT64_MAX;
	uint64_t period = (uint64_t)S.freq / 1000000 * BOUNCE_PERIOD_US;
	for (int i = 0; i < NSW; i++) {
		if (!S.bounce_end[i])
			continue;
		if (now >= S.bounce_end[i]) {
			S.bounce_end[i] = 0;
			set_switch(i, S.bounce_final[i]);
			continue;
		}
		if (now >= S.bounce_next[i]) {
			set_switch(i, !S.closed[i]);
			S.bounce_next[i] += period;
		}
		uint64_t t = S.bounce_next[i] < S.bounce_end[i] ? S.bounce_next[i] : S.bounce_end[i];
		if (t < next)
			next = t;
	}
	return next;
}

/* Keeps a sleeping core from jumping past our next event. */
static avr_cycle_count_t wake(avr_t *avr, avr_cycle_count_t when, void *param)
{
	(void)avr, (void)when, (void)param;
	return 0;
}

/* A sleeping core would otherwise usleep() inside avr_run(); we pace ourselves. */
static void no_sleep(avr_t *avr, avr_cycle_count_t howlong)
{
	(void)avr, (void)howlong;
}

static int64_t ahead_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t wall = (int64_t)(now.tv_sec - S.wall0.tv_sec) * 1000000000 + (now.tv_nsec - S.wall0.tv_nsec);
	int64_t sim = (int64_t)((S.avr->cycle - S.cycle0) * 1000000000.0 / S.freq);
	if (sim - wall < -(int64_t)BEHIND_MS * 1000000) {
		if (!S.warned_behind)
			fprintf(stderr, "arbiter-sim: the simulation runs slower than real time "
				"(%.0f ms behind); simulated time now lags the wall clock\n",
				(wall - sim) / 1e6);
		S.warned_behind = 1;
		/* rebase rather than run flat out later: keep the pace steady */
		S.wall0 = now;
		S.cycle0 = S.avr->cycle;
		return 0;
	}
	return sim - wall;
}

static void on_signal(int sig)
{
	(void)sig;
	got_signal = 1;
}

static void run(void)
{
	uint64_t batch = (uint64_t)S.freq / 1000000 * BATCH_US;
	clock_gettime(CLOCK_MONOTONIC, &S.wall0);
	S.cycle0 = S.avr->cycle;

	while (!S.quit && !got_signal) {
		int64_t ahead = ahead_ns();
		struct pollfd fds[2] = { { .fd = 0, .events = POLLIN }, { .fd = S.pty.master, .events = POLLIN } };
		struct timespec to = { 0, 0 };
		if (ahead > 0)
			to = (struct timespec){ ahead / 1000000000, ahead % 1000000000 };
		/* without a host the master is always "hung up": do not wait on it then */
		short master = pty_state(&S.pty);
		if (master & POLLHUP)
			fds[1].fd = -1;
		if (ppoll(fds, 2, &to, NULL) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		if (fds[0].revents & (POLLIN | POLLHUP))
			read_stdin();
		pty_io(&S.pty, master | fds[1].revents);
		if (ahead > 0 || S.quit)
			continue;	/* woken early by input, or still ahead: no simulation yet */

		uint64_t end = S.avr->cycle + batch;
		while (S.avr->cycle < end) {
			uint64_t next = bounce_step();
			if (S.pty.rx.len && !S.xoff && S.next_feed < next)
				next = S.next_feed > S.avr->cycle ? S.next_feed : S.avr->cycle;
			if (next > end)
				next = end;
			avr_cycle_timer_register(S.avr, next > S.avr->cycle ? next - S.avr->cycle : 1, wake, NULL);
			while (S.avr->cycle < next) {
				int state = avr_run(S.avr);
				if (state == cpu_Done || state == cpu_Crashed) {
					emit("crashed t=%s state=%s", tstr(S.avr->cycle),
						state == cpu_Done ? "done" : "crashed");
					exit(3);
				}
			}
			uart_feed();
		}
		avr_cycle_timer_cancel(S.avr, wake, NULL);
		ws2812_poll(&S.ws, S.avr->cycle);
		pty_io(&S.pty, pty_state(&S.pty) & POLLHUP);	/* this batch's output, now */
	}
}

/* ---------------------------------------------------------------- setup */

static void usage(void)
{
	fprintf(stderr, "usage: arbiter-sim FIRMWARE.elf [--link PATH] [--mcu NAME] [--freq HZ]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *elf = NULL, *mcu = "atmega328p", *link = NULL;
	uint32_t freq = 16000000;
	elf_firmware_t fw;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--link") && i + 1 < argc)
			link = argv[++i];
		else if (!strcmp(argv[i], "--mcu") && i + 1 < argc)
			mcu = argv[++i];
		else if (!strcmp(argv[i], "--freq") && i + 1 < argc)
			freq = strtoul(argv[++i], NULL, 0);
		else if (argv[i][0] == '-' || elf)
			usage();
		else
			elf = argv[i];
	}
	if (!elf || !freq)
		usage();
	avr_global_logger_set(logger);
	if (access(elf, R_OK))
		die("cannot read firmware %s: %s", elf, strerror(errno));
	memset(&fw, 0, sizeof fw);
	if (elf_read_firmware(elf, &fw))
		die("cannot load firmware %s (not an AVR ELF?)", elf);
	/* the ELF's own .mmcu section wins; the options fill in what it lacks */
	if (!fw.mmcu[0])
		snprintf(fw.mmcu, sizeof fw.mmcu, "%s", mcu);
	if (!fw.frequency)
		fw.frequency = freq;
	S.avr = avr_make_mcu_by_name(fw.mmcu);
	if (!S.avr)
		die("unknown MCU %s", fw.mmcu);
	avr_init(S.avr);
	avr_load_firmware(S.avr, &fw);
	S.freq = S.avr->frequency = fw.frequency;
	S.avr->sleep = no_sleep;
	S.frame_n = -1;
	for (int p = 0; p < NPORT; p++)
		S.ext_set[p] = -1;

	/* simavr's UART prints lines to the console and usleep()s on polling: not here */
	uint32_t flags = 0;
	avr_ioctl(S.avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
	S.uart_in = avr_io_getirq(S.avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
	avr_irq_register_notify(avr_io_getirq(S.avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), on_uart_out, NULL);
	avr_irq_register_notify(avr_io_getirq(S.avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF), on_xoff, NULL);
	avr_irq_register_notify(avr_io_getirq(S.avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON), on_xon, NULL);
	/* one byte = 10 bit times at 115200 baud (8N1), whatever simavr thinks */
	S.byte_cycles = ((uint64_t)S.freq * 10 + 115199) / 115200;

	for (int p = 0; p < NPORT; p++) {
		uint32_t ctl = AVR_IOCTL_IOPORT_GETIRQ(PORT_NAME[p]);
		for (int b = 0; b < 8; b++)
			S.pin_irq[p][b] = avr_io_getirq(S.avr, ctl, IOPORT_IRQ_PIN0 + b);
		avr_irq_register_notify(avr_io_getirq(S.avr, ctl, IOPORT_IRQ_REG_PORT), on_port_write, (void *)(intptr_t)p);
		avr_irq_register_notify(avr_io_getirq(S.avr, ctl, IOPORT_IRQ_DIRECTION_ALL), on_ddr_write, (void *)(intptr_t)p);
	}
	ws2812_init(&S.ws, S.freq);
	S.ws.on_error = on_ws_error;
	S.ws.on_frame = on_ws_frame;
	avr_irq_register_notify(S.pin_irq[PB][0], on_pb0, NULL);
	avr_irq_register_notify(S.pin_irq[PB][5], on_pb5, NULL);
	core_reset = S.avr->reset;
	S.avr->reset = on_core_reset;
	matrix_update();

	char err[256];
	if (pty_open(&S.pty, link, err, sizeof err))
		die("%s", err);
	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	emit("ready pty=%s link=%s", S.pty.slave, link ? link : "-");

	run();
	pty_unlink(&S.pty);
	return 0;
}
