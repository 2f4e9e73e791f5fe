package rpcimpl

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

var rawSamples = []string{
	`{"a":1}`, ` { "a" : [ 1 , 2 ] } `, `"x<y>&z"`, `"\u2028 \u2029"`, "\"\u2028\"", `"a\"<"`, `"\\"`,
	`[true,false,null]`, `{"a":"spa ce","b":"tab\t"}`, "{\"a\":\n1}", `1e3`, `-0.5`, `{`, `"open`, `nul`,
	`[1,]`, "", `"\xff"`, `{"a":{"b":{"c":"<"}}}`, `"é ü 日本"`, `{"a":1} x`,
}

func TestAppendRawMatchesMarshal(t *testing.T) {
	for _, s := range rawSamples {
		got, err := AppendRaw([]byte{}, json.RawMessage(s))
		sameAsMarshal(t, json.RawMessage(s), got, err)
	}
	got, err := AppendRaw([]byte{}, nil)
	sameAsMarshal(t, json.RawMessage(nil), got, err)
}

// FuzzAppendRaw checks AppendRaw against json.Marshal of a json.RawMessage
// on any input, valid JSON or not.
func FuzzAppendRaw(f *testing.F) {
	for _, s := range rawSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := AppendRaw([]byte{}, json.RawMessage(s))
		sameAsMarshal(t, json.RawMessage(s), got, err)
	})
}

func TestAppendMapMatchesMarshal(t *testing.T) {
	appendInt := func(b []byte, v int) ([]byte, error) { return AppendInt(b, v), nil }
	big := map[string]int{}
	for i := range 40 {
		big[strings.Repeat("k", i%7)+string(rune('a'+i%26))+string(rune('<'+i%3))] = i
	}
	for _, m := range []map[string]int{nil, {}, {"b": 1, "a": 2, "<": 3, "é": 4, "": 5}, big} {
		got, err := AppendMap([]byte{}, m, appendInt)
		sameAsMarshal(t, m, got, err)
	}
	type key string
	got, err := AppendMap([]byte{}, map[key]string{"z": "<", "y": "x"}, func(b []byte, v string) ([]byte, error) { return AppendString(b, v), nil })
	sameAsMarshal(t, map[key]string{"z": "<", "y": "x"}, got, err)
}

func TestAppendExtra(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	cases := []struct {
		declared string // members already appended, each after a comma
		extra    jsonrpc.Members[json.RawMessage]
		want     string
	}{
		{"", nil, `{}`},
		{`,"a":1`, nil, `{"a":1}`},
		{"", jsonrpc.Members[json.RawMessage]{{Name: "x", Value: raw(` [ 1 ] `)}, {Name: "<", Value: raw(`"&"`)}}, `{"x":[1],"\u003c":"\u0026"}`},
		// A declared member the object has is not written twice; one it
		// left out is written from extra; a name kept twice is written twice.
		{`,"a":1`, jsonrpc.Members[json.RawMessage]{{Name: "a", Value: raw(`2`)}, {Name: "b", Value: raw(`3`)}, {Name: "c", Value: raw(`4`)}, {Name: "c", Value: raw(`5`)}}, `{"a":1,"b":3,"c":4,"c":5}`},
	}
	for _, c := range cases {
		b := append([]byte("["), c.declared...)
		got, err := AppendExtra(b, 1, c.extra, "a", "b")
		if err != nil || string(got) != "["+c.want {
			t.Errorf("AppendExtra(%s, %v) = %s, %v; want [%s", c.declared, c.extra, got, err, c.want)
		}
	}
	if _, err := AppendExtra(nil, 0, jsonrpc.Members[json.RawMessage]{{Name: "bad", Value: raw(`{`)}}); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("invalid raw member: error %v, want one naming the member", err)
	}
	got, err := AppendExtra(nil, 0, jsonrpc.Members[[]string]{{Name: "s", Value: []string{"<"}}})
	if err != nil || string(got) != `{"s":["\u003c"]}` {
		t.Errorf("members of another type: %s, %v", got, err)
	}
}

// point is a type with its own UnmarshalJSON, as generated types have.
type point struct{ X, Y int }

func (p *point) UnmarshalJSON(b []byte) error {
	type plain point
	return json.Unmarshal(b, (*plain)(p))
}

func TestResult(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    *point
		wantErr bool
	}{
		{`null`, nil, false},
		{` null `, nil, false},
		{`{"X":1,"Y":2}`, &point{1, 2}, false},
		{`[1]`, nil, true},
	} {
		p := &point{9, 9}
		if c.in == "null" || c.in == " null " {
			p = &point{7, 7} // null replaces a value with nil
		}
		var viaStub, viaJSON *point = p, p
		err := Result(&viaStub).UnmarshalJSON([]byte(c.in))
		jsonErr := json.Unmarshal([]byte(c.in), &viaJSON)
		if (err != nil) != c.wantErr || (jsonErr != nil) != c.wantErr {
			t.Fatalf("%s: error %v (json.Unmarshal: %v), want error %v", c.in, err, jsonErr, c.wantErr)
		}
		if c.wantErr {
			continue
		}
		if (viaStub == nil) != (c.want == nil) || viaStub != nil && *viaStub != *c.want {
			t.Errorf("%s: decoded %v, want %v", c.in, viaStub, c.want)
		}
		if (viaJSON == nil) != (viaStub == nil) || viaJSON != nil && *viaJSON != *viaStub {
			t.Errorf("%s: decoded %v, json.Unmarshal decodes %v", c.in, viaStub, viaJSON)
		}
		// A Caller that decodes with json.Unmarshal gets the same.
		var viaCaller *point = p
		if err := json.Unmarshal([]byte(c.in), Result(&viaCaller)); err != nil || (viaCaller == nil) != (viaStub == nil) || viaCaller != nil && *viaCaller != *viaStub {
			t.Errorf("%s: json.Unmarshal into Result decoded %v, %v; want %v", c.in, viaCaller, err, viaStub)
		}
	}
}
