/* esc.h: bytes from traces made safe to show to people.
 *
 * Function names, run labels and source paths come from other people's files: printed as they
 * are, an ESC or an OSC 52 in them drives the terminal of whoever reads the output (clear the
 * screen, set the title, write the clipboard). Every human-readable output escapes the C0
 * controls, DEL, the C1 controls (U+0080-U+009F) and bytes that are not UTF-8; CSV and JSON
 * escape them too. Only `show --format text` to a file or a pipe keeps the raw bytes. */
#ifndef DT_ESC_H
#define DT_ESC_H

#include <stddef.h>
#include <stdio.h>

#include "util/util.h"

enum {
	ESC_KEEP_NL = 1, /* newline and tab pass: whole lines of output, not one field */
};

/* Appends s[0..n) to b, escaped: \n \r \t \e, \xHH for the other C0 bytes, DEL and bytes
 * that are not UTF-8, \u0080-\u009f for the C1 controls. Valid UTF-8 text passes. */
void esc_append(dt_buf *b, const char *s, size_t n, int flags);
/* s escaped into buf (cut to n bytes, NUL-terminated); returns buf. For printf arguments. */
const char *esc_str(const char *s, char *buf, size_t n);
/* Writes s escaped to f. */
void esc_fputs(const char *s, FILE *f);
/* 1 when s needs no escaping. */
int esc_clean(const char *s);
/* How many terminal columns UTF-8 text takes (East Asian wide characters count two,
 * combining marks none); invalid bytes count one. */
size_t esc_width(const char *s);
/* Writes s as a JSON string (quoted): controls, DEL and C1 as \u escapes; bytes that are not
 * UTF-8 as U+FFFD. */
void esc_json(const char *s, FILE *f);
/* The same without the quotes, appended to b. */
void esc_json_append(dt_buf *b, const char *s);
/* A stream over f that escapes every control byte written to it except newline and tab (a
 * line split across writes is handled). Closing it does not close f. NULL on failure. */
FILE *esc_stream(FILE *f);

#endif
