/* names.c: see names.h. C++ names are demangled by the C++ runtime's own demangler
 * (__cxa_demangle, libstdc++): the compiler's own, kept in step with its mangling. */
#include <stdlib.h>
#include <string.h>

#include "util/names.h"

/* The C++ ABI's demangler (cxxabi.h), declared here so that this file stays C; it has C
 * linkage in libstdc++ and libc++abi alike. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static int has_suffix(const char *s, size_t n, const char *suf)
{
	size_t l = strlen(suf);
	return n > l && !memcmp(s + n - l, suf, l);
}

size_t dt_name_fortran_mpi(const char *s, size_t n, char *out, size_t cap)
{
	if (n < 6 || memcmp(s, "mpi_", 4) || s[n - 1] != '_')
		return 0;
	/* the binding's suffix: mpi_f08's, then gfortran's one or two underscores */
	size_t end = n;
	if (has_suffix(s, n, "_f08ts_"))
		end = n - 7;
	else if (has_suffix(s, n, "_f08_"))
		end = n - 5;
	else if (has_suffix(s, n, "__"))
		end = n - 2;
	else
		end = n - 1;
	if (end <= 4 || end + 1 > cap)
		return 0;
	/* MPI_ then a capital and lower case: MPI_Comm_rank, MPI_Type_create_f90_integer */
	memcpy(out, "MPI_", 4);
	for (size_t i = 4; i < end; i++) {
		char ch = s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_'))
			return 0;
		out[i] = i == 4 && ch >= 'a' && ch <= 'z' ? (char)(ch - 'a' + 'A') : ch;
	}
	if (out[4] < 'A' || out[4] > 'Z')
		return 0;
	out[end] = 0;
	return end;
}

char *dt_name_demangle(const char *s, size_t n)
{
	/* a translation unit's static constructor: GCC's prefix, then the name of its first
	 * function, _GLOBAL__sub_I__ZN4comm10reduce_sumIdEET_S1_ */
	static const char gl[] = "_GLOBAL__sub_I_";
	size_t lg = sizeof gl - 1;
	if (n > lg + 2 && !memcmp(s, gl, lg) && s[lg] == '_' && s[lg + 1] == 'Z') {
		char *d = dt_name_demangle(s + lg, n - lg);
		char *r = d ? malloc(lg + strlen(d) + 1) : NULL;
		if (r) {
			memcpy(r, gl, lg);
			strcpy(r + lg, d);
		}
		free(d);
		return r;
	}
	if (n < 3 || s[0] != '_' || s[1] != 'Z')
		return NULL;
	char *z = malloc(n + 1);
	if (!z)
		return NULL;
	memcpy(z, s, n);
	z[n] = 0;
	int st = -1;
	char *d = __cxa_demangle(z, NULL, NULL, &st);
	free(z);
	if (st != 0) {
		free(d);
		return NULL;
	}
	return d;
}

char *dt_name_display(const char *s, size_t n)
{
	char f[128];
	size_t l = dt_name_fortran_mpi(s, n, f, sizeof f);
	if (l) {
		char *r = malloc(l + 1);
		if (r)
			memcpy(r, f, l + 1);
		return r;
	}
	return dt_name_demangle(s, n);
}

const char *dt_name_plain(const char *sym, char *buf, size_t cap)
{
	if (!strchr(sym, '(') && !strchr(sym, '<'))
		return sym;
	size_t k = 0, start = 0;
	int depth = 0;
	/* operator<, operator<< and the like keep their brackets */
	for (const char *p = sym; *p && k + 1 < cap; p++) {
		if (!strncmp(p, "operator", 8) && depth == 0) {
			size_t l = strcspn(p, "(");
			if (l > 8 && p[l] == '(' && l + k + 1 < cap) {
				memcpy(buf + k, p, l);
				k += l;
				break;
			}
		}
		if (*p == '<') {
			depth++;
		} else if (*p == '>' && depth > 0) {
			depth--;
		} else if (depth == 0) {
			if (*p == '(')
				break;
			if (*p == ' ')
				start = k + 1; /* what came before is the return type */
			buf[k++] = *p;
		}
	}
	buf[k] = 0;
	return buf + (start <= k ? start : 0);
}
