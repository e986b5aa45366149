// SPDX-License-Identifier: MIT
/*
 * pystack_merge.c - Python frames among native ones (see pystack_merge.h).
 */
#include <string.h>

#include "events.h"
#include "pystack_merge.h"

enum ftfb_py_native ftfb_py_native_kind(const char *f)
{
	static const char *const roots[] = {
		"_start",
		"__libc_start_main",
		"__libc_start_call_main",
		"start_thread",
		"clone",
		"clone3",
		"__clone",
		"__clone3",
	};

	if (!f)
		return FTFB_PYN_OTHER;
	if (!strcmp(f, "_PyEval_EvalFrameDefault"))
		return FTFB_PYN_EVAL;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!strcmp(f, roots[i]))
			return FTFB_PYN_ROOT;
	return FTFB_PYN_OTHER;
}

static void put(struct ftfb_py_slot *out, size_t max, size_t *n, bool python,
		uint32_t index)
{
	if (*n < max)
		out[(*n)++] = (struct ftfb_py_slot){python, index};
}

/* The runs of Python frames (one per interpreter call): each starts at
 * a marked frame, the outermost one in any case (its mark may be past
 * the depth read). */
static uint32_t count_runs(const uint64_t *py, uint32_t np)
{
	uint32_t runs = 0;

	for (uint32_t i = 0; i < np; i++)
		if ((py[i] & FTFB_PY_EVAL_FIRST) || i == np - 1)
			runs++;
	return runs;
}

/* Interleaved: each eval frame replaced by its run, root first. */
static size_t interleave(const uint8_t *nk, uint32_t nn, const uint64_t *py,
			 uint32_t np, struct ftfb_py_slot *out, size_t max)
{
	uint32_t next =
		np; /* py[next - 1]: the next Python frame, root first */
	size_t n = 0;

	for (uint32_t i = 0; i < nn; i++) {
		if (nk[i] != FTFB_PYN_EVAL) {
			put(out, max, &n, false, i);
			continue;
		}
		/* this call's run: from its first frame to before the next */
		do
			put(out, max, &n, true, --next);
		while (next > 0 && !(py[next - 1] & FTFB_PY_EVAL_FIRST));
	}
	return n;
}

size_t ftfb_py_merge(const uint8_t *nk, uint32_t nn, bool whole,
		     const uint64_t *py, uint32_t np, struct ftfb_py_slot *out,
		     size_t max, bool *exact)
{
	uint32_t evals = 0, innermost = 0;
	size_t n = 0;

	for (uint32_t i = 0; i < nn; i++)
		if (nk[i] == FTFB_PYN_EVAL) {
			evals++;
			innermost = i + 1;
		}
	*exact = np && nn && (whole || nk[0] == FTFB_PYN_ROOT) &&
		 evals == count_runs(py, np);
	if (*exact)
		return interleave(nk, nn, py, np, out, max);
	for (uint32_t i = np; i-- > 0;)
		put(out, max, &n, true, i);
	for (uint32_t i = innermost; i < nn; i++)
		put(out, max, &n, false, i);
	return n;
}
