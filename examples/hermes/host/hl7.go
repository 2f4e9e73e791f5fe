package main

import (
	"errors"
	"fmt"
	"regexp"
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
