/* SPDX-License-Identifier: MIT */
/* tests/bpf/common.h - helpers of the real-BPF loader tests. */
#ifndef FTFB_TEST_BPF_COMMON_H
#define FTFB_TEST_BPF_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bpf_loader.h"
#include "events.h"

#define EV_SLOT 128

struct evlog {
	size_t n, cap;
	struct {
		size_t size;
		unsigned char b[EV_SLOT];
	} *v;
};

static inline int evlog_add(void *ctx, const void *data, size_t size)
{
	struct evlog *log = ctx;

	if (log->n == log->cap) {
		size_t cap = log->cap ? 2 * log->cap : 4096;
		void *nv = realloc(log->v, cap * sizeof(*log->v));

		if (!nv)
			return -1;
		log->v = nv;
		log->cap = cap;
	}
	log->v[log->n].size = size;
	memcpy(log->v[log->n].b, data, size < EV_SLOT ? size : EV_SLOT);
	log->n++;
	return 0;
}

static inline const struct ftfb_hdr *evlog_hdr(const struct evlog *log,
					       size_t i)
{
	return (const struct ftfb_hdr *)log->v[i].b;
}

#endif
