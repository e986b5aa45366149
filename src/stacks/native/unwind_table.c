// SPDX-License-Identifier: MIT
/*
 * unwind_table.c - a binary's .eh_frame as rows for the BPF stack walker
 * (see unwind_table.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "cfi_table.h"
#include "elfsym.h"
#include "prologue_rows.h"
#include "unwind_table.h"

/* The bytes of the file at [vaddr, vaddr + size) as loaded, or up to the
 * end of the PT_LOAD segment that holds vaddr when size is 0 (a size
 * .eh_frame_hdr does not give for .eh_frame). false: in no segment. */
static bool loaded_bytes(Elf *elf, uint64_t vaddr, uint64_t size,
			 struct ftfb_ehf_buf *out)
{
	size_t nph;
	GElf_Phdr ph;
	Elf_Data *d;

	if (elf_getphdrnum(elf, &nph))
		return false;
	for (size_t i = 0; i < nph; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		if (!size || size > ph.p_filesz - (vaddr - ph.p_vaddr))
			size = ph.p_filesz - (vaddr - ph.p_vaddr);
		d = elf_getdata_rawchunk(
			elf, (int64_t)(ph.p_offset + (vaddr - ph.p_vaddr)),
			size, ELF_T_BYTE);
		if (!d || !d->d_buf)
			return false;
		out->p = d->d_buf;
		out->size = d->d_size;
		out->vaddr = vaddr;
		return true;
	}
	return false;
}

/* The .eh_frame section as loaded, for a binary with no .eh_frame_hdr:
 * hdr empty (cfi_table.c then reads .eh_frame through). */
static int find_ehf_section(Elf *elf, struct ftfb_ehf_buf *hdr,
			    struct ftfb_ehf_buf *ehf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENODATA;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".eh_frame"))
			continue;
		memset(hdr, 0, sizeof(*hdr));
		if (!sh.sh_size ||
		    !loaded_bytes(elf, sh.sh_addr, sh.sh_size, ehf))
			return -ENODATA;
		return 0;
	}
	return -ENODATA;
}

/* .eh_frame_hdr (PT_GNU_EH_FRAME) and the .eh_frame it points at; a
 * static program has no .eh_frame_hdr (gcc links one only into dynamic
 * ones): its .eh_frame section alone. */
static int find_cfi(Elf *elf, struct ftfb_ehf_buf *hdr,
		    struct ftfb_ehf_buf *ehf)
{
	size_t nph;
	GElf_Phdr ph;
	uint64_t ehf_vaddr;
	bool found = false;

	if (elf_getphdrnum(elf, &nph))
		return -ENOEXEC;
	for (size_t i = 0; i < nph && !found; i++)
		found = gelf_getphdr(elf, (int)i, &ph) &&
			ph.p_type == PT_GNU_EH_FRAME && ph.p_filesz;
	if (!found)
		return find_ehf_section(elf, hdr, ehf);
	if (!loaded_bytes(elf, ph.p_vaddr, ph.p_filesz, hdr) ||
	    ftfb_cfi_hdr_frame(hdr, &ehf_vaddr) ||
	    !loaded_bytes(elf, ehf_vaddr, 0, ehf))
		return -ENODATA;
	return 0;
}

/* The executable PT_LOAD segments, to place mappings. */
static void read_segments(Elf *elf, struct ftfb_uw_table_built *t)
{
	size_t nph;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nph))
		return;
	for (size_t i = 0; i < nph && t->nsegs < FTFB_UW_MAX_SEGS; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X)) {
			t->segs[t->nsegs].offset = ph.p_offset;
			t->segs[t->nsegs].vaddr = ph.p_vaddr;
			t->segs[t->nsegs++].filesz = ph.p_filesz;
		}
}

/* glibc's clone and clone3 end their FDE at the syscall instruction
 * ("in the child the unwind info will be wrong") and start one where the
 * child goes on, its return address undefined: the few bytes between
 * (the syscall up to the parent's ret) have no CFI, and a thread is
 * often sampled there, parent or child, in clone or returning from it.
 * Such a gap (a syscall, after an rsp-based row, before an END row)
 * becomes a CLONE row with the previous row's rules: the walker takes
 * the parent's frame by them, and ends the child's stack there. */
#define CLONE_GAP_BYTES 16

static void mark_clone_gaps(Elf *elf, struct ftfb_uw_table_built *t)
{
	struct ftfb_ehf_buf code;

	for (size_t i = 1; i + 1 < t->n; i++) {
		struct ftfb_uw_row *r = &t->rows[i];
		const struct ftfb_uw_row *prev = r - 1, *next = r + 1;

		if (FTFB_UW_CFA_TYPE(r) != FTFB_UW_CFA_NONE ||
		    FTFB_UW_CFA_TYPE(next) != FTFB_UW_CFA_END ||
		    FTFB_UW_CFA_TYPE(prev) != FTFB_UW_CFA_RSP ||
		    next->pc - r->pc > CLONE_GAP_BYTES ||
		    !loaded_bytes(elf, t->base + r->pc, 2, &code) ||
		    code.size < 2 || code.p[0] != 0x0f || code.p[1] != 0x05)
			continue;
		r->type = (uint8_t)(FTFB_UW_CFA_CLONE | (prev->type & 0xf0));
		r->cfa_off = prev->cfa_off;
		r->rbp_off8 = prev->rbp_off8;
	}
}

static int build(Elf *elf, const struct ftfb_uw_build_opts *o,
		 struct ftfb_uw_table_built *t, char *err, size_t errlen,
		 const char *what)
{
	struct ftfb_ehf_buf hdr, ehf;
	GElf_Ehdr eh;
	int rc;

	memset(t, 0, sizeof(*t));
	/* (the walker and the rules are x86-64's) */
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64) {
		ftfb_seterr(err, errlen, "%s: not an x86-64 ELF file", what);
		return -ENOEXEC;
	}
	read_segments(elf, t);
	rc = find_cfi(elf, &hdr, &ehf);
	if (rc) {
		ftfb_seterr(err, errlen, "%s: no .eh_frame_hdr/.eh_frame CFI",
			    what);
		return -ENODATA;
	}
	rc = ftfb_cfi_table(&hdr, &ehf, o, t, err, errlen, what);
	if (rc)
		return rc;
	mark_clone_gaps(elf, t);
	/* (on failure the table is the CFI's alone) */
	ftfb_prologue_rows(elf, loaded_bytes, t,
			   o && o->max_rows ? o->max_rows : FTFB_UW_MAX_ROWS);
	return 0;
}

/* The table of elf (NULL: what was opened is not an ELF file), named
 * what in err; elf is ended. */
static int build_ended(Elf *elf, const struct ftfb_uw_build_opts *o,
		       struct ftfb_uw_table_built *t, char *err, size_t errlen,
		       const char *what)
{
	int rc;

	if (!elf) {
		ftfb_seterr(err, errlen, "%s: not an ELF file", what);
		return -ENOEXEC;
	}
	rc = build(elf, o, t, err, errlen, what);
	elf_end(elf);
	return rc;
}

int ftfb_uw_table_from_fd(int fd, const char *path,
			  const struct ftfb_uw_build_opts *o,
			  struct ftfb_uw_table_built *t, char *err,
			  size_t errlen)
{
	memset(t, 0, sizeof(*t));
	elf_version(EV_CURRENT);
	/* ELF_C_READ, not _MMAP: the file's user may truncate it while it
	 * is read, which must not SIGBUS the tracer */
	return build_ended(elf_begin(fd, ELF_C_READ, NULL), o, t, err, errlen,
			   path);
}

int ftfb_uw_table_from_file_opts(const char *path,
				 const struct ftfb_uw_build_opts *o,
				 struct ftfb_uw_table_built *t, char *err,
				 size_t errlen)
{
	int fd = ftfb_open_regular(path), rc;

	memset(t, 0, sizeof(*t));
	if (fd < 0) {
		ftfb_seterr(err, errlen, "%s: %s", path,
			    fd == -ENOEXEC ? "not a regular file"
					   : strerror(-fd));
		return fd;
	}
	rc = ftfb_uw_table_from_fd(fd, path, o, t, err, errlen);
	close(fd);
	return rc;
}

int ftfb_uw_table_from_file(const char *path, struct ftfb_uw_table_built *t,
			    char *err, size_t errlen)
{
	return ftfb_uw_table_from_file_opts(path, NULL, t, err, errlen);
}

int ftfb_uw_table_from_memory_opts(const void *image, size_t size,
				   const struct ftfb_uw_build_opts *o,
				   struct ftfb_uw_table_built *t, char *err,
				   size_t errlen)
{
	memset(t, 0, sizeof(*t));
	elf_version(EV_CURRENT);
	return build_ended(elf_memory((char *)image, size), o, t, err, errlen,
			   "ELF image in memory");
}

int ftfb_uw_table_from_memory(const void *image, size_t size,
			      struct ftfb_uw_table_built *t, char *err,
			      size_t errlen)
{
	return ftfb_uw_table_from_memory_opts(image, size, NULL, t, err,
					      errlen);
}

void ftfb_uw_table_free(struct ftfb_uw_table_built *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

const struct ftfb_uw_row *
ftfb_uw_table_lookup(const struct ftfb_uw_table_built *t, uint64_t vaddr)
{
	size_t lo = 0, hi = t->n;

	if (vaddr < t->base || vaddr - t->base > UINT32_MAX)
		return NULL;
	while (lo < hi) { /* the last row at or below vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= vaddr - t->base)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

int ftfb_uw_table_bias(const struct ftfb_uw_table_built *t, uint64_t start,
		       uint64_t pgoff, uint64_t *bias)
{
	for (size_t i = 0; i < t->nsegs; i++) {
		const struct ftfb_uw_seg *s = &t->segs[i];
		/* the mapping starts on the page that holds the segment's
		 * first byte, or inside the segment */
		uint64_t first = s->offset & ~0xfffull;

		if (pgoff >= first && pgoff < s->offset + s->filesz) {
			*bias = start - pgoff - (s->vaddr - s->offset);
			return 0;
		}
	}
	return -ENOENT;
}

/* The vDSO's size: it ends with its section header table. */
static size_t vdso_size(const void *image)
{
	GElf_Ehdr eh;
	Elf *elf = elf_memory((char *)image, sizeof(Elf64_Ehdr));
	size_t size = 0;

	if (elf && gelf_getehdr(elf, &eh))
		size = eh.e_shoff + (size_t)eh.e_shentsize * eh.e_shnum;
	if (elf)
		elf_end(elf);
	return size;
}

int ftfb_uw_table_from_vdso(struct ftfb_uw_table_built *t, char *err,
			    size_t errlen)
{
	const void *vdso = (const void *)getauxval(AT_SYSINFO_EHDR);
	size_t size;

	memset(t, 0, sizeof(*t));
	elf_version(EV_CURRENT);
	if (!vdso || !(size = vdso_size(vdso))) {
		ftfb_seterr(err, errlen, "no vDSO in this process");
		return -ENOENT;
	}
	return ftfb_uw_table_from_memory(vdso, size, t, err, errlen);
}

const char *ftfb_uw_stop_name(uint64_t ip)
{
	static const char *const names[FTFB_UW_NREASONS] = {
		[FTFB_UW_NOT_LOADED] =
			"[unwind stopped: tables not loaded yet]",
		[FTFB_UW_NO_MAPPING] =
			"[unwind stopped: address in no mapping]",
		[FTFB_UW_NO_CFI] = "[unwind stopped: no CFI]",
		[FTFB_UW_UNSUPPORTED] =
			"[unwind stopped: unsupported CFI rule]",
		[FTFB_UW_UNREADABLE] = "[unwind stopped: stack not readable]",
		[FTFB_UW_DEPTH] = "[unwind stopped: depth limit]",
		[FTFB_UW_BAD_FRAME] = "[unwind stopped: bad frame]",
		[FTFB_UW_SIGNAL] = "[unwind stopped: signal frame]",
		[FTFB_UW_OVER_BUDGET] = "[unwind stopped: CFI over budget]",
	};

	if (ip < FTFB_UW_STOP_BASE ||
	    ip - FTFB_UW_STOP_BASE >= FTFB_UW_NREASONS)
		return NULL;
	return names[ip - FTFB_UW_STOP_BASE];
}
