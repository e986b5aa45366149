/* SPDX-License-Identifier: MIT */
/* tests/bpf/common.h - helpers of the real-BPF loader tests. */
#ifndef FTFB_TEST_BPF_COMMON_H
#define FTFB_TEST_BPF_COMMON_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bpf_loader.h"
#include "events.h"

#define EV_SLOT 128

/* Open a loader or skip the test when BPF cannot load here at all. */
static inline struct ftfb_loader *open_or_skip(const struct ftfb_loader_opts *o)
{
	struct ftfb_loader *l = NULL;
	char err[256] = "";
	int rc;

	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: real BPF tests need root\n");
		skip();
	}
	rc = ftfb_loader_open(&l, o, err, sizeof(err));
	if (rc == -EPERM) {
		fprintf(stderr, "SKIP: %s\n", err);
		skip();
	}
	if (rc)
		fprintf(stderr, "ftfb_loader_open: %d: %s\n", rc, err);
	assert_int_equal(rc, 0);
	return l;
}


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
