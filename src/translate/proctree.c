// SPDX-License-Identifier: MIT
/*
 * proctree.c - processes' command lines as Perfetto ProcessTree packets
 * (see proctree.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "grow_array.h"
#include "pbwrite.h"
#include "proctree.h"
#include "tr_types.h" /* FTFB_CMDLINE_MAX */

/* TracePacket */
#define F_TRACE_PACKET 1
#define F_PROCESS_TREE 2
#define F_TIMESTAMP 8
#define F_SEQ_ID 10
/* ProcessTree.processes, Process.pid/ppid/cmdline */
#define F_PROCESSES 1
#define F_PID 1
#define F_PPID 2
#define F_CMDLINE 3
/* ProcessTree.threads, Thread.tid/name */
#define F_THREADS 2
#define F_TID 1
#define F_TNAME 2

/* The sequence of these packets (the stack samples use 1 and 2). */
#define PROCTREE_SEQ_ID 3
/* Packet header room: tags, timestamp, sequence id, nested lengths */
#define PACKET_OVERHEAD 64
#define PROCESS_MAX (FTFB_CMDLINE_MAX * 2 + 32)

/* A title the process set: one argument (the rest NULs) with a space. */
static bool is_title(const char *cmdline, size_t len)
{
	size_t n = strnlen(cmdline, len);

	return n == len && memchr(cmdline, ' ', n);
}

/* One Process message for pid, into buf; returns its length. */
static size_t encode_process(uint8_t *buf, size_t cap, uint32_t pid,
			     uint32_t ppid, const char *cmdline, size_t len)
{
	struct ftfb_pb pb;
	size_t m, i = 0;

	while (len && !cmdline[len - 1])
		len--;
	ftfb_pb_init(&pb, buf, cap);
	m = ftfb_pb_begin(&pb, F_PROCESSES);
	ftfb_pb_varint(&pb, F_PID, pid);
	ftfb_pb_varint(&pb, F_PPID, ppid);
	if (is_title(cmdline, len)) {
		/* one argument with spaces, which Perfetto would cut at the
		 * first space to name the process: an empty second one (the
		 * NULs /proc shows after it) keeps it whole; its padding
		 * spaces (PostgreSQL's) go, as in the FTF name */
		size_t n = strnlen(cmdline, len);

		while (n && cmdline[n - 1] == ' ')
			n--;
		ftfb_pb_bytes(&pb, F_CMDLINE, cmdline, n);
		ftfb_pb_bytes(&pb, F_CMDLINE, "", 0);
		len = 0;
	}
	while (i < len) {
		size_t n = strnlen(cmdline + i, len - i);

		ftfb_pb_bytes(&pb, F_CMDLINE, cmdline + i, n);
		i += n + 1;
	}
	ftfb_pb_end(&pb, m);
	return pb.overflow ? 0 : pb.len;
}

/* Room for n more bytes in the pending buffer. */
static int grow_for(struct ftfb_proctree *p, size_t n)
{
	return ftfb_grow_array((void **)&p->pending, &p->cap, p->len + n, 1);
}

int ftfb_proctree_flush(struct ftfb_proctree *p, struct ftf_writer *w,
			int blob_name, uint64_t ts_ns)
{
	uint8_t buf[PACKET_OVERHEAD];
	struct ftfb_pb pb;
	size_t pk, tree;
	int err;

	if (!p->count)
		return 0;
	/* the packet's header, then the processes already encoded: the
	 * nested lengths are 4-byte placeholders, patched here by hand */
	ftfb_pb_init(&pb, buf, sizeof(buf));
	pk = ftfb_pb_begin(&pb, F_TRACE_PACKET);
	ftfb_pb_varint(&pb, F_TIMESTAMP, ts_ns);
	ftfb_pb_varint(&pb, F_SEQ_ID, PROCTREE_SEQ_ID);
	tree = ftfb_pb_begin(&pb, F_PROCESS_TREE);
	if (pb.overflow || grow_for(p, pb.len))
		return -ENOMEM;
	memmove(p->pending + pb.len, p->pending, p->len);
	memcpy(p->pending, buf, pb.len);
	p->len += pb.len;
	{
		struct ftfb_pb whole = { .buf = p->pending, .cap = p->len,
					 .len = p->len };

		ftfb_pb_end(&whole, tree);
		ftfb_pb_end(&whole, pk);
	}
	err = ftf_write_blob(w, blob_name, FTF_BLOB_PERFETTO, p->pending,
			     p->len);
	p->len = 0;
	p->count = 0;
	return err;
}

int ftfb_proctree_add(struct ftfb_proctree *p, struct ftf_writer *w,
		      int blob_name, uint64_t ts_ns, uint32_t pid, uint32_t ppid,
		      const char *cmdline, size_t len)
{
	uint8_t msg[PROCESS_MAX];
	size_t n = encode_process(msg, sizeof(msg), pid, ppid, cmdline, len);
	int err;

	if (!n)
		return 0; /* cannot happen: cmdline is cut to fit */
	if (p->len + n + PACKET_OVERHEAD > FTF_MAX_BLOB_LEN &&
	    (err = ftfb_proctree_flush(p, w, blob_name, ts_ns)))
		return err;
	if (grow_for(p, n + PACKET_OVERHEAD))
		return -ENOMEM;
	memcpy(p->pending + p->len, msg, n);
	p->len += n;
	p->count++;
	return 0;
}

int ftfb_proctree_add_thread(struct ftfb_proctree *p, struct ftf_writer *w,
			     int blob_name, uint64_t ts_ns, uint32_t tid,
			     const char *name, size_t len)
{
	uint8_t msg[64];
	struct ftfb_pb pb;
	size_t m;
	int err;

	ftfb_pb_init(&pb, msg, sizeof(msg));
	m = ftfb_pb_begin(&pb, F_THREADS);
	ftfb_pb_varint(&pb, F_TID, tid);
	ftfb_pb_bytes(&pb, F_TNAME, name, len < 16 ? len : 16);
	ftfb_pb_end(&pb, m);
	if (pb.overflow)
		return 0;
	if (p->len + pb.len + PACKET_OVERHEAD > FTF_MAX_BLOB_LEN &&
	    (err = ftfb_proctree_flush(p, w, blob_name, ts_ns)))
		return err;
	if (grow_for(p, pb.len + PACKET_OVERHEAD))
		return -ENOMEM;
	memcpy(p->pending + p->len, msg, pb.len);
	p->len += pb.len;
	p->count++;
	return 0;
}

void ftfb_proctree_free(struct ftfb_proctree *p)
{
	free(p->pending);
	memset(p, 0, sizeof(*p));
}
