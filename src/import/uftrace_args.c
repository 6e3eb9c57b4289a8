/* uftrace_args.c: the argument layouts of uftrace's -A/-R and auto-args specs, the debug
 * files' source lines, and the decoding of recorded arguments (uftrace_data.h). */
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


/* ---- argument specs -------------------------------------------------------------------------- */

static void spec_add(ufd_argspec *s, const ufd_argitem *it, int replace)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->items[i].kind == it->kind && s->items[i].idx == it->idx) {
			if (replace)
				s->items[i] = *it;
			return;
		}
	s->items = xrealloc(s->items, (s->n + 1) * sizeof *s->items);
	s->items[s->n++] = *it;
}

int ufd_argspec_parse(const char *s, size_t len, int lp64, ufd_argspec *out, char *why,
		      size_t whylen)
{
	memset(out, 0, sizeof *out);
	const char *end = s + len;
	if (s < end && *s == '@')
		s++;
	uint8_t word = lp64 ? 8 : 4;
	while (s < end) {
		const char *c = memchr(s, ',', (size_t)(end - s));
		const char *ie = c ? c : end;
		ufd_argitem it = { 0, 0, 0, 0 };
		const char *p = s;
		if (ie - p >= 6 && !memcmp(p, "retval", 6)) {
			it.kind = UFD_ARG_RET;
			p += 6;
		} else if (ie - p >= 5 && !memcmp(p, "fparg", 5)) {
			it.kind = UFD_ARG_FLOAT;
			p += 5;
		} else if (ie - p >= 3 && !memcmp(p, "arg", 3)) {
			it.kind = UFD_ARG_INT;
			p += 3;
		} else {
			snprintf(why, whylen, "unknown argument spec '%.*s'", (int)(ie - s), s);
			ufd_spec_free(out);
			return -1;
		}
		if (it.kind != UFD_ARG_RET) {
			unsigned v = 0;
			if (p >= ie || !isdigit((unsigned char)*p)) {
				snprintf(why, whylen, "argument spec '%.*s' has no index", (int)(ie - s), s);
				ufd_spec_free(out);
				return -1;
			}
			while (p < ie && isdigit((unsigned char)*p) && v < 1000)
				v = v * 10 + (unsigned)(*p++ - '0');
			it.idx = (uint16_t)v;
		}
		it.size = it.kind == UFD_ARG_FLOAT ? 8 : word;
		if (it.kind == UFD_ARG_FLOAT)
			it.fmt = 'f';
		if (p < ie && *p == '/') {
			p++;
			if (p < ie && strchr("diuxcsSfpeo", *p) && *p) {
				it.fmt = (uint8_t)*p++;
				if (it.fmt == 'o')
					it.fmt = 'u'; /* octal is shown as unsigned decimal */
				if (it.fmt == 'c')
					it.size = 1;
				if (it.fmt == 'e') {
					/* e:enum_name: an int shown by value */
					it.size = 4;
					if (p < ie && *p == ':')
						while (p < ie && *p != '%')
							p++;
				}
				if (it.fmt == 'f' && it.kind != UFD_ARG_FLOAT)
					it.size = 8;
			}
			if (p < ie && isdigit((unsigned char)*p)) {
				unsigned bits = 0;
				while (p < ie && isdigit((unsigned char)*p) && bits < 1000)
					bits = bits * 10 + (unsigned)(*p++ - '0');
				if (bits == 80 || bits == 128) {
					snprintf(why, whylen,
						 "'%.*s': long double values are not supported",
						 (int)(ie - s), s);
					ufd_spec_free(out);
					return -1;
				}
				if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
					snprintf(why, whylen, "'%.*s': bad size %u", (int)(ie - s), s, bits);
					ufd_spec_free(out);
					return -1;
				}
				if ((it.fmt == 'f' || it.kind == UFD_ARG_FLOAT) && bits < 32) {
					snprintf(why, whylen, "'%.*s': bad float size", (int)(ie - s), s);
					ufd_spec_free(out);
					return -1;
				}
				it.size = (uint8_t)(bits / 8);
				if (it.kind == UFD_ARG_FLOAT && !it.fmt)
					it.fmt = 'f';
			}
		}
		/* a location ("%rdi", "%stack+2") only mattered at record time */
		if (p < ie && *p == '%')
			p = ie;
		if (p != ie) {
			snprintf(why, whylen, "cannot parse argument spec '%.*s'", (int)(ie - s), s);
			ufd_spec_free(out);
			return -1;
		}
		if (it.fmt == 's' || it.fmt == 'S' || it.fmt == 'p')
			it.size = it.fmt == 'p' ? word : 0;
		spec_add(out, &it, 1);
		s = c ? c + 1 : end;
	}
	return 0;
}

static int pat_type(const char *pat, int glob)
{
	const char *special = glob ? "*?[]{}" : ".?*+-^$|()[]{}\\";
	return strpbrk(pat, special) ? (glob ? PAT_GLOB : PAT_REGEX) : PAT_SIMPLE;
}

/* Splits "name@spec;name@spec;..." rules into d->rules. */
static int add_rules(ufd_data *d, const char *list, int is_ret, dt_err *e)
{
	if (!list)
		return 0;
	int lp64 = d->info.elf_class == 2;
	char *info = path_join(d->dir, "info");
	int rc = -1;
	for (const char *s = list; *s;) {
		const char *semi = strchr(s, ';');
		size_t n = semi ? (size_t)(semi - s) : strlen(s);
		if (n) {
			const char *at = memchr(s, '@', n);
			size_t pl = at ? (size_t)(at - s) : n;
			d->rules = xrealloc(d->rules, (d->nrules + 1) * sizeof *d->rules);
			ufd_rule *r = &d->rules[d->nrules];
			memset(r, 0, sizeof *r);
			r->pat = xstrndup(s, pl);
			r->ptype = pat_type(r->pat, d->info.glob_patterns);
			d->nrules++;
			if (r->ptype == PAT_REGEX) {
				if (regcomp(&r->re, r->pat, REG_EXTENDED | REG_NOSUB)) {
					dt_err_at(e, info, -1, "bad %s pattern '%s'",
						  is_ret ? "retspec" : "argspec", r->pat);
					goto out;
				}
				r->has_re = 1;
			}
			ufd_argspec all;
			char why[200];
			if (!at || pl + 1 == n) {
				r->bare = 1;
			} else if (ufd_argspec_parse(at + 1, n - pl - 1, lp64, &all, why, sizeof why)) {
				dt_err_at(e, info, -1, "%s of %s: %s", is_ret ? "retspec" : "argspec",
					  r->pat, why);
				goto out;
			} else {
				for (size_t i = 0; i < all.n; i++)
					spec_add(all.items[i].kind == UFD_ARG_RET ? &r->ret : &r->arg,
						 &all.items[i], 1);
				ufd_spec_free(&all);
			}
		}
		s += n;
		if (*s == ';')
			s++;
	}
	rc = 0;
out:
	free(info);
	return rc;
}

/* uftrace's built-in specs for well-known library functions: exact names. */
static int add_auto(ufd_data *d, const char *list, strmap *map, dt_err *e)
{
	if (!list)
		return 0;
	int lp64 = d->info.elf_class == 2;
	for (const char *s = list; *s;) {
		const char *semi = strchr(s, ';');
		size_t n = semi ? (size_t)(semi - s) : strlen(s);
		const char *at = memchr(s, '@', n);
		if (n && at) {
			ufd_argspec sp;
			char why[200];
			if (ufd_argspec_parse(at + 1, n - (size_t)(at - s) - 1, lp64, &sp, why,
					      sizeof why)) {
				char *info = path_join(d->dir, "info");
				dt_err_at(e, info, -1, "automatic spec of %.*s: %s", (int)(at - s), s,
					  why);
				free(info);
				return -1;
			}
			GROW(d->autospecs, d->capautospecs, d->nautospecs + 1);
			d->autospecs[d->nautospecs] = sp;
			strmap_put(map, s, (size_t)(at - s), (uint32_t)d->nautospecs++);
		}
		s += n;
		if (*s == ';')
			s++;
	}
	return 0;
}

static int build_rules(ufd_data *d, dt_err *e)
{
	d->rules_built = 1;
	if (add_rules(d, d->info.argspec, 0, e) || add_rules(d, d->info.retspec, 1, e) ||
	    add_auto(d, d->info.argauto, &d->autoarg, e) ||
	    add_auto(d, d->info.retauto, &d->autoret, e))
		return -1;
	return 0;
}

/* Reads a module's .dbg: "F: offset name" then "A: @spec" / "R: @spec" / "L: line file" lines
 * for it. */
static void load_dbg(ufd_data *d, ufd_module *m)
{
	m->dbg_loaded = 1;
	char *file = ufd_sym_file_for(d, m, ".dbg");
	uint8_t *buf = NULL;
	size_t len = 0;
	dt_err ignore;
	dt_err_clear(&ignore);
	if (!file || read_file(file, &buf, &len, &ignore)) {
		free(file);
		return;
	}
	long cur = -1;
	char *line = (char *)buf;
	while (line < (char *)buf + len) {
		char *nl = memchr(line, '\n', (size_t)((char *)buf + len - line));
		if (nl)
			*nl = 0;
		if (!strncmp(line, "F: ", 3)) {
			char *sp = strchr(line + 3, ' ');
			cur = -1;
			if (sp && sp[1]) {
				uint32_t v;
				if (strmap_get(&m->dbg_index, sp + 1, strlen(sp + 1), &v))
					cur = (long)v;
				else {
					GROW(m->dbg_arg, m->capdbg, m->ndbg + 1);
					m->dbg_ret = xrealloc(m->dbg_ret, m->capdbg * sizeof *m->dbg_ret);
					m->dbg_file = xrealloc(m->dbg_file,
							       m->capdbg * sizeof *m->dbg_file);
					m->dbg_line = xrealloc(m->dbg_line,
							       m->capdbg * sizeof *m->dbg_line);
					m->dbg_arg[m->ndbg] = m->dbg_ret[m->ndbg] = NULL;
					m->dbg_file[m->ndbg] = NULL;
					m->dbg_line[m->ndbg] = 0;
					strmap_put(&m->dbg_index, sp + 1, strlen(sp + 1), (uint32_t)m->ndbg);
					cur = (long)m->ndbg++;
				}
			}
		} else if (cur >= 0 && (!strncmp(line, "A: ", 3) || !strncmp(line, "R: ", 3))) {
			char **slot = line[0] == 'A' ? &m->dbg_arg[cur] : &m->dbg_ret[cur];
			free(*slot);
			*slot = xstrdup(line + 3);
		} else if (cur >= 0 && !strncmp(line, "L: ", 3) && !m->dbg_file[cur]) {
			char *end;
			unsigned long ln = strtoul(line + 3, &end, 10);
			if (end > line + 3 && *end == ' ' && end[1] && ln > 0 && ln < 1u << 30) {
				m->dbg_file[cur] = xstrdup(end + 1);
				m->dbg_line[cur] = (unsigned)ln;
				m->dbg_lines = 1;
			}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	free(buf);
	free(file);
}

int ufd_srcline(ufd_data *d, const ufd_sym *sym, const char **file, unsigned *line)
{
	if (sym->module < 0 || (size_t)sym->module >= d->nmods)
		return 0;
	ufd_module *m = &d->mods[sym->module];
	if (!m->dbg_loaded)
		load_dbg(d, m);
	uint32_t v;
	if (!m->dbg_lines || !strmap_get(&m->dbg_index, sym->name, sym->len, &v) ||
	    !m->dbg_file[v])
		return 0;
	*file = m->dbg_file[v];
	*line = m->dbg_line[v];
	return 1;
}

int ufd_has_srclines(ufd_data *d, int mod)
{
	if (mod < 0 || (size_t)mod >= d->nmods)
		return 0;
	ufd_module *m = &d->mods[mod];
	if (!m->dbg_loaded)
		load_dbg(d, m);
	return m->dbg_lines;
}

/* The automatic spec of a function: its DWARF spec when the module has one, else uftrace's
 * built-in one for well-known library functions. Returns 1 and fills out when there is one. */
static int auto_spec(ufd_data *d, const ufd_sym *sym, int is_ret, ufd_argspec *out,
		     dt_err *e)
{
	memset(out, 0, sizeof *out);
	if (sym->module >= 0 && (d->info.feat & UFD_FEAT_DEBUG_INFO)) {
		ufd_module *m = &d->mods[sym->module];
		if (!m->dbg_loaded)
			load_dbg(d, m);
		uint32_t v;
		if (strmap_get(&m->dbg_index, sym->name, sym->len, &v)) {
			const char *s = is_ret ? m->dbg_ret[v] : m->dbg_arg[v];
			if (s) {
				char why[200];
				char *file = ufd_sym_file_for(d, m, ".dbg");
				if (ufd_argspec_parse(s, strlen(s), d->info.elf_class == 2, out, why,
						      sizeof why)) {
					dt_err_at(e, file ? file : m->path, -1, "spec of %.*s: %s",
						  (int)sym->len, sym->name, why);
					free(file);
					return -1;
				}
				free(file);
				return 1;
			}
		}
	}
	uint32_t v;
	if (strmap_get(is_ret ? &d->autoret : &d->autoarg, sym->name, sym->len, &v)) {
		const ufd_argspec *a = &d->autospecs[v];
		out->items = xmalloc((a->n ? a->n : 1) * sizeof *out->items);
		memcpy(out->items, a->items, a->n * sizeof *a->items);
		out->n = a->n;
		return 1;
	}
	return 0;
}

static int rule_matches(const ufd_rule *r, const char *name)
{
	switch (r->ptype) {
	case PAT_SIMPLE:
		return !strcmp(r->pat, name);
	case PAT_GLOB:
		return !fnmatch(r->pat, name, 0);
	default:
		return !regexec(&r->re, name, 0, NULL, 0);
	}
}

int ufd_argspec_for(ufd_data *d, const ufd_sym *sym, int is_ret, const ufd_argspec **spec,
		    dt_err *e)
{
	*spec = NULL;
	if (!d->rules_built && build_rules(d, e))
		return -1;
	char key[700];
	int kl = snprintf(key, sizeof key, "%c%d|%.*s", is_ret ? 'R' : 'A', sym->module,
			  (int)(sym->len < 600 ? sym->len : 600), sym->name);
	uint32_t v;
	if (strmap_get(&d->speccache, key, (size_t)kl, &v)) {
		*spec = v ? &d->specs[v - 1] : NULL;
		return 0;
	}
	char *name = xstrndup(sym->name, sym->len);
	ufd_argspec res = { NULL, 0 };
	int matched = 0, rc = -1;
	/* Explicit -A/-R rules replace the automatic spec of the functions they match (checked
	 * against uftrace 0.13: `-a -A f1@arg1/x32` records only arg1 of f1). */
	for (size_t i = 0; i < d->nrules; i++) {
		const ufd_rule *r = &d->rules[i];
		const ufd_argspec *part = is_ret ? &r->ret : &r->arg;
		if (!r->bare && !part->n)
			continue;
		if (!rule_matches(r, name))
			continue;
		matched = 1;
		if (r->bare) {
			ufd_argspec a;
			int got = auto_spec(d, sym, is_ret, &a, e);
			if (got < 0)
				goto out;
			for (size_t j = 0; j < a.n; j++)
				spec_add(&res, &a.items[j], 0);
			ufd_spec_free(&a);
		} else
			for (size_t j = 0; j < part->n; j++)
				spec_add(&res, &part->items[j], 1);
	}
	if (!matched && d->info.auto_args) {
		int got = auto_spec(d, sym, is_ret, &res, e);
		if (got < 0)
			goto out;
	}
	if (res.n) {
		GROW(d->specs, d->capspecs, d->nspecs + 1);
		d->specs[d->nspecs++] = res;
		res.items = NULL;
		strmap_put(&d->speccache, key, (size_t)kl, (uint32_t)d->nspecs);
		*spec = &d->specs[d->nspecs - 1];
	} else
		strmap_put(&d->speccache, key, (size_t)kl, 0);
	rc = 0;
out:
	ufd_spec_free(&res);
	free(name);
	return rc;
}

/* ---- decoding ------------------------------------------------------------------------------- */

static void put_str(dt_buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

static void put_escaped(dt_buf *b, const uint8_t *s, size_t n, char q)
{
	buf_byte(b, (uint8_t)q);
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		char tmp[8];
		if (c == (uint8_t)q || c == '\\') {
			buf_byte(b, '\\');
			buf_byte(b, c);
		} else if (c == '\n')
			put_str(b, "\\n");
		else if (c == '\t')
			put_str(b, "\\t");
		else if (c < 0x20 || c == 0x7f) {
			snprintf(tmp, sizeof tmp, "\\x%02x", c);
			put_str(b, tmp);
		} else
			buf_byte(b, c);
	}
	buf_byte(b, (uint8_t)q);
}

#define ALIGN4(x) (((x) + 3) & ~(size_t)3)

int ufd_args_decode(const ufd_data *d, const ufd_argspec *spec, const uint8_t *p, size_t avail,
		    size_t *used, dt_buf *out, dt_err *e)
{
	int swap = d->info.swap;
	size_t pos = 0;
	size_t start = out->len;
	for (size_t i = 0; i < spec->n; i++) {
		const ufd_argitem *it = &spec->items[i];
		char tmp[96];
		if (i)
			put_str(out, ", ");
		if (it->kind == UFD_ARG_RET)
			put_str(out, "retval=");
		else {
			snprintf(tmp, sizeof tmp, "%sarg%u=", it->kind == UFD_ARG_FLOAT ? "fp" : "",
				 it->idx);
			put_str(out, tmp);
		}
		if (it->fmt == 's' || it->fmt == 'S') {
			if (avail < pos + 2)
				goto more;
			size_t sl = ufd_get16(p + pos, swap);
			size_t need = ALIGN4(2 + sl);
			if (avail < pos + need) {
				*used = pos + need;
				out->len = start;
				return 1;
			}
			put_escaped(out, p + pos + 2, sl, '"');
			pos += need;
			continue;
		}
		size_t sz = it->size;
		if (sz != 1 && sz != 2 && sz != 4 && sz != 8) {
			out->len = start;
			return dt_errf(e, DT_EDATA, "argument spec with a %zu-byte value", sz);
		}
		if (avail < pos + ALIGN4(sz))
			goto more;
		uint64_t u = 0;
		switch (sz) {
		case 1: u = p[pos]; break;
		case 2: u = ufd_get16(p + pos, swap); break;
		case 4: u = ufd_get32(p + pos, swap); break;
		default: u = ufd_get64(p + pos, swap); break;
		}
		pos += ALIGN4(sz);
		int bits = (int)sz * 8;
		int64_t sv = bits == 64 ? (int64_t)u : (int64_t)(u << (64 - bits)) >> (64 - bits);
		if (it->fmt == 'f' || it->kind == UFD_ARG_FLOAT) {
			double dv;
			if (sz == 4) {
				float f;
				uint32_t w = (uint32_t)u;
				memcpy(&f, &w, 4);
				dv = f;
			} else if (sz == 8)
				memcpy(&dv, &u, 8);
			else {
				out->len = start;
				return dt_errf(e, DT_EDATA, "float argument of %zu bytes", sz);
			}
			snprintf(tmp, sizeof tmp, "%g", dv);
		} else if (it->fmt == 'c') {
			uint8_t c = (uint8_t)u;
			put_escaped(out, &c, 1, '\'');
			continue;
		} else if (it->fmt == 'x' || it->fmt == 'p')
			snprintf(tmp, sizeof tmp, "0x%" PRIx64, u);
		else if (it->fmt == 'u')
			snprintf(tmp, sizeof tmp, "%" PRIu64, u);
		else if (it->fmt == 'd' || it->fmt == 'i' || it->fmt == 'e')
			snprintf(tmp, sizeof tmp, "%" PRId64, sv);
		else if (sv > -100000 && sv < 100000) /* auto: small numbers read best in decimal */
			snprintf(tmp, sizeof tmp, "%" PRId64, sv);
		else
			snprintf(tmp, sizeof tmp, "0x%" PRIx64, u);
		put_str(out, tmp);
	}
	*used = (pos + 7) & ~(size_t)7;
	if (avail < *used) {
		out->len = start;
		return 1;
	}
	buf_byte(out, 0);
	out->len--;
	return 0;
more:
	/* the exact size is not known before the next field is read: ask for one more field */
	*used = pos + 8;
	out->len = start;
	return 1;
}
