package full_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rpcgen/rpcgen/gen/golang/internal/full"
)

// FuzzOverlappingUnions decodes any input into the unions of full.yaml
// whose variants overlap, nest or catch all: decoding never panics, and a
// value that decodes encodes to JSON that decodes into the same variant
// and encodes alike.
func FuzzOverlappingUnions(f *testing.F) {
	for _, s := range []string{
		`{"documentSelector":null,"id":"x"}`, `{"workDoneProgress":true}`, `true`,
		`{"language":"go","scheme":"file"}`, `{"pattern":"*"}`,
		`{"kind":"begin","label":"x"}`, `{"kind":"b\u0065gin","label":"x"}`, `{"kind":"end","kind":"begin"}`, `[1]`, `null`,
		`{"language":"go","value":"x"}`, `["a",{"kind":"k","value":"v"}]`, `{"uri":"u","text":"t","blob":"aGk="}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, v := range []any{new(full.HoverProvider), new(full.TextDocumentFilter), new(full.ProgressValue), new(full.HoverContents), new(full.Contents)} {
			if json.Unmarshal(b, v) != nil {
				continue
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("%T from %q does not encode: %v", v, b, err)
			}
			again := reflect.New(reflect.TypeOf(v).Elem()).Interface()
			err = json.Unmarshal(out, again)
			if err != nil || setField(reflect.ValueOf(again).Elem().Interface()) != setField(reflect.ValueOf(v).Elem().Interface()) || normal(t, again) != normal(t, v) {
				t.Errorf("%T from %q encodes as %s, which decodes as %+v (%v)", v, b, out, again, err)
			}
		}
	})
}

// normal returns v encoded, for comparing values whose raw members may
// differ in spacing only.
func normal(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
