/* SPDX-License-Identifier: MIT */
/*
 * ftf/reader.h - libftf's Fuchsia Trace Format reader.
 *
 * A pull parser over an in-memory buffer: ftf_reader_next() decodes one
 * record at a time into a struct ftf_record. Strings in a record point
 * either into the caller's data (inline strings, string records) or into
 * the reader's string table (string refs); both stay valid as long as the
 * data and the reader do, except that a table entry is replaced when the
 * trace redefines its index (as the format says).
 *
 * The reader keeps the string table (32768 entries), the thread table
 * (255 entries) and the last ticks-per-second value. Unknown record types,
 * metadata types, event types, scheduling subtypes and argument types are
 * skipped by their size (rec->type / ->unknown say what was skipped);
 * they are not errors.
 *
 * Malformed input (zero size, size past the end, a truncated trailing
 * record, arguments or inline strings that do not fit in their record, a
 * string or thread ref never defined, ...) makes ftf_reader_next() return a
 * negative code, -EBADMSG, and ftf_reader_error() returns a message that
 * starts with the byte offset of the record, e.g.
 *   "offset 504: record size 67 words runs past the end of the data
 *    (16 bytes left)"
 * Errors come in two kinds. A framing error (zero size, size past the end,
 * trailing bytes that are not a whole record) is sticky: every later call
 * returns the same code. A content error inside a record whose size was
 * sound (bad string ref, argument too big, ...) leaves the reader past that
 * record, so a caller that wants to go on (like Fuchsia's reader does) may
 * call ftf_reader_next() again. The reader never reads outside
 * [data, data + len).
 *
 * err_offset is the byte offset of the record at fault (also in the
 * message); err_pos is the stream position when the problem was found,
 * counted the way Fuchsia's streaming reader counts it (bytes consumed):
 * the record start for a record that is not whole, just past the header
 * for a zero size, the record end for a bad record content.
 */
#ifndef FTF_READER_H
#define FTF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FTF_READER_MAX_STRINGS 32768
#define FTF_READER_MAX_THREADS 256 /* refs 1..255; 0 is "inline" */
#define FTF_READER_MAX_ARGS 15
#define FTF_MAGIC_WORD 0x0016547846040010ull

/* Record types (header bits 0..3). */
enum ftf_record_type {
	FTF_REC_METADATA = 0,
	FTF_REC_INIT = 1,
	FTF_REC_STRING = 2,
	FTF_REC_THREAD = 3,
	FTF_REC_EVENT = 4,
	FTF_REC_BLOB = 5,
	FTF_REC_USERSPACE_OBJECT = 6,
	FTF_REC_KERNEL_OBJECT = 7,
	FTF_REC_SCHED = 8,
	FTF_REC_LOG = 9,
	FTF_REC_LARGE = 15,
};

/* Metadata types (bits 16..19 of a metadata record). */
enum ftf_metadata_type {
	FTF_META_PROVIDER_INFO = 1,
	FTF_META_PROVIDER_SECTION = 2,
	FTF_META_PROVIDER_EVENT = 3,
	FTF_META_TRACE_INFO = 4, /* trace info type 0 = magic number */
};

/* Scheduling subtypes (bits 60..63 of a scheduling record). */
enum ftf_sched_type {
	FTF_SCHED_LEGACY_SWITCH = 0,
	FTF_SCHED_CONTEXT_SWITCH = 1,
	FTF_SCHED_WAKEUP = 2,
};

/* Argument types (bits 0..3 of an argument header). */
enum ftf_arg_type {
	FTF_ARG_NULL = 0,
	FTF_ARG_INT32 = 1,
	FTF_ARG_UINT32 = 2,
	FTF_ARG_INT64 = 3,
	FTF_ARG_UINT64 = 4,
	FTF_ARG_DOUBLE = 5,
	FTF_ARG_STRING = 6,
	FTF_ARG_POINTER = 7,
	FTF_ARG_KOID = 8,
	FTF_ARG_BOOL = 9,
	FTF_ARG_BLOB = 10,
};

/* Event types are the values of enum ftf_event_type in ftf/writer.h
 * (0 instant .. 10 flow end); kept as a plain int here so this header
 * stands alone. */

/* A string: not NUL-terminated. len 0 with ptr "" for the empty string. */
struct ftf_str {
	const char *ptr;
	size_t len;
};

struct ftf_arg {
	struct ftf_str name;
	unsigned type;         /* enum ftf_arg_type; unknown types are skipped */
	union {
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;      /* uint64, pointer, koid */
		double d;
		bool b;
		struct ftf_str str;
		struct {
			const uint8_t *ptr;
			size_t len;
		} blob;
	} v;
};

struct ftf_args {
	unsigned count;        /* args decoded (unknown arg types not counted) */
	unsigned skipped;      /* args of unknown type skipped by size */
	struct ftf_arg a[FTF_READER_MAX_ARGS];
};

struct ftf_pt {                /* a process/thread pair */
	uint64_t pid;
	uint64_t tid;
};

struct ftf_record {
	size_t offset;         /* byte offset of the record in the data */
	unsigned type;         /* enum ftf_record_type (header bits 0..3) */
	size_t size_words;     /* record size in words, header included */
	uint64_t header;       /* the header word as read */
	bool unknown;          /* type/subtype not understood: skipped by size */
	union {
		struct {
			unsigned meta_type;     /* enum ftf_metadata_type */
			uint32_t provider_id;
			struct ftf_str provider_name; /* provider info */
			unsigned event_id;      /* provider event (0 = buffer full) */
			unsigned trace_info_type; /* trace info (0 = magic) */
			uint32_t magic;         /* 0x16547846 for a magic record */
		} meta;
		struct {
			uint64_t ticks_per_second;
			bool has_base;          /* the seed's 4-word form */
			uint64_t base_ticks;
			uint64_t base_time;     /* ns since the Unix epoch */
		} init;
		struct {
			unsigned index;
			struct ftf_str text;
		} string;
		struct {
			unsigned index;
			struct ftf_pt pt;
		} thread;
		struct {
			unsigned event_type;    /* enum ftf_event_type */
			uint64_t ts;
			unsigned thread_ref;    /* 0 = inline */
			struct ftf_pt pt;
			struct ftf_str category;
			struct ftf_str name;
			struct ftf_args args;
			/* counter id / end ts / async id / flow id; for an instant,
			 * the scope word if the record has one (Fuchsia's reader
			 * requires it, the spec and the seed writer omit it). */
			uint64_t extra;
			bool has_extra;
		} event;
		struct {
			struct ftf_str name;
			unsigned blob_type;
			const uint8_t *payload;
			size_t size;
		} blob;
		struct {
			uint64_t pointer;
			unsigned thread_ref;
			struct ftf_pt pt;
			struct ftf_str name;
			struct ftf_args args;
		} uobj;
		struct {
			unsigned obj_type;      /* 1 process, 2 thread, ... */
			uint64_t koid;
			struct ftf_str name;
			struct ftf_args args;
		} kobj;
		struct {
			unsigned sched_type;    /* enum ftf_sched_type */
			unsigned cpu;
			uint64_t ts;
			/* context switch (1) and legacy (0) */
			unsigned out_state;     /* enum ftf_thread_state */
			uint64_t out_koid;      /* out thread koid (tid) */
			uint64_t in_koid;       /* incoming / waking thread koid */
			/* legacy (0) only: threads and priorities */
			struct ftf_pt out_pt, in_pt;
			unsigned out_prio, in_prio;
			struct ftf_args args;   /* subtypes 1 and 2 */
		} sched;
		struct {
			uint64_t ts;
			unsigned thread_ref;
			struct ftf_pt pt;
			struct ftf_str message;
		} log;
		struct {
			unsigned large_type;    /* 0 = blob */
			unsigned format;        /* 0 = blob event, 1 = attachment */
			struct ftf_str category;
			struct ftf_str name;
			/* format 0 only */
			uint64_t ts;
			unsigned thread_ref;
			struct ftf_pt pt;
			struct ftf_args args;
			const uint8_t *payload;
			size_t size;
		} large;
	} u;
};

struct ftf_reader_string {
	const char *ptr;
	uint16_t len;
	bool defined;
};

struct ftf_reader_thread {
	struct ftf_pt pt;
	bool defined;
};

struct ftf_reader_owned {     /* a string record's bytes, copied */
	char *text;
	size_t cap;
};

struct ftf_reader {
	const uint8_t *data;
	size_t len;
	size_t pos;            /* offset of the next record */
	int err;               /* 0, or the last negative error */
	bool fatal;            /* framing error: reading cannot go on */
	size_t err_offset;     /* offset of the faulty record */
	size_t err_pos;        /* stream position, Fuchsia's convention */
	uint64_t ticks_per_second; /* last initialization record; 0 if none */
	size_t records;        /* records returned so far */
	size_t skipped;        /* unknown records skipped (also returned) */
	size_t errors;         /* malformed records seen */
	struct ftf_reader_string *strings; /* FTF_READER_MAX_STRINGS entries */
	struct ftf_reader_thread threads[FTF_READER_MAX_THREADS];
	char errmsg[256];
	/* Added for streaming (ftf_reader_feed): */
	size_t base;           /* stream offset of data[0]; added to offsets */
	struct ftf_reader_owned *owned; /* string records copied, or NULL */
};

/* Prepares r to read data[0..len). The data must outlive the reader.
 * Allocates the string table: 0 or -ENOMEM. */
int ftf_reader_init(struct ftf_reader *r, const uint8_t *data, size_t len);

/* Starts over on new data, keeping the string table's allocation (whose
 * entries are cleared): for callers that read many buffers, like the
 * fuzzer. r must have been initialised. 0 or -EINVAL. */
int ftf_reader_reset(struct ftf_reader *r, const uint8_t *data, size_t len);

/* Streaming: string records are copied into the reader (instead of
 * pointing into the data), so the string table outlives the buffer it was
 * read from. 0 or -ENOMEM. */
int ftf_reader_own_strings(struct ftf_reader *r);

/* Streaming: goes on reading from a new buffer, whose byte 0 is at stream
 * offset `base`, keeping the string and thread tables (with owned strings,
 * see above) and the counts. The caller gives only whole records or keeps
 * an unfinished one's bytes for the next buffer; a record that does not
 * fit the buffer is a framing error as usual. 0 or -EINVAL. */
int ftf_reader_feed(struct ftf_reader *r, const uint8_t *data, size_t len,
		    size_t base);

/* Decodes the next record into *rec: 1 a record, 0 clean end of data,
 * negative (-EBADMSG) malformed input (see ftf_reader_error()). */
int ftf_reader_next(struct ftf_reader *r, struct ftf_record *rec);

/* The last error's message ("" if none). */
const char *ftf_reader_error(const struct ftf_reader *r);

/* Releases what ftf_reader_init() allocated; r can be re-initialised. */
void ftf_reader_free(struct ftf_reader *r);

/* Looks a string index up in the table: NULL if never defined. */
const struct ftf_reader_string *ftf_reader_string(const struct ftf_reader *r,
						  unsigned index);

/* Reads a whole file into a malloc'ed buffer (free() it). 0, or a negative
 * errno (-ENOENT, -EISDIR, -ENOMEM, ...). An empty file gives *len 0 and a
 * non-NULL *data. */
int ftf_read_file(const char *path, uint8_t **data, size_t *len);

/* A trace file opened for reading. A regular file is mapped read-only, so
 * its pages are read as the reader reaches them and a trace larger than
 * memory reads fine (the file must not shrink while open: that is SIGBUS);
 * anything else (a pipe, a /proc file, an empty file, a file that cannot
 * be mapped) is read whole into memory from the descriptor already open,
 * as ftf_read_file does. */
struct ftf_file {
	const uint8_t *data;
	size_t len;
	void *map;       /* the mapping, or NULL */
	uint8_t *buf;    /* the buffer read, or NULL */
	size_t released; /* bytes given back by ftf_file_release */
};

/* 0, or a negative errno as ftf_read_file (*f is then empty). */
int ftf_file_open(struct ftf_file *f, const char *path);
void ftf_file_close(struct ftf_file *f);
/* Tells the kernel the bytes before `upto` will not be needed soon: their
 * pages leave memory, and come back from the file if read again (strings
 * the reader resolved point there). Keeps a pass over a trace larger than
 * memory from filling it. No-op for a file read into memory. */
void ftf_file_release(struct ftf_file *f, size_t upto);

/* Names for dumps: "process", "thread", ...; "blocked", ...; NULL if the
 * value has no name. */
const char *ftf_obj_type_name(unsigned obj_type);
const char *ftf_thread_state_name(unsigned state);

#endif /* FTF_READER_H */
