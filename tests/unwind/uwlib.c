// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "uwlib.h"

__attribute__((noinline)) void
uwlib_spin(int *v, int n, int (*cmp)(const void *, const void *))
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}
