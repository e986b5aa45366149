/* SPDX-License-Identifier: MIT */
/*
 * usdt_notes.h - the USDT probes of an ELF file: its .note.stapsdt notes
 * (owner "stapsdt", type 3), as <sys/sdt.h> writes them.
 *
 * Only read here, to match globs and list probes; attaching (addresses,
 * semaphores, argument specs) is libbpf's bpf_program__attach_usdt().
 */
#ifndef FTFB_USDT_NOTES_H
#define FTFB_USDT_NOTES_H

#include <stddef.h>
#include <stdint.h>

/* One probe site. A probe (provider, name) may have several sites
 * (inlined code, several callers). */
struct ftfb_usdt_note {
	char *provider;
	char *name;
	char *args;	    /* argument specs, e.g. "-4@%edi 8@%rsi" */
	uint64_t pc;	    /* the site's link-time address */
	uint64_t semaphore; /* its link-time address, 0: none */
};

struct ftfb_usdt_notes {
	struct ftfb_usdt_note *v;
	size_t n;
};

/* Reads the notes of path (none: n = 0). 0, or -errno with one line in
 * errmsg: -ENOENT, -ENOEXEC "not an ELF file". */
int ftfb_usdt_notes_read(const char *path, struct ftfb_usdt_notes *out,
			 char *errmsg, size_t errlen);
void ftfb_usdt_notes_free(struct ftfb_usdt_notes *n);

/* The number of arguments of a spec string ("" has 0). */
int ftfb_usdt_arg_count(const char *args);
/* Bit i set when argument i looks like a pointer: 8 bytes, unsigned
 * ("8@..."), which is how <sys/sdt.h> describes a char *. */
uint32_t ftfb_usdt_pointer_args(const char *args);

#endif
