# SPDX-License-Identifier: MIT
"""Workload of bench/pystacks_bench.py: a CPU-bound pure-Python loop 12
calls deep (a plain recursion, so each call is a Python frame), and its
own CPU time (time.process_time), printed as "loop N cpu NS ns".

usage: python3 py_loop.py N   (N thousand loop iterations)"""
import sys
import time


def work(n):
    x = 0
    for i in range(n):
        x = (x * 31 + i) & 0xFFFF
    return x


def deep(d, n):
    return work(n) if d == 0 else deep(d - 1, n)


def main():
    n = int(sys.argv[1])
    t0 = time.process_time_ns()
    for _ in range(n):
        deep(12, 1000)
    print(f"loop {n} cpu {time.process_time_ns() - t0} ns", flush=True)


main()
