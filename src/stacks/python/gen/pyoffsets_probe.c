/* SPDX-License-Identifier: MIT */
/*
 * pyoffsets_probe.c - compiled once per CPython header set at build time
 * (by src/stacks/python/gen/pyoffsets.py, with -DPy_BUILD_CORE and that version's
 * include/ and include/internal/ folders) and run: it prints the
 * structure offsets the BPF Python frame reader needs as one C
 * initializer of struct ftfb_py_offsets (bpf/pystack.h), taken by the
 * compiler from the interpreter's own headers, never written by hand.
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#if PY_VERSION_HEX < 0x03080000 || PY_VERSION_HEX >= 0x030E0000
#error "only CPython 3.8 to 3.13 have a frame layout the BPF reader knows"
#endif
#if PY_VERSION_HEX < 0x03090000
#include <frameobject.h>
#include <internal/pycore_pystate.h>
#elif PY_VERSION_HEX < 0x030B0000
#include <frameobject.h>
#include <internal/pycore_interp.h>
#include <internal/pycore_runtime.h>
#else
#include <internal/pycore_frame.h>
#include <internal/pycore_interp.h>
#include <internal/pycore_runtime.h>
#endif

/* The byte offset and mask of the one bit a bitfield setter sets. */
static void bit_of(const unsigned char *b, size_t n, unsigned *off,
		   unsigned *mask)
{
	for (size_t i = 0; i < n; i++)
		if (b[i]) {
			*off = (unsigned)i;
			*mask = b[i];
			return;
		}
}

#define O(field, val) printf("\t.%s = %lu,\n", #field, (unsigned long)(val))

static void unicode_offsets(void)
{
	PyASCIIObject a;
	unsigned off = 0, mask = 0;

	O(str_ascii_size, sizeof(PyASCIIObject));
	O(str_compact_size, sizeof(PyCompactUnicodeObject));
	O(str_length, offsetof(PyASCIIObject, length));
	O(str_utf8, offsetof(PyCompactUnicodeObject, utf8));
	memset(&a, 0, sizeof(a));
	a.state.ascii = 1;
	bit_of((const unsigned char *)&a, sizeof(a), &off, &mask);
	O(str_ascii_off, off);
	O(str_ascii_mask, mask);
	memset(&a, 0, sizeof(a));
	a.state.compact = 1;
	bit_of((const unsigned char *)&a, sizeof(a), &off, &mask);
	O(str_compact_off, off);
	O(str_compact_mask, mask);
}

static void frame_offsets(void)
{
#if PY_VERSION_HEX < 0x030B0000
	O(frame_model, FTFB_PY_FRAME_OBJECTS);
	O(tstate_frame, offsetof(PyThreadState, frame));
	O(cframe_frame, FTFB_PY_NO_OFFSET);
	O(frame_code, offsetof(PyFrameObject, f_code));
	O(frame_previous, offsetof(PyFrameObject, f_back));
	O(frame_flag, FTFB_PY_NO_OFFSET);
	O(owner_cstack, 0);
#elif PY_VERSION_HEX < 0x030C0000
	O(frame_model, FTFB_PY_FRAME_IS_ENTRY);
	O(tstate_frame, offsetof(PyThreadState, cframe));
	O(cframe_frame, offsetof(_PyCFrame, current_frame));
	O(frame_code, offsetof(_PyInterpreterFrame, f_code));
	O(frame_previous, offsetof(_PyInterpreterFrame, previous));
	O(frame_flag, offsetof(_PyInterpreterFrame, is_entry));
	O(owner_cstack, 0);
#else
	O(frame_model, FTFB_PY_FRAME_OWNER);
#if PY_VERSION_HEX < 0x030D0000
	O(tstate_frame, offsetof(PyThreadState, cframe));
	O(cframe_frame, offsetof(_PyCFrame, current_frame));
	O(frame_code, offsetof(_PyInterpreterFrame, f_code));
#else
	O(tstate_frame, offsetof(PyThreadState, current_frame));
	O(cframe_frame, FTFB_PY_NO_OFFSET);
	O(frame_code, offsetof(_PyInterpreterFrame, f_executable));
#endif
	O(frame_previous, offsetof(_PyInterpreterFrame, previous));
	O(frame_flag, offsetof(_PyInterpreterFrame, owner));
	O(owner_cstack, FRAME_OWNED_BY_CSTACK);
#endif
}

static void thread_offsets(void)
{
	O(runtime_interp_head, offsetof(_PyRuntimeState, interpreters.head));
	O(interp_next, offsetof(PyInterpreterState, next));
#if PY_VERSION_HEX < 0x030B0000
	O(interp_threads, offsetof(PyInterpreterState, tstate_head));
#else
	O(interp_threads, offsetof(PyInterpreterState, threads.head));
#endif
	O(tstate_next, offsetof(PyThreadState, next));
	O(tstate_thread_id, offsetof(PyThreadState, thread_id));
}

static void code_offsets(void)
{
	O(object_type, offsetof(PyObject, ob_type));
#if PY_VERSION_HEX < 0x030B0000
	O(code_name, offsetof(PyCodeObject, co_name));
#else
	O(code_name, offsetof(PyCodeObject, co_qualname));
#endif
	O(code_filename, offsetof(PyCodeObject, co_filename));
	O(code_firstlineno, offsetof(PyCodeObject, co_firstlineno));
}

int main(void)
{
	printf("{\n\t.major = %d,\n\t.minor = %d,\n", PY_MAJOR_VERSION,
	       PY_MINOR_VERSION);
	thread_offsets();
	frame_offsets();
	code_offsets();
	unicode_offsets();
	printf("}, /* %s */\n", PY_VERSION);
	return 0;
}
