// SPDX-License-Identifier: MIT
/*
 * usdt_notes.c - reading .note.stapsdt with libelf.
 *
 * A note's descriptor: three addresses of the ELF's word size (the site,
 * the .stapsdt.base section's link-time address, the semaphore), then
 * three NUL-terminated strings: provider, name, argument specs.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "usdt_notes.h"

#define NT_STAPSDT 3

static int add_note(struct ftfb_usdt_notes *out, size_t *cap,
		    const unsigned char *d, size_t len, size_t word)
{
	const char *prov, *name, *args, *end;
	struct ftfb_usdt_note *n;
	uint64_t a[3] = {0, 0, 0};

	if (!d || len < 3 * word)
		return 0; /* malformed: skipped */
	end = (const char *)d + len;
	for (int i = 0; i < 3; i++) {
		if (word == 8) {
			memcpy(&a[i], d + 8 * i, 8);
		} else {
			uint32_t v;

			memcpy(&v, d + 4 * i, 4);
			a[i] = v;
		}
	}
	prov = (const char *)d + 3 * word;
	/* (no pointer arithmetic on a memchr that found nothing: NULL + 1) */
	name = memchr(prov, '\0', (size_t)(end - prov));
	if (!name || ++name >= end)
		return 0;
	args = memchr(name, '\0', (size_t)(end - name));
	if (!args)
		return 0;
	args++;
	if (args == end || !memchr(args, '\0', (size_t)(end - args)))
		args = "";
	if (out->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 32;
		struct ftfb_usdt_note *nv = realloc(out->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		out->v = nv;
		*cap = nc;
	}
	n = &out->v[out->n];
	n->provider = strdup(prov);
	n->name = strdup(name);
	n->args = strdup(args);
	n->pc = a[0];
	n->semaphore = a[2];
	if (!n->provider || !n->name || !n->args) {
		free(n->provider);
		free(n->name);
		free(n->args);
		return -ENOMEM;
	}
	out->n++;
	return 0;
}

static int read_section(Elf *e, Elf_Scn *scn, struct ftfb_usdt_notes *out,
			size_t *cap, size_t word)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	(void)e;
	while (data &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *owner = (const char *)data->d_buf + name_off;
		int err;

		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
		    memcmp(owner, "stapsdt", 8) != 0)
			continue;
		err = add_note(out, cap,
			       (const unsigned char *)data->d_buf + desc_off,
			       nh.n_descsz, word);
		if (err)
			return err;
	}
	return 0;
}

int ftfb_usdt_notes_read(const char *path, struct ftfb_usdt_notes *out,
			 char *errmsg, size_t errlen)
{
	Elf *e = NULL;
	Elf_Scn *scn = NULL;
	size_t cap = 0, shstrndx, word;
	int fd, err = 0;

	out->v = NULL;
	out->n = 0;
	fd = ftfb_open_elf_file(path, errmsg, errlen);
	if (fd < 0)
		return fd;
	if (elf_version(EV_CURRENT) == EV_NONE ||
	    !(e = elf_begin(fd, ELF_C_READ, NULL)) ||
	    elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx) != 0) {
		ftfb_seterr(errmsg, errlen, "%s: not an ELF file", path);
		err = -ENOEXEC;
		goto out;
	}
	word = gelf_getclass(e) == ELFCLASS32 ? 4 : 8;
	while (!err && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".note.stapsdt"))
			err = read_section(e, scn, out, &cap, word);
	}
	if (err) {
		ftfb_usdt_notes_free(out);
		ftfb_seterr(errmsg, errlen, "out of memory reading %s", path);
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

void ftfb_usdt_notes_free(struct ftfb_usdt_notes *n)
{
	for (size_t i = 0; i < n->n; i++) {
		free(n->v[i].provider);
		free(n->v[i].name);
		free(n->v[i].args);
	}
	free(n->v);
	n->v = NULL;
	n->n = 0;
}

int ftfb_usdt_arg_count(const char *args)
{
	int n = 0;
	bool in = false;

	for (const char *p = args; *p; p++) {
		if (*p == ' ') {
			in = false;
		} else if (!in) {
			in = true;
			n++;
		}
	}
	return n;
}

uint32_t ftfb_usdt_pointer_args(const char *args)
{
	uint32_t mask = 0;
	int i = 0;
	const char *p = args;

	while (*p && i < 32) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (p[0] == '8' && p[1] == '@')
			mask |= 1u << i;
		while (*p && *p != ' ')
			p++;
		i++;
	}
	return mask;
}
