// SPDX-License-Identifier: MIT
/*
 * translate_calls.c - uprobe calls (function entries and returns) -> duration
 * begin/end records on the thread's track, matched by stack pointer.
 */
#include <string.h>

#include "translate_priv.h"

/* func_ids() the first time, or while ids are temporary. */
static __attribute__((noinline)) int
func_ids_intern(struct ftfb_translator *t, uint32_t c, int *name, int *cat)
{
	const struct ftfb_func *f = &t->o.funcs[c];
	const char *fname = f->name ? f->name : "";
	const char *fcat = f->category ? f->category : "";
	bool tn, tc;

	*cat = ftfb_tr_str_id(t, fcat, strlen(fcat), &tc);
	if (*cat < 0)
		return *cat;
	*name = ftfb_tr_str_id(t, fname, strlen(fname), &tn);
	if (*name < 0)
		return *name;
	if (tn && tc && *name == *cat)
		*cat = FTF_STRING_EMPTY; /* one temp slot only: name wins */
	if (!tn && !tc && *name > 0) {
		t->func_name_id[c] = *name;
		t->func_cat_id[c] = *cat;
	}
	return 0;
}

/* The string ids of function c's name and category (interned once). */
static inline int func_ids(struct ftfb_translator *t, uint32_t c, int *name,
			   int *cat)
{
	if (t->func_name_id[c] > 0 && t->func_cat_id[c] >= 0) {
		*name = t->func_name_id[c];
		*cat = t->func_cat_id[c];
		return 0;
	}
	return func_ids_intern(t, c, name, cat);
}

/* A call's duration-end record, whole: `ret` (int64), or `unfinished`. */
static int write_call_end(struct ftfb_translator *t, int ref, int cat, int name,
			  uint64_t ns, bool has_ret, uint64_t ret)
{
	unsigned words = has_ret ? 4 : 3;
	uint8_t *r;
	int err = ftf_reserve_record(t->w, words, &r);

	if (err)
		return err;
	ftf_record_put(r, 0,
		       ftf_event_header(FTF_EVENT_DURATION_END, words, 1, ref,
					cat, name));
	ftf_record_put(r, 1, ftfb_tr_ticks(t, ns));
	if (has_ret) {
		ftf_record_put(r, 2, ftf_arg_word(FTF_ARG_INT64, 2, t->s_ret));
		ftf_record_put(r, 3, ret);
	} else {
		ftf_record_put(r, 2, arg_bool_word(t->s_unfinished, true));
		t->st.slices_closed_early++;
	}
	return 0;
}

/* A call's duration-begin record, whole: its int64 arguments, and
 * `before_window` for a call the flight recorder's window cut. */
static int write_call_begin(struct ftfb_translator *t,
			    const struct ftfb_uentry *e, unsigned nargs,
			    bool before, int ref, int cat, int name)
{
	unsigned words = 2 + 2 * nargs + before, i = 2;
	uint8_t *r;
	int err = ftf_reserve_record(t->w, words, &r);

	if (err)
		return err;
	ftf_record_put(r, 0,
		       ftf_event_header(FTF_EVENT_DURATION_BEGIN, words,
					nargs + before, ref, cat, name));
	ftf_record_put(r, 1, ftfb_tr_ticks(t, e->hdr.ts));
	for (unsigned n = 0; n < nargs; n++) {
		ftf_record_put(r, i++,
			       ftf_arg_word(FTF_ARG_INT64, 2, t->s_arg[n]));
		ftf_record_put(r, i++, e->args[n]);
	}
	if (before)
		ftf_record_put(r, i, arg_bool_word(t->s_before_window, true));
	return 0;
}

/* Ends the top frame of k at ns: with `ret` if has_ret, else marked
 * unfinished. */
int ftfb_tr_end_frame(struct ftfb_translator *t, struct ftfb_task *k,
		      uint64_t ns, bool has_ret, uint64_t ret)
{
	struct ftfb_frame *f = &k->stack[k->depth - 1];
	struct ftfb_func_stats *fs = &t->fstats[f->cookie];
	int ref, name, cat, err;

	if (ns < f->begin_ns)
		ns = f->begin_ns;
	ref = ftfb_tr_thread_ref(t, k);
	if (ref < 0)
		return ref;
	err = func_ids(t, f->cookie, &name, &cat);
	if (err)
		return err;
	err = write_call_end(t, ref, cat, name, ns, has_ret, ret);
	if (err)
		return err;
	t->st.records++;
	fs->total_ns += ns - f->begin_ns;
	k->depth--;
	return 0;
}

/*
 * Uprobe calls are matched by the user stack pointer (x86-64): an entry
 * records the sp at the function's first instruction (it points at the
 * return address), a return the sp after the return (entry sp + 8,
 * checked by tests/bpf/test_uprobe.c). The stack grows down, so:
 *   - a call at sp S means every open call entered at sp <= S (at the
 *     same depth or deeper: the stack grows down) is over:
 *     its return was skipped (longjmp, exception unwinding, a return the
 *     kernel did not hijack past its uretprobe nesting limit) or it
 *     tail-called this function. They end now, marked unfinished.
 *   - a return at sp R belongs to the call entered at R - 8: open calls
 *     entered below that end first (unfinished); the call at R - 8 ends
 *     with `ret` even if its cookie differs (sp wins, counted in
 *     stats.sp_cookie_mismatch); no call at R - 8: unmatched return.
 *   - tail call f -> g: g enters at f's sp, so f ends (unfinished) at
 *     g's entry; the kernel then reports both returns at the same sp
 *     (chained uretprobes): g's ends g, f's finds no call and is counted
 *     in stats.tail_returns (a return at the sp of the last call ended by
 *     a call at that same sp), not as unmatched.
 *   - depth cap: the calls past it are not stored; the capped region is
 *     left when its outermost call (sp overflow_sp) returns, or when a
 *     call or return comes at or above that sp.
 * Events without sp (0) and frames without sp keep the cookie matching:
 * a return ends the innermost open call of its function and the calls
 * above it.
 */
static int on_uentry(struct ftfb_translator *t, const struct ftfb_uentry *e)
{
	struct ftfb_task *k;
	struct ftfb_frame *f;
	bool before = e->nargs & FTFB_UENTRY_BEFORE_WINDOW;
	unsigned nargs = e->nargs & ~FTFB_UENTRY_BEFORE_WINDOW;
	int err, ref, name, cat;

	if (nargs > FTFB_MAX_ARGS)
		nargs = FTFB_MAX_ARGS;

	if (e->cookie >= t->o.nfuncs) {
		t->st.skipped++;
		return 0;
	}
	err = ftfb_tr_ensure_task(t, e->hdr.tid, e->hdr.tgid, &k);
	if (err)
		return err;
	t->fstats[e->cookie].calls++;
	if (e->sp) {
		/* A call at sp S: open calls whose entry sp is <= S (as deep
		 * as this call or deeper) can no longer be running: their
		 * returns were skipped (longjmp, exception, return not
		 * hijacked) or they tail-called this function. */
		if (k->overflow && k->overflow_sp && e->sp >= k->overflow_sp) {
			k->overflow = 0; /* the capped calls are gone too */
			k->overflow_sp = 0;
		}
		while (!k->overflow && k->depth && k->stack[k->depth - 1].sp &&
		       k->stack[k->depth - 1].sp <= e->sp) {
			if (k->stack[k->depth - 1].sp == e->sp)
				k->tail_sp = e->sp; /* maybe a tail call */
			err = ftfb_tr_end_frame(t, k, e->hdr.ts, false, 0);
			if (err)
				return err;
		}
	}
	if (k->overflow || k->depth >= t->pt.max_depth) {
		if (!k->overflow)
			k->overflow_sp = e->sp;
		k->overflow++;
		t->st.depth_capped++;
		return 0;
	}
	err = ftfb_pt_stack_reserve(&t->pt, k);
	if (err)
		return err;
	ref = ftfb_tr_thread_ref(t, k);
	if (ref < 0)
		return ref;
	err = func_ids(t, e->cookie, &name, &cat);
	if (err)
		return err;
	err = write_call_begin(t, e, nargs, before, ref, cat, name);
	if (err)
		return err;
	t->st.records++;
	f = &k->stack[k->depth++];
	f->cookie = e->cookie;
	f->begin_ns = e->hdr.ts;
	f->sp = e->sp;
	return 0;
}

static int on_uret(struct ftfb_translator *t, const struct ftfb_uret *e)
{
	struct ftfb_task *k;
	uint32_t i;
	int err;

	if (e->cookie >= t->o.nfuncs) {
		t->st.skipped++;
		return 0;
	}
	k = ftfb_pt_find(&t->pt, e->hdr.tid);
	if (k && e->sp && k->overflow && k->overflow_sp) {
		uint64_t osp = k->overflow_sp;

		if (e->sp - 8 < osp) {
			/* a call inside the capped region: it stays open until
			 * its outermost call returns or is abandoned */
			if (k->overflow > 1)
				k->overflow--;
			return 0;
		}
		k->overflow = 0;
		k->overflow_sp = 0;
		if (e->sp - 8 == osp)
			return 0; /* the outermost capped call */
				  /* past it: the capped calls were abandoned */
	}
	if (k && e->sp && !k->overflow &&
	    (!k->depth || k->stack[k->depth - 1].sp)) {
		/* The returning call's entry sp is e->sp - 8 (the return
		 * popped the return address): the calls above it are dead. */
		uint64_t csp = e->sp - 8;

		while (k->depth && k->stack[k->depth - 1].sp &&
		       k->stack[k->depth - 1].sp < csp) {
			err = ftfb_tr_end_frame(t, k, e->hdr.ts, false, 0);
			if (err)
				return err;
		}
		if (k->depth && k->stack[k->depth - 1].sp == csp) {
			if (k->stack[k->depth - 1].cookie != e->cookie)
				t->st.sp_cookie_mismatch++;
			return ftfb_tr_end_frame(t, k, e->hdr.ts, true, e->ret);
		}
		if (!k->depth || k->stack[k->depth - 1].sp) {
			if (csp == k->tail_sp)
				t->st.tail_returns++;
			else
				t->st.unmatched_returns++;
			return 0;
		}
		/* a frame without sp on top: match by cookie */
	}
	if (k && k->overflow) {
		k->overflow--; /* the return of a call past the depth cap */
		return 0;
	}
	for (i = k ? k->depth : 0; i > 0; i--)
		if (k->stack[i - 1].cookie == e->cookie)
			break;
	if (i == 0) {
		t->st.unmatched_returns++;
		return 0;
	}
	/* Frames above the match lost their returns (longjmp, exception). */
	while (k->depth > i) {
		err = ftfb_tr_end_frame(t, k, e->hdr.ts, false, 0);
		if (err)
			return err;
	}
	return ftfb_tr_end_frame(t, k, e->hdr.ts, true, e->ret);
}

int ftfb_tr_ev_uentry(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_uentry, e, data);
	(void)size;
	return on_uentry(t, &e);
}

int ftfb_tr_ev_uret(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_uret, e, data);
	(void)size;
	return on_uret(t, &e);
}
