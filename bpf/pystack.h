/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/pystack.h - Python frames in stack samples: what the BPF reader
 * (bpf/pystack.bpf.h) and userspace (src/pystack*.c) share.
 *
 * For each CPython process it knows (by its maps: libpython3.X or a
 * python3.X binary), userspace puts into `py_procs` the address of the
 * interpreter's _PyRuntime and PyCode_Type, and the structure offsets of
 * its version (struct ftfb_py_offsets, one row per version generated at
 * build time from that version's own headers: src/stacks/python/gen/pyoffsets.py).
 * At each sample the BPF side finds the thread's PyThreadState in the
 * interpreters' thread lists (thread_id is the pthread_t, on x86-64 the
 * thread's fs base) and walks its frame chain, leaf first.
 */
#ifndef FTFB_PYSTACK_H
#define FTFB_PYSTACK_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* How a version chains its frames (ftfb_py_offsets.frame_model):
 * 3.8-3.10: PyFrameObject.f_back, every frame runs in an eval call of
 * its own; 3.11: _PyInterpreterFrame, is_entry marks an eval call's
 * first frame; 3.12+: a frame whose owner is FRAME_OWNED_BY_CSTACK is
 * the eval call's shim, below its first frame (not a Python frame). */
#define FTFB_PY_FRAME_OBJECTS 0
#define FTFB_PY_FRAME_IS_ENTRY 1
#define FTFB_PY_FRAME_OWNER 2
#define FTFB_PY_NO_OFFSET 0xffff

/* Byte offsets into the interpreter's structures (all from its headers). */
struct ftfb_py_offsets {
	__u8 major, minor;
	__u16 runtime_interp_head; /* _PyRuntimeState.interpreters.head */
	__u16 interp_next;	   /* PyInterpreterState.next */
	__u16 interp_threads;	   /* ... .tstate_head / .threads.head */
	__u16 tstate_next;	   /* PyThreadState.next */
	__u16 tstate_thread_id;	   /* PyThreadState.thread_id (pthread_t) */
	__u16 frame_model;	   /* FTFB_PY_FRAME_* */
	__u16 tstate_frame;	   /* .frame, .cframe or .current_frame */
	__u16 cframe_frame;	   /* _PyCFrame.current_frame, or NO_OFFSET */
	__u16 frame_code;	   /* f_code / f_executable */
	__u16 frame_previous;	   /* f_back / previous */
	__u16 frame_flag;	   /* is_entry (3.11) / owner (3.12+) */
	__u16 owner_cstack;	   /* FRAME_OWNED_BY_CSTACK (3.12+) */
	__u16 object_type;	   /* PyObject.ob_type */
	__u16 code_name;	   /* co_qualname (3.11+), co_name before */
	__u16 code_filename;	   /* co_filename */
	__u16 code_firstlineno;	   /* co_firstlineno (int) */
	__u16 str_ascii_size;	   /* sizeof(PyASCIIObject): ASCII data */
	__u16 str_compact_size;	   /* sizeof(PyCompactUnicodeObject) */
	__u16 str_length;	   /* PyASCIIObject.length */
	__u16 str_utf8;		   /* PyCompactUnicodeObject.utf8 */
	__u16 str_ascii_off, str_ascii_mask;	 /* state.ascii's bit */
	__u16 str_compact_off, str_compact_mask; /* state.compact's bit */
};

/* py_procs value: one CPython process. */
struct ftfb_py_proc {
	__u64 runtime;	 /* &_PyRuntime in the process */
	__u64 code_type; /* &PyCode_Type: a frame's code object is checked */
	struct ftfb_py_offsets o;
};

/* Python frames a sample carries at most (the outermost ones beyond are
 * left out, and the sample is flagged FTFB_PY_TRUNCATED). */
#define FTFB_PY_MAX_DEPTH 64
/* An entry of the Python frames, leaf first: the code object's address
 * (bits 3-47: x86-64 user space), the low 16 bits of its co_firstlineno
 * in bits 48-63, and FTFB_PY_EVAL_FIRST when the frame is the first
 * (outermost) one an interpreter call (_PyEval_EvalFrameDefault) ran.
 * The line tells apart two code objects that one address held in turn
 * (one freed, another made there: seen at start-up). */
#define FTFB_PY_EVAL_FIRST 1ull
#define FTFB_PY_CODE_MASK 0x0000fffffffffff8ull
#define FTFB_PY_LINE_SHIFT 48
#define FTFB_PY_KEY_MASK (~7ull) /* the code object's identity */

/* The Python part of a stack event (struct ftfb_stack.py): like the
 * native stacks, known by a hash (0: no Python frames), its entries sent
 * after the kernel ips only the first time. */
#define FTFB_PY_TRUNCATED 1 /* flags: deeper than FTFB_PY_MAX_DEPTH */
struct ftfb_py_part {
	__u64 hash;
	__u16 n;
	__u16 flags;
	__u32 _pad;
};

/* FTFB_EV_PYCODE: the strings of a code object, sent before the first
 * sample that names it (once per code object and process image, an LRU
 * map in the kernel). hdr.tgid: the process. Names are cut to fit and
 * always NUL-terminated; "?" when unreadable. */
#define FTFB_PY_NAME_LEN 128
#define FTFB_PY_FILE_LEN 256
struct ftfb_pycode {
	struct ftfb_hdr hdr;
	__u64 code;
	__s32 firstlineno;
	__u32 _pad;
	char name[FTFB_PY_NAME_LEN]; /* co_qualname (3.11+), co_name */
	char file[FTFB_PY_FILE_LEN]; /* co_filename */
};

#endif
