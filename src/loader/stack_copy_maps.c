// SPDX-License-Identifier: MIT
/*
 * stack_copy_maps.c - the walker's maps read for the stacks finished in
 * userspace (see stack_copy_maps.h).
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "bpf_loader_priv.h"
#include "mapped_log.h"
#include "maps_memo.h"
#include "stack_copy_maps.h"
#include "stacks.skel.h"

struct ftfb_sf_maps {
	int procs_fd, exited_fd, tables_fd, vmas_fd, files_fd;
	void *rows;
	size_t len;
};

static int get_proc(void *ctx, uint32_t tgid, struct ftfb_uw_proc *out)
{
	struct ftfb_sf_maps *m = ctx;

	return bpf_map_lookup_elem(m->procs_fd, &tgid, out) ? -ENOENT : 0;
}

/* The mappings the walker listed as the image ended, if it did
 * (bpf/uw_refresh.bpf.h). */
static void take_vmas(struct ftfb_sf_maps *m, const struct ftfb_uw_ended *key,
		      struct ftfb_uw_vmas *got)
{
	got->n = 0;
	if (bpf_map_lookup_and_delete_elem(m->vmas_fd, key, got))
		return;
	if (got->n > FTFB_UW_VMAS_MAX)
		got->n = FTFB_UW_VMAS_MAX;
}

static int take_exited(void *ctx, uint32_t tgid, uint32_t image,
		       struct ftfb_uw_proc *out, struct ftfb_uw_vmas *vmas)
{
	struct ftfb_sf_maps *m = ctx;
	struct ftfb_uw_ended key = {tgid, image};

	take_vmas(m, &key, vmas);
	return bpf_map_lookup_and_delete_elem(m->exited_fd, &key, out) ? -ENOENT
								       : 0;
}

static int get_file(void *ctx, uint64_t dev, uint64_t ino,
		    struct ftfb_uw_file *out)
{
	struct ftfb_sf_maps *m = ctx;
	struct ftfb_uw_file_key key = {dev, ino};

	return bpf_map_lookup_elem(m->files_fd, &key, out) ? -ENOENT : 0;
}

static size_t list_mapped(void *ctx, uint32_t tgid, uint64_t at_ns,
			  struct ftfb_uw_vma *out, size_t max)
{
	(void)ctx;
	return ftfb_mapped_list(tgid, at_ns, out, max);
}

static uint64_t log_until(void *ctx)
{
	(void)ctx;
	return ftfb_mapped_until();
}

static int get_table(void *ctx, uint32_t id, struct ftfb_uw_table *out)
{
	struct ftfb_sf_maps *m = ctx;

	return bpf_map_lookup_elem(m->tables_fd, &id, out) ? -1 : 0;
}

int ftfb_sf_maps_open(struct ftfb_loader *l, struct ftfb_sf_maps **out,
		      struct ftfb_sf_source *src)
{
	struct ftfb_sf_maps *m;
	uint32_t n;

	*out = NULL;
	if (!l || !l->stk)
		return -ENODEV;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	n = bpf_map__max_entries(l->stk->maps.uw_rows);
	m->procs_fd = bpf_map__fd(l->stk->maps.uw_procs);
	m->exited_fd = bpf_map__fd(l->stk->maps.uw_exited);
	m->tables_fd = bpf_map__fd(l->stk->maps.uw_tables);
	m->vmas_fd = bpf_map__fd(l->stk->maps.uw_vmas);
	m->files_fd = bpf_map__fd(l->stk->maps.uw_files);
	m->len = (size_t)n * sizeof(struct ftfb_uw_row);
	/* (the table thread writes rows before it publishes their table:
	 * a row read here belongs to a table already in uw_tables) */
	m->rows = mmap(NULL, m->len, PROT_READ, MAP_SHARED,
		       bpf_map__fd(l->stk->maps.uw_rows), 0);
	if (m->rows == MAP_FAILED) {
		int err = -errno;

		free(m);
		return err;
	}
	src->proc = get_proc;
	src->exited = take_exited;
	src->file = get_file;
	src->table = get_table;
	src->mapped = list_mapped;
	src->mapped_until = log_until;
	src->rows = m->rows;
	src->nrows = n;
	src->ctx = m;
	*out = m;
	return 0;
}

void ftfb_sf_maps_free(struct ftfb_sf_maps *m)
{
	if (!m)
		return;
	munmap(m->rows, m->len);
	free(m);
}
