// SPDX-License-Identifier: MIT
/*
 * test_pyoffsets.c - the CPython offsets the build generated from the
 * headers (src/gen/pyoffsets.py) against the ones CPython 3.13's own
 * build put in its binary: _PyRuntime starts with _Py_DebugOffsets
 * (cookie "xdebugpy"), the offsets of the fields a debugger needs, as
 * its compiler computed them. Read from pyenv's libpython3.13.so (skipped,
 * exit 77, when there is none, or when the build found no 3.13 headers).
 *
 * The layout of _Py_DebugOffsets 3.13 (Include/internal/pycore_runtime.h,
 * all uint64_t): cookie[8], version, free_threaded; runtime_state {size,
 * finalizing, interpreters_head}; interpreter_state {size, id, next,
 * threads_head, 9 more}; thread_state {size, prev, next, interp,
 * current_frame, thread_id, ...}; interpreter_frame {size, previous,
 * executable, instr_ptr, localsplus, owner}; code_object {size,
 * filename, name, qualname, linetable, firstlineno, 4 more}; pyobject
 * {size, ob_type}.
 */
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pystack_find.h"

#define SKIP 77
#define W(i) (8 * (i)) /* byte offset of the i-th 64-bit word */

static int fails;

static void same(const char *what, uint64_t cpython, unsigned ours)
{
	printf("  %-40s CPython's build %4llu, generated %4u  %s\n", what,
	       (unsigned long long)cpython, ours,
	       cpython == ours ? "ok" : "DIFFER");
	fails += cpython != ours;
}

/* The first bytes of the initialized data of symbol name in ELF file fd. */
static int symbol_bytes(Elf *e, const char *name, uint8_t *out, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	uint64_t addr = 0;

	while (!addr && (scn = elf_nextscn(e, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !d)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++)
			if (gelf_getsym(d, (int)i, &sym) &&
			    !strcmp(elf_strptr(e, sh.sh_link, sym.st_name),
				    name))
				addr = sym.st_value;
	}
	scn = NULL;
	while (addr && (scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    addr < sh.sh_addr || addr + len > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return -1;
		memcpy(out, (uint8_t *)d->d_buf + (addr - sh.sh_addr), len);
		return 0;
	}
	return -1;
}

static uint64_t word(const uint8_t *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

int main(void)
{
	const struct ftfb_py_offsets *o = ftfb_py_offsets_for(13);
	const char *root = getenv("PYENV_ROOT");
	char pat[512];
	uint8_t b[W(48)];
	glob_t g;
	Elf *e;
	int fd;

	snprintf(pat, sizeof(pat),
		 "%s/versions/3.13.*/lib/libpython3.13.so.1.0",
		 root ? root : "/root/.pyenv");
	if (!o || glob(pat, 0, NULL, &g) || !g.gl_pathc) {
		printf("no CPython 3.13 (offsets %s, %s): skipped\n",
		       o ? "generated" : "not generated", pat);
		return SKIP;
	}
	printf("%s\n", g.gl_pathv[0]);
	elf_version(EV_CURRENT);
	fd = open(g.gl_pathv[0], O_RDONLY);
	e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (!e || symbol_bytes(e, "_PyRuntime", b, sizeof(b)) ||
	    memcmp(b, "xdebugpy", 8)) {
		printf("FAIL: no _Py_DebugOffsets at _PyRuntime\n");
		return 1;
	}
	same("runtime_state.interpreters_head", word(b, W(5)),
	     o->runtime_interp_head);
	same("interpreter_state.next", word(b, W(8)), o->interp_next);
	same("interpreter_state.threads_head", word(b, W(9)),
	     o->interp_threads);
	same("thread_state.next", word(b, W(21)), o->tstate_next);
	same("thread_state.current_frame", word(b, W(23)), o->tstate_frame);
	same("thread_state.thread_id", word(b, W(24)), o->tstate_thread_id);
	same("interpreter_frame.previous", word(b, W(29)), o->frame_previous);
	same("interpreter_frame.executable", word(b, W(30)), o->frame_code);
	same("interpreter_frame.owner", word(b, W(33)), o->frame_flag);
	same("code_object.filename", word(b, W(35)), o->code_filename);
	same("code_object.qualname", word(b, W(37)), o->code_name);
	same("code_object.firstlineno", word(b, W(39)), o->code_firstlineno);
	same("pyobject.ob_type", word(b, W(45)), o->object_type);
	elf_end(e);
	close(fd);
	globfree(&g);
	printf(fails ? "FAIL\n" : "PASS\n");
	return fails ? 1 : 0;
}
