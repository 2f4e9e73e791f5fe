package full_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rpcgen/rpcgen/gen/golang/internal/full"
	"github.com/rpcgen/rpcgen/gen/golang/internal/jsonspace"
)

// spacedTypes are the generated types of full.yaml whose decoders the
// whitespace tests run: objects with every kind of member (optional
// scalars, nullable members, enums, typed and plain maps, tuples,
// positional objects, arrays), bounded numbers, enums and unions of each
// kind.
var spacedTypes = []func() any{
	func() any { return new(full.Item) }, func() any { return new(full.XEdits) },
	func() any { return new(full.Mark) }, func() any { return new(full.MarksSetParams) },
	func() any { return new(full.Range) }, func() any { return new(full.Span) }, func() any { return new(full.Move) },
	func() any { return new(full.State) }, func() any { return new(full.Severity) }, func() any { return new(full.Color) },
	func() any { return new(full.Priority) }, func() any { return new(full.Level) },
	func() any { return new(full.Ratio) }, func() any { return new(full.Line) }, func() any { return new(full.Offset) },
	func() any { return new(full.ID) }, func() any { return new(full.ItemEither) }, func() any { return new(full.Contents) },
	func() any { return new(full.HoverProvider) }, func() any { return new(full.TextDocumentFilter) },
	func() any { return new(full.HoverContents) }, func() any { return new(full.MarkedString) },
	func() any { return new(full.ProgressValue) }, func() any { return new(full.TokenOrProgress) },
	func() any { return new(full.FormField) }, func() any { return new(full.DefinitionResult) },
	func() any { return new(full.WorkspaceSymbols) }, func() any { return new(full.Amount) },
}

// spacedSamples are values for those types, valid and not.
var spacedSamples = []string{
	`null`, `{}`, `[]`, `""`, `0`, `1`, `-1`, `1.5`, `true`, `"idle"`, `"red"`, `"waiting_permission"`, `"x"`,
	`{"byLine":{"-3":"red","12":null},"bySeverity":{"2":"w"},"changes":{"file:///a":["x",null]},"folders":null,"label":null,"zz":null}`,
	`{"folders":["a"],"label":"l","range":[1,-2],"span":["a",1,null],"move":[1,2,null,["t"]]}`,
	`{"span":["a",null,true]}`, `{"move":[1,2,"l",null]}`, `{"range":[1,null]}`, `{"byLine":{"1":"blue"}}`,
	`[1,2]`, `["a",1,null]`, `[1,2,null,null]`, `[null,2]`,
	`{"line":4294967295,"column":1000,"delta":-2147483648,"weight":null,"ratio":null,"retries":10,"offset":null,"offsets":[-5,null],"kind":null,"level":7,"amount":null,"severity":null}`,
	`{"line":0,"column":0,"severity":1,"kind":"rename"}`, `{"mark":{"line":1,"column":2},"marks":null}`,
	`{"documentSelector":null}`, `{"workDoneProgress":null,"documentSelector":[{"language":"go","scheme":null}],"id":"h"}`,
	`{"language":"go","scheme":"file","pattern":null}`, `{"kind":"markdown","value":"# hi"}`,
	`{"language":"go","value":"x"}`, `["hi",{"language":"go","value":"x"},null]`, `{"kind":"begin","label":"x"}`,
	`{"kind":"end"}`, `{"kind":null}`, `{"type":"string","minLength":1}`, `{"type":"integer","minimum":null}`,
	`[{"uri":"a","line":1}]`, `{"uri":"a","line":1}`, `[{"targetUri":"a","targetLine":1,"originLine":null}]`,
	`[{"name":"f","location":{"uri":"a","line":1},"data":7}]`, `[null]`, `[[]]`, `[{}]`,
	`{"uri":"u","text":"t","mimeType":null}`, `{"uri":"u","blob":"aGk="}`,
}

func init() {
	item, err := json.Marshal(sampleItem())
	if err != nil {
		panic(err)
	}
	spacedSamples = append(spacedSamples, string(item))
	// The item again with each member null in turn: optional members
	// become nil, required ones are refused.
	var members map[string]json.RawMessage
	if err := json.Unmarshal(item, &members); err != nil {
		panic(err)
	}
	for name := range members {
		m := map[string]json.RawMessage{}
		for k, v := range members {
			m[k] = v
		}
		m[name] = json.RawMessage(`null`)
		b, _ := json.Marshal(m)
		spacedSamples = append(spacedSamples, string(b))
	}
}

// checkSpaced decodes b into a value of each type with encoding/json, and
// spaced (b with whitespace spread through it) with the type's own
// UnmarshalJSON, which sees the whitespace around the whole value too;
// both must agree on the value and on the error.
func checkSpaced(t *testing.T, b, spaced []byte) {
	t.Helper()
	for _, newValue := range spacedTypes {
		want, got := newValue(), newValue()
		wantErr := json.Unmarshal(b, want)
		gotErr := got.(json.Unmarshaler).UnmarshalJSON(spaced)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%T from %q: error %v; from %q: error %v", got, spaced, gotErr, b, wantErr)
		}
		if gotErr == nil && !jsonspace.Equal(got, want) {
			t.Fatalf("%T from %q:\n%#v\nfrom %q:\n%#v", got, spaced, reflect.ValueOf(got).Elem(), b, reflect.ValueOf(want).Elem())
		}
	}
}

// TestGeneratedDecodersSeeThroughWhitespace checks that whitespace around
// any value (before a null, around a union's array or object, between a
// tuple's items, around map keys and values) changes nothing.
func TestGeneratedDecodersSeeThroughWhitespace(t *testing.T) {
	for _, s := range spacedSamples {
		for seed := range uint64(6) {
			checkSpaced(t, []byte(s), jsonspace.Spread([]byte(s), seed))
		}
		checkSpaced(t, []byte(s), []byte(" \t"+s+"\r\n"))
	}
}

// FuzzGeneratedWhitespace checks that any JSON value decodes into the
// generated types the same with whitespace spread through it.
func FuzzGeneratedWhitespace(f *testing.F) {
	for i, s := range spacedSamples {
		f.Add([]byte(s), uint64(i))
	}
	f.Fuzz(func(t *testing.T, b []byte, seed uint64) {
		if !json.Valid(b) {
			return
		}
		checkSpaced(t, b, jsonspace.Spread(b, seed))
	})
}
