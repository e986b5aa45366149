/* SPDX-License-Identifier: MIT */
/*
 * safe_name.h - names chosen by a traced process's user (ELF symbols,
 * perf map entries, Python function and file names), made fit for a
 * terminal and a trace before they reach either.
 *
 * A name may hold any bytes: ESC sequences that drive root's terminal,
 * CR that overwrites a line, invalid UTF-8 that a trace viewer rejects
 * or renders as something else, bidirectional overrides that show text
 * in another order than it is. Each such byte or character becomes '?',
 * so the result is never longer than the name and is made in place.
 */
#ifndef FTFB_SAFE_NAME_H
#define FTFB_SAFE_NAME_H

#include <stddef.h>

/* Longest name kept, in bytes (longer ones are cut at a character). */
#define FTFB_SAFE_NAME_MAX 4096

/* Rewrites the NUL-terminated s in place: valid UTF-8 without C0
 * controls, DEL, C1 controls (U+0080..U+009F), nor bidirectional
 * embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069),
 * each byte of an invalid sequence and each such character replaced by
 * '?'; cut to at most max bytes at a character's end. Its length. */
size_t ftfb_safe_name(char *s, size_t max);

#endif
