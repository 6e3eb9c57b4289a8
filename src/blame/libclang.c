/* libclang.c: loads libclang at run time (libclang.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

#ifdef HAVE_LIBCLANG
#define BX_LIBCLANG_NO_RENAME
#include "blame/libclang.h"

#define BX_LIBCLANG_DEFINE(f) __typeof__(&f) bx_##f;
BX_LIBCLANG_FUNCS(BX_LIBCLANG_DEFINE)

int bx_libclang_load(dt_err *e)
{
	static int state; /* 0: not tried, 1: loaded, -1: failed */
	static char why[400];
	if (state == 0) {
		/* the library configure found, then whatever the loader finds */
		static const char *const names[] = { BX_LIBCLANG_DIR "/libclang.so",
						     BX_LIBCLANG_DIR "/libclang.so.1", "libclang.so",
						     "libclang.so.1" };
		void *h = NULL;
		for (size_t i = 0; !h && i < sizeof names / sizeof *names; i++)
			if (!(h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) && i == 0) {
				const char *d = dlerror();
				snprintf(why, sizeof why, "%s", d ? d : "?");
			}
		state = h ? 1 : -1;
#define BX_LIBCLANG_SYM(f)                                                                        \
	if (state == 1) {                                                                         \
		void *p = dlsym(h, #f);                                                           \
		if (p)                                                                            \
			memcpy(&bx_##f, &p, sizeof p);                                            \
		else {                                                                            \
			snprintf(why, sizeof why, "it lacks %s (libclang too old)", #f);           \
			state = -1;                                                               \
		}                                                                                 \
	}
		BX_LIBCLANG_FUNCS(BX_LIBCLANG_SYM)
	}
	if (state < 0)
		return dt_errf(e, DT_EDATA, "cannot load libclang: %s (apt-get install libclang1)", why);
	return 0;
}
#endif
