// growth: the cost of growing a goroutine stack to depths 1..4096 with
// 128-byte frames, on a fresh goroutine versus a worker whose stack already
// grew, with an identical control (warmctl) bracketing the fresh run. The
// Go side of bench/growth_bench.c; scripts/bench-growth prints both.
//
// Output: a "# policy" line (GOMAXPROCS and whether adaptive start sizes
// are on: scripts/bench-growth sets GOMAXPROCS=1 and
// GODEBUG=adaptivestackstart=0, so a fresh goroutine starts at 2 KiB), then
// one line per depth: depth warm_ns fresh_ns warmctl_ns
package main

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"time"
)

const frameBytes = 128

var sink byte

//go:noinline
func descend(depth int) {
	var frame [frameBytes]byte
	frame[0] = byte(depth)
	if depth > 1 {
		descend(depth - 1)
	}
	sink = frame[0]
}

var depths = []int{1, 16, 64, 256, 1024, 4096}

func iters(depth int) int {
	n := 2000000 / (depth + 8)
	if n < 100 {
		n = 100
	}
	return n
}

// warm: a worker goroutine that grew its stack once runs every call.
func warm(work chan int, done chan struct{}, depth, n int) float64 {
	start := time.Now()
	for i := 0; i < n; i++ {
		work <- depth
		<-done
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

// fresh: a goroutine created for each call.
func fresh(depth, n int) float64 {
	done := make(chan struct{})
	start := time.Now()
	for i := 0; i < n; i++ {
		go func() {
			descend(depth)
			done <- struct{}{}
		}()
		<-done
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func main() {
	rounds := 7
	if len(os.Args) > 1 {
		rounds, _ = strconv.Atoi(os.Args[1])
	}
	work := make(chan int)
	done := make(chan struct{})
	go func() {
		descend(8192) // grow once, well past the deepest call
		for d := range work {
			descend(d)
			done <- struct{}{}
		}
	}()
	w := map[int][]float64{}
	f := map[int][]float64{}
	c := map[int][]float64{}
	for r := 0; r < rounds; r++ {
		for _, d := range depths {
			w[d] = append(w[d], warm(work, done, d, iters(d)))
			f[d] = append(f[d], fresh(d, iters(d)))
			c[d] = append(c[d], warm(work, done, d, iters(d)))
		}
	}
	fmt.Printf("# policy gomaxprocs=%d godebug=%s\n", runtime.GOMAXPROCS(0), os.Getenv("GODEBUG"))
	for _, d := range depths {
		fmt.Printf("%d %.1f %.1f %.1f\n", d, median(w[d]), median(f[d]), median(c[d]))
	}
}
