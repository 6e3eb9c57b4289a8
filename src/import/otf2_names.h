/* otf2_names.h: what difftrace export --format otf2 adds to an OTF2 archive so that its import
 * gives back the same run (difftrace-otf2(5)), shared by the writer (src/export/otf2_write.c)
 * and the reader (import_otf2.c).
 *
 * The archive property OTF2_DT_PROPERTY marks such an archive. In it the sync events are not
 * guessed from the MPI and OpenMP records (which are written for other readers, Vampir and
 * otf2-print) but read from the attributes of the record that carries each: every field of
 * dt_sync_event, in its order (seq is the order of the records); the call site as its file,
 * line and function (a site is a number of its run). A region entered or left only
 * to carry a sync event, not a call of the trace, has OTF2_DT_NOCALL. Location properties keep
 * what the store knows of each trace. Append only: names are never reused. */
#ifndef DT_OTF2_NAMES_H
#define DT_OTF2_NAMES_H

#define OTF2_DT_PROPERTY "DIFFTRACE::EXPORT"

/* the attributes, by index; the name of each is "difftrace::" followed by its entry here */
#define OTF2_DT_ATTRS(X)                                                                     \
	X(NOCALL, nocall, UINT8) X(PHASE, phase, UINT8) X(FUNC, func, STRING)                \
	X(TS, ts, INT64) X(COMM, comm, INT32) X(DEST, dest, INT32) X(STAG, stag, INT32)      \
	X(SRC, src, INT32) X(RTAG, rtag, INT32) X(ROOT, root, INT32) X(COUNT, count, INT64)  \
	X(DATATYPE, datatype, INT32) X(OP, op, INT32) X(REQ, req, UINT64)                    \
	X(OBJ, obj, UINT64) X(OBJSEQ, objseq, UINT64) X(TEAM, team, INT32)                   \
	X(TNUM, tnum, INT32) X(CSIZE, csize, INT32)                                          \
	X(DISP, disp, INT64) X(ASSERT, assert, INT32) X(LOCK, lock, INT32)                   \
	X(DIGEST, digest, UINT64) X(SITE_FILE, site_file, STRING)                            \
	X(SITE_LINE, site_line, UINT32) X(SITE_FUNC, site_func, STRING)

enum otf2_dt_attr {
#define OTF2_DT_X(id, name, type) OTF2_DT_##id,
	OTF2_DT_ATTRS(OTF2_DT_X)
#undef OTF2_DT_X
	OTF2_DT_NATTRS
};

/* the location properties (all strings, as OTF2 location properties are often shown) */
#define OTF2_DT_LOC_PID "difftrace::pid"
#define OTF2_DT_LOC_TID "difftrace::tid"
#define OTF2_DT_LOC_RANK "difftrace::rank"
#define OTF2_DT_LOC_MAIN "difftrace::main"
#define OTF2_DT_LOC_HOST "difftrace::host"
#define OTF2_DT_LOC_NOTIME "difftrace::notime"   /* the trace's calls have no times */
#define OTF2_DT_LOC_CLOCK "difftrace::clock"     /* "ID MONO REAL": its sync events' clock */

#endif
