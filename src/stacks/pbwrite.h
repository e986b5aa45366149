/* SPDX-License-Identifier: MIT */
/*
 * pbwrite.h - a minimal protobuf encoder into a caller's fixed buffer.
 *
 * Just what the Perfetto packets of --stacks need: varint fields, length-
 * delimited fields (bytes, strings) and nested messages. A nested
 * message's length is a placeholder of 4 bytes patched at its end with a
 * padded varint (0x80 continuation bytes, valid protobuf, as Perfetto's
 * own protozero writes them), so nothing is copied twice. Nothing is
 * allocated; when the buffer is full the encoder stops writing and sets
 * `overflow`, and the caller drops or retries the whole message.
 */
#ifndef FTFB_PBWRITE_H
#define FTFB_PBWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ftfb_pb {
	uint8_t *buf;
	size_t cap, len;
	bool overflow;
};

/* Longest varint, and the nested-length placeholder (up to 2^28-1). */
#define FTFB_PB_MAX_VARINT 10
#define FTFB_PB_NESTED_LEN_BYTES 4

void ftfb_pb_init(struct ftfb_pb *pb, void *buf, size_t cap);

/* Field `field` of wire type 0 (uint32/uint64/enum/bool) with value v. */
void ftfb_pb_varint(struct ftfb_pb *pb, uint32_t field, uint64_t v);

/* Field `field` of wire type 2 with len bytes of data (bytes, string). */
void ftfb_pb_bytes(struct ftfb_pb *pb, uint32_t field, const void *data,
		   size_t len);
void ftfb_pb_string(struct ftfb_pb *pb, uint32_t field, const char *s);

/* Opens nested message `field`; returns the mark to give ftfb_pb_end. */
size_t ftfb_pb_begin(struct ftfb_pb *pb, uint32_t field);
void ftfb_pb_end(struct ftfb_pb *pb, size_t mark);
/* As ftfb_pb_end, the length in as few bytes as it takes (the message
 * moved back over the others): for many small messages, as the named
 * tracks' packets, 3 bytes fewer each. Messages end in the reverse order
 * they began, as with ftfb_pb_end. */
void ftfb_pb_end_short(struct ftfb_pb *pb, size_t mark);

#endif
