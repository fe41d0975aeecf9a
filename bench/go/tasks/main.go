// The Go side of bench/tasks_bench.cpp: the same programs, the same output.
//
//	tasks park KIND N   N goroutines call WaitGroup.Done, then block
//	                    (KIND: chan, mutex, select, sleep)
//	tasks pingpong N    N round trips over unbuffered channels
//	tasks spawnjoin N   N goroutines that only call Done, then Wait
//	tasks idle N        N goroutines block on a channel; two GCs and
//	                    debug.FreeOSMemory; RSS per goroutine parked and
//	                    after, then ns per goroutine woken by a close
//	tasks wakeup KIND B N  B goroutines spin; one waits N times for 10 ms
//	                    (sleep, or pipe: a read of a pipe another
//	                    goroutine writes after a 10 ms sleep); how late
//	                    it ran: mean, p99, max us
//
// Memory per goroutine from runtime.MemStats deltas around the spawning
// (StackInuse, HeapInuse, Sys, after a GC on both sides, as in the seed
// post), and RSS from /proc/self/statm and getrusage.
package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
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

func maxRSS() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) * 1024
}

func park(kind string, n int) {
	block := make(chan struct{})
	var held sync.Mutex
	held.Lock()
	var started sync.WaitGroup
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rssBefore := rss()
	started.Add(n)
	t0 := time.Now()
	for i := 0; i < n; i++ {
		switch kind {
		case "chan":
			go func() {
				started.Done()
				<-block
			}()
		case "mutex":
			go func() {
				started.Done()
				held.Lock()
				held.Unlock()
			}()
		case "select":
			go func() {
				started.Done()
				select {}
			}()
		case "sleep":
			go func() {
				started.Done()
				time.Sleep(time.Hour)
			}()
		default:
			fmt.Fprintln(os.Stderr, "tasks: unknown kind", kind)
			os.Exit(2)
		}
	}
	started.Wait()
	spawn := time.Since(t0)
	time.Sleep(50 * time.Millisecond)
	runtime.GC()
	runtime.ReadMemStats(&after)
	f := float64(n)
	fmt.Printf("n=%d tasks=%d spawn_ns=%.0f stack=%.0f heap=%.0f sys=%.0f rss=%.0f maxrss=%.0f\n",
		n, runtime.NumGoroutine(), float64(spawn.Nanoseconds())/f,
		(float64(after.StackInuse)-float64(before.StackInuse))/f,
		(float64(after.HeapInuse)-float64(before.HeapInuse))/f,
		(float64(after.Sys)-float64(before.Sys))/f,
		(rss()-rssBefore)/f, (maxRSS()-rssBefore)/f)
	os.Exit(0)
}

func pingpong(n int) {
	ping, pong := make(chan int64), make(chan int64)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
	}()
	var v int64
	for i := 0; i < 1000; i++ {
		ping <- v
		v = <-pong
	}
	t0 := time.Now()
	for i := 0; i < n; i++ {
		ping <- v
		v = <-pong
	}
	ns := float64(time.Since(t0).Nanoseconds())
	close(ping)
	fmt.Printf("n=%d ns=%.1f check=%d\n", n, ns/float64(n), v)
}

func spawnjoin(n int) {
	var wg sync.WaitGroup
	t0 := time.Now()
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func() { wg.Done() }()
	}
	wg.Wait()
	ns := float64(time.Since(t0).Nanoseconds())
	fmt.Printf("n=%d ns=%.1f\n", n, ns/float64(n))
}

func idle(n int) {
	block := make(chan struct{})
	var started, finished sync.WaitGroup
	runtime.GC()
	rssBefore := rss()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	started.Add(n)
	finished.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			started.Done()
			<-block
			finished.Done()
		}()
	}
	started.Wait()
	time.Sleep(50 * time.Millisecond)
	rssParked := rss()
	t0 := time.Now()
	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
	collect := time.Since(t0)
	rssIdle := rss()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	t0 = time.Now()
	close(block)
	finished.Wait()
	wake := time.Since(t0)
	f := float64(n)
	inuse := func(m *runtime.MemStats) float64 {
		return float64(m.HeapInuse) + float64(m.StackInuse)
	}
	fmt.Printf("n=%d compacted=0 rss_parked=%.0f rss_idle=%.0f heap_idle=%.0f collect_ms=%.1f wake_ns=%.0f expand_ns=0\n",
		n, (rssParked-rssBefore)/f, (rssIdle-rssBefore)/f,
		(inuse(&after)-inuse(&before))/f,
		float64(collect.Nanoseconds())/1e6, float64(wake.Nanoseconds())/f)
}

func wakeup(kind string, busy, n int) {
	var stop atomic.Bool
	var spinners sync.WaitGroup
	spinners.Add(busy)
	for i := 0; i < busy; i++ {
		go func() {
			x := uint64(0)
			for !stop.Load() {
				x++
			}
			spinners.Done()
		}()
	}
	const wait = 10 * time.Millisecond
	late := make([]float64, 0, n)
	var r, w *os.File
	var writer sync.WaitGroup
	if kind == "pipe" {
		var err error
		if r, w, err = os.Pipe(); err != nil {
			os.Exit(1)
		}
		writer.Add(1)
		go func() {
			var b [8]byte
			for i := 0; i < n; i++ {
				time.Sleep(wait)
				binary.LittleEndian.PutUint64(b[:], uint64(time.Now().UnixNano()))
				w.Write(b[:])
			}
			writer.Done()
		}()
	}
	for i := 0; i < n; i++ {
		if kind == "pipe" {
			var b [8]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				os.Exit(1)
			}
			sent := int64(binary.LittleEndian.Uint64(b[:]))
			late = append(late, float64(time.Now().UnixNano()-sent)/1e3)
		} else {
			t0 := time.Now()
			time.Sleep(wait)
			late = append(late, float64(time.Since(t0)-wait)/1e3)
		}
	}
	stop.Store(true)
	spinners.Wait()
	writer.Wait()
	sort.Float64s(late)
	sum := 0.0
	for _, v := range late {
		sum += v
	}
	p99 := len(late) * 99 / 100
	if p99 >= len(late) {
		p99 = len(late) - 1
	}
	fmt.Printf("n=%d mean_us=%.0f p99_us=%.0f max_us=%.0f\n", n,
		sum/float64(n), late[p99], late[len(late)-1])
}

func main() {
	if len(os.Args) >= 5 && os.Args[1] == "wakeup" {
		b, _ := strconv.Atoi(os.Args[3])
		n, _ := strconv.Atoi(os.Args[4])
		wakeup(os.Args[2], b, n)
		return
	}
	if len(os.Args) >= 4 && os.Args[1] == "park" {
		n, _ := strconv.Atoi(os.Args[3])
		park(os.Args[2], n)
	}
	if len(os.Args) >= 3 {
		n, _ := strconv.Atoi(os.Args[2])
		switch os.Args[1] {
		case "pingpong":
			pingpong(n)
			return
		case "spawnjoin":
			spawnjoin(n)
			return
		case "idle":
			idle(n)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "usage: tasks park chan|mutex|select|sleep N | pingpong N | spawnjoin N | idle N")
	os.Exit(2)
}
