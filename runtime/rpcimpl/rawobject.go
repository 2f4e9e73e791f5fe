package rpcimpl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The members an IDL declares raw: true (map<string, any> fields kept as
// their JSON object) go through these helpers: the generated decoder
// keeps the object as received, and the generated Set and Decode methods
// encode and decode the application's own types in one pass.

// DecodeRawObject decodes b, a JSON object or null, into *v as its JSON
// text, copied without the space around it; null leaves *v nil. Anything
// else gets the error decoding it into a map gets, so the peer sees the
// same -32602 as for a map member.
func DecodeRawObject(b []byte, v *json.RawMessage) error {
	b = trimSpace(b)
	if string(b) == "null" {
		*v = nil
		return nil
	}
	if _, _, _, err := objectShape(b); err != nil {
		var m map[string]json.RawMessage
		return unmarshalMap(b, &m)
	}
	*v = append(json.RawMessage(nil), b...)
	return nil
}

// EncodeObject encodes v for a raw member: with its own AppendJSON (as
// generated types have) or MarshalJSON when it has one, else with
// encoding/json; a json.RawMessage is kept, not copied. What v's own
// methods wrote and a json.RawMessage are checked to be valid JSON;
// encoding/json's output is valid already. v must encode as a JSON
// object; nil, a nil pointer or JSON null give a nil member, which
// encoders leave out.
func EncodeObject(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, nil
	}
	var b []byte
	var err error
	checked := false // encoding/json writes nothing but valid JSON
	switch x := v.(type) {
	case json.RawMessage:
		b = x
	case interface{ AppendJSON([]byte) ([]byte, error) }:
		b, err = x.AppendJSON(nil)
	case json.Marshaler:
		b, err = x.MarshalJSON()
	default:
		b, err = json.Marshal(v)
		checked = true
	}
	if err != nil {
		return nil, err
	}
	if !checked && !jsonscan.Valid(b) {
		return nil, fmt.Errorf("%T does not encode as valid JSON", v)
	}
	switch kind := jsonscan.Kind(b); kind {
	case "object":
		return b, nil
	case "null":
		return nil, nil
	default:
		return nil, fmt.Errorf("%T encodes as a JSON %s, not an object", v, kind)
	}
}

// emptyObject is what an absent raw member decodes as.
var emptyObject = json.RawMessage("{}")

// DecodeRawInto decodes raw, the JSON object of the raw member named
// field (nil when it was absent, decoded as {}), into v: with v's own
// UnmarshalJSON when it has one, else with encoding/json. A failure is a
// -32602 *[jsonrpc.Error] whose data names the member at fault from
// field down, so that a handler may return it as it is.
func DecodeRawInto(field string, raw json.RawMessage, v any) error {
	if raw == nil {
		raw = emptyObject
	}
	var err error
	if u, ok := v.(json.Unmarshaler); ok {
		err = u.UnmarshalJSON(raw)
	} else {
		err = unmarshal(raw, v)
	}
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		reason := fmt.Sprintf("expected %s, got JSON %s", jsonscan.TypeName(te.Type), jsonscan.Got(te, jsonrpc.Truncate))
		return jsonrpc.InvalidParams(jsonscan.JoinPath(field, te.Field), reason)
	}
	var fe *jsonrpc.FieldError
	errors.As(AtField(field, err), &fe) // AtField always gives one
	return jsonrpc.InvalidParams(fe.Field, fe.Reason)
}

// A rawDecoder decodes one small JSON value at a time with a
// json.Decoder, whose scanner and decoding state are kept from one
// value to the next: json.Unmarshal makes both anew for each value, a
// few allocations per level of nesting and per member.
type rawDecoder struct {
	r   bytes.Reader
	dec *json.Decoder
}

// maxPooledRaw is the longest value decoded by a pooled rawDecoder, whose
// buffer grows to about twice the longest value it has read.
const maxPooledRaw = 4 << 10

var rawDecoders = sync.Pool{New: func() any {
	d := new(rawDecoder)
	d.dec = json.NewDecoder(&d.r)
	return d
}}

// unmarshal is json.Unmarshal(raw, v), with the same result and errors.
// A short value that is valid JSON (checked first, as json.Unmarshal
// does, so that a syntax error is reported before a type error) is
// decoded by a pooled rawDecoder; a decoder that failed is not reused.
func unmarshal(raw []byte, v any) error {
	if len(raw) > maxPooledRaw || !jsonscan.Valid(raw) {
		return json.Unmarshal(raw, v)
	}
	d := rawDecoders.Get().(*rawDecoder)
	d.r.Reset(raw)
	if err := d.dec.Decode(v); err != nil {
		return err
	}
	d.r.Reset(nil)
	rawDecoders.Put(d)
	return nil
}
