/* The 1 ms tick (Timer0, CTC) and uptime. */
#ifndef CLOCK_H
#define CLOCK_H

#include <stdint.h>

void clock_init(void);
uint32_t clock_ms(void); /* milliseconds since start, wraps after 49 days */

#endif
