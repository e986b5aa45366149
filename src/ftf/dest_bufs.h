/* SPDX-License-Identifier: MIT */
/*
 * src/ftf/dest_bufs.h - the two buffers a destination hands the writer in
 * turn (libftf-internal, not installed).
 */
#ifndef FTF_DEST_BUFS_H
#define FTF_DEST_BUFS_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* A record that ftf_write_bytes cut at a buffer's end starts the next
 * buffer: make both buffers at least twice as large as the `carry` bytes
 * of it already written (a large blob may be far larger than a buffer),
 * their contents kept. 0, or -ENOMEM with *size unchanged. */
static inline int ftf__dest_bufs_fit(uint8_t *bufs[2], size_t *size,
				     size_t carry)
{
	size_t ns = *size;

	if (carry <= ns / 2)
		return 0;
	while (ns / 2 < carry) {
		if (ns > SIZE_MAX / 2)
			return -ENOMEM;
		ns *= 2;
	}
	for (int i = 0; i < 2; i++) {
		uint8_t *p = realloc(bufs[i], ns);

		if (!p)
			return -ENOMEM;
		bufs[i] = p;
	}
	*size = ns;
	return 0;
}

#endif
