/* SPDX-License-Identifier: MIT */
/* uwlib - the shared library of nofpwl (built without frame pointers):
 * uwlib_spin sorts n ints with libc's qsort and cmp, so the stack runs
 * nofpwl -> uwlib -> libc -> nofpwl. */
#ifndef UWLIB_H
#define UWLIB_H

void uwlib_spin(int *v, int n, int (*cmp)(const void *, const void *));

#endif
