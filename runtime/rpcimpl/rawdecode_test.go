package rpcimpl

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// decodeTarget is a user's type as a tool's arguments or structured
// content would be: nested objects and lists, a map, raw JSON, any.
type decodeTarget struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
	Hits  []struct {
		ID    int64    `json:"id"`
		Title string   `json:"title"`
		Score *float64 `json:"score"`
	} `json:"hits"`
	Tags map[string]any  `json:"tags"`
	Raw  json.RawMessage `json:"raw"`
	Any  any             `json:"any"`
}

// sameUnmarshal checks that unmarshal gives what json.Unmarshal gives for
// b, into each kind of target, errors included.
func sameUnmarshal(t *testing.T, b []byte) {
	t.Helper()
	for _, newTarget := range []func() any{
		func() any { return new(decodeTarget) },
		func() any { return new(any) },
		func() any { return new([]int) },
		func() any { return new(map[string]string) },
	} {
		got, want := newTarget(), newTarget()
		err, werr := unmarshal(b, got), json.Unmarshal(b, want)
		if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("unmarshal(%q) into %T = %+v (%v), want %+v (%v)", b, got, got, err, want, werr)
		}
	}
}

var unmarshalSamples = []string{
	`{"query":"q","limit":3,"hits":[{"id":1,"title":"a","score":0.5},{"id":2,"title":"b\"c","score":null}],"tags":{"x":[1,{"y":true}]},"raw":{"k":[]},"any":"s"}`,
	` {"query" : "q"} `, `{"limit":"3"}`, `{"hits":{}}`, `{"query":1,"limit":2}`, `{"limit":1e400}`, `[1,2,3]`, `[1,"2"]`,
	`{"a":"b"}`, `{"a":1}`, `null`, `"s"`, `7`, `{"query":`, `{}x`, `{"query":"\ud800"}`, strings.Repeat(" ", 5000) + `{}`,
	`{"raw":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, "",
}

func TestUnmarshalSameAsEncodingJSON(t *testing.T) {
	for _, s := range unmarshalSamples {
		sameUnmarshal(t, []byte(s))
	}
}

// FuzzUnmarshal checks unmarshal against json.Unmarshal on any input, one
// call after another, so that a pooled decoder meets what the one before
// it left.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range unmarshalSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sameUnmarshal(t, b)
	})
}

// TestDecodeRawIntoAllocations: decoding a raw member into a user's
// struct costs the strings and lists it holds, not encoding/json's state
// for each value (json.Unmarshal: 14 allocations here).
func TestDecodeRawIntoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the pool of decoders drops decoders at random under the race detector")
	}
	raw := json.RawMessage(`{"query":"memory leak","hits":[{"id":1,"title":"alpha"},{"id":2,"title":"beta"},{"id":3,"title":"gamma"}]}`)
	var v decodeTarget
	n := testing.AllocsPerRun(100, func() {
		v = decodeTarget{}
		if err := DecodeRawInto("structuredContent", raw, &v); err != nil {
			t.Fatal(err)
		}
	})
	// Four strings and the list of hits, grown three times.
	if n > 7 {
		t.Errorf("DecodeRawInto took %v allocations, want 7", n)
	}
	if v.Query != "memory leak" || len(v.Hits) != 3 || v.Hits[2].Title != "gamma" {
		t.Errorf("DecodeRawInto gave %+v", v)
	}
}
