// SPDX-License-Identifier: MIT
//
// gowl: the Go workload of test_runtimes.py. The main goroutine spins in
// main.spinOuter -> main.spinMiddle -> main.spinLeaf until the process
// has used SECS seconds of CPU (so that it is sampled as often on a
// loaded machine), while another goroutine sleeps 20 ms at a time in
// main.sleeperOuter -> main.sleeperInner -> time.Sleep. Each prints its own call chain,
// as Go's runtime.Callers sees it (innermost first), so the test can
// hold the sampled stacks against what the program knows of itself.
//
// usage: gowl CPU_SECS
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var (
	sink                uint64
	spinSaid, sleepSaid bool
)

// chain: the functions on the caller's stack, innermost first.
func chain() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var names []string
	for {
		f, more := frames.Next()
		names = append(names, f.Function)
		if !more {
			break
		}
	}
	return strings.Join(names, " ")
}

// mix is called every 4096 steps so that spinLeaf is not a leaf: Go gives
// a leaf function without locals no frame (and so no frame pointer).
//
//go:noinline
func mix(x uint64) uint64 { return x ^ x>>31 }

//go:noinline
func spinLeaf(n int) uint64 {
	if !spinSaid {
		spinSaid = true
		fmt.Println("spin chain:", chain())
	}
	var x uint64 = 1
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		if i&4095 == 0 {
			x = mix(x)
		}
	}
	return x
}

//go:noinline
func spinMiddle(n int) uint64 { return spinLeaf(n) + 1 }

//go:noinline
func spinOuter(n int) uint64 { return spinMiddle(n) + 1 }

//go:noinline
func sleeperInner(d time.Duration) {
	if !sleepSaid {
		sleepSaid = true
		fmt.Println("sleep chain:", chain())
	}
	time.Sleep(d)
}

//go:noinline
func sleeperOuter(d time.Duration, stop, done chan int) {
	n := 0
	for len(stop) == 0 {
		sleeperInner(d)
		n++
	}
	done <- n
}

// cpuTime: the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	secs, err := strconv.ParseFloat(os.Args[1], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: gowl SECS")
		os.Exit(2)
	}
	stop, done := make(chan int, 1), make(chan int)
	go sleeperOuter(20*time.Millisecond, stop, done)
	end := time.Duration(secs * float64(time.Second))
	loops := 0
	for cpuTime() < end {
		sink += spinOuter(1000000)
		loops++
	}
	stop <- 1
	fmt.Println("spins", loops, "sleeps", <-done)
}
