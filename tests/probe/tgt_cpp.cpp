// SPDX-License-Identifier: MIT
/*
 * tgt_cpp.cpp - C++ target for demangled and mangled matching. Prints
 * "LABEL 0xADDRESS" like tgt.c, then waits for stdin to close.
 *   ns::overloaded(int)     _ZN2ns10overloadedEi
 *   ns::overloaded(double)  _ZN2ns10overloadedEd
 *   ns::Widget::make(int)   _ZN2ns6Widget4makeEi
 */
#include <cstdio>
#include <cstring>

namespace ns
{
volatile int sink;

__attribute__((noinline)) int overloaded(int x)
{
	sink += x;
	return sink;
}

__attribute__((noinline)) int overloaded(double x)
{
	sink += (int)x;
	return sink;
}

struct Widget {
	static int make(int x);
};

__attribute__((noinline)) int Widget::make(int x)
{
	sink -= x;
	return sink;
}
} // namespace ns

int main(int argc, char **argv)
{
	int (*oi)(int) = ns::overloaded;
	int (*od)(double) = ns::overloaded;
	int (*mk)(int) = ns::Widget::make;
	char buf[64];

	oi(argc);
	od(argc);
	mk(argc);
	if (argc < 2 || std::strcmp(argv[1], "addrs") != 0)
		return 0;
	std::printf("overloaded_int %p\n", (void *)oi);
	std::printf("overloaded_double %p\n", (void *)od);
	std::printf("widget_make %p\n", (void *)mk);
	std::printf("end\n");
	std::fflush(stdout);
	while (std::fgets(buf, sizeof(buf), stdin))
		;
	return 0;
}
