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
