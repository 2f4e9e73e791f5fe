package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The structured formats (json, yaml, toml) write one tree, built as
// Hermes builds it: a root object {segments: [...]}, each segment an
// object {segment, fields}, fields keyed by 1-based index strings in
// field order. A field with repetitions is an array of them; a
// repetition, a component and a subcomponent that is not split further
// is a string; one that is split is an object of its non-empty parts
// keyed the same way. A part with nothing in it is null: left out of
// objects, kept in arrays. The nodes are string, nil, []any and *object.

// object is a JSON object that keeps its members in order.
type object struct {
	keys []string
	vals []any
}

func (o *object) add(key string, v any) {
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
}

// tree returns the message as the tree the structured formats write.
func (m *message) tree() *object {
	segs := make([]any, 0, len(m.segs))
	for _, s := range m.segs {
		fields := &object{}
		for f := 1; f < len(s); f++ {
			var v any = s[f]
			if !(s[0] == "MSH" && f <= 2) {
				v = fieldNode(s[f])
			}
			if !emptyNode(v) {
				fields.add(strconv.Itoa(f), v)
			}
		}
		seg := &object{}
		seg.add("segment", s[0])
		seg.add("fields", fields)
		segs = append(segs, seg)
	}
	root := &object{}
	root.add("segments", segs)
	return root
}

// fieldNode splits one encoded field into repetitions, components and
// subcomponents.
func fieldNode(field string) any {
	reps := strings.Split(field, "~")
	if len(reps) == 1 {
		return partsNode(reps[0], "^", func(c string) any { return partsNode(c, "&", nil) })
	}
	arr := make([]any, len(reps))
	for i, r := range reps {
		arr[i] = partsNode(r, "^", func(c string) any { return partsNode(c, "&", nil) })
	}
	return arr
}

// partsNode splits s by sep: one part is that part (through inner, if
// any), several are an object of the non-empty ones. Nothing is nil.
func partsNode(s, sep string, inner func(string) any) any {
	leaf := func(p string) any {
		if inner != nil {
			return inner(p)
		}
		if p == "" {
			return nil
		}
		return p
	}
	parts := strings.Split(s, sep)
	if len(parts) == 1 {
		return leaf(parts[0])
	}
	obj := &object{}
	for i, p := range parts {
		if v := leaf(p); !emptyNode(v) {
			obj.add(strconv.Itoa(i+1), v)
		}
	}
	if len(obj.keys) == 0 {
		return nil
	}
	return obj
}

// emptyNode reports whether v is null, "", [] or {}.
func emptyNode(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case *object:
		return len(v.keys) == 0
	}
	return false
}

// jsonMessage is the JSON format of a message, as read back.
type jsonMessage struct {
	Segments []jsonSegment `json:"segments"`
}

type jsonSegment struct {
	Segment string                     `json:"segment"`
	Fields  map[string]json.RawMessage `json:"fields"`
}

// parseJSON reads the JSON format back.
func parseJSON(text string) (*message, error) {
	var in jsonMessage
	if err := json.Unmarshal([]byte(text), &in); err != nil {
		return nil, err
	}
	var lines []string
	for _, js := range in.Segments {
		fields := []string{js.Segment}
		for key, raw := range js.Fields {
			f, err := strconv.Atoi(key)
			if err != nil || f < 1 || f > maxPathIndex {
				return nil, fmt.Errorf("segment %s: field key %q is not a 1-based index up to %d", js.Segment, key, maxPathIndex)
			}
			v, err := join(raw, []string{"~", "^", "&"})
			if err != nil {
				return nil, fmt.Errorf("%s-%d: %w", js.Segment, f, err)
			}
			for len(fields) <= f {
				fields = append(fields, "")
			}
			fields[f] = v
		}
		if js.Segment == "MSH" {
			for len(fields) < 3 {
				fields = append(fields, "")
			}
			fields = append([]string{"MSH"}, fields[2:]...)
		}
		lines = append(lines, strings.Join(fields, "|"))
	}
	return parseHL7(strings.Join(lines, "\r"))
}

// join encodes a JSON string or null, an array of repetitions (at the
// field level only) or an object of parts keyed by index, with the
// separators given for each level.
func join(raw json.RawMessage, seps []string) (string, error) {
	if string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	if t, ok := scalarText(raw); ok {
		return t, nil
	}
	if len(seps) == 3 {
		var reps []json.RawMessage
		if err := json.Unmarshal(raw, &reps); err == nil {
			out := make([]string, len(reps))
			for i, r := range reps {
				if out[i], err = join(r, seps[1:]); err != nil {
					return "", err
				}
			}
			return strings.Join(out, seps[0]), nil
		}
		seps = seps[1:]
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || len(seps) == 0 {
		return "", errors.New("expected a string or an object of parts")
	}
	keys := make([]int, 0, len(obj))
	vals := map[int]string{}
	for k, v := range obj {
		i, err := strconv.Atoi(k)
		if err != nil || i < 1 || i > maxPathIndex {
			return "", fmt.Errorf("part key %q is not a 1-based index up to %d", k, maxPathIndex)
		}
		s, err := join(v, seps[1:])
		if err != nil {
			return "", err
		}
		keys, vals[i] = append(keys, i), s
	}
	sort.Ints(keys)
	parts := []string{}
	for _, i := range keys {
		for len(parts) < i {
			parts = append(parts, "")
		}
		parts[i-1] = vals[i]
	}
	return strings.Join(parts, seps[0]), nil
}

// noAliases refuses YAML with aliases: a few bytes of them can stand for
// more text than the host should build, and a message needs none.
func noAliases(text string) error {
	f, err := parser.ParseBytes([]byte(text), 0)
	if err != nil {
		return err
	}
	for _, doc := range f.Docs {
		if len(ast.Filter(ast.AliasType, doc)) > 0 {
			return errors.New("YAML aliases are not accepted")
		}
	}
	return nil
}

// scalarText returns a JSON number or boolean as its text, as Hermes
// reads one where it expects a string.
func scalarText(raw json.RawMessage) (string, bool) {
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// parseStructured reads a message in one of the structured formats.
func parseStructured(format hermes.MessageFormat, text string) (*message, error) {
	switch format {
	case hermes.MessageFormatJSON:
		return parseJSON(text)
	case hermes.MessageFormatYAML:
		if err := noAliases(text); err != nil {
			return nil, err
		}
		b, err := yaml.YAMLToJSON([]byte(text))
		if err != nil {
			return nil, err
		}
		return parseJSON(string(b))
	case hermes.MessageFormatTOML:
		v, err := readTOML(text)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return parseJSON(string(b))
	}
	return nil, fmt.Errorf("unknown format %q", jsonrpc.Truncate(string(format)))
}
