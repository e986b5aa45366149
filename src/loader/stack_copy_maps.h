/* SPDX-License-Identifier: MIT */
/*
 * stack_copy_maps.h - the BPF walker's tables (uw_procs, uw_tables,
 * uw_rows) as the source the stacks held with a copy are finished from
 * (stack_finish.h): read-only, from the run loop's thread.
 */
#ifndef FTFB_STACK_COPY_MAPS_H
#define FTFB_STACK_COPY_MAPS_H

#include "stack_finish.h"

struct ftfb_loader;
struct ftfb_sf_maps;

/* src reads l's stack maps while *out lives (freed before l's close);
 * 0, or -errno (no stack programs: -ENODEV). */
int ftfb_sf_maps_open(struct ftfb_loader *l, struct ftfb_sf_maps **out,
		      struct ftfb_sf_source *src);
void ftfb_sf_maps_free(struct ftfb_sf_maps *m);

#endif
