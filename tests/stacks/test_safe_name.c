// SPDX-License-Identifier: MIT
/*
 * test_safe_name - names from traced processes made valid UTF-8 without
 * controls (src/stacks/safe_name.c), on byte sequences worked out by
 * hand from RFC 3629 and Unicode's control and bidi code points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "safe_name.h"

/* in, cleaned with max bytes, must give want */
static void expect(const char *in, size_t max, const char *want)
{
	char buf[64];

	strcpy(buf, in);
	assert_int_equal(ftfb_safe_name(buf, max), strlen(want));
	assert_string_equal(buf, want);
}

static void plain_kept(void **state)
{
	(void)state;
	expect("main", 64, "main");
	expect("std::vector<int>::push_back(int&&)", 64,
	       "std::vector<int>::push_back(int&&)");
	expect("", 64, "");
	/* é (C3 A9), € (E2 82 AC), 😀 (F0 9F 98 80): valid, kept */
	expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 64,
	       "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* U+FFFD itself (EF BF BD) and U+10FFFF (F4 8F BF BF) */
	expect("\xef\xbf\xbd\xf4\x8f\xbf\xbf", 64,
	       "\xef\xbf\xbd\xf4\x8f\xbf\xbf");
}

static void controls_replaced(void **state)
{
	(void)state;
	/* ESC [ 2 J (clear screen): ESC goes, the printable rest stays */
	expect("a\x1b[2Jb", 64, "a?[2Jb");
	expect("x\ry\nz\tw\x07", 64, "x?y?z?w?");
	expect("\x7f", 64, "?"); /* DEL */
	expect("a\xc2\x9b"
	       "31mb",
	       64, "a?31mb"); /* C1 CSI, U+009B */
	expect("\xc2\x80\xc2\x9f\xc2\xa0", 64,
	       "??\xc2\xa0"); /* U+0080, U+009F; NBSP kept */
	/* RIGHT-TO-LEFT OVERRIDE U+202E (E2 80 AE), ISOLATE U+2066 (E2 81 A6)
	 */
	expect("ab\xe2\x80\xae"
	       "cd\xe2\x81\xa6",
	       64, "ab?cd?");
	/* U+2028 LINE SEPARATOR (E2 80 A8) is not a bidi control: kept */
	expect("\xe2\x80\xa8", 64, "\xe2\x80\xa8");
}

static void invalid_replaced(void **state)
{
	(void)state;
	expect("a\xffz", 64, "a?z");	   /* never in UTF-8 */
	expect("\x80z", 64, "?z");	   /* stray continuation */
	expect("\xc3z", 64, "?z");	   /* lead without its continuation */
	expect("\xc0\xaf", 64, "??");	   /* overlong '/' */
	expect("\xe0\x80\xaf", 64, "???"); /* overlong, 3 bytes */
	expect("\xed\xa0\x80", 64, "???"); /* surrogate U+D800 */
	expect("\xf4\x90\x80\x80", 64, "????"); /* above U+10FFFF */
	expect("\xf0\x8f\xbf\xbf", 64, "????"); /* overlong, 4 bytes */
	expect("\xe2\x82", 64, "??");		/* cut short at the end */
	expect("\xf5\x80\x80\x80", 64, "????");
}

static void cut_at_a_character(void **state)
{
	(void)state;
	expect("abcdef", 4, "abcd");
	/* é is 2 bytes: 3 bytes hold "a" and é, 2 bytes only "a" */
	expect("a\xc3\xa9z", 3, "a\xc3\xa9");
	expect("a\xc3\xa9z", 2, "a");
	expect("\xf0\x9f\x98\x80", 3, "");
	expect("ab\x1b", 3, "ab?");
	expect("ab\x1b", 2, "ab");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_kept),
		cmocka_unit_test(controls_replaced),
		cmocka_unit_test(invalid_replaced),
		cmocka_unit_test(cut_at_a_character),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
