package e2e_test

import (
	"encoding/json"
	"testing"

	"github.com/rpcgen/rpcgen/gen/golang/internal/e2e"
	"github.com/rpcgen/rpcgen/gen/golang/internal/jsonspace"
)

// TestDecodersSeeThroughWhitespace decodes values of the e2e types
// (objects with optional, nullable, enum and union members; unions told
// apart by kind and by a constant or a member; enums) with encoding/json,
// and again with whitespace spread through them and around them with the
// type's own UnmarshalJSON; both must agree on the value and the error.
func TestDecodersSeeThroughWhitespace(t *testing.T) {
	types := []func() any{
		func() any { return new(e2e.EchoParams) }, func() any { return new(e2e.InitializeParams) },
		func() any { return new(e2e.InitializeResult) }, func() any { return new(e2e.LogParams) },
		func() any { return new(e2e.ProgressParams) }, func() any { return new(e2e.Shape) },
		func() any { return new(e2e.Resource) }, func() any { return new(e2e.ID) },
		func() any { return new(e2e.Circle) }, func() any { return new(e2e.TextResource) },
		func() any { return new(e2e.Mode) }, func() any { return new(e2e.Level) }, func() any { return new(e2e.Topic) },
	}
	samples := []string{
		`null`, `{}`, `[]`, `1`, `"abc"`, `true`, `-2.5`,
		`{"shape":{"kind":"circle","radius":1},"id":7,"note":null,"resource":null}`,
		`{"shape":{"width":2,"kind":"rect","height":3},"id":"x","note":"n","resource":{"uri":"u","text":"t","mimeType":null}}`,
		`{"shape":{"kind":"oval"},"id":null}`, `{"shape":null,"id":1}`, `{"shape":{"kind":"circle","radius":null},"id":[1]}`,
		`{"version":"1","mode":"fast","clientInfo":null}`, `{"version":null,"mode":"fast"}`,
		`{"name":"x","shapes":[{"kind":"circle","radius":1},null]}`, `{"name":"x","shapes":null}`,
		`{"level":1,"message":"m","topic":null}`, `{"level":null,"message":"m"}`, `{"percent":null}`,
		`{"kind":"circle","radius":1}`, `{"uri":"file:///b","blob":"aGk=","mimeType":null}`, `{"text":"hi","uri":null}`,
	}
	for _, s := range samples {
		for seed := range uint64(6) {
			spaced := jsonspace.Spread([]byte(s), seed)
			for _, newValue := range types {
				want, got := newValue(), newValue()
				wantErr := json.Unmarshal([]byte(s), want)
				gotErr := got.(json.Unmarshaler).UnmarshalJSON(spaced)
				if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
					t.Fatalf("%T from %q: error %v; from %q: error %v", got, spaced, gotErr, s, wantErr)
				}
				if gotErr == nil && !jsonspace.Equal(got, want) {
					t.Fatalf("%T from %q: %+v; from %q: %+v", got, spaced, got, s, want)
				}
			}
		}
	}
}
