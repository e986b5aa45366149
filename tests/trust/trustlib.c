// SPDX-License-Identifier: MIT
/*
 * trustlib.c - the library the hostile-user tests map (test_hostile.py):
 * trust_real_fn spins in itself and in a static function whose name the
 * test rewrites in a copy (same length: the layout stays), to put bytes
 * a terminal acts on into .symtab. Built again with TRUST_FN=trust_fake_fn
 * it is a look-alike: the same code at the same offsets, other names.
 */
#ifndef TRUST_FN
#define TRUST_FN trust_real_fn
#endif

unsigned long TRUST_FN(unsigned long n);

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long
trust_esc_fn_xxxxxxxx(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s += i * 7 + (s >> 3);
	return s;
}

unsigned long TRUST_FN(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s += i * 3 + (s >> 2);
	sink = s;
	return s + trust_esc_fn_xxxxxxxx(n);
}
