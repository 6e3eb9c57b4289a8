/* sync_codec.h: the encoding of a chunk of sync events (import/sync_event.h) in the store.
 *
 * Sync events used to be one SQLite row of 20 columns each: 53 bytes an event, most of a
 * store of an MPI + OpenMP run, and most of an import's time spent in SQLite. They are kept
 * like the trace events now: per thread, in chunks of up to SYNC_CHUNK_EVENTS events, one
 * blob each. A chunk is its events column by column (seq, phase, func, ts, comm, dest, stag,
 * src, rtag, root, count, datatype, op, req, obj, objseq, team, tnum, csize, site, disp, rassert,
 * lock, digest), each value as the
 * zigzag LEB128 of its difference from the same column's previous value (a column that does
 * not change, or changes by one, is a run of equal bytes), the whole in a zstd frame with its
 * content size and checksum. proc, thread and host come from the trace, not the chunk. */
#ifndef DT_SYNC_CODEC_H
#define DT_SYNC_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "import/sync_event.h"
#include "util/util.h"

#define SYNC_CHUNK_EVENTS 4096
/* 1: the columns up to csize (written before call sites: their events' site is 0); 2: with
 * the site; 3: with the one-sided calls' disp, rassert and lock and the payload digest (0 in
 * the events of older chunks). */
enum { SYNC_CODEC_COLUMNS_ZSTD = 1, SYNC_CODEC_SITES_ZSTD = 2, SYNC_CODEC_RMA_ZSTD = 3 };

typedef struct sync_codec sync_codec;

sync_codec *sync_codec_new(void);
void sync_codec_free(sync_codec *c);
/* Encodes ev[0..n) (n <= SYNC_CHUNK_EVENTS) into out, replacing what it held; returns the
 * codec (SYNC_CODEC_RMA_ZSTD). */
int sync_encode(sync_codec *c, const dt_sync_event *ev, size_t n, dt_buf *out);
/* The columns of a chunk before zstd, in their order: the zigzag LEB128 of the differences,
 * column after column. A worker thread of the parallel import writes them (its function and
 * site ids its own) and the thread that writes the store maps those two columns and compresses
 * (import/wire.h), so that 144-byte events do not cross between them. */
#define SYNC_NCOL 24
enum { SYNC_COL_FUNC = 2, SYNC_COL_SITE = 19 };
/* Writes ev[0..n)'s columns at raw (room for n * SYNC_NCOL * 10 bytes); end[k] is the offset
 * where column k ends; returns the length. */
size_t sync_cols_put(const dt_sync_event *ev, size_t n, uint8_t *raw, uint32_t end[SYNC_NCOL]);
/* Appends to out the column col (len bytes, n values) with each value v replaced by map[v]
 * (0 stays 0; map[1..nmap]); -1 when a value is not in the map or the bytes are not n values. */
int sync_col_map(const uint8_t *col, size_t len, size_t n, const uint32_t *map, size_t nmap,
		 dt_buf *out);
/* Compresses a chunk's columns (raw, len bytes) into out, replacing what it held; returns the
 * codec. sync_encode is sync_cols_put then this. */
int sync_encode_cols(sync_codec *c, const uint8_t *raw, size_t len, dt_buf *out);
/* Reads a chunk's columns of n events (all SYNC_NCOL) into ev, leaving proc, thread and host;
 * -1 when they are not n events' columns. */
int sync_cols_get(const uint8_t *raw, size_t len, size_t n, dt_sync_event *ev);
/* Decodes a chunk of codec, expected to hold n events, into ev[0..n) (the caller's, at least
 * n long), leaving proc, thread and host as they were. Errors name path and the chunk's first
 * event (first) and say what is wrong: an unknown codec, a damaged frame, a count other than n. */
int sync_decode(sync_codec *c, int codec, const uint8_t *in, size_t len, size_t n, uint64_t first,
		const char *path, dt_sync_event *ev, dt_err *e);

#endif
