/* uftrace_int.h: what the files reading a uftrace.data directory share (uftrace_info.c, the
 * info file; uftrace_data.c, the tasks and sessions; uftrace_syms.c, the maps and symbols;
 * uftrace_args.c, argument layouts and their decoding): the directory's state and a few
 * helpers. Not for other modules: uftrace_data.h is the interface. */
#ifndef DT_UFTRACE_INT_H
#define DT_UFTRACE_INT_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "import/uftrace_data.h"
#include "util/util.h"

#define UFD_MAGIC "Ftrace!"
#define UFD_HDR_MIN 40

struct ufd_range {
	uint64_t start, end;
	int mod;
};

struct ufd_dlop {
	uint64_t base, ts;
	int mod;
};

typedef struct ufd_symbol {
	uint64_t addr;
	uint32_t size;
	uint32_t name;  /* offset in the module's name blob */
	uint32_t order; /* line order, so aliases at one address resolve the same way every time */
	uint8_t type;
} ufd_symbol;

typedef struct ufd_module {
	char *path;
	const char *base;   /* basename inside path */
	char *bid;          /* build id from the maps, or NULL */
	int sibtried;       /* sibling_sym looked for it: sibfile is what it found, or NULL */
	char *sibfile;
	int loaded;         /* 0 not tried, 1 symbols read, -1 no symbol file */
	ufd_symbol *syms;
	size_t nsyms;
	char *names;
	uint64_t extent;    /* one past the highest symbol, relative to the load base */
	int dbg_loaded;     /* 0 not tried, 1 read (possibly empty) */
	strmap dbg_index;   /* function name -> index in dbg_arg/dbg_ret */
	char **dbg_arg, **dbg_ret;
	char **dbg_file;    /* "L: line file" (record --srcline): the function's source line */
	unsigned *dbg_line;
	size_t ndbg, capdbg;
	int dbg_lines;      /* the .dbg file has source lines */
} ufd_module;

enum { PAT_SIMPLE, PAT_REGEX, PAT_GLOB };

typedef struct ufd_rule {
	char *pat;
	int ptype;
	regex_t re;
	int has_re;
	int bare;           /* "-A func" without a spec: use the automatic spec of each match */
	ufd_argspec arg, ret;
} ufd_rule;

struct ufd_data {
	char *dir;
	ufd_info info;
	ufd_sess *sess;
	size_t nsess, capsess;
	ufd_task *tasks;
	size_t ntasks, captasks;
	ufd_fork *forks;
	size_t nforks, capforks;
	size_t dlop_lines, dlop_distinct;
	ufd_module *mods;
	size_t nmods, capmods;
	strmap modidx;       /* module path -> index */
	int symidx_built;
	strmap symfile;      /* "# path name" -> index in symfiles */
	char **symfiles;
	size_t nsymfiles, capsymfiles;
	char *borrowed;      /* modules whose symbols came from a sibling directory (ufd_borrowed) */
	char namebuf[600];
	/* argument specs, built on first use */
	int rules_built;
	ufd_rule *rules;
	size_t nrules;
	strmap autoarg, autoret; /* function name -> index in autospecs */
	ufd_argspec *autospecs;
	size_t nautospecs, capautospecs;
	strmap speccache;    /* "A|R" + module + name -> index in specs + 1 (0: none) */
	ufd_argspec *specs;
	size_t nspecs, capspecs;
};

const char *ufd_base_name(const char *p);
size_t ufd_parse_ts(const char *s, uint64_t *ns);
const char *ufd_field(const char *line, const char *key);
int ufd_parse_int_field(const char *line, const char *key, int base, int64_t *v);
char *ufd_quoted_field(const char *line, const char *key);
int ufd_mod_get(ufd_data *d, const char *path);
void ufd_spec_free(ufd_argspec *s);
char *ufd_sym_file_for(ufd_data *d, ufd_module *m, const char *ext);

#endif
