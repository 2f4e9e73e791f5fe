package jsonschema_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// This file compares two JSON Schema documents definition by definition:
// an official one and one generated here. It looks only at what decides
// validity (types, constants, enums, formats, bounds, members, required
// members, extra members and union variants), not at annotations, and it
// reads through $refs and allOf, so that a definition written inline on
// one side and named on the other compares equal.

// schemaDoc is a JSON Schema document reduced to its $defs.
type schemaDoc struct {
	defs map[string]map[string]any
	// open names the definitions that keep undeclared members although
	// their schema does not say so (IDL objects with additional: any).
	open map[string]bool
}

// parseSchemaDoc decodes a JSON Schema document with $defs.
func parseSchemaDoc(data []byte) (*schemaDoc, error) {
	var doc struct {
		Defs map[string]map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Defs) == 0 {
		return nil, fmt.Errorf("no $defs")
	}
	return &schemaDoc{defs: doc.Defs, open: map[string]bool{}}, nil
}

// difference is one way the generated schema differs from the official
// one: path names the place in the official schema (Def.member[]{}...),
// aspect what differs (definition, member, required, type, enum, const,
// format, minimum, maximum, additionalProperties, variants, params, ...).
type difference struct {
	path, aspect, detail string
}

func (d difference) key() string    { return d.path + " " + d.aspect }
func (d difference) String() string { return d.key() + ": " + d.detail }

// comparer compares the official document off with ours.
type comparer struct {
	off, our *schemaDoc
	names    map[string]string // official definition -> ours, where the names differ
	diffs    []difference
	active   map[[2]string]bool // pairs of definitions being compared (cycles)
	reached  map[string]bool    // our definitions some comparison looked at
}

func newComparer(off, our *schemaDoc, names map[string]string) *comparer {
	return &comparer{off: off, our: our, names: names, active: map[[2]string]bool{}, reached: map[string]bool{}}
}

func (c *comparer) add(path, aspect, format string, args ...any) {
	c.diffs = append(c.diffs, difference{path, aspect, fmt.Sprintf(format, args...)})
}

// ourName returns our name of the official definition name.
func (c *comparer) ourName(name string) string {
	if n, ok := c.names[name]; ok {
		return n
	}
	return name
}

// definition compares the official definition name with ours.
func (c *comparer) definition(name string) {
	ours := c.ourName(name)
	if c.our.defs[ours] == nil {
		c.add(name, "definition", "missing from ours")
		return
	}
	c.reached[ours] = true
	c.compare(name, c.off.defs[name], c.our.defs[ours], ours)
}

// unreached reports our definitions no comparison looked at.
func (c *comparer) unreached() {
	for _, name := range slices.Sorted(maps.Keys(c.our.defs)) {
		if !c.reached[name] {
			c.add(name, "definition", "ours only")
		}
	}
}

func refName(s map[string]any) (string, bool) {
	ref, ok := s["$ref"].(string)
	return strings.TrimPrefix(ref, "#/$defs/"), ok
}

// resolve follows the $refs of s in d. ourDef names the definition s is,
// when known, for the open set.
func (c *comparer) resolve(d *schemaDoc, s map[string]any, ourDef string) map[string]any {
	for range 64 {
		name, ok := refName(s)
		if !ok {
			break
		}
		ourDef = ""
		if d == c.our {
			c.reached[name] = true
			ourDef = name
		}
		if s = d.defs[name]; s == nil {
			return map[string]any{"$ref": "(unknown " + name + ")"}
		}
	}
	if d == c.our && c.our.open[ourDef] && s["additionalProperties"] == nil {
		s = maps.Clone(s)
		s["additionalProperties"] = true
	}
	return s
}

// merged returns s with its allOf parts merged into one object schema.
func (c *comparer) merged(d *schemaDoc, s map[string]any) map[string]any {
	parts, ok := s["allOf"].([]any)
	if !ok {
		return s
	}
	out := maps.Clone(s)
	delete(out, "allOf")
	props := map[string]any{}
	var required []any
	if p, ok := s["properties"].(map[string]any); ok {
		maps.Copy(props, p)
	}
	if r, ok := s["required"].([]any); ok {
		required = append(required, r...)
	}
	for _, part := range parts {
		p := c.merged(d, c.resolve(d, part.(map[string]any), ""))
		if pp, ok := p["properties"].(map[string]any); ok {
			maps.Copy(props, pp)
		}
		if r, ok := p["required"].([]any); ok {
			required = append(required, r...)
		}
		for _, k := range []string{"type", "additionalProperties"} {
			if v, ok := p[k]; ok {
				out[k] = v
			}
		}
	}
	out["type"], out["properties"], out["required"] = "object", props, required
	return out
}

// compare compares the official schema a with our schema b at path;
// ourDef names the definition b is, if any.
func (c *comparer) compare(path string, a, b map[string]any, ourDef string) {
	ra, aRef := refName(a)
	rb, bRef := refName(b)
	if aRef && bRef {
		if c.ourName(ra) == rb && c.off.defs[ra] != nil && c.our.defs[rb] != nil {
			c.reached[rb] = true
			return // compared as definitions of their own
		}
		key := [2]string{ra, rb}
		if c.active[key] {
			return
		}
		c.active[key] = true
		defer delete(c.active, key)
	}
	a = c.merged(c.off, c.resolve(c.off, a, ""))
	b = c.merged(c.our, c.resolve(c.our, b, ourDef))
	va, ua := c.variants(c.off, a)
	vb, ub := c.variants(c.our, b)
	switch {
	case ua && ub:
		c.compareVariants(path, va, vb)
	case ua && typeOf(b) == "object":
		if f, ok := c.factored(va); ok {
			c.compareValue(path, f, b)
			return
		}
		c.add(path, "variants", "official %s, ours %s", shape(a, va), shape(b, vb))
	case ua || ub:
		c.add(path, "variants", "official %s, ours %s", shape(a, va), shape(b, vb))
	default:
		c.compareValue(path, a, b)
	}
}

// variants returns the variants of a union schema, nested unions and
// type lists flattened, and whether s is a union.
func (c *comparer) variants(d *schemaDoc, s map[string]any) ([]map[string]any, bool) {
	list, ok := s["anyOf"].([]any)
	if !ok {
		list, ok = s["oneOf"].([]any)
	}
	if !ok {
		types, ok := s["type"].([]any)
		if !ok || len(types) < 2 {
			return nil, false
		}
		var out []map[string]any
		for _, t := range types {
			out = append(out, map[string]any{"type": t})
		}
		return out, true
	}
	var out []map[string]any
	for _, v := range list {
		vs := v.(map[string]any)
		if nested, ok := c.variants(d, c.resolve(d, vs, "")); ok {
			out = append(out, nested...)
			continue
		}
		out = append(out, vs)
	}
	return out, true
}

// compareVariants pairs the official variants with ours: by definition
// name first, then by structure.
func (c *comparer) compareVariants(path string, va, vb []map[string]any) {
	used := make([]bool, len(vb))
	var left []map[string]any
	for _, x := range va {
		j := c.match(path, x, vb, used)
		if j < 0 {
			left = append(left, x)
			continue
		}
		used[j] = true
	}
	left = c.matchFactored(path, left, vb, used)
	var missing, extra []string
	for _, x := range left {
		missing = append(missing, describe(x))
	}
	for j, y := range vb {
		if !used[j] {
			extra = append(extra, describe(y))
		}
	}
	if len(missing)+len(extra) > 0 {
		c.add(path, "variants", "official only [%s], ours only [%s]", strings.Join(missing, ", "), strings.Join(extra, ", "))
	}
}

func (c *comparer) match(path string, x map[string]any, vb []map[string]any, used []bool) int {
	if name, ok := refName(x); ok {
		for j, y := range vb {
			if n, ok := refName(y); ok && !used[j] && n == c.ourName(name) {
				c.reached[n] = true
				return j
			}
		}
	}
	for j, y := range vb {
		if used[j] {
			continue
		}
		n := len(c.diffs)
		c.compare(path, x, y, "")
		same := len(c.diffs) == n
		c.diffs = c.diffs[:n]
		if same {
			return j
		}
	}
	return -1
}

// keywords are the validation keywords compared as they are.
var keywords = []string{"const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "pattern", "uniqueItems"}

func (c *comparer) compareValue(path string, a, b map[string]any) {
	if ta, tb := typeOf(a), typeOf(b); ta != tb {
		c.add(path, "type", "official %s, ours %s", ta, tb)
		return
	}
	for _, k := range keywords {
		if ja, jb := jsonOf(a[k]), jsonOf(b[k]); ja != jb {
			c.add(path, k, "official %s, ours %s", ja, jb)
		}
	}
	if ea, eb := enumOf(a), enumOf(b); ea != eb {
		c.add(path, "enum", "official %s, ours %s", ea, eb)
	}
	if fa, fb := formatOf(a), formatOf(b); fa != fb {
		c.add(path, "format", "official %q, ours %q", fa, fb)
	}
	switch typeOf(a) {
	case "object":
		c.compareObject(path, a, b)
	case "array":
		c.compare(path+"[]", schemaAt(a, "items"), schemaAt(b, "items"), "")
	}
}

func (c *comparer) compareObject(path string, a, b map[string]any) {
	pa, _ := a["properties"].(map[string]any)
	pb, _ := b["properties"].(map[string]any)
	for _, name := range sortedUnion(pa, pb) {
		at := path + "." + name
		switch {
		case pa[name] == nil:
			c.add(at, "member", "ours only")
		case pb[name] == nil:
			c.add(at, "member", "official only")
		default:
			c.compare(at, pa[name].(map[string]any), pb[name].(map[string]any), "")
		}
	}
	qa, qb := requiredOf(a), requiredOf(b)
	for _, name := range sortedUnion(qa, qb) {
		if qa[name] != qb[name] {
			c.add(path+"."+name, "required", "official %s, ours %s", requiredness(qa[name]), requiredness(qb[name]))
		}
	}
	xa, xb := extraOf(a), extraOf(b)
	switch {
	case xa == nil && xb == nil:
	case xa == nil || xb == nil || isAny(xa) != isAny(xb):
		c.add(path, "additionalProperties", "official %s, ours %s", describeExtra(xa), describeExtra(xb))
	case !isAny(xa):
		c.compare(path+"{}", xa, xb, "")
	}
}

// typeOf returns the JSON type a schema requires, "any" for none.
func typeOf(s map[string]any) string {
	if t, ok := s["type"].(string); ok {
		return t
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	if ref, ok := s["$ref"].(string); ok {
		return ref
	}
	return "any"
}

func formatOf(s map[string]any) string {
	if s["contentEncoding"] == "base64" || s["format"] == "byte" {
		return "base64"
	}
	f, _ := s["format"].(string)
	return f
}

func enumOf(s map[string]any) string {
	list, ok := s["enum"].([]any)
	if !ok {
		return "none"
	}
	var vals []string
	for _, v := range list {
		vals = append(vals, jsonOf(v))
	}
	slices.Sort(vals)
	return "[" + strings.Join(vals, " ") + "]"
}

func requiredOf(s map[string]any) map[string]any {
	out := map[string]any{}
	list, _ := s["required"].([]any)
	for _, v := range list {
		out[v.(string)] = true
	}
	return out
}

func requiredness(required any) string {
	if required != nil {
		return "required"
	}
	return "optional"
}

// extraOf returns the schema of the undeclared members s accepts, nil
// when it does not say.
func extraOf(s map[string]any) map[string]any {
	switch x := s["additionalProperties"].(type) {
	case bool:
		if x {
			return map[string]any{}
		}
		return map[string]any{"not": map[string]any{}}
	case map[string]any:
		return x
	}
	return nil
}

func isAny(s map[string]any) bool { return len(s) == 0 }

func describeExtra(s map[string]any) string {
	switch {
	case s == nil:
		return "declares no other members"
	case isAny(s):
		return "keeps other members"
	}
	return "keeps other members of " + describe(s)
}

func schemaAt(s map[string]any, key string) map[string]any {
	if v, ok := s[key].(map[string]any); ok {
		return v
	}
	return map[string]any{}
}

func sortedUnion(a, b map[string]any) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func jsonOf(v any) string {
	if v == nil {
		return "none"
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// describe names a schema in a difference: its definition, or its JSON
// without annotations.
func describe(s map[string]any) string {
	if name, ok := refName(s); ok {
		return name
	}
	s = maps.Clone(s)
	for _, k := range []string{"title", "description", "default", "examples", "deprecated"} {
		delete(s, k)
	}
	d := jsonOf(s)
	if len(d) > 80 {
		d = d[:77] + "..."
	}
	return d
}

// shape says whether s is a union (of its variants v) or of which type.
func shape(s map[string]any, v []map[string]any) string {
	if v != nil {
		return fmt.Sprintf("a union of %d variants", len(v))
	}
	return "of type " + typeOf(s)
}
