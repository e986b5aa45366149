/* SPDX-License-Identifier: MIT */
#ifndef WORKLOAD_LIB_H
#define WORKLOAD_LIB_H
/* Returns a + b. Called WL_LIB_CALLS times per worker thread. */
int wl_lib_add(int a, int b);
#endif
