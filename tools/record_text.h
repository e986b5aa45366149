/* SPDX-License-Identifier: MIT */
/*
 * record_text.h - one line of text per FTF record, in the form of
 * Fuchsia's trace-reader Record::ToString(), so that a dump can be diffed
 * against the text Fuchsia's own reader prints.
 *
 * Differences from Fuchsia (none of them occur in its fixtures):
 * - control bytes in strings are escaped (\n, \xNN) to keep one line per
 *   record; Fuchsia prints them raw;
 * - an instant event without the scope word (the spec's and the seed
 *   writer's layout, which Fuchsia's reader rejects) prints "Instant";
 * - records Fuchsia's reader skips print a line of our own:
 *   UserspaceObject(...), Unknown(type: T, size: N words), and the
 *   initialization record's base ticks/time are not printed.
 */
#ifndef FTF_TOOLS_RECORD_TEXT_H
#define FTF_TOOLS_RECORD_TEXT_H

#include <stdio.h>

#include "ftf/reader.h"

void ftf_record_print(FILE *out, const struct ftf_record *rec);
/* Writes the record's text into buf (always NUL-terminated, truncated if
 * needed); returns the length the full text would have. */
size_t ftf_record_text(char *buf, size_t size, const struct ftf_record *rec);

#endif
