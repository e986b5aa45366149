// SPDX-License-Identifier: MIT
/*
 * elfsym.c - function symbols and their file offsets, read with libelf.
 *
 * The file is checked by hand before libelf parses it, so that a short
 * file says "truncated" rather than a generic libelf error, and so that
 * every table libelf will read lies inside the file.
 */
#include "elfsym.h"
#include "gopclntab.h"
#include "safe_name.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef FTFB_HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

void ftfb_seterr(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

int ftfb_open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -ENOEXEC;
	}
	return fd;
}

int ftfb_open_elf_file(const char *path, char *errmsg, size_t errlen)
{
	int fd = ftfb_open_regular(path);

	if (fd < 0)
		ftfb_seterr(errmsg, errlen, "%s: %s", path,
			    fd == -ENOEXEC || fd == -EISDIR
				    ? "not a regular file (give an ELF binary or library)"
				    : strerror(-fd));
	return fd;
}

char *ftfb_demangle(const char *name)
{
#ifdef FTFB_HAVE_LIBIBERTY
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
#else
	(void)name;
	return NULL;
#endif
}

void ftfb_symlist_truncate(struct ftfb_symlist *l, size_t n)
{
	for (size_t i = n; i < l->n; i++) {
		struct ftfb_sym *s = &l->v[i];

		free(s->name);
		free(s->demangled);
		free(s->binary);
		for (size_t j = 0; j < s->naliases; j++)
			free(s->aliases[j]);
		free(s->aliases);
	}
	if (n < l->n)
		l->n = n;
}

void ftfb_symlist_free(struct ftfb_symlist *l)
{
	if (!l)
		return;
	ftfb_symlist_truncate(l, 0);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* One symbol as read, before grouping by address. */
struct raw_sym {
	const char *name; /* points into libelf's data: valid until elf_end */
	uint64_t off;
	uint64_t size;
	int rank; /* lower = preferred as the entry's name */
};

static int leading_underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

static int raw_cmp(const void *pa, const void *pb)
{
	const struct raw_sym *a = pa, *b = pb;
	int ua, ub;
	size_t la, lb;

	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank - b->rank;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua - ub;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Is [off, off+len) inside a file of @size bytes? (no overflow) */
static bool in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return len <= size && off <= size - len;
}

/* The parts of check_layout return 0, -ENOEXEC (errmsg set), or this:
 * something lies past the end of the file. */
#define TRUNCATED 1

static int corrupt(const char *path, char *errmsg, size_t errlen)
{
	ftfb_seterr(errmsg, errlen, "%s: corrupt ELF file (%s)", path,
		    elf_errmsg(-1));
	return -ENOEXEC;
}

/* The identification, the class and the ELF header (an executable or a
 * shared library), into eh. */
static int check_header(int fd, Elf *elf, const char *path, uint64_t size,
			GElf_Ehdr *eh, char *errmsg, size_t errlen)
{
	unsigned char ident[EI_NIDENT];
	ssize_t r = pread(fd, ident, sizeof(ident), 0);

	if (r < 4 || memcmp(ident, ELFMAG, SELFMAG) != 0) {
		ftfb_seterr(errmsg, errlen, "%s: not an ELF file", path);
		return -ENOEXEC;
	}
	if (r < EI_NIDENT)
		return TRUNCATED;
	if (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64) {
		ftfb_seterr(errmsg, errlen, "%s: corrupt ELF file (bad class %u)",
			    path, ident[EI_CLASS]);
		return -ENOEXEC;
	}
	if (size < (ident[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Ehdr)
						  : sizeof(Elf32_Ehdr)))
		return TRUNCATED;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, eh))
		return corrupt(path, errmsg, errlen);
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) {
		ftfb_seterr(errmsg, errlen,
			    "%s: ELF file of type %u (not an executable or shared library)",
			    path, eh->e_type);
		return -ENOEXEC;
	}
	return 0;
}

/* The section and program header tables inside the file. e_phnum ==
 * PN_XNUM means "in section 0's sh_info": take libelf's count then,
 * after checking the section headers. */
static int check_tables(Elf *elf, const char *path, uint64_t size,
			const GElf_Ehdr *eh, char *errmsg, size_t errlen)
{
	size_t phnum = eh->e_phnum, shnum = eh->e_shnum;

	if (eh->e_shoff) {
		if (!in_file(eh->e_shoff, eh->e_shentsize, size))
			return TRUNCATED;
		/* extended numbering: section 0 is inside the file */
		if ((shnum == 0 || phnum == PN_XNUM) &&
		    (elf_getshdrnum(elf, &shnum) != 0 ||
		     (phnum == PN_XNUM && elf_getphdrnum(elf, &phnum) != 0)))
			return corrupt(path, errmsg, errlen);
		if (eh->e_shentsize == 0 || shnum > size / eh->e_shentsize ||
		    !in_file(eh->e_shoff, (uint64_t)shnum * eh->e_shentsize,
			     size))
			return TRUNCATED;
	}
	if (phnum && (eh->e_phentsize == 0 || phnum > size / eh->e_phentsize ||
		      !in_file(eh->e_phoff, (uint64_t)phnum * eh->e_phentsize,
			       size)))
		return TRUNCATED;
	return 0;
}

/* Every section with contents inside the file. */
static int check_sections(Elf *elf, const char *path, uint64_t size,
			  char *errmsg, size_t errlen)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn;
	     scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return corrupt(path, errmsg, errlen);
		if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
		    !in_file(sh.sh_offset, sh.sh_size, size))
			return TRUNCATED;
	}
	return 0;
}

/* Checks the ELF identification and that the headers and tables the
 * reader will use lie inside the file. Returns 0 or -ENOEXEC. */
static int check_layout(int fd, Elf *elf, const char *path, uint64_t size,
			char *errmsg, size_t errlen)
{
	GElf_Ehdr eh;
	int r = check_header(fd, elf, path, size, &eh, errmsg, errlen);

	if (!r)
		r = check_tables(elf, path, size, &eh, errmsg, errlen);
	if (!r)
		r = check_sections(elf, path, size, errmsg, errlen);
	if (r == TRUNCATED) {
		ftfb_seterr(errmsg, errlen, "%s: truncated ELF file", path);
		return -ENOEXEC;
	}
	return r;
}

struct phdrs {
	GElf_Phdr *v;
	size_t n;
};

/* File offset of virtual address @vaddr through the PT_LOAD segments:
 * the file-backed part of the segment holding it. */
static bool vaddr_to_offset(const struct phdrs *ph, uint64_t vaddr,
			    uint64_t *off)
{
	for (size_t i = 0; i < ph->n; i++) {
		const GElf_Phdr *p = &ph->v[i];

		if (vaddr >= p->p_vaddr && vaddr - p->p_vaddr < p->p_filesz) {
			*off = vaddr - p->p_vaddr + p->p_offset;
			return true;
		}
	}
	return false;
}

static int read_phdrs(Elf *elf, struct phdrs *ph)
{
	size_t n;

	ph->v = NULL;
	ph->n = 0;
	if (elf_getphdrnum(elf, &n) != 0)
		return -ENOEXEC;
	if (n == 0)
		return 0;
	ph->v = calloc(n, sizeof(*ph->v));
	if (!ph->v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr p;

		if (!gelf_getphdr(elf, (int)i, &p))
			return -ENOEXEC;
		if (p.p_type == PT_LOAD)
			ph->v[ph->n++] = p;
	}
	return 0;
}

/* Appends the functions of one symbol table to @raw. */
static int collect(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		   const struct phdrs *ph, struct raw_sym **raw, size_t *nraw,
		   size_t *cap)
{
	bool dyn = sh->sh_type == SHT_DYNSYM;
	GElf_Ehdr eh;
	uint64_t entry = gelf_getehdr(elf, &eh) ? eh.e_entry : 0;
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	size_t count;

	if (!data || !entsize)
		return 0;
	count = data->d_size / entsize;
	for (size_t i = 1; i < count; i++) {
		GElf_Sym sym;
		const char *name;
		int type, bind;
		uint64_t off;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		/* (and the entry point's label: musl's _start is one, with
		 * no type, in assembly) */
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    !(type == STT_NOTYPE && bind == STB_GLOBAL &&
		      sym.st_value == entry))
			continue;
		if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (!vaddr_to_offset(ph, sym.st_value, &off))
			continue;
		if (*nraw == *cap) {
			size_t ncap = *cap ? *cap * 2 : 256;
			struct raw_sym *n = realloc(*raw, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			*raw = n;
			*cap = ncap;
		}
		(*raw)[(*nraw)++] = (struct raw_sym){
			.name = name,
			.off = off,
			.size = sym.st_size,
			.rank = (bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2) *
					2 + (dyn ? 0 : 1),
		};
	}
	return 0;
}

/* Groups the sorted raw symbols by offset into @out. */
static int build_list(const struct raw_sym *raw, size_t nraw,
		      const char *path, struct ftfb_symlist *out)
{
	size_t ngroups = 0;

	for (size_t i = 0; i < nraw; i++)
		if (i == 0 || raw[i].off != raw[i - 1].off)
			ngroups++;
	out->v = ngroups ? calloc(ngroups, sizeof(*out->v)) : NULL;
	if (ngroups && !out->v)
		return -ENOMEM;
	out->n = 0;

	for (size_t i = 0; i < nraw;) {
		size_t j = i;
		struct ftfb_sym *s = &out->v[out->n++];

		while (j < nraw && raw[j].off == raw[i].off)
			j++;
		s->offset = raw[i].off;
		s->name = strdup(raw[i].name);
		s->binary = strdup(path);
		if (!s->name || !s->binary)
			return -ENOMEM;
		s->demangled = ftfb_demangle(s->name);
		/* the file's writer chose the names: made fit for a terminal
		 * and a trace (safe_name.h), after demangling the raw one */
		ftfb_safe_name(s->name, FTFB_SAFE_NAME_MAX);
		if (s->demangled)
			ftfb_safe_name(s->demangled, FTFB_SAFE_NAME_MAX);
		for (size_t k = i; k < j; k++) {
			bool seen = false;

			if (raw[k].size > s->size)
				s->size = raw[k].size;
			if (k == i)
				continue;
			if (strcmp(raw[k].name, s->name) == 0)
				seen = true;
			for (size_t a = 0; !seen && a < s->naliases; a++)
				seen = strcmp(raw[k].name, s->aliases[a]) == 0;
			if (seen)
				continue;
			if (!s->aliases) {
				s->aliases = calloc(j - i, sizeof(char *));
				if (!s->aliases)
					return -ENOMEM;
			}
			s->aliases[s->naliases] = strdup(raw[k].name);
			if (!s->aliases[s->naliases])
				return -ENOMEM;
			ftfb_safe_name(s->aliases[s->naliases],
				       FTFB_SAFE_NAME_MAX);
			s->naliases++;
		}
		i = j;
	}
	return 0;
}

/* Begins reading fd (a regular file named path in messages) as ELF
 * (ELF_C_READ, not _MMAP: a file shrinking under us must not be able to
 * SIGBUS the tracer) and checks its layout. 0, or -errno with errmsg set
 * (*elf NULL). */
static int elf_of_fd(int fd, const char *path, Elf **elf, char *errmsg,
		     size_t errlen)
{
	struct stat st;
	int err;

	*elf = NULL;
	if (fstat(fd, &st) != 0) {
		err = -errno;
		ftfb_seterr(errmsg, errlen, "%s: %s", path, strerror(errno));
	} else if (!(*elf = elf_begin(fd, ELF_C_READ, NULL))) {
		err = corrupt(path, errmsg, errlen);
	} else {
		err = check_layout(fd, *elf, path, (uint64_t)st.st_size, errmsg,
				   errlen);
	}
	if (err && *elf) {
		elf_end(*elf);
		*elf = NULL;
	}
	return err;
}

/* Opens path as an ELF file to read: the fd, or -errno with errmsg set
 * (*elf NULL). */
static int open_elf(const char *path, Elf **elf, char *errmsg, size_t errlen)
{
	int fd, err;

	*elf = NULL;
	fd = ftfb_open_elf_file(path, errmsg, errlen);
	if (fd < 0)
		return fd;
	err = elf_of_fd(fd, path, elf, errmsg, errlen);
	if (!err)
		return fd;
	close(fd);
	return err;
}

/* Appends the functions of every symbol table of elf to raw (unsorted),
 * placed through ph: the program headers of the file they describe. */
static int collect_all(Elf *elf, const struct phdrs *ph, struct raw_sym **raw,
		       size_t *nraw, size_t *cap)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn;
	     scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		int err;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		err = collect(elf, scn, &sh, ph, raw, nraw, cap);
		if (err)
			return err;
	}
	return 0;
}

struct raw_list {
	const struct phdrs *ph;
	struct raw_sym **raw;
	size_t *nraw, *cap;
};

static int push_raw(struct raw_list *l, const char *name, uint64_t off,
		    uint64_t size, int rank)
{
	if (*l->nraw == *l->cap) {
		size_t ncap = *l->cap ? *l->cap * 2 : 256;
		struct raw_sym *n = realloc(*l->raw, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		*l->raw = n;
		*l->cap = ncap;
	}
	(*l->raw)[(*l->nraw)++] = (struct raw_sym){
		.name = name, .off = off, .size = size, .rank = rank};
	return 0;
}

static int push_go(void *arg, uint64_t entry, uint64_t size, const char *name)
{
	struct raw_list *l = arg;
	uint64_t off;

	if (!vaddr_to_offset(l->ph, entry, &off))
		return 0;
	return push_raw(l, name, off, size, 7);
}

/* Adds the functions of a Go binary's .gopclntab (gopclntab.h; in a PIE,
 * .data.rel.ro.gopclntab) when no .symtab named any: a stripped Go
 * program's only names. Its names point
 * into libelf's copy of the section, valid until elf_end. */
static int collect_gopclntab(Elf *elf, const struct phdrs *ph,
			     struct raw_sym **raw, size_t *nraw, size_t *cap)
{
	struct raw_list l = {ph, raw, nraw, cap};
	uint64_t text = 0;
	Elf_Data *pcln = NULL;
	size_t shstr;
	int r;

	for (size_t i = 0; i < *nraw; i++)
		if ((*raw)[i].rank & 1) /* a .symtab function */
			return 0;
	if (elf_getshdrstrndx(elf, &shstr) != 0)
		return 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn;
	     scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstr, sh.sh_name);
		if (name && !strcmp(name, ".text"))
			text = sh.sh_addr;
		else if (name && (!strcmp(name, ".gopclntab") ||
				  !strcmp(name, ".data.rel.ro.gopclntab")))
			pcln = elf_getdata(scn, NULL);
	}
	if (!pcln || !pcln->d_buf)
		return 0;
	r = ftfb_gopclntab_walk(pcln->d_buf, pcln->d_size, text, push_go, &l);
	return r == -ENOMEM ? r : 0;
}

/* Adds the symbols of the debug file dbg_fd to raw. Its own program
 * headers are not used: a debug file's sections are NOBITS, its file
 * offsets are not the mapped file's, but its symbols' addresses are
 * (ph: the mapped file's). A debug file that cannot be read adds
 * nothing. *dbg: libelf's handle, which the names point into. */
static int collect_debug(int dbg_fd, const char *path, const struct phdrs *ph,
			 Elf **dbg, struct raw_sym **raw, size_t *nraw,
			 size_t *cap)
{
	char err[256];

	if (dbg_fd < 0 || elf_of_fd(dbg_fd, path, dbg, err, sizeof(err)))
		return 0;
	return collect_all(*dbg, ph, raw, nraw, cap);
}

int ftfb_elf_functions_debug_fd(int fd, int dbg_fd, const char *path,
				struct ftfb_symlist *out, char *errmsg,
				size_t errlen)
{
	struct raw_sym *raw = NULL;
	size_t nraw = 0, cap = 0;
	struct phdrs ph = { 0 };
	Elf *elf, *dbg = NULL;
	int err;

	out->v = NULL;
	out->n = 0;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		ftfb_seterr(errmsg, errlen, "libelf: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	err = elf_of_fd(fd, path, &elf, errmsg, errlen);
	if (err)
		return err;
	err = read_phdrs(elf, &ph);
	if (err == -ENOEXEC)
		ftfb_seterr(errmsg, errlen,
			    "%s: corrupt ELF file (bad program headers)", path);
	if (!err)
		err = collect_all(elf, &ph, &raw, &nraw, &cap);
	if (!err)
		err = collect_debug(dbg_fd, path, &ph, &dbg, &raw, &nraw, &cap);
	if (!err)
		err = collect_gopclntab(elf, &ph, &raw, &nraw, &cap);
	if (!err && nraw)
		qsort(raw, nraw, sizeof(*raw), raw_cmp);
	if (!err)
		err = build_list(raw, nraw, path, out);
	if (err && err != -ENOEXEC) {
		ftfb_symlist_free(out);
		ftfb_seterr(errmsg, errlen, "%s: out of memory", path);
	}
	free(raw);
	free(ph.v);
	if (dbg)
		elf_end(dbg);
	elf_end(elf);
	return err;
}

int ftfb_elf_functions_fd(int fd, const char *path, struct ftfb_symlist *out,
			  char *errmsg, size_t errlen)
{
	return ftfb_elf_functions_debug_fd(fd, -1, path, out, errmsg, errlen);
}

int ftfb_elf_functions(const char *path, struct ftfb_symlist *out,
		       char *errmsg, size_t errlen)
{
	int fd, err;

	out->v = NULL;
	out->n = 0;
	fd = ftfb_open_elf_file(path, errmsg, errlen);
	if (fd < 0)
		return fd;
	err = ftfb_elf_functions_fd(fd, path, out, errmsg, errlen);
	close(fd);
	return err;
}

int ftfb_elf_code_range(const char *path, uint64_t off, uint64_t *lo,
			uint64_t *hi)
{
	struct phdrs ph = { 0 };
	char errmsg[256];
	int fd, r = 0;
	Elf *elf;

	*lo = *hi = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open_elf(path, &elf, errmsg, sizeof(errmsg));
	if (fd < 0)
		return fd;
	if (read_phdrs(elf, &ph) == 0) {
		for (size_t i = 0; i < ph.n && r == 0; i++) {
			const GElf_Phdr *p = &ph.v[i];

			if (!(p->p_flags & PF_X))
				continue;
			if (!*hi || (off >= p->p_offset &&
				     off - p->p_offset < p->p_filesz)) {
				*lo = p->p_offset;
				*hi = p->p_offset + p->p_filesz;
			}
			r = off >= *lo && off < *hi;
		}
	} else {
		r = -ENOEXEC;
	}
	free(ph.v);
	elf_end(elf);
	close(fd);
	return r;
}
