// SPDX-License-Identifier: MIT
/*
 * pbwrite.c - a minimal protobuf encoder (see pbwrite.h).
 */
#include <string.h>

#include "pbwrite.h"

void ftfb_pb_init(struct ftfb_pb *pb, void *buf, size_t cap)
{
	pb->buf = buf;
	pb->cap = cap;
	pb->len = 0;
	pb->overflow = false;
}

static bool room(struct ftfb_pb *pb, size_t n)
{
	if (pb->overflow || pb->cap - pb->len < n) {
		pb->overflow = true;
		return false;
	}
	return true;
}

static void put_varint(struct ftfb_pb *pb, uint64_t v)
{
	if (!room(pb, FTFB_PB_MAX_VARINT))
		return;
	while (v >= 0x80) {
		pb->buf[pb->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	pb->buf[pb->len++] = (uint8_t)v;
}

static void put_tag(struct ftfb_pb *pb, uint32_t field, unsigned wire_type)
{
	put_varint(pb, ((uint64_t)field << 3) | wire_type);
}

void ftfb_pb_varint(struct ftfb_pb *pb, uint32_t field, uint64_t v)
{
	put_tag(pb, field, 0);
	put_varint(pb, v);
}

void ftfb_pb_bytes(struct ftfb_pb *pb, uint32_t field, const void *data,
		   size_t len)
{
	put_tag(pb, field, 2);
	put_varint(pb, len);
	if (!room(pb, len))
		return;
	if (len)
		memcpy(pb->buf + pb->len, data, len);
	pb->len += len;
}

void ftfb_pb_string(struct ftfb_pb *pb, uint32_t field, const char *s)
{
	ftfb_pb_bytes(pb, field, s, strlen(s));
}

size_t ftfb_pb_begin(struct ftfb_pb *pb, uint32_t field)
{
	size_t mark;

	put_tag(pb, field, 2);
	mark = pb->len;
	if (room(pb, FTFB_PB_NESTED_LEN_BYTES))
		pb->len += FTFB_PB_NESTED_LEN_BYTES;
	return mark;
}

void ftfb_pb_end(struct ftfb_pb *pb, size_t mark)
{
	size_t n = pb->len - mark - FTFB_PB_NESTED_LEN_BYTES;

	if (pb->overflow)
		return;
	if (n >= (1u << 28)) {
		pb->overflow = true;
		return;
	}
	/* the length as a 4-byte varint: the first three bytes carry
	 * continuation bits, so the value can be any size below 2^28 */
	pb->buf[mark] = (uint8_t)(n | 0x80);
	pb->buf[mark + 1] = (uint8_t)((n >> 7) | 0x80);
	pb->buf[mark + 2] = (uint8_t)((n >> 14) | 0x80);
	pb->buf[mark + 3] = (uint8_t)(n >> 21);
}

void ftfb_pb_end_short(struct ftfb_pb *pb, size_t mark)
{
	size_t n = pb->len - mark - FTFB_PB_NESTED_LEN_BYTES, k = 1;

	if (pb->overflow)
		return;
	if (n >= (1u << 28)) {
		pb->overflow = true;
		return;
	}
	while (k < FTFB_PB_NESTED_LEN_BYTES && (n >> (7 * k)))
		k++;
	/* the message's bytes moved back over the length's spare ones
	 * (those of messages it holds are already in place) */
	memmove(pb->buf + mark + k, pb->buf + mark + FTFB_PB_NESTED_LEN_BYTES,
		n);
	for (size_t i = 0; i < k; i++)
		pb->buf[mark + i] =
			(uint8_t)((n >> (7 * i)) | (i + 1 < k ? 0x80 : 0));
	pb->len -= FTFB_PB_NESTED_LEN_BYTES - k;
}
