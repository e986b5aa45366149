/* SPDX-License-Identifier: MIT */
/*
 * load_twins.h - one BPF object loaded as two copies at once, on two
 * threads, so that the kernel verifies their programs in parallel.
 *
 * The verifier checks the programs of one object one after the other
 * (libbpf loads them in turn), and with -g two of them take most of
 * start-up: ftfb_cpu_sample and ftfb_offcpu_switch, 0.3 to 0.4 s each on
 * a 2-core VM. Two copies of the stack object, each told to load only
 * its share of the programs, are verified side by side; they share
 * every map, so the programs of both see one set of state as if they
 * were in one object. The loads run beside the caller, which may go on
 * starting other things meanwhile.
 */
#ifndef FTFB_LOAD_TWINS_H
#define FTFB_LOAD_TWINS_H

#include <bpf/libbpf.h>

struct ftfb_ld_twins; /* the loads under way */

/* Starts loading a and b, two opens of the same skeleton: a with its
 * rodata set and the maps it reuses (bpf_map__reuse_fd) already given,
 * each with the programs it is to load set to autoload. The maps of a
 * not yet made are made here, with a's BTF and initial values (.rodata
 * frozen, as libbpf does), and both copies reuse all of a's maps; then
 * each copy is loaded on a thread of its own (here, in turn, if no
 * thread starts). 0 and *out to wait for, or a negative errno. */
int ftfb_ld_twins_start(struct ftfb_ld_twins **out,
			struct bpf_object_skeleton *a,
			struct bpf_object_skeleton *b);

/* Waits for the loads (and frees t): 0, or the negative errno of a's
 * load, else of b's. */
int ftfb_ld_twins_wait(struct ftfb_ld_twins *t);

#endif
