# SPDX-License-Identifier: MIT
"""What Perfetto shows of an FTF trace, worked out here without Perfetto.

The tests once asked Perfetto's trace_processor_shell (never part of the
project) for the slices on named tracks and for its process and thread
tables; a clone without it must still check them. The trace's Perfetto
packets (the payloads of its blob records of blob type 3, which Perfetto's
Fuchsia importer reads as TracePackets) are decoded here from the protobuf
wire format with the field numbers of Perfetto's own .proto files (not the
tool's encoder), and combined with the FTF kernel objects, switches and
events as ftf-dump prints them (ftfcheck.Trace), the way Perfetto's
importers do:

- a kernel object names a process (pid, name) or a thread (tid, name,
  its process's koid) as it is read, before any packet;
- then the packets, in timestamp order: a ProcessTree's process (only with
  a command line) names its pid by its first argument (cut at the first
  space when it is the only one) and sets its command line (the arguments
  joined by spaces); its thread names its tid and puts it in tgid (none:
  process 0);
- a TrackDescriptor declares a track (uuid, name, a parent track, or a
  process: pid, or a thread: pid and tid, which Perfetto then lists as a
  thread of that process); a TrackEvent begins (type 1: name, category,
  debug annotations) or ends (type 2: its debug annotations join the
  slice's args) the newest open slice on its track; a slice's depth is
  the number of slices open on its track when it begins.

ftfcheck.perfetto_rows compares these rows with Perfetto's own whenever
trace_processor_shell is there, so this decoding is itself checked.
"""
from ftfcheck import Fail

# TracePacket
PKT_PROCESS_TREE, PKT_TIMESTAMP, PKT_TRACK_EVENT, PKT_TRACK_DESCRIPTOR = 2, 8, 11, 60
# ProcessTree: processes (pid, cmdline), threads (tid, name, tgid)
PT_PROCESS, PT_THREAD = 1, 2
PROC_PID, PROC_CMDLINE = 1, 3
THR_TID, THR_NAME, THR_TGID = 1, 2, 3
# TrackDescriptor (and its ProcessDescriptor's pid, ThreadDescriptor's
# pid and tid)
TD_UUID, TD_NAME, TD_PROCESS, TD_THREAD, TD_PARENT = 1, 2, 3, 4, 5
PD_PID = 1
THD_PID, THD_TID = 1, 2
# TrackEvent, its type, and DebugAnnotation
TE_ANNOTATION, TE_TYPE, TE_TRACK, TE_CATEGORY, TE_NAME = 4, 9, 11, 22, 23
SLICE_BEGIN, SLICE_END = 1, 2
DA_BOOL, DA_UINT, DA_INT, DA_STRING, DA_NAME = 2, 3, 4, 6, 10

IDLE_WEIGHT = "incoming_weight: int32(-2147483648)"


# ---- protobuf, decoded from the wire format --------------------------------

def varint(buf, i):
    v = shift = 0
    while True:
        if i >= len(buf):
            raise Fail("a varint runs past its message")
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def fields(buf):
    """[(field number, value)]: int for varints, bytes for the rest."""
    out, i = [], 0
    while i < len(buf):
        key, i = varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 2:
            n, i = varint(buf, i)
            v = bytes(buf[i:i + n])
            if len(v) != n:
                raise Fail(f"length-delimited field {num} runs past its message")
            i += n
        elif wt == 1:
            v, i = int.from_bytes(buf[i:i + 8], "little"), i + 8
        elif wt == 5:
            v, i = int.from_bytes(buf[i:i + 4], "little"), i + 4
        else:
            raise Fail(f"wire type {wt} of field {num}")
        out.append((num, v))
    return out


def get(msg, num, default=None):
    vals = [v for n, v in fields(msg) if n == num] if isinstance(msg, bytes) else []
    return vals[-1] if vals else default


def get_all(msg, num):
    return [v for n, v in fields(msg) if n == num]


def text(b):
    return b.decode("utf-8", "replace") if b else None


# ---- FTF records: tick rate and the blob payloads --------------------------

def read_ftf(path):
    """(ticks per second, the payloads of the blob records of blob type 3
    (Perfetto's) concatenated: a stream of TracePacket fields)."""
    data = open(path, "rb").read()
    off, tps, stream = 0, None, b""
    while off + 8 <= len(data):
        hdr = int.from_bytes(data[off:off + 8], "little")
        rtype, size = hdr & 0xF, (hdr >> 4) & 0xFFF
        if rtype == 15:
            size = (hdr >> 4) & 0xFFFFFFFF
        if size == 0:
            raise Fail(f"a record of size 0 at byte {off}")
        if rtype == 1:
            tps = int.from_bytes(data[off + 8:off + 16], "little")
        if rtype == 5 and (hdr >> 48) & 0xFF == 3:
            name_ref, plen = (hdr >> 16) & 0xFFFF, (hdr >> 32) & 0x7FFF
            p = off + 8
            if name_ref & 0x8000:
                p += ((name_ref & 0x7FFF) + 7) // 8 * 8
            stream += data[p:p + plen]
        off += size * 8
    return tps, stream


def packets(path):
    """The trace's TracePackets, in timestamp order (Perfetto sorts them;
    equal times keep the order written)."""
    pkts = []
    for num, pkt in fields(read_ftf(path)[1]):
        if num != 1:
            raise Fail(f"field {num} at the top of the packet stream")
        pkts.append((get(pkt, PKT_TIMESTAMP, 0), len(pkts), pkt))
    return [p for _, _, p in sorted(pkts)]


# ---- the UI's process order ---------------------------------------------------

TD_SIBLING_RANK = 12  # TrackDescriptor.sibling_order_rank
TD_PROCESS_ORDERING = 19  # TrackDescriptor.process_ordering (on the root)
PROCESS_ORDERING_EXPLICIT = 1


def process_sort_hints(path):
    """{pid: rank} as trace_processor's process_sort_index_hint: the
    sibling_order_rank of a process's TrackDescriptor, counted only when
    the root TrackDescriptor (uuid 0) asks for explicit process ordering;
    {} otherwise."""
    tds = [get(p, PKT_TRACK_DESCRIPTOR) for p in packets(path)]
    tds = [td for td in tds if td is not None]
    explicit = any(get(td, TD_UUID, 0) == 0 and get(td, TD_PROCESS_ORDERING) == PROCESS_ORDERING_EXPLICIT
                   for td in tds)
    if not explicit:
        return {}
    return {get(get(td, TD_PROCESS), PD_PID): get(td, TD_SIBLING_RANK) for td in tds
            if get(td, TD_PROCESS) is not None and get(td, TD_SIBLING_RANK) is not None}


# ---- slices on named tracks -------------------------------------------------

def annotation(msg):
    """(name, value as Perfetto's args print it) of a DebugAnnotation."""
    f = dict(fields(msg))
    name = text(f.get(DA_NAME))
    if DA_STRING in f:
        return name, text(f[DA_STRING]) or ""
    if DA_INT in f:
        v = f[DA_INT]
        return name, str(v - (1 << 64) if v >= 1 << 63 else v)
    if DA_UINT in f:
        return name, str(f[DA_UINT])  # (unsigned: Perfetto prints it so)
    if DA_BOOL in f:
        return name, "true" if f[DA_BOOL] else "false"  # (its display_value)
    raise Fail(f"debug annotation {name!r} of no value this decoder knows: {sorted(f)}")


def track_of(td):
    """A TrackDescriptor as dict: name, parent (uuid or None), pid and
    tid (the process or thread it is the track of, else None)."""
    pd, thd = get(td, TD_PROCESS), get(td, TD_THREAD)
    pid = get(pd, PD_PID) if pd is not None else get(thd, THD_PID) if thd is not None else None
    return dict(name=text(get(td, TD_NAME)), parent=get(td, TD_PARENT), pid=pid,
                tid=get(thd, THD_TID) if thd is not None else None)


def named_slices(path, track_matches):
    """The slices on tracks declared by TrackDescriptors (not a process's
    or thread's own) whose name track_matches(name) accepts, as dicts: ts,
    dur (-1: never ended), depth, name, category, track (its name),
    track_uuid, pid and tid (the process, or the thread and its process,
    whose track is its parent, else None), args {annotation: value as
    text} (the begin's, then the end's)."""
    tracks, open_, out = {}, {}, []
    for pkt in packets(path):
        td = get(pkt, PKT_TRACK_DESCRIPTOR)
        if td is not None:
            tracks[get(td, TD_UUID)] = track_of(td)
            continue
        te = get(pkt, PKT_TRACK_EVENT)
        if te is None:
            continue
        uuid, kind, ts = get(te, TE_TRACK), get(te, TE_TYPE), get(pkt, PKT_TIMESTAMP)
        if uuid not in tracks:
            raise Fail(f"a track event on track {uuid}, never declared")
        stack = open_.setdefault(uuid, [])
        args = dict(annotation(a) for a in get_all(te, TE_ANNOTATION))
        if kind == SLICE_BEGIN:
            stack.append(dict(ts=ts, dur=-1, depth=len(stack), name=text(get(te, TE_NAME)),
                              category=text(get(te, TE_CATEGORY)), track_uuid=uuid, args=args))
            out.append(stack[-1])
        elif kind == SLICE_END:
            if not stack:
                raise Fail(f"a slice end on track {uuid} with no slice open")
            s = stack.pop()
            s["dur"] = ts - s["ts"]
            s["args"].update(args)
        else:
            raise Fail(f"track event of type {kind} (only slices are written)")
    res = []
    for s in out:
        t = tracks[s["track_uuid"]]
        owner = tracks.get(t["parent"], dict(pid=None, tid=None))
        if track_matches(t["name"] or ""):
            res.append(dict(s, track=t["name"], pid=owner["pid"], tid=owner["tid"]))
    return res


# ---- processes and threads --------------------------------------------------

def tree_process(proc):
    """(pid, name, cmdline) as Perfetto takes a ProcessTree.Process."""
    args = [text(a) or "" for a in get_all(proc, PROC_CMDLINE)]
    name = args[0]
    if len(args) == 1 and " " in name:
        name = name.split(" ")[0]
    return get(proc, PROC_PID, 0), name or None, " ".join(args) or None


class Tables:
    """Perfetto's process and thread tables, as far as the tests look:
    processes {pid: {"name", "cmdline"}}, threads {tid: {"name", "pid"}}
    (names None when empty); trace: an ftfcheck.Trace of the same file."""

    def __init__(self, trace):
        self.processes, self.threads = {}, {}
        for koid, kind, name, args in trace.kobjs:
            if kind == "process":
                self.process(koid)["name"] = name or None
            elif kind == "thread":
                m = [a for a in args.split(", ") if a.startswith("process: koid(")]
                pid = int(m[-1][len("process: koid("):-1]) if m else 0
                self.thread(koid, pid)["name"] = name or None
        for pkt in packets(trace.path):
            td = get(pkt, PKT_TRACK_DESCRIPTOR)
            if td is not None and get(td, TD_THREAD) is not None:
                t = track_of(td)
                self.thread(t["tid"] or 0, t["pid"] or 0)
            elif td is not None and get(td, TD_PROCESS) is not None:
                self.process(get(get(td, TD_PROCESS), PD_PID, 0))
            tree = get(pkt, PKT_PROCESS_TREE)
            if tree is None:
                continue
            for proc in get_all(tree, PT_PROCESS):
                if not get_all(proc, PROC_CMDLINE):
                    continue  # (Perfetto skips a process with no command line)
                pid, name, cmdline = tree_process(proc)
                self.process(pid).update(name=name, cmdline=cmdline)
            for thr in get_all(tree, PT_THREAD):
                th = self.thread(get(thr, THR_TID, 0), get(thr, THR_TGID, 0))
                if get(thr, THR_NAME) is not None:
                    th["name"] = text(get(thr, THR_NAME)) or None
        # the tasks of events and switches, never named: in the process
        # the event says, or (a switch says none) in process 0
        for e in trace.events:
            if e[2] not in self.threads:
                self.thread(e[2], e[1])
        for tid in {s[3] for s in trace.switches} | {s[4] for s in trace.switches} | \
                {w[2] for w in trace.wakeups}:
            if tid not in self.threads:
                self.thread(tid, 0)

    def process(self, pid):
        return self.processes.setdefault(pid, dict(name=None, cmdline=None))

    def thread(self, tid, pid):
        self.process(pid)
        th = self.threads.setdefault(tid, dict(name=None, pid=pid))
        th["pid"] = pid
        return th

    def thread_row(self, tid):
        """(thread name, pid, process name) of tid."""
        th = self.threads.get(tid, dict(name=None, pid=0))
        return th["name"], th["pid"], self.processes.get(th["pid"], {}).get("name")
