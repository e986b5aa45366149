/* SPDX-License-Identifier: MIT */
#ifndef USDTWL_H
#define USDTWL_H

/* Fires usdtwl:guarded(i, -i) if the semaphore is set; 1 if it fired. */
int usdtwl_guarded(long i);
/* The semaphore's address (the test reads it from /proc/PID/mem). */
volatile unsigned short *usdtwl_semaphore(void);

#endif
