package full_test

import (
	"encoding/json"
	"testing"

	"github.com/rpcgen/rpcgen/gen/golang/internal/full"
)

// TestOptionalPlainRoundTrip decodes objects whose optional members are
// held as plain values (a string, a string enum, an integer enum, a
// union) and through pointers (numbers, an open enum), present and
// absent, and checks that both encoders give the JSON back exactly.
func TestOptionalPlainRoundTrip(t *testing.T) {
	for _, in := range []string{
		`{"line":1,"column":2}`,
		`{"line":1,"column":2,"kind":"quickfix"}`,
		`{"line":1,"column":2,"severity":2}`,
		`{"line":1,"column":2,"note":"n"}`,
		`{"line":1,"column":2,"amount":3}`,
		`{"line":1,"column":2,"amount":"three"}`,
		`{"line":1,"column":2,"delta":0,"weight":0,"retries":0}`,
		`{"line":1,"column":2,"delta":-3,"weight":0.5,"kind":"refactor","level":1,"severity":1,"note":"n","amount":0}`,
	} {
		var m full.Mark
		if err := json.Unmarshal([]byte(in), &m); err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if out, err := json.Marshal(m); err != nil || string(out) != in {
			t.Errorf("%s: json.Marshal gives %s (%v)", in, out, err)
		}
		if out, err := m.AppendJSON(nil); err != nil || string(out) != in {
			t.Errorf("%s: AppendJSON gives %s (%v)", in, out, err)
		}
	}
}

// TestOptionalPlainZeroAndNull checks that a plain member holding its zero
// value is left out, that null decodes as absent for each plain kind (the
// enums' and unions' own decoders refuse null), and that a zero value the
// type does not allow is still refused.
func TestOptionalPlainZeroAndNull(t *testing.T) {
	var m full.Mark
	if err := json.Unmarshal([]byte(`{"line":1,"column":2,"kind":null,"severity":null,"note":null,"amount":null}`), &m); err != nil {
		t.Fatal(err)
	}
	if m.Kind != "" || m.Severity != 0 || m.Note != "" || !m.Amount.IsZero() {
		t.Errorf("null members decode as %+v; want them absent", m)
	}
	if err := json.Unmarshal([]byte(`{"line":1,"column":2,"severity":0}`), &m); err == nil {
		t.Error("severity 0 decodes; want the closed enum's zero value refused")
	}
	out, err := full.Mark{Line: 1, Column: 2, Note: "", Amount: full.Amount{}}.AppendJSON(nil)
	if err != nil || string(out) != `{"line":1,"column":2}` {
		t.Errorf("zero plain members encode as %s (%v); want them left out", out, err)
	}
}

// TestOptionalEmptyList checks that an empty, non-nil optional list is
// sent as [] and a nil one is left out, so that [] stays expressible.
func TestOptionalEmptyList(t *testing.T) {
	for _, c := range []struct {
		offsets []int32
		want    string
	}{
		{nil, `{"line":1,"column":2}`},
		{[]int32{}, `{"line":1,"column":2,"offsets":[]}`},
	} {
		m := full.Mark{Line: 1, Column: 2, Offsets: c.offsets}
		for name, enc := range map[string]func() ([]byte, error){
			"AppendJSON":   func() ([]byte, error) { return m.AppendJSON(nil) },
			"json.Marshal": func() ([]byte, error) { return json.Marshal(m) },
		} {
			if out, err := enc(); err != nil || string(out) != c.want {
				t.Errorf("%s gives %s (%v); want %s", name, out, err, c.want)
			}
		}
	}
}
