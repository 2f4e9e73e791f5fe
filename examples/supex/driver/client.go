package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/generated/supex"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// config is how the driver reaches the runtime.
type config struct {
	addr      string        // host:port
	timeout   time.Duration // per request; 0 keeps the protocol's 15s
	retries   int           // extra attempts to connect and say hello
	idle      time.Duration // drop the connection after this long unused
	maxResp   int           // largest answer accepted, in bytes
	token     string        // sent in hello when set
	agent     string
	workspace string
	log       *slog.Logger
}

// client is a jsonrpc.Caller that keeps one connection to the runtime,
// says hello on every new connection before anything else, and connects
// again after the idle timeout, a timeout or a connection error.
type client struct {
	cfg config
	r   *jsonrpc.Redialer

	mu     sync.Mutex
	hello  *jsonrpc.Conn // the connection hello succeeded on
	server supex.ServerInfo
}

func newClient(cfg config) *client {
	opts := supex.Options()
	opts.Logger = cfg.log
	opts.Limits.MaxMessageSize = cfg.maxResp
	if cfg.timeout > 0 {
		def := opts.Timeout
		opts.Timeout = func(method string) jsonrpc.Timeout {
			t := def(method) // keeps the protocol's action: close on timeout
			t.After = cfg.timeout
			return t
		}
	}
	return &client{cfg: cfg, r: &jsonrpc.Redialer{
		Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
			return transport.Dial(ctx, "tcp", cfg.addr)
		},
		Options:     opts,
		IdleTimeout: cfg.idle,
	}}
}

// Close drops the connection.
func (c *client) Close() error { return c.r.Close() }

// Call implements jsonrpc.Caller: it makes sure the connection has said
// hello, then calls. A call that changes nothing is tried again on a new
// connection when the runtime had closed the old one (upstream's runtime
// may close the socket after any request); other calls are not, since the
// runtime may have run them.
func (c *client) Call(ctx context.Context, method string, params, result any) error {
	for attempt := 0; ; attempt++ {
		if err := c.ensureHello(ctx); err != nil {
			return err
		}
		err := c.r.Call(ctx, method, params, result)
		if err == nil || attempt >= c.cfg.retries || !errors.Is(err, jsonrpc.ErrClosed) ||
			errors.Is(err, jsonrpc.ErrTimeout) || !readOnly(method, params) {
			return err
		}
		c.cfg.log.Debug("connection lost; calling again", "method", method, "error", err)
	}
}

// readOnly reports whether a request only reads, so running it twice is
// harmless.
func readOnly(method string, params any) bool {
	switch method {
	case supex.MethodPing, supex.MethodResourcesList:
		return true
	case supex.MethodToolsCall:
		p, ok := params.(*supex.ToolsCallParams)
		if !ok {
			return false
		}
		switch p.Name {
		case supex.ToolNamePing, supex.ToolNameGetModelInfo, supex.ToolNameListEntities,
			supex.ToolNameGetSelection, supex.ToolNameGetLayers, supex.ToolNameGetMaterials,
			supex.ToolNameGetCameraInfo, supex.ToolNameConsoleCaptureStatus:
			return true
		}
	}
	return false
}

// Notify implements jsonrpc.Caller.
func (c *client) Notify(ctx context.Context, method string, params any) error {
	if err := c.ensureHello(ctx); err != nil {
		return err
	}
	return c.r.Notify(ctx, method, params)
}

// ensureHello connects if needed and says hello on a new connection,
// trying again cfg.retries times, with growing pauses, when connecting
// fails. An error answer to hello (such as a wrong token) is final.
func (c *client) ensureHello(ctx context.Context) error {
	var last error
	for attempt := 0; attempt <= c.cfg.retries; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(time.Duration(100<<(attempt-1)) * time.Millisecond)
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("connecting to the runtime at %s: %w", c.cfg.addr, ctx.Err())
			case <-t.C:
			}
		}
		conn, err := c.r.Conn(ctx)
		if err != nil {
			last = err
			continue
		}
		c.mu.Lock()
		done := c.hello == conn
		c.mu.Unlock()
		if done {
			return nil
		}
		res, err := supex.NewRuntimeRemote(conn).Hello(ctx, c.helloParams())
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return fmt.Errorf("hello: %w", err)
		}
		if err != nil {
			last = err
			continue
		}
		c.cfg.log.Debug("connected", "addr", c.cfg.addr, "server", res.Server.Name, "version", res.Server.Version)
		c.mu.Lock()
		c.hello, c.server = conn, res.Server
		c.mu.Unlock()
		return nil
	}
	return fmt.Errorf("connecting to the runtime at %s: %w", c.cfg.addr, last)
}

func (c *client) helloParams() *supex.HelloParams {
	p := &supex.HelloParams{Name: "supex-go-driver", Version: "0.2.0", Agent: c.cfg.agent, Pid: int64(os.Getpid())}
	if c.cfg.token != "" {
		p.Token = &c.cfg.token
	}
	if c.cfg.workspace != "" {
		p.Workspace = &c.cfg.workspace
	}
	return p
}

// tool calls a tool with args (any JSON object, or nil) and returns its
// result.
func (c *client) tool(ctx context.Context, name supex.ToolName, args any) (*supex.ToolResult, error) {
	p := &supex.ToolsCallParams{Name: name}
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("encoding arguments of %s: %w", name, err)
		}
		if err := json.Unmarshal(b, &p.Arguments); err != nil {
			return nil, fmt.Errorf("arguments of %s must be a JSON object: %w", name, err)
		}
	}
	res, err := supex.NewRuntimeRemote(c).ToolsCall(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return res, nil
}

// addr returns host:port from the flags' values.
func addr(host, port string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	return net.JoinHostPort(host, port)
}
