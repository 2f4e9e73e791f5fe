package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/supex"
	"go.uber.org/goleak"
)

// TestMain runs the server child when the tests start one (see
// startServer), and the tests otherwise.
func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		if err := serveMain(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "load server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m,
		// http.Get's idle keep-alive connections to the server child.
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"))
}

var impls = []string{implRPCGen, implMinimal}

func testServer(t *testing.T, impl string, rate int) *server {
	t.Helper()
	srv, err := startServer(impl, rate, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.stop)
	return srv
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // turns a hang into a failure
	t.Cleanup(cancel)
	return ctx
}

func TestThroughputSmoke(t *testing.T) {
	for _, impl := range impls {
		t.Run(impl, func(t *testing.T) {
			srv := testServer(t, impl, 0)
			r, err := throughput(testContext(t), srv, 200, 4)
			if err != nil {
				t.Fatal(err)
			}
			if r.calls != 200 || r.errors != 0 {
				t.Errorf("%d calls answered, %d errors; want 200 and 0", r.calls, r.errors)
			}
			if r.hist.percentile(0.5) <= 0 || r.hist.percentile(0.999) < r.hist.percentile(0.5) {
				t.Errorf("p50 %v, p999 %v: want 0 < p50 <= p999", r.hist.percentile(0.5), r.hist.percentile(0.999))
			}
		})
	}
}

func TestScaleSmoke(t *testing.T) {
	srv := testServer(t, implRPCGen, 0)
	// 20 connections, each calling every 50 ms for 500 ms: 10 calls each.
	r, err := scale(testContext(t), srv, 20, 50*time.Millisecond, 500*time.Millisecond, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if r.errors != 0 || r.hist.count() != 200 || r.late.count() != 200 {
		t.Errorf("%d calls answered (%d timed from when due), %d errors; want 200 and 0", r.hist.count(), r.late.count(), r.errors)
	}
	if r.late.percentile(0.5) < r.hist.percentile(0.5) || r.elapsed < 450*time.Millisecond {
		t.Errorf("p50 from when due %v < p50 from sending %v, or calls over in %v < 450 ms", r.late.percentile(0.5), r.hist.percentile(0.5), r.elapsed)
	}
	if st, err := srv.stats(true); err != nil || st.HeapLive == 0 || st.GCCycles == 0 {
		t.Errorf("stats after a GC: %+v, %v; want a live heap and a GC counted", st, err)
	}
	prof, err := srv.cpuProfile(time.Second)
	if err != nil || len(prof) < 2 || prof[0] != 0x1f || prof[1] != 0x8b {
		t.Errorf("CPU profile: %d bytes, %v; want a gzipped profile", len(prof), err)
	}
	if len(r.samples) == 0 || r.samples[0].rss == 0 || r.samples[0].stats.Conns != 20 {
		t.Errorf("memory samples %+v: want at least one, with RSS and 20 connections", r.samples)
	}
}

func TestIdleSmoke(t *testing.T) {
	for _, impl := range impls {
		t.Run(impl, func(t *testing.T) {
			srv := testServer(t, impl, 0)
			r, err := idle(testContext(t), srv, []int{5, 20}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := idleProfiles(testContext(t), testServer(t, impl, 512), 20, r); err != nil {
				t.Fatal(err)
			}
			if len(r.levels) != 2 || r.levels[1].conns != 20 {
				t.Fatalf("levels %+v, want 5 and 20 connections", r.levels)
			}
			if lv := r.levels[1]; lv.heapPer <= 0 || lv.goroutines-r.base.stats.Goroutines < 20 {
				t.Errorf("at 20 connections: heap %.0f B/conn, %d goroutines more; want > 0 and >= 20", lv.heapPer, lv.goroutines-r.base.stats.Goroutines)
			}
			// Both RSS readings are taken, and the live heap the GC
			// marked is counted: each connection holds some.
			if lv := r.levels[1]; lv.rss == 0 || lv.rssFreed == 0 || r.baseFreed == 0 || lv.livePer <= 0 || lv.live <= r.base.stats.HeapLive {
				t.Errorf("at 20 connections: RSS %d, after FreeOSMemory %d (base %d), live heap %d (base %d); want both RSS readings and more live heap",
					lv.rss, lv.rssFreed, r.baseFreed, lv.live, r.base.stats.HeapLive)
			}
			sites, err := summariseHeap(r.profile)
			if err != nil {
				t.Fatal(err)
			}
			if !hasSite(sites, "bufio.NewReaderSize") {
				t.Errorf("no bufio reader among the heap's sites: %+v", sites)
			}
			if g := summariseGoroutines(r.goroutines); len(g) == 0 || g[0].count < 20 {
				t.Errorf("goroutine groups %v: want the largest with one per connection", g)
			}
		})
	}
}

func hasSite(sites []site, leaf string) bool {
	for _, s := range sites {
		if s.leaf == leaf {
			return true
		}
	}
	return false
}

// TestHelloFirst checks that both servers refuse a ping before hello,
// as the Supex runtime does, so they do the same work.
func TestHelloFirst(t *testing.T) {
	for _, impl := range impls {
		t.Run(impl, func(t *testing.T) {
			srv := testServer(t, impl, 0)
			c, err := net.Dial("tcp", srv.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(time.Minute))
			if _, err := c.Write([]byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n")); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(c).ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(line, []byte(`"code":-32600`)) || checkAnswer(line, 7) == nil {
				t.Errorf("ping before hello answered %s, want error -32600", line)
			}
		})
	}
}

func TestCheckAnswer(t *testing.T) {
	for _, tc := range []struct {
		line string
		id   int64
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":12,"result":{"status":"ok"}}`, 12, true},
		{`{"jsonrpc":"2.0","result":{"status":"ok"},"id":12}`, 12, true},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, 12, false},
		{`{"jsonrpc":"2.0","id":123,"result":{}}`, 12, false},
		{`{"jsonrpc":"2.0","id":12,"error":{"code":-32600,"message":"x"}}`, 12, false},
		{`{"jsonrpc":"2.0","result":{}}`, 12, false},
	} {
		if err := checkAnswer([]byte(tc.line), tc.id); (err == nil) != tc.ok {
			t.Errorf("checkAnswer(%s, %d) = %v, want ok %v", tc.line, tc.id, err, tc.ok)
		}
	}
}

func TestSummariseHeap(t *testing.T) {
	// Two records of the same site and one of another; rate 1 (header
	// heap/2) means the counts are exact.
	profile := "heap profile: 3: 300 [3: 300] @ heap/2\n" +
		"1: 4096 [1: 4096] @ 0x1 0x2 0x3\n" +
		"#\t0x1\truntime.mallocgc+0x10\t/go/src/runtime/malloc.go:1\n" +
		"#\t0x2\tbufio.NewReaderSize+0x4c\t/go/src/bufio/bufio.go:57\n" +
		"#\t0x3\tgithub.com/rpcgen/rpcgen/runtime/jsonrpc.NewConn+0x1\t/x/conn.go:9\n" +
		"\n" +
		"2: 8192 [2: 8192] @ 0x1 0x2 0x4\n" +
		"#\t0x1\truntime.mallocgc+0x10\t/go/src/runtime/malloc.go:1\n" +
		"#\t0x2\tbufio.NewReaderSize+0x4c\t/go/src/bufio/bufio.go:57\n" +
		"#\t0x3\tgithub.com/rpcgen/rpcgen/runtime/jsonrpc.NewConn+0x9\t/x/conn.go:10\n" +
		"\n" +
		"5: 80 [5: 80] @ 0x5\n" +
		"#\t0x5\tmain.serveMinimal+0x1\t/x/serve.go:1\n" +
		"\n" +
		"# runtime.MemStats\n# Alloc = 1\n"
	sites, err := summariseHeap([]byte(profile))
	if err != nil {
		t.Fatal(err)
	}
	want := []site{
		{leaf: "bufio.NewReaderSize", owner: "github.com/rpcgen/rpcgen/runtime/jsonrpc.NewConn", objects: 3, bytes: 12288},
		{leaf: "main.serveMinimal", owner: "main.serveMinimal", objects: 5, bytes: 80},
	}
	if fmt.Sprint(sites) != fmt.Sprint(want) {
		t.Errorf("sites = %+v\nwant %+v", sites, want)
	}

	// Sampled at 512 KiB: a 4 KiB object counts for about 128.5 of them,
	// a 16-byte one for about 32768.5.
	sampled := strings.Replace(profile, "heap/2", "heap/1048576", 1)
	sites, err = summariseHeap([]byte(sampled))
	if err != nil {
		t.Fatal(err)
	}
	if len(sites) != 2 || sites[0].leaf != "main.serveMinimal" || sites[1].leaf != "bufio.NewReaderSize" {
		t.Fatalf("sampled sites = %+v, want main.serveMinimal then bufio.NewReaderSize", sites)
	}
	if got := sites[1].objects; got < 3*128 || got > 3*129 {
		t.Errorf("scaled 4 KiB objects = %.2f, want about 3 × 128.5", got)
	}
	if got := sites[0].objects; got < 5*32768 || got > 5*32769 {
		t.Errorf("scaled 16-byte objects = %.2f, want about 5 × 32768.5", got)
	}
}

func TestRunReport(t *testing.T) {
	var out bytes.Buffer
	err := run(testContext(t), []string{"throughput", "-calls", "100", "-conns", "2", "-commit", "abc1234"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"100 ping calls over 2 connections", "commit abc1234", "| rpcgen |", "| minimal |", "| 1.00 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if err := run(testContext(t), []string{"idle", "-levels", "5,5"}, &out); err == nil {
		t.Error("idle -levels 5,5 accepted, want an error for levels not increasing")
	}
}

func TestSummariseGoroutines(t *testing.T) {
	profile := "goroutine profile: total 7\n" +
		"4 @ 0x1 0x2 0x3\n" +
		"#\t0x1\truntime.gopark+0x1\t/go/src/runtime/proc.go:1\n" +
		"#\t0x2\tinternal/poll.runtime_pollWait+0x1\t/go/src/runtime/netpoll.go:1\n" +
		"#\t0x3\tnet.(*conn).Read+0x1\t/go/src/net/net.go:1\n" +
		"#\t0x4\tgithub.com/rpcgen/rpcgen/runtime/jsonrpc.(*Conn).readLoop+0x1\t/x/conn.go:1\n" +
		"\n" +
		"2 @ 0x1 0x5\n" +
		"#\t0x1\truntime.gopark+0x1\t/go/src/runtime/proc.go:1\n" +
		"#\t0x5\tos/signal.signal_recv+0x1\t/go/src/os/signal.go:1\n" +
		"\n" +
		"1 @ 0x1\n" +
		"#\t0x1\truntime.gopark+0x1\t/go/src/runtime/proc.go:1\n"
	got := summariseGoroutines([]byte(profile))
	want := []goroutineGroup{
		{"github.com/rpcgen/rpcgen/runtime/jsonrpc.(*Conn).readLoop", 4},
		{"os/signal.signal_recv", 2},
		{"runtime", 1},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups = %v, want %v", got, want)
	}
}

// A scale run with -memlimit runs the server with that GOMEMLIMIT.
func TestServerMemLimit(t *testing.T) {
	srv, err := startServer(implRPCGen, 0, "64MiB")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	st, err := srv.stats(false)
	if err != nil || st.MemLimit != 64<<20 {
		t.Errorf("the server's memory limit: %d, %v; want %d", st.MemLimit, err, 64<<20)
	}
}

// The scale report judges memory by its trend: a heap that starts just
// collected and swings with its GC cycles is flat though its last sample
// is far above its first.
func TestWriteMemoryTrend(t *testing.T) {
	const m = 1 << 20
	var samples []memSample
	for i, v := range []uint64{60, 150, 200, 100, 100, 100, 110, 110, 110} {
		samples = append(samples, memSample{at: time.Duration(i) * time.Second, rss: v * m,
			stats: stats{HeapInuse: 100 * m, HeapLive: 50 * m, GCCycles: uint64(i)}})
	}
	var b bytes.Buffer
	writeMemory(&b, samples)
	for _, want := range []string{
		"sampled every 1 s without forcing a GC (9 samples)",
		"| server RSS | 60.0 MiB | 110.0 MiB | 200.0 MiB | 100.0 MiB | 110.0 MiB | +10.0 % | 60.0 MiB → 110.0 MiB (+83.3 %) |",
		"Flat: true. GCs during the run: 8.",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("memory summary lacks %q:\n%s", want, b.String())
		}
	}
	samples[8].rss = 200 * m // the last third's mean is now 140: +40 %
	b.Reset()
	writeMemory(&b, samples)
	if !strings.Contains(b.String(), "Flat: false.") {
		t.Errorf("growing RSS judged flat:\n%s", b.String())
	}
}

// The server's ping allocates nothing of its own, as the demo's.
func TestPingAllocatesNothing(t *testing.T) {
	s := &session{}
	if n := testing.AllocsPerRun(100, func() { pinged, _ = s.Ping(context.Background()) }); n != 0 {
		t.Errorf("Ping: %.0f allocations per call, want 0", n)
	}
}

// pinged keeps Ping's result, so that it escapes as when the connection
// encodes it.
var pinged *supex.PingResult
