package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/rpcgen/rpcgen/generated/supex"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// serveEnv, set to 1, makes the binary (the tool or its test) run as the
// server child instead: see serveMain.
const serveEnv = "RPCGEN_LOAD_SERVE"

// Implementations the server child can run.
const (
	implRPCGen  = "rpcgen"  // the generated Supex runtime role on transport.Server
	implMinimal = "minimal" // a hand-written encoding/json server
)

// stats is what the child's /stats endpoint reports.
type stats struct {
	Conns      int64  `json:"conns"` // connections that completed hello and are open
	Goroutines int    `json:"goroutines"`
	HeapInuse  uint64 `json:"heapInuse"`
	HeapAlloc  uint64 `json:"heapAlloc"`
	StackInuse uint64 `json:"stackInuse"`
	Sys        uint64 `json:"sys"`
	HeapLive   uint64 `json:"heapLive"` // live heap marked by the last GC
	GCCycles   uint64 `json:"gcCycles"` // GCs since the server started
	MemLimit   int64  `json:"memLimit"` // the runtime's memory limit (math.MaxInt64: none)
}

// serveMain runs the server child: it listens on a loopback port for
// JSON-RPC and on another for /stats and /debug/pprof/heap, prints
// "listening <rpc address> <stats address>" on stdout, and serves until
// SIGINT, SIGTERM or standard input closes.
func serveMain(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	impl := fs.String("impl", implRPCGen, "server `implementation`: rpcgen or minimal")
	rate := fs.Int("memprofilerate", 0, "runtime.MemProfileRate (0: Go's default)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rate > 0 {
		runtime.MemProfileRate = *rate
	}
	var conns atomic.Int64
	var handle func(ctx context.Context, c net.Conn)
	switch *impl {
	case implRPCGen:
		handle = func(ctx context.Context, c net.Conn) { startSupex(ctx, c, &conns) }
	case implMinimal:
		handle = func(_ context.Context, c net.Conn) { serveMinimal(c, &conns) }
	default:
		return fmt.Errorf("unknown -impl %q", *impl)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	sln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening for stats: %w", err)
	}
	go http.Serve(sln, statsMux(&conns)) // ends with the process
	fmt.Printf("listening %s %s\n", ln.Addr(), sln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { // the parent closes our stdin to stop us, or dies
		var b [1]byte
		os.Stdin.Read(b[:]) // any outcome means stop
		stop()
	}()
	if *impl == implRPCGen {
		// As the Supex demo serves, with no limit on connections, so that
		// 10,000 clients can be served at once, and nothing logged.
		srv := &transport.Server{Start: handle, MaxConns: -1}
		go func() { <-ctx.Done(); srv.Close() }()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, transport.ErrServerClosed) {
			return fmt.Errorf("serving: %w", err)
		}
		return nil
	}
	go func() { <-ctx.Done(); ln.Close() }()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("accepting: %w", err)
		}
		go handle(ctx, c)
	}
}

// statsMux serves /stats (unless ?gc=0, after two GCs, which empty the
// buffer pools, and with the freed memory returned to the system, so
// that RSS counts what is held) and the heap profile.
func statsMux(conns *atomic.Int64) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("gc") != "0" {
			runtime.GC() // pooled buffers move to the pools' victim caches
			debug.FreeOSMemory()
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
		metrics.Read(samples)
		json.NewEncoder(w).Encode(stats{ // the client sees a short body
			Conns: conns.Load(), Goroutines: runtime.NumGoroutine(),
			HeapInuse: m.HeapInuse, HeapAlloc: m.HeapAlloc, StackInuse: m.StackInuse, Sys: m.Sys,
			HeapLive: samples[0].Value.Uint64(), GCCycles: samples[1].Value.Uint64(),
			MemLimit: debug.SetMemoryLimit(-1),
		})
	})
	mux.Handle("/debug/pprof/heap", pprof.Handler("heap"))
	mux.Handle("/debug/pprof/goroutine", pprof.Handler("goroutine"))
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	return mux
}

// session is the Supex runtime role as the demo (examples/supex/runtime)
// plays it for hello and ping: hello identifies the client, and a gate
// refuses everything else before it.
type session struct {
	supex.UnimplementedRuntime
	conns *atomic.Int64

	mu     sync.Mutex
	client *supex.HelloParams
}

// Hello identifies the client.
func (s *session) Hello(_ context.Context, p *supex.HelloParams) (*supex.HelloResult, error) {
	s.mu.Lock()
	first := s.client == nil
	s.client = p
	s.mu.Unlock()
	if first {
		s.conns.Add(1)
	}
	return &supex.HelloResult{Success: true, Message: "Client identified",
		Server: supex.ServerInfo{Name: "supex-runtime", Version: "0.2.0"}}, nil
}

// Ping reports that the runtime is up.
func (s *session) Ping(context.Context) (*supex.PingResult, error) {
	return pingResult, nil
}

// pingResult is every ping's answer, made once as the demo does: the
// connection only encodes a result.
var pingResult = &supex.PingResult{Status: "ok", Version: "0.2.0", Message: "Supex server is running"}

// gate answers every request but hello with -32600 until hello succeeded.
func (s *session) gate(next jsonrpc.Handler) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method != supex.MethodHello {
			s.mu.Lock()
			ok := s.client != nil
			s.mu.Unlock()
			if !ok {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Client must identify with 'hello' method first", nil)
			}
		}
		return next.Handle(ctx, req)
	})
}

// discard is the servers' logger.
var discard = slog.New(slog.DiscardHandler)

// startSupex starts serving one connection with the generated Supex
// runtime role, as transport.Server's Start: no goroutine waits for it.
// ctx ends at shutdown and when the connection is closed.
func startSupex(ctx context.Context, c net.Conn, conns *atomic.Int64) {
	s := &session{conns: conns}
	conn := supex.ConnectRuntime(c, s, jsonrpc.Options{
		Middleware: []jsonrpc.Middleware{s.gate},
		Logger:     discard,
	})
	context.AfterFunc(ctx, func() {
		conn.Close()
		s.mu.Lock()
		if s.client != nil {
			conns.Add(-1)
		}
		s.mu.Unlock()
	})
}

// minimalRequest and minimalResponse are the minimal server's messages.
type minimalRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type minimalResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *minimalError   `json:"error,omitempty"`
}

type minimalError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// serveMinimal is what one would write by hand: newline-delimited JSON,
// one goroutine per connection, encoding/json, no framework, the same
// answers as the Supex runtime for hello and ping.
func serveMinimal(c net.Conn, conns *atomic.Int64) {
	defer c.Close()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	hello := false
	defer func() {
		if hello {
			conns.Add(-1)
		}
	}()
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var req minimalRequest
		resp := minimalResponse{JSONRPC: "2.0"}
		if err := json.Unmarshal(line, &req); err != nil {
			resp.Error = &minimalError{Code: -32700, Message: "Parse error"}
		} else {
			resp.ID = req.ID
			switch {
			case req.Method == supex.MethodHello:
				var p supex.HelloParams
				if err := json.Unmarshal(req.Params, &p); err != nil {
					resp.Error = &minimalError{Code: -32602, Message: "Invalid params"}
					break
				}
				if !hello {
					hello = true
					conns.Add(1)
				}
				resp.Result = supex.HelloResult{Success: true, Message: "Client identified",
					Server: supex.ServerInfo{Name: "supex-runtime", Version: "0.2.0"}}
			case !hello:
				resp.Error = &minimalError{Code: -32600, Message: "Client must identify with 'hello' method first"}
			case req.Method == supex.MethodPing:
				resp.Result = supex.PingResult{Status: "ok", Version: "0.2.0", Message: "Supex server is running"}
			default:
				resp.Error = &minimalError{Code: -32601, Message: "Method not found"}
			}
		}
		if req.ID == nil && resp.Error == nil {
			continue // a notification
		}
		b, err := json.Marshal(resp)
		if err != nil {
			return
		}
		w.Write(append(b, '\n')) // Flush reports it
		if w.Flush() != nil {
			return
		}
	}
}
