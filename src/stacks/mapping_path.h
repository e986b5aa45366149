/* SPDX-License-Identifier: MIT */
/*
 * mapping_path.h - the path through which ftf-bpf opens the file behind
 * a process's mapping, as /proc/PID/maps names it.
 */
#ifndef FTFB_MAPPING_PATH_H
#define FTFB_MAPPING_PATH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Into out: /proc/TGID/map_files/START-END when the mapped file is gone
 * (its name ends in " (deleted)": a file replaced or removed since, a
 * program run from a memfd), which still reaches the mapped inode;
 * otherwise the name inside the process's root, /proc/TGID/root/NAME
 * (right in a container too). 0, or -ENAMETOOLONG.
 */
int ftfb_mapping_path(char *out, size_t len, uint32_t tgid, uint64_t start,
		      uint64_t end, const char *name);

#endif
