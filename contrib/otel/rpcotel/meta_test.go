package rpcotel

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Fixed trace context for the tests of this file.
const (
	testTraceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	testTracestate  = "congo=t61rcWkgMzE"
)

// remote returns a context holding the remote span context of
// testTraceparent and testTracestate.
func remote(t *testing.T) context.Context {
	t.Helper()
	ctx := propagation.TraceContext{}.Extract(context.Background(),
		propagation.MapCarrier{"traceparent": testTraceparent, "tracestate": testTracestate})
	if !trace.SpanContextFromContext(ctx).IsValid() {
		t.Fatal("the test's trace context does not parse")
	}
	return ctx
}

// appender stands for a generated type: it encodes itself with AppendJSON
// only.
type appender struct{ json string }

func (a appender) AppendJSON(b []byte) ([]byte, error) { return append(b, a.json...), nil }

func TestInject(t *testing.T) {
	const added = `"traceparent":"` + testTraceparent + `","tracestate":"` + testTracestate + `"`
	for _, tc := range []struct {
		name   string
		params any
		want   string
	}{
		{"no member yet", map[string]int{"a": 1}, `{"a":1,"_meta":{` + added + `}}`},
		{"empty object", struct{}{}, `{"_meta":{` + added + `}}`},
		{"members kept in order", json.RawMessage(`{"_meta":{"z":1,"progressToken":"t","a":[1,{"b":"}"}]},"x":2}`),
			`{"_meta":{"z":1,"progressToken":"t","a":[1,{"b":"}"}],` + added + `},"x":2}`},
		{"keys replaced", json.RawMessage(`{"_meta":{"traceparent":"00-old","k":"v","tracestate":"old=1"}}`),
			`{"_meta":{"k":"v",` + added + `}}`},
		{"escaped key replaced", json.RawMessage(`{"_meta":{"trace\u0070arent":"00-old"}}`), `{"_meta":{` + added + `}}`},
		{"white space", json.RawMessage(" {\n \"_meta\" : { } ,\"b\" : [ ] }\n"), ` {` + "\n" + ` "_meta" : {` + added + `} ,"b" : [ ] }` + "\n"},
		{"meta a string", json.RawMessage(`{"_meta":"x"}`), `{"_meta":"x"}`},
		{"meta null", json.RawMessage(`{"_meta":null}`), `{"_meta":null}`},
		{"meta an array", json.RawMessage(`{"_meta":[]}`), `{"_meta":[]}`},
		{"positional params", []int{1, 2}, `[1,2]`},
		{"an appender", appender{`{"name":"x"}`}, `{"name":"x","_meta":{` + added + `}}`},
		{"an appender with meta", appender{`{"_meta":{"progressToken":7},"name":"x"}`}, `{"_meta":{"progressToken":7,` + added + `},"name":"x"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := inject(remote(t), propagation.TraceContext{}, tc.params, "_meta")
			got, err := json.Marshal(p) // as the runtime encodes params that are no appender
			if err != nil {
				t.Fatal(err)
			}
			var want []byte
			if want, err = compact(tc.want); err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("params encode as\n%s, want\n%s", got, want)
			}
		})
	}
}

func compact(s string) ([]byte, error) {
	var b bytes.Buffer
	err := json.Compact(&b, []byte(s))
	return b.Bytes(), err
}

func TestInjectLeavesParamsAlone(t *testing.T) {
	var nilPointer *struct{ A int }
	var nilMap map[string]int
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		prop   propagation.TextMapPropagator
		params any
	}{
		{"nil", remote(t), propagation.TraceContext{}, nil},
		{"nil pointer", remote(t), propagation.TraceContext{}, nilPointer},
		{"nil map", remote(t), propagation.TraceContext{}, nilMap},
		{"empty raw message", remote(t), propagation.TraceContext{}, json.RawMessage{}},
		{"no span", context.Background(), propagation.TraceContext{}, map[string]int{}},
		{"no propagator", remote(t), propagation.NewCompositeTextMapPropagator(), map[string]int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := inject(tc.ctx, tc.prop, tc.params, "_meta")
			if _, wrapped := p.(*withMeta); wrapped {
				t.Errorf("params %#v were wrapped", tc.params)
			}
		})
	}
}

func TestInjectEncodingErrors(t *testing.T) {
	for _, params := range []any{json.RawMessage(`{"a":`), map[string]any{"c": make(chan int)}} {
		if _, err := json.Marshal(inject(remote(t), propagation.TraceContext{}, params, "_meta")); err == nil || !strings.Contains(err.Error(), "rpcotel: ") {
			t.Errorf("encoding %#v: error %v, want one from rpcotel", params, err)
		}
	}
}

func TestExtract(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	huge := `{"_meta":{"traceparent":"` + testTraceparent + `","pad":"` + strings.Repeat("x", maxMetaBytes) + `"}}`
	longState := strings.Repeat("a", maxFieldBytes)
	for _, tc := range []struct {
		name      string
		params    string
		continued bool
		state     string // the tracestate expected, when continued
	}{
		{"traceparent and tracestate", `{"_meta":{"traceparent":"` + testTraceparent + `","tracestate":"` + testTracestate + `"}}`, true, testTracestate},
		{"among other members", `{"name":"x","_meta":{"progressToken":1,"traceparent":"` + testTraceparent + `"},"arguments":{"_meta":1}}`, true, ""},
		{"after deep nesting", `{"a":` + deep + `,"_meta":{"traceparent":"` + testTraceparent + `"}}`, true, ""},
		{"escaped names", `{"\u005fmeta":{"trace\u0070arent":"` + testTraceparent + `"}}`, true, ""},
		{"a tracestate too long", `{"_meta":{"traceparent":"` + testTraceparent + `","tracestate":"` + longState + `"}}`, true, ""},
		{"a huge meta", huge, false, ""},
		{"no meta", `{"name":"x"}`, false, ""},
		{"meta a string", `{"_meta":"traceparent"}`, false, ""},
		{"meta null", `{"_meta":null}`, false, ""},
		{"traceparent a number", `{"_meta":{"traceparent":7}}`, false, ""},
		{"traceparent an object", `{"_meta":{"traceparent":{"traceparent":"` + testTraceparent + `"}}}`, false, ""},
		{"traceparent malformed", `{"_meta":{"traceparent":"00-zz"}}`, false, ""},
		{"traceparent in a nested member", `{"x":{"_meta":{"traceparent":"` + testTraceparent + `"}}}`, false, ""},
		{"positional params", `[{"_meta":{"traceparent":"` + testTraceparent + `"}}]`, false, ""},
		{"no params", ``, false, ""},
		{"truncated", `{"_meta":{"traceparent":"` + testTraceparent, false, ""},
		{"unterminated meta", `{"_meta":{"traceparent":"` + testTraceparent + `",`, false, ""},
		{"garbage", `{"_meta" "x"}`, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := extract(context.Background(), propagation.TraceContext{}, json.RawMessage(tc.params), "_meta")
			sc := trace.SpanContextFromContext(ctx)
			if sc.IsValid() != tc.continued {
				t.Fatalf("trace continued: %v, want %v", sc.IsValid(), tc.continued)
			}
			if !tc.continued {
				return
			}
			if !sc.IsRemote() || sc.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" || sc.SpanID().String() != "b7ad6b7169203331" {
				t.Errorf("span context %v", sc)
			}
			if got := sc.TraceState().String(); got != tc.state {
				t.Errorf("tracestate %q, want %q", got, tc.state)
			}
		})
	}
}

func TestExtractReadsOnlyTheMember(t *testing.T) {
	params := json.RawMessage(`{"arguments":{"big":"` + strings.Repeat("x", 1<<20) + `"},"_meta":{"traceparent":"` + testTraceparent + `"}}`)
	const runs = 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		if !trace.SpanContextFromContext(extract(context.Background(), propagation.TraceContext{}, params, "_meta")).IsValid() {
			t.Fatal("trace not continued")
		}
	}
	runtime.ReadMemStats(&after)
	// The propagator's own work and the one value decoded: nothing in
	// proportion to the 1 MiB of params.
	if perRun := (after.TotalAlloc - before.TotalAlloc) / runs; perRun > 16<<10 {
		t.Errorf("%d bytes allocated to read trace context from params of 1 MiB", perRun)
	}
}

// FuzzExtract: any params, however malformed, are read without a panic,
// and the trace is continued only from a traceparent they hold.
func FuzzExtract(f *testing.F) {
	f.Add([]byte(`{"_meta":{"traceparent":"` + testTraceparent + `"}}`))
	f.Add([]byte(`{"a":[{"b":"\"}"}],"_meta":{"progressToken":"t","trace\u0070arent":"` + testTraceparent + `"}}`))
	f.Add([]byte(`{"_meta":{"traceparent":"` + testTraceparent + `",`))
	f.Add([]byte(`[{"_meta":{}}]`))
	f.Fuzz(func(t *testing.T, params []byte) {
		ctx := extract(context.Background(), propagation.TraceContext{}, params, "_meta")
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() && !bytes.Contains(params, []byte(sc.TraceID().String()[:8])) &&
			!bytes.Contains(params, []byte(`\u`)) {
			t.Errorf("trace %v continued from params that do not hold it: %q", sc, params)
		}
	})
}

// FuzzInject: valid params stay valid JSON with the trace context merged
// in; an object whose "_meta" is absent or an object gains the
// traceparent there, and keeps every other member.
func FuzzInject(f *testing.F) {
	f.Add([]byte(`{"a":1}`))
	f.Add([]byte(`{"_meta":{"progressToken":1,"traceparent":"x"},"b":[{"_meta":2}]}`))
	f.Add([]byte(` { "_meta" : "s" } `))
	f.Add([]byte(`[1,"_meta"]`))
	f.Add([]byte(`{"\u005fmeta":{}}`))
	f.Add([]byte(`{"_meta":null}`))
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			return
		}
		out, err := json.Marshal(inject(remote(t), propagation.TraceContext{}, json.RawMessage(params), "_meta"))
		if err != nil {
			t.Fatalf("encoding %q: %v", params, err)
		}
		var before, after map[string]json.RawMessage
		if json.Unmarshal(params, &before) != nil || hasDuplicates(params) {
			return // not an object, or one whose members decoding merges
		}
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("%q became %q: %v", params, out, err)
		}
		var meta map[string]json.RawMessage
		if m, ok := before["_meta"]; ok && m[0] != '{' {
			if string(out) != string(mustCompact(t, params)) {
				t.Errorf("%q changed to %q though its _meta is no object", params, out)
			}
			return
		}
		if err := json.Unmarshal(after["_meta"], &meta); err != nil {
			t.Fatalf("%q became %q: _meta %v", params, out, err)
		}
		var tp string
		if json.Unmarshal(meta["traceparent"], &tp) != nil || tp != testTraceparent {
			t.Errorf("%q became %q: traceparent %s", params, out, meta["traceparent"])
		}
		for k, v := range before {
			if k != "_meta" && string(mustCompact(t, after[k])) != string(mustCompact(t, v)) {
				t.Errorf("%q became %q: member %q changed", params, out, k)
			}
		}
	})
}

// hasDuplicates reports whether the object b, or the object in its
// "_meta", repeats a member name.
func hasDuplicates(b []byte) bool {
	seen := map[string]bool{}
	dup := false
	eachMember(b, func(m span) bool {
		var name string
		_ = json.Unmarshal(b[m.name:m.nameEnd], &name)
		dup = dup || seen[name]
		seen[name] = true
		if name == "_meta" && hasDuplicates(b[m.value:m.end]) {
			dup = true
		}
		return true
	})
	return dup
}

func mustCompact(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
