/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/irq.h - the raw events of the irq source (--events=irq): its
 * kinds and structs, shared by bpf/irq.bpf.c and its translator
 * (src/translate/translate_irq.c). Kind numbers: bpf/events.h.
 */
#ifndef FTFB_IRQ_EVENTS_H
#define FTFB_IRQ_EVENTS_H

#include "events.h"

enum {
	FTFB_EV_IRQ = 19, /* struct ftfb_irq */
};

/* --events=irq: one hard interrupt handler run or one softirq run, sent
 * at its end. hdr.ts = its end, hdr.cpu its cpu, hdr.tid/tgid the task
 * it interrupted (0: the idle task). soft: 0 for a hard interrupt (nr is
 * the irq, name the handler's name, handled its return: IRQ_HANDLED 1,
 * IRQ_NONE 0), 1 for a softirq (nr the vector: HI, TIMER, NET_TX, ...). */
struct ftfb_irq {
	struct ftfb_hdr hdr;
	__u64 start_ns;
	__u32 nr;
	__u8 soft;
	__u8 handled;
	__u16 _pad;
	char name[FTFB_COMM_LEN];
};
#define FTFB_NR_SOFTIRQS 10

#endif
