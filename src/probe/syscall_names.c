/* SPDX-License-Identifier: MIT */
/*
 * syscall_names.c - names to numbers and back, and --syscalls=LIST.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syscall_names.h"

const char *ftfb_syscall_name(uint32_t nr, char *buf, size_t len)
{
	if (nr < FTFB_NR_SYSCALLS && ftfb_syscall_names[nr])
		return ftfb_syscall_names[nr];
	snprintf(buf, len, "syscall_%u", nr);
	return buf;
}

int ftfb_syscall_nr(const char *name)
{
	for (int nr = 0; nr < FTFB_NR_SYSCALLS; nr++)
		if (ftfb_syscall_names[nr] &&
		    !strcmp(ftfb_syscall_names[nr], name))
			return nr;
	return -1;
}

/* Levenshtein distance, for "did you mean". */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64], prev;

	if (la >= 63 || lb >= 63)
		return 64;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t sub = prev + (a[i - 1] != b[j - 1]);
			size_t del = row[j] + 1, ins = row[j - 1] + 1;

			row[j] = sub < del ? (sub < ins ? sub : ins)
					   : (del < ins ? del : ins);
			prev = cur;
		}
	}
	return row[lb];
}

/* The three closest names to name, in buf ("recv, recvfrom, read"). */
static void closest(const char *name, char *buf, size_t len)
{
	int best[3] = { -1, -1, -1 };
	size_t bd[3] = { 99, 99, 99 };

	for (int nr = 0; nr < FTFB_NR_SYSCALLS; nr++) {
		const char *n = ftfb_syscall_names[nr];
		size_t d;

		if (!n)
			continue;
		d = distance(name, n);
		for (int k = 0; k < 3; k++) {
			if (d < bd[k]) {
				for (int m = 2; m > k; m--) {
					bd[m] = bd[m - 1];
					best[m] = best[m - 1];
				}
				bd[k] = d;
				best[k] = nr;
				break;
			}
		}
	}
	buf[0] = '\0';
	for (int k = 0; k < 3 && best[k] >= 0; k++) {
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, "%s%s", k ? ", " : "",
			 ftfb_syscall_names[best[k]]);
	}
}

static int add_one(const char *item, uint8_t *wanted, char *err,
		   size_t errlen)
{
	bool glob = strpbrk(item, "*?[") != NULL;
	int hits = 0;

	for (int nr = 0; nr < FTFB_NR_SYSCALLS; nr++) {
		const char *n = ftfb_syscall_names[nr];

		if (n && (glob ? fnmatch(item, n, 0) == 0 : !strcmp(item, n))) {
			wanted[nr] = 1;
			hits++;
		}
	}
	if (hits)
		return 0;
	if (glob) {
		snprintf(err, errlen,
			 "--syscalls: '%s' matches no system call (see ftf-bpf --list --syscalls='*')",
			 item);
	} else {
		char near[128];

		closest(item, near, sizeof(near));
		snprintf(err, errlen,
			 "--syscalls: no system call is named '%s'; closest: %s",
			 item, near);
	}
	return -EINVAL;
}

int ftfb_syscall_list(const char *list, uint8_t *wanted, char *err,
		      size_t errlen)
{
	char *copy = strdup(list), *save = NULL, *item;
	int r = 0, items = 0;

	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memset(wanted, 0, FTFB_NR_SYSCALLS);
	for (item = strtok_r(copy, ",", &save); item && !r;
	     item = strtok_r(NULL, ",", &save), items++)
		r = add_one(item, wanted, err, errlen);
	if (!r && !items) {
		snprintf(err, errlen,
			 "--syscalls= needs names: e.g. --syscalls=read,write,'*sock*'");
		r = -EINVAL;
	}
	free(copy);
	return r;
}
