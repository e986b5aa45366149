// SPDX-License-Identifier: MIT
/*
 * load_twins.c - one BPF object loaded as two copies on two threads (see
 * load_twins.h): a's maps made before either load, then the loads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "load_twins.h"

/* a's BTF in the kernel, for its maps' key and value types; -1 if it
 * cannot be (the maps are then made without, as libbpf retries them) */
static int load_btf(const struct bpf_object *obj)
{
	const struct btf *btf = bpf_object__btf(obj);
	const void *raw;
	__u32 size;
	int fd;

	if (!btf || !(raw = btf__raw_data(btf, &size)))
		return -1;
	fd = bpf_btf_load(raw, size, NULL);
	return fd < 0 ? -1 : fd;
}

/* The kinds a map made here may be: those that need no more than their
 * sizes and flags (a map of maps, a ring buffer, .kconfig ... would need
 * what libbpf does for them at load: they must come reused). */
static bool plain_map(const struct bpf_map *m)
{
	const char *name = bpf_map__name(m);
	const char *dot = strrchr(name, '.');

	if (bpf_map__is_internal(m))
		return dot && (!strcmp(dot, ".rodata") ||
			       !strcmp(dot, ".data") || !strcmp(dot, ".bss"));
	switch (bpf_map__type(m)) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
	case BPF_MAP_TYPE_TASK_STORAGE: /* (its BTF types: make_map's) */
		return true;
	default:
		return false;
	}
}

/* Makes map m as libbpf would at a's load (btf_fd: its types, or -1):
 * the new fd, or a negative errno. */
static int make_map(const struct bpf_map *m, int btf_fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = bpf_map__map_flags(m),
		    .map_extra = bpf_map__map_extra(m),
		    .numa_node = bpf_map__numa_node(m));
	const void *init;
	size_t size;
	int fd = -1, zero = 0;

	if (btf_fd >= 0) {
		o.btf_fd = btf_fd;
		o.btf_key_type_id = bpf_map__btf_key_type_id(m);
		o.btf_value_type_id = bpf_map__btf_value_type_id(m);
		fd = bpf_map_create(bpf_map__type(m), bpf_map__name(m),
				    bpf_map__key_size(m),
				    bpf_map__value_size(m),
				    bpf_map__max_entries(m), &o);
	}
	if (fd < 0) {
		o.btf_fd = o.btf_key_type_id = o.btf_value_type_id = 0;
		fd = bpf_map_create(bpf_map__type(m), bpf_map__name(m),
				    bpf_map__key_size(m),
				    bpf_map__value_size(m),
				    bpf_map__max_entries(m), &o);
	}
	if (fd < 0)
		return -errno;
	if (!bpf_map__is_internal(m))
		return fd;
	/* global data: its image, and .rodata frozen so that the verifier
	 * knows its values (the branches they rule out are not checked) */
	init = bpf_map__initial_value((struct bpf_map *)m, &size);
	if ((init && bpf_map_update_elem(fd, &zero, init, 0)) ||
	    ((bpf_map__map_flags(m) & BPF_F_RDONLY_PROG) &&
	     bpf_map_freeze(fd))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Every map of a made (those it reuses already are) and given to b,
 * whose maps come in the same order (the same ELF). */
static int share_maps(struct bpf_object *a, struct bpf_object *b)
{
	struct bpf_map *m, *twin = NULL;
	int btf_fd = -1, err = 0;

	bpf_object__for_each_map(m, a)
	{
		int fd = bpf_map__fd(m);

		twin = bpf_object__next_map(b, twin);
		if (!twin || bpf_map__type(twin) != bpf_map__type(m) ||
		    bpf_map__value_size(twin) != bpf_map__value_size(m)) {
			err = -EINVAL;
			break;
		}
		if (fd < 0) { /* not reused: made here */
			if (!plain_map(m)) {
				err = -EOPNOTSUPP;
				break;
			}
			if (btf_fd < 0)
				btf_fd = load_btf(a);
			fd = make_map(m, btf_fd);
			if (fd < 0) {
				err = fd;
				break;
			}
			err = bpf_map__reuse_fd(m, fd);
			close(fd); /* (reuse_fd keeps a copy) */
			if (err)
				break;
			fd = bpf_map__fd(m);
		}
		if ((err = bpf_map__reuse_fd(twin, fd)))
			break;
	}
	if (btf_fd >= 0)
		close(btf_fd);
	return err;
}

struct ftfb_ld_twins {
	struct bpf_object_skeleton *sk[2];
	pthread_t thread[2];
	bool threaded[2];
	int err[2];
};

static void *load_thread(void *arg)
{
	struct bpf_object_skeleton *s = arg;

	return (void *)(long)bpf_object__load_skeleton(s);
}

int ftfb_ld_twins_start(struct ftfb_ld_twins **out,
			struct bpf_object_skeleton *a,
			struct bpf_object_skeleton *b)
{
	struct ftfb_ld_twins *t;
	int err = share_maps(*a->obj, *b->obj);

	*out = NULL;
	if (err)
		return err;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->sk[0] = a;
	t->sk[1] = b;
	for (int i = 0; i < 2; i++) {
		t->threaded[i] = !pthread_create(&t->thread[i], NULL,
						 load_thread, t->sk[i]);
		if (!t->threaded[i])
			t->err[i] = bpf_object__load_skeleton(t->sk[i]);
	}
	*out = t;
	return 0;
}

/* The skeleton's views of its global data (.bss, .data, .rodata) made
 * views of the maps made here: libbpf 1.4 maps a reused map at the
 * skeleton's load, later ones only the maps they make (a write to a's
 * `armed` would otherwise reach no program). */
static int map_global_data(struct bpf_object *obj)
{
	long page = sysconf(_SC_PAGESIZE);
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj)
	{
		size_t size;
		void *view = bpf_map__initial_value(m, &size);
		bool ro = bpf_map__map_flags(m) & BPF_F_RDONLY_PROG;

		if (!bpf_map__is_internal(m) || !view ||
		    !(bpf_map__map_flags(m) & BPF_F_MMAPABLE))
			continue;
		size = (size + page - 1) / page * page;
		if (mmap(view, size, ro ? PROT_READ : PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, bpf_map__fd(m),
			 0) == MAP_FAILED)
			return -errno;
	}
	return 0;
}

int ftfb_ld_twins_wait(struct ftfb_ld_twins *t)
{
	int err;

	for (int i = 0; i < 2; i++) {
		void *ret;

		if (t->threaded[i] && !pthread_join(t->thread[i], &ret))
			t->err[i] = (int)(long)ret;
		if (!t->err[i])
			t->err[i] = map_global_data(*t->sk[i]->obj);
	}
	err = t->err[0] ? t->err[0] : t->err[1];
	free(t);
	return err;
}
