/* tui_out.c: the lines views build (tui_out): text in styles, printf, padding, and their
 * width in display columns. */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <pcre2.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "analysis/filter.h"
#include "tui.h"
#include "tui_int.h"
#include "util/util.h"

/* ---- building lines ---- */

static void out_reserve(tui_out *o, size_t n)
{
	GROW(o->text, o->cap, o->len + n + 1);
}

void out_textn(tui_out *o, int style, const char *s, size_t n)
{
	if (!n)
		return;
	out_reserve(o, n);
	memcpy(o->text + o->len, s, n);
	if (o->nspans && o->spans[o->nspans - 1].style == style &&
	    o->spans[o->nspans - 1].off + o->spans[o->nspans - 1].len == o->len) {
		o->spans[o->nspans - 1].len += n;
	} else {
		GROW(o->spans, o->capspans, o->nspans + 1);
		o->spans[o->nspans++] = (tui_span){ style, o->len, n };
	}
	o->len += n;
	o->text[o->len] = 0;
}

void out_text(tui_out *o, int style, const char *s)
{
	out_textn(o, style, s, strlen(s));
}

void out_printf(tui_out *o, int style, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof buf) {
		out_textn(o, style, buf, (size_t)n);
		return;
	}
	char *big = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	out_textn(o, style, big, (size_t)n);
	free(big);
}

/* Display columns of the UTF-8 string s[0..n). Invalid bytes count one column each. */
int tui_cols_of(const char *s, size_t n)
{
	mbstate_t st;
	memset(&st, 0, sizeof st);
	int cols = 0;
	size_t i = 0;
	while (i < n) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s + i, n - i, &st);
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&st, 0, sizeof st);
			cols++;
			i++;
			continue;
		}
		int w = wcwidth(wc);
		cols += w < 0 ? 1 : w;
		i += k;
	}
	return cols;
}

int out_cols(const tui_out *o)
{
	return tui_cols_of(o->text, o->len);
}

void out_pad(tui_out *o, int col)
{
	int c = out_cols(o);
	while (c++ < col)
		out_textn(o, ST_NORMAL, " ", 1);
}

void tui_out_reset(tui_out *o)
{
	o->len = 0;
	o->nspans = 0;
	if (o->text)
		o->text[0] = 0;
}

void tui_out_free(tui_out *o)
{
	free(o->text);
	free(o->spans);
	memset(o, 0, sizeof *o);
}
