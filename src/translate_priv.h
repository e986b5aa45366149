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
