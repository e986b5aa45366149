/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/uw_refresh.bpf.h - a process's walker entry made whole from the
 * kernel's own list of its mappings when its image ends (exit, exec).
 *
 * The loader reads /proc/PID/maps when a process first needs it: for a
 * new process that is while ld.so is still mapping its libraries. Its
 * samples in libc then find an address in no mapping, are kept as
 * copies of their stacks and the loader is asked to read the maps again;
 * but a process of a build (sh, as, gcc) lives a few milliseconds and
 * has exited by then: beside `make -j2`, 76 of its stacks ended
 * "address in no mapping", most of as's, bash's and gcc's incomplete
 * ones (bench/HISTORY.md). At its end the process still has its
 * mappings: a process whose walk found one missing (uw_stale) has its
 * entry rebuilt from them, each file's table found by its device and
 * inode (uw_files, which the loader writes as it installs a table), so
 * that the copies held in userspace are finished with every library it
 * had; and its mappings are kept (uw_vmas) for the symbolizer, which
 * names the frames of a process gone from what the loader read of it.
 *
 * Included by unwind.bpf.h after uw_find_map.
 */
#ifndef FTFB_UW_REFRESH_BPF_H
#define FTFB_UW_REFRESH_BPF_H

#include "uw_file.h"

#define UW_VM_EXEC 0x4 /* VM_EXEC (include/linux/mm.h) */
/* the mappings looked at, at most: a process of a build has a few
 * dozen, one that maps all it may (vm.max_map_count) costs its exit no
 * more than this */
#define UW_REFRESH_MAX_VMAS 4096

/* the file of an anonymous mapping (JIT code): walked by frame pointer */
#define UW_DEV_ANON (~0ull)

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it,
				 struct task_struct *task,
				 __u64 addr) __weak __ksym;
extern struct vm_area_struct *
bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __weak __ksym;
extern void
bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __weak __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, struct ftfb_uw_file_key);
	__type(value, struct ftfb_uw_file);
} uw_files SEC(".maps");

/* tgid -> the image whose walk met an address its entry did not map */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} uw_stale SEC(".maps");

/* the mappings of an image ended, as the refresh found them; userspace
 * takes each out with the image's entry (uw_exited) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 512);
	__type(key, struct ftfb_uw_ended);
	__type(value, struct ftfb_uw_vmas);
} uw_vmas SEC(".maps");

struct uw_refresh_buf {
	struct ftfb_uw_proc p; /* the entry rebuilt */
	struct ftfb_uw_vmas v; /* the mappings */
	__u32 tgid;
	__u32 seen; /* mappings looked at */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uw_refresh_buf);
} uw_refresh_bufs SEC(".maps");

/* The walk of the current task met an address its entry does not map
 * (or it has none): its image is refreshed when it ends. */
static __always_inline void uw_mark_stale(__u32 tgid)
{
	__u32 image = FTFB_IMAGE_ID(bpf_get_current_task_btf());

	bpf_map_update_elem(&uw_stale, &tgid, &image, BPF_ANY);
}

/* uw_want, and the image marked for its refresh. A global function:
 * inlined at uw_frame's three calls it raised the instructions the
 * verifier checks for ftfb_cpu_sample from 100,319 to 130,101. */
__noinline int uw_want_stale(__u32 tgid, __u64 pc)
{
	uw_want(tgid, pc);
	uw_mark_stale(tgid);
	return 0;
}

/* One executable mapping, in address order, added to the rebuilt entry
 * (its table: the file's, else what the old entry had there, else
 * "being built" or, anonymous, frame pointers) and to the mappings kept.
 * A global function: the verifier checks it once, not per iteration. */
__noinline int uw_refresh_put(__u64 start, __u64 end, __u64 pgoff, __u64 dev,
			      __u64 ino)
{
	struct ftfb_uw_file_key key = {dev, ino};
	const struct ftfb_uw_proc *old;
	const struct ftfb_uw_file *f;
	const struct ftfb_uw_map *om;
	struct uw_refresh_buf *b;
	struct ftfb_uw_map *m;
	__u32 zero = 0, n;
	__u64 bias;

	b = bpf_map_lookup_elem(&uw_refresh_bufs, &zero);
	if (!b)
		return 0;
	n = b->p.n;
	if (n >= FTFB_UW_MAX_MAPS)
		return 0;
	if (b->v.n < FTFB_UW_VMAS_MAX) {
		struct ftfb_uw_vma *v =
			&b->v.v[b->v.n & (FTFB_UW_VMAS_MAX - 1)];

		v->start = start;
		v->end = end;
		v->pgoff = pgoff;
		v->dev = dev;
		v->ino = ino;
		b->v.n++;
	}
	m = &b->p.m[n & (FTFB_UW_MAX_MAPS - 1)];
	m->start = start;
	m->end = end;
	m->bias = 0;
	m->go_top = 0;
	m->table =
		dev == UW_DEV_ANON ? FTFB_UW_TABLE_FP : FTFB_UW_TABLE_PENDING;
	f = bpf_map_lookup_elem(&uw_files, &key);
	old = bpf_map_lookup_elem(&uw_procs, &b->tgid);
	om = old ? uw_find_map(old, start) : NULL;
	if (f && ftfb_uw_file_bias(f, start, pgoff, &bias)) {
		m->table = f->table;
		m->bias = bias;
	} else if (om && om->start == start && om->end == end) {
		*m = *om; /* (a Go binary's, the [uprobes] page) */
	}
	b->p.n = n + 1;
	return 0;
}

/* The device number as /proc/PID/maps gives it (major << 32 | minor),
 * from the kernel's (major << 20 | minor). */
static __always_inline __u64 uw_maps_dev(__u32 kdev)
{
	return ((__u64)(kdev >> 20) << 32) | (kdev & 0xfffff);
}

/* Process t's entry rebuilt from its mappings now, if its walk found
 * one missing in this image; its mappings kept for image `image`'s end. */
static __always_inline void uw_refresh(struct task_struct *t, __u32 image)
{
	__u32 zero = 0, tgid = t->tgid, *stale;
	struct ftfb_uw_ended key = {tgid, image};
	struct vm_area_struct *vma;
	struct uw_refresh_buf *b;
	struct mm_struct *mm;

	stale = bpf_map_lookup_elem(&uw_stale, &tgid);
	if (!stale || *stale != image ||
	    !bpf_ksym_exists(bpf_iter_task_vma_new))
		return;
	bpf_map_delete_elem(&uw_stale, &tgid);
	b = bpf_map_lookup_elem(&uw_refresh_bufs, &zero);
	mm = t->mm;
	if (!b || !mm)
		return;
	b->tgid = tgid;
	b->p.n = 0;
	b->p.flags = FTFB_UW_PROC_FINAL; /* (nothing maps in it any more) */
	b->v.n = 0;
	b->seen = 0;
	bpf_for_each(task_vma, vma, t, 0)
	{
		/* (bounded: a process may have 65530 mappings; counted in
		 * the map, where the verifier does not follow the value,
		 * or it would walk the loop 4,096 times) */
		if (++b->seen > UW_REFRESH_MAX_VMAS)
			break;
		struct file *file = vma->vm_file;
		__u64 dev = UW_DEV_ANON, ino = 0;

		if (!(vma->vm_flags & UW_VM_EXEC))
			continue;
		if (file) {
			dev = uw_maps_dev(file->f_inode->i_sb->s_dev);
			ino = file->f_inode->i_ino;
		} else if (vma->vm_start == (__u64)mm->context.vdso) {
			dev = 0; /* (the vDSO's table: uw_files' {0, 0}) */
		}
		uw_refresh_put(vma->vm_start, vma->vm_end,
			       (__u64)vma->vm_pgoff << 12, dev, ino);
	}
	if (!b->p.n)
		return;
	bpf_map_update_elem(&uw_procs, &tgid, &b->p, BPF_ANY);
	bpf_map_update_elem(&uw_vmas, &key, &b->v, BPF_ANY);
}

#endif
