/* cli.h: what the command-line verbs share: the global options, store opening, error
 * reporting and option parsing. Only this layer prints errors and picks exit codes. */
#ifndef DT_CLI_H
#define DT_CLI_H

#include <getopt.h>
#include <stdio.h>
#include <stdint.h>

#include "util/err.h"
#include "store/store.h"
#include "store/store_sync.h"

typedef struct cli {
	const char *db; /* -d FILE, DIFFTRACE_DB, or ./difftrace.db */
	/* stdout is an escaping stream (util/esc.h) for every verb but tui; this is the real one,
	 * for `show --format text` to a file or a pipe, which keeps the raw bytes */
	FILE *raw_out;
} cli;

/* Prints "difftrace: <error>" and returns its exit status (1 or 2). */
int cli_fail(const dt_err *e);
/* Prints "difftrace CMD: <msg>" and the --help hint; returns 2. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_open_store(const cli *c, int mode, store **s, dt_err *e);
/* Opens the existing store and finds run `name` in it; on failure *s is NULL. */
int cli_open_run(const cli *c, const char *name, store **s, store_run *run, dt_err *e);

/* getopt_long over a verb's arguments; handles --help (prints help, returns 0 with *done=1)
 * and unknown options (returns 2). */
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	       int *opt, const char *cmd, const char *help);

/* "1,234,567" */
const char *cli_count(uint64_t v, char *buf, size_t n);
/* "12.3 KiB" */
const char *cli_bytes(int64_t v, char *buf, size_t n);
/* Parses "P.T"; -1 when malformed. */
int cli_parse_pt(const char *s, int *p, int *t);
/* Parses a non-negative integer; -1 when malformed. */
int cli_parse_u64(const char *s, uint64_t *v);
/* Writes s as a JSON string (with quotes) to stdout; controls as \u escapes. */
void cli_json_str(const char *s);
/* A sync call's site (store_sync.h), where its line names the call: " at file:line (func)",
 * escaped, to stdout; nothing when it has none. */
void cli_site_text(const store_sites *t, uint32_t id);
/* The same as a JSON member: `, "site": {"file": ..., "line": N, "function": ...}` or
 * `, "site": null`. */
void cli_site_json(const store_sites *t, uint32_t id);
/* The note a report prints once when the program's sites have no lines (built without -g):
 * "note: ...\n" to stdout, or nothing. */
void cli_site_note(const store_sites *t);
/* The sites of t as display text, by id (store_site_str; [0] and sites without a file NULL):
 * a malloc'd array of *n strings; free with cli_site_texts_free. */
char **cli_site_texts(const store_sites *t, uint32_t *n);
void cli_site_texts_free(char **v, uint32_t n);
/* Writes s as a CSV field to stdout; controls escaped as in text (util/esc.h). */
void cli_csv_str(const char *s);
/* Prints s escaped and padded with spaces to width display columns (left-aligned). */
void cli_pad(const char *s, int width);
/* From here on stdout gets raw bytes (show --format text to a file or a pipe). */
void cli_raw_stdout(cli *c);

/* --color[=WHEN]: NULL or "auto" -1, "always" 1, "never" 0; -1 on anything else. */
int cli_parse_color(const char *s, int *when);
/* Whether to colour stdout: when -1 (auto), at a terminal unless NO_COLOR is set (to anything
 * but "") or TERM is dumb. */
int cli_use_color(int when);

enum { OUT_TEXT, OUT_CSV, OUT_JSON };
/* Parses --format text|csv|json; -1 when unknown. */
int cli_out_format(const char *s);

int cmd_import(cli *c, int argc, char **argv);
int cmd_runs(cli *c, int argc, char **argv);
int cmd_traces(cli *c, int argc, char **argv);
int cmd_show(cli *c, int argc, char **argv);
int cmd_rm(cli *c, int argc, char **argv);
int cmd_filters(cli *c, int argc, char **argv);
int cmd_analyze(cli *c, int argc, char **argv);
int cmd_classes(cli *c, int argc, char **argv);
int cmd_jsm(cli *c, int argc, char **argv);
int cmd_lattice(cli *c, int argc, char **argv);
int cmd_nlr(cli *c, int argc, char **argv);
int cmd_rank(cli *c, int argc, char **argv);
int cmd_diff(cli *c, int argc, char **argv);
int cmd_report(cli *c, int argc, char **argv);
int cmd_tui(cli *c, int argc, char **argv);
int cmd_sync(cli *c, int argc, char **argv);
int cmd_hang(cli *c, int argc, char **argv);
int cmd_order(cli *c, int argc, char **argv);
int cmd_watch(cli *c, int argc, char **argv);
int cmd_bindex(cli *c, int argc, char **argv);
int cmd_blame(cli *c, int argc, char **argv);
int cmd_export(cli *c, int argc, char **argv);

#define CLI_HELP_DONE (-100)

/* The program: main.c's, and difftrace-mpi's (src/par/par_mpi.c). */
int cli_main(int argc, char **argv);
/* The sync events of a run in the order they arrive at the causality filter: by timestamp,
 * each host's clock put on host 0's wall clock from the clock readings of the record (*off,
 * one offset per host, for ord_filter_opts), a thread's own events in their order. Both
 * malloc'ed. (cli_order.c) */
dt_sync_event *cli_sync_arrival(const dt_sync_event *ev, size_t n,
				const store_sync_clock *ck, size_t nck, int64_t **off,
				size_t *nhost);

#endif
