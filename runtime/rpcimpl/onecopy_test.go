package rpcimpl

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// rawMembersOf decodes the members of the object b as a generated
// UnmarshalJSON keeps additional members.
func rawMembersOf(b []byte) (jsonrpc.Members[json.RawMessage], error) {
	var extra RawMembers
	if err := DecodeObject(b, func(key, value []byte) error {
		extra.Add(key, value)
		return nil
	}); err != nil {
		return nil, err
	}
	return extra.Members(), nil
}

// TestRawMembers checks the members kept, past the eight held inline,
// with an escaped name and a repeated one, and that the copies are the
// decoder's own: the message may change afterwards, and appending to one
// value does not write over the next.
func TestRawMembers(t *testing.T) {
	var obj strings.Builder
	var want jsonrpc.Members[json.RawMessage]
	obj.WriteString(`{`)
	for i := range 11 {
		name, value := fmt.Sprintf("m%d", i), fmt.Sprintf(`{"v":[%d, "x"]}`, i)
		if i == 9 {
			name = "a\u00e9\"b"
		}
		if i == 10 {
			name = "m0"
		}
		if i > 0 {
			obj.WriteString(" , ")
		}
		fmt.Fprintf(&obj, "%s : %s ", AppendString(nil, name), value)
		want = append(want, jsonrpc.Member[json.RawMessage]{Name: name, Value: json.RawMessage(value)})
	}
	obj.WriteString(`}`)
	msg := []byte(obj.String())
	got, err := rawMembersOf(msg)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("members of %s:\n%q (%v)\nwant\n%q", msg, got, err, want)
	}
	for i := range msg {
		msg[i] = 'X'
	}
	got[0].Value = append(got[0].Value, '!')
	for i := range got[1].Value {
		got[1].Value[i] = '#'
	}
	if got[1].Name != want[1].Name || !reflect.DeepEqual(got[2:], want[2:]) {
		t.Errorf("after changing the message, appending to the first value and writing over the second:\n%q\nwant\n%q", got[1:], want[1:])
	}
	if got, err := rawMembersOf([]byte(` {} `)); err != nil || got != nil {
		t.Errorf("members of {} = %q (%v), want nil", got, err)
	}
}

// TestRawMembersAllocations checks that the members of an object cost
// two allocations however many there are: their names and values, and
// the list.
func TestRawMembersAllocations(t *testing.T) {
	msg := []byte(`{"type":"string","description":"the text to find","enum":["a","b"],"minLength":1}`)
	if n := testing.AllocsPerRun(100, func() {
		if _, err := rawMembersOf(msg); err != nil {
			t.Fatal(err)
		}
	}); n > 2 {
		t.Errorf("%v allocations for four members, want 2", n)
	}
}

// TestDecodeRawMap checks DecodeRawMap against json.Unmarshal into a new
// map, errors included, and that it takes a few allocations.
func TestDecodeRawMap(t *testing.T) {
	for _, s := range []string{`{}`, ` {"a" : 1 , "b":[2, {"c":null}],"a":"x"} `, `null`, `{"\u00e9":true,"":""}`, `5`, `"x"`, `[1]`, `{"a":}`, ``} {
		got, err := decodeRawMapOf([]byte(s))
		want, werr := unmarshalRawMap([]byte(s))
		if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
			t.Errorf("DecodeRawMap(%s) = %q (%v), want %q (%v)", s, got, err, want, werr)
		}
	}
	msg := []byte(`{"query":"rpc","limit":10,"hits":[{"title":"a"},{"title":"b"}],"total":2}`)
	if n := testing.AllocsPerRun(100, func() { _, _ = decodeRawMapOf(msg) }); n > 3 {
		t.Errorf("%v allocations for a map of four, want at most 3: the map, its group, the names and values", n)
	}
}

func decodeRawMapOf(b []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	err := DecodeRawMap(b, &m)
	return m, err
}

func unmarshalRawMap(b []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	err := json.Unmarshal(b, &m)
	return m, err
}

// FuzzDecodeRawMap checks DecodeRawMap against json.Unmarshal on valid
// JSON, and that the members RawMembers keeps are those of the object.
func FuzzDecodeRawMap(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[2],"a":null}`, `{"\u0061":"x"}`, `[]`, `null`, `{"a":{"b":{}}, "c" : "\"}"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		got, err := decodeRawMapOf(b)
		want, werr := unmarshalRawMap(b)
		if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeRawMap(%s) = %q (%v), want %q (%v)", b, got, err, want, werr)
		}
		if werr != nil || want == nil { // not an object
			return
		}
		members, err := rawMembersOf(b)
		if err != nil {
			t.Fatalf("members of %s: %v", b, err)
		}
		last := map[string]json.RawMessage{}
		for _, m := range members {
			last[m.Name] = m.Value
		}
		if len(last) != len(want) || (len(want) > 0 && !reflect.DeepEqual(last, want)) {
			t.Fatalf("members of %s = %q, want %q", b, members, want)
		}
	})
}

// TestDecodeArrayFastSameAsSlow checks that DecodeArray gives what it
// gave through encoding/json, errors included.
func TestDecodeArrayFastSameAsSlow(t *testing.T) {
	for _, s := range []string{`[]`, ` [ "a" , "b\n" ,null] `, `null`, `["a",1]`, `{}`, `"x"`, `[[]]`,
		`["1","2","3","4","5","6","7","8"]`, `[ "1" ,"2","3","4","5","6","7","8" , "9","1\"0"]`, `["1","2","3","4","5","6","7","8",9]`} {
		checkDecodeArray(t, []byte(s))
	}
	msg := []byte(`["a","b","c","d","e"]`)
	if n := testing.AllocsPerRun(100, func() {
		var v []json.RawMessage
		_ = DecodeArray(msg, &v, DecodeRaw[json.RawMessage])
	}); n > 6 {
		t.Errorf("%v allocations for five raw items, want 6: the list and one copy each", n)
	}
}

func checkDecodeArray(t *testing.T, b []byte) {
	t.Helper()
	var got, want []string
	err := DecodeArray(b, &got, DecodeString[string])
	werr := decodeArraySlow(b, &want, DecodeString[string])
	if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeArray(%s) = %q (%v), want %q (%v)", b, got, err, want, werr)
	}
	var gotRaw, wantRaw []json.RawMessage
	err = DecodeArray(b, &gotRaw, DecodeRaw[json.RawMessage])
	werr = decodeArraySlow(b, &wantRaw, DecodeRaw[json.RawMessage])
	if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(gotRaw, wantRaw) {
		t.Fatalf("DecodeArray(%s) = %q (%v), want %q (%v)", b, gotRaw, err, wantRaw, werr)
	}
}

// FuzzDecodeArray checks DecodeArray against its encoding/json path on
// valid JSON.
func FuzzDecodeArray(f *testing.F) {
	for _, s := range []string{`[]`, `["a",null,"\u00e9"]`, `[1,"a"]`, `[[1,[2]],{"a":"]"}]`, `null`, `{}`, `[0,1,2,3,4,5,6,7,"8",["9"]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if json.Valid(b) {
			checkDecodeArray(t, b)
		}
	})
}

// TestDecodeMapCounts checks DecodeMap's answers and that a map of
// generated values takes a few allocations, not two per member.
func TestDecodeMapCounts(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]string
		err  string
	}{
		{`{"a":"x","b":"y","a":"z"}`, map[string]string{"a": "z", "b": "y"}, ""},
		{`null`, nil, ""},
		{`{}`, map[string]string{}, ""},
		{`{"a":1}`, nil, "a: expected string, got JSON number"},
		{`[1]`, nil, "expected a JSON object"},
	} {
		var got map[string]string
		err := DecodeMap([]byte(c.in), &got, DecodeString[string])
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) || !reflect.DeepEqual(got, c.want) {
			t.Errorf("DecodeMap(%s) = %q (%v), want %q (%s)", c.in, got, err, c.want, c.err)
		}
	}
	msg := []byte(`{"a":{"x":1},"b":{"x":2},"c":{"x":3},"d":{"x":4},"e":{"x":5},"f":{"x":6}}`)
	type point struct{ X int }
	decode := func(b []byte, p *point) error {
		return DecodeObject(b, func(_, value []byte) error { return DecodeInt(value, &p.X) })
	}
	if n := testing.AllocsPerRun(100, func() {
		var m map[string]point
		if err := DecodeMap(msg, &m, decode); err != nil || len(m) != 6 || m["f"].X != 6 {
			t.Fatalf("DecodeMap = %v (%v)", m, err)
		}
	}); n > 4 {
		t.Errorf("%v allocations for a map of six, want at most 4", n)
	}
}

// TestTagOf checks that a plain discriminator is read in place and any
// other one as encoding/json reads it.
func TestTagOf(t *testing.T) {
	for _, s := range []string{`"text"`, ` "ref/prompt" `, `"a\u0062"`, `"\u00e9"`, `"é"`, `""`, `1`, `null`, `{}`} {
		got, err := TagOf([]byte(s))
		var want string
		werr := json.Unmarshal([]byte(s), &want)
		if fmt.Sprint(err) != fmt.Sprint(werr) || werr == nil && string(got) != want {
			t.Errorf("TagOf(%s) = %q (%v), want %q (%v)", s, got, err, want, werr)
		}
	}
	msg := []byte(`"resource_link"`)
	if n := testing.AllocsPerRun(100, func() { _, _ = TagOf(msg) }); n != 0 {
		t.Errorf("TagOf of a plain string: %v allocations, want 0", n)
	}
}
