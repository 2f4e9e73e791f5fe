package full_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/gen/golang/internal/full"
	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// The methods of full.yaml whose params, result or kind take another form
// than one object; each records what its handler received in forms.

func (notes) Version(context.Context) (string, error) { return "1.2.3", nil }

func (n notes) ItemsList(_ context.Context, p *full.ItemsListParams) ([]full.Item, error) {
	n.forms <- p
	return []full.Item{}, nil
}

func (n notes) Sum(_ context.Context, p []int64) (int64, error) {
	var sum int64
	for _, x := range p {
		sum += x
	}
	return sum, nil
}

func (n notes) Upload(_ context.Context, p *full.Upload) (string, error) {
	if p.TextContents != nil {
		return "text " + p.TextContents.Text, nil
	}
	return "blob " + p.BlobContents.Blob, nil
}

func (n notes) Select(_ context.Context, p *full.SelectParams) (*full.ID, error) {
	n.forms <- p
	if p == nil {
		return nil, nil
	}
	return &p.ID, nil
}

func (n notes) StatusReport(_ context.Context, p *full.StatusReportParams) (*full.StatusReportResult, error) {
	n.forms <- p
	return &full.StatusReportResult{Seen: true}, nil
}

func (n notes) LogRaw(_ context.Context, p json.RawMessage) error {
	n.forms <- p
	return nil
}

// formsSession connects an editor and an agent over a pipe.
type formsSession struct {
	ag           *agent
	ed           *editor
	edConn       *jsonrpc.Conn
	agConn       *jsonrpc.Conn
	agentRemote  full.Agent
	editorRemote full.EditorRemote
	ctx          context.Context
}

func connectForms(t *testing.T, edOpts, agOpts jsonrpc.Options) *formsSession {
	t.Helper()
	a, b := net.Pipe()
	s := &formsSession{ag: &agent{notes: newNotes(), ready: true}, ed: &editor{notes: newNotes()}}
	var agConn *jsonrpc.Conn
	s.edConn, s.agentRemote = full.ConnectEditor(a, s.ed, edOpts)
	agConn, s.editorRemote = full.ConnectAgent(b, s.ag, agOpts)
	s.agConn = agConn
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	s.ctx = ctx
	t.Cleanup(func() {
		cancel()
		agConn.Close()
		s.edConn.Close()
	})
	return s
}

// wantInvalidParams checks that err is -32602 naming field.
func wantInvalidParams(t *testing.T, what string, err error, field string) {
	t.Helper()
	var rpcErr *jsonrpc.Error
	var data struct{ Field, Reason string }
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || json.Unmarshal(rpcErr.Data, &data) != nil || data.Field != field {
		t.Errorf("%s: %v, want -32602 naming %q", what, err, field)
	}
}

func TestParamsByPosition(t *testing.T) {
	s := connectForms(t, jsonrpc.Options{}, jsonrpc.Options{})
	if sum, err := s.agentRemote.Sum(s.ctx, []int64{1, 2, 3}); err != nil || sum != 6 {
		t.Errorf("sum = %d, %v", sum, err)
	}
	var sum int64
	if err := s.edConn.Call(s.ctx, full.MethodSum, json.RawMessage(`[]`), &sum); err != nil || sum != 0 {
		t.Errorf("sum of [] = %d, %v", sum, err)
	}
	wantInvalidParams(t, "sum without params", s.edConn.Call(s.ctx, full.MethodSum, nil, nil), "")
	wantInvalidParams(t, "sum of [1,\"x\"]", s.edConn.Call(s.ctx, full.MethodSum, json.RawMessage(`[1,"x"]`), nil), "[1]")
	wantInvalidParams(t, "sum by name", s.edConn.Call(s.ctx, full.MethodSum, json.RawMessage(`{"a":1}`), nil), "")
}

func TestOptionalParams(t *testing.T) {
	s := connectForms(t, jsonrpc.Options{}, jsonrpc.Options{})
	if items, err := s.agentRemote.ItemsList(s.ctx, nil); err != nil || items == nil {
		t.Errorf("items/list without params = %v, %v", items, err)
	}
	if p := <-s.ag.forms; p != (*full.ItemsListParams)(nil) {
		t.Errorf("handler got %v for absent params, want nil", p)
	}
	if _, err := s.agentRemote.ItemsList(s.ctx, &full.ItemsListParams{Cursor: "c1"}); err != nil {
		t.Fatal(err)
	}
	if p := (<-s.ag.forms).(*full.ItemsListParams); p == nil || p.Cursor != "c1" {
		t.Errorf("handler got %+v, want cursor c1", p)
	}
	// An optional any: nil is absent, a value arrives as sent.
	if err := s.editorRemote.LogRaw(s.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.editorRemote.LogRaw(s.ctx, json.RawMessage(`[1,{"a":true}]`)); err != nil {
		t.Fatal(err)
	}
	if p := (<-s.ed.forms).(json.RawMessage); p != nil {
		t.Errorf("log/raw without params: handler got %s, want nil", p)
	}
	if p := (<-s.ed.forms).(json.RawMessage); string(p) != `[1,{"a":true}]` {
		t.Errorf("log/raw: handler got %s", p)
	}
}

func TestNullableParams(t *testing.T) {
	s := connectForms(t, jsonrpc.Options{}, jsonrpc.Options{})
	// nil is sent as "params": null, which select accepts.
	if id, err := s.agentRemote.Select(s.ctx, nil); err != nil || id != nil {
		t.Errorf("select(null) = %v, %v", id, err)
	}
	if p := <-s.ag.forms; p != (*full.SelectParams)(nil) {
		t.Errorf("handler got %v for null params, want nil", p)
	}
	id, err := s.agentRemote.Select(s.ctx, &full.SelectParams{ID: full.NewID(int64(4))})
	if err != nil || id == nil || *id.Integer != 4 {
		t.Errorf("select(4) = %v, %v", id, err)
	}
	<-s.ag.forms
	// Leaving params out is not null: select requires them.
	wantInvalidParams(t, "select without params", s.edConn.Call(s.ctx, full.MethodSelect, nil, nil), "")
}

func TestUnionParams(t *testing.T) {
	s := connectForms(t, jsonrpc.Options{}, jsonrpc.Options{})
	for _, tc := range []struct {
		params full.Upload
		want   string
	}{
		{full.NewUpload(full.TextContents{URI: "file:///a", Text: "hi"}), "text hi"},
		{full.NewUpload(full.BlobContents{URI: "file:///b", Blob: "aGk="}), "blob aGk="},
	} {
		if got, err := s.agentRemote.Upload(s.ctx, &tc.params); err != nil || got != tc.want {
			t.Errorf("upload = %q, %v; want %q", got, err, tc.want)
		}
	}
	for _, raw := range []string{`{"uri":"file:///a"}`, `[]`} {
		err := s.edConn.Call(s.ctx, full.MethodUpload, json.RawMessage(raw), nil)
		if !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("upload %s: %v, want -32602", raw, err)
		}
	}
	wantInvalidParams(t, "upload without params", s.edConn.Call(s.ctx, full.MethodUpload, nil, nil), "")
}

func TestNullResult(t *testing.T) {
	s := connectForms(t, jsonrpc.Options{}, jsonrpc.Options{})
	if err := s.agentRemote.Shutdown(s.ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	// A peer answering shutdown with anything but null is reported.
	a, b := net.Pipe()
	peer := jsonrpc.NewConn(b, jsonrpc.Options{Framing: framing.ContentLength, Handler: jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) {
		return map[string]bool{"ok": true}, nil
	})})
	defer peer.Close()
	conn, agentRemote := full.ConnectEditor(a, nil, jsonrpc.Options{})
	defer conn.Close()
	err := agentRemote.Shutdown(s.ctx)
	if !errors.Is(err, jsonrpc.ErrUnexpectedResult) || !strings.Contains(err.Error(), `"shutdown" answered {"ok":true}`) {
		t.Errorf("shutdown answered with an object: %v, want ErrUnexpectedResult", err)
	}
}

func TestRequestOrNotification(t *testing.T) {
	s := connectForms(t, jsonrpc.Options{}, jsonrpc.Options{})
	res, err := s.editorRemote.StatusReport(s.ctx, &full.StatusReportParams{State: full.StateIdle})
	if err != nil || !res.Seen {
		t.Errorf("status/report as a request = %+v, %v", res, err)
	}
	if p := (<-s.ed.forms).(*full.StatusReportParams); p.State != full.StateIdle {
		t.Errorf("handler got %+v", p)
	}
	if err := s.editorRemote.NotifyStatusReport(s.ctx, &full.StatusReportParams{State: full.StateProcessing}); err != nil {
		t.Fatal(err)
	}
	if p := (<-s.ed.forms).(*full.StatusReportParams); p.State != full.StateProcessing {
		t.Errorf("handler got %+v from the notification", p)
	}
}

func TestIncludedMethod(t *testing.T) {
	s := connectForms(t, jsonrpc.Options{}, jsonrpc.Options{})
	for _, r := range []interface {
		Version(context.Context) (string, error)
	}{s.agentRemote, s.editorRemote} {
		if v, err := r.Version(s.ctx); err != nil || v != "1.2.3" {
			t.Errorf("version = %q, %v", v, err)
		}
	}
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestCancellationAndIgnoredNotifications(t *testing.T) {
	if _, ok := reflect.TypeFor[full.Agent]().MethodByName("CancelRequest"); ok {
		t.Error("the Agent interface has a method for $/cancelRequest, which the connection consumes")
	}
	if got := full.Options().IgnoreNotifications; !reflect.DeepEqual(got, []string{"$/"}) {
		t.Errorf("Options().IgnoreNotifications = %q", got)
	}
	for _, tc := range []struct {
		name   string
		ignore []string
		logged []string
		silent []string
	}{
		{"protocol default", nil, []string{"x/unknown"}, []string{"$/cancelRequest", "$/unknown"}},
		{"overridden", []string{}, []string{"x/unknown", "$/unknown"}, []string{"$/cancelRequest"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log syncBuffer
			s := connectForms(t, jsonrpc.Options{}, jsonrpc.Options{IgnoreNotifications: tc.ignore, Logger: slog.New(slog.NewTextHandler(&log, nil))})
			for _, n := range []struct {
				method string
				params any
			}{
				{"$/cancelRequest", map[string]any{"id": "99"}},
				{"$/unknown", map[string]any{}},
				{"x/unknown", nil},
			} {
				if err := s.edConn.Notify(s.ctx, n.method, n.params); err != nil {
					t.Fatal(err)
				}
			}
			// Notifications are handled in order: once blocks/show is, the
			// others were, and their failures logged.
			if err := s.agentRemote.BlocksShow(s.ctx, &full.BlocksShowParams{Blocks: []full.Block{}}); err != nil {
				t.Fatal(err)
			}
			<-s.ag.blocks
			text := log.String()
			for _, m := range tc.logged {
				if !strings.Contains(text, "method="+m) {
					t.Errorf("%s was not logged:\n%s", m, text)
				}
			}
			for _, m := range tc.silent {
				if strings.Contains(text, "method="+m) {
					t.Errorf("%s was logged:\n%s", m, text)
				}
			}
		})
	}
}

func TestFramingIsADefault(t *testing.T) {
	if full.Options().Framing != framing.ContentLength {
		t.Errorf("Options().Framing = %v, want the protocol's content-length", full.Options().Framing)
	}
	// Both sides override the protocol's framing with NDJSON.
	a, b := net.Pipe()
	agConn, _ := full.ConnectAgent(b, &agent{notes: newNotes(), ready: true}, jsonrpc.Options{Framing: framing.NDJSON})
	defer agConn.Close()
	raw := jsonrpc.NewConn(a, jsonrpc.Options{Framing: framing.NDJSON})
	defer raw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var v string
	if err := raw.Call(ctx, full.MethodVersion, nil, &v); err != nil || v != "1.2.3" {
		t.Errorf("version over NDJSON = %q, %v", v, err)
	}
}

func TestTransportDefaults(t *testing.T) {
	if got := full.DefaultCommand(); !reflect.DeepEqual(got, []string{"full-agent", "--stdio", "-v"}) {
		t.Errorf("DefaultCommand() = %q", got)
	}
	if full.DefaultTCPAddress != "localhost:7000" || full.DefaultUnixPath != "/tmp/full.sock" {
		t.Errorf("defaults %q, %q", full.DefaultTCPAddress, full.DefaultUnixPath)
	}
	// A caller overrides the default socket path with its own.
	path := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("no Unix sockets here: %v", err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := transport.Dial(ctx, "unix", path)
	if err != nil {
		t.Fatal(err)
	}
	edConn, agentRemote := full.ConnectEditor(c, nil, jsonrpc.Options{})
	defer edConn.Close()
	agConn, _ := full.ConnectAgent(<-accepted, &agent{notes: newNotes(), ready: true}, jsonrpc.Options{})
	defer agConn.Close()
	if v, err := agentRemote.Version(ctx); err != nil || v != "1.2.3" {
		t.Errorf("version over %s = %q, %v", path, v, err)
	}
}

func TestIdempotentRequests(t *testing.T) {
	idem := full.Options().Idempotent
	if idem == nil {
		t.Fatal("Options().Idempotent is nil; items/get is idempotent: true")
	}
	for method, want := range map[string]bool{full.MethodFetchItem: true, full.MethodInitialize: false, full.MethodShutdown: false, "unknown": false} {
		if got := idem(method); got != want {
			t.Errorf("Idempotent(%q) = %v, want %v", method, got, want)
		}
	}
}
