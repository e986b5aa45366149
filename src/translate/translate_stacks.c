// SPDX-License-Identifier: MIT
/*
 * translate_stacks.c - stack samples (--stacks, -g) and Python code objects
 * to the stack profile (stackprof.h).
 */
#include <string.h>

#include "translate_priv.h"
#include "stackprof.h"

/* A stack sample (--stacks) to the Perfetto packets; without --stacks
 * (a replayed stream) it is skipped. */
static int on_stack(struct ftfb_translator *t, const void *data, size_t size)
{
	struct ftfb_stack e;
	struct ftfb_stack_sample s;
	const uint64_t *ips = (const void *)((const char *)data + sizeof(e));
	struct ftfb_task *k;
	int err;

	memcpy(&e, data, sizeof(e));
	if (!t->o.stacks)
		return 0;
	/* (the BPF side sends at most FTFB_STACK_MAX_DEPTH frames a kind;
	 * anything else is not a stack event of ours) */
	if (!ftfb_stack_event_ok(&e, size, ips)) {
		t->st.skipped++;
		return 0;
	}
	/* a thread first seen here is named as any other */
	if (e.hdr.tid &&
	    (err = ftfb_tr_ensure_task(t, e.hdr.tid, e.hdr.tgid, &k)))
		return err;
	memset(&s, 0, sizeof(s));
	s.kind = e.hdr.kind == FTFB_EV_STACK_OFF     ? FTFB_STACK_OFF_CPU
		 : e.hdr.kind == FTFB_EV_STACK_WAKER ? FTFB_STACK_WAKER
						     : FTFB_STACK_ON_CPU;
	s.ts_ns = ftfb_tr_perfetto_ns(t, e.hdr.ts);
	s.cpu = e.hdr.cpu;
	s.tid = e.hdr.tid;
	s.tgid = e.hdr.tgid;
	s.weight = e.weight;
	s.uhash = e.uhash;
	s.khash = e.khash;
	s.nu = e.nu;
	s.nk = e.nk;
	s.uips = e.nu ? ips : NULL;
	s.kips = e.nk ? ips + e.nu : NULL;
	s.phash = e.py.hash;
	s.np = e.py.n;
	s.pips = e.py.n ? ips + e.nu + e.nk : NULL;
	return ftfb_stackprof_sample(t->o.stacks, &s);
}

int ftfb_tr_ev_stack(struct ftfb_translator *t, const void *data, size_t size)
{
	return on_stack(t, data, size);
}

/* -g: a Python code object's strings, kept for the Python frames */
int ftfb_tr_ev_pycode(struct ftfb_translator *t, const void *data, size_t size)
{
	struct ftfb_pycode e;

	(void)size;
	memcpy(&e, data, sizeof(e));
	return t->o.stacks ? ftfb_stackprof_pycode(t->o.stacks, &e) : 0;
}
