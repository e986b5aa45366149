/* SPDX-License-Identifier: MIT */
/*
 * proctable.h - the translator's process/thread table and string map.
 *
 * Three small containers, all allocated up front and grown rarely (never
 * per event):
 *
 *   - the task table: tid -> struct ftfb_task (tgid, names, thread slot,
 *     the uprobe call stack). Entries live in chunks, so a pointer to an
 *     entry stays valid until the entry is removed, even when the hash
 *     index grows. Exited tasks are kept for a while (a dead thread's last
 *     context switch comes after its exit event) and removed once
 *     FTFB_PT_ZOMBIES newer exits have happened, so memory follows the
 *     number of live threads, not the number ever seen.
 *   - the string map: text -> permanent FTF string id, so every distinct
 *     name is interned once.
 *   - the thread-slot LRU: the writer's 255 thread refs, reassigned
 *     least-recently-used first.
 */
#ifndef FTFB_PROCTABLE_H
#define FTFB_PROCTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"

#define FTFB_PT_COMM_LEN 16
#define FTFB_PT_PNAME_LEN 64
#define FTFB_PT_ZOMBIES 4096 /* exited tasks kept before removal */
#define FTFB_PT_NSLOTS 255   /* writer thread slots 0..254 */

/* One open uprobe call. */
struct ftfb_frame {
	uint32_t cookie;
	uint32_t _pad;
	uint64_t begin_ns; /* CLOCK_MONOTONIC ns of the entry */
	uint64_t sp;	   /* user sp at the entry (0: unknown) */
};

struct ftfb_task {
	/* The fields an event touches come first, in the first cache line
	 * (measured: with a few thousand threads the task entries are most
	 * of the translator's cache misses); names and arguments after. */
	uint32_t tid;
	uint32_t tgid;
	uint32_t gen; /* bumped when the entry is reused */
	int16_t slot; /* writer thread slot, -1 if none */
	/* (bits: the hot fields stay in the first cache line) */
	bool exited : 1;
	bool named : 1; /* kernel objects written */
	/* switched in or woken since its process's title was last read
	 * (translate_titles.c); on a leader, title_due: read it next, and
	 * cmdline_told: its command line was written, no_title: it has none
	 * (a kernel thread) */
	bool ran : 1;
	bool title_due : 1;
	bool cmdline_told : 1;
	bool no_title : 1;
	/* with opts.strangers_apart: a task of a traced process (the
	 * scan's, forked by one, or its thread); the others only shared a
	 * CPU with them */
	bool traced : 1;
	/* uprobe stack: depth frames in stack[0..depth), overflow calls past
	 * the depth cap counted but not written. */
	struct ftfb_frame *stack;
	uint32_t depth;
	uint32_t cap;
	uint32_t overflow;
	/* open USDT slices: index + 1 of the newest in the translator's
	 * pool (struct ftfb_uslice), 0: none */
	uint32_t uslice_top;
	/* the system call the thread is in (--syscalls): written as one
	 * duration-complete record when it ends; its arguments in sys_args */
	struct {
		uint64_t begin_ns;
		uint32_t nr;
		uint8_t nargs;
		bool open;
	} sys;
	/* sp of the outermost call past the cap (0: unknown / none): with
	 * stack pointers, the capped region ends when a call or return
	 * reaches that address, whatever the count says. */
	uint64_t overflow_sp;
	/* sp of the last call ended by a call at the same sp */
	uint64_t tail_sp;
	uint64_t sys_args[FTFB_MAX_ARGS]; /* the first sys.nargs are set */
	struct ftfb_task *next_free;
	char comm[FTFB_PT_COMM_LEN];
	char pname[FTFB_PT_PNAME_LEN]; /* process name (leaders) */
} __attribute__((aligned(64))); /* the first line holds the hot fields */

struct ftfb_zombie {
	uint32_t tid;
	uint32_t gen;
};

struct ftfb_strmap_ent {
	uint64_t hash;
	const char *s; /* in the arena, NUL-terminated */
	uint32_t len;
	int id;
};

struct ftfb_slot {
	/* owner, valid if used (a task gives its slot back when it is
	 * removed, so this is a live task) */
	struct ftfb_task *owner;
	bool used;
	uint8_t prev, next; /* LRU list (index FTFB_PT_NSLOTS = head) */
};

/* A slot of the task hash: the tid beside its entry, so a probe compares
 * tids without touching the entries (a cache miss each on a machine with
 * thousands of threads: measured 29% of the replay's time). */
struct ftfb_pt_ent {
	uint32_t tid;
	struct ftfb_task *task; /* NULL: empty */
};

struct ftfb_proctable {
	/* task hash: open addressing, linear probing, tid -> entry */
	struct ftfb_pt_ent *idx;
	size_t idx_cap; /* power of two */
	size_t count;
	/* entry chunks */
	struct ftfb_task **chunks;
	size_t nchunks, chunks_cap;
	struct ftfb_task *free_list;
	/* stacks of removed tasks, reused (singly linked through frame 0) */
	struct ftfb_frame **free_stacks;
	uint32_t *free_stack_caps;
	size_t nfree_stacks, free_stacks_cap;
	/* exited tasks waiting for removal (FIFO ring) */
	struct ftfb_zombie zombies[FTFB_PT_ZOMBIES];
	size_t zhead, zcount;
	uint32_t next_gen;
	/* string map */
	struct ftfb_strmap_ent *smap;
	size_t smap_cap, smap_count;
	char **arenas;
	size_t narenas, arenas_cap;
	size_t arena_used, arena_cap;
	/* thread slots: [FTFB_PT_NSLOTS] is the LRU list head */
	struct ftfb_slot slots[FTFB_PT_NSLOTS + 1];
	unsigned max_depth;
};

int ftfb_pt_init(struct ftfb_proctable *pt, size_t expected_tasks,
		 unsigned max_depth);
void ftfb_pt_free(struct ftfb_proctable *pt);

/* The task hash's hash of a tid (splitmix-like: tids are dense). */
static inline uint64_t ftfb_pt_hash_tid(uint32_t x)
{
	uint64_t h = x;

	h ^= h >> 16;
	h *= 0x45d9f3b3335b369ull;
	h ^= h >> 29;
	return h;
}

/* The entry for tid, or NULL. (Inline: two or three finds an event, on
 * the consumer's hottest path.) */
static inline struct ftfb_task *ftfb_pt_find(struct ftfb_proctable *pt,
					     uint32_t tid)
{
	size_t mask = pt->idx_cap - 1;

	for (size_t i = ftfb_pt_hash_tid(tid) & mask;; i = (i + 1) & mask) {
		const struct ftfb_pt_ent *e = &pt->idx[i];

		if (e->tid == tid && e->task)
			return e->task;
		if (!e->task)
			return NULL;
	}
}
/* A fresh (zeroed, slot -1) entry for tid; the tid must not be present.
 * NULL on -ENOMEM. */
struct ftfb_task *ftfb_pt_insert(struct ftfb_proctable *pt, uint32_t tid);
/* Removes the entry (frees its thread slot; its stack is kept for reuse). */
void ftfb_pt_remove(struct ftfb_proctable *pt, uint32_t tid);
/* Marks the task exited and queues it for removal after FTFB_PT_ZOMBIES
 * newer exits (the oldest queued one is removed now if the queue is full). */
void ftfb_pt_mark_exited(struct ftfb_proctable *pt, struct ftfb_task *t);

/* Makes room for one more frame (grows geometrically up to max_depth).
 * 0, or -ENOMEM; -ENOSPC if the stack is at max_depth. (_grow: the
 * out-of-line half.) */
int ftfb_pt_stack_grow(struct ftfb_proctable *pt, struct ftfb_task *t);
static inline int ftfb_pt_stack_reserve(struct ftfb_proctable *pt,
					struct ftfb_task *t)
{
	return t->depth < t->cap ? 0 : ftfb_pt_stack_grow(pt, t);
}

/* Calls fn for every entry (the table must not change meanwhile). */
void ftfb_pt_for_each(struct ftfb_proctable *pt,
		      void (*fn)(struct ftfb_task *t, void *ctx), void *ctx);

/* String map: the id stored for s, or 0 if none. */
int ftfb_pt_str_get(struct ftfb_proctable *pt, const char *s, size_t len);
/* Stores s -> id. 0 or -ENOMEM. */
int ftfb_pt_str_put(struct ftfb_proctable *pt, const char *s, size_t len,
		    int id);

/*
 * Thread slots. ftfb_pt_slot_touch() marks a slot most recently used.
 * ftfb_pt_slot_take() returns the least recently used slot (a free one
 * first), detached from its previous owner (whose task->slot becomes -1),
 * now owned by `owner` and most recently used.
 */
void ftfb_pt_slot_move_mru(struct ftfb_proctable *pt, int slot);
static inline void ftfb_pt_slot_touch(struct ftfb_proctable *pt, int slot)
{
	/* most events are the last used thread's again */
	if (pt->slots[FTFB_PT_NSLOTS].prev != slot)
		ftfb_pt_slot_move_mru(pt, slot);
}
int ftfb_pt_slot_take(struct ftfb_proctable *pt, struct ftfb_task *owner);
/* Frees the slot of t, if any. */
void ftfb_pt_slot_release(struct ftfb_proctable *pt, struct ftfb_task *t);

#endif
