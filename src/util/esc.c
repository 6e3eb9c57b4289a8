/* esc.c: escaping of control characters for people's eyes, and display widths (esc.h). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/esc.h"

/* Length of the valid UTF-8 sequence at p (n bytes available) and its code point; 0 when it
 * is not valid UTF-8, -1 when it may be valid but is cut by the end of the input. */
static int utf8_seq(const unsigned char *p, size_t n, uint32_t *cp)
{
	unsigned c = p[0];
	int len;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if (c >= 0xc2 && c <= 0xdf) {
		len = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

static void put_hex(dt_buf *b, unsigned c)
{
	char h[8];
	snprintf(h, sizeof h, "\\x%02x", c & 0xffu);
	buf_put(b, h, 4);
}

/* Escapes s[0..n); returns how many bytes it used (less than n only when stop_short and the
 * input ends inside a UTF-8 sequence, for streams). */
static size_t esc_some(dt_buf *b, const char *s, size_t n, int flags, int stop_short)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		unsigned c = p[i];
		if (c >= 0x20 && c < 0x7f) {
			size_t j = i + 1;
			while (j < n && p[j] >= 0x20 && p[j] < 0x7f)
				j++;
			buf_put(b, p + i, j - i);
			i = j;
			continue;
		}
		if (c < 0x80) {
			if ((c == '\n' || c == '\t') && (flags & ESC_KEEP_NL))
				buf_byte(b, (uint8_t)c);
			else if (c == '\n')
				buf_put(b, "\\n", 2);
			else if (c == '\t')
				buf_put(b, "\\t", 2);
			else if (c == '\r')
				buf_put(b, "\\r", 2);
			else if (c == 0x1b)
				buf_put(b, "\\e", 2);
			else
				put_hex(b, c);
			i++;
			continue;
		}
		uint32_t cp;
		int len = utf8_seq(p + i, n - i, &cp);
		if (len < 0 && stop_short)
			return i;
		if (len <= 0) {
			put_hex(b, c);
			i++;
		} else if (cp < 0xa0) {
			char u[8];
			snprintf(u, sizeof u, "\\u%04x", (unsigned)cp);
			buf_put(b, u, 6);
			i += (size_t)len;
		} else {
			buf_put(b, p + i, (size_t)len);
			i += (size_t)len;
		}
	}
	return i;
}

void esc_append(dt_buf *b, const char *s, size_t n, int flags)
{
	esc_some(b, s, n, flags, 0);
}

int esc_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		if (p[i] >= 0x20 && p[i] < 0x7f) {
			i++;
			continue;
		}
		uint32_t cp;
		int len = utf8_seq(p + i, n - i, &cp);
		if (len <= 0 || cp < 0xa0)
			return 0;
		i += (size_t)len;
	}
	return 1;
}

const char *esc_str(const char *s, char *buf, size_t n)
{
	if (!n)
		return buf;
	dt_buf b = { 0 };
	esc_append(&b, s, strlen(s), 0);
	size_t len = b.len < n - 1 ? b.len : n - 1;
	/* do not cut inside an escape or a UTF-8 sequence */
	if (len < b.len) {
		while (len > 0 && (b.p[len] & 0xc0) == 0x80)
			len--;
		for (size_t k = len > 6 ? len - 6 : 0; k < len; k++)
			if (b.p[k] == '\\') {
				len = k;
				break;
			}
	}
	if (len)
		memcpy(buf, b.p, len);
	buf[len] = 0;
	buf_free(&b);
	return buf;
}

void esc_fputs(const char *s, FILE *f)
{
	if (esc_clean(s)) {
		fputs(s, f);
		return;
	}
	dt_buf b = { 0 };
	esc_append(&b, s, strlen(s), 0);
	fwrite(b.p, 1, b.len, f);
	buf_free(&b);
}

static int wide(uint32_t c)
{
	return (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf && c != 0x303f) ||
	       (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
	       (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
	       (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
	       (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd);
}

static int zero_width(uint32_t c)
{
	return (c >= 0x300 && c <= 0x36f) || (c >= 0x1ab0 && c <= 0x1aff) ||
	       (c >= 0x1dc0 && c <= 0x1dff) || (c >= 0x200b && c <= 0x200f) ||
	       (c >= 0x20d0 && c <= 0x20ff) || (c >= 0xfe20 && c <= 0xfe2f);
}

size_t esc_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), w = 0;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		int len = utf8_seq(p + i, n - i, &cp);
		if (len <= 0) {
			w++;
			i++;
			continue;
		}
		w += wide(cp) ? 2 : zero_width(cp) ? 0 : 1;
		i += (size_t)len;
	}
	return w;
}

void esc_json_append(dt_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	char u[8];
	for (size_t i = 0; i < n;) {
		unsigned c = p[i];
		if (c == '"' || c == '\\') {
			buf_byte(b, '\\');
			buf_byte(b, (uint8_t)c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(u, sizeof u, "\\u%04x", c);
			buf_put(b, u, 6);
			i++;
		} else if (c < 0x80) {
			buf_byte(b, (uint8_t)c);
			i++;
		} else {
			uint32_t cp;
			int len = utf8_seq(p + i, n - i, &cp);
			if (len <= 0) {
				buf_put(b, "\\ufffd", 6);
				i++;
			} else if (cp < 0xa0) {
				snprintf(u, sizeof u, "\\u%04x", (unsigned)cp);
				buf_put(b, u, 6);
				i += (size_t)len;
			} else {
				buf_put(b, p + i, (size_t)len);
				i += (size_t)len;
			}
		}
	}
}

void esc_json(const char *s, FILE *f)
{
	dt_buf b = { 0 };
	esc_json_append(&b, s);
	fputc('"', f);
	if (b.len)
		fwrite(b.p, 1, b.len, f);
	fputc('"', f);
	buf_free(&b);
}

/* ---- the escaping stream ---- */

struct esc_cookie {
	FILE *f;
	unsigned char carry[4]; /* the start of a UTF-8 sequence cut by the end of a write */
	size_t ncarry;
	dt_buf b;
};

static ssize_t esc_write(void *arg, const char *data, size_t n)
{
	struct esc_cookie *k = arg;
	const char *in = data;
	size_t len = n;
	char *joined = NULL;
	if (k->ncarry) {
		len = k->ncarry + n;
		joined = xmalloc(len);
		memcpy(joined, k->carry, k->ncarry);
		memcpy(joined + k->ncarry, data, n);
		in = joined;
		k->ncarry = 0;
	}
	k->b.len = 0;
	size_t used = esc_some(&k->b, in, len, ESC_KEEP_NL, 1);
	/* a UTF-8 sequence cut by the end of this write: kept for the next (at most 3 bytes) */
	if (used < len) {
		memcpy(k->carry, in + used, len - used);
		k->ncarry = len - used;
	}
	free(joined);
	if (k->b.len && fwrite(k->b.p, 1, k->b.len, k->f) != k->b.len)
		return -1;
	return (ssize_t)n;
}

static int esc_close(void *arg)
{
	struct esc_cookie *k = arg;
	if (k->ncarry) {
		k->b.len = 0;
		esc_some(&k->b, (const char *)k->carry, k->ncarry, ESC_KEEP_NL, 0);
		fwrite(k->b.p, 1, k->b.len, k->f);
	}
	fflush(k->f);
	buf_free(&k->b);
	free(k);
	return 0;
}

FILE *esc_stream(FILE *f)
{
	struct esc_cookie *k = xcalloc(1, sizeof *k);
	k->f = f;
	cookie_io_functions_t io = { NULL, esc_write, NULL, esc_close };
	FILE *s = fopencookie(k, "w", io);
	if (!s)
		free(k);
	return s;
}
