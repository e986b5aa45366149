// SPDX-License-Identifier: MIT
/*
 * mapped_log.c - the executable mappings each process made (see
 * mapped_log.h).
 */
#include <pthread.h>
#include <string.h>

#include "mapped_log.h"

struct logged {
	struct ftfb_uw_vma v;
	uint64_t at_ns;
};

struct slot {
	uint32_t tgid;	  /* 0: free */
	uint32_t n;	  /* mappings put, ever: the latest at (n - 1) % PER */
	uint64_t exec_ns; /* its image's exec (0: not seen) */
	struct logged m[FTFB_MAPPED_PER_PROC];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot slots[FTFB_MAPPED_SLOTS];
static bool watching;
static uint64_t drained_ns;

static struct slot *slot_of(uint32_t tgid)
{
	return &slots[(tgid * 0x9e3779b1u) >> 20 & (FTFB_MAPPED_SLOTS - 1)];
}

/* tgid's slot, taken from whoever had it; under the lock. */
static struct slot *own_slot(uint32_t tgid)
{
	struct slot *s = slot_of(tgid);

	if (s->tgid != tgid) {
		s->tgid = tgid;
		s->n = 0;
		s->exec_ns = 0;
	}
	return s;
}

void ftfb_mapped_exec(uint32_t tgid, uint64_t at_ns)
{
	struct slot *s;

	pthread_mutex_lock(&lock);
	s = own_slot(tgid);
	if (at_ns > s->exec_ns) {
		uint32_t kept = 0, n = s->n < FTFB_MAPPED_PER_PROC
					       ? s->n
					       : FTFB_MAPPED_PER_PROC;

		/* (the CPUs' records come apart: a mapping of the new
		 * image may have been put first) */
		for (uint32_t i = 0; i < n; i++)
			if (s->m[i].at_ns >= at_ns)
				s->m[kept++] = s->m[i];
		s->n = kept;
		s->exec_ns = at_ns;
	}
	pthread_mutex_unlock(&lock);
}

uint64_t ftfb_mapped_exec_ns(uint32_t tgid)
{
	const struct slot *s = slot_of(tgid);
	uint64_t ns;

	pthread_mutex_lock(&lock);
	ns = s->tgid == tgid ? s->exec_ns : 0;
	pthread_mutex_unlock(&lock);
	return ns;
}

/* Whether s holds v as it is (the same file, offset and place); under
 * the lock. */
static bool logged_already(const struct slot *s, const struct ftfb_uw_vma *v)
{
	uint32_t kept =
		s->n < FTFB_MAPPED_PER_PROC ? s->n : FTFB_MAPPED_PER_PROC;

	for (uint32_t i = 0; i < kept; i++)
		if (!memcmp(&s->m[i].v, v, sizeof(*v)))
			return true;
	return false;
}

void ftfb_mapped_put(uint32_t tgid, const struct ftfb_uw_vma *v, uint64_t at_ns)
{
	struct slot *s;

	pthread_mutex_lock(&lock);
	s = own_slot(tgid);
	if (at_ns >= s->exec_ns && !logged_already(s, v))
		s->m[s->n++ % FTFB_MAPPED_PER_PROC] =
			(struct logged){*v, at_ns};
	pthread_mutex_unlock(&lock);
}

size_t ftfb_mapped_list(uint32_t tgid, uint64_t at_ns, struct ftfb_uw_vma *out,
			size_t max)
{
	const struct slot *s = slot_of(tgid);
	size_t got = 0;

	pthread_mutex_lock(&lock);
	if (s->tgid == tgid) {
		/* (the ring from its latest back: the order they were put,
		 * which is each CPU's time order) */
		uint32_t kept = s->n < FTFB_MAPPED_PER_PROC
					? s->n
					: FTFB_MAPPED_PER_PROC;

		for (uint32_t i = 0; i < kept && got < max; i++) {
			const struct logged *l =
				&s->m[(s->n - 1 - i) % FTFB_MAPPED_PER_PROC];

			if (l->at_ns <= at_ns)
				out[got++] = l->v;
		}
	}
	pthread_mutex_unlock(&lock);
	return got;
}

void ftfb_mapped_watching(bool on)
{
	pthread_mutex_lock(&lock);
	watching = on;
	drained_ns = 0;
	pthread_mutex_unlock(&lock);
}

void ftfb_mapped_drained(uint64_t until_ns)
{
	pthread_mutex_lock(&lock);
	if (until_ns > drained_ns)
		drained_ns = until_ns;
	pthread_mutex_unlock(&lock);
}

uint64_t ftfb_mapped_until(void)
{
	uint64_t ns;

	pthread_mutex_lock(&lock);
	ns = watching ? drained_ns : UINT64_MAX;
	pthread_mutex_unlock(&lock);
	return ns;
}

void ftfb_mapped_clear(void)
{
	pthread_mutex_lock(&lock);
	memset(slots, 0, sizeof(slots));
	watching = false;
	drained_ns = 0;
	pthread_mutex_unlock(&lock);
}
