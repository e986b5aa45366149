// SPDX-License-Identifier: MIT
/*
 * safe_name.c - names from traced processes as valid UTF-8 without
 * controls (see safe_name.h).
 */
#include <stdbool.h>
#include <stdint.h>

#include "safe_name.h"

static bool cont(uint8_t c)
{
	return (c & 0xc0) == 0x80;
}

/* The length of the valid UTF-8 character at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), 0 if invalid; its code
 * point in *cp. */
static size_t utf8_char(const uint8_t *s, uint32_t *cp)
{
	uint8_t c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf && cont(s[1])) {
		*cp = (uint32_t)(c & 0x1f) << 6 | (s[1] & 0x3f);
		return 2;
	}
	if (c >= 0xe0 && c <= 0xef && cont(s[1]) && cont(s[2])) {
		*cp = (uint32_t)(c & 0x0f) << 12 |
		      (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
		/* overlong (below U+0800) or a surrogate half */
		return *cp < 0x800 || (*cp >= 0xd800 && *cp <= 0xdfff) ? 0 : 3;
	}
	if (c >= 0xf0 && c <= 0xf4 && cont(s[1]) && cont(s[2]) && cont(s[3])) {
		*cp = (uint32_t)(c & 0x07) << 18 |
		      (uint32_t)(s[1] & 0x3f) << 12 |
		      (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
		return *cp < 0x10000 || *cp > 0x10ffff ? 0 : 4;
	}
	return 0; /* a stray continuation byte, C0, C1, F5..FF, or cut short */
}

/* Controls a terminal or a viewer acts on rather than shows. */
static bool control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t ftfb_safe_name(char *name, size_t max)
{
	uint8_t *s = (uint8_t *)name;
	size_t r = 0, w = 0;

	/* (a NUL ends the name: the checks above never read past it, as
	 * a continuation byte is never 0) */
	while (s[r]) {
		uint32_t cp = 0;
		size_t n = utf8_char(s + r, &cp);

		if (!n || control(cp)) {
			if (w + 1 > max)
				break;
			s[w++] = '?';
			r += n ? n : 1;
			continue;
		}
		if (w + n > max)
			break;
		for (size_t i = 0; i < n; i++)
			s[w++] = s[r++];
	}
	s[w] = 0;
	return w;
}
