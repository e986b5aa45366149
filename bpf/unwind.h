/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/unwind.h - the unwind tables the BPF stack walker (unwind.bpf.h)
 * reads, shared with userspace, which builds them from the binaries'
 * CFI (src/unwind_table.c) and loads them (src/unwind_maps.c).
 *
 * x86-64 only. A binary's table is a sorted run of rows in the shared
 * array `uw_rows`; row i covers the addresses from its pc up to the next
 * row's pc, in the binary's own (ELF virtual) addresses minus the table's
 * base. Each row says how to find the caller's frame there: the CFA
 * (canonical frame address: the caller's rsp) from rsp or rbp plus an
 * offset, and where the caller's rbp was saved; the return address is
 * always at CFA - 8 (the x86-64 ABI; rows where the CFI says otherwise
 * are "unsupported").
 */
#ifndef FTFB_UNWIND_H
#define FTFB_UNWIND_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* ftfb_uw_row.cfa_type */
enum {
	FTFB_UW_CFA_NONE = 0,	 /* no CFI covers this address */
	FTFB_UW_CFA_RSP = 1,	 /* CFA = rsp + cfa_off */
	FTFB_UW_CFA_RBP = 2,	 /* CFA = rbp + cfa_off */
	FTFB_UW_CFA_PLT = 3,	 /* a PLT entry: CFA = rsp + 8, + 8 more
				  * when (pc & 15) >= cfa_off */
	FTFB_UW_CFA_END = 4,	 /* return address undefined: the outermost
				  * frame (_start, clone's child) */
	FTFB_UW_CFA_UNSUPP = 5,	 /* a rule the walker does not follow */
	FTFB_UW_CFA_SIGNAL = 6,	 /* a signal trampoline's frame */
	FTFB_UW_CFA_CLONE = 7,	 /* between clone's syscall and the child's
				  * code (no CFI: glibc ends the FDE there);
				  * the child (rax 0): the outermost frame;
				  * the parent: CFA = rsp + cfa_off */
	FTFB_UW_CFA_RSP_RET = 8, /* CFA = rsp + cfa_off at a return
				  * address or past a syscall; no CFI
				  * elsewhere (a body past its prologue, in a
				  * static program's code without CFI, from
				  * the prologue: src/.../prologue_rows.h) */
	FTFB_UW_CFA_RA_RDI = 9,	 /* CFA = rsp + cfa_off, the return
				  * address in rdi (glibc's __vfork, between
				  * its pop and its push): followed from the
				  * first frame only, whose rdi is known */
	FTFB_UW_CFA_RBX = 10,	 /* CFA = rbx + cfa_off (ld.so's
				  * _dl_runtime_resolve_xsavec, under every
				  * symbol lookup of a lazy binding): rbx
				  * followed through the frames below by
				  * their rbx rules (FTFB_UW_RBX_*) */
	FTFB_UW_CFA_LAST = FTFB_UW_CFA_RBX, /* the highest: a new type
					     * moves it (the table cache
					     * refuses types above) */
};

/* ftfb_uw_row.rbp_type */
enum {
	FTFB_UW_RBP_SAME = 0,	/* the caller's rbp is this frame's */
	FTFB_UW_RBP_AT_CFA = 1, /* saved at CFA + rbp_off */
	FTFB_UW_RBP_LOST = 2,	/* unknown (undefined, or another rule) */
};

/* ftfb_uw_row.rbx_type: where the caller's rbx is, for a CFA_RBX row
 * above. Compilers push rbx right after rbp, and the row has one offset:
 * the two places it can say. */
enum {
	FTFB_UW_RBX_SAME = 0,	   /* the caller's rbx is this frame's */
	FTFB_UW_RBX_BELOW_RBP = 1, /* saved at CFA + rbp_off - 8 (rbp saved) */
	FTFB_UW_RBX_AT_CFA = 2,	   /* saved at CFA + rbp_off8 * 8 (rbp not
				    * saved: the offset is rbx's) */
	FTFB_UW_RBX_LOST = 3,	   /* unknown: another place, another rule */
};

/* 8 bytes: an array map's elements are 8-byte aligned. An offset that
 * does not fit makes the row "unsupported" (CFA) or "lost" (rbp, rbx). */
struct ftfb_uw_row {
	__u32 pc;
	__s16 cfa_off;
	__u8 type;     /* cfa_type | rbp_type << 4 | rbx_type << 6 */
	__s8 rbp_off8; /* the rbp offset / 8 (rbx's: FTFB_UW_RBX_AT_CFA) */
};
#define FTFB_UW_CFA_TYPE(r) ((r)->type & 15)
#define FTFB_UW_RBP_TYPE(r) (((r)->type >> 4) & 3)
#define FTFB_UW_RBX_TYPE(r) ((r)->type >> 6)

/* One binary's rows: uw_rows[first .. first + n), sorted by pc, and
 * their page index right after them (bpf/uw_index.h; idx_pages 0: none,
 * the walker searches the whole table). Once its uw_tables entry is
 * written, a table's rows and index never change (a new table gets a new
 * index and rows of its own): the walker keeps copies of rows it found
 * (unwind.bpf.h's uw_row_cache). */
struct ftfb_uw_table {
	__u32 first;
	__u32 n;
	__u32 idx_pages; /* entries of its index */
	__u32 idx_shift; /* an entry per 1 << idx_shift row addresses */
};

/* ftfb_uw_map.table, when it is not a table index */
#define FTFB_UW_TABLE_NONE 0xffffffffu	  /* no usable CFI: stop there */
#define FTFB_UW_TABLE_FP 0xfffffffeu	  /* anonymous code (JIT): follow rbp */
#define FTFB_UW_TABLE_PENDING 0xfffffffdu /* being built: "not loaded yet" */
/* the [uprobes] page: the out-of-line copies of probed instructions and
 * the uretprobe trampoline, stepped through the thread's uprobe state */
#define FTFB_UW_TABLE_UPROBES 0xfffffffcu
/* a table its build's budget refused (crafted or huge CFI, or no room
 * left in uw_rows): stop there, saying so */
#define FTFB_UW_TABLE_OVER_BUDGET 0xfffffffbu

/* An executable mapping of a process: an address pc in [start, end) is
 * at row address pc - bias of its table. */
struct ftfb_uw_map {
	__u64 start, end, bias;
	__u32 table;
	/* in a binary with no CFI, 1 + the offset from start of Go's
	 * runtime.mstart, where a thread Go made starts (what its frame
	 * pointers lead to beyond is its parent's stack); 0: none */
	__u32 go_top;
};
/* the bytes from runtime.mstart within which a return address is its */
#define FTFB_UW_GO_TOP_BYTES 16

#define FTFB_UW_MAX_MAPS 256
/* The executable mappings of a process (map `uw_procs`), sorted by
 * start. */
struct ftfb_uw_proc {
	__u32 n;
	__u32 flags; /* FTFB_UW_PROC_* */

	struct ftfb_uw_map m[FTFB_UW_MAX_MAPS];
};

/* The key of an ended image's entry (map `uw_exited`): the process and
 * its image (FTFB_IMAGE_ID, as its exec or exit event gives it). */
struct ftfb_uw_ended {
	__u32 tgid;
	__u32 image;
};

/* A binary's table by its file (map `uw_files`, written by the loader
 * as it installs the table; bpf/uw_refresh.bpf.h): dev as
 * /proc/PID/maps gives it (major << 32 | minor); the vDSO's {0, 0}. */
struct ftfb_uw_file_key {
	__u64 dev, ino;
};

#define FTFB_UW_FILE_SEGS 4 /* (a binary with more is not written) */
struct ftfb_uw_file_seg {
	__u64 offset, vaddr, filesz; /* an executable PT_LOAD's */
};
struct ftfb_uw_file {
	__u32 table;
	__u32 nsegs;
	__u64 base; /* the virtual address of its rows' pc 0 */
	struct ftfb_uw_file_seg segs[FTFB_UW_FILE_SEGS];
};

/* The executable mappings of an image as it ended (map `uw_vmas`, keyed
 * by struct ftfb_uw_ended), for the symbolizer: dev as in
 * ftfb_uw_file_key, ~0 for anonymous memory; pgoff in bytes. */
#define FTFB_UW_VMAS_MAX 64
struct ftfb_uw_vma {
	__u64 start, end, pgoff, dev, ino;
};
struct ftfb_uw_vmas {
	__u32 n;
	__u32 _pad;
	struct ftfb_uw_vma v[FTFB_UW_VMAS_MAX];
};

/* The entry will not be read again for an address outside its mappings
 * (the loader's rereads of this image are spent): such an address is a
 * stop, not a wait. Until then it is code mapped since the entry was
 * read (a library ld.so or dlopen is still mapping, new JIT code),
 * walked from a copy of the stack once the entry is read again. */
#define FTFB_UW_PROC_FINAL 1u

/* Why a user stack ended (map `uw_stats` counts them, per reason; the
 * last user frame of a stack that did not reach its end is
 * FTFB_UW_STOP_IP(reason), which the symbolizer names). */
enum {
	FTFB_UW_COMPLETE = 0,	 /* reached the outermost frame */
	FTFB_UW_NOT_LOADED = 1,	 /* the process's tables are not loaded yet */
	FTFB_UW_NO_MAPPING = 2,	 /* an address in no known mapping */
	FTFB_UW_NO_CFI = 3,	 /* no CFI for the address */
	FTFB_UW_UNSUPPORTED = 4, /* a CFI rule the walker does not follow */
	FTFB_UW_UNREADABLE = 5,	 /* stack memory not readable */
	FTFB_UW_DEPTH = 6,	 /* deeper than the depth limit */
	FTFB_UW_BAD_FRAME = 7,	 /* a frame that cannot be right (the
				  * stack pointer went down, rbp lost) */
	FTFB_UW_SIGNAL = 8,	 /* a signal handler's frame */
	FTFB_UW_OVER_BUDGET = 9, /* in a binary whose table was refused */
	FTFB_UW_NREASONS = 10,
};
/* counters after the reasons in uw_stats */
#define FTFB_UW_STAT_STACKS FTFB_UW_NREASONS /* user stacks walked */
#define FTFB_UW_STAT_FRAMES (FTFB_UW_NREASONS + 1)
/* kernel stacks of threads blocking: found again from a chain seen
 * before (bpf/kstack_cache.bpf.h), or unwound by the kernel */
#define FTFB_UW_STAT_KSTACK_FOUND (FTFB_UW_NREASONS + 2)
#define FTFB_UW_STAT_KSTACK_UNWOUND (FTFB_UW_NREASONS + 3)
/* and their user stacks: found again (bpf/ustack_cache.bpf.h), walked */
#define FTFB_UW_STAT_USTACK_FOUND (FTFB_UW_NREASONS + 4)
#define FTFB_UW_STAT_USTACK_WALKED (FTFB_UW_NREASONS + 5)
/* user stacks of the current thread (on-CPU samples, wakers) ended with
 * frames of its last walk (bpf/utail.bpf.h), and the frames of a last
 * walk in the same state whose words the stack no longer held */
#define FTFB_UW_STAT_TAIL_FOUND (FTFB_UW_NREASONS + 6)
#define FTFB_UW_STAT_TAIL_REFUSED (FTFB_UW_NREASONS + 7)
#define FTFB_UW_NSTATS (FTFB_UW_NREASONS + 8)

/* A stop frame: in the kernel's half of the address space, so never a
 * user address. */
#define FTFB_UW_STOP_BASE 0xfffffffffffff000ull
#define FTFB_UW_STOP_IP(reason) (FTFB_UW_STOP_BASE + (reason))

#endif
