/* SPDX-License-Identifier: MIT */
/*
 * idtab.h - a table from 64-bit keys to 32-bit ids (open addressing,
 * linear probing, doubling), and the hashes that make the keys. What
 * --stacks interns (strings, mappings, frames, callstacks) and the stacks
 * the kernel sent are found through it. A key is a hash: two values
 * with the same 64-bit hash would share an id (at 10^6 entries, a
 * chance of about 1 in 10^7).
 */
#ifndef FTFB_IDTAB_H
#define FTFB_IDTAB_H

#include <stddef.h>
#include <stdint.h>

struct ftfb_idtab {
	uint64_t *keys; /* 0: empty (key 0 is stored as 1) */
	uint32_t *vals;
	size_t cap, n;
};

/* The value of key, 0 if absent. An empty (zeroed) table is valid. */
uint32_t ftfb_idtab_get(const struct ftfb_idtab *t, uint64_t key);
/* Sets key's value; 0 or -ENOMEM (the table is unchanged then). */
int ftfb_idtab_put(struct ftfb_idtab *t, uint64_t key, uint32_t val);
void ftfb_idtab_free(struct ftfb_idtab *t);

/* splitmix64's finalizer: spreads the bits of x. */
uint64_t ftfb_mix64(uint64_t x);
/* FNV-1a over bytes, and over a C string. */
uint64_t ftfb_hash_bytes(const void *p, size_t len);
uint64_t ftfb_hash_str(const char *s);

#endif
