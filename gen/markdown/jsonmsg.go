package markdown

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/rpcgen/rpcgen/idl"
)

// jsonString returns s as a JSON string, without escaping <, > and &.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

// exampleID returns the JSON text of the id of an example request, in the
// protocol's id style.
func (d *doc) exampleID() string {
	if d.p.IDStyle == idl.IDString {
		return `"1"`
	}
	return "1"
}

// member is one member of a JSON object being built.
type member struct {
	name  string
	value []byte // JSON text; the member is left out when nil
}

// object builds a compact JSON object from members, in order.
func object(members ...member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, m := range members {
		if m.value == nil {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(jsonString(m.name))
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// raw returns the JSON text of v, or nil for a nil value.
func raw(v *idl.Value) []byte {
	if v == nil {
		return nil
	}
	return v.JSON
}

// requestJSON returns a compact request, or a notification when id is "".
func requestJSON(method, id string, params []byte) []byte {
	var idJSON []byte
	if id != "" {
		idJSON = []byte(id)
	}
	return object(
		member{"jsonrpc", []byte(`"2.0"`)},
		member{"id", idJSON},
		member{"method", []byte(jsonString(method))},
		member{"params", params},
	)
}

// responseJSON returns the compact response to example ex of a request
// with the given id.
func responseJSON(id string, ex *idl.Example) []byte {
	if e := ex.Error; e != nil {
		code := int64(0)
		if e.Error != nil {
			code = e.Error.Code
		}
		errObj := object(
			member{"code", []byte(strconv.FormatInt(code, 10))},
			member{"message", []byte(jsonString(e.Message))},
			member{"data", raw(e.Data)},
		)
		return object(member{"jsonrpc", []byte(`"2.0"`)}, member{"id", []byte(id)}, member{"error", errObj})
	}
	result := raw(ex.Result)
	if result == nil {
		result = []byte("null")
	}
	return object(member{"jsonrpc", []byte(`"2.0"`)}, member{"id", []byte(id)}, member{"result", result})
}

// compact returns msg without insignificant white space.
func compact(msg []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, msg); err != nil {
		return nil, fmt.Errorf("invalid JSON %.60q: %w", msg, err)
	}
	return b.Bytes(), nil
}

// pretty returns msg indented by two spaces.
func pretty(msg []byte) (string, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, msg, "", "  "); err != nil {
		return "", fmt.Errorf("invalid JSON %.60q: %w", msg, err)
	}
	return b.String(), nil
}

// jsonBlock writes msg as a pretty-printed ```json block.
func (d *doc) jsonBlock(msg []byte) {
	s, err := pretty(msg)
	if err != nil {
		d.fail(err)
		return
	}
	d.b.WriteString("```json\n" + s + "\n```\n\n")
}

// jsonCode returns a value as compact JSON in a code span, for tables.
func (d *doc) jsonCode(v *idl.Value) string {
	c, err := compact(v.JSON)
	if err != nil {
		d.fail(err)
		return ""
	}
	return code(string(c))
}
