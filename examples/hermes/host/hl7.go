package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// message is an HL7 v2 message held as segments of fields, each field in
// its encoded form (repetitions, components and subcomponents joined by
// ~ ^ &). Field 0 of a segment is its name; in MSH, field 1 is the field
// separator and field 2 the encoding characters, as HL7 counts them.
type message struct {
	segs [][]string
}

// errPathSyntax marks a path that is not well formed.
var errPathSyntax = errors.New("invalid path")

// errNotFound marks a path naming something the message lacks.
var errNotFound = errors.New("path not found")

// parseHL7 reads a message whose segments are separated by \r, \n or \r\n.
func parseHL7(text string) (*message, error) {
	m := &message{}
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\r' || r == '\n' }) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		parts := strings.Split(line, "|")
		if !segName.MatchString(parts[0]) {
			return nil, fmt.Errorf("segment %d: %q is not a segment name", len(m.segs)+1, parts[0])
		}
		if parts[0] == "MSH" {
			if len(parts) < 2 {
				return nil, errors.New("MSH segment without encoding characters")
			}
			parts = append([]string{"MSH", "|"}, parts[1:]...)
		}
		m.segs = append(m.segs, parts)
	}
	if len(m.segs) == 0 || m.segs[0][0] != "MSH" {
		return nil, errors.New("the message does not start with an MSH segment")
	}
	return m, nil
}

// hl7 encodes the message with \r between segments.
func (m *message) hl7() string {
	lines := make([]string, len(m.segs))
	for i, s := range m.segs {
		if s[0] == "MSH" {
			lines[i] = "MSH|" + strings.Join(s[2:], "|")
			continue
		}
		lines[i] = strings.Join(s, "|")
	}
	return strings.Join(lines, "\r")
}

var (
	segName  = regexp.MustCompile(`^[A-Z][A-Z0-9]{2}$`)
	pathExpr = regexp.MustCompile(`^([A-Z][A-Z0-9]{2})(?:\[([1-9][0-9]*)\])?(?:\.([1-9][0-9]*)(?:\[([1-9][0-9]*)\])?(?:\.([1-9][0-9]*)(?:\.([1-9][0-9]*))?)?)?$`)
)

// maxPathIndex bounds every number of a path: the padding a patch adds
// grows with them, and an extension must not make the host allocate what
// it announces.
const maxPathIndex = 999

// path is a parsed HL7 path; zero numbers are absent parts.
type path struct {
	seg                   string
	occurrence            int // 1-based, 1 when not given
	field, rep, comp, sub int
}

// parsePath reads SEG[N].F[R].C.S, where everything after SEG is optional.
func parsePath(s string) (path, error) {
	g := pathExpr.FindStringSubmatch(s)
	if g == nil {
		return path{}, fmt.Errorf("%w %q: expected SEG[N].F[R].C.S", errPathSyntax, jsonrpc.Truncate(s))
	}
	tooBig := false
	n := func(i, def int) int {
		if g[i] == "" {
			return def
		}
		v, err := strconv.Atoi(g[i])
		if err != nil || v > maxPathIndex {
			tooBig = true
		}
		return v
	}
	p := path{seg: g[1], occurrence: n(2, 1), field: n(3, 0), rep: n(4, 1), comp: n(5, 0), sub: n(6, 0)}
	if tooBig {
		return path{}, fmt.Errorf("%w %q: every number is at most %d", errPathSyntax, jsonrpc.Truncate(s), maxPathIndex)
	}
	if p.seg == "MSH" && (p.field == 1 || p.field == 2) && (p.comp > 0 || g[4] != "") {
		return path{}, fmt.Errorf("%w %q: MSH-1 and MSH-2 have no parts", errPathSyntax, jsonrpc.Truncate(s))
	}
	return p, nil
}

// find returns the index of the segment p names, or -1.
func (m *message) find(p path) int {
	seen := 0
	for i, s := range m.segs {
		if s[0] == p.seg {
			if seen++; seen == p.occurrence {
				return i
			}
		}
	}
	return -1
}

// apply applies one patch: remove, then create, then value.
func (m *message) apply(p path, value *string, remove, create bool) error {
	i := m.find(p)
	if remove {
		if p.field != 0 {
			return fmt.Errorf("%w: remove takes a segment path", errPathSyntax)
		}
		if i < 0 {
			return fmt.Errorf("%w: no %s[%d] segment", errNotFound, p.seg, p.occurrence)
		}
		m.segs = append(m.segs[:i], m.segs[i+1:]...)
		return nil
	}
	if i < 0 && create {
		m.segs = append(m.segs, []string{p.seg})
		i = len(m.segs) - 1
	}
	if i < 0 {
		return fmt.Errorf("%w: no %s[%d] segment", errNotFound, p.seg, p.occurrence)
	}
	if value == nil {
		return nil
	}
	if p.field == 0 {
		return fmt.Errorf("%w: a value needs a field", errPathSyntax)
	}
	if p.seg == "MSH" && p.field <= 2 {
		return fmt.Errorf("%w: MSH-1 and MSH-2 hold the separators and cannot be set", errPathSyntax)
	}
	seg := m.segs[i]
	for len(seg) <= p.field {
		seg = append(seg, "")
	}
	seg[p.field] = setPart(seg[p.field], "~", p.rep, func(rep string) string {
		if p.comp == 0 {
			return *value
		}
		return setPart(rep, "^", p.comp, func(comp string) string {
			if p.sub == 0 {
				return *value
			}
			return setPart(comp, "&", p.sub, func(string) string { return *value })
		})
	})
	m.segs[i] = seg
	return nil
}

// setPart replaces part n (1-based) of s split by sep, padding as needed,
// and drops trailing empty parts.
func setPart(s, sep string, n int, f func(string) string) string {
	parts := strings.Split(s, sep)
	for len(parts) < n {
		parts = append(parts, "")
	}
	parts[n-1] = f(parts[n-1])
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return strings.Join(parts, sep)
}

// jsonMessage is the JSON format of a message.
type jsonMessage struct {
	Segments []jsonSegment `json:"segments"`
}

type jsonSegment struct {
	Segment string                     `json:"segment"`
	Fields  map[string]json.RawMessage `json:"fields"`
}

// json encodes the message in the JSON format: components and
// subcomponents become objects keyed by 1-based index strings, empty
// parts are left out. A field with repetitions stays one encoded string,
// since upstream does not say how repetitions appear.
func (m *message) json() string {
	var out jsonMessage
	for _, s := range m.segs {
		js := jsonSegment{Segment: s[0], Fields: map[string]json.RawMessage{}}
		for f := 1; f < len(s); f++ {
			if s[f] == "" {
				continue
			}
			var v any = s[f]
			if !(s[0] == "MSH" && f <= 2) && !strings.Contains(s[f], "~") {
				v = split(s[f], "^", func(c string) any { return split(c, "&", nil) })
			}
			b, _ := json.Marshal(v)
			js.Fields[strconv.Itoa(f)] = b
		}
		out.Segments = append(out.Segments, js)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// split returns s itself when it has no sep, and otherwise an object of
// its non-empty parts keyed by 1-based index, each passed through inner.
func split(s, sep string, inner func(string) any) any {
	if !strings.Contains(s, sep) {
		if inner != nil {
			return inner(s)
		}
		return s
	}
	obj := map[string]any{}
	for i, p := range strings.Split(s, sep) {
		if p == "" {
			continue
		}
		if inner != nil {
			obj[strconv.Itoa(i+1)] = inner(p)
		} else {
			obj[strconv.Itoa(i+1)] = p
		}
	}
	return obj
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
			if err != nil || f < 1 {
				return nil, fmt.Errorf("segment %s: field key %q is not a 1-based index", js.Segment, key)
			}
			v, err := join(raw, []string{"^", "&"})
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

// join encodes a JSON string, or an object of parts keyed by index, with
// the separators given for each level.
func join(raw json.RawMessage, seps []string) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || len(seps) == 0 {
		return "", errors.New("expected a string or an object of parts")
	}
	keys := make([]int, 0, len(obj))
	vals := map[int]string{}
	for k, v := range obj {
		i, err := strconv.Atoi(k)
		if err != nil || i < 1 {
			return "", fmt.Errorf("part key %q is not a 1-based index", k)
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
