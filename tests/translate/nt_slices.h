/* SPDX-License-Identifier: MIT */
/*
 * tests/translate/nt_slices.h - the slices on named tracks of a memory
 * trace (src/translate/named_tracks.h), decoded from its blobs'
 * TrackEvent packets by the field numbers of Perfetto's protos
 * (TracePacket 8 timestamp, 11 track_event, 60 track_descriptor;
 * TrackDescriptor 1 uuid, 2 name, 3 process {1 pid}, 4 thread {1 pid,
 * 2 tid}, 5 parent_uuid; TrackEvent 9 type, 11 track_uuid, 22 category,
 * 23 name, 4 debug annotation {10 name, 2 bool, 3 uint, 4 int, 6
 * string}). An end's annotations join its slice's, as Perfetto adds
 * them to the slice's args. Include after <cmocka.h> and
 * tests/stacks/perfetto_bytes.h.
 */
#ifndef TESTS_TRANSLATE_NT_SLICES_H
#define TESTS_TRANSLATE_NT_SLICES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NT_MAX 512

struct nt_track {
	uint64_t uuid, parent;
	uint32_t pid; /* a process's own track, or a thread's (with tid) */
	uint32_t tid; /* a thread's own track */
	char name[64];
};

struct nt_slice {
	uint64_t track, begin, end;
	char name[64], cat[32], track_name[64];
	uint32_t pid; /* the process of its track, 0: at the top */
	uint32_t tid; /* the thread of its track, 0: none */
	int depth;    /* slices open on its track when it began */
	int nargs;
	struct {
		char name[32];
		uint64_t u;
		char s[64];
	} args[8];
};

struct nt_view {
	struct nt_track tracks[NT_MAX];
	struct nt_slice slices[NT_MAX];
	int ntracks, nslices;
};

struct nt_field {
	uint32_t num, wire;
	uint64_t v;
	const uint8_t *p;
	size_t len;
};

static inline uint64_t nt_varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int s = 0; *p < end && s < 64; s += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* The next field of [*p, end); 0 at the end. */
static inline int nt_next(const uint8_t **p, const uint8_t *end,
			  struct nt_field *f)
{
	uint64_t key;

	memset(f, 0, sizeof(*f));
	if (*p >= end)
		return 0;
	key = nt_varint(p, end);
	f->num = (uint32_t)(key >> 3);
	f->wire = key & 7;
	if (f->wire == 0) {
		f->v = nt_varint(p, end);
	} else {
		assert_int_equal(f->wire, 2);
		f->len = nt_varint(p, end);
		f->p = *p;
		*p += f->len;
	}
	return 1;
}

static inline void nt_str(char *dst, size_t cap, const struct nt_field *f)
{
	size_t n = f->len < cap - 1 ? f->len : cap - 1;

	memcpy(dst, f->p, n);
	dst[n] = '\0';
}

static inline void nt_descriptor(struct nt_view *v, const uint8_t *p,
				 const uint8_t *end)
{
	struct nt_track *t = &v->tracks[v->ntracks++];
	struct nt_field f, g;

	assert_true(v->ntracks <= NT_MAX);
	memset(t, 0, sizeof(*t));
	while (nt_next(&p, end, &f)) {
		if (f.num == 1)
			t->uuid = f.v;
		else if (f.num == 5)
			t->parent = f.v;
		else if (f.num == 2)
			nt_str(t->name, sizeof(t->name), &f);
		else if (f.num == 3 || f.num == 4) {
			const uint8_t *q = f.p;

			while (nt_next(&q, f.p + f.len, &g))
				if (g.num == 1)
					t->pid = (uint32_t)g.v;
				else if (g.num == 2 && f.num == 4)
					t->tid = (uint32_t)g.v;
		}
	}
}

static inline const struct nt_track *nt_track(const struct nt_view *v,
					      uint64_t uuid)
{
	for (int i = 0; i < v->ntracks; i++)
		if (v->tracks[i].uuid == uuid)
			return &v->tracks[i];
	return NULL;
}

static inline void nt_annotation(struct nt_slice *s, const uint8_t *p,
				 const uint8_t *end)
{
	struct nt_field f;
	int i = s->nargs++;

	assert_true(s->nargs <= 8);
	while (nt_next(&p, end, &f)) {
		if (f.num == 10)
			nt_str(s->args[i].name, sizeof(s->args[i].name), &f);
		else if (f.num == 2 || f.num == 3 || f.num == 4)
			s->args[i].u = f.v;
		else if (f.num == 6)
			nt_str(s->args[i].s, sizeof(s->args[i].s), &f);
	}
}

/* A begin opens a slice, an end closes the newest open one of its track
 * and adds its arguments, as Perfetto does (in the order written: the
 * packets of a lane's slice come in one blob, a thread track's in time
 * order). */
static inline void nt_event(struct nt_view *v, uint64_t ts, const uint8_t *p,
			    const uint8_t *end)
{
	struct nt_slice s;
	struct nt_field f;
	uint64_t type = 0;

	memset(&s, 0, sizeof(s));
	while (nt_next(&p, end, &f)) {
		if (f.num == 9)
			type = f.v;
		else if (f.num == 11)
			s.track = f.v;
		else if (f.num == 23)
			nt_str(s.name, sizeof(s.name), &f);
		else if (f.num == 22)
			nt_str(s.cat, sizeof(s.cat), &f);
		else if (f.num == 4)
			nt_annotation(&s, f.p, f.p + f.len);
	}
	if (type == 1) {
		const struct nt_track *t = nt_track(v, s.track), *pt;

		assert_non_null(t);
		s.begin = ts;
		snprintf(s.track_name, sizeof(s.track_name), "%s", t->name);
		pt = t->parent ? nt_track(v, t->parent) : NULL;
		s.pid = pt ? pt->pid : 0;
		s.tid = pt ? pt->tid : 0;
		for (int i = 0; i < v->nslices; i++)
			s.depth += v->slices[i].track == s.track &&
				   !v->slices[i].end;
		assert_true(v->nslices < NT_MAX);
		v->slices[v->nslices++] = s;
		return;
	}
	assert_int_equal(type, 2);
	for (int i = v->nslices - 1; i >= 0; i--) {
		struct nt_slice *o = &v->slices[i];

		if (o->track != s.track || o->end)
			continue;
		o->end = ts;
		for (int j = 0; j < s.nargs; j++) {
			assert_true(o->nargs < 8);
			o->args[o->nargs++] = s.args[j];
		}
		return;
	}
	fail_msg("an end with no open slice on track %llu",
		 (unsigned long long)s.track);
}

/* Every slice on a named track of the trace in m, in the order written. */
static inline void nt_view(struct ftf_dest_mem *m, struct nt_view *v)
{
	static uint8_t buf[1 << 20];
	size_t n = perfetto_bytes(m, buf, sizeof(buf));
	const uint8_t *p = buf, *end = buf + n;
	struct nt_field pk, f;

	memset(v, 0, sizeof(*v));
	while (nt_next(&p, end, &pk)) {
		const uint8_t *q = pk.p, *qe = pk.p + pk.len;
		uint64_t ts = 0;

		if (pk.num != 1)
			continue;
		while (nt_next(&q, qe, &f)) {
			if (f.num == 8)
				ts = f.v;
			else if (f.num == 60)
				nt_descriptor(v, f.p, f.p + f.len);
			else if (f.num == 11)
				nt_event(v, ts, f.p, f.p + f.len);
		}
	}
}

/* Whether slice s has an argument `name`. */
static inline bool nt_has_arg(const struct nt_slice *s, const char *name)
{
	for (int i = 0; i < s->nargs; i++)
		if (!strcmp(s->args[i].name, name))
			return true;
	return false;
}

static inline const char *nt_arg_s(const struct nt_slice *s, const char *name)
{
	for (int i = 0; i < s->nargs; i++)
		if (!strcmp(s->args[i].name, name))
			return s->args[i].s;
	fail_msg("no argument %s", name);
	return NULL;
}

static inline uint64_t nt_arg(const struct nt_slice *s, const char *name)
{
	for (int i = 0; i < s->nargs; i++)
		if (!strcmp(s->args[i].name, name))
			return s->args[i].u;
	fail_msg("no argument %s", name);
	return 0;
}

#endif
