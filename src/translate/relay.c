// SPDX-License-Identifier: MIT
/*
 * relay.c - the shards' queue to the writer's thread (see relay.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftf/destination.h"
#include "relay.h"

#define DEFAULT_MAX_HELD (64u << 20)
#define MAX_RECORD_BYTES (4095 * 8) /* an FTF record's size field */
#define RELAY_SPARES 16

int ftfb_relay_init(struct ftfb_relay *r, size_t max_held)
{
	memset(r, 0, sizeof(*r));
	if (pthread_mutex_init(&r->mu, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&r->room, NULL)) {
		pthread_mutex_destroy(&r->mu);
		return -ENOMEM;
	}
	r->tail = &r->head;
	r->max_held = max_held ? max_held : DEFAULT_MAX_HELD;
	return 0;
}

static void free_list(struct ftfb_relay_item *it)
{
	while (it) {
		struct ftfb_relay_item *next = it->next;

		free(it);
		it = next;
	}
}

void ftfb_relay_free(struct ftfb_relay *r)
{
	free_list(r->head);
	free_list(r->spare);
	pthread_cond_destroy(&r->room);
	pthread_mutex_destroy(&r->mu);
	memset(r, 0, sizeof(*r));
}

struct ftfb_relay_item *ftfb_relay_item_new(enum ftfb_relay_kind kind,
					     size_t cap)
{
	struct ftfb_relay_item *it = malloc(sizeof(*it) + cap);

	if (!it)
		return NULL;
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->cap = cap;
	return it;
}

struct ftfb_relay_item *ftfb_relay_chunk(struct ftfb_relay *r, size_t cap)
{
	struct ftfb_relay_item *it;

	pthread_mutex_lock(&r->mu);
	it = r->spare;
	if (it && it->cap >= cap) {
		r->spare = it->next;
		r->nspare--;
	} else {
		it = NULL;
	}
	pthread_mutex_unlock(&r->mu);
	if (!it)
		return ftfb_relay_item_new(FTFB_RELAY_RECORDS, cap);
	it->len = 0;
	it->next = NULL;
	return it;
}

void ftfb_relay_push(struct ftfb_relay *r, struct ftfb_relay_item *it)
{
	size_t bytes = sizeof(*it) + it->cap;

	it->next = NULL;
	pthread_mutex_lock(&r->mu);
	/* (an empty queue always takes the item, however large) */
	if (r->held && r->held + bytes > r->max_held) {
		r->waits++;
		while (r->held && r->held + bytes > r->max_held)
			pthread_cond_wait(&r->room, &r->mu);
	}
	*r->tail = it;
	r->tail = &it->next;
	r->held += bytes;
	pthread_mutex_unlock(&r->mu);
}

struct ftfb_relay_item *ftfb_relay_take(struct ftfb_relay *r)
{
	struct ftfb_relay_item *list;

	pthread_mutex_lock(&r->mu);
	list = r->head;
	r->head = NULL;
	r->tail = &r->head;
	pthread_mutex_unlock(&r->mu);
	return list;
}

void ftfb_relay_done(struct ftfb_relay *r, struct ftfb_relay_item *list)
{
	struct ftfb_relay_item *keep = NULL, *next;
	size_t bytes = 0;

	if (!list)
		return;
	pthread_mutex_lock(&r->mu);
	for (struct ftfb_relay_item *it = list; it; it = next) {
		next = it->next;
		bytes += sizeof(*it) + it->cap;
		if (it->kind == FTFB_RELAY_RECORDS &&
		    r->nspare < RELAY_SPARES) {
			it->next = r->spare;
			r->spare = it;
			r->nspare++;
		} else {
			it->next = keep;
			keep = it;
		}
	}
	r->held -= bytes;
	pthread_cond_broadcast(&r->room);
	pthread_mutex_unlock(&r->mu);
	free_list(keep);
}

int ftfb_relay_copy_records(struct ftf_writer *w, const uint8_t *data,
			    size_t len)
{
	while (len) {
		size_t n = ftf_whole_records_prefix(
			data, len < MAX_RECORD_BYTES ? len : MAX_RECORD_BYTES);
		uint8_t *p;
		int err;

		if (!n || n % 8)
			return -EBADMSG; /* a shard writes whole records only */
		err = ftf_reserve_record(w, n / 8, &p);
		if (err)
			return err;
		memcpy(p, data, n);
		data += n;
		len -= n;
	}
	return 0;
}
