// SPDX-License-Identifier: MIT
/*
 * record_text.c - Fuchsia-style text for one FTF record (see the header).
 */
#include "record_text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void put_str(FILE *out, struct ftf_str s)
{
	for (size_t i = 0; i < s.len; i++) {
		unsigned char ch = (unsigned char)s.ptr[i];

		if (ch == '\n')
			fputs("\\n", out);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(out, "\\x%02x", ch);
		else
			fputc(ch, out);
	}
}

static void put_qstr(FILE *out, struct ftf_str s)
{
	fputc('"', out);
	put_str(out, s);
	fputc('"', out);
}

/* Fuchsia's PreviewBlobData<8, 8>: everything up to 16 bytes, else the
 * first 8, " ...", the last 8. */
static void put_preview(FILE *out, const uint8_t *p, size_t n)
{
	size_t lead = n <= 16 ? n : 8, trail = n <= 16 ? 0 : 8;

	fputc('<', out);
	for (size_t i = 0; i < lead; i++)
		fprintf(out, i ? " %02x" : "%02x", p[i]);
	if (trail)
		fputs(" ...", out);
	for (size_t i = n - trail; i < n; i++)
		fprintf(out, " %02x", p[i]);
	fputc('>', out);
}

static void put_pt(FILE *out, struct ftf_pt pt)
{
	fprintf(out, "%" PRIu64 "/%" PRIu64, pt.pid, pt.tid);
}

static void put_args(FILE *out, const struct ftf_args *args)
{
	fputc('{', out);
	for (unsigned i = 0; i < args->count; i++) {
		const struct ftf_arg *a = &args->a[i];

		if (i)
			fputs(", ", out);
		put_str(out, a->name);
		fputs(": ", out);
		switch (a->type) {
		case FTF_ARG_NULL:
			fputs("null", out);
			break;
		case FTF_ARG_INT32:
			fprintf(out, "int32(%" PRId32 ")", a->v.i32);
			break;
		case FTF_ARG_UINT32:
			fprintf(out, "uint32(%" PRIu32 ")", a->v.u32);
			break;
		case FTF_ARG_INT64:
			fprintf(out, "int64(%" PRId64 ")", a->v.i64);
			break;
		case FTF_ARG_UINT64:
			fprintf(out, "uint64(%" PRIu64 ")", a->v.u64);
			break;
		case FTF_ARG_DOUBLE:
			fprintf(out, "double(%.6f)", a->v.d);
			break;
		case FTF_ARG_STRING:
			fputs("string(", out);
			put_qstr(out, a->v.str);
			fputc(')', out);
			break;
		case FTF_ARG_POINTER:
			if (a->v.u64)
				fprintf(out, "pointer(0x%" PRIx64 ")", a->v.u64);
			else
				fputs("pointer(0)", out);
			break;
		case FTF_ARG_KOID:
			fprintf(out, "koid(%" PRIu64 ")", a->v.u64);
			break;
		case FTF_ARG_BOOL:
			fputs(a->v.b ? "bool(true)" : "bool(false)", out);
			break;
		case FTF_ARG_BLOB:
			fprintf(out, "blob(length=%zu)", a->v.blob.len);
			break;
		}
	}
	fputc('}', out);
}

static void put_event_data(FILE *out, const struct ftf_record *rec)
{
	static const char *const scopes[] = { "thread", "process", "global" };
	uint64_t x = rec->u.event.extra;

	switch (rec->u.event.event_type) {
	case 0:
		if (!rec->u.event.has_extra)
			fputs("Instant", out);
		else
			fprintf(out, "Instant(scope: %s)",
				x < 3 ? scopes[x] : "???");
		break;
	case 1:
		fprintf(out, "Counter(id: %" PRIu64 ")", x);
		break;
	case 2:
		fputs("DurationBegin", out);
		break;
	case 3:
		fputs("DurationEnd", out);
		break;
	case 4:
		fprintf(out, "DurationComplete(end_ts: %" PRIu64 ")", x);
		break;
	case 5:
		fprintf(out, "AsyncBegin(id: %" PRIu64 ")", x);
		break;
	case 6:
		fprintf(out, "AsyncInstant(id: %" PRIu64 ")", x);
		break;
	case 7:
		fprintf(out, "AsyncEnd(id: %" PRIu64 ")", x);
		break;
	case 8:
		fprintf(out, "FlowBegin(id: %" PRIu64 ")", x);
		break;
	case 9:
		fprintf(out, "FlowStep(id: %" PRIu64 ")", x);
		break;
	case 10:
		fprintf(out, "FlowEnd(id: %" PRIu64 ")", x);
		break;
	}
}

static void put_metadata(FILE *out, const struct ftf_record *rec)
{
	fputs("Metadata(content: ", out);
	switch (rec->u.meta.meta_type) {
	case FTF_META_PROVIDER_INFO:
		fprintf(out, "ProviderInfo(id: %" PRIu32 ", name: ",
			rec->u.meta.provider_id);
		put_qstr(out, rec->u.meta.provider_name);
		fputc(')', out);
		break;
	case FTF_META_PROVIDER_SECTION:
		fprintf(out, "ProviderSection(id: %" PRIu32 ")",
			rec->u.meta.provider_id);
		break;
	case FTF_META_PROVIDER_EVENT:
		fprintf(out, "ProviderEvent(id: %" PRIu32 ", ",
			rec->u.meta.provider_id);
		if (rec->u.meta.event_id == 0)
			fputs("buffer overflow)", out);
		else
			fprintf(out, "unknown(%u))", rec->u.meta.event_id);
		break;
	case FTF_META_TRACE_INFO:
		fprintf(out,
			"TraceInfo(content: MagicNumberInfo(magic_value: 0x%" PRIx32
			"))",
			rec->u.meta.magic);
		break;
	}
	fputc(')', out);
}

static void put_sched(FILE *out, const struct ftf_record *rec)
{
	const char *os = ftf_thread_state_name(rec->u.sched.out_state);

	switch (rec->u.sched.sched_type) {
	case FTF_SCHED_LEGACY_SWITCH:
		fprintf(out, "ContextSwitch(ts: %" PRIu64 ", cpu: %u, os: %s, opt: ",
			rec->u.sched.ts, rec->u.sched.cpu, os ? os : "???");
		put_pt(out, rec->u.sched.out_pt);
		fputs(", ipt: ", out);
		put_pt(out, rec->u.sched.in_pt);
		fprintf(out, ", oprio: %u, iprio: %u)", rec->u.sched.out_prio,
			rec->u.sched.in_prio);
		break;
	case FTF_SCHED_CONTEXT_SWITCH:
		fprintf(out,
			"ContextSwitch(ts: %" PRIu64 ", cpu: %u, os: %s, ot: %" PRIu64
			", it: %" PRIu64 ", ",
			rec->u.sched.ts, rec->u.sched.cpu, os ? os : "???",
			rec->u.sched.out_koid, rec->u.sched.in_koid);
		put_args(out, &rec->u.sched.args);
		fputc(')', out);
		break;
	case FTF_SCHED_WAKEUP:
		fprintf(out,
			"ThreadWakeup(ts: %" PRIu64 ", cpu: %u, it: %" PRIu64 ", ",
			rec->u.sched.ts, rec->u.sched.cpu, rec->u.sched.in_koid);
		put_args(out, &rec->u.sched.args);
		fputc(')', out);
		break;
	}
}

static void put_large(FILE *out, const struct ftf_record *rec)
{
	fprintf(out, "LargeRecord(Blob(format: %s, category: ",
		rec->u.large.format == 0 ? "blob_event" : "blob_attachment");
	put_qstr(out, rec->u.large.category);
	fputs(", name: ", out);
	put_qstr(out, rec->u.large.name);
	if (rec->u.large.format == 0) {
		fprintf(out, ", ts: %" PRIu64 ", pt: ", rec->u.large.ts);
		put_pt(out, rec->u.large.pt);
		fputs(", ", out);
		put_args(out, &rec->u.large.args);
	}
	fprintf(out, ", size: %zu, preview: ", rec->u.large.size);
	put_preview(out, rec->u.large.payload, rec->u.large.size);
	fputs("))", out);
}

static void put_event(FILE *out, const struct ftf_record *rec)
{
	fprintf(out, "Event(ts: %" PRIu64 ", pt: ", rec->u.event.ts);
	put_pt(out, rec->u.event.pt);
	fputs(", category: ", out);
	put_qstr(out, rec->u.event.category);
	fputs(", name: ", out);
	put_qstr(out, rec->u.event.name);
	fputs(", ", out);
	put_event_data(out, rec);
	fputs(", ", out);
	put_args(out, &rec->u.event.args);
	fputc(')', out);
}

/* A userspace or a kernel object. */
static void put_object(FILE *out, const struct ftf_record *rec)
{
	const char *name;

	if (rec->type == FTF_REC_USERSPACE_OBJECT) {
		fprintf(out, "UserspaceObject(pointer: 0x%" PRIx64 ", pt: ",
			rec->u.uobj.pointer);
		put_pt(out, rec->u.uobj.pt);
		fputs(", name: ", out);
		put_qstr(out, rec->u.uobj.name);
		fputs(", ", out);
		put_args(out, &rec->u.uobj.args);
		fputc(')', out);
		return;
	}
	name = ftf_obj_type_name(rec->u.kobj.obj_type);
	fprintf(out, "KernelObject(koid: %" PRIu64 ", type: %s, name: ",
		rec->u.kobj.koid, name ? name : "???");
	put_qstr(out, rec->u.kobj.name);
	fputs(", ", out);
	put_args(out, &rec->u.kobj.args);
	fputc(')', out);
}

void ftf_record_print(FILE *out, const struct ftf_record *rec)
{
	if (rec->unknown) {
		fprintf(out, "Unknown(type: %u, size: %zu words, header: 0x%016" PRIx64 ")",
			rec->type, rec->size_words, rec->header);
		return;
	}
	switch (rec->type) {
	case FTF_REC_METADATA:
		put_metadata(out, rec);
		break;
	case FTF_REC_INIT:
		fprintf(out, "Initialization(ticks_per_second: %" PRIu64 ")",
			rec->u.init.ticks_per_second);
		break;
	case FTF_REC_STRING:
		fprintf(out, "String(index: %u, ", rec->u.string.index);
		put_qstr(out, rec->u.string.text);
		fputc(')', out);
		break;
	case FTF_REC_THREAD:
		fprintf(out, "Thread(index: %u, ", rec->u.thread.index);
		put_pt(out, rec->u.thread.pt);
		fputc(')', out);
		break;
	case FTF_REC_EVENT:
		put_event(out, rec);
		break;
	case FTF_REC_BLOB:
		fputs("Blob(name: ", out);
		put_str(out, rec->u.blob.name);
		fprintf(out, ", size: %zu, preview: ", rec->u.blob.size);
		put_preview(out, rec->u.blob.payload, rec->u.blob.size);
		fputc(')', out);
		break;
	case FTF_REC_USERSPACE_OBJECT:
	case FTF_REC_KERNEL_OBJECT:
		put_object(out, rec);
		break;
	case FTF_REC_SCHED:
		put_sched(out, rec);
		break;
	case FTF_REC_LOG:
		fprintf(out, "Log(ts: %" PRIu64 ", pt: ", rec->u.log.ts);
		put_pt(out, rec->u.log.pt);
		fputs(", ", out);
		put_qstr(out, rec->u.log.message);
		fputc(')', out);
		break;
	case FTF_REC_LARGE:
		put_large(out, rec);
		break;
	}
}

size_t ftf_record_text(char *buf, size_t size, const struct ftf_record *rec)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	ftf_record_print(f, rec);
	fclose(f);
	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(buf, text, n);
		buf[n] = '\0';
	}
	free(text);
	return len;
}
