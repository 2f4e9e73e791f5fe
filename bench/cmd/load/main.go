// Command load measures rpcgen's runtime at scale, from outside the
// server: it runs the server as a child process (this same binary, with
// RPCGEN_LOAD_SERVE=1) and drives it over TCP on 127.0.0.1.
//
//	go run ./cmd/load throughput [-calls 100000] [-conns 64]
//	go run ./cmd/load scale [-conns 10000] [-duration 1m] [-interval 1s] [-memlimit 160MiB]
//	go run ./cmd/load idle [-levels 1000,5000,10000]
//
// Every mode takes -impls (the servers to measure) and -json (one JSON
// object per server on a line, for cmd/report, instead of Markdown).
//
// The servers play the Supex runtime role for hello and ping: "rpcgen" is
// the generated package (generated/supex) on transport.Server, as the
// Supex demo serves it; "minimal" is a hand-written newline-delimited
// JSON server using encoding/json, one goroutine per connection.
// throughput makes ping calls, one in flight per connection, and reports
// calls/s and latency percentiles of both, with their ratio; scale holds
// many connections each calling once per interval, reporting errors,
// latency and the server's memory over time; idle reports the server's
// memory per idle connection and where its heap goes. Each prints a
// Markdown fragment on standard output, or JSON lines with -json.
//
// idle reads the server's RSS twice at each level: as the server holds
// it once the connections have been idle for -settle, then after the
// server has collected its garbage and returned its free pages to the
// system (debug.FreeOSMemory, which its stats request runs), with the
// live heap that GC marked: the first counts what the Go runtime keeps
// besides, the second what the connections hold.
//
// scale samples the server's RSS and heap every second (-sample) without
// forcing a GC, and calls its memory flat when the mean of the last third
// of the samples is at most 10 % above the mean of the middle third, for
// RSS and for heap in use (see bench/internal/memtrend): a Go heap swings
// between its live size and its GC goal within every GC cycle, so the
// first sample (just after the connections' start, little garbage yet)
// against the last (wherever its cycle was) measures the cycle, not
// growth. It reports each quantity's minimum, median and maximum, the
// trend, and first → last too. With -memlimit it runs each server again
// with that GOMEMLIMIT, as a second row.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const usage = `usage: load throughput|scale|idle [flags]

Run "load <mode> -h" for the flags of a mode.
`

func main() {
	if os.Getenv(serveEnv) == "1" {
		if err := serveMain(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "load server:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// run parses a mode and its flags, runs it, and writes its report to w.
func run(ctx context.Context, args []string, w io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("no mode given")
	}
	mode := args[0]
	fs := flag.NewFlagSet("load "+mode, flag.ContinueOnError)
	impls := fs.String("impls", implRPCGen, "comma-separated `servers` to measure: rpcgen, minimal")
	commit := fs.String("commit", "", "commit to report (default: git rev-parse --short HEAD)")
	asJSON := fs.Bool("json", false, "write one JSON object per server and mode (JSON lines) instead of Markdown")
	var (
		calls, conns                 int
		duration, interval, sampleE  time.Duration
		levels, cpuProfile, memLimit string
		heapProfile                  string
		profileRate                  int
		settle                       time.Duration
	)
	switch mode {
	case "throughput":
		fs.IntVar(&calls, "calls", 100_000, "ping calls in all")
		fs.IntVar(&conns, "conns", 64, "connections, one call in flight on each")
		fs.Lookup("impls").Value.Set(implRPCGen + "," + implMinimal) // a string
		fs.Lookup("impls").DefValue = implRPCGen + "," + implMinimal
	case "scale":
		fs.IntVar(&conns, "conns", 10_000, "connections open at once")
		fs.DurationVar(&duration, "duration", time.Minute, "how long they call")
		fs.DurationVar(&interval, "interval", time.Second, "time between two calls of one connection")
		fs.DurationVar(&sampleE, "sample", time.Second, "time between two samples of the server's memory")
		fs.StringVar(&memLimit, "memlimit", "", "also run each server with this GOMEMLIMIT (say 128MiB), as a second row after the default one")
		fs.StringVar(&cpuProfile, "cpuprofile", "", "write the server's CPU profile over the middle third of the run to `file`.<server>")
		fs.StringVar(&heapProfile, "heapprofile", "", "write the server's heap profile at the middle of the run to `file`.<server>")
	case "idle":
		fs.StringVar(&levels, "levels", "1000,5000,10000", "comma-separated connection counts, increasing")
		fs.DurationVar(&settle, "settle", time.Second, "how long the connections stay idle after the last hello before each measurement (a server may keep a finished message's goroutines and buffers for a short while)")
		fs.IntVar(&profileRate, "memprofilerate", 4096, "runtime.MemProfileRate of the second server, which gives the heap profile at the last level, fine enough to see every connection's allocations (memory is measured on a first server, at Go's default rate, since the profile's records take memory of their own)")
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown mode %q", mode)
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	servers := strings.Split(*impls, ",")
	ri := info(*commit)
	h := header(ri)

	switch mode {
	case "throughput":
		results, err := eachServer(servers, 0, func(srv *server, impl string) (*throughputResult, error) {
			r, err := throughput(ctx, srv, calls, conns)
			if err != nil {
				return nil, err
			}
			r.impl = impl
			return r, nil
		})
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(w, throughputRecords(ri, conns, results))
		}
		writeThroughput(w, h, calls, conns, results)
	case "scale":
		limit, err := raiseFileLimit(conns)
		if err != nil {
			return err
		}
		var results []*scaleResult
		limits := []string{""}
		if memLimit != "" {
			limits = append(limits, memLimit)
		}
		for _, lim := range limits {
			rs, err := eachServerLimited(servers, 0, lim, func(srv *server, impl string) (*scaleResult, error) {
				profiled := make(chan error, 2)
				if cpuProfile != "" && lim == "" {
					go func() { profiled <- profileMiddle(srv, duration, cpuProfile+"."+impl) }()
				} else {
					profiled <- nil
				}
				if heapProfile != "" && lim == "" {
					go func() { profiled <- heapMiddle(srv, duration, heapProfile+"."+impl) }()
				} else {
					profiled <- nil
				}
				r, err := scale(ctx, srv, conns, interval, duration, sampleE)
				if err := errors.Join(err, <-profiled, <-profiled); err != nil {
					return nil, err
				}
				r.impl, r.memLimit = impl, lim
				return r, nil
			})
			if err != nil {
				return err
			}
			results = append(results, rs...)
		}
		if *asJSON {
			return writeJSON(w, scaleRecords(ri, interval, duration, results))
		}
		writeScale(w, h, limit, interval, duration, results)
	case "idle":
		var ns []int
		for f := range strings.SplitSeq(levels, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 || (len(ns) > 0 && n <= ns[len(ns)-1]) {
				return fmt.Errorf("-levels %q: want increasing positive counts", levels)
			}
			ns = append(ns, n)
		}
		limit, err := raiseFileLimit(ns[len(ns)-1])
		if err != nil {
			return err
		}
		results, err := eachServer(servers, 0, func(srv *server, impl string) (*idleResult, error) {
			r, err := idle(ctx, srv, ns, settle)
			if err != nil {
				return nil, err
			}
			r.impl = impl
			return r, nil
		})
		if err != nil {
			return err
		}
		_, err = eachServer(servers, profileRate, func(srv *server, impl string) (struct{}, error) {
			for _, r := range results {
				if r.impl == impl {
					return struct{}{}, idleProfiles(ctx, srv, ns[len(ns)-1], r)
				}
			}
			return struct{}{}, nil
		})
		if err != nil {
			return err
		}
		if *asJSON {
			recs, err := idleRecords(ri, results)
			if err != nil {
				return err
			}
			return writeJSON(w, recs)
		}
		return writeIdle(w, h, limit, results)
	}
	return nil
}

// eachServer runs measure against a fresh server child for each
// implementation in servers, in order, and returns the results.
func eachServer[R any](servers []string, memProfileRate int, measure func(srv *server, impl string) (R, error)) ([]R, error) {
	return eachServerLimited(servers, memProfileRate, "", measure)
}

// eachServerLimited is eachServer with the children's GOMEMLIMIT set to
// memLimit (none if "").
func eachServerLimited[R any](servers []string, memProfileRate int, memLimit string, measure func(srv *server, impl string) (R, error)) ([]R, error) {
	var results []R
	for _, impl := range servers {
		err := withServer(impl, memProfileRate, memLimit, func(srv *server) error {
			r, err := measure(srv, impl)
			if err != nil {
				return err
			}
			results = append(results, r)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

// withServer runs f against a fresh server child running impl.
func withServer(impl string, memProfileRate int, memLimit string, f func(*server) error) error {
	srv, err := startServer(impl, memProfileRate, memLimit)
	if err != nil {
		return err
	}
	defer srv.stop()
	if err := f(srv); err != nil {
		return fmt.Errorf("%s server: %w", impl, err)
	}
	return nil
}

// raiseFileLimit makes sure this process may open conns connections
// plus some room, raising its soft limit on open files up to the hard
// one if needed, and returns the limit in force. (The server child, a
// Go program too, raises its own soft limit to the hard one at start.)
func raiseFileLimit(conns int) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("reading the open-file limit: %w", err)
	}
	need := uint64(conns) + 256
	if lim.Cur < need && lim.Max > lim.Cur {
		lim.Cur = min(need, lim.Max)
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return 0, fmt.Errorf("raising the open-file limit to %d: %w", lim.Cur, err)
		}
	}
	if lim.Cur < need {
		return lim.Cur, fmt.Errorf("%d connections need about %d open files; the limit is %d (hard %d)", conns, need, lim.Cur, lim.Max)
	}
	return lim.Cur, nil
}

// heapMiddle waits half a run of length d, then writes the server's heap
// profile to file.
func heapMiddle(srv *server, d time.Duration, file string) error {
	time.Sleep(d / 2) // the tool's pacing: the run's middle
	b, err := srv.fetch("/debug/pprof/heap")
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return fmt.Errorf("writing the heap profile: %w", err)
	}
	return nil
}

// profileMiddle waits a third of a run of length d, then writes the
// server's CPU profile over the next third to file.
func profileMiddle(srv *server, d time.Duration, file string) error {
	time.Sleep(d / 3) // the tool's pacing: profile the run's steady middle
	b, err := srv.cpuProfile(d / 3)
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return fmt.Errorf("writing the CPU profile: %w", err)
	}
	return nil
}
