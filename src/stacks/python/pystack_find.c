// SPDX-License-Identifier: MIT
/*
 * pystack_find.c - finds CPython in a process (see pystack_find.h).
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_file.h"
#include "pystack_find.h"
#include "pyoffsets_table.h"

#define DELETED " (deleted)"

const struct ftfb_py_offsets *ftfb_py_offsets_for(int minor)
{
	for (unsigned i = 0; i < FTFB_PY_OFFSETS_COUNT; i++)
		if (ftfb_py_offsets_table[i].major == 3 &&
		    ftfb_py_offsets_table[i].minor == minor)
			return &ftfb_py_offsets_table[i];
	return NULL;
}

void ftfb_py_versions(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < FTFB_PY_OFFSETS_COUNT && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s3.%u", n ? " " : "",
				      ftfb_py_offsets_table[i].minor);
}

/* The data symbols of one ELF file, and where it expects to be loaded. */
struct py_syms {
	uint64_t runtime, code_type; /* st_value; 0: absent */
	uint64_t base_vaddr;	     /* the PT_LOAD at file offset 0 */
	bool base_found;
};

static void scan_symtab(Elf *e, Elf_Scn *scn, GElf_Shdr *sh, struct py_syms *s)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym sym;

	for (size_t i = 0; d && i < n; i++) {
		const char *name;

		if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name)
			continue;
		if (!strcmp(name, "_PyRuntime"))
			s->runtime = sym.st_value;
		else if (!strcmp(name, "PyCode_Type"))
			s->code_type = sym.st_value;
	}
}

/* A file of the maps that may be CPython: the maps line's identity of
 * the file (its name points into name), the version in its name. */
struct py_map {
	struct ftfb_maps_line l;
	char name[512];
	int minor;
	bool lib;
};

/* Opened as the process maps it (proc_file.h): a FIFO, a device or a
 * look-alike at the path is never read. */
static int read_syms(uint32_t pid, const struct py_map *m, struct py_syms *s)
{
	int fd = ftfb_proc_file_open(pid, &m->l);
	GElf_Phdr ph;
	size_t nph = 0;
	Elf_Scn *scn = NULL;
	Elf *e;

	memset(s, 0, sizeof(*s));
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph)) {
		if (e)
			elf_end(e);
		close(fd);
		return -1;
	}
	for (size_t i = 0; i < nph; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_offset == 0 && !s->base_found) {
			s->base_vaddr = ph.p_vaddr;
			s->base_found = true;
		}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB))
			scan_symtab(e, scn, &sh, s);
	}
	elf_end(e);
	close(fd);
	return 0;
}

/* The minor version in a libpython3.X... or python3.X file name. */
static bool python_name(const char *path, int *minor, bool *lib)
{
	const char *b = strrchr(path, '/');
	char tail[8];

	b = b ? b + 1 : path;
	if (sscanf(b, "libpython3.%d%7s", minor, tail) == 2 &&
	    strstr(tail, ".so")) {
		*lib = true;
		return true;
	}
	*lib = false;
	return sscanf(b, "python3.%d%7s", minor, tail) == 1;
}

/* The python files mapped at offset 0 (a library before the executable).
 * The whole name counts: a path may hold spaces, and a file deleted
 * since it was mapped ("NAME (deleted)") is still read, through
 * map_files, not whatever NAME is now. */
static int python_maps(uint32_t pid, struct py_map *m, int max)
{
	char fn[64], line[4400], base[512];
	int n = 0;
	FILE *f;

	snprintf(fn, sizeof(fn), "/proc/%" PRIu32 "/maps", pid);
	f = fopen(fn, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && n < max) {
		struct ftfb_maps_line l;
		size_t len;

		if (!ftfb_maps_line_parse(line, &l) || l.pgoff != 0 ||
		    l.name[0] != '/' || strlen(l.name) >= sizeof(m->name))
			continue;
		len = strlen(l.name);
		memcpy(base, l.name, len + 1);
		if (len > strlen(DELETED) &&
		    !strcmp(base + len - strlen(DELETED), DELETED))
			base[len - strlen(DELETED)] = 0;
		if (!python_name(base, &m[n].minor, &m[n].lib))
			continue;
		memcpy(m[n].name, l.name, len + 1);
		m[n].l = l;
		m[n].l.name = m[n].name;
		n++;
	}
	fclose(f);
	return n;
}

enum ftfb_py_found ftfb_py_find(uint32_t pid, struct ftfb_py_proc *out,
				int *minor)
{
	struct py_map m[4];
	int n = python_maps(pid, m, 4);

	*minor = -1;
	/* a shared build's libpython first: its executable defines nothing */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++) {
			const struct ftfb_py_offsets *o;
			struct py_syms s;

			if (m[i].lib != !pass)
				continue;
			o = ftfb_py_offsets_for(m[i].minor);
			/* (an old libpython may lack _PyRuntime: 3.6) */
			if (!o && m[i].lib) {
				*minor = m[i].minor;
				return FTFB_PY_UNSUPPORTED;
			}
			if (read_syms(pid, &m[i], &s) || !s.runtime ||
			    !s.code_type || !s.base_found)
				continue;
			*minor = m[i].minor;
			if (!o)
				return FTFB_PY_UNSUPPORTED;
			memset(out, 0, sizeof(*out));
			out->runtime = m[i].l.start - s.base_vaddr + s.runtime;
			out->code_type =
				m[i].l.start - s.base_vaddr + s.code_type;
			out->o = *o;
			return FTFB_PY_SUPPORTED;
		}
	return n ? FTFB_PY_NOT_YET : FTFB_PY_NOT_PYTHON;
}
