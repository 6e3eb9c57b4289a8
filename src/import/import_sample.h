/* import_sample.h: the sample record of a run (difftrace-sample(5)), written by
 * difftrace-record --sample into DIR/rank-N/sample, made into the blame data of
 * import/blame_data.h: program counters symbolized with the binaries' symbol tables and DWARF
 * (elfutils libdw), heap blocks rebuilt from the allocation records, globals and statics read
 * from the program, and samples grouped by call path and by the containers of their buffers. */
#ifndef DT_IMPORT_SAMPLE_H
#define DT_IMPORT_SAMPLE_H

#include <stdint.h>

#include "import/blame_data.h"
#include "util/err.h"

/* Adds the sample record found under PATH (a recording directory with rank-N/sample
 * directories, a rank directory, or a sample directory) to d. Sets *found to the number of
 * processes added (0: PATH has no sample record, d unchanged). A malformed file is an error
 * naming the file and offset; a file cut short by a kill is read up to its last whole record
 * and flagged. */
int sample_import(const char *path, dt_blame_data *d, int *found, dt_err *e);

/* 1 when PATH (as sample_import takes it) holds a sample record: a run stopped before its
 * first MPI or OpenMP call left samples and no sync record, and is imported with them. */
int sample_present(const char *path);

/* One thread file, streamed: the records up to the first unfinished one. Exposed for the
 * tests. *torn holds SAMPLE_READ_TORN when the file ends in an unfinished record,
 * SAMPLE_READ_FULL when the sampler stopped recording the thread on a full disk,
 * SAMPLE_READ_STOPPED when it stopped for another error. */
enum { SAMPLE_READ_TORN = 1, SAMPLE_READ_FULL = 2, SAMPLE_READ_STOPPED = 4 };
struct dtp_record;
int sample_file_read(const char *path, struct dtp_record **recs, size_t *n, int64_t *tid,
		     int32_t *source, int64_t *period, char *event, size_t eventlen, int *torn,
		     dt_err *e);

#endif
