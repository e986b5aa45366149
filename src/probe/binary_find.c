// SPDX-License-Identifier: MIT
/*
 * binary_find.c - the file a spec's BINARY part names, as the target
 * sees it: a path, a library the target maps or would load (its
 * RUNPATH, ld.so.cache, the usual directories), a program on PATH.
 */
#define _GNU_SOURCE
#include <gelf.h>
#include <libelf.h>

#include "binary_find.h"
#include "elfsym.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <elf.h>

/* ------------------------------------------------------------------ */
/* Files of the target                                                 */
/* ------------------------------------------------------------------ */

bool ftfb_pid_exists(int pid)
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
int ftfb_find_in_runpath(const char *main_binary, const char *name,
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

		if (!ftfb_pid_exists(pid)) {
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
