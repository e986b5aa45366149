/* SPDX-License-Identifier: MIT */
/*
 * translate_priv.h - the translator's helpers shared by its parts
 * (translate.c, translate_usdt.c); not for other users.
 */
#ifndef FTFB_TRANSLATE_PRIV_H
#define FTFB_TRANSLATE_PRIV_H

#include "translate.h"

/* mono ns -> the trace's ticks */
uint64_t ftfb_tr_ticks(struct ftfb_translator *t, uint64_t ns);
/* string id of s (permanent, or a temporary slot once ids run out:
 * *temp then true) */
int ftfb_tr_str_id(struct ftfb_translator *t, const char *s, size_t len,
		   bool *temp);
/* the task, created (and named) on first sight */
int ftfb_tr_ensure_task(struct ftfb_translator *t, uint32_t tid,
			uint32_t tgid_hint, struct ftfb_task **out);
/* its thread ref, a slot assigned if needed */
int ftfb_tr_thread_ref(struct ftfb_translator *t, struct ftfb_task *k);

/* a string id kept in *cache once interned for good (a temporary one is
 * returned, not kept); 0 in *cache: not yet */
int ftfb_tr_cached_id(struct ftfb_translator *t, int *cache, const char *s);
/* a task of no process of Linux (a disk, a cpu's interrupts), named
 * `name`, created (process and thread records) on first use; pseudo ids
 * are above any pid (pid_max is at most 2^22) */
#define FTFB_PSEUDO_IRQ_PID 0x7b000000u  /* + 1 + cpu: its threads */
#define FTFB_PSEUDO_MAX_CPUS 4096
#define FTFB_PSEUDO_DISK_PID 0x7c000000u /* + major:minor in 22 bits */
#define FTFB_PSEUDO_LANE_TID 0x7d000000u /* + n: block I/O lanes */
int ftfb_tr_pseudo_task(struct ftfb_translator *t, uint32_t tid,
			uint32_t tgid, const char *name,
			struct ftfb_task **out);

/* translate_blockio.c, translate_irq.c, translate_mem.c: the --events
 * handlers, of one raw event (at least its kind's size) each */
int ftfb_tr_ev_block_io(struct ftfb_translator *t, const void *data,
			size_t size);
int ftfb_tr_ev_irq(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_rss(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_fault(struct ftfb_translator *t, const void *data,
		     size_t size);

/* translate_usdt.c */
int ftfb_tr_usdt_init(struct ftfb_translator *t);
void ftfb_tr_usdt_free(struct ftfb_translator *t);
int ftfb_tr_usdt(struct ftfb_translator *t, const struct ftfb_usdt *e);
/* ends k's open USDT slices at ns, marked unfinished */
/* k's uprobe call depth fell: its open slices begun deeper cross the call
 * that returned */
void ftfb_tr_usdt_call_ended(struct ftfb_translator *t, struct ftfb_task *k);
int ftfb_tr_usdt_close(struct ftfb_translator *t, struct ftfb_task *k,
		       uint64_t ns);

#endif
