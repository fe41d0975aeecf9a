// The Go side of bench/net_bench.c: the same programs on Go's net package,
// the same output; and the load generator both servers are measured with.
//
//	net echo N ROUNDS   N client goroutines connect to N server goroutines
//	                    over loopback and echo ROUNDS 64-byte messages each
//	net idle N          N connections echo one message, then all 2N
//	                    goroutines wait in Read: memory per connection
//	net serve           an HTTP-style keep-alive server on a free loopback
//	                    port (printed first), until killed
//	net queue-serve [POOL]
//	                    the same server written as bench/thread_server.cpp
//	                    is: a goroutine per connection hands each request
//	                    to POOL (4) worker goroutines through a queue
//	                    guarded by a sync.Mutex and a sync.Cond, and waits
//	                    on its own sync.Cond for the answer
//	net load PORT CONNS REQUESTS
//	                    CONNS connections to 127.0.0.1:PORT send REQUESTS
//	                    requests in all, each waiting for its response;
//	                    requests per second and latency percentiles
//
// The last line is key=value pairs. Threads: /proc/self/status at the end
// (Go never ends the threads it starts, so that is the peak).
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const msgSize = 64

func statusField(name string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, name) {
			f := strings.Fields(line[len(name):])
			if len(f) > 0 {
				v, _ := strconv.ParseInt(f[0], 10, 64)
				return v
			}
		}
	}
	return 0
}

func die(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func listen() (net.Listener, string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		die(err)
	}
	return l, l.Addr().String()
}

func echoServer(c net.Conn) {
	buf := make([]byte, msgSize)
	for {
		n, err := c.Read(buf)
		if err != nil {
			break
		}
		if _, err := c.Write(buf[:n]); err != nil {
			break
		}
	}
	c.Close()
}

func acceptLoop(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			die(err)
		}
		go echoServer(c)
	}
}

func echo(n, rounds int) {
	l, addr := listen()
	rss0 := statusField("VmRSS:")
	go acceptLoop(l)
	var wg sync.WaitGroup
	wg.Add(n)
	t0 := time.Now()
	for i := 0; i < n; i++ {
		go func(i int) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				die(err)
			}
			out := bytes.Repeat([]byte{byte(i)}, msgSize)
			in := make([]byte, msgSize)
			for r := 0; r < rounds; r++ {
				echoOnce(c, out, in)
			}
			c.Close()
			wg.Done()
		}(i)
	}
	wg.Wait()
	wall := time.Since(t0)
	hwm := statusField("VmHWM:")
	fmt.Printf("conns=%d rounds=%d wall_ms=%.1f threads=%d rss_per_conn=%.0f\n",
		n, rounds, float64(wall.Microseconds())/1e3, statusField("Threads:"),
		float64(hwm-rss0)*1024/float64(n))
}

// One message out and its echo back.
func echoOnce(c net.Conn, out, in []byte) {
	if _, err := c.Write(out); err != nil {
		die(err)
	}
	if _, err := io.ReadFull(c, in); err != nil {
		die(err)
	}
}

func idle(n int) {
	l, addr := listen()
	rss0 := statusField("VmRSS:")
	go acceptLoop(l)
	var first sync.WaitGroup
	first.Add(n)
	for i := 0; i < n; i++ {
		go func(i int) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				die(err)
			}
			out := bytes.Repeat([]byte{byte(i)}, msgSize)
			in := make([]byte, msgSize)
			echoOnce(c, out, in)
			first.Done()
			if _, err := c.Read(in); err == nil {
				die(fmt.Errorf("idle read ended"))
			}
		}(i)
	}
	first.Wait()
	time.Sleep(100 * time.Millisecond)
	rss := statusField("VmRSS:")
	// What Go can give back: two GCs and the scavenger at once.
	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
	rssIdle := statusField("VmRSS:")
	fmt.Printf("conns=%d tasks=%d rss_per_conn=%.0f rss_idle_per_conn=%.0f threads=%d\n", n,
		numGoroutine(), float64(rss-rss0)*1024/float64(n),
		float64(rssIdle-rss0)*1024/float64(n), statusField("Threads:"))
}

var response = []byte("HTTP/1.1 200 OK\r\n" +
	"Content-Type: text/plain\r\n" +
	"Content-Length: 13\r\n" +
	"\r\n" +
	"Hello, world!")

// serveRequests reads keep-alive requests from c and answers each with
// response, after handle(request) when handle is not nil.
func serveRequests(c net.Conn, handle func([]byte)) {
	buf := make([]byte, 4096)
	have := 0
	for {
		n, err := c.Read(buf[have:])
		if err != nil {
			break
		}
		have += n
		start := 0
		for {
			end := bytes.Index(buf[start:have], []byte("\r\n\r\n"))
			if end < 0 {
				break
			}
			if handle != nil {
				handle(buf[start : start+end+4])
			}
			if _, err := c.Write(response); err != nil {
				c.Close()
				return
			}
			start += end + 4
		}
		copy(buf, buf[start:have])
		have -= start
		if have == len(buf) {
			break
		}
	}
	c.Close()
}

func httpConn(c net.Conn) { serveRequests(c, nil) }

func serve() {
	l, addr := listen()
	fmt.Printf("port=%s\n", addr[strings.LastIndex(addr, ":")+1:])
	for {
		c, err := l.Accept()
		if err != nil {
			die(err)
		}
		go httpConn(c)
	}
}

// The work queue of queueServe, as bench/thread_server.cpp's.
type qConn struct {
	mu     sync.Mutex
	cv     *sync.Cond
	done   bool
	answer uint64
}

type qJob struct {
	req  []byte
	conn *qConn
}

var (
	qMu      sync.Mutex
	qCv      = sync.NewCond(&qMu)
	qJobs    []qJob
	qAnswers uint64
)

func fnv1a(p []byte) uint64 {
	h := uint64(1469598103934665603)
	for _, b := range p {
		h = (h ^ uint64(b)) * 1099511628211
	}
	return h
}

func qWorker() {
	for {
		qMu.Lock()
		for len(qJobs) == 0 {
			qCv.Wait()
		}
		j := qJobs[0]
		qJobs = qJobs[1:]
		qAnswers++
		qMu.Unlock()
		h := fnv1a(j.req)
		j.conn.mu.Lock()
		j.conn.answer = h
		j.conn.done = true
		j.conn.mu.Unlock()
		j.conn.cv.Signal()
	}
}

func askPool(c *qConn, req []byte) uint64 {
	qMu.Lock()
	qJobs = append(qJobs, qJob{req, c})
	qMu.Unlock()
	qCv.Signal()
	c.mu.Lock()
	for !c.done {
		c.cv.Wait()
	}
	c.done = false
	a := c.answer
	c.mu.Unlock()
	return a
}

func queueConn(c net.Conn) {
	qc := &qConn{}
	qc.cv = sync.NewCond(&qc.mu)
	serveRequests(c, func(req []byte) { askPool(qc, req) })
}

func queueServe(pool int) {
	l, addr := listen()
	fmt.Printf("port=%s\n", addr[strings.LastIndex(addr, ":")+1:])
	for i := 0; i < pool; i++ {
		go qWorker()
	}
	for {
		c, err := l.Accept()
		if err != nil {
			die(err)
		}
		go queueConn(c)
	}
}

var request = []byte("GET / HTTP/1.1\r\nHost: bench\r\n\r\n")

func load(port string, conns, requests int) {
	var left int64 = int64(requests)
	lat := make([][]time.Duration, conns)
	var wg sync.WaitGroup
	wg.Add(conns)
	t0 := time.Now()
	for i := 0; i < conns; i++ {
		go func(i int) {
			defer wg.Done()
			c, err := net.Dial("tcp", "127.0.0.1:"+port)
			if err != nil {
				die(err)
			}
			r := bufio.NewReader(c)
			resp := make([]byte, len(response))
			for atomic.AddInt64(&left, -1) >= 0 {
				s := time.Now()
				if _, err := c.Write(request); err != nil {
					die(err)
				}
				if _, err := io.ReadFull(r, resp); err != nil {
					die(err)
				}
				lat[i] = append(lat[i], time.Since(s))
			}
			c.Close()
		}(i)
	}
	wg.Wait()
	secs := time.Since(t0).Seconds()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
	pct := func(p float64) float64 {
		return float64(all[int(p*float64(len(all)-1))].Nanoseconds()) / 1e3
	}
	fmt.Printf("reqs=%d secs=%.3f rps=%.0f p50_us=%.1f p99_us=%.1f\n",
		len(all), secs, float64(len(all))/secs, pct(0.50), pct(0.99))
}

func main() {
	args := os.Args[1:]
	num := func(s string) int {
		v, err := strconv.Atoi(s)
		if err != nil {
			die(err)
		}
		return v
	}
	switch {
	case len(args) == 3 && args[0] == "echo":
		echo(num(args[1]), num(args[2]))
	case len(args) == 2 && args[0] == "idle":
		idle(num(args[1]))
	case len(args) == 1 && args[0] == "serve":
		serve()
	case len(args) >= 1 && len(args) <= 2 && args[0] == "queue-serve":
		pool := 4
		if len(args) == 2 {
			pool = num(args[1])
		}
		queueServe(pool)
	case len(args) == 4 && args[0] == "load":
		load(args[1], num(args[2]), num(args[3]))
	default:
		fmt.Fprintln(os.Stderr,
			"usage: net echo N ROUNDS | idle N | serve | queue-serve [POOL] | load PORT CONNS REQUESTS")
		os.Exit(2)
	}
}

func numGoroutine() int { return runtime.NumGoroutine() }
