/* SPDX-License-Identifier: MIT */
/*
 * defaults.h - every default and bound of ftf-bpf's options, in one
 * place: the option parser, the loader and the flight recorder read them
 * here. (The --help text, the man page and the README state them in
 * words; tests/cli checks the parser against them.)
 */
#ifndef FTFB_DEFAULTS_H
#define FTFB_DEFAULTS_H

#include "events.h" /* FTFB_MAX_ARGS: the --args bound */

#define FTFB_DEFAULT_OUTPUT "trace.fxt"		/* -o */
#define FTFB_DEFAULT_RING_BYTES (8u << 20)	/* --buffer-size, with -p/-- */
/* Without --buffer-size: more system-wide (ring_size.h), up to this in
 * all rings together; no ring below the minimum */
#define FTFB_AUTO_RING_MAX_BYTES (256ull << 20)
#define FTFB_MIN_AUTO_RING_BYTES (1ull << 20)
#define FTFB_MAX_RING_BYTES (1ull << 30)
#define FTFB_DEFAULT_RINGS 1			/* --rings */
#define FTFB_MAX_RINGS 64
#define FTFB_DEFAULT_FREQ_HZ 99			/* --freq */
#define FTFB_MAX_FREQ_HZ 10000
#define FTFB_FLIGHT_DEFAULT_BYTES (256ull << 20) /* --flight-size */
#define FTFB_FLIGHT_MIN_BYTES (1u << 20)
#define FTFB_FLIGHT_DEFAULT_SNAPSHOTS 10	/* --max-snapshots */
#define FTFB_FLIGHT_MAX_SNAPSHOTS 1000
#define FTFB_MAX_UPROBE_SPECS 64		/* -u */
#define FTFB_MAX_TRIGGERS 16			/* --trigger */
/* The ring readers' nice value, their thread only (reader_priority.h) */
#define FTFB_READER_NICE (-10)

#endif
