// SPDX-License-Identifier: MIT
/*
 * pystack_procs.c - CPython processes for the BPF reader (see
 * pystack_procs.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files_cancel.h"
#include "grow_array.h"
#include "idtab.h"
#include "pystack_procs.h"

/* (a shared build's libpython is mapped some ms after its exec: every
 * 20 ms of missed samples lose the Python frames of 20 ms of samples) */
#define RETRY_NS 20000000ull
#define MAX_TRIES 100

struct proc_state {
	uint64_t last_ns;
	uint8_t tries;
	bool done; /* CPython found (supported or not), or none can come */
};

struct ftfb_pyprocs {
	ftfb_py_set_fn set;
	void *set_ctx;
	struct ftfb_idtab index; /* tgid -> 1 + its slot */
	struct proc_state *st;
	size_t cap, n;
	uint64_t warned; /* bit minor: that version was named */
};

int ftfb_pyprocs_new(struct ftfb_pyprocs **out, ftfb_py_set_fn set,
		     void *set_ctx)
{
	struct ftfb_pyprocs *d = calloc(1, sizeof(*d));

	*out = d;
	if (!d)
		return -ENOMEM;
	d->set = set;
	d->set_ctx = set_ctx;
	return 0;
}

static struct proc_state *state_of(struct ftfb_pyprocs *d, uint32_t tgid)
{
	uint32_t slot = ftfb_idtab_get(&d->index, tgid);

	if (slot)
		return &d->st[slot - 1];
	if (ftfb_grow_array((void **)&d->st, &d->cap, d->n + 1,
			    sizeof(*d->st)) ||
	    ftfb_idtab_put(&d->index, tgid, (uint32_t)d->n + 1))
		return NULL;
	return &d->st[d->n++];
}

static void warn_unsupported(struct ftfb_pyprocs *d, int minor)
{
	char known[128];

	if (minor < 0 || minor > 63 || (d->warned & (1ull << minor)))
		return;
	d->warned |= 1ull << minor;
	ftfb_py_versions(known, sizeof(known));
	fprintf(stderr,
		"ftf-bpf: python 3.%d: Python frames not supported, native "
		"frames only (this build knows CPython %s)\n",
		minor, known[0] ? known : "none");
}

void ftfb_pyprocs_seen(struct ftfb_pyprocs *d, uint32_t tgid, uint64_t now_ns)
{
	struct proc_state *s = state_of(d, tgid);
	struct ftfb_py_proc p;
	int minor;

	if (!s || s->done || s->tries >= MAX_TRIES ||
	    (s->tries && now_ns - s->last_ns < RETRY_NS))
		return;
	if (ftfb_files_cancelled()) { /* (past the stop's bound) */
		ftfb_files_note_skipped();
		return;
	}
	s->tries++;
	s->last_ns = now_ns;
	switch (ftfb_py_find(tgid, &p, &minor)) {
	case FTFB_PY_SUPPORTED:
		s->done = true;
		d->set(d->set_ctx, tgid, &p); /* (a full map: native only) */
		break;
	case FTFB_PY_UNSUPPORTED:
		s->done = true;
		warn_unsupported(d, minor);
		break;
	case FTFB_PY_NOT_PYTHON: /* looked at again after an exec only */
		s->done = true;
		break;
	case FTFB_PY_NOT_YET:
		break;
	}
}

void ftfb_pyprocs_forget(struct ftfb_pyprocs *d, uint32_t tgid)
{
	uint32_t slot = ftfb_idtab_get(&d->index, tgid);

	if (!slot)
		return;
	if (d->st[slot - 1].done)
		d->set(d->set_ctx, tgid, NULL); /* (-ENOENT if none: fine) */
	d->st[slot - 1] = (struct proc_state){0};
}

void ftfb_pyprocs_event(struct ftfb_pyprocs *d, const void *data, size_t size,
			uint64_t now_ns)
{
	struct ftfb_hdr h;
	struct ftfb_exit x;

	if (size < sizeof(h))
		return;
	memcpy(&h, data, sizeof(h));
	if (h.kind == FTFB_EV_STACK_ON || h.kind == FTFB_EV_STACK_OFF) {
		ftfb_pyprocs_seen(d, h.tgid, now_ns);
	} else if (h.kind == FTFB_EV_EXEC) {
		ftfb_pyprocs_forget(d, h.tgid);
	} else if (h.kind == FTFB_EV_EXIT && size >= sizeof(x)) {
		memcpy(&x, data, sizeof(x));
		if (x.group_dead)
			ftfb_pyprocs_forget(d, h.tgid);
	}
}

void ftfb_pyprocs_free(struct ftfb_pyprocs *d)
{
	if (!d)
		return;
	ftfb_idtab_free(&d->index);
	free(d->st);
	free(d);
}
