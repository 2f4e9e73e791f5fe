package full_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/rpcgen/rpcgen/gen/golang/internal/full"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// TestEditsRoundTripExactly decodes an object with typed map keys, a
// member that is null, one that is absent and extra members, and checks
// that it encodes back to the very same JSON: declared members first,
// then the extra ones in the order received.
func TestEditsRoundTripExactly(t *testing.T) {
	in := `{"$schema":"s","changes":{"file:///a":["x"]},"byLine":{"-3":"red","12":"old"},"bySeverity":{"2":"w"},"folders":null,"zz":1,"aa":[true,{"b":null}]}`
	var e full.XEdits
	if err := json.Unmarshal([]byte(in), &e); err != nil {
		t.Fatal(err)
	}
	if !e.Folders.IsNull() || !e.Label.IsZero() || e.ByLine[-3] != full.ColorRed || e.BySeverity[full.SeverityWarning] != "w" || e.Changes["file:///a"][0] != "x" {
		t.Fatalf("decoded %+v", e)
	}
	if len(e.Extra) != 2 || e.Extra[0].Name != "zz" || e.Extra[1].Name != "aa" {
		t.Fatalf("extra members %v, want zz then aa", e.Extra)
	}
	out, err := json.Marshal(e)
	if err != nil || string(out) != in {
		t.Errorf("encoded back as\n%s (%v), want\n%s", out, err, in)
	}
}

func TestNullableMemberThreeStates(t *testing.T) {
	for _, tc := range []struct {
		in    string
		state jsonrpc.NullState
	}{
		{`{}`, jsonrpc.Absent},
		{`{"folders":null}`, jsonrpc.Null},
		{`{"folders":[]}`, jsonrpc.Present},
		{`{"folders":["a"]}`, jsonrpc.Present},
		{`{"label":null}`, jsonrpc.Absent}, // folders stays absent
	} {
		var e full.XEdits
		if err := json.Unmarshal([]byte(tc.in), &e); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if e.Folders.State != tc.state {
			t.Errorf("%s: folders state %d, want %d", tc.in, e.Folders.State, tc.state)
		}
		out, err := json.Marshal(e)
		if err != nil || string(out) != tc.in {
			t.Errorf("%s encoded back as %s (%v)", tc.in, out, err)
		}
	}
	// A Go value sets the three states explicitly.
	out, _ := json.Marshal(full.XEdits{Folders: jsonrpc.NullOf[[]string](), Label: jsonrpc.Some("x")})
	if string(out) != `{"folders":null,"label":"x"}` {
		t.Errorf("encoded %s", out)
	}
}

func TestTypedMapKeysAreChecked(t *testing.T) {
	for in, field := range map[string]string{
		`{"byLine":{"x":"red"}}`:        "byLine.x",
		`{"byLine":{"01":"red"}}`:       "byLine.01",
		`{"byLine":{"1":"blue"}}`:       "byLine.1",
		`{"bySeverity":{"3":"w"}}`:      "bySeverity.3",
		`{"bySeverity":{"one":"w"}}`:    "bySeverity.one",
		`{"changes":{"file:///a":[1]}}`: "changes.file:///a",
	} {
		var e full.XEdits
		err := json.Unmarshal([]byte(in), &e)
		var fe *jsonrpc.FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: %v, want a FieldError at %s", in, err, field)
		}
	}
}

// TestTuplesAndPositionalRoundTrip checks that tuples and positional
// objects decode from arrays and encode back to the same arrays.
func TestTuplesAndPositionalRoundTrip(t *testing.T) {
	for _, in := range []string{
		`{"range":[1,-2]}`,
		`{"span":["a",1,null]}`,
		`{"span":["a",1,true]}`,
		`{"move":[1,2]}`,
		`{"move":[1,2,"l"]}`,
		`{"move":[1,2,null,["t"]]}`,
		`{"move":[1,2,"l",[]]}`,
	} {
		var e full.XEdits
		if err := json.Unmarshal([]byte(in), &e); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out, err := json.Marshal(e)
		if err != nil || string(out) != in {
			t.Errorf("%s encoded back as %s (%v)", in, out, err)
		}
	}
	var e full.XEdits
	if err := json.Unmarshal([]byte(`{"move":[1,2,"l",["t"]],"range":[3,4],"span":["s",5,false]}`), &e); err != nil {
		t.Fatal(err)
	}
	if e.Move.X != 1 || e.Move.Label != "l" || e.Move.Tags[0] != "t" || *e.Range != (full.Range{3, 4}) || e.Span.V0 != "s" || *e.Span.V2 {
		t.Errorf("decoded %+v", e)
	}
	// A positional object leaves out its absent optional fields from the
	// end; an absent one before a present one is null.
	out, _ := json.Marshal(full.Move{X: 1, Y: 2, Tags: []string{"t"}})
	if string(out) != `[1,2,null,["t"]]` {
		t.Errorf("Move encoded as %s", out)
	}
}

func TestTuplesAndPositionalAreStrict(t *testing.T) {
	for in, want := range map[string]string{
		`{"range":[1]}`:              "range",
		`{"range":[1,2,3]}`:          "range",
		`{"range":[1,"x"]}`:          "range[1]",
		`{"range":[1,null]}`:         "range[1]",
		`{"range":{"0":1}}`:          "range",
		`{"span":["a","b",true]}`:    "span[1]",
		`{"move":[1]}`:               "move",
		`{"move":[1,2,3]}`:           "move[2]",
		`{"move":[1,2,"l",["t"],5]}`: "move",
		`{"move":{"x":1,"y":2}}`:     "move",
	} {
		var e full.XEdits
		err := json.Unmarshal([]byte(in), &e)
		var fe *jsonrpc.FieldError
		if !errors.As(err, &fe) || fe.Field != want {
			t.Errorf("%s: %v, want a FieldError at %s", in, err, want)
		}
	}
}
