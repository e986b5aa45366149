// SPDX-License-Identifier: MIT
/*
 * stack_finish.c - samples held with a copy of their user stack until
 * their table is loaded (see stack_finish.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "copy_walk.h"
#include "maps_memo.h"
#include "stack_finish.h"
#include "uw_file.h"

/* A copy record, its parts checked against its size. */
struct view {
	struct ftfb_stack_copy c;
	const uint64_t *ips; /* user (the stop frame last), kernel, Python */
	const uint8_t *bytes;
};

/* A process that exited while copies of it waited for a table still
 * being built: its entry and its mappings, shared by those copies, and
 * its exit event, handed on after the last of them (the translator
 * names a process's samples before its end, whose maps it then drops). */
struct ended_img {
	unsigned refs;
	bool named;	  /* its mappings given to the memo */
	uint64_t seen_ns; /* the settle that last looked for its tables */
	struct ftfb_uw_proc p;
	struct ftfb_uw_vmas v;
	uint64_t ended_ns; /* the exit's time */
	struct ftfb_exit end;
};

/* A copy held, in arrival order. */
struct held {
	struct held *next;
	uint64_t due;
	uint32_t tgid;
	struct ended_img *img; /* NULL: its process's entry, live */
	size_t size;
	unsigned char data[];
};

struct ftfb_sf {
	struct ftfb_sf_source src;
	uint64_t deadline_ns, max_bytes, bytes;
	ftfb_sf_emit_fn emit;
	void *emit_ctx;
	struct held *head, **tail;
	struct ftfb_uw_proc proc; /* the entry last read (tick's scratch) */
	struct ftfb_uw_proc patched; /* an entry with a mapping it lacked */
	struct ftfb_uw_vmas vmas; /* the mappings of the image settled */
	uint32_t ended_image;	  /* of the exec or exit being settled */
	uint64_t ended_ns;	  /* and its time (the event's) */
	struct ended_img *kept;	  /* the exit's, when its copies wait on */
	bool may_wait;		  /* (at an exit, not an exec) */
	struct ftfb_sf_stats st;
};

static bool parse(const void *data, size_t size, struct view *v)
{
	size_t n;

	if (size < sizeof(v->c))
		return false;
	memcpy(&v->c, data, sizeof(v->c));
	if (v->c.ev.hdr.kind != FTFB_EV_STACK_COPY || v->c.ev.nu < 1 ||
	    v->c.ev.nu > FTFB_STACK_MAX_DEPTH ||
	    v->c.ev.nk > FTFB_STACK_MAX_DEPTH ||
	    v->c.ev.py.n > FTFB_PY_MAX_DEPTH || v->c.nbytes > FTFB_SC_MAX_BYTES)
		return false;
	n = (size_t)v->c.ev.nu + v->c.ev.nk + v->c.ev.py.n;
	if (size != sizeof(v->c) + n * 8 + v->c.nbytes)
		return false;
	v->ips = (const void *)((const char *)data + sizeof(v->c));
	v->bytes = (const uint8_t *)data + sizeof(v->c) + n * 8;
	return true;
}

/* the BPF walker's hash of a user stack (uw_hash_step, seeded by tgid) */
static uint64_t user_hash(const uint64_t *ips, uint32_t n, uint32_t tgid)
{
	uint64_t h = 0xcbf29ce484222325ull ^ tgid;

	for (uint32_t i = 0; i < n; i++) {
		h = (h ^ ips[i]) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

/* The user ips of v, finished over its copy with the tables of p (NULL:
 * as they were), into u (FTFB_STACK_MAX_DEPTH); returns how many. */
static uint32_t user_ips(const struct view *v, const struct ftfb_sf_source *src,
			 const struct ftfb_uw_proc *p, uint64_t *u,
			 uint32_t *why)
{
	uint32_t n = v->c.ev.nu - 1, max = FTFB_STACK_MAX_DEPTH - 1;
	struct ftfb_cw_tables t = {
		.proc = p,
		.rows = src ? src->rows : NULL,
		.nrows = src ? src->nrows : 0,
		.table = src ? src->table : NULL,
		.ctx = src ? src->ctx : NULL,
	};
	struct ftfb_cw_start s = {
		.pc = v->c.pc,
		.sp = v->c.sp,
		.bp = v->c.bp,
		.bp_known = v->c.flags & FTFB_SC_BP_KNOWN,
		.retaddr = v->c.flags & FTFB_SC_RETADDR,
		.bytes = v->bytes,
		.nbytes = v->c.nbytes,
	};

	memcpy(u, v->ips, (size_t)v->c.ev.nu * 8);
	*why = FTFB_UW_NOT_LOADED;
	if (!p || !src || !n || n > max)
		return v->c.ev.nu; /* (the stop frame kept) */
	n += ftfb_cw_walk(&t, &s, u + n, max - n, why);
	if (*why != FTFB_UW_COMPLETE)
		u[n++] = FTFB_UW_STOP_IP(*why);
	return n;
}

size_t ftfb_sf_build(const void *data, size_t size,
		     const struct ftfb_sf_source *src,
		     const struct ftfb_uw_proc *p, void *out, uint32_t *why)
{
	uint64_t u[FTFB_STACK_MAX_DEPTH];
	struct ftfb_stack ev;
	struct view v;
	uint32_t nu, nrest;
	char *o = out;

	if (!parse(data, size, &v))
		return 0;
	nu = user_ips(&v, src, p, u, why);
	nrest = (uint32_t)v.c.ev.nk + v.c.ev.py.n;
	ev = v.c.ev;
	ev.hdr.kind = FTFB_EV_STACK_ON;
	ev.nu = (uint16_t)nu;
	ev.uhash = user_hash(u, nu, ev.hdr.tgid);
	memcpy(o, &ev, sizeof(ev));
	memcpy(o + sizeof(ev), u, (size_t)nu * 8);
	memcpy(o + sizeof(ev) + (size_t)nu * 8, v.ips + v.c.ev.nu,
	       (size_t)nrest * 8);
	return sizeof(ev) + ((size_t)nu + nrest) * 8;
}

/* Whether p has the table of the binary v's walk stopped in: p is the
 * image the copy was taken in (the mapping the walker saw, if it had
 * the entry), and that mapping is no longer pending. An address still
 * in no mapping once p is read for the last time, or once the copy is
 * due, is walked on as the walker would have (by frame pointer, else
 * "address in no mapping"). */
static bool ready(const struct view *v, const struct ftfb_uw_proc *p, bool due)
{
	const struct ftfb_uw_map *m = ftfb_cw_find_map(p, v->c.pc);

	if (!m)
		return !v->c.map_start &&
		       (due || p->flags & FTFB_UW_PROC_FINAL);
	if (m->table == FTFB_UW_TABLE_PENDING)
		return false;
	return !v->c.map_start ||
	       (m->start == v->c.map_start && m->end == v->c.map_end);
}

/* Where a mapping of [start, end) goes in p (sorted): its index, or -1
 * when it overlaps one of p's (p has it, or a later mapping there) or p
 * is full. */
static int place_of(const struct ftfb_uw_proc *p, uint64_t start, uint64_t end)
{
	uint32_t lo = 0, n = p->n < FTFB_UW_MAX_MAPS ? p->n : FTFB_UW_MAX_MAPS,
		 hi = n;

	while (lo < hi) { /* the first mapping starting at or above start */
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->m[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return n < FTFB_UW_MAX_MAPS && (!lo || p->m[lo - 1].end <= start) &&
			       (lo == n || end <= p->m[lo].start)
		       ? (int)lo
		       : -1;
}

/* A mapping the kernel recorded, as the walker's entry has it: its
 * table the file's once built, "being built" until then. */
static struct ftfb_uw_map map_of_vma(const struct ftfb_sf *f,
				     const struct ftfb_uw_vma *vma)
{
	struct ftfb_uw_map m = {.start = vma->start,
				.end = vma->end,
				.table = FTFB_UW_TABLE_PENDING};
	struct ftfb_uw_file file;

	if (f->src.file && !f->src.file(f->src.ctx, vma->dev, vma->ino, &file))
		m.table =
			ftfb_uw_file_bias(&file, vma->start, vma->pgoff, &m.bias)
				? file.table
				: FTFB_UW_TABLE_NONE;
	return m;
}

/* Whether the kernel's record of the mappings made up to v's sample is
 * all in the log (it is taken every few ms): a library mapped and
 * unmapped just before (ar's plugin, within a millisecond, and ar gone
 * the next) is in no read of the process's maps and in no list of them
 * at its end. */
static bool logged(const struct ftfb_sf *f, const struct view *v)
{
	return !f->src.mapped_until ||
	       f->src.mapped_until(f->src.ctx) >= v->c.ev.hdr.ts;
}

/* The most mappings of a process's log looked at (mapped_log.h keeps 64) */
#define MAPPED_MAX 64

/* p, or, when the kernel recorded v's process mapping files p lacks
 * before v's sample (a library dlopen'd, and maybe dlclose'd, since p
 * was read, or before it was: mapped_log.h), a copy of p with those
 * mappings (f->patched): the walk over the copy goes through them, not
 * by a frame-pointer guess past an address in no mapping. */
static const struct ftfb_uw_proc *with_mapped(struct ftfb_sf *f, uint32_t tgid,
					      const struct view *v,
					      const struct ftfb_uw_proc *p)
{
	struct ftfb_uw_vma got[MAPPED_MAX];
	const struct ftfb_uw_proc *cur = p;
	size_t n;

	if (!f->src.mapped)
		return p;
	n = f->src.mapped(f->src.ctx, tgid, v->c.ev.hdr.ts, got, MAPPED_MAX);
	for (size_t i = 0; i < n; i++) { /* (the latest first) */
		int at = place_of(cur, got[i].start, got[i].end);
		struct ftfb_uw_proc *q = &f->patched;

		if (at < 0)
			continue;
		if (cur == p) {
			*q = *p;
			q->n = p->n < FTFB_UW_MAX_MAPS ? p->n : FTFB_UW_MAX_MAPS;
			cur = q;
		}
		memmove(&q->m[at + 1], &q->m[at],
			(q->n - (uint32_t)at) * sizeof(q->m[0]));
		q->m[at] = map_of_vma(f, &got[i]);
		q->n++;
	}
	return cur;
}

/* Lets go of a copy's share of img (NULL: none); the last hands on its
 * exit event (emit: 0 at the free, which hands nothing on). */
static int drop_img(struct ftfb_sf *f, struct ended_img *img, bool emit)
{
	int err = 0;

	if (img && !--img->refs) {
		if (emit)
			err = f->emit(f->emit_ctx, &img->end, sizeof(img->end));
		f->bytes -= sizeof(*img);
		free(img);
	}
	return err;
}

/* Hands on h's sample as built in out (n bytes; why: how its user
 * stack ends, walked: finished over the copy); frees h. */
static int hand_on(struct ftfb_sf *f, struct held *h, const void *out, size_t n,
		   uint32_t why, bool walked)
{
	int err = 0;

	/* (what its process's read lacked, for the names: once) */
	if (h->img && !h->img->named) {
		ftfb_maps_memo_put_vmas(h->tgid, &h->img->v, h->img->ended_ns);
		h->img->named = true;
	}
	if (!walked)
		f->st.as_is++;
	else if (why == FTFB_UW_COMPLETE)
		f->st.finished++;
	else
		f->st.resumed++;
	if (n)
		err = f->emit(f->emit_ctx, out, n);
	f->bytes -= h->size;
	err = drop_img(f, h->img, true) ?: err;
	free(h);
	return err;
}

int ftfb_sf_new(struct ftfb_sf **out, const struct ftfb_sf_source *src,
		uint64_t deadline_ns, uint64_t max_bytes, ftfb_sf_emit_fn emit,
		void *emit_ctx)
{
	struct ftfb_sf *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->src = *src;
	f->deadline_ns = deadline_ns;
	f->max_bytes = max_bytes;
	f->emit = emit;
	f->emit_ctx = emit_ctx;
	f->tail = &f->head;
	*out = f;
	return 0;
}

/* How settle gets a process's entry into f->proc: 0 or -ENOENT. */
typedef int (*entry_fn)(struct ftfb_sf *f, uint32_t tgid);

/* The entry the process has now. */
static int live_entry(struct ftfb_sf *f, uint32_t tgid)
{
	return f->src.proc(f->src.ctx, tgid, &f->proc);
}

/* The entry of the image whose exec or exit is being settled
 * (f->ended_image), taken out; its mappings then, if the walker listed
 * them, given to the symbolizer's memo: the samples finished with them
 * are named with them. */
static int ended_entry(struct ftfb_sf *f, uint32_t tgid)
{
	int err;

	f->vmas.n = 0;
	err = f->src.exited ? f->src.exited(f->src.ctx, tgid, f->ended_image,
					    &f->proc, &f->vmas)
			    : -ENOENT;
	if (f->vmas.n)
		ftfb_maps_memo_put_vmas(tgid, &f->vmas, f->ended_ns);
	return err;
}

/* The tables img's entry waited for, found by its mappings' files once
 * built (as bpf/uw_refresh.bpf.h finds them). */
static void resolve_img(struct ftfb_sf *f, struct ended_img *img)
{
	uint32_t n = img->p.n < FTFB_UW_MAX_MAPS ? img->p.n : FTFB_UW_MAX_MAPS;
	uint32_t nv = img->v.n < FTFB_UW_VMAS_MAX ? img->v.n : FTFB_UW_VMAS_MAX;
	struct ftfb_uw_file file;
	__u64 bias;

	for (uint32_t i = 0; i < n && f->src.file; i++) {
		struct ftfb_uw_map *m = &img->p.m[i];

		for (uint32_t j = 0; j < nv && m->table == FTFB_UW_TABLE_PENDING;
		     j++) {
			const struct ftfb_uw_vma *v = &img->v.v[j];

			if (v->start != m->start ||
			    f->src.file(f->src.ctx, v->dev, v->ino, &file) ||
			    !ftfb_uw_file_bias(&file, m->start, v->pgoff,
					       &bias))
				continue;
			m->table = file.table;
			m->bias = bias;
		}
	}
}

/* A share of the image being settled (*img: made on first use, from
 * f->proc and f->vmas), for a copy that waits on past its end; NULL
 * when its mappings were not listed or there is no room. */
static struct ended_img *share_img(struct ftfb_sf *f, struct ended_img **img)
{
	if (!*img) {
		if (!f->may_wait || !f->vmas.n ||
		    f->bytes + sizeof(**img) > f->max_bytes ||
		    !(*img = malloc(sizeof(**img))))
			return NULL;
		(*img)->refs = 0;
		(*img)->named = false;
		(*img)->seen_ns = UINT64_MAX; /* (never: a flush is at 0) */
		(*img)->p = f->proc;
		(*img)->v = f->vmas;
		(*img)->ended_ns = f->ended_ns;
		f->bytes += sizeof(**img);
	}
	(*img)->refs++;
	return *img;
}

/* Goes through the copies held: those of tgid (0: all) whose walk
 * goes on past every binary "not loaded yet" are finished, those due by
 * now (or all, with force) go on as far as they can. The entry of a
 * process is read (by `entry`) once per run of its copies.
 * ending: the process exec'd or exited (what is not walked is "gone");
 * at an exit (f->kept set to NULL first), copies still waiting for a
 * table wait on, sharing f->kept. */
static int settle(struct ftfb_sf *f, uint32_t tgid, uint64_t now, bool force,
		  entry_fn entry, bool ending)
{
	uint64_t out[FTFB_SF_OUT_MAX / 8 + 1];
	struct held **at = &f->head, *h;
	uint32_t have = 0, why; /* the tgid f->proc holds (0: none) */
	int err = 0;

	while ((h = *at)) {
		const struct ftfb_uw_proc *p = &f->proc;
		struct view v;
		bool got, ok;
		size_t n;

		/* (a copy of an image ended before waits for its tables,
		 * not for this event of a later image of its process) */
		if ((tgid && h->tgid != tgid) || (h->img && ending)) {
			at = &h->next;
			continue;
		}
		if (h->img && h->img->seen_ns != now) {
			/* (once a settle for all its copies; its maps kept for
			 * the names: beside a build the memo's entries go to
			 * newer processes within seconds) */
			h->img->seen_ns = now;
			ftfb_maps_memo_touch(h->tgid);
			resolve_img(f, h->img);
		}
		if (h->img) {
			p = &h->img->p;
			ok = true;
		} else {
			if (have != h->tgid)
				have = entry(f, h->tgid) ? 0 : h->tgid;
			ok = have == h->tgid;
		}
		got = ok && parse(h->data, h->size, &v) &&
		      (now >= h->due || (force && !ending) || /* (the stop) */
		       logged(f, &v)) &&
		      ready(&v, p = with_mapped(f, h->tgid, &v, p),
			    force || now >= h->due);
		n = ftfb_sf_build(h->data, h->size, &f->src, got ? p : NULL,
				  out, &why);
		if (why == FTFB_UW_NOT_LOADED && now < h->due &&
		    (!force || (ending && ok && share_img(f, &f->kept)))) {
			if (force) /* (its image ended: its entry kept) */
				h->img = f->kept;
			at = &h->next; /* (a binary further on: built soon) */
			continue;
		}
		*at = h->next;
		if (f->tail == &h->next)
			f->tail = at;
		f->st.gone += ending && !got;
		err = hand_on(f, h, out, n, why, got) ?: err;
	}
	return err;
}

/* A copy record: held (or handed on as it is, when there is no room). */
static int take(struct ftfb_sf *f, const void *data, size_t size, uint64_t now)
{
	struct held *h;
	struct view v;

	f->st.copies++;
	if (!parse(data, size, &v)) {
		f->st.bad++;
		return 1;
	}
	h = f->bytes + size <= f->max_bytes ? malloc(sizeof(*h) + size) : NULL;
	if (!h) {
		uint64_t out[FTFB_SF_OUT_MAX / 8 + 1];
		uint32_t why;
		size_t n = ftfb_sf_build(data, size, NULL, NULL, out, &why);

		f->st.no_room++;
		f->st.as_is++;
		return n ? f->emit(f->emit_ctx, out, n) ?: 1 : 1;
	}
	h->next = NULL;
	h->img = NULL;
	h->due = now + f->deadline_ns;
	h->tgid = v.c.ev.hdr.tgid;
	h->size = size;
	memcpy(h->data, data, size);
	f->bytes += size;
	*f->tail = h;
	f->tail = &h->next;
	return 1;
}

/* A process's end: its copies finished from the entry it ended with,
 * or, those waiting for a table still being built, kept with it; then
 * 1 if the exit event waits with them (handed on after the last), 0 if
 * the caller hands it on now; < 0 an emit's error. */
static int settle_exit(struct ftfb_sf *f, const struct ftfb_exit *x,
		       uint64_t now_ns)
{
	int err;

	f->ended_image = x->image;
	f->ended_ns = x->hdr.ts;
	f->kept = NULL;
	f->may_wait = true;
	err = settle(f, x->hdr.tgid, now_ns, true, ended_entry, true);
	f->may_wait = false;
	if (!f->kept)
		return err;
	f->kept->end = *x;
	f->kept = NULL;
	return err < 0 ? err : 1;
}

int ftfb_sf_event(struct ftfb_sf *f, const void *data, size_t size,
		  uint64_t now_ns)
{
	struct ftfb_comm_ev ex;
	struct ftfb_hdr hdr;
	struct ftfb_exit x;
	int err;

	if (size < sizeof(hdr))
		return 0;
	memcpy(&hdr, data, sizeof(hdr));
	if (hdr.kind == FTFB_EV_STACK_COPY) {
		err = take(f, data, size, now_ns);
		return err < 0 ? err : 1;
	}
	if (!f->head || !hdr.tgid)
		return 0;
	/* a new image, or the end: the copies are finished from the entry
	 * the image ended with (uw_exited), as far as the tables built by
	 * now go, and handed on before the event */
	if (hdr.kind == FTFB_EV_EXEC && size >= sizeof(ex)) {
		memcpy(&ex, data, sizeof(ex));
		f->ended_image = ex.image;
		f->ended_ns = hdr.ts;
		/* (none waits on: the new image's samples come next, and
		 * would be named before the exec) */
		f->may_wait = false;
		return settle(f, hdr.tgid, now_ns, true, ended_entry, true);
	}
	if (hdr.kind == FTFB_EV_EXIT && size >= sizeof(x)) {
		memcpy(&x, data, sizeof(x));
		if (x.group_dead)
			return settle_exit(f, &x, now_ns);
	}
	return 0;
}

int ftfb_sf_tick(struct ftfb_sf *f, uint64_t now_ns)
{
	return f->head ? settle(f, 0, now_ns, false, live_entry, false) : 0;
}

int ftfb_sf_flush(struct ftfb_sf *f)
{
	return f->head ? settle(f, 0, 0, true, live_entry, false) : 0;
}

void ftfb_sf_get_stats(const struct ftfb_sf *f, struct ftfb_sf_stats *st)
{
	*st = f->st;
}

void ftfb_sf_free(struct ftfb_sf *f)
{
	struct held *h;

	if (!f)
		return;
	while ((h = f->head)) {
		f->head = h->next;
		drop_img(f, h->img, false);
		free(h);
	}
	free(f);
}
