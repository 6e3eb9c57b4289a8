/* uftrace_info.c: a uftrace.data directory's info file, and the byte order and text helpers
 * its readers share (uftrace_int.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/uftrace_data.h"
#include "import/uftrace_int.h"


/* ---- byte order ----------------------------------------------------------------------------- */

static int host_little(void)
{
	const uint16_t one = 1;
	uint8_t b;
	memcpy(&b, &one, 1);
	return b == 1;
}

uint16_t ufd_get16(const uint8_t *p, int swap)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swap ? (uint16_t)((v >> 8) | (v << 8)) : v;
}

uint32_t ufd_get32(const uint8_t *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

uint64_t ufd_get64(const uint8_t *p, int swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

/* ---- small text helpers ---------------------------------------------------------------------- */

const char *ufd_base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int starts(const char *s, size_t n, const char *prefix)
{
	size_t l = strlen(prefix);
	return n >= l && !memcmp(s, prefix, l);
}

/* Parses "sec.nsec" into ns; returns the number of characters used, 0 when malformed. */
size_t ufd_parse_ts(const char *s, uint64_t *ns)
{
	const char *p = s;
	uint64_t sec = 0, frac = 0;
	int nd = 0;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p)) {
		if (sec > UINT64_MAX / 10 / 1000000000u)
			return 0;
		sec = sec * 10 + (uint64_t)(*p++ - '0');
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			if (nd < 9) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				nd++;
			}
			p++;
		}
	}
	while (nd++ < 9)
		frac *= 10;
	*ns = sec * 1000000000u + frac;
	return (size_t)(p - s);
}

/* Finds "key=" in a space-separated line and returns the value start, or NULL. */
const char *ufd_field(const char *line, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = line; *p;) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, kl) && p[kl] == '=')
			return p + kl + 1;
		if (*p == '"')
			return NULL; /* values after a quoted name are not fields */
		while (*p && *p != ' ')
			p++;
	}
	return NULL;
}

int ufd_parse_int_field(const char *line, const char *key, int base, int64_t *v)
{
	const char *s = ufd_field(line, key);
	if (!s || !isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	char *end;
	unsigned long long u = strtoull(s, &end, base);
	if (errno || (*end && *end != ' ') || u > INT64_MAX)
		return -1;
	*v = (int64_t)u;
	return 0;
}

/* A "quoted" value: copies it without the quotes (no escapes are written by uftrace 0.13). */
char *ufd_quoted_field(const char *line, const char *key)
{
	const char *s = ufd_field(line, key);
	if (!s)
		return NULL;
	if (*s == '"') {
		const char *q = strrchr(s + 1, '"');
		if (!q)
			return NULL;
		return xstrndup(s + 1, (size_t)(q - s - 1));
	}
	return xstrndup(s, strcspn(s, " "));
}

/* ---- info ------------------------------------------------------------------------------------ */

void ufd_info_free(ufd_info *inf)
{
	free(inf->exename);
	free(inf->cmdline);
	free(inf->hostname);
	free(inf->version_str);
	free(inf->argspec);
	free(inf->retspec);
	free(inf->argauto);
	free(inf->retauto);
	free(inf->tids);
	memset(inf, 0, sizeof *inf);
}

static int parse_tids(ufd_info *inf, const char *s, size_t n)
{
	free(inf->tids);
	inf->tids = NULL;
	inf->ntids = 0;
	size_t cap = 0;
	size_t i = 0;
	while (i < n) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		int64_t v = 0;
		while (i < n && isdigit((unsigned char)s[i])) {
			if (v > (INT64_MAX - 9) / 10)
				return -1;
			v = v * 10 + (s[i++] - '0');
		}
		GROW(inf->tids, cap, inf->ntids + 1);
		inf->tids[inf->ntids++] = v;
		if (i < n && s[i] != ',')
			return -1;
		i++;
	}
	return 0;
}

static void set_str(char **dst, const char *s, size_t n)
{
	free(*dst);
	*dst = xstrndup(s, n);
}

int ufd_info_read(const char *dir, ufd_info *inf, dt_err *e)
{
	memset(inf, 0, sizeof *inf);
	char *path = path_join(dir, "info");
	uint8_t *buf = NULL;
	size_t len = 0;
	int rc = -1;
	if (read_file(path, &buf, &len, e))
		goto out;
	if (len < UFD_HDR_MIN) {
		dt_err_at(e, path, (int64_t)len, "info header is %zu bytes, expected %d", len,
			  UFD_HDR_MIN);
		goto out;
	}
	if (memcmp(buf, UFD_MAGIC, 8)) {
		dt_err_at(e, path, 0, "bad magic: not a uftrace info file");
		goto out;
	}
	inf->endian = buf[14];
	inf->elf_class = buf[15];
	if (inf->endian != 1 && inf->endian != 2) {
		dt_err_at(e, path, 14, "bad endian field %u (expected 1 or 2)", inf->endian);
		goto out;
	}
	inf->swap = (inf->endian == 1) != host_little();
	inf->version = ufd_get32(buf + 8, inf->swap);
	inf->hdr_size = ufd_get16(buf + 12, inf->swap);
	inf->feat = ufd_get64(buf + 16, inf->swap);
	inf->info_mask = ufd_get64(buf + 24, inf->swap);
	inf->max_stack = ufd_get16(buf + 32, inf->swap);
	if (inf->version < 3 || inf->version > 4) {
		dt_err_at(e, path, 8, "unsupported uftrace data version %" PRIu32 " (3 or 4 expected)",
			  inf->version);
		goto out;
	}
	if (inf->hdr_size < UFD_HDR_MIN || inf->hdr_size > len) {
		dt_err_at(e, path, 12, "bad header size %u", inf->hdr_size);
		goto out;
	}
	if (inf->elf_class != 1 && inf->elf_class != 2) {
		dt_err_at(e, path, 15, "bad ELF class %u (expected 1 or 2)", inf->elf_class);
		goto out;
	}
	/* The text: "key:value" lines. A "key:lines=N" line announces N lines that belong to that
	 * section; inside one only the section's own keys are looked at, so a value that happens
	 * to start like another key is never taken for it. */
	const char *t = (const char *)buf + inf->hdr_size, *end = (const char *)buf + len;
	char block[32] = "";
	long block_left = 0;
	while (t < end) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		size_t n = nl ? (size_t)(nl - t) : (size_t)(end - t);
		int64_t off = (int64_t)(t - (const char *)buf);
		if (nl && block_left <= 0 && starts(t, n, "exename:")) {
			/* uftrace writes the program's path raw: one with a newline runs on to the
			 * line uftrace writes after it (build_id:, or exit_status: without one) */
			const char *q = nl;
			while (q && q + 1 < end && !starts(q + 1, (size_t)(end - q - 1), "build_id:") &&
			       !starts(q + 1, (size_t)(end - q - 1), "exit_status:"))
				q = memchr(q + 1, '\n', (size_t)(end - q - 1));
			if (q && q + 1 < end && q > nl) { /* else no such line: not a path */
				nl = q;
				n = (size_t)(nl - t);
			}
		}
		if (memchr(t, '\0', n)) {
			dt_err_at(e, path, off, "binary data in the info text");
			goto out;
		}
		const char *colon = memchr(t, ':', n);
		if (block_left > 0) {
			block_left--;
			size_t bl = strlen(block);
			if (!colon || (size_t)(colon - t) != bl || memcmp(t, block, bl)) {
				/* argspec blocks hold lines with several keys (retspec:, argauto:...) */
				if (strcmp(block, "argspec")) {
					dt_err_at(e, path, off, "line %.*s does not belong to section %s",
						  (int)(n > 40 ? 40 : n), t, block);
					goto out;
				}
			}
			if (!strcmp(block, "osinfo") && starts(t, n, "osinfo:hostname="))
				set_str(&inf->hostname, t + 16, n - 16);
			else if (!strcmp(block, "taskinfo") && starts(t, n, "taskinfo:tids=")) {
				if (parse_tids(inf, t + 14, n - 14)) {
					dt_err_at(e, path, off, "bad taskinfo:tids list");
					goto out;
				}
			} else if (!strcmp(block, "argspec")) {
				if (starts(t, n, "argspec:"))
					set_str(&inf->argspec, t + 8, n - 8);
				else if (starts(t, n, "retspec:"))
					set_str(&inf->retspec, t + 8, n - 8);
				else if (starts(t, n, "argauto:"))
					set_str(&inf->argauto, t + 8, n - 8);
				else if (starts(t, n, "retauto:"))
					set_str(&inf->retauto, t + 8, n - 8);
				else if (starts(t, n, "auto-args:1"))
					inf->auto_args = 1;
			}
		} else if (colon) {
			size_t kl = (size_t)(colon - t);
			const char *v = colon + 1;
			size_t vl = n - kl - 1;
			if (starts(v, vl, "lines=")) {
				char num[24];
				size_t nl2 = vl - 6 < sizeof num - 1 ? vl - 6 : sizeof num - 1;
				memcpy(num, v + 6, nl2);
				num[nl2] = 0;
				char *ep;
				long cnt = strtol(num, &ep, 10);
				if (!nl2 || *ep || cnt < 0 || cnt > 100000 || kl >= sizeof block) {
					dt_err_at(e, path, off, "bad section line count");
					goto out;
				}
				memcpy(block, t, kl);
				block[kl] = 0;
				block_left = cnt;
			} else if (starts(t, n, "exename:"))
				set_str(&inf->exename, v, vl);
			else if (starts(t, n, "cmdline:"))
				set_str(&inf->cmdline, v, vl);
			else if (starts(t, n, "uftrace_version:"))
				set_str(&inf->version_str, v, vl);
			else if (starts(t, n, "pattern_type:"))
				inf->glob_patterns = vl == 4 && !memcmp(v, "glob", 4);
		} else if (n) {
			dt_err_at(e, path, off, "info line without a key");
			goto out;
		}
		t += n + 1;
	}
	if (block_left > 0) {
		dt_err_at(e, path, (int64_t)len, "info ends inside section %s (%ld lines missing)",
			  block, block_left);
		goto out;
	}
	rc = 0;
out:
	if (rc)
		ufd_info_free(inf);
	free(buf);
	free(path);
	return rc;
}
