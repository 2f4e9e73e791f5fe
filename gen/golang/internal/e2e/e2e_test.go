package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rpcgen/rpcgen/gen/golang/internal/e2e"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// plugin implements e2e.Plugin, reporting notifications on channels.
type plugin struct {
	e2e.UnimplementedPlugin
	logs    chan *e2e.LogParams
	closing chan struct{}
}

func (p *plugin) Initialize(_ context.Context, params *e2e.InitializeParams) (*e2e.InitializeResult, error) {
	if params.Mode == e2e.ModeCareful {
		return nil, e2e.NewNotReadyError()
	}
	name := "plugin " + params.Version
	if params.ClientInfo != nil {
		name += " for " + params.ClientInfo.Name
	}
	return &e2e.InitializeResult{
		Name: name,
		Shapes: []e2e.Shape{
			e2e.NewShape(e2e.Circle{Radius: 1}),
			e2e.NewShape(e2e.ShapeRect{Width: 2, Height: 3}),
		},
	}, nil
}

func (p *plugin) Slow(ctx context.Context, params *e2e.SlowParams) error {
	t := time.NewTimer(time.Duration(params.DelayMs) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *plugin) Work(context.Context) error {
	return e2e.NewBusyError(&e2e.BusyData{RetryAfterMs: 250})
}

func (p *plugin) Log(_ context.Context, params *e2e.LogParams) error {
	p.logs <- params
	return nil
}

func (p *plugin) Ping(context.Context) error { return nil }

func (p *plugin) Closing(context.Context) error {
	p.closing <- struct{}{}
	return nil
}

// host implements e2e.Host.
type host struct {
	e2e.UnimplementedHost
	progress chan float64
	closing  chan struct{}
}

func (h *host) Echo(_ context.Context, params *e2e.EchoParams) (*e2e.EchoResult, error) {
	r := e2e.EchoResult(*params)
	return &r, nil
}

func (h *host) Now(context.Context) (string, error) { return "2025-01-02T03:04:05Z", nil }

func (h *host) Progress(_ context.Context, params *e2e.ProgressParams) error {
	h.progress <- params.Percent
	return nil
}

func (h *host) Ping(context.Context) error { return nil }

func (h *host) Closing(context.Context) error {
	h.closing <- struct{}{}
	return nil
}

// session is a host and a plugin connected over an in-memory pipe.
type session struct {
	hostConn, pluginConn *jsonrpc.Conn
	plugin               e2e.Plugin // the plugin, as the host calls it
	host                 e2e.Host   // the host, as the plugin calls it
	p                    *plugin
	h                    *host
}

func connect(t *testing.T) *session {
	t.Helper()
	a, b := net.Pipe()
	s := &session{
		p: &plugin{logs: make(chan *e2e.LogParams, 1), closing: make(chan struct{}, 1)},
		h: &host{progress: make(chan float64, 1), closing: make(chan struct{}, 1)},
	}
	s.hostConn, s.plugin = e2e.ConnectHost(a, s.h, jsonrpc.Options{})
	s.pluginConn, s.host = e2e.ConnectPlugin(b, s.p, jsonrpc.Options{})
	t.Cleanup(func() {
		s.hostConn.Close()
		s.pluginConn.Close()
	})
	return s
}

// bounded returns a context with a generous deadline of its own, which
// replaces the protocol's default timeouts (slow's is 100ms): a call made
// with it fails on a hang, never because a loaded machine is slow.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func receive[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("nothing received")
	}
	var zero T
	return zero
}

func TestHostCallsPlugin(t *testing.T) {
	s := connect(t)
	ctx := bounded(t)

	res, err := s.plugin.Initialize(ctx, &e2e.InitializeParams{
		Version:    "1.0",
		Mode:       e2e.ModeFast,
		ClientInfo: &e2e.InitializeParamsClientInfo{Name: "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Name != "plugin 1.0 for test" {
		t.Errorf("name %q", res.Name)
	}
	if len(res.Shapes) != 2 || res.Shapes[0].Circle == nil || res.Shapes[0].Circle.Radius != 1 ||
		res.Shapes[1].Rect == nil || res.Shapes[1].Rect.Height != 3 || res.Shapes[1].Rect.Kind != "rect" {
		t.Errorf("shapes %+v", res.Shapes)
	}

	if err := s.plugin.Slow(ctx, &e2e.SlowParams{DelayMs: 1}); err != nil {
		t.Errorf("slow: %v", err)
	}
	if err := s.plugin.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
	if err := s.plugin.Log(ctx, &e2e.LogParams{Level: e2e.LevelWarn, Message: "careful"}); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, s.p.logs); got.Level != e2e.LevelWarn || got.Message != "careful" {
		t.Errorf("log %+v", got)
	}
	// An open enum carries a topic it does not list.
	deploy := e2e.Topic("deploy")
	if err := s.plugin.Log(ctx, &e2e.LogParams{Level: e2e.LevelInfo, Message: "up", Topic: deploy}); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, s.p.logs); got.Topic != deploy || got.Topic.Valid() {
		t.Errorf("log with an unlisted topic: %+v", got)
	}
	if err := s.plugin.Closing(ctx); err != nil {
		t.Fatal(err)
	}
	receive(t, s.p.closing)
}

func TestPluginCallsHost(t *testing.T) {
	s := connect(t)
	ctx := bounded(t)

	note := "hello"
	text := e2e.NewResource(e2e.TextResource{URI: "file:///a", Text: "hi"})
	blob := e2e.NewResource(e2e.BlobResource{URI: "file:///b", Blob: "aGk="})
	for _, params := range []e2e.EchoParams{
		{Shape: e2e.NewShape(e2e.Circle{Radius: 2.5}), ID: e2e.NewID(int64(7)), Note: jsonrpc.Some(note), Resource: text},
		{Shape: e2e.NewShape(e2e.ShapeRect{Width: 1, Height: 2}), ID: e2e.NewID("x"), Resource: blob},
	} {
		res, err := s.host.Echo(ctx, &params)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(params)
		got, _ := json.Marshal(res)
		if string(got) != string(want) {
			t.Errorf("echo: got %s, want %s", got, want)
		}
	}

	now, err := s.host.Now(ctx)
	if err != nil || now != "2025-01-02T03:04:05Z" {
		t.Errorf("now: %q, %v", now, err)
	}
	if err := s.host.Progress(ctx, &e2e.ProgressParams{Percent: 42}); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, s.h.progress); got != 42 {
		t.Errorf("progress %v", got)
	}
	if err := s.host.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
	if err := s.host.Closing(ctx); err != nil {
		t.Fatal(err)
	}
	receive(t, s.h.closing)
}

func TestErrors(t *testing.T) {
	s := connect(t)
	ctx := bounded(t)

	err := s.plugin.Work(ctx)
	if !errors.Is(err, e2e.ErrBusy) || errors.Is(err, e2e.ErrNotReady) {
		t.Fatalf("work: %v; want ErrBusy", err)
	}
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != e2e.CodeBusy || rpcErr.Message != "Busy" {
		t.Fatalf("work: %#v", err)
	}
	var data e2e.BusyData
	if err := json.Unmarshal(rpcErr.Data, &data); err != nil || data.RetryAfterMs != 250 {
		t.Errorf("data %s: %+v, %v", rpcErr.Data, data, err)
	}

	_, err = s.plugin.Initialize(ctx, &e2e.InitializeParams{Version: "1", Mode: e2e.ModeCareful})
	if !errors.Is(err, e2e.ErrNotReady) {
		t.Errorf("initialize: %v; want ErrNotReady", err)
	}

	// The host implements nothing of its own but Echo, Now, Progress,
	// Ping and Closing: a plugin that implements nothing answers -32601.
	a, b := net.Pipe()
	conn, remote := e2e.ConnectHost(a, nil, jsonrpc.Options{})
	other, _ := e2e.ConnectPlugin(b, e2e.UnimplementedPlugin{}, jsonrpc.Options{})
	defer other.Close()
	defer conn.Close()
	if err := remote.Ping(ctx); !errors.Is(err, jsonrpc.ErrMethodNotFound) {
		t.Errorf("ping of an unimplemented plugin: %v", err)
	}
	if err := remote.Log(ctx, &e2e.LogParams{Level: e2e.LevelInfo}); err != nil {
		t.Errorf("log: %v", err)
	}
	err = conn.Call(ctx, "nope", nil, nil)
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeMethodNotFound || string(rpcErr.Data) != `{"method":"nope"}` {
		t.Errorf("unknown method: %v", err)
	}
}

func TestInvalidParams(t *testing.T) {
	s := connect(t)
	ctx := bounded(t)
	long := strings.Repeat("x", 10_000)
	cut := strings.Repeat("x", jsonrpc.MaxEchoBytes) + "… (10000 bytes)"
	tests := []struct {
		conn   *jsonrpc.Conn
		method string
		params string
		field  string
		reason string
	}{
		{s.hostConn, e2e.MethodInitialize, `{"version":"1","mode":"reckless"}`, "mode", `unknown value "reckless"; want "fast" or "careful"`},
		{s.hostConn, e2e.MethodInitialize, `{"mode":"fast"}`, "version", "required field is missing"},
		{s.hostConn, e2e.MethodInitialize, `{"version":null,"mode":"fast"}`, "version", "must not be null"},
		{s.hostConn, e2e.MethodInitialize, `{"version":1,"mode":"fast"}`, "version", "expected string, got JSON number"},
		{s.hostConn, e2e.MethodInitialize, `{"version":"1","mode":"fast","clientInfo":{}}`, "clientInfo.name", "required field is missing"},
		{s.hostConn, e2e.MethodInitialize, `[1]`, "", ""},
		{s.hostConn, e2e.MethodSlow, `{"delayMs":1.5}`, "delayMs", ""},
		{s.hostConn, e2e.MethodSlow, `{"delayMs":1,"attempt":0}`, "attempt", "0 is below the minimum 1"},
		{s.hostConn, e2e.MethodSlow, `{"delayMs":1,"attempt":2147483648}`, "attempt", "2147483648 is above the maximum 2147483647"},
		{s.pluginConn, e2e.MethodProgress, `{"percent":100.5}`, "percent", "100.5 is above the maximum 100"},
		{s.pluginConn, e2e.MethodProgress, `{"percent":-1}`, "percent", "-1 is below the minimum 0"},
		{s.pluginConn, e2e.MethodEcho, `{"shape":{"kind":"hexagon"},"id":1}`, "shape.kind", `unknown value "hexagon"; want "circle" or "rect"`},
		// A long value from the peer is echoed truncated.
		{s.hostConn, e2e.MethodInitialize, `{"version":"1","mode":"` + long + `"}`, "mode", `unknown value "` + cut + `"; want "fast" or "careful"`},
		{s.pluginConn, e2e.MethodEcho, `{"shape":{"kind":"` + long + `"},"id":1}`, "shape.kind", `unknown value "` + cut + `"; want "circle" or "rect"`},
		{s.pluginConn, e2e.MethodEcho, `{"shape":{"kind":"rect","width":1},"id":1}`, "shape.height", "required field is missing"},
		{s.pluginConn, e2e.MethodEcho, `{"shape":{"radius":1},"id":1}`, "shape.kind", "required field is missing"},
		{s.pluginConn, e2e.MethodEcho, `{"shape":{"kind":"circle","radius":1},"id":true}`, "id", "expected number or string, got JSON boolean"},
		{s.pluginConn, e2e.MethodEcho, `{"shape":{"kind":"circle","radius":1},"id":1,"resource":{"uri":"a"}}`, "resource",
			`object matches no variant of Resource; an object needs every required member of one variant: TextResource ("uri", "text") or BlobResource ("uri", "blob")`},
		// Both variants match and explain as much: the first listed is
		// chosen by the members present, and its text does not decode.
		{s.pluginConn, e2e.MethodEcho, `{"shape":{"kind":"circle","radius":1},"id":1,"resource":{"uri":"a","text":5,"blob":"aGk="}}`, "resource.text", "expected string, got JSON number"},
		{s.pluginConn, e2e.MethodEcho, `{"shape":{"kind":"circle","radius":1},"id":1,"resource":{"blob":"aGk="}}`, "resource",
			`object matches no variant of Resource; an object needs every required member of one variant: TextResource ("uri", "text") or BlobResource ("uri", "blob")`},
		{s.pluginConn, e2e.MethodEcho, `{"shape":{"kind":"circle","radius":1},"id":1,"resource":"a"}`, "resource", "expected object, got JSON string"},
	}
	for _, tt := range tests {
		err := tt.conn.Call(ctx, tt.method, json.RawMessage(tt.params), nil)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s %s: %v; want -32602", tt.method, tt.params, err)
			continue
		}
		var data struct{ Field, Reason string }
		if err := json.Unmarshal(rpcErr.Data, &data); err != nil {
			t.Errorf("%s %s: data %s: %v", tt.method, tt.params, rpcErr.Data, err)
			continue
		}
		if data.Field != tt.field || tt.reason != "" && data.Reason != tt.reason {
			t.Errorf("%s %s: data %s; want field %q, reason %q", tt.method, tt.params, rpcErr.Data, tt.field, tt.reason)
		}
	}
}

func TestTimeout(t *testing.T) {
	s := connect(t)
	err := s.plugin.Slow(context.Background(), &e2e.SlowParams{DelayMs: 10_000})
	// The error names the timeout that fired: the IDL's 100ms for slow,
	// however long the machine took to get there.
	var te *jsonrpc.TimeoutError
	if !errors.Is(err, jsonrpc.ErrTimeout) || !errors.As(err, &te) || te.Method != e2e.MethodSlow || te.Timeout != 100*time.Millisecond {
		t.Fatalf("slow: %v; want the 100ms timeout", err)
	}
	// The connection carries on (on_timeout action: error).
	if err := s.plugin.Ping(bounded(t)); err != nil {
		t.Errorf("ping after the timeout: %v", err)
	}
}

func TestUnion(t *testing.T) {
	var s e2e.Shape
	if err := json.Unmarshal([]byte(`{"width":2,"kind":"rect","height":3}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.Circle != nil || s.Rect == nil || *s.Rect != (e2e.ShapeRect{Kind: "rect", Width: 2, Height: 3}) {
		t.Errorf("decoded %+v", s)
	}
	b, err := json.Marshal(s)
	if err != nil || string(b) != `{"kind":"rect","width":2,"height":3}` {
		t.Errorf("encoded %s, %v", b, err)
	}
	if _, err := json.Marshal(e2e.Shape{}); err == nil {
		t.Error("an empty union encoded without error")
	}
	if _, err := json.Marshal(e2e.NewShape(e2e.Circle{Kind: "square"})); err == nil {
		t.Error("a wrong constant encoded without error")
	}
	var res e2e.InitializeResult
	err = json.Unmarshal([]byte(`{"name":"x","shapes":[{"kind":"circle","radius":1},{"kind":"oval"}]}`), &res)
	var fe *jsonrpc.FieldError
	if !errors.As(err, &fe) || fe.Field != "shapes[1].kind" {
		t.Errorf("decoding a bad union in a list: %v; want an error at shapes[1].kind", err)
	}
	var id e2e.ID
	if err := json.Unmarshal([]byte(`"abc"`), &id); err != nil || id.String == nil || *id.String != "abc" || id.Integer != nil {
		t.Errorf("id %+v, %v", id, err)
	}
}

// TestUnionOfObjects decodes each object variant of Resource by its
// distinguishing member, wherever the member comes, and encodes it back.
func TestUnionOfObjects(t *testing.T) {
	for _, tc := range []struct {
		wire string
		text bool
	}{
		{`{"uri":"file:///a","text":"hi","mimeType":"text/plain"}`, true},
		{`{"text":"hi","uri":"file:///a"}`, true},
		{`{"uri":"file:///b","blob":"aGk="}`, false},
	} {
		var r e2e.Resource
		if err := json.Unmarshal([]byte(tc.wire), &r); err != nil {
			t.Errorf("%s: %v", tc.wire, err)
			continue
		}
		if (r.TextResource != nil) != tc.text || (r.BlobResource != nil) == tc.text {
			t.Errorf("%s decoded as %+v", tc.wire, r)
		}
		back, err := json.Marshal(r)
		if err != nil {
			t.Errorf("%s: %v", tc.wire, err)
		}
		var again e2e.Resource
		if err := json.Unmarshal(back, &again); err != nil || !reflect.DeepEqual(again, r) {
			t.Errorf("%s: re-encoded as %s, decoded as %+v (%v)", tc.wire, back, again, err)
		}
	}
	// Both variants match with two members explained: the first listed
	// wins, and the other member is ignored, as unknown members are.
	var r e2e.Resource
	if err := json.Unmarshal([]byte(`{"uri":"a","text":"x","blob":"y"}`), &r); err != nil || r.TextResource == nil || r.TextResource.Text != "x" {
		t.Errorf("both members: %+v, %v", r, err)
	}
}

func TestOptions(t *testing.T) {
	opts := e2e.Options()
	if opts.Framing.Name() != "content-length" || opts.IDs != jsonrpc.StringIDs || opts.Cancellation != jsonrpc.CancelLSP {
		t.Errorf("options %+v", opts)
	}
	for method, want := range map[string]time.Duration{
		e2e.MethodInitialize: 2 * time.Second,
		e2e.MethodSlow:       100 * time.Millisecond,
		e2e.MethodPing:       5 * time.Second,
	} {
		if got := opts.Timeout(method); got.After != want || got.Action != jsonrpc.TimeoutFail {
			t.Errorf("timeout of %s: %+v; want %v", method, got, want)
		}
	}
}
