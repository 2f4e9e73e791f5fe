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
	reuse     bool          // keep the connection across requests
	maxResp   int           // largest answer accepted, in bytes
	token     string        // sent in hello when set
	agent     string
	workspace string
	log       *slog.Logger
}

// client is a jsonrpc.Caller over a jsonrpc.Redialer that says hello on
// every new connection before anything else.
//
// Upstream's runtime closes the connection after answering any request
// but hello, and a request sent before its close arrives is lost, so by
// default the client ends each connection after one answer and the next
// request connects again. With reuse it keeps the connection, for a
// runtime that does too: the Redialer then connects again when the
// runtime closed it, and sends a request again when that cannot run it
// twice (it never left, or it is idempotent); the client adds the tools
// that only read.
type client struct {
	cfg config
	r   *jsonrpc.Redialer

	mu     sync.Mutex
	conn   *jsonrpc.Conn // the newest connection
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
	c := &client{cfg: cfg}
	c.r = &jsonrpc.Redialer{
		Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
			return transport.Dial(ctx, "tcp", cfg.addr)
		},
		Options:     opts,
		IdleTimeout: cfg.idle,
		OnConnect:   c.hello,
	}
	return c
}

// Close drops the connection.
func (c *client) Close() error { return c.r.Close() }

// hello identifies the client on a new connection.
func (c *client) hello(ctx context.Context, conn *jsonrpc.Conn) error {
	res, err := supex.NewRuntimeRemote(conn).Hello(ctx, c.helloParams())
	if err != nil {
		return fmt.Errorf("hello: %w", err)
	}
	c.cfg.log.Debug("connected", "addr", c.cfg.addr, "server", res.Server.Name, "version", res.Server.Version)
	c.mu.Lock()
	c.conn, c.server = conn, res.Server
	c.mu.Unlock()
	return nil
}

// Call implements jsonrpc.Caller: it connects (saying hello) if needed,
// then calls. A tool that only reads is called once more on a new
// connection when the runtime closed the connection under it.
func (c *client) Call(ctx context.Context, method string, params, result any) error {
	if err := c.connect(ctx); err != nil {
		return err
	}
	defer c.done()
	err := c.r.Call(ctx, method, params, result)
	if errors.Is(err, jsonrpc.ErrClosed) && !errors.Is(err, jsonrpc.ErrTimeout) && readOnlyTool(method, params) {
		c.cfg.log.Debug("connection lost; calling again", "method", method, "error", err)
		err = c.r.Call(ctx, method, params, result)
	}
	return err
}

// done ends the connection after an answer, unless connections are
// reused.
func (c *client) done() {
	if c.cfg.reuse {
		return
	}
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
}

// readOnlyTool reports whether a request calls a tool that only reads,
// so running it twice is harmless. (ping and resources/list are
// idempotent in the protocol itself.)
func readOnlyTool(method string, params any) bool {
	p, ok := params.(*supex.ToolsCallParams)
	if method != supex.MethodToolsCall || !ok {
		return false
	}
	switch p.Name {
	case supex.ToolNamePing, supex.ToolNameGetModelInfo, supex.ToolNameListEntities,
		supex.ToolNameGetSelection, supex.ToolNameGetLayers, supex.ToolNameGetMaterials,
		supex.ToolNameGetCameraInfo, supex.ToolNameConsoleCaptureStatus:
		return true
	}
	return false
}

// Notify implements jsonrpc.Caller.
func (c *client) Notify(ctx context.Context, method string, params any) error {
	if err := c.connect(ctx); err != nil {
		return err
	}
	return c.r.Notify(ctx, method, params)
}

// connect makes sure there is a connection that has said hello, trying
// again cfg.retries times, with growing pauses, when connecting fails. An
// error answer to hello (such as a wrong token) is final.
func (c *client) connect(ctx context.Context) error {
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
		_, err := c.r.Conn(ctx)
		if err == nil {
			return nil
		}
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return fmt.Errorf("connecting to the runtime at %s: %w", c.cfg.addr, err)
		}
		last = err
	}
	return fmt.Errorf("connecting to the runtime at %s: %w", c.cfg.addr, last)
}

func (c *client) helloParams() *supex.HelloParams {
	p := &supex.HelloParams{Name: "supex-go-driver", Version: "0.2.0", Agent: c.cfg.agent, Pid: int64(os.Getpid())}
	if c.cfg.token != "" {
		p.Token = c.cfg.token
	}
	if c.cfg.workspace != "" {
		p.Workspace = c.cfg.workspace
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
