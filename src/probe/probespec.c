// SPDX-License-Identifier: MIT
/*
 * probespec.c - -u SPEC parsing, binary lookup and function matching.
 */
#define _GNU_SOURCE
#include <gelf.h>
#include <libelf.h>

#include "elfsym.h"
#include "probespec.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <elf.h>

/* ------------------------------------------------------------------ */
/* Files of the target                                                 */
/* ------------------------------------------------------------------ */

static bool pid_exists(int pid)
{
	char p[32];

	snprintf(p, sizeof(p), "/proc/%d", pid);
	return access(p, F_OK) == 0;
}

/* Does the target see the same root directory as we do? */
static bool same_root(int pid)
{
	struct stat a, b;
	char p[40];

	snprintf(p, sizeof(p), "/proc/%d/root/", pid);
	if (stat(p, &a) != 0 || stat("/", &b) != 0)
		return true; /* cannot tell: use paths as they are */
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* @tpath as seen by the target -> a path we can open. */
static int target_path(int pid, const char *tpath, char *out, size_t outlen)
{
	int n;

	if (pid > 0 && tpath[0] == '/' && !same_root(pid))
		n = snprintf(out, outlen, "/proc/%d/root%s", pid, tpath);
	else
		n = snprintf(out, outlen, "%s", tpath);
	return n < 0 || (size_t)n >= outlen ? -ENAMETOOLONG : 0;
}

static bool is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A file name matching a short binary or library name: equal, or the name
 * followed by '.' (libc -> libc.so.6, python3 -> python3.11) or by
 * '-DIGIT' (libc-2.31.so). */
static bool name_matches(const char *base, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(base, name, n) != 0)
		return false;
	return base[n] == '\0' || base[n] == '.' ||
	       (base[n] == '-' && isdigit((unsigned char)base[n + 1]));
}

/* Is @path an ELF shared object or executable for this machine? */
static bool elf_for_us(const char *path)
{
	unsigned char h[20];
	int fd = ftfb_open_regular(path);
	ssize_t r;
	uint16_t machine;

	if (fd < 0)
		return false;
	r = pread(fd, h, sizeof(h), 0);
	close(fd);
	if (r != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG) != 0)
		return false;
	if (h[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
		return false;
	machine = h[EI_DATA] == ELFDATA2MSB ? (uint16_t)(h[18] << 8 | h[19])
					    : (uint16_t)(h[19] << 8 | h[18]);
#if defined(__x86_64__)
	return machine == EM_X86_64;
#elif defined(__aarch64__)
	return machine == EM_AARCH64;
#else
	(void)machine;
	return true;
#endif
}

/* A file mapped by @pid whose basename matches @name. */
static int find_in_maps(int pid, const char *name, char *out, size_t outlen)
{
	char p[40], line[PATH_MAX + 128];
	FILE *f;
	int err = -ENOENT;

	snprintf(p, sizeof(p), "/proc/%d/maps", pid);
	f = fopen(p, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		char *nl, *base;
		bool deleted = false;
		size_t len;

		if (!path)
			continue;
		nl = strchr(path, '\n');
		if (nl)
			*nl = '\0';
		len = strlen(path);
		if (len > 10 && strcmp(path + len - 10, " (deleted)") == 0) {
			path[len - 10] = '\0';
			deleted = true;
		}
		base = strrchr(path, '/') + 1;
		if (!name_matches(base, name))
			continue;
		if (deleted) {
			/* map_files/<start>-<end> still reaches the inode */
			char *sp = strchr(line, ' ');

			if (!sp)
				continue;
			*sp = '\0';
			snprintf(out, outlen, "/proc/%d/map_files/%s", pid,
				 line);
			err = 0;
		} else {
			err = target_path(pid, path, out, outlen);
		}
		break;
	}
	fclose(f);
	return err;
}

static int find_on_path(const char *name, char *out, size_t outlen)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, first_other[PATH_MAX] = "";
	int err = -ENOENT;

	if (!path || !*path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	for (char *dir = strtok_r(copy, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		int n = snprintf(out, outlen, "%s/%s", dir, name);

		if (n < 0 || (size_t)n >= outlen)
			continue;
		if (!is_regular(out) || access(out, X_OK) != 0)
			continue;
		if (elf_for_us(out)) {
			err = 0;
			break;
		}
		/* a script (e.g. a pyenv shim): keep looking for an ELF
		 * file, but report this one if there is none */
		if (!first_other[0])
			snprintf(first_other, sizeof(first_other), "%s", out);
	}
	free(copy);
	if (err && first_other[0] &&
	    snprintf(out, outlen, "%s", first_other) < (int)outlen)
		err = 0;
	return err;
}

/* Looks for a library in one directory: a file named like @name. */
static int find_in_dir(const char *dir, const char *name, char *out,
		       size_t outlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int err = -ENOENT;
	size_t best = SIZE_MAX;

	if (!d)
		return -ENOENT;
	while ((e = readdir(d))) {
		char cand[PATH_MAX];
		int n;

		if (!name_matches(e->d_name, name))
			continue;
		/* prefer the shortest matching name (libc.so.6 over
		 * libc.so.6.debug-like leftovers) */
		if (strlen(e->d_name) >= best)
			continue;
		n = snprintf(cand, sizeof(cand), "%s/%s", dir, e->d_name);
		if (n < 0 || (size_t)n >= sizeof(cand) || (size_t)n >= outlen)
			continue;
		if (!elf_for_us(cand))
			continue;
		memcpy(out, cand, (size_t)n + 1);
		best = strlen(e->d_name);
		err = 0;
	}
	closedir(d);
	return err;
}

/* /etc/ld.so.cache, glibc's "glibc-ld.so.cache1.1" format: a 48-byte
 * header (magic[17], version[3], nlibs, len_strings, flags, pad[3],
 * extension_offset, unused[3]) and nlibs 24-byte entries (flags, key,
 * value, osversion, hwcap[8]); key and value are offsets of strings
 * (soname, path) from the start of that header. */
static int find_in_ldcache(const char *name, char *out, size_t outlen)
{
	static const char magic[] = "glibc-ld.so.cache1.1";
	const size_t hdr = 48, ent = 24;
	int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL, *base;
	size_t size, avail, nlibs;
	int err = -ENOENT;

	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)hdr ||
	    st.st_size > (64 << 20))
		goto out;
	size = (size_t)st.st_size;
	buf = malloc(size + 1);
	if (!buf || pread(fd, buf, size, 0) != (ssize_t)size)
		goto out;
	buf[size] = '\0';
	base = memmem(buf, size, magic, sizeof(magic) - 1);
	if (!base)
		goto out;
	avail = size - (size_t)(base - buf);
	if (avail < hdr)
		goto out;
	{
		uint32_t n32;

		memcpy(&n32, base + 20, 4);
		nlibs = n32;
	}
	if (nlibs > (avail - hdr) / ent)
		goto out;
	for (size_t i = 0; i < nlibs; i++) {
		const char *e = base + hdr + i * ent;
		uint32_t key, value;
		const char *soname, *path;

		memcpy(&key, e + 4, 4);
		memcpy(&value, e + 8, 4);
		if (key >= avail || value >= avail)
			continue;
		soname = base + key;
		path = base + value;
		if (!name_matches(soname, name))
			continue;
		if (strlen(path) >= outlen || !elf_for_us(path))
			continue;
		strcpy(out, path);
		err = 0;
		break;
	}
out:
	free(buf);
	close(fd);
	return err;
}

static int find_library(const char *name, char *out, size_t outlen)
{
	static const char *const dirs[] = {
#if defined(__x86_64__)
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
		"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
#endif
		"/lib64", "/usr/lib64", "/lib", "/usr/lib",
		"/usr/local/lib",
	};
	const char *llp = getenv("LD_LIBRARY_PATH");

	if (llp && *llp) {
		char *copy = strdup(llp), *save = NULL;

		if (!copy)
			return -ENOMEM;
		for (char *d = strtok_r(copy, ":", &save); d;
		     d = strtok_r(NULL, ":", &save)) {
			if (find_in_dir(d, name, out, outlen) == 0) {
				free(copy);
				return 0;
			}
		}
		free(copy);
	}
	if (find_in_ldcache(name, out, outlen) == 0)
		return 0;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (find_in_dir(dirs[i], name, out, outlen) == 0)
			return 0;
	return -ENOENT;
}

/*
 * A library the main binary would load: its DT_RUNPATH (or DT_RPATH)
 * directories, with $ORIGIN replaced by the binary's directory. This is how
 * `-u LIB:FUNC -- CMD` finds a library that is neither mapped yet (the
 * command has not started) nor on the linker's search path.
 */
static int find_in_runpath(const char *main_binary, const char *name,
			   char *out, size_t outlen)
{
	char origin[PATH_MAX], *slash, *paths = NULL;
	Elf *e = NULL;
	Elf_Scn *scn = NULL;
	int fd, err = -ENOENT;

	if (!main_binary || !*main_binary)
		return -ENOENT;
	if (!realpath(main_binary, origin))
		return -ENOENT;
	slash = strrchr(origin, '/');
	if (slash)
		*slash = '\0';
	fd = ftfb_open_regular(main_binary);
	if (fd < 0)
		return -ENOENT;
	if (elf_version(EV_CURRENT) == EV_NONE)
		goto out;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		goto out;
	while (!paths && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize &&
				   i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *v;

			if (!gelf_getdyn(d, (int)i, &dyn))
				break;
			if (dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH)
				continue;
			v = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			if (v) {
				paths = strdup(v);
				if (dyn.d_tag == DT_RUNPATH)
					break;
			}
		}
	}
	if (paths) {
		char *save = NULL;

		for (char *d = strtok_r(paths, ":", &save); d && err;
		     d = strtok_r(NULL, ":", &save)) {
			char dir[PATH_MAX];
			const char *rest = NULL;

			if (!strncmp(d, "$ORIGIN", 7))
				rest = d + 7;
			else if (!strncmp(d, "${ORIGIN}", 9))
				rest = d + 9;
			if (rest)
				snprintf(dir, sizeof(dir), "%s%s", origin, rest);
			else
				snprintf(dir, sizeof(dir), "%s", d);
			err = find_in_dir(dir, name, out, outlen);
		}
	}
out:
	free(paths);
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

int ftfb_probespec_find_binary(const char *name, int pid, char *path,
			       size_t pathlen, char *errmsg, size_t errlen)
{
	bool lib = strncmp(name, "lib", 3) == 0;
	int err;

	if (!*name) {
		ftfb_seterr(errmsg, errlen, "empty binary name in probe spec");
		return -EINVAL;
	}
	if (strchr(name, '/')) {
		err = target_path(pid, name, path, pathlen);
		if (err) {
			ftfb_seterr(errmsg, errlen, "%s: path too long", name);
			return err;
		}
		if (access(path, F_OK) != 0) {
			err = -errno;
			ftfb_seterr(errmsg, errlen, "%s: %s", path, strerror(errno));
			return err;
		}
		return 0;
	}
	if (pid > 0 && find_in_maps(pid, name, path, pathlen) == 0)
		return 0;
	if (lib) {
		if (find_library(name, path, pathlen) == 0 ||
		    find_on_path(name, path, pathlen) == 0)
			return 0;
	} else {
		if (find_on_path(name, path, pathlen) == 0 ||
		    find_library(name, path, pathlen) == 0)
			return 0;
	}
	if (pid > 0)
		ftfb_seterr(errmsg, errlen,
		       "'%s' is not a %s mapped by pid %d nor found on %s; give a path",
		       name, lib ? "library" : "file", pid,
		       lib ? "the linker's search path"
			   : "PATH or the linker's search path");
	else
		ftfb_seterr(errmsg, errlen,
		       "'%s' is not %s; give a path",
		       name, lib ? "found on the linker's search path (ld.so.cache, LD_LIBRARY_PATH, /lib, /usr/lib)"
				 : "on PATH nor a library on the linker's search path");
	return -ENOENT;
}

/* The main binary of the target. */
int ftfb_probespec_main_binary(int pid, const char *main_binary, char *path,
			    size_t pathlen, char *errmsg, size_t errlen)
{
	char exe[40], link[PATH_MAX];
	ssize_t n;

	if (main_binary && strncmp(main_binary, "/proc/", 6) == 0) {
		if (snprintf(path, pathlen, "%s", main_binary) >= (int)pathlen)
			return -ENAMETOOLONG;
		return 0;
	}
	if (main_binary)
		return ftfb_probespec_find_binary(main_binary, pid, path,
						  pathlen, errmsg, errlen);
	if (pid <= 0) {
		ftfb_seterr(errmsg, errlen,
		       "a bare function name needs a target (-p PID or -- COMMAND); otherwise write BINARY:FUNC");
		return -EINVAL;
	}
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	n = readlink(exe, link, sizeof(link) - 1);
	if (n < 0) {
		int err = errno;

		if (!pid_exists(pid)) {
			ftfb_seterr(errmsg, errlen, "pid %d does not exist", pid);
			return -ESRCH;
		}
		if (err == ENOENT) {
			ftfb_seterr(errmsg, errlen,
			       "pid %d has no executable (kernel thread?)",
			       pid);
			return -ESRCH;
		}
		ftfb_seterr(errmsg, errlen, "%s: %s", exe, strerror(err));
		return -err;
	}
	link[n] = '\0';
	if ((n > 10 && strcmp(link + n - 10, " (deleted)") == 0) ||
	    link[0] != '/') {
		/* gone from the file system: the link still reaches it */
		snprintf(path, pathlen, "%s", exe);
		return 0;
	}
	if (target_path(pid, link, path, pathlen) != 0) {
		ftfb_seterr(errmsg, errlen, "%s: path too long", link);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Matching                                                            */
/* ------------------------------------------------------------------ */

/* "ns::f(int) const" -> "ns::f" (malloc'd), NULL if no parameter list. */
static char *strip_params(const char *dem)
{
	const char *close = strrchr(dem, ')');
	int depth = 0;

	if (!close)
		return NULL;
	for (const char *p = close; p >= dem; p--) {
		if (*p == ')')
			depth++;
		else if (*p == '(' && --depth == 0)
			return p > dem ? strndup(dem, (size_t)(p - dem)) : NULL;
	}
	return NULL;
}

/* Does @pat match @name, its demangled form (@known_dem, or computed when
 * NULL), or that without params? On a match, *dem_out gets a malloc'd copy
 * of the demangled name (NULL if not mangled). */
static bool name_match(const char *pat, const char *name,
		       const char *known_dem, char **dem_out)
{
	char *own = known_dem ? NULL : ftfb_demangle(name);
	const char *dem = known_dem ? known_dem : own;
	bool m = fnmatch(pat, name, 0) == 0;

	if (!m && dem) {
		m = fnmatch(pat, dem, 0) == 0;
		if (!m) {
			char *stripped = strip_params(dem);

			m = stripped && fnmatch(pat, stripped, 0) == 0;
			free(stripped);
		}
	}
	if (m) {
		*dem_out = own ? own : dem ? strdup(dem) : NULL;
		return true;
	}
	free(own);
	return false;
}

int ftfb_glob_distance(const char *pattern, const char *name)
{
	enum { LIT, ANY1, STAR };
	struct tok {
		int kind;
		char c;
	} toks[256];
	size_t m = 0, n = strlen(name);
	int row0[257], row1[257];
	int *prev = row0, *cur = row1;

	for (const char *p = pattern; *p && m < 256; p++) {
		if (*p == '*') {
			toks[m++] = (struct tok){ STAR, 0 };
		} else if (*p == '?') {
			toks[m++] = (struct tok){ ANY1, 0 };
		} else if (*p == '[' && strchr(p + 2, ']')) {
			p = strchr(p + 2, ']');
			toks[m++] = (struct tok){ ANY1, 0 };
		} else if (*p == '\\' && p[1]) {
			toks[m++] = (struct tok){ LIT, *++p };
		} else {
			toks[m++] = (struct tok){ LIT, *p };
		}
	}
	if (n > 256)
		n = 256;
	/* prev[j]: cost of the first i tokens against the first j chars */
	for (size_t j = 0; j <= n; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= m; i++) {
		const struct tok *t = &toks[i - 1];

		cur[0] = prev[0] + (t->kind == STAR ? 0 : 1);
		for (size_t j = 1; j <= n; j++) {
			int best;

			if (t->kind == STAR) {
				best = prev[j] < cur[j - 1] ? prev[j]
							    : cur[j - 1];
			} else {
				int sub = prev[j - 1] +
					  (t->kind == ANY1 ||
							   t->c == name[j - 1]
						   ? 0
						   : 1);
				int del = prev[j] + 1, ins = cur[j - 1] + 1;

				best = sub < del ? sub : del;
				best = best < ins ? best : ins;
			}
			cur[j] = best;
		}
		int *tmp = prev;
		prev = cur;
		cur = tmp;
	}
	return prev[n];
}

struct cand {
	char *name;
	int dist;
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->dist != b->dist)
		return a->dist - b->dist;
	return strcmp(a->name, b->name);
}

/* Builds "no function matches ..." with up to 5 closest names: those
 * within a glob edit distance of max(2, literal characters / 3), in any
 * of the forms a symbol matches by (name, demangled, without params). */
static void no_match_error(const char *pat, const char *bin,
			   const struct ftfb_symlist *all, char *errmsg,
			   size_t errlen)
{
	struct cand *c = NULL;
	size_t nc = 0, lits = 0, used, shown = 0;
	int limit;

	if (all->n == 0) {
		ftfb_seterr(errmsg, errlen,
		       "no function matches '%s' in %s: it has no function symbols (stripped?); use %s:0xOFFSET",
		       pat, bin, bin);
		return;
	}
	for (const char *p = pat; *p; p++)
		if (*p != '*' && *p != '?')
			lits++;
	limit = lits / 3 > 2 ? (int)(lits / 3) : 2;

	c = calloc(all->n, sizeof(*c));
	for (size_t i = 0; c && i < all->n; i++) {
		const struct ftfb_sym *s = &all->v[i];
		char *stripped = s->demangled ? strip_params(s->demangled)
					      : NULL;
		/* on ties the first form is shown: prefer the short one */
		const char *forms[3] = { s->name, stripped, s->demangled };
		const char *which = NULL;
		int d = INT_MAX;

		for (int k = 0; k < 3; k++) {
			int dk;

			if (!forms[k])
				continue;
			dk = ftfb_glob_distance(pat, forms[k]);
			if (dk < d) {
				d = dk;
				which = forms[k];
			}
		}
		if (d <= limit) {
			c[nc].name = strdup(which);
			c[nc].dist = d;
			if (c[nc].name)
				nc++;
		}
		free(stripped);
	}
	if (nc)
		qsort(c, nc, sizeof(*c), cand_cmp);

	used = (size_t)snprintf(errmsg, errlen,
				"no function matches '%s' in %s", pat, bin);
	if (nc == 0 && used < errlen)
		snprintf(errmsg + used, errlen - used,
			 " (%zu functions; see --list -u '%s:*')", all->n,
			 bin);
	for (size_t i = 0; i < nc && shown < 5 && used < errlen; i++) {
		if (i > 0 && strcmp(c[i].name, c[i - 1].name) == 0)
			continue;
		used += (size_t)snprintf(errmsg + used, errlen - used, "%s%s",
					 shown == 0 ? "; closest: " : ", ",
					 c[i].name);
		shown++;
	}
	for (size_t i = 0; i < nc; i++)
		free(c[i].name);
	free(c);
}

static int copy_sym(struct ftfb_sym *dst, const struct ftfb_sym *src,
		    const char *name, char *dem)
{
	memset(dst, 0, sizeof(*dst));
	dst->name = strdup(name);
	dst->binary = strdup(src->binary);
	dst->offset = src->offset;
	dst->size = src->size;
	dst->demangled = dem;
	if (!dst->name || !dst->binary)
		return -ENOMEM;
	return 0;
}

static bool parse_hex(const char *s, uint64_t *v)
{
	char *end;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !isxdigit((unsigned char)s[2]))
		return false;
	errno = 0;
	*v = strtoull(s + 2, &end, 16);
	return errno == 0 && *end == '\0';
}

/* Splits at the first ':' that is not part of "::". */
static const char *find_sep(const char *spec)
{
	for (const char *p = spec; *p; p++) {
		if (*p != ':')
			continue;
		if (p[1] == ':') {
			p++;
			continue;
		}
		return p;
	}
	return NULL;
}

/* The file a spec names (BINARY:FUNC) or the target's main binary
 * (FUNC), into path; *func points at the FUNC part. 0 or -errno (errmsg
 * set). */
static int spec_binary(const char *spec, int pid, const char *main_binary,
		       char *path, size_t pathlen, const char **func,
		       char *errmsg, size_t errlen)
{
	const char *sep = find_sep(spec);
	char *binname;
	int err;

	if (!sep) {
		*func = spec;
		return ftfb_probespec_main_binary(pid, main_binary, path,
						  pathlen, errmsg, errlen);
	}
	*func = sep + 1;
	binname = strndup(spec, (size_t)(sep - spec));
	if (!binname)
		return -ENOMEM;
	if (!*binname || !**func) {
		ftfb_seterr(errmsg, errlen,
			    "bad probe spec '%s': expected BINARY:FUNC", spec);
		free(binname);
		return -EINVAL;
	}
	err = ftfb_probespec_find_binary(binname, pid, path, pathlen, errmsg,
					 errlen);
	/* Not started yet: the command's own RUNPATH/RPATH. */
	if (err == -ENOENT && pid <= 0 && !strchr(binname, '/') &&
	    find_in_runpath(main_binary, binname, path, pathlen) == 0)
		err = 0;
	free(binname);
	return err;
}

/* A raw offset must be code: a probe on data or headers never fires
 * (seen: libc:0x0 traced nothing, silently). An error naming the code's
 * range, unless the file cannot be read as ELF (that is said later). */
static bool offset_outside_code(const char *path, uint64_t raw, char *errmsg,
				size_t errlen)
{
	uint64_t lo, hi;

	if (ftfb_elf_code_range(path, raw, &lo, &hi) != 0)
		return false;
	if (!hi)
		ftfb_seterr(errmsg, errlen,
			    "offset 0x%" PRIx64 " of %s: the file has no executable segment",
			    raw, path);
	else
		ftfb_seterr(errmsg, errlen,
			    "offset 0x%" PRIx64 " is not in the code of %s (file offsets 0x%" PRIx64 "..0x%" PRIx64 "): give a function's name, or an instruction's offset (objdump -d)",
			    raw, path, lo, hi);
	return true;
}

/* An offset inside a function, not at its start, must be an
 * instruction's first byte, which only the user can know: said once
 * (seen: malloc + 1 made the program spin forever). */
static void warn_inside_function(const char *path, uint64_t raw,
				 const struct ftfb_symlist *all)
{
	for (size_t i = 0; i < all->n; i++) {
		const struct ftfb_sym *f = &all->v[i];

		if (raw > f->offset && raw - f->offset < f->size) {
			fprintf(stderr,
				"ftf-bpf: warning: offset 0x%" PRIx64 " is inside %s of %s (0x%" PRIx64 ", %" PRIu64 " bytes), not at its start: it must be the first byte of an instruction (objdump -d), or the probe breaks the program\n",
				raw, f->name, path, f->offset, f->size);
			return;
		}
	}
}

/* BINARY:0xOFFSET: the function there if one starts there, else the
 * offset as its name. */
static int resolve_offset(const char *path, uint64_t raw,
			  const struct ftfb_symlist *all,
			  struct ftfb_symlist *out, char *errmsg,
			  size_t errlen)
{
	const struct ftfb_sym *at = NULL;
	struct stat st;
	char name[32];

	if (stat(path, &st) != 0 || raw >= (uint64_t)st.st_size) {
		ftfb_seterr(errmsg, errlen,
			    "offset 0x%" PRIx64 " is past the end of %s", raw,
			    path);
		return -EINVAL;
	}
	if (offset_outside_code(path, raw, errmsg, errlen))
		return -EINVAL;
	for (size_t i = 0; i < all->n; i++)
		if (all->v[i].offset == raw)
			at = &all->v[i];
	if (!at)
		warn_inside_function(path, raw, all);
	out->v = calloc(1, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	out->n = 1;
	snprintf(name, sizeof(name), "0x%" PRIx64, raw);
	if (at)
		return copy_sym(&out->v[0], at, at->name,
				ftfb_demangle(at->name));
	return copy_sym(&out->v[0],
			&(struct ftfb_sym){ .binary = (char *)path,
					    .offset = raw },
			name, NULL);
}

/* FUNC (a glob): every function whose name or alias matches, named by
 * the name that matched. */
static int resolve_glob(const char *func, const char *path,
			const struct ftfb_symlist *all,
			struct ftfb_symlist *out, char *errmsg, size_t errlen)
{
	out->v = all->n ? calloc(all->n, sizeof(*out->v)) : NULL;
	if (all->n && !out->v)
		return -ENOMEM;
	for (size_t i = 0; i < all->n; i++) {
		const struct ftfb_sym *s = &all->v[i];
		char *dem = NULL;
		const char *hit = NULL;
		int err;

		if (name_match(func, s->name, s->demangled, &dem))
			hit = s->name;
		for (size_t a = 0; !hit && a < s->naliases; a++)
			if (name_match(func, s->aliases[a], NULL, &dem))
				hit = s->aliases[a];
		if (!hit)
			continue;
		err = copy_sym(&out->v[out->n++], s, hit, dem);
		if (err)
			return err;
	}
	if (out->n == 0) {
		no_match_error(func, path, all, errmsg, errlen);
		return -ENOENT;
	}
	return 0;
}

int ftfb_probespec_resolve(const char *spec, int pid, const char *main_binary,
			   struct ftfb_symlist *out, char *errmsg,
			   size_t errlen)
{
	struct ftfb_symlist all = { 0 };
	char path[PATH_MAX];
	const char *func;
	uint64_t raw;
	int err;

	out->v = NULL;
	out->n = 0;
	if (!spec || !*spec) {
		ftfb_seterr(errmsg, errlen, "empty probe spec");
		return -EINVAL;
	}
	if (pid > 0 && !pid_exists(pid)) {
		ftfb_seterr(errmsg, errlen, "pid %d does not exist", pid);
		return -ESRCH;
	}
	err = spec_binary(spec, pid, main_binary, path, sizeof(path), &func,
			  errmsg, errlen);
	if (!err)
		err = ftfb_elf_functions(path, &all, errmsg, errlen);
	if (!err)
		err = parse_hex(func, &raw)
			      ? resolve_offset(path, raw, &all, out, errmsg,
					       errlen)
			      : resolve_glob(func, path, &all, out, errmsg,
					     errlen);
	if (err) {
		ftfb_symlist_free(out);
		if (err == -ENOMEM)
			ftfb_seterr(errmsg, errlen,
				    "out of memory resolving '%s'", spec);
	}
	ftfb_symlist_free(&all);
	return err;
}

void ftfb_symlist_print(FILE *f, const struct ftfb_symlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct ftfb_sym *s = &l->v[i];

		fprintf(f, "%s\t%s\t0x%" PRIx64 "\t%" PRIu64 "\n",
			s->demangled ? s->demangled : s->name, s->binary,
			s->offset, s->size);
	}
}

int ftfb_probespec_list(FILE *f, const char *spec, int pid,
			const char *main_binary, char *errmsg, size_t errlen)
{
	struct ftfb_symlist l;
	int err, n;

	err = ftfb_probespec_resolve(spec, pid, main_binary, &l, errmsg,
				     errlen);
	if (err)
		return err;
	ftfb_symlist_print(f, &l);
	n = (int)l.n;
	ftfb_symlist_free(&l);
	return n;
}
