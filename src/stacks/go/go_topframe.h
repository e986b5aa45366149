/* SPDX-License-Identifier: MIT */
/*
 * go_topframe.h - where a Go stack starts.
 *
 * Go code has no .eh_frame; the BPF walker follows its frame pointers
 * (bpf/unwind.bpf.h). A goroutine's first frame returns to
 * runtime.goexit with rbp 0, where the walk ends by itself; but a
 * thread Go made with clone(2) starts runtime.mstart with the rbp of
 * the thread that made it, so the frame-pointer chain goes on past
 * mstart into that thread's stack as it is now (frames of another
 * time). Go's own traceback stops at these functions (its "top
 * frames"), and so do our stacks.
 */
#ifndef FTFB_GO_TOPFRAME_H
#define FTFB_GO_TOPFRAME_H

#include <stdbool.h>
#include <stdint.h>

/* Whether function (a symbol name, NULL: none) is the outermost frame
 * of a Go stack: runtime.goexit, runtime.mstart, runtime.rt0_go (with or
 * without the ".abi0" of an assembly function's symbol). */
bool ftfb_go_top_frame(const char *function);

/* The file offset of runtime.mstart in the ELF file open at fd (a Go
 * program), for the BPF walker to end a thread's stack there: 0, or
 * -ENOENT (none: not Go) or another -errno (unreadable); path names it
 * in messages. */
int ftfb_go_mstart_offset(int fd, const char *path, uint64_t *off);

#endif
