/* bench_build.h: the build the figures come from, printed first by the benchmarks that set
 * difftrace's code next to a peer's. The peers (zstd, diff, git) are the system's optimised
 * builds; difftrace's side built with AddressSanitizer or without optimisation runs several
 * times slower (lza3 decodes 3.5x slower under ASan/UBSan), and its ratios mean nothing.
 * Returns 1 for such a build, after saying so. */
#ifndef DT_BENCH_BUILD_H
#define DT_BENCH_BUILD_H

#include <stdio.h>

#if defined(__SANITIZE_ADDRESS__)
#define BENCH_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BENCH_SANITIZED 1
#endif
#endif
#ifndef BENCH_SANITIZED
#define BENCH_SANITIZED 0
#endif
#ifdef __OPTIMIZE__
#define BENCH_OPTIMIZED 1
#else
#define BENCH_OPTIMIZED 0
#endif

static inline int bench_build(void)
{
	printf("build: %s%s, %s, %s\n",
#if defined(__GNUC__) && !defined(__clang__)
	       "gcc ",
#else
	       "",
#endif
	       __VERSION__, BENCH_OPTIMIZED ? "optimised" : "NOT optimised",
	       BENCH_SANITIZED ? "WITH SANITIZERS" : "no sanitizers");
	if (BENCH_SANITIZED || !BENCH_OPTIMIZED) {
		printf("warning: this build's rates are not comparable with the peers' (rebuild "
		       "without --enable-sanitizers, with -O2)\n");
		return 1;
	}
	return 0;
}

#endif
