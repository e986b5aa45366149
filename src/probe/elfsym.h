/* SPDX-License-Identifier: MIT */
/*
 * elfsym.h - function symbols of an ELF executable or shared library, with
 * the FILE offsets uprobes need.
 *
 * Symbols come from .symtab and .dynsym (through libelf), types STT_FUNC
 * and STT_GNU_IFUNC, defined (st_shndx != SHN_UNDEF) with a nonzero value.
 * st_value is converted to a file offset through the PT_LOAD program
 * headers, so PIE executables and shared libraries work. One entry per
 * address: other names at the same address (malloc / __libc_malloc) are
 * kept as aliases, and the entry's name is the preferred one (global
 * before local, .dynsym before .symtab, fewer leading underscores, then
 * shorter). Names are made valid UTF-8 without control characters
 * (safe_name.h): whoever wrote the file chose them.
 *
 * Errors: negative errno and one line in errmsg:
 *   -ENOENT, -EACCES, ...  the file cannot be opened ("PATH: No such file")
 *   -ENOEXEC  "PATH: not an ELF file", "PATH: truncated ELF file",
 *             "PATH: corrupt ELF file (...)", "PATH: ELF relocatable object
 *             (not an executable or shared library)"
 *   -ENOMEM
 */
#ifndef FTFB_ELFSYM_H
#define FTFB_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

struct ftfb_sym {
	char *name;		/* symbol name as in the ELF file (mangled) */
	char *demangled;	/* demangled C++/Rust name, NULL if not mangled */
	uint64_t offset;	/* FILE offset, what uprobes take */
	uint64_t size;		/* st_size (0 if the symbol has none) */
	char *binary;		/* resolved path, openable from this process */
	char **aliases;		/* other names at the same address */
	size_t naliases;
};

struct ftfb_symlist {
	struct ftfb_sym *v;
	size_t n;
};

/* Whether file offset off of the ELF file at path lies in an executable
 * segment's file contents: 1 (*lo, *hi: that segment's range), 0 (*lo,
 * *hi: the first executable segment's, both 0 if none), or -errno if the
 * file cannot be read as ELF. */
int ftfb_elf_code_range(const char *path, uint64_t off, uint64_t *lo,
			uint64_t *hi);

/* Writes one formatted error line into buf (if any). */
void ftfb_seterr(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Opens @path read-only for an ELF reader: a regular file's fd, or
 * -errno (-EISDIR a directory, -ENOEXEC any other file that is not a
 * regular one). A FIFO or a device is never waited on (O_NONBLOCK): a
 * FIFO with no writer would block the open, and the read after it. */
int ftfb_open_regular(const char *path);
/* The same, with errmsg set on failure ("PATH: not a regular file (give
 * an ELF binary or library)", or the error's text). */
int ftfb_open_elf_file(const char *path, char *errmsg, size_t errlen);

/* All functions of the ELF file at @path, sorted by offset. @out is
 * overwritten (not freed first); on error it is left empty. The entries'
 * binary field is a copy of @path. */
int ftfb_elf_functions(const char *path, struct ftfb_symlist *out,
		       char *errmsg, size_t errlen);

/* The same from @fd, a regular file opened to read (not closed), named
 * @path in messages and in the entries' binary field. */
int ftfb_elf_functions_fd(int fd, const char *path, struct ftfb_symlist *out,
			  char *errmsg, size_t errlen);

/* The same, with the .symtab functions of dbg_fd, @fd's separate debug
 * file (-1: none; one that cannot be read adds nothing), merged in:
 * placed by their addresses through @fd's program headers (a debug
 * file's own sections hold no code). */
int ftfb_elf_functions_debug_fd(int fd, int dbg_fd, const char *path,
				struct ftfb_symlist *out, char *errmsg,
				size_t errlen);

/* Frees every entry and leaves @l empty; NULL and empty lists are fine. */
void ftfb_symlist_free(struct ftfb_symlist *l);
/* Frees the entries from n on and keeps the first n. */
void ftfb_symlist_truncate(struct ftfb_symlist *l, size_t n);

/* Demangled form of a C++ (Itanium "_Z...") or Rust (legacy "_ZN...E",
 * v0 "_R...") name, malloc'd; NULL if @name is not mangled (or the
 * demangler is not built in). Uses libiberty's cplus_demangle. */
char *ftfb_demangle(const char *name);

#endif /* FTFB_ELFSYM_H */
