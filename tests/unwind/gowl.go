// SPDX-License-Identifier: MIT
//
// gowl: the Go workload of test_runtimes.py. The main goroutine spins in
// main.spinOuter -> main.spinMiddle -> main.spinLeaf for SECS seconds
// while another goroutine sleeps 20 ms at a time in main.sleeperOuter
// -> main.sleeperInner -> time.Sleep. Each prints its own call chain,
// as Go's runtime.Callers sees it (innermost first), so the test can
// hold the sampled stacks against what the program knows of itself.
//
// usage: gowl SECS
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
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
func sleeperOuter(d time.Duration, n int, done chan int) {
	for i := 0; i < n; i++ {
		sleeperInner(d)
	}
	done <- n
}

func main() {
	secs, err := strconv.ParseFloat(os.Args[1], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: gowl SECS")
		os.Exit(2)
	}
	done := make(chan int)
	go sleeperOuter(20*time.Millisecond, int(secs*50), done)
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	loops := 0
	for time.Now().Before(end) {
		sink += spinOuter(1000000)
		loops++
	}
	fmt.Println("spins", loops, "sleeps", <-done)
}
