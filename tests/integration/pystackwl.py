# SPDX-License-Identifier: MIT
"""Workload of test_pystacks.py (runs under any CPython 3.3+).

On the main thread, from module level: main > level1 > level2 > spin_a
and spin_b, pure-Python loops that spin for CPU times in the ratio 2:1,
each measuring its own CPU time with time.thread_time(). Then a thread
"sleeper" blocks in time.sleep under sleepy > nap, and in a socket read
under sleepy > wait_reply (another thread sends every 40 ms), each
measuring its time blocked with time.monotonic(). Prints what it
measured: spin_a_ns, spin_b_ns, tid, nap_ns, naps, recv_ns, recvs, and
calls: each spin call's CPU time in order, as a:NS,b:NS,...
"""
import socket
import sys
import threading
import time

UNIT = float(sys.argv[1]) if len(sys.argv) > 1 else 0.8
out = {}


def spin_a(cpu_s):
    t0 = time.thread_time()
    x = 0
    while time.thread_time() - t0 < cpu_s:
        x += 1
    ns = int((time.thread_time() - t0) * 1e9)
    out["spin_a_ns"] = out.get("spin_a_ns", 0) + ns
    out["calls"] = out.get("calls", "") + ("," if "calls" in out else "") + "a:%d" % ns


def spin_b(cpu_s):
    t0 = time.thread_time()
    x = 0
    while time.thread_time() - t0 < cpu_s:
        x += 1
    ns = int((time.thread_time() - t0) * 1e9)
    out["spin_b_ns"] = out.get("spin_b_ns", 0) + ns
    out["calls"] = out.get("calls", "") + ("," if "calls" in out else "") + "b:%d" % ns


def level2():
    for _ in range(4):
        spin_a(UNIT / 2)
        spin_b(UNIT / 4)


def level1():
    level2()


def nap(n):
    for _ in range(n):
        t0 = time.monotonic()
        time.sleep(0.01)
        out["nap_ns"] = out.get("nap_ns", 0) + int((time.monotonic() - t0) * 1e9)
        out["naps"] = out.get("naps", 0) + 1


def wait_reply(sock, n):
    for _ in range(n):
        t0 = time.monotonic()
        sock.recv(1)
        out["recv_ns"] = out.get("recv_ns", 0) + int((time.monotonic() - t0) * 1e9)
        out["recvs"] = out.get("recvs", 0) + 1


def sender(sock, n):
    # (long enough that the reader is back in recv before the byte comes
    # even on a loaded machine: a recv that finds its byte never blocks)
    for _ in range(n):
        time.sleep(0.04)
        sock.send(b"x")


def sleepy():
    out["tid"] = threading.get_ident() if not hasattr(threading, "get_native_id") \
        else threading.get_native_id()
    # (many short blocks: this VM's kernel now and then reports no switch
    # into a woken thread, and such a block has no end; one of 40 is
    # 2.5% of the time, within the test's 10%)
    nap(40)
    a, b = socket.socketpair()
    t = threading.Thread(target=sender, args=(b, 15), name="sender")
    t.start()
    wait_reply(a, 15)
    t.join()


def main():
    level1()
    t = threading.Thread(target=sleepy, name="sleeper")
    t.start()
    t.join()
    print(" ".join(f"{k}={v}" for k, v in sorted(out.items())), flush=True)


main()
