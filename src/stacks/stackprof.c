// SPDX-License-Identifier: MIT
/*
 * stackprof.c - stack samples as Perfetto packets in FTF blob records
 * (see stackprof.h; the protos' field numbers in stackprof_fields.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idtab.h"
#include "pbwrite.h"
#include "stackprof.h"
#include "stackprof_fields.h"
#include "grow_array.h"
#include "pystack_merge.h"
#include "go_topframe.h"
#include "unwind.h" /* FTFB_UW_STOP_BASE */

#define MAX_NAME 255		 /* names and paths are cut here */
#define MAX_FRAMES 320 /* user, Python and kernel frames of one sample */
#define SCRATCH_BYTES (1u << 18) /* a packet with every entry new fits */
#define KERNEL_TGID 0xffffffffu

/* ---- state ---------------------------------------------------------- */

/* One packet sequence: its interning state and its statistics. */
struct seq {
	uint32_t id;
	bool started;
	uint32_t next_name, next_path, next_map, next_frame, next_stack;
	uint32_t next_build_id, next_task, next_exec;
	struct ftfb_idtab names, paths, maps, frames, stacks, build_ids;
	struct ftfb_idtab tasks, execs; /* StackSample's contexts */
	/* per frame iid: its function name iid (0: none); per name iid:
	 * the name and the weight of samples whose top frame it is */
	uint32_t *frame_name;
	uint8_t *frame_pykind; /* per frame iid: enum ftfb_py_native, and
				* FRAME_GO_TOP */
	size_t frame_cap;
	char **name_str;
	uint64_t *name_weight;
	size_t name_cap;
};

/* The stacks the kernel sent: hash -> ips */
struct ftfb_stackprof {
	struct ftfb_stackprof_opts o;
	struct seq seq[FTFB_STACK_KINDS]; /* by kind */
	struct ftfb_stackstore *store;
	bool own_store;
	struct ftfb_pycodes *pycodes;
	bool own_pycodes;
	struct ftfb_idtab gens; /* tgid -> its generation (exec, exit) */
	struct ftfb_stackprof_stats st;
	int blob_name;
	uint8_t *stream; /* whole packets waiting for a blob record */
	size_t stream_len;
	uint8_t *packet, *interned; /* scratch */
	struct ftfb_pb ib;	    /* the current packet's InternedData */
};

/* ---- output --------------------------------------------------------- */

static int write_blob(struct ftfb_stackprof *sp, const uint8_t *p, size_t len)
{
	while (len) {
		size_t n = len < FTF_MAX_BLOB_LEN ? len : FTF_MAX_BLOB_LEN;
		int err = ftf_write_blob(sp->o.w, sp->blob_name,
					 FTF_BLOB_PERFETTO, p, n);

		if (err)
			return err;
		p += n;
		len -= n;
	}
	return 0;
}

int ftfb_stackprof_flush(struct ftfb_stackprof *sp)
{
	int err = write_blob(sp, sp->stream, sp->stream_len);

	sp->stream_len = 0;
	return err;
}

/* One whole packet to the stream. Blobs hold whole packets; only a
 * packet larger than a blob spans several (Perfetto reads the payloads
 * as one stream). */
static int emit(struct ftfb_stackprof *sp, const struct ftfb_pb *pb)
{
	int err;

	sp->st.packets++;
	sp->st.bytes += pb->len;
	if (sp->stream_len + pb->len > FTF_MAX_BLOB_LEN &&
	    (err = ftfb_stackprof_flush(sp)))
		return err;
	if (pb->len > FTF_MAX_BLOB_LEN)
		return write_blob(sp, pb->buf, pb->len);
	memcpy(sp->stream + sp->stream_len, pb->buf, pb->len);
	sp->stream_len += pb->len;
	return 0;
}

/* A sequence's source (stackprof.h: its own tracks and flame graph in
 * the UI) and what its samples' weights count: the name the UI gives its
 * session and its flame graph's measure ("TITLE Samples (NAME)"). */
static const struct {
	const char *source, *name;
	uint32_t unit;
	const char *description;
} timebase[FTFB_STACK_KINDS] = {
	[FTFB_STACK_ON_CPU] = {"linux.perf", "on-CPU samples", UNIT_COUNT,
			       "one per period of the sampling rate on CPU"},
	[FTFB_STACK_OFF_CPU] = {"off-CPU", "off-CPU time (ns)",
				UNIT_NANOSECONDS,
				"time off CPU that ended at the switch back"},
	[FTFB_STACK_WAKER] = {"waker", "waker stacks", UNIT_COUNT,
			      "one per wakeup of a traced thread"},
};

/* The first packet of a sequence: it clears the incremental state and
 * sets the sequence's defaults: the samples' source and their primary
 * counter, whose name is the session's. StackSample (not PerfSample):
 * its weight is the sample's own, which the flame graph sums, and its
 * counter is not drawn as a rate in the UI's "Perf counters" group,
 * which reads PerfSample's timebase_count as a running total. */
static int start_seq(struct ftfb_stackprof *sp, struct seq *q, uint64_t ts)
{
	unsigned kind = q->id - 1;
	char about[96];
	struct ftfb_pb pb;
	size_t pk, d, sd, cd;

	if (kind == FTFB_STACK_ON_CPU)
		snprintf(about, sizeof(about), "%s (%u Hz)",
			 timebase[kind].description, sp->o.freq_hz);
	else
		snprintf(about, sizeof(about), "%s", timebase[kind].description);
	ftfb_pb_init(&pb, sp->packet, SCRATCH_BYTES);
	pk = ftfb_pb_begin(&pb, F_TRACE_PACKET);
	ftfb_pb_varint(&pb, F_TIMESTAMP, ts);
	ftfb_pb_varint(&pb, F_SEQ_ID, q->id);
	ftfb_pb_varint(&pb, F_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	ftfb_pb_varint(&pb, F_FIRST_ON_SEQ, 1);
	d = ftfb_pb_begin(&pb, F_DEFAULTS);
	sd = ftfb_pb_begin(&pb, F_STACK_DEFAULTS);
	ftfb_pb_string(&pb, F_SD_SOURCE, timebase[kind].source);
	cd = ftfb_pb_begin(&pb, F_SD_PRIMARY);
	ftfb_pb_string(&pb, F_CD_NAME, timebase[kind].name);
	ftfb_pb_varint(&pb, F_CD_UNIT, timebase[kind].unit);
	ftfb_pb_string(&pb, F_CD_DESCRIPTION, about);
	ftfb_pb_end(&pb, cd);
	ftfb_pb_end(&pb, sd);
	ftfb_pb_end(&pb, d);
	ftfb_pb_end(&pb, pk);
	q->started = true;
	return emit(sp, &pb);
}

/* ---- interning ------------------------------------------------------ */

/* The iid of string s in table t (function names or mapping paths),
 * written to the packet's InternedData under `field` when new. */
/* The iid of len bytes in table t (function names, mapping paths, build
 * ids), written to the packet's InternedData under `field` when new. */
static int intern_bytes(struct ftfb_stackprof *sp, struct ftfb_idtab *t,
			uint32_t *next, uint32_t field, const void *b,
			size_t len, uint32_t *iid)
{
	uint64_t key;
	size_t m;

	if (len > MAX_NAME)
		len = MAX_NAME;
	key = ftfb_hash_bytes(b, len);
	*iid = ftfb_idtab_get(t, key);
	if (*iid)
		return 0;
	*iid = ++*next;
	m = ftfb_pb_begin(&sp->ib, field);
	ftfb_pb_varint(&sp->ib, F_IID, *iid);
	ftfb_pb_bytes(&sp->ib, F_STR, b, len);
	ftfb_pb_end(&sp->ib, m);
	return ftfb_idtab_put(t, key, *iid);
}

static int intern_str(struct ftfb_stackprof *sp, struct ftfb_idtab *t,
		      uint32_t *next, uint32_t field, const char *s,
		      uint32_t *iid)
{
	return intern_bytes(sp, t, next, field, s, strlen(s), iid);
}

/* The name iid for the summary's table (the top frames' names). */
static int note_name(struct seq *q, uint32_t name_iid, const char *s)
{
	size_t cap = q->name_cap;

	if (ftfb_grow_array((void **)&q->name_str, &cap, name_iid + 1,
		 sizeof(*q->name_str)))
		return -ENOMEM;
	cap = q->name_cap;
	if (ftfb_grow_array((void **)&q->name_weight, &cap, name_iid + 1,
		 sizeof(*q->name_weight)))
		return -ENOMEM;
	q->name_cap = cap;
	if (!q->name_str[name_iid] && !(q->name_str[name_iid] = strdup(s)))
		return -ENOMEM;
	return 0;
}

static int intern_mapping(struct ftfb_stackprof *sp, struct seq *q,
			  const struct ftfb_frame_sym *fs, uint32_t *iid)
{
	const char *path = fs->path ? fs->path : "[unknown]";
	uint64_t key = ftfb_mix64(ftfb_hash_str(path) ^
				  ftfb_mix64(fs->start ^ ftfb_mix64(fs->end)) ^
				  fs->pgoff);
	uint32_t path_iid, build_iid = 0;
	size_t m;
	int err;

	*iid = ftfb_idtab_get(&q->maps, key);
	if (*iid)
		return 0;
	err = intern_str(sp, &q->paths, &q->next_path, F_MAPPING_PATHS, path,
			 &path_iid);
	if (!err && fs->build_id_len)
		err = intern_bytes(sp, &q->build_ids, &q->next_build_id,
				   F_BUILD_IDS, fs->build_id, fs->build_id_len,
				   &build_iid);
	if (err)
		return err;
	*iid = ++q->next_map;
	m = ftfb_pb_begin(&sp->ib, F_MAPPINGS);
	ftfb_pb_varint(&sp->ib, F_IID, *iid);
	if (build_iid)
		ftfb_pb_varint(&sp->ib, F_MAP_BUILD_ID, build_iid);
	ftfb_pb_varint(&sp->ib, F_MAP_START_OFFSET, fs->pgoff);
	ftfb_pb_varint(&sp->ib, F_MAP_START, fs->start);
	ftfb_pb_varint(&sp->ib, F_MAP_END, fs->end);
	ftfb_pb_varint(&sp->ib, F_MAP_PATH_IDS, path_iid);
	ftfb_pb_varint(&sp->ib, F_MAP_EXACT_OFFSET, fs->pgoff);
	ftfb_pb_end(&sp->ib, m);
	return ftfb_idtab_put(&q->maps, key, *iid);
}

/* A Frame to the packet's InternedData (kind 0: none written). */
static void emit_frame(struct ftfb_stackprof *sp, uint32_t iid,
		       uint32_t name_iid, uint32_t map_iid, uint64_t rel_pc,
		       uint32_t kind)
{
	size_t m = ftfb_pb_begin(&sp->ib, F_FRAMES);

	ftfb_pb_varint(&sp->ib, F_IID, iid);
	if (name_iid)
		ftfb_pb_varint(&sp->ib, F_FRAME_NAME, name_iid);
	ftfb_pb_varint(&sp->ib, F_FRAME_MAPPING, map_iid);
	ftfb_pb_varint(&sp->ib, F_FRAME_REL_PC, rel_pc);
	if (kind)
		ftfb_pb_varint(&sp->ib, F_FRAME_KIND, kind);
	ftfb_pb_end(&sp->ib, m);
}

/* A new frame's name iid and, for the Python merge, its function's kind. */
static int note_frame(struct seq *q, uint32_t iid, uint32_t name_iid,
		      uint8_t pykind)
{
	size_t cap = q->frame_cap;

	if (ftfb_grow_array((void **)&q->frame_name, &cap, iid + 1,
			    sizeof(*q->frame_name)))
		return -ENOMEM;
	cap = q->frame_cap;
	if (ftfb_grow_array((void **)&q->frame_pykind, &cap, iid + 1,
			    sizeof(*q->frame_pykind)))
		return -ENOMEM;
	q->frame_cap = cap;
	q->frame_name[iid] = name_iid;
	q->frame_pykind[iid] = pykind;
	return 0;
}

/* The name of a user frame that has no symbol: where it is,
 * BINARY+0xOFFSET (the mapping file's name and the file offset; [anon]
 * and the address outside any file), so that it can be symbolized
 * later and the summary counts it as the flame graph shows it. */
static const char *unnamed_frame(const struct ftfb_frame_sym *fs, char *buf,
				 size_t len)
{
	const char *file = fs->path ? fs->path : "[anon]";
	const char *base = strrchr(file, '/');

	snprintf(buf, len, "%s+%#llx", base ? base + 1 : file,
		 (unsigned long long)fs->rel_pc);
	return buf;
}

/* The frame of ip in process tgid (KERNEL_TGID: a kernel address). */
static int intern_frame(struct ftfb_stackprof *sp, struct seq *q, uint32_t tgid,
			uint64_t ip, bool leaf, uint32_t *iid)
{
	uint64_t gen =
		tgid == KERNEL_TGID ? 0 : ftfb_idtab_get(&sp->gens, tgid);
	uint64_t key = ftfb_mix64(
		ip ^ ftfb_mix64(((uint64_t)tgid << 1) | leaf | gen << 33));
	struct ftfb_frame_sym fs = {0};
	uint32_t map_iid, name_iid = 0;
	char where[MAX_NAME + 1];
	int err;

	*iid = ftfb_idtab_get(&q->frames, key);
	if (*iid)
		return 0;
	sp->o.symbolize(sp->o.symbolize_ctx, tgid, ip, tgid == KERNEL_TGID,
			leaf, &fs);
	if (!fs.path)
		fs.rel_pc = ip;
	if (!fs.function && tgid != KERNEL_TGID)
		fs.function = unnamed_frame(&fs, where, sizeof(where));
	if ((err = intern_mapping(sp, q, &fs, &map_iid)))
		return err;
	if (fs.function &&
	    ((err = intern_str(sp, &q->names, &q->next_name, F_FUNCTION_NAMES,
			       fs.function, &name_iid)) ||
	     (err = note_name(q, name_iid, fs.function))))
		return err;
	*iid = ++q->next_frame;
	emit_frame(sp, *iid, name_iid, map_iid, fs.rel_pc,
		   tgid == KERNEL_TGID ? 2 : 1);
	if ((err = note_frame(q, *iid, name_iid,
			      ftfb_py_native_kind(fs.function) |
				      (ftfb_go_top_frame(fs.function)
					       ? FRAME_GO_TOP
					       : 0))))
		return err;
	return ftfb_idtab_put(&q->frames, key, *iid);
}

/* Drops the frames of native[0 .. *k) (root first) outside the innermost
 * Go top frame (go/go_topframe.h): another thread's, past runtime.mstart. */
static void cut_at_go_top(const struct seq *q, uint32_t *native, uint8_t *kinds,
			  uint32_t *k)
{
	uint32_t j = *k;

	while (j-- > 0)
		if (q->frame_pykind[native[j]] & FRAME_GO_TOP)
			break;
	if (j == UINT32_MAX || !j)
		return;
	*k -= j;
	memmove(native, native + j, *k * sizeof(*native));
	memmove(kinds, kinds + j, *k * sizeof(*kinds));
}

/* The frame of a Python code object, named "qualname (file:line)" (the
 * def's line), its mapping the file and its rel_pc the line. */
static int intern_pyframe(struct ftfb_stackprof *sp, struct seq *q,
			  uint32_t tgid, uint64_t entry, uint32_t *iid)
{
	uint64_t code = entry & FTFB_PY_CODE_MASK;
	const struct ftfb_pycode_info *ci =
		ftfb_pycodes_get(sp->pycodes, tgid, entry);
	struct ftfb_frame_sym fs = {0};
	const char *base;
	char name[MAX_NAME + 1];
	uint32_t map_iid, name_iid;
	uint64_t key;
	int err;

	if (ci) {
		base = strrchr(ci->file, '/');
		snprintf(name, sizeof(name), "%s (%s:%d)", ci->name,
			 base ? base + 1 : ci->file, ci->line);
		fs.path = ci->file;
		fs.rel_pc = ci->line > 0 ? (uint64_t)ci->line : 0;
	} else {
		snprintf(name, sizeof(name), "[Python code %#llx]",
			 (unsigned long long)code);
		fs.path = "[python]";
	}
	key = ftfb_mix64(ftfb_hash_str(name) ^
			 ftfb_mix64(ftfb_hash_str(fs.path) ^ 0x7079746866ull));
	*iid = ftfb_idtab_get(&q->frames, key);
	if (*iid)
		return 0;
	if (!ci)
		sp->st.unknown_pycodes++;
	if ((err = intern_mapping(sp, q, &fs, &map_iid)) ||
	    (err = intern_str(sp, &q->names, &q->next_name, F_FUNCTION_NAMES,
			      name, &name_iid)) ||
	    (err = note_name(q, name_iid, name)))
		return err;
	*iid = ++q->next_frame;
	emit_frame(sp, *iid, name_iid, map_iid, fs.rel_pc, 0);
	if ((err = note_frame(q, *iid, name_iid, FTFB_PYN_OTHER)))
		return err;
	return ftfb_idtab_put(&q->frames, key, *iid);
}

/* The user frames of a sample, root first, into frames[*n...]: the
 * native ones, with the Python frames in place of the interpreter's
 * (pystack_merge.h) when the sample has some. */
static int user_frames(struct ftfb_stackprof *sp, struct seq *q,
		       const struct ftfb_stack_sample *s,
		       const uint64_t *uips, uint32_t nu, bool leaf,
		       const uint64_t *pips, uint32_t np, uint32_t *frames,
		       uint32_t *n)
{
	uint32_t native[MAX_FRAMES / 2];
	uint8_t kinds[MAX_FRAMES / 2];
	struct ftfb_py_slot slots[MAX_FRAMES / 2 + FTFB_PY_MAX_DEPTH];
	uint32_t k = 0;
	size_t m;
	bool exact;
	int err;

	for (uint32_t i = nu; i-- > 0 && k < MAX_FRAMES / 2; k++) {
		if ((err = intern_frame(sp, q, s->tgid, uips[i], i == 0 && leaf,
					&native[k])))
			return err;
		kinds[k] = q->frame_pykind[native[k]] & ~FRAME_GO_TOP;
	}
	cut_at_go_top(q, native, kinds, &k);
	if (!np) {
		memcpy(frames + *n, native, k * sizeof(*native));
		*n += k;
		return 0;
	}
	/* (a walk that stopped short ends with a stop frame, unwind.h: the
	 * BPF walk keeps the last of its FTFB_STACK_MAX_DEPTH slots for it,
	 * so a full stack without one cannot be whole either) */
	m = ftfb_py_merge(kinds, k,
			  nu && nu < FTFB_STACK_MAX_DEPTH &&
				  uips[nu - 1] < FTFB_UW_STOP_BASE,
			  pips, np, slots,
			  sizeof(slots) / sizeof(slots[0]), &exact);
	sp->st.python_samples++;
	sp->st.python_interleaved += exact;
	for (size_t i = 0; i < m; i++, ++*n) {
		if (!slots[i].python)
			frames[*n] = native[slots[i].index];
		else if ((err = intern_pyframe(sp, q, s->tgid,
					       pips[slots[i].index],
					       &frames[*n])))
			return err;
	}
	return 0;
}

/* The callstack of a sample, root first: user frames outermost first
 * (Python ones among them), then kernel frames, the kernel's leaf last.
 * *top: the frame whose function the summary counts. */
static int intern_callstack(struct ftfb_stackprof *sp, struct seq *q,
			    const struct ftfb_stack_sample *s,
			    const uint64_t *uips, uint32_t nu,
			    const uint64_t *kips, uint32_t nk,
			    const uint64_t *pips, uint32_t np, uint32_t *iid,
			    uint32_t *top)
{
	uint64_t gen = ftfb_idtab_get(&sp->gens, s->tgid);
	uint64_t key = ftfb_mix64(
		s->uhash ^ ftfb_mix64(s->khash ^ 0x5bd1e995ull ^ gen) ^
		ftfb_mix64(s->phash ^ 0x9e3779b97f4a7c15ull));
	uint32_t frames[MAX_FRAMES];
	uint32_t n = 0, nuser;
	size_t m;
	int err;

	/* the innermost user ip is where the user code stopped (the
	 * sample, an interrupt, a fault, a syscall's next instruction),
	 * never a return address, kernel frames above it or not: a fault
	 * on a function's first instruction is inside that function */
	if ((err = user_frames(sp, q, s, uips, nu, true, pips, np, frames,
			       &n)))
		return err;
	nuser = n;
	for (uint32_t i = nk; i-- > 0 && n < MAX_FRAMES; n++)
		if ((err = intern_frame(sp, q, KERNEL_TGID, kips[i], i == 0,
					&frames[n])))
			return err;
	*top = n ? (nuser ? frames[nuser - 1] : frames[n - 1]) : 0;
	*iid = ftfb_idtab_get(&q->stacks, key);
	if (*iid)
		return 0;
	*iid = ++q->next_stack;
	m = ftfb_pb_begin(&sp->ib, F_CALLSTACKS);
	ftfb_pb_varint(&sp->ib, F_IID, *iid);
	for (uint32_t i = 0; i < n; i++) /* not packed: as Perfetto reads */
		ftfb_pb_varint(&sp->ib, F_CALLSTACK_FRAMES, frames[i]);
	ftfb_pb_end(&sp->ib, m);
	return ftfb_idtab_put(&q->stacks, key, *iid);
}

/* ---- samples -------------------------------------------------------- */

bool ftfb_stack_event_ok(const struct ftfb_stack *e, size_t size,
			 const uint64_t *ips)
{
	/* (the BPF side sends at most FTFB_STACK_MAX_DEPTH frames a native
	 * kind, FTFB_PY_MAX_DEPTH Python ones) */
	return size >= sizeof(*e) &&
	       (size - sizeof(*e)) / 8 >= (size_t)e->nu + e->nk + e->py.n &&
	       e->nu <= FTFB_STACK_MAX_DEPTH && e->nk <= FTFB_STACK_MAX_DEPTH &&
	       e->py.n <= FTFB_PY_MAX_DEPTH && !((uintptr_t)ips & 7);
}

/* Keeps a stack's addresses the first time they come (ips != NULL). */
static int keep_stack(struct ftfb_stackprof *sp, uint64_t hash,
		      const uint64_t *ips, uint32_t n)
{
	return hash && ips ? ftfb_stackstore_add(sp->store, hash, ips, n) : 0;
}

/* The addresses of a kept stack (at most MAX_FRAMES / 2 of them, what a
 * callstack holds of each kind), or NULL. They point into the store:
 * valid until its next add. */
static const uint64_t *stack_of(struct ftfb_stackprof *sp, uint64_t hash,
				uint32_t *outn)
{
	const uint64_t *ips;

	*outn = 0;
	if (!hash)
		return NULL;
	ips = ftfb_stackstore_get(sp->store, hash, outn);
	if (!ips)
		sp->st.unknown_stacks++;
	if (*outn > MAX_FRAMES / 2)
		*outn = MAX_FRAMES / 2;
	return ips;
}

/* The iid of a sample's context (its thread, or its cpu and mode): each
 * distinct one is written once per sequence, in its InternedData under
 * `field` as {iid, a, b}, so a sample carries one varint for it. */
static int intern_context(struct ftfb_stackprof *sp, struct ftfb_idtab *t,
			  uint32_t *next, uint32_t field, uint32_t a,
			  uint32_t b, uint32_t *iid)
{
	uint64_t key = (uint64_t)a << 32 | b;
	size_t m;

	*iid = ftfb_idtab_get(t, key);
	if (*iid)
		return 0;
	*iid = ++*next;
	m = ftfb_pb_begin(&sp->ib, field);
	ftfb_pb_varint(&sp->ib, F_IID, *iid);
	ftfb_pb_varint(&sp->ib, F_CTX_FIRST, a);
	ftfb_pb_varint(&sp->ib, F_CTX_SECOND, b);
	ftfb_pb_end(&sp->ib, m);
	return ftfb_idtab_put(t, key, *iid);
}

int ftfb_stackprof_sample(struct ftfb_stackprof *sp,
			  const struct ftfb_stack_sample *s)
{
	struct seq *q = &sp->seq[s->kind];
	const uint64_t *uips, *kips, *pips;
	uint32_t nu, nk, np, cs, top;
	struct ftfb_pb pb;
	uint32_t task, exec;
	size_t pk, ps;
	int err = 0;

	/* all kept before any is looked up: an add may move the store */
	if ((err = keep_stack(sp, s->uhash, s->uips, s->nu)) ||
	    (err = keep_stack(sp, s->khash, s->kips, s->nk)) ||
	    (err = keep_stack(sp, s->phash, s->pips, s->np)))
		return err;
	uips = stack_of(sp, s->uhash, &nu);
	kips = stack_of(sp, s->khash, &nk);
	pips = stack_of(sp, s->phash, &np);
	if (np > FTFB_PY_MAX_DEPTH)
		np = FTFB_PY_MAX_DEPTH;
	if (!q->started && (err = start_seq(sp, q, s->ts_ns)))
		return err;
	ftfb_pb_init(&sp->ib, sp->interned, SCRATCH_BYTES);
	err = intern_callstack(sp, q, s, uips, nu, kips, nk, pips, np, &cs,
			       &top);
	/* kernel frames: the sample was taken in the kernel (a perf event
	 * interrupting user code has none; a blocked thread is in it) */
	if (!err)
		err = intern_context(sp, &q->tasks, &q->next_task,
				     F_TASK_CONTEXTS, s->tgid, s->tid, &task);
	if (!err)
		err = intern_context(sp, &q->execs, &q->next_exec,
				     F_EXEC_CONTEXTS, s->cpu,
				     nk ? MODE_KERNEL : MODE_USER, &exec);
	if (err)
		return err;
	ftfb_pb_init(&pb, sp->packet, SCRATCH_BYTES);
	pk = ftfb_pb_begin(&pb, F_TRACE_PACKET);
	ftfb_pb_varint(&pb, F_TIMESTAMP, s->ts_ns);
	ftfb_pb_varint(&pb, F_SEQ_ID, q->id);
	ftfb_pb_varint(&pb, F_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	if (sp->ib.len)
		ftfb_pb_bytes(&pb, F_INTERNED_DATA, sp->ib.buf, sp->ib.len);
	ps = ftfb_pb_begin(&pb, F_STACK_SAMPLE);
	ftfb_pb_varint(&pb, F_SS_TASK_IID, task);
	ftfb_pb_varint(&pb, F_SS_EXEC_IID, exec);
	ftfb_pb_varint(&pb, F_SS_CALLSTACK, cs);
	/* every sample has its weight (on CPU: 1, a sample) */
	ftfb_pb_varint(&pb, F_SS_WEIGHT, s->weight);
	ftfb_pb_end(&pb, ps);
	ftfb_pb_end(&pb, pk);
	if (pb.overflow || sp->ib.overflow)
		return -ENOBUFS; /* cannot happen: names are cut to fit */
	sp->st.samples[s->kind]++;
	sp->st.weight[s->kind] += s->weight;
	if (top && q->frame_name[top])
		q->name_weight[q->frame_name[top]] += s->weight;
	return emit(sp, &pb);
}

int ftfb_stackprof_pycode(struct ftfb_stackprof *sp,
			  const struct ftfb_pycode *e)
{
	return sp->own_pycodes ? ftfb_pycodes_add(sp->pycodes, e) : 0;
}

void ftfb_stackprof_forget(struct ftfb_stackprof *sp, uint32_t tgid,
			   uint64_t ts_ns)
{
	/* (out of memory: the old frames stay, at worst misnamed) */
	ftfb_idtab_put(&sp->gens, tgid, ftfb_idtab_get(&sp->gens, tgid) + 1);
	if (sp->o.forget)
		sp->o.forget(sp->o.symbolize_ctx, tgid, ts_ns);
}

/* ---- life ----------------------------------------------------------- */

int ftfb_stackprof_new(struct ftfb_stackprof **out,
		       const struct ftfb_stackprof_opts *o)
{
	struct ftfb_stackprof *sp = calloc(1, sizeof(*sp));

	*out = NULL;
	if (!sp)
		return -ENOMEM;
	sp->o = *o;
	sp->store = o->store;
	if (!sp->store) {
		if (ftfb_stackstore_new(&sp->store)) {
			free(sp);
			return -ENOMEM;
		}
		sp->own_store = true;
	}
	sp->pycodes = o->pycodes;
	if (!sp->pycodes) {
		if (ftfb_pycodes_new(&sp->pycodes)) {
			ftfb_stackprof_free(sp);
			return -ENOMEM;
		}
		sp->own_pycodes = true;
	}
	for (int k = 0; k < FTFB_STACK_KINDS; k++)
		sp->seq[k].id = (uint32_t)k + 1;
	sp->stream = malloc(FTF_MAX_BLOB_LEN);
	sp->packet = malloc(SCRATCH_BYTES);
	sp->interned = malloc(SCRATCH_BYTES);
	if (!sp->stream || !sp->packet || !sp->interned) {
		ftfb_stackprof_free(sp);
		return -ENOMEM;
	}
	sp->blob_name = ftf_intern_string(o->w, "perfetto");
	if (sp->blob_name < 0)
		sp->blob_name = 0; /* out of string ids: the empty name */
	*out = sp;
	return 0;
}

void ftfb_stackprof_free(struct ftfb_stackprof *sp)
{
	if (!sp)
		return;
	for (int k = 0; k < FTFB_STACK_KINDS; k++) {
		struct seq *q = &sp->seq[k];

		ftfb_idtab_free(&q->names);
		ftfb_idtab_free(&q->paths);
		ftfb_idtab_free(&q->maps);
		ftfb_idtab_free(&q->frames);
		ftfb_idtab_free(&q->tasks);
		ftfb_idtab_free(&q->execs);
		ftfb_idtab_free(&q->stacks);
		ftfb_idtab_free(&q->build_ids);
		free(q->frame_name);
		free(q->frame_pykind);
		for (size_t i = 0; i < q->name_cap; i++)
			free(q->name_str[i]);
		free(q->name_str);
		free(q->name_weight);
	}
	ftfb_idtab_free(&sp->gens);
	if (sp->own_store)
		ftfb_stackstore_free(sp->store);
	if (sp->own_pycodes)
		ftfb_pycodes_free(sp->pycodes);
	free(sp->stream);
	free(sp->packet);
	free(sp->interned);
	free(sp);
}

const struct ftfb_stackprof_stats *
ftfb_stackprof_stats(const struct ftfb_stackprof *sp)
{
	return &sp->st;
}

size_t ftfb_stackprof_top(const struct ftfb_stackprof *sp,
			  enum ftfb_stack_kind kind, const char **names,
			  uint64_t *weights, size_t n)
{
	const struct seq *q = &sp->seq[kind];
	size_t got = 0;

	/* insertion into the best n so far */
	for (size_t i = 1; i < q->name_cap; i++) {
		uint64_t wt = q->name_weight[i];
		size_t j;

		if (!wt || (got == n && wt <= weights[n - 1]))
			continue;
		j = got < n ? got++ : n - 1;
		for (; j > 0 && weights[j - 1] < wt; j--) {
			weights[j] = weights[j - 1];
			names[j] = names[j - 1];
		}
		weights[j] = wt;
		names[j] = q->name_str[i];
	}
	return got;
}
