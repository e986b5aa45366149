// SPDX-License-Identifier: MIT
/*
 * bench/replay_gen.c - the synthetic stream of bench-replay (replay_gen.h).
 *
 * Each event picks a cpu at random; what runs there does something:
 * switches out (to a task not running anywhere, or the idle task), wakes
 * a task, enters or leaves a system call, enters or returns from a probed
 * function. Per thread the stream is as the kernel would send it: calls
 * nest and return in order, a system call exits on the thread that
 * entered it, a task runs on one cpu at a time, times only grow.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay_gen.h"

#define MAX_DEPTH 8
#define SP_TOP 0x7ffd00001000ull

struct task_state {
	int16_t cpu; /* running there, -1: not running */
	uint8_t depth;
	uint8_t in_sys;
	uint32_t sys_nr;
	uint32_t cookie[MAX_DEPTH];
};

/* One raw event being built. */
union raw_ev {
	struct ftfb_hdr h;
	struct ftfb_switch sw;
	struct ftfb_wakeup wk;
	struct ftfb_senter se;
	struct ftfb_sexit sx;
	struct ftfb_uentry ue;
	struct ftfb_uret ur;
};

/* A cpu's buffer of call events (bpf/ubuf.h): the calls and system
 * calls of the thread running there reach the ring together, at its
 * switch out or when the buffer is full, as the loader splits them. */
#define PENDING_MAX 64
struct cpu_state {
	int cur; /* task index running, -1: idle */
	unsigned npending;
	union raw_ev pending[PENDING_MAX];
};

struct gen {
	const struct replay_params *p;
	struct replay_stream *s;
	struct task_state *ts;
	struct cpu_state *cs;
	uint64_t rng, now;
};

/* xorshift64*: deterministic, cheap */
static uint32_t rnd(struct gen *g, uint32_t n)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return (uint32_t)((g->rng * 0x2545F4914F6CDD1Dull) >> 32) % n;
}

uint32_t replay_tid(const struct replay_params *p, unsigned i)
{
	(void)p;
	return 1000 + i;
}

uint32_t replay_tgid(const struct replay_params *p, unsigned i)
{
	return replay_tid(p, i % p->procs);
}

/* A new event of `kind` now on cpu by task (-1: idle), zeroed. */
static void make(struct gen *g, union raw_ev *e, uint16_t kind, unsigned cpu,
		 int task)
{
	memset(e, 0, sizeof(*e));
	g->now += g->p->ns_per_event;
	e->h.ts = g->now;
	e->h.kind = kind;
	e->h.cpu = (uint16_t)cpu;
	e->h.tid = task < 0 ? 0 : replay_tid(g->p, (unsigned)task);
	e->h.tgid = task < 0 ? 0 : replay_tgid(g->p, (unsigned)task);
}

static size_t size_of(uint16_t kind)
{
	switch (kind) {
	case FTFB_EV_SWITCH: return sizeof(struct ftfb_switch);
	case FTFB_EV_WAKEUP: return sizeof(struct ftfb_wakeup);
	case FTFB_EV_SENTER: return sizeof(struct ftfb_senter);
	case FTFB_EV_SEXIT: return sizeof(struct ftfb_sexit);
	case FTFB_EV_UENTRY: return sizeof(struct ftfb_uentry);
	default: return sizeof(struct ftfb_uret);
	}
}

/* Appends e to the stream (the ring as the consumer reads it). */
static void emit(struct gen *g, const union raw_ev *e)
{
	struct replay_stream *s = g->s;
	size_t size = size_of(e->h.kind), sz = (size + 7) & ~(size_t)7;

	if (s->used + sz > s->alloc || s->n >= s->cap)
		return;
	memcpy(s->bytes + s->used, e, size);
	s->ev[s->n].off = (uint32_t)s->used;
	s->ev[s->n].size = (uint16_t)size;
	s->ev[s->n].cpu = e->h.cpu;
	s->n++;
	s->used += sz;
	s->by_kind[e->h.kind]++;
}

static void flush_cpu(struct gen *g, unsigned cpu)
{
	struct cpu_state *c = &g->cs[cpu];

	for (unsigned i = 0; i < c->npending; i++)
		emit(g, &c->pending[i]);
	c->npending = 0;
}

/* Room for a call event in cpu's buffer (flushed first if full). */
static union raw_ev *pending(struct gen *g, unsigned cpu)
{
	struct cpu_state *c = &g->cs[cpu];

	if (c->npending == PENDING_MAX)
		flush_cpu(g, cpu);
	return &c->pending[c->npending++];
}

/* A task not running anywhere (or -1, idle, if the draws all miss). */
static int pick_idle_task(struct gen *g)
{
	for (int tries = 0; tries < 8; tries++) {
		int t = (int)rnd(g, g->p->tasks);

		if (g->ts[t].cpu < 0)
			return t;
	}
	return -1;
}

static void gen_switch(struct gen *g, unsigned cpu)
{
	int prev = g->cs[cpu].cur;
	int next = rnd(g, 10) ? pick_idle_task(g) : -1;
	union raw_ev e;

	if (next == prev)
		return;
	flush_cpu(g, cpu); /* prev's calls go before its switch */
	make(g, &e, FTFB_EV_SWITCH, cpu, prev);
	e.sw.next_tid = next < 0 ? 0 : replay_tid(g->p, (unsigned)next);
	e.sw.next_tgid = next < 0 ? 0 : replay_tgid(g->p, (unsigned)next);
	/* blocked in a system call, else preempted */
	e.sw.prev_state = prev >= 0 && g->ts[prev].in_sys
				  ? FTFB_TASK_INTERRUPTIBLE
				  : FTFB_PREEMPTED;
	e.sw.prev_prio = prev < 0 ? 120 : (int16_t)(100 + prev % 40);
	e.sw.next_prio = next < 0 ? 120 : (int16_t)(100 + next % 40);
	emit(g, &e);
	if (prev >= 0)
		g->ts[prev].cpu = -1;
	if (next >= 0)
		g->ts[next].cpu = (int16_t)cpu;
	g->cs[cpu].cur = next;
}

static void gen_wakeup(struct gen *g, unsigned cpu)
{
	unsigned target = rnd(g, g->p->tasks);
	union raw_ev e;

	make(g, &e, FTFB_EV_WAKEUP, cpu, g->cs[cpu].cur);
	e.wk.target_tid = replay_tid(g->p, target);
	e.wk.target_tgid = replay_tgid(g->p, target);
	e.wk.target_prio = 120;
	emit(g, &e);
}

static const uint32_t sys_nrs[] = {0, 1, 202, 232, 110, 7, 281, 3};

static void gen_syscall(struct gen *g, unsigned cpu, int task)
{
	struct task_state *t = &g->ts[task];
	union raw_ev *e = pending(g, cpu);

	if (t->in_sys) {
		make(g, e, FTFB_EV_SEXIT, cpu, task);
		e->sx.nr = t->sys_nr;
		e->sx.ret = (int64_t)rnd(g, 4096) - 8; /* now and then an errno */
		t->in_sys = 0;
	} else {
		make(g, e, FTFB_EV_SENTER, cpu, task);
		t->sys_nr = sys_nrs[rnd(g, sizeof(sys_nrs) / sizeof(sys_nrs[0]))];
		e->se.nr = t->sys_nr;
		t->in_sys = 1;
	}
}

static void gen_uprobe(struct gen *g, unsigned cpu, int task)
{
	struct task_state *t = &g->ts[task];
	union raw_ev *e = pending(g, cpu);

	if (t->depth && (t->depth == MAX_DEPTH || rnd(g, 2))) {
		make(g, e, FTFB_EV_URET, cpu, task);
		t->depth--;
		e->ur.cookie = t->cookie[t->depth];
		e->ur.ret = t->depth;
		e->ur.sp = SP_TOP - 64ull * t->depth + 8;
		return;
	}
	make(g, e, FTFB_EV_UENTRY, cpu, task);
	e->ue.cookie = rnd(g, g->p->funcs);
	e->ue.nargs = 2;
	e->ue.args[0] = (uint64_t)task;
	e->ue.args[1] = g->now;
	e->ue.sp = SP_TOP - 64ull * t->depth;
	t->cookie[t->depth++] = e->ue.cookie;
}

static void gen_one(struct gen *g)
{
	const struct replay_params *p = g->p;
	unsigned cpu = rnd(g, p->cpus), r = rnd(g, 100);
	int task = g->cs[cpu].cur;

	if (r < p->pct_switch)
		gen_switch(g, cpu);
	else if (r < p->pct_switch + p->pct_wakeup)
		gen_wakeup(g, cpu);
	else if (task < 0) /* the idle task makes no calls */
		gen_switch(g, cpu);
	else if (r < p->pct_switch + p->pct_wakeup + p->pct_syscall ||
		 g->ts[task].in_sys) /* no user code inside a system call */
		gen_syscall(g, cpu, task);
	else
		gen_uprobe(g, cpu, task);
}

int replay_generate(struct replay_stream *s, const struct replay_params *p)
{
	struct gen g = {.p = p, .s = s, .rng = p->seed | 1, .now = 1000000000};

	memset(s, 0, sizeof(*s));
	/* the buffers' last events come on top of p->events */
	s->cap = p->events + (size_t)p->cpus * PENDING_MAX;
	s->alloc = s->cap * sizeof(struct ftfb_uentry);
	s->bytes = aligned_alloc(64, (s->alloc + 63) & ~(size_t)63);
	s->ev = calloc(s->cap, sizeof(*s->ev));
	g.ts = calloc(p->tasks, sizeof(*g.ts));
	g.cs = calloc(p->cpus, sizeof(*g.cs));
	if (!s->bytes || !s->ev || !g.ts || !g.cs) {
		free(g.ts);
		free(g.cs);
		replay_free(s);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < p->tasks; i++)
		g.ts[i].cpu = -1;
	for (unsigned c = 0; c < p->cpus; c++)
		g.cs[c].cur = -1;
	while (s->n < p->events)
		gen_one(&g);
	for (unsigned c = 0; c < p->cpus; c++)
		flush_cpu(&g, c);
	free(g.ts);
	free(g.cs);
	return 0;
}

void replay_free(struct replay_stream *s)
{
	free(s->bytes);
	free(s->ev);
	memset(s, 0, sizeof(*s));
}
