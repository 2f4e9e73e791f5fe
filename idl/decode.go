package idl

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// decoder reads the node tree of one file.
type decoder struct {
	conv *converter
	errs *errorList
}

// keyed is a mapping node whose keys were checked against a known set.
type keyed struct {
	n *node
	m map[string]entry
}

// has reports whether key k is present.
func (o keyed) has(k string) bool {
	_, ok := o.m[k]
	return ok
}

// get returns the value of key k, or nil.
func (o keyed) get(k string) *node {
	if e, ok := o.m[k]; ok {
		return e.val
	}
	return nil
}

// keyPos returns the position of key k, or of the mapping.
func (o keyed) keyPos(k string) Pos {
	if e, ok := o.m[k]; ok {
		return e.key.pos
	}
	return o.n.pos
}

// keyName returns the text of a mapping key.
func keyName(k *node) string {
	if k.kind == nNull {
		return ""
	}
	return k.str
}

// entries returns the entries of mapping n, reporting duplicate keys
// (which are then skipped). what names the mapping in messages. It returns
// nil, after reporting, when n is not a mapping; an empty value (null) is
// an empty mapping.
func (d *decoder) entries(n *node, what string) []entry {
	if n.kind == nNull {
		return nil
	}
	if n.kind != nMap {
		d.errs.add(n.pos, "%s must be a mapping of key: value lines, not a %s", what, n.kind)
		return nil
	}
	seen := map[string]Pos{}
	var out []entry
	for _, e := range n.ents {
		k := keyName(e.key)
		if first, dup := seen[k]; dup {
			d.errs.add(e.key.pos, "duplicate key %q in %s (first at line %d); remove or rename one", k, what, first.Line)
			continue
		}
		seen[k] = e.key.pos
		out = append(out, e)
	}
	return out
}

// keys reads mapping n whose keys must be among allowed, reporting unknown
// keys with a suggestion.
func (d *decoder) keys(n *node, what string, allowed ...string) (keyed, bool) {
	o := keyed{n: n, m: map[string]entry{}}
	if n.kind != nMap && n.kind != nNull {
		d.errs.add(n.pos, "%s must be a mapping of key: value lines, not a %s", what, n.kind)
		return o, false
	}
	for _, e := range d.entries(n, what) {
		k := keyName(e.key)
		if !slices.Contains(allowed, k) {
			d.errs.add(e.key.pos, "unknown key %q in %s%s", k, what, suggest(k, allowed, "; valid keys: "+strings.Join(allowed, ", ")))
			continue
		}
		o.m[k] = e
	}
	return o, true
}

// str reads a string scalar.
func (d *decoder) str(n *node, what string) (string, bool) {
	if n == nil {
		return "", false
	}
	if n.kind != nString {
		if n.kind == nInt || n.kind == nFloat || n.kind == nBool {
			d.errs.add(n.pos, "%s must be a string; quote it: \"%s\"", what, n.raw)
		} else {
			d.errs.add(n.pos, "%s must be a string, not a %s", what, n.kind)
		}
		return "", false
	}
	return n.str, true
}

// optStr reads an optional string key.
func (d *decoder) optStr(o keyed, k, what string) string {
	s, _ := d.str(o.get(k), what)
	return s
}

// name reads a string scalar as a nameRef.
func (d *decoder) name(n *node, what string) nameRef {
	s, _ := d.str(n, what)
	if n == nil {
		return nameRef{}
	}
	return nameRef{name: s, pos: n.pos}
}

// boolean reads a boolean scalar.
func (d *decoder) boolean(n *node, what string) bool {
	if n == nil {
		return false
	}
	if n.kind != nBool {
		d.errs.add(n.pos, "%s must be true or false, not %s", what, describeNode(n))
		return false
	}
	return n.b
}

// integer reads an integer scalar that fits in an int64.
func (d *decoder) integer(n *node, what string) (int64, bool) {
	if n == nil {
		return 0, false
	}
	if n.kind == nInt && !n.intOK {
		d.errs.add(n.pos, "%s %s", what, outOfRange(n))
		return 0, false
	}
	if n.kind != nInt {
		d.errs.add(n.pos, "%s must be an integer, not %s", what, describeNode(n))
		return 0, false
	}
	return n.i, true
}

// outOfRange says that the integer n does not fit in an int64.
func outOfRange(n *node) string {
	return fmt.Sprintf("%s is out of range for a 64-bit integer (%d to %d)", n.raw, math.MinInt64, math.MaxInt64)
}

// duration reads a timeout: a Go duration such as "10s" or "1m30s", or
// "none".
func (d *decoder) duration(n *node, what string) durationSpec {
	if n == nil {
		return durationSpec{}
	}
	ds := durationSpec{set: true, pos: n.pos}
	s, ok := d.str(n, what)
	if !ok || s == "none" {
		return ds
	}
	v, err := time.ParseDuration(s)
	switch {
	case err != nil:
		d.errs.add(n.pos, "%s %q is not a duration; write a number with a unit such as 500ms, 10s or 2m, or none", what, s)
	case v <= 0:
		d.errs.add(n.pos, "%s must be positive; write none for no timeout", what)
	default:
		ds.d = int64(v)
	}
	return ds
}

// oneOf reads a string that must be one of options.
func (d *decoder) oneOf(n *node, what string, options ...string) nameRef {
	r := d.name(n, what)
	if r.name != "" || (n != nil && n.kind == nString) {
		if !slices.Contains(options, r.name) {
			d.errs.add(r.pos, "%s %q is not supported; use %s%s", what, r.name, orList(options), suggest(r.name, options, ""))
			r.name = ""
		}
	}
	return r
}

// stringList reads a list of strings, or a single string as a list of one.
func (d *decoder) stringList(n *node, what string) []nameRef {
	if n == nil || n.kind == nNull {
		return nil
	}
	if n.kind == nString {
		return []nameRef{{n.str, n.pos}}
	}
	if n.kind != nSeq {
		d.errs.add(n.pos, "%s must be a list of strings, not a %s", what, n.kind)
		return nil
	}
	var out []nameRef
	for _, it := range n.items {
		if s, ok := d.str(it, what+" entry"); ok {
			out = append(out, nameRef{s, it.pos})
		}
	}
	return out
}

// describeNode describes a node's value in messages.
func describeNode(n *node) string {
	switch n.kind {
	case nMap, nSeq:
		return "a " + n.kind.String()
	case nString:
		return fmt.Sprintf("the string %q", n.str)
	case nNull:
		return "null"
	}
	return n.raw
}

// orList joins options as "a, b or c".
func orList(options []string) string {
	if len(options) < 2 {
		return strings.Join(options, "")
	}
	return strings.Join(options[:len(options)-1], ", ") + " or " + options[len(options)-1]
}
