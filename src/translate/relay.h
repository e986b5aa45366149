/* SPDX-License-Identifier: MIT */
/*
 * relay.h - what the shards (ring_shard.h, each on its own thread) hand to the
 * thread that owns the trace's writer: chunks of whole FTF records, the
 * tasks they saw first, and the raw events they leave to the translator.
 * One queue, first in first out, under a mutex; a shard that gets too far
 * ahead of the writer's thread waits for it (bounded memory), and the
 * waits are what the shards' statistics call "relay waits".
 */
#ifndef FTFB_RELAY_H
#define FTFB_RELAY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftf/writer.h"

enum ftfb_relay_kind {
	FTFB_RELAY_RECORDS, /* data: whole FTF records */
	FTFB_RELAY_EVENT,   /* data: one raw event for the translator */
	FTFB_RELAY_TASK,    /* tid, tgid: a task the shard saw first */
};

struct ftfb_relay_item {
	struct ftfb_relay_item *next;
	enum ftfb_relay_kind kind;
	uint32_t tid, tgid;
	size_t len, cap; /* bytes in data, and room */
	uint8_t data[];
};

struct ftfb_relay {
	pthread_mutex_t mu;
	pthread_cond_t room;
	struct ftfb_relay_item *head, **tail;
	size_t held, max_held; /* bytes queued, and the most before a wait */
	/* record chunks given back, for the shards to fill again (no page
	 * faults for fresh memory per chunk), at most RELAY_SPARES */
	struct ftfb_relay_item *spare;
	unsigned nspare;
	uint64_t waits;	       /* pushes that waited for room */
};

/* A queue holding at most about max_held bytes (0: 64 MiB). 0 or
 * -errno. */
int ftfb_relay_init(struct ftfb_relay *r, size_t max_held);
/* Frees what is still queued. */
void ftfb_relay_free(struct ftfb_relay *r);

/* An item with room for cap bytes of data (NULL: out of memory). */
struct ftfb_relay_item *ftfb_relay_item_new(enum ftfb_relay_kind kind,
					     size_t cap);
/* A chunk for records of at least cap bytes: a spare one when there is
 * one that large, else a new one (NULL: out of memory). */
struct ftfb_relay_item *ftfb_relay_chunk(struct ftfb_relay *r, size_t cap);

/* Queues it (the relay owns it now), first waiting while the queue is
 * full. */
void ftfb_relay_push(struct ftfb_relay *r, struct ftfb_relay_item *it);

/* Everything queued, oldest first, for the writer's thread (each item to
 * be given back with ftfb_relay_done); NULL: nothing. */
struct ftfb_relay_item *ftfb_relay_take(struct ftfb_relay *r);
/* Frees taken items (keeps record chunks as spares) and makes their
 * room available to the shards. */
void ftfb_relay_done(struct ftfb_relay *r, struct ftfb_relay_item *list);

/* Copies len bytes of whole records into w, in pieces of at most one
 * record's largest size: 0 or the writer's negative error. */
int ftfb_relay_copy_records(struct ftf_writer *w, const uint8_t *data,
			    size_t len);

#endif
