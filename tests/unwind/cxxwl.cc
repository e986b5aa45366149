// SPDX-License-Identifier: MIT
// cxxwl: the C++ workload of test 'unwind demangled': main -> geo::walk ->
// geo::Grid<unsigned long>::spin, a loop of STEPS steps in all. Built by
// the test with g++ -O2.
//
// usage: cxxwl STEPS
#include <cstdint>
#include <cstdlib>

namespace geo {
template <typename T> struct Grid {
	T k;
	__attribute__((noinline)) T spin(long n) const
	{
		T x = k;

		for (long i = 0; i < n; i++)
			x = x * (T)6364136223846793005ull + (T)1442695040888963407ull;
		asm volatile("");
		return x;
	}
};

__attribute__((noinline)) uint64_t walk(const Grid<uint64_t> &g, long n)
{
	uint64_t r = g.spin(n);

	asm volatile("");
	return r + 1;
}
} // namespace geo

static volatile uint64_t sink;

int main(int argc, char **argv)
{
	geo::Grid<uint64_t> g{1};
	long n = argc > 1 ? atol(argv[1]) : 100000000;

	for (int i = 0; i < 10; i++)
		sink += geo::walk(g, n / 10);
	return 0;
}
