package full_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/gen/golang/internal/full"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// MarksSet answers with the number of marks and the kinds they hold.
func (a *agent) MarksSet(ctx context.Context, p *full.MarksSetParams) (*full.MarksSetResult, error) {
	res := &full.MarksSetResult{Count: uint32(1 + len(p.Marks))}
	for _, m := range append([]full.Mark{p.Mark}, p.Marks...) {
		if m.Kind != "" {
			res.Kinds = append(res.Kinds, m.Kind)
		}
	}
	return res, nil
}

func TestBoundsAndWidthsAreEnforcedOnDecode(t *testing.T) {
	a, b := net.Pipe()
	edConn, agentRemote := full.ConnectEditor(a, nil, jsonrpc.Options{})
	agConn, _ := full.ConnectAgent(b, &agent{notes: newNotes(), ready: true}, jsonrpc.Options{})
	defer agConn.Close()
	defer edConn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// Every bound reached exactly, and values the open enums do not list.
	in := `{"mark":{"line":4294967295,"column":1000,"delta":-2147483648,"weight":1,"ratio":0,"retries":10,"offset":-1000,"offsets":[-5,5],"kind":"rename","level":7,"amount":2147483647}}`
	var res full.MarksSetResult
	if err := edConn.Call(ctx, full.MethodMarksSet, json.RawMessage(in), &res); err != nil {
		t.Fatalf("in-range params: %v", err)
	}
	if res.Count != 1 || len(res.Kinds) != 1 || res.Kinds[0] != "rename" {
		t.Errorf("result = %+v", res)
	}

	for _, tc := range []struct{ mark, field, reason string }{
		{`{"line":4294967296,"column":0}`, "mark.line", "4294967296 is above the maximum 4294967295"},
		{`{"line":-1,"column":0}`, "mark.line", "-1 is below the minimum 0"},
		{`{"line":0,"column":1001}`, "mark.column", "1001 is above the maximum 1000"},
		{`{"line":0,"column":0,"delta":2147483648}`, "mark.delta", "2147483648 is above the maximum 2147483647"},
		{`{"line":0,"column":0,"weight":1.5}`, "mark.weight", "1.5 is above the maximum 1"},
		{`{"line":0,"column":0,"ratio":-0.1}`, "mark.ratio", "-0.1 is below the minimum 0"},
		{`{"line":0,"column":0,"retries":11}`, "mark.retries", "11 is above the maximum 10"},
		{`{"line":0,"column":0,"offset":-1001}`, "mark.offset", "-1001 is below the minimum -1000"},
		{`{"line":0,"column":0,"offsets":[0,6]}`, "mark.offsets[1]", "6 is above the maximum 5"},
		{`{"line":0,"column":0,"level":-1}`, "mark.level", "-1 is below the minimum 0"},
		{`{"line":0,"column":0,"kind":7}`, "mark.kind", "expected string, got JSON number"},
		{`{"line":0,"column":0,"severity":3}`, "mark.severity", "unknown value 3; want 1 or 2"},
		{`{"line":0,"column":0,"amount":-1}`, "mark.amount", "-1 is below the minimum 0"},
		{`{"line":0,"column":0,"amount":2147483648}`, "mark.amount", "2147483648 is above the maximum 2147483647"},
	} {
		params := `{"mark":` + tc.mark + `}`
		err := edConn.Call(ctx, full.MethodMarksSet, json.RawMessage(params), nil)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("params %s: %v, want -32602", params, err)
			continue
		}
		var fe jsonrpc.FieldError
		if err := json.Unmarshal(rpcErr.Data, &struct {
			Field  *string `json:"field"`
			Reason *string `json:"reason"`
		}{&fe.Field, &fe.Reason}); err != nil || fe.Field != tc.field || fe.Reason != tc.reason {
			t.Errorf("params %s: data %s, want %s: %s", params, rpcErr.Data, tc.field, tc.reason)
		}
	}

	// The remote stub carries the widths through.
	got, err := agentRemote.MarksSet(ctx, &full.MarksSetParams{Mark: full.Mark{Line: 7, Column: 8}, Marks: []full.Mark{{}, {}}})
	if err != nil || got.Count != 3 {
		t.Errorf("MarksSet = %+v, %v", got, err)
	}
}

func TestOpenEnumsKeepUnknownValues(t *testing.T) {
	in := `{"line":1,"column":2,"kind":"source.organizeImports","level":42}`
	var m full.Mark
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if m.Kind != "source.organizeImports" || m.Kind.Valid() || *m.Level != 42 || m.Level.Valid() {
		t.Errorf("decoded kind %q (valid %v), level %d (valid %v)", m.Kind, m.Kind.Valid(), *m.Level, m.Level.Valid())
	}
	out, err := json.Marshal(m)
	if err != nil || string(out) != in {
		t.Errorf("json.Marshal = %s, %v; want %s", out, err, in)
	}
	appended, err := m.AppendJSON(nil)
	if err != nil || string(appended) != in {
		t.Errorf("AppendJSON = %s, %v; want %s", appended, err, in)
	}
	known := full.Mark{Kind: full.ActionKindQuickfix, Level: ptr.To(full.LevelHigh)}
	if !known.Kind.Valid() || !known.Level.Valid() {
		t.Error("known values are not Valid")
	}
	// A closed enum still refuses a value it does not list.
	var sev full.Severity
	if err := json.Unmarshal([]byte("3"), &sev); err == nil {
		t.Error("Severity accepted 3")
	}
}
