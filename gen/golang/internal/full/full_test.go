package full_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/gen/golang/internal/full"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// notes records the notifications a peer received.
type notes struct {
	blocks chan *full.BlocksShowParams
	forms  chan any // params of the methods forms_test.go exercises
}

func newNotes() notes {
	return notes{make(chan *full.BlocksShowParams, 4), make(chan any, 8)}
}

func (n notes) BlocksShow(ctx context.Context, p *full.BlocksShowParams) error {
	n.blocks <- p
	return nil
}

func (notes) Ping(ctx context.Context) error { return nil }

type agent struct {
	notes
	ready bool
}

func (a *agent) Initialize(ctx context.Context, p *full.InitializeParams) (*full.InitializeResult, error) {
	if !a.ready {
		a.ready = true
		return nil, full.NewNotReadyError()
	}
	return &full.InitializeResult{State: full.StateIdle, Capabilities: map[string]bool{"blocks": p.ClientInfo != nil}}, nil
}

func (a *agent) Shutdown(ctx context.Context) error { return nil }

type editor struct {
	notes
	item full.Item
}

func (e *editor) FetchItem(ctx context.Context, p *full.FetchItemParams) (*full.Item, error) {
	if p.ID.String != nil && *p.ID.String == "taken" {
		return nil, full.NewConflictError(&e.item)
	}
	return &e.item, nil
}

func (e *editor) HoverShow(ctx context.Context, p *full.HoverShowParams) error { return nil }

// sampleItem sets nearly every field of Item, nested types included.
func sampleItem() full.Item {
	return full.Item{
		ID:         full.NewID("a1"),
		Name:       "pen",
		Count:      ptr.To[int64](2),
		Price:      ptr.To(0.5),
		Active:     ptr.To(false),
		Tags:       []string{"x", "ü"},
		Attributes: map[string]json.RawMessage{"k": json.RawMessage(`[1,{"a":null}]`)},
		Note:       nil,
		Alias:      ptr.To("p"),
		Color:      full.ColorForest,
		URL:        "https://example.com/p",
		Kind:       "item",
		Schema:     2,
		Pos:        &full.Position{Line: 3, Character: 4},
		Owner:      "u7",
		Settings:   &full.ItemSettings{Theme: full.ItemSettingsTheme("dark"), Size: &full.Dimensions{Width: 1, Height: 2.5}},
		History:    []full.ItemHistoryItem{{At: "2026-11-22T10:00:00Z", State: full.StateProcessing}},
		Matrix:     [][]float64{{1, 2}, {3}},
		Grouped:    map[string][]full.Position{"g": {{Line: 1}}},
		Either:     jsonrpc.Some(full.NewItemEither(int64(9))),
		Raw:        json.RawMessage(`{"free":true}`),
		Priority:   ptr.To(full.PriorityMinus1),
		Contents: []full.Contents{
			full.NewContents(full.TextContents{URI: "file:///a", MimeType: "text/plain", Text: "hi"}),
			full.NewContents(full.BlobContents{URI: "file:///b", Blob: "aGk="}),
			full.NewContents("file:///c"),
		},
	}
}

func TestEveryMethodOfTheFullFeatureIDL(t *testing.T) {
	a, b := net.Pipe()
	ag := &agent{notes: newNotes()}
	ed := &editor{notes: newNotes(), item: sampleItem()}
	edConn, agentRemote := full.ConnectEditor(a, ed, jsonrpc.Options{})
	agConn, editorRemote := full.ConnectAgent(b, ag, jsonrpc.Options{})
	defer agConn.Close()
	defer edConn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// full.initialize: an IDL error first, then a result.
	if _, err := agentRemote.Initialize(ctx, &full.InitializeParams{Version: "1.0"}); !errors.Is(err, full.ErrNotReady) {
		t.Errorf("first initialize: %v, want ErrNotReady", err)
	}
	res, err := agentRemote.Initialize(ctx, &full.InitializeParams{Version: "1.0", ClientInfo: &full.InitializeParamsClientInfo{Name: "ed"}})
	if err != nil || res.State != full.StateIdle || !res.Capabilities["blocks"] {
		t.Errorf("initialize = %+v, %v", res, err)
	}

	// items/get (agent -> editor): every field survives the round trip.
	item, err := editorRemote.FetchItem(ctx, &full.FetchItemParams{ID: full.NewID("a1")})
	if err != nil {
		t.Fatalf("items/get: %v", err)
	}
	if want := sampleItem(); !reflect.DeepEqual(*item, want) {
		t.Errorf("items/get round trip:\n got %+v\nwant %+v", *item, want)
	}
	// An error whose data is an Item.
	_, err = editorRemote.FetchItem(ctx, &full.FetchItemParams{ID: full.NewID("taken")})
	var rpcErr *jsonrpc.Error
	if !errors.Is(err, full.ErrConflict) || !errors.As(err, &rpcErr) {
		t.Fatalf("items/get taken: %v, want ErrConflict", err)
	}
	var data full.Item
	if err := json.Unmarshal(rpcErr.Data, &data); err != nil || data.Name != "pen" {
		t.Errorf("Conflict data = %s (%v)", rpcErr.Data, err)
	}

	// blocks/show both ways, with a union array and an integer enum.
	show := &full.BlocksShowParams{
		Blocks:   []full.Block{full.NewBlock(full.TextBlock{Text: "hi"}), full.NewBlock(full.BlockImage{Data: "aGk="})},
		Severity: full.SeverityWarning,
	}
	if err := agentRemote.BlocksShow(ctx, show); err != nil {
		t.Fatal(err)
	}
	if err := editorRemote.BlocksShow(ctx, show); err != nil {
		t.Fatal(err)
	}
	for _, got := range []*full.BlocksShowParams{<-ag.blocks, <-ed.blocks} {
		if len(got.Blocks) != 2 || got.Blocks[0].Text == nil || got.Blocks[0].Text.Text != "hi" || got.Blocks[1].Image == nil || got.Severity != full.SeverityWarning {
			t.Errorf("blocks/show received %+v", got)
		}
	}

	// ping both ways.
	if err := agentRemote.Ping(ctx); err != nil {
		t.Errorf("ping agent: %v", err)
	}
	if err := editorRemote.Ping(ctx); err != nil {
		t.Errorf("ping editor: %v", err)
	}

	// shutdown last.
	if err := agentRemote.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

func TestInvalidParamsNameTheFieldOfFullTypes(t *testing.T) {
	a, b := net.Pipe()
	edConn, _ := full.ConnectEditor(a, nil, jsonrpc.Options{})
	agConn, _ := full.ConnectAgent(b, &agent{notes: newNotes(), ready: true}, jsonrpc.Options{})
	defer agConn.Close()
	defer edConn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tc := range []struct {
		params string
		field  string
	}{
		{`{}`, "version"},
		{`{"version":"1","clientInfo":{}}`, "clientInfo.name"},
		{`{"version":1}`, "version"},
		{`{"version":"1","edits":{"range":[1,"x"]}}`, "edits.range[1]"},
		{`{"version":"1","edits":{"move":[1]}}`, "edits.move"},
		{`{"version":"1","edits":{"byLine":{"x":"red"}}}`, "edits.byLine.x"},
		{`{"version":"1","edits":{"bySeverity":{"7":"x"}}}`, "edits.bySeverity.7"},
	} {
		err := edConn.Call(ctx, full.MethodInitialize, json.RawMessage(tc.params), nil)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("params %s: %v, want -32602", tc.params, err)
			continue
		}
		var raw struct {
			Field string `json:"field"`
		}
		if json.Unmarshal(rpcErr.Data, &raw) != nil || raw.Field != tc.field {
			t.Errorf("params %s: data %s, want field %q", tc.params, rpcErr.Data, tc.field)
		}
	}
}

func TestStrictModeRejectsUnknownMembersOfGeneratedTypes(t *testing.T) {
	a, b := net.Pipe()
	// A notification gets no answer: the middleware reports what the
	// handler returned.
	handled := make(chan error, 8)
	record := func(next jsonrpc.Handler) jsonrpc.Handler {
		return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			res, err := next.Handle(ctx, req)
			if req.IsNotification() {
				handled <- err
			}
			return res, err
		})
	}
	edConn, _ := full.ConnectEditor(a, nil, jsonrpc.Options{})
	agConn, _ := full.ConnectAgent(b, &agent{notes: newNotes(), ready: true}, jsonrpc.Options{DisallowUnknownFields: true, Middleware: []jsonrpc.Middleware{record}})
	defer agConn.Close()
	defer edConn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tc := range []struct {
		method, params, field string
	}{
		{full.MethodInitialize, `{"version":"1","extra":1}`, "extra"},
		{full.MethodInitialize, `{"version":"1","clientInfo":{"name":"e","extra":1}}`, "clientInfo.extra"},
		{full.MethodBlocksShow, `{"blocks":[{"type":"text","text":"hi"},{"type":"image","data":"aGk=","extra":1}]}`, "blocks[1].extra"},
		{full.MethodBlocksShow, `{"blocks":[{"type":"text","text":"hi"}]}`, ""},
		{full.MethodInitialize, `{"version":"1","clientInfo":{"name":"e"}}`, ""},
	} {
		var err error
		if tc.method == full.MethodBlocksShow {
			if err := edConn.Notify(ctx, tc.method, json.RawMessage(tc.params)); err != nil {
				t.Fatal(err)
			}
			err = <-handled
		} else {
			err = edConn.Call(ctx, tc.method, json.RawMessage(tc.params), nil)
		}
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s %s: %v", tc.method, tc.params, err)
			}
			continue
		}
		var rpcErr *jsonrpc.Error
		var raw struct{ Field, Reason string }
		if !errors.As(err, &rpcErr) || json.Unmarshal(rpcErr.Data, &raw) != nil || raw.Field != tc.field || raw.Reason != "unknown field" {
			t.Errorf("%s %s: %v, want unknown field %q", tc.method, tc.params, err, tc.field)
		}
	}
}

// countingAgent answers initialize with additional members and records
// the metadata it received.
type countingAgent struct {
	agent
	meta chan full.Meta
}

func (a *countingAgent) Initialize(ctx context.Context, p *full.InitializeParams) (*full.InitializeResult, error) {
	if p.Meta != nil {
		a.meta <- *p.Meta
	}
	return &full.InitializeResult{State: full.StateIdle, Capabilities: map[string]bool{}, Extra: jsonrpc.Members[int64]{{Name: "sessions", Value: 3}, {Name: "restarts", Value: 0}}}, nil
}

func TestAdditionalMembersCrossTheWire(t *testing.T) {
	a, b := net.Pipe()
	ag := &countingAgent{agent: agent{notes: newNotes(), ready: true}, meta: make(chan full.Meta, 1)}
	edConn, agentRemote := full.ConnectEditor(a, nil, jsonrpc.Options{})
	agConn, _ := full.ConnectAgent(b, ag, jsonrpc.Options{DisallowUnknownFields: true})
	defer agConn.Close()
	defer edConn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	meta := full.Meta{Extra: jsonrpc.Members[json.RawMessage]{{Name: "trace", Value: json.RawMessage(`{"id":"t1","hops":[1,2]}`)}, {Name: "flag", Value: json.RawMessage(`true`)}}}
	res, err := agentRemote.Initialize(ctx, &full.InitializeParams{Version: "1", Meta: &meta})
	if err != nil {
		t.Fatal(err)
	}
	if got := <-ag.meta; !reflect.DeepEqual(got, meta) {
		t.Errorf("agent received meta %+v, want %+v (strict mode must accept kept members)", got, meta)
	}
	if want := (jsonrpc.Members[int64]{{Name: "sessions", Value: 3}, {Name: "restarts", Value: 0}}); !reflect.DeepEqual(res.Extra, want) {
		t.Errorf("result extra = %v, want %v", res.Extra, want)
	}

	// Encoding: declared members first, then the kept ones in their
	// order; a kept member named like a declared one is left out.
	out, err := json.Marshal(full.InitializeResult{State: full.StateIdle, Capabilities: map[string]bool{}, Extra: jsonrpc.Members[int64]{{Name: "b", Value: 2}, {Name: "state", Value: 9}, {Name: "a", Value: 1}}})
	if err != nil || string(out) != `{"state":"idle","capabilities":{},"b":2,"a":1}` {
		t.Errorf("encoded %s (%v)", out, err)
	}
	// A kept member of the wrong type is named.
	var r full.InitializeResult
	err = json.Unmarshal([]byte(`{"state":"idle","capabilities":{},"sessions":"three"}`), &r)
	var fe *jsonrpc.FieldError
	if !errors.As(err, &fe) || fe.Field != "sessions" {
		t.Errorf("wrong additional member: %v, want a FieldError for sessions", err)
	}
}
