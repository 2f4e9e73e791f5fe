package jsonrpc

import (
	"encoding/json"
	"strconv"
	"testing"
)

var appendCalls int

// countedObj is an appender that counts the calls to its AppendJSON, and
// encodes as json.Marshal encodes it.
type countedObj struct{ N int }

func (c countedObj) AppendJSON(b []byte) ([]byte, error) {
	appendCalls++
	return append(strconv.AppendInt(append(b, `{"N":`...), int64(c.N), 10), '}'), nil
}

func TestAppendPayloadListOfAppenders(t *testing.T) {
	one, two := &countedObj{1}, &countedObj{2}
	for _, c := range []struct {
		v     any
		calls int
	}{
		{[]countedObj(nil), 0},
		{[]countedObj{}, 0},
		{[]countedObj{{1}, {2}, {3}}, 3},
		{[]*countedObj{one, nil, two}, 2},
	} {
		appendCalls = 0
		got, ok, err := appendPayload([]byte("x"), c.v)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(c.v)
		if !ok {
			got = append(got, "null"...) // what encodeResult writes
		}
		if string(got) != "x"+string(want) {
			t.Errorf("%#v: appended %s, json.Marshal writes %s", c.v, got, want)
		}
		if appendCalls != c.calls {
			t.Errorf("%#v: %d calls to AppendJSON, want %d (one per element, no json.Marshal)", c.v, appendCalls, c.calls)
		}
	}
}
