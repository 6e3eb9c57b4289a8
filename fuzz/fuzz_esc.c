/* fuzz_esc.c: the escaping of util/esc.h on arbitrary bytes. What it writes must hold no C0
 * control but the newline and tab it was told to keep, no DEL, no C1 control and no byte that
 * is not UTF-8; the escaping stream must write the same as one call on the whole input, however
 * the input is cut into writes (the first byte of the input chooses the cuts); and the JSON
 * string must hold only printable ASCII and valid UTF-8 above U+009F. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/esc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 1 when p[0..n) is valid UTF-8 with no control (C0 but keep, DEL, C1) */
static int safe(const uint8_t *p, size_t n, int keep_nl)
{
	for (size_t i = 0; i < n;) {
		unsigned c = p[i];
		if (c < 0x80) {
			if ((c < 0x20 && !(keep_nl && (c == '\n' || c == '\t'))) || c == 0x7f)
				return 0;
			i++;
			continue;
		}
		int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
		if (!len || c > 0xf4 || i + (size_t)len > n)
			return 0;
		unsigned cp = c & (0x7f >> len);
		for (int k = 1; k < len; k++) {
			if ((p[i + (size_t)k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i + (size_t)k] & 0x3f);
		}
		if (cp < 0xa0 || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return 0;
		i += (size_t)len;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	unsigned cut = data[0];
	const char *in = (const char *)data + 1;
	size_t n = size - 1;

	dt_buf whole = { 0 }, kept = { 0 };
	esc_append(&whole, in, n, 0);
	esc_append(&kept, in, n, ESC_KEEP_NL);
	if (!safe(whole.p, whole.len, 0) || !safe(kept.p, kept.len, 1))
		abort(); /* a control character got through */

	char *mem = NULL;
	size_t memlen = 0;
	FILE *m = open_memstream(&mem, &memlen);
	FILE *s = m ? esc_stream(m) : NULL;
	if (s) {
		setvbuf(s, NULL, _IONBF, 0);
		size_t step = (cut % 7) + 1;
		for (size_t i = 0; i < n; i += step)
			fwrite(in + i, 1, n - i < step ? n - i : step, s);
		fclose(s);
		fclose(m);
		if (memlen != kept.len || (memlen && memcmp(mem, kept.p, memlen)))
			abort(); /* the stream escapes differently from one call */
	} else if (m) {
		fclose(m);
	}
	free(mem);

	/* NUL-terminated for the string helpers */
	char *str = malloc(n + 1);
	memcpy(str, in, n);
	str[n] = 0;
	mem = NULL;
	memlen = 0;
	m = open_memstream(&mem, &memlen);
	if (m) {
		esc_json(str, m);
		fclose(m);
		if (!safe((const uint8_t *)mem, memlen, 0))
			abort();
		free(mem);
	}
	char small[24];
	esc_str(str, small, sizeof small);
	if (!safe((const uint8_t *)small, strlen(small), 0))
		abort(); /* cut inside an escape or a character */
	free(str);
	buf_free(&whole);
	buf_free(&kept);
	return 0;
}
