// SPDX-License-Identifier: MIT
/*
 * unwind-cxx.cc - the C++ twin of unwind-c: the levels are methods of a class template in a
 * namespace, so a profile shows demangled names (ppload::Walker<int>::level1()).
 *
 *   main -> ppload::Walker<int>::level1 -> level2 -> level3
 *        -> ppload::leaf_sort (libunwindleafxx.so, rpath $ORIGIN) -> qsort (libc)
 *        -> ppload::Walker<int>::compare (this program)
 *
 * Self time 1:2:3:4 units of --unit-us, as unwind-c: inclusive level1 100 %, level2 90 %,
 * level3 70 %, leaf_sort 40 %.  Built -O2 -fomit-frame-pointer -g.
 *
 * usage: unwind-cxx [-d SECONDS] [-u UNIT_US]
 * Last line on stderr:
 *   LOAD unwind-cxx duration_s=S unit_us=U iters=N
 *        incl_pct=level1:100,level2:90,level3:70,leaf_sort:40 pid=P tids=T ops=N wall_s=S
 *        user_s=S sys_s=S
 */
#include <cstddef>
#include <cstdint>

#include "tests/load/unwind/spin.h"

static const char usage[] =
	"usage: unwind-cxx [-d SECONDS] [-u UNIT_US]\n"
	"  -d, --duration S   run time in seconds (default 1)\n"
	"  -u, --unit-us U    slice unit in microseconds (default 50)\n"
	"Call chain main -> ppload::Walker<int>::level1 -> level2 -> level3 -> ppload::leaf_sort\n"
	"(libunwindleafxx.so) -> qsort -> ppload::Walker<int>::compare; self time 1:2:3:4,\n"
	"inclusive level1 100 %, level2 90 %, level3 70 %, leaf_sort 40 %.\n"
	"Prints 'LOAD unwind-cxx ... ops= wall_s= user_s= sys_s=' on stderr.\n";

namespace ppload {

unsigned long leaf_sort(int *v, std::size_t n, std::uint64_t budget, std::uint64_t gap,
			int (*cmp)(const void *, const void *));

template <typename T> class Walker {
public:
	Walker(std::uint64_t unit, std::uint64_t gap) : unit_(unit), gap_(gap) {}
	__attribute__((noinline)) unsigned long level1();
	__attribute__((noinline)) unsigned long level2();
	__attribute__((noinline)) unsigned long level3();
	__attribute__((noinline)) static int compare(const void *a, const void *b);

private:
	std::uint64_t slice(unsigned units)
	{
		return units * unit_ * (512 + (uw_rand(&jitter_) & 1023)) / 1024;
	}
	std::uint64_t unit_, gap_;
	std::uint32_t jitter_ = 2463534242u;
	volatile unsigned int sink_ = 0;
	T array_[256];
};

template <typename T> int Walker<T>::compare(const void *a, const void *b)
{
	T x = *static_cast<const T *>(a), y = *static_cast<const T *>(b);

	return (x > y) - (x < y);
}

template <typename T> unsigned long Walker<T>::level3()
{
	UW_SPIN(slice(3), gap_, sink_);
	unsigned long r = leaf_sort(array_, sizeof(array_) / sizeof(array_[0]), slice(4), gap_,
				    &Walker<T>::compare);
	sink_ += (unsigned int)r;
	return r;
}

template <typename T> unsigned long Walker<T>::level2()
{
	UW_SPIN(slice(2), gap_, sink_);
	unsigned long r = level3();
	sink_ += (unsigned int)r;
	return r;
}

template <typename T> unsigned long Walker<T>::level1()
{
	UW_SPIN(slice(1), gap_, sink_);
	unsigned long r = level2();
	sink_ += (unsigned int)r;
	return r;
}

} // namespace ppload

int main(int argc, char **argv)
{
	double duration = 1.0, unit_us = 50.0;

	uw_args(argc, argv, "unwind-cxx", usage, &duration, &unit_us);
	std::uint64_t unit, gap;
	double tpu = uw_clock_setup(unit_us, &unit, &gap);
	ppload::Walker<int> w(unit, gap);
	unsigned long iters = 0, rounds = 0;
	double t0 = uw_now_s();
	std::uint64_t end = UW_TICKS() + (std::uint64_t)(duration * 1e6 * tpu);

	do {
		rounds += w.level1();
		iters++;
	} while (UW_TICKS() < end);
	uw_report("unwind-cxx", duration, unit_us, iters, rounds, uw_now_s() - t0);
	return 0;
}
