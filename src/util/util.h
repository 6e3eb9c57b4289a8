/* util.h: small helpers every module uses: checked allocation, growable byte buffers, LEB128
 * varints, a string-to-id hash map, and whole-file reading. */
#ifndef DT_UTIL_H
#define DT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* Allocation failure is not a recoverable condition for a command-line tool: abort with a
 * message rather than thread NULL checks through every caller. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Grows *cap (doubling) until it holds need elements of size elt; reallocates *p. */
void grow(void **p, size_t *cap, size_t need, size_t elt);
#define GROW(p, cap, need) grow((void **)&(p), &(cap), (need), sizeof *(p))

typedef struct dt_buf {
	uint8_t *p;
	size_t len, cap;
} dt_buf;

void buf_put(dt_buf *b, const void *data, size_t n);
void buf_byte(dt_buf *b, uint8_t c);
void buf_uvar(dt_buf *b, uint64_t v);  /* unsigned LEB128 */
void buf_svar(dt_buf *b, int64_t v);   /* zigzag, then LEB128 */
void buf_free(dt_buf *b);

/* Reads an unsigned LEB128 at *pos (advanced); -1 when it runs past end or is over 10 bytes. */
int uvar_get(const uint8_t *p, size_t len, size_t *pos, uint64_t *v);
/* The next LEB128 number at *pos of p, or 0 with *bad set once one is bad (and ever after):
 * the one- and two-byte numbers most packed records hold are read inline. */
static inline uint64_t uvar_next(const uint8_t *p, size_t len, size_t *pos, int *bad)
{
	if (*pos < len && p[*pos] < 0x80)
		return p[(*pos)++];
	if (*pos + 1 < len && p[*pos + 1] < 0x80) {
		uint64_t v = (uint64_t)(p[*pos] & 0x7f) | (uint64_t)p[*pos + 1] << 7;
		*pos += 2;
		return v;
	}
	uint64_t v = 0;
	if (!*bad && uvar_get(p, len, pos, &v))
		*bad = 1;
	return *bad ? 0 : v;
}
int svar_get(const uint8_t *p, size_t len, size_t *pos, int64_t *v);

/* Open-addressing map from byte strings to uint32 values (ids). Keys are copied. */
typedef struct strmap {
	struct strmap_slot *slots;
	size_t cap, count;
} strmap;

void strmap_init(strmap *m);
void strmap_free(strmap *m);
/* Returns 1 and sets *val when found, else 0. */
int strmap_get(const strmap *m, const char *key, size_t klen, uint32_t *val);
void strmap_put(strmap *m, const char *key, size_t klen, uint32_t val);

/* "a/b", malloc'ed. */
char *path_join(const char *a, const char *b);
/* k as an English ordinal into b: "1st", "2nd", "3rd", "11th"; returns b. */
const char *ordinal(uint64_t k, char *b, size_t n);

/* Reads a whole file into memory (NUL-terminated; *len excludes the NUL). */
int read_file(const char *path, uint8_t **data, size_t *len, dt_err *e);

uint64_t hash_bytes(const void *p, size_t n);

/* Natural order on strings: runs of digits compare by value ("rank-2" < "rank-10"). */
int natcmp(const char *a, const char *b);

/* A path as /proc/PID/maps writes it (uftrace's sid-*.map and the sampler's .maps copy it),
 * in place: the kernel writes a newline in it as \012, turned back into the newline so that
 * the path names the file. */
void maps_path_unescape(char *p);

#endif
