// SPDX-License-Identifier: MIT
/*
 * ring_shard.c - a ring's switches and wakeups written on their own thread
 * (see ring_shard.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ring_shard.h"
#include "translate_priv.h"

/* A chunk holds about 1,400 switches: few enough hand-overs to keep the
 * relay's lock cold, small enough to stay in the caches between the shard
 * that writes it and the thread that copies it (bench-replay --rings 2:
 * 64 KiB chunks cost a shard 30 ns per switch, collecting 3.7; 256 KiB
 * ones 30 to 35 and 3.7 to 4.9) and to reach the file soon. */
#define CHUNK_BYTES (64u << 10)
#define SEEN_MIN 1024

/* ---- the writer's destination: chunks handed to the relay ---- */

static void hand_over(struct ftfb_shard_dest *d, size_t used)
{
	d->chunk->len = used;
	ftfb_relay_push(d->shard->relay, d->chunk);
	d->chunk = NULL;
	d->shard->st.chunks++;
}

static int shard_next_buf(struct ftf_destination *base, size_t used,
			 size_t need, uint8_t **buf, size_t *len)
{
	struct ftfb_shard_dest *d = (struct ftfb_shard_dest *)base;

	if (d->chunk && used)
		hand_over(d, used);
	if (d->chunk && d->chunk->cap < need) {
		free(d->chunk);
		d->chunk = NULL;
	}
	if (!d->chunk) {
		d->chunk = ftfb_relay_chunk(d->shard->relay,
					    need > CHUNK_BYTES ? need
							       : CHUNK_BYTES);
		if (!d->chunk)
			return -ENOMEM;
	}
	*buf = d->chunk->data;
	*len = d->chunk->cap;
	return 0;
}

static int shard_close(struct ftf_destination *base, size_t used)
{
	struct ftfb_shard_dest *d = (struct ftfb_shard_dest *)base;

	if (d->chunk && used && !d->discard)
		hand_over(d, used);
	free(d->chunk);
	d->chunk = NULL;
	return 0;
}

static const char *shard_errmsg(struct ftf_destination *base)
{
	(void)base;
	return "out of memory for a shard's records";
}

/* ---- the tasks a shard has seen ---- */

static size_t seen_slot(const uint32_t *tab, size_t cap, uint32_t key)
{
	size_t i = (key * 2654435761u) & (cap - 1);

	while (tab[i] && tab[i] != key)
		i = (i + 1) & (cap - 1);
	return i;
}

static int seen_grow(struct ftfb_shard *l)
{
	size_t cap = l->seen_cap ? l->seen_cap * 2 : SEEN_MIN;
	uint32_t *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < l->seen_cap; i++)
		if (l->seen[i])
			tab[seen_slot(tab, cap, l->seen[i])] = l->seen[i];
	free(l->seen);
	l->seen = tab;
	l->seen_cap = cap;
	return 0;
}

/* The translator is told of a task the first time the shard sees it (it
 * names it, from /proc or from the kernel's names, as for its own). */
static int note_task(struct ftfb_shard *l, uint32_t tid, uint32_t tgid)
{
	struct ftfb_relay_item *it;
	size_t i;

	if (2 * (l->seen_n + 1) > l->seen_cap && seen_grow(l))
		return -ENOMEM;
	i = seen_slot(l->seen, l->seen_cap, tid + 1);
	if (l->seen[i])
		return 0;
	it = ftfb_relay_item_new(FTFB_RELAY_TASK, 0);
	if (!it)
		return -ENOMEM;
	l->seen[i] = tid + 1;
	l->seen_n++;
	it->tid = tid;
	it->tgid = tgid;
	ftfb_relay_push(l->relay, it);
	return 0;
}

static int forward_event(struct ftfb_shard *l, const void *data, size_t size)
{
	struct ftfb_relay_item *it = ftfb_relay_item_new(FTFB_RELAY_EVENT, size);

	if (!it)
		return -ENOMEM;
	memcpy(it->data, data, size);
	it->len = size;
	ftfb_relay_push(l->relay, it);
	return 0;
}

/* ---- events ---- */

static int shard_switch(struct ftfb_shard *l, const struct ftfb_switch *e)
{
	struct ftfb_sched_repairs rep = ftfb_sched_repairs_of(&l->sched, e);
	int err = note_task(l, e->hdr.tid, e->hdr.tgid);

	if (!err)
		err = note_task(l, e->next_tid, e->next_tgid);
	if (!err && ftfb_sched_repairs_any(rep))
		err = note_task(l, 0, 0);
	return err ? err : ftfb_sched_switch(&l->sched, e, rep);
}

static int shard_wakeup(struct ftfb_shard *l, const struct ftfb_wakeup *e)
{
	int err = note_task(l, e->hdr.tid, e->hdr.tgid);

	if (!err)
		err = note_task(l, e->target_tid, e->target_tgid);
	return err ? err : ftfb_sched_wakeup(&l->sched, e);
}

int ftfb_shard_event(struct ftfb_shard *l, const void *data, size_t size)
{
	struct ftfb_hdr h;
	union {
		struct ftfb_switch sw;
		struct ftfb_wakeup wk;
	} e;

	l->st.events++;
	if (size < sizeof(h))
		return forward_event(l, data, size);
	memcpy(&h, data, sizeof(h));
	if (h.kind == FTFB_EV_SWITCH && size >= sizeof(e.sw)) {
		memcpy(&e.sw, data, sizeof(e.sw));
		l->st.by_kind[h.kind]++;
		return shard_switch(l, &e.sw);
	}
	if ((h.kind == FTFB_EV_WAKEUP || h.kind == FTFB_EV_WAKEUP_NEW) &&
	    size >= sizeof(e.wk)) {
		memcpy(&e.wk, data, sizeof(e.wk));
		l->st.by_kind[h.kind]++;
		return shard_wakeup(l, &e.wk);
	}
	/* task names, and whatever else: the translator's */
	return forward_event(l, data, size);
}

int ftfb_shard_flush(struct ftfb_shard *l)
{
	if (!l->open || l->w.pos == 0)
		return 0;
	return ftf_force_switch_buffers(&l->w);
}

/* ---- life ---- */

int ftfb_shard_init(struct ftfb_shard *l, struct ftfb_translator *t,
		   struct ftfb_relay *relay)
{
	struct ftf_writer_options wo = {
		.num_temp_strs = 0,
		/* the tick initialization is the translator's writer's */
		.no_refresh_buf_at_intervals = true,
		.clock = ftf_writer_clock(t->w),
	};
	int err;

	memset(l, 0, sizeof(*l));
	l->relay = relay;
	l->dest.base.next_buf = shard_next_buf;
	l->dest.base.close = shard_close;
	l->dest.base.errmsg = shard_errmsg;
	l->dest.shard = l;
	l->tk = t->tk;
	l->sched.w = &l->w;
	l->sched.tk = &l->tk;
	l->sched.s_incoming_weight = t->sched.s_incoming_weight;
	l->sched.s_outgoing_weight = t->sched.s_outgoing_weight;
	l->sched.s_waker = t->sched.s_waker;
	l->sched.records = &l->st.records;
	l->sched.repaired = &l->st.repaired;
	err = seen_grow(l);
	if (err)
		return err;
	err = ftf_writer_init_no_header(&l->w, &l->dest.base, &wo);
	if (err) {
		free(l->seen);
		l->seen = NULL;
		return err;
	}
	l->open = true;
	return 0;
}

void ftfb_shard_free(struct ftfb_shard *l)
{
	l->dest.discard = true;
	if (l->open)
		ftf_writer_close(&l->w);
	l->open = false;
	free(l->seen);
	l->seen = NULL;
}

void ftfb_shard_stats_add(struct ftfb_shard_stats *sum,
			 const struct ftfb_shard_stats *add)
{
	for (int k = 0; k < FTFB_EV_KIND_MAX; k++)
		sum->by_kind[k] += add->by_kind[k];
	sum->events += add->events;
	sum->records += add->records;
	sum->repaired += add->repaired;
	sum->chunks += add->chunks;
}

/* ---- the translator's side ---- */

static int collect_one(struct ftfb_translator *t,
		       const struct ftfb_relay_item *it)
{
	struct ftfb_task *k;

	switch (it->kind) {
	case FTFB_RELAY_RECORDS:
		return ftfb_relay_copy_records(t->w, it->data, it->len);
	case FTFB_RELAY_TASK:
		return ftfb_tr_ensure_task(t, it->tid, it->tgid, &k);
	case FTFB_RELAY_EVENT:
		return ftfb_translator_event(t, it->data, it->len);
	}
	return 0;
}

int ftfb_shard_collect(struct ftfb_relay *relay, struct ftfb_translator *t)
{
	struct ftfb_relay_item *list = ftfb_relay_take(relay);
	int err = 0;

	for (const struct ftfb_relay_item *it = list; it && !err; it = it->next)
		err = collect_one(t, it);
	ftfb_relay_done(relay, list);
	return err;
}
