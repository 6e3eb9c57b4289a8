/* check.h: the few macros the unit tests need. A test program exits 0 when every check held,
 * 1 when one failed, 77 when it had to skip (the automake convention). */
#ifndef DT_CHECK_H
#define DT_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			check_failures++;                                                  \
		}                                                                          \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                                 \
	do {                                                                               \
		long long va_ = (long long)(a), vb_ = (long long)(b);                      \
		if (va_ != vb_) {                                                          \
			fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,  \
				__LINE__, #a, #b, va_, vb_);                               \
			check_failures++;                                                  \
		}                                                                          \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                                 \
	do {                                                                               \
		const char *sa_ = (a), *sb_ = (b);                                         \
		if (!sa_ || !sb_ || strcmp(sa_, sb_)) {                                    \
			fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n",        \
				__FILE__, __LINE__, #a, #b, sa_ ? sa_ : "(null)",          \
				sb_ ? sb_ : "(null)");                                     \
			check_failures++;                                                  \
		}                                                                          \
	} while (0)

#define SKIP(...)                                                                          \
	do {                                                                               \
		fprintf(stderr, "SKIP: " __VA_ARGS__);                                     \
		fputc('\n', stderr);                                                       \
		exit(77);                                                                  \
	} while (0)

#define CHECK_DONE()                                                                       \
	do {                                                                               \
		if (check_failures)                                                        \
			fprintf(stderr, "%d check(s) failed\n", check_failures);           \
		return check_failures ? 1 : 0;                                             \
	} while (0)

/* Where ../shared (the project's sibling folder of real trace data) is, or NULL. */
static inline const char *shared_dir(void)
{
	const char *d = getenv("DIFFTRACE_SHARED");
	static char buf[4096];
	if (d && *d)
		return d;
	const char *top = getenv("abs_top_srcdir");
	snprintf(buf, sizeof buf, "%s/../shared", top ? top : "..");
	FILE *f;
	char probe[4200];
	snprintf(probe, sizeof probe, "%s/formats/parlot.md", buf);
	if ((f = fopen(probe, "r"))) {
		fclose(f);
		return buf;
	}
	return NULL;
}

#endif
