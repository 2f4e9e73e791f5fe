package openrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/internal/jsonstr"
)

// A JSON value of the document is nil (null), a bool, a string, an int64,
// a json.Number, an *object or a []any. Objects keep their members in the
// order they were set, so the document is written in a fixed order.

// object is a JSON object whose members keep the order they were set in.
type object struct {
	keys []string
	vals map[string]any
}

// obj returns an empty object.
func obj() *object { return &object{vals: map[string]any{}} }

// set sets member k to v, at the end unless k is already there.
func (o *object) set(k string, v any) *object {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
	return o
}

// str sets member k to s unless s is empty.
func (o *object) str(k, s string) *object {
	if s != "" {
		o.set(k, s)
	}
	return o
}

// flag sets member k to true when b is.
func (o *object) flag(k string, b bool) *object {
	if b {
		o.set(k, true)
	}
	return o
}

// get returns member k, or nil.
func (o *object) get(k string) any { return o.vals[k] }

// has reports whether o has member k.
func (o *object) has(k string) bool {
	_, ok := o.vals[k]
	return ok
}

// del removes member k.
func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			return
		}
	}
}

// rename renames member from to to, in place; a member already named to
// is dropped.
func (o *object) rename(from, to string) {
	v, ok := o.vals[from]
	if !ok {
		return
	}
	o.del(to)
	for i, key := range o.keys {
		if key == from {
			o.keys[i] = to
		}
	}
	delete(o.vals, from)
	o.vals[to] = v
}

// clone returns a copy of o whose objects and arrays are copies too.
func (o *object) clone() *object {
	c := &object{keys: append([]string(nil), o.keys...), vals: make(map[string]any, len(o.vals))}
	for k, v := range o.vals {
		c.vals[k] = cloneValue(v)
	}
	return c
}

// cloneValue copies v deeply.
func cloneValue(v any) any {
	switch v := v.(type) {
	case *object:
		return v.clone()
	case []any:
		c := make([]any, len(v))
		for i, x := range v {
			c[i] = cloneValue(x)
		}
		return c
	}
	return v
}

// parse decodes one JSON value, keeping the order of object members;
// numbers are kept as written. It reads gen/jsonschema's output: it
// scans the bytes once, and leaves strings with escapes or invalid UTF-8
// to encoding/json.
func parse(data []byte) (any, error) {
	p := &parser{data: data}
	v, err := p.value(0)
	if err != nil {
		return nil, fmt.Errorf("openrpc: decoding JSON: %w", err)
	}
	if p.space(); p.i < len(data) {
		return nil, errors.New("openrpc: data after the JSON value")
	}
	return v, nil
}

// maxDepth bounds the nesting of the values parse reads.
const maxDepth = 10000

// parser reads one JSON value from data, from offset i.
type parser struct {
	data []byte
	i    int
}

// space skips white space.
func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// next skips white space and reports whether the next byte is c, taking
// it if so.
func (p *parser) next(c byte) bool {
	p.space()
	if p.i < len(p.data) && p.data[p.i] == c {
		p.i++
		return true
	}
	return false
}

// errorf reports a syntax error at the current offset.
func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

// value reads the next value, nested depth deep.
func (p *parser) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested too deeply")
	}
	p.space()
	if p.i >= len(p.data) {
		return nil, p.errorf("unexpected end of JSON input")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		p.i++
		o := obj()
		if p.next('}') {
			return o, nil
		}
		for {
			p.space()
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			if !p.next(':') {
				return nil, p.errorf("want ':' after an object key")
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			o.set(k, v)
			if p.next('}') {
				return o, nil
			}
			if !p.next(',') {
				return nil, p.errorf("want ',' or '}' after an object member")
			}
		}
	case c == '[':
		p.i++
		list := []any{}
		if p.next(']') {
			return list, nil
		}
		for {
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
			if p.next(']') {
				return list, nil
			}
			if !p.next(',') {
				return nil, p.errorf("want ',' or ']' after an array element")
			}
		}
	case c == '"':
		return p.str()
	case c == '-' || '0' <= c && c <= '9':
		start := p.i
		for p.i < len(p.data) && bytes.IndexByte([]byte("+-.eE0123456789"), p.data[p.i]) >= 0 {
			p.i++
		}
		num := p.data[start:p.i]
		if !json.Valid(num) {
			return nil, p.errorf("invalid number %q", num)
		}
		return json.Number(num), nil
	}
	for _, lit := range []struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if bytes.HasPrefix(p.data[p.i:], []byte(lit.text)) {
			p.i += len(lit.text)
			return lit.v, nil
		}
	}
	return nil, p.errorf("invalid character %q", p.data[p.i])
}

// str reads a string.
func (p *parser) str() (string, error) {
	if p.i >= len(p.data) || p.data[p.i] != '"' {
		return "", p.errorf("want a string")
	}
	start := p.i
	plain := true // no escape, and valid UTF-8
	for p.i++; p.i < len(p.data); p.i++ {
		switch c := p.data[p.i]; {
		case c == '"':
			p.i++
			raw := p.data[start:p.i]
			if plain && utf8.Valid(raw) {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", err
			}
			return s, nil
		case c == '\\':
			plain = false
			p.i++
		case c < 0x20:
			return "", p.errorf("control character in a string")
		}
	}
	return "", p.errorf("unterminated string")
}

// encode writes v as JSON indented with two spaces, without HTML escapes,
// with a trailing newline.
func encode(v any) ([]byte, error) {
	var e encoder
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return append(e.buf, '\n'), nil
}

// encoder appends indented JSON to buf.
type encoder struct {
	buf []byte
}

// newline starts a new line at depth.
func (e *encoder) newline(depth int) {
	e.buf = append(e.buf, '\n')
	for range depth {
		e.buf = append(e.buf, ' ', ' ')
	}
}

// value writes v, whose first line is already indented to depth.
func (e *encoder) value(v any, depth int) error {
	switch v := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case string:
		e.buf = jsonstr.Append(e.buf, v, false)
	case int64:
		e.buf = strconv.AppendInt(e.buf, v, 10)
	case json.Number:
		if !json.Valid([]byte(v)) {
			return fmt.Errorf("openrpc: invalid number %q", string(v))
		}
		e.buf = append(e.buf, v...)
	case *object:
		if len(v.keys) == 0 {
			e.buf = append(e.buf, "{}"...)
			return nil
		}
		e.buf = append(e.buf, '{')
		for i, k := range v.keys {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.newline(depth + 1)
			e.buf = jsonstr.Append(e.buf, k, false)
			e.buf = append(e.buf, ':', ' ')
			if err := e.value(v.vals[k], depth+1); err != nil {
				return err
			}
		}
		e.newline(depth)
		e.buf = append(e.buf, '}')
	case []any:
		if len(v) == 0 {
			e.buf = append(e.buf, "[]"...)
			return nil
		}
		e.buf = append(e.buf, '[')
		for i, x := range v {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.newline(depth + 1)
			if err := e.value(x, depth+1); err != nil {
				return err
			}
		}
		e.newline(depth)
		e.buf = append(e.buf, ']')
	default:
		return fmt.Errorf("openrpc: cannot encode a %T", v)
	}
	return nil
}
