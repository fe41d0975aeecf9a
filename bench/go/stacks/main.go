// The Go side of bench/stacks_bench.cpp: the same programs, the same output.
//
//	stacks shrink KB N C             N goroutines each call a function with
//	                                 a KB KiB local once, then block on a
//	                                 channel; C runtime.GC() calls, one at a
//	                                 time, a line before and after each;
//	                                 then released, each checks a pointer
//	                                 into its stack kept across the park
//	stacks shortlived POLICY N WAVE  N goroutines in waves of WAVE; each
//	                                 recurses to 20-26 KiB, blocks at the
//	                                 bottom until its wave is there, returns
//	                                 and exits; a GC every tenth wave while
//	                                 the wave is at depth. POLICY is a label:
//	                                 GODEBUG=adaptivestackstart=0|1 decides
//
// The collector is off (debug.SetGCPercent(-1)) in shrink mode, as GOGC=off
// in the seed post: only the explicit collections run. Memory from
// runtime.MemStats (StackInuse, StackSys, Sys - HeapReleased) and RSS from
// /proc/self/statm.
//
// Go does not count stack copies. shortlived infers them: each frame of the
// recursion compares the address of its local with its caller's; the two
// differ by the frame size unless the stack was copied in between.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
	"unsafe"
)

func rss() float64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var pages, resident int64
	fmt.Sscan(string(b), &pages, &resident)
	return float64(resident * int64(os.Getpagesize()))
}

// ---- shrink ---------------------------------------------------------------

//go:noinline
func touch8() byte {
	var buf [8 << 10]byte
	buf[0], buf[len(buf)-1] = 1, 1
	return sink(buf[:])
}

//go:noinline
func touch64() byte {
	var buf [64 << 10]byte
	buf[0], buf[len(buf)-1] = 1, 1
	return sink(buf[:])
}

//go:noinline
func sink(b []byte) byte { return b[0] + b[len(b)-1] }

func printStep(step, n int, collectNs float64) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	f := float64(n)
	// os: what the runtime holds from the OS (Sys counts released heap
	// pages too). Freed stack spans go back to the heap, so Go's StackSys
	// does not show them; os does until the scavenger returns them.
	fmt.Printf("step=%d tasks=%d stack=%.0f stack_sys=%d released=%d os=%d rss=%.0f sys=%d gcs=%d collect_ns=%.0f\n",
		step, runtime.NumGoroutine(), float64(m.StackInuse)/f, m.StackSys,
		m.HeapReleased, m.Sys-m.HeapReleased, rss(), m.Sys, m.NumGC,
		collectNs)
}

func shrink(kb, n, collections int) {
	if kb != 0 && kb != 8 && kb != 64 {
		fmt.Fprintln(os.Stderr, "stacks: shrink KB is 0, 8 or 64")
		os.Exit(2)
	}
	debug.SetGCPercent(-1)
	block := make(chan struct{})
	var started, finished sync.WaitGroup
	started.Add(n)
	finished.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			v := 0x5eed + kb
			p := &v // into this stack, kept across the park
			switch kb {
			case 8:
				touch8()
			case 64:
				touch64()
			}
			started.Done()
			<-block
			if *p != 0x5eed+kb {
				panic("a stack pointer went stale")
			}
			finished.Done()
		}()
	}
	started.Wait()
	time.Sleep(50 * time.Millisecond)
	printStep(0, n, 0)
	for i := 1; i <= collections; i++ {
		t0 := time.Now()
		runtime.GC()
		printStep(i, n, float64(time.Since(t0).Nanoseconds()))
	}
	t0 := time.Now()
	close(block)
	finished.Wait()
	release := time.Since(t0).Nanoseconds()
	// A goroutine that has signalled exists until it returns: give the
	// last ones a moment.
	for i := 0; i < 1000 && runtime.NumGoroutine() > 1; i++ {
		time.Sleep(time.Millisecond)
	}
	fmt.Printf("released tasks=%d release_ns=%d\n", runtime.NumGoroutine(), release)
	os.Exit(0)
}

// ---- shortlived -------------------------------------------------------------

const (
	padBytes     = 192
	depth        = 80
	collectEvery = 10
)

// descend recurses to depth d and blocks on gate at the bottom. It returns
// the stack copies it saw: frames whose local is not one frame size below
// their caller's (stride: the first difference, level 1 to level 2).
//
//go:noinline
func descend(d int, gate chan struct{}, arrived *sync.WaitGroup, prev, stride uintptr, used *uintptr) (int, int) {
	var pad [padBytes]byte
	pad[0] = byte(d)
	cur := uintptr(unsafe.Pointer(&pad[0]))
	copies := 0
	if prev != 0 {
		diff := prev - cur
		if stride == 0 {
			stride = diff
		} else if diff != stride {
			copies = 1
		}
	}
	r := 0
	if d > 1 {
		s, c := descend(d-1, gate, arrived, cur, stride, used)
		r, copies = s, copies+c
		if used != nil && d == depth {
			// Back in the top frame, on the stack the bottom one used.
			*used = uintptr(unsafe.Pointer(&pad[0])) - *used + padBytes
		}
	} else {
		if used != nil {
			*used = cur
		}
		arrived.Done()
		<-gate
	}
	return r + int(pad[0]), copies
}

// The stack the first task's frames used at the bottom: its top local's
// address minus its bottom one's, plus a frame.
var usedAtBottom uintptr

func shortlived(policy string, n, wave int) {
	var copies int64
	var mu sync.Mutex
	atDepth := 0.0
	waves := n / wave
	t0 := time.Now()
	for w := 0; w < waves; w++ {
		gate := make(chan struct{})
		var arrived, finished sync.WaitGroup
		arrived.Add(wave)
		finished.Add(wave)
		for i := 0; i < wave; i++ {
			report := w == 0 && i == 0
			go func() {
				var used *uintptr
				if report {
					used = &usedAtBottom
				}
				_, c := descend(depth, gate, &arrived, 0, 0, used)
				if c != 0 {
					mu.Lock()
					copies += int64(c)
					mu.Unlock()
				}
				finished.Done()
			}()
		}
		arrived.Wait()
		if w%collectEvery == 0 {
			if w == 0 {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				atDepth = float64(m.StackInuse) / float64(wave)
			}
			runtime.GC()
		}
		close(gate)
		finished.Wait()
	}
	ns := float64(time.Since(t0).Nanoseconds())
	done := waves * wave
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Printf("policy=%s n=%d wave=%d ns=%.1f growths=%.3f stack_at_depth=%.0f used=%d gcs=%d\n",
		policy, done, wave, ns/float64(done), float64(copies)/float64(done),
		atDepth, usedAtBottom, m.NumGC)
}

func main() {
	if len(os.Args) >= 5 {
		a, _ := strconv.Atoi(os.Args[3])
		b, _ := strconv.Atoi(os.Args[4])
		switch os.Args[1] {
		case "shrink":
			k, _ := strconv.Atoi(os.Args[2])
			shrink(k, a, b)
		case "shortlived":
			shortlived(os.Args[2], a, b)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "usage: stacks shrink 0|8|64 N COLLECTIONS | shortlived LABEL N WAVE")
	os.Exit(2)
}
