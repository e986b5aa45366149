/* SPDX-License-Identifier: MIT */
/*
 * stackprof_fields.h - the field numbers stackprof.c writes: those of
 * Perfetto's protos (perfetto/trace/trace_packet.proto,
 * interned_data.proto, profiling/profile_common.proto,
 * profile_packet.proto, common/perf_events.proto).
 */
#ifndef FTFB_STACKPROF_FIELDS_H
#define FTFB_STACKPROF_FIELDS_H

/* Trace.packet */
#define F_TRACE_PACKET 1
/* TracePacket */
#define F_TIMESTAMP 8
#define F_SEQ_ID 10
#define F_INTERNED_DATA 12
#define F_SEQ_FLAGS 13
#define F_DEFAULTS 59
#define F_STACK_SAMPLE 135
#define F_FIRST_ON_SEQ 87
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE 2
/* a frame_pykind bit: a Go stack's outermost function */
#define FRAME_GO_TOP 0x80
/* TracePacketDefaults.stack_sample_defaults; StackSampleDefaults */
#define F_STACK_DEFAULTS 100
#define F_SD_SOURCE 1
#define F_SD_PRIMARY 2
/* StackSample.CounterDescriptor */
#define F_CD_NAME 2
#define F_CD_UNIT 3
#define F_CD_DESCRIPTION 6
#define UNIT_NANOSECONDS 1
#define UNIT_COUNT 9
/* InternedData */
#define F_FUNCTION_NAMES 5
#define F_FRAMES 6
#define F_CALLSTACKS 7
#define F_BUILD_IDS 16
#define F_MAPPING_PATHS 17
#define F_MAPPINGS 19
#define F_TASK_CONTEXTS 48
#define F_EXEC_CONTEXTS 49
/* InternedString, Mapping, Frame, Callstack: iid is field 1 */
#define F_IID 1
#define F_STR 2
#define F_MAP_BUILD_ID 2
#define F_MAP_START_OFFSET 3
#define F_MAP_START 4
#define F_MAP_END 5
#define F_MAP_PATH_IDS 7
#define F_MAP_EXACT_OFFSET 8
#define F_FRAME_NAME 2
#define F_FRAME_MAPPING 3
#define F_FRAME_REL_PC 4
#define F_FRAME_KIND 7 /* Frame.Kind; KIND_NATIVE 1, KIND_KERNEL 2 */
#define F_CALLSTACK_FRAMES 2
/* StackSample, its TaskContext and ExecutionContext */
#define F_SS_TASK_IID 2
#define F_SS_EXEC_IID 4
#define F_SS_CALLSTACK 6
#define F_SS_WEIGHT 11
/* TaskContext {iid 1, pid 2, tid 3} and ExecutionContext {iid 1, cpu 2,
 * mode 3}: one shape */
#define F_CTX_FIRST 2
#define F_CTX_SECOND 3
#define MODE_USER 1
#define MODE_KERNEL 2

#endif
