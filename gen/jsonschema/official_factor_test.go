package jsonschema_test

import (
	"maps"
	"slices"
)

// A union of object schemas that differ in one member only accepts the
// same values as one object schema whose member is the union of theirs:
// {a, m: X} | {a, m: Y} is {a, m: X | Y}. The IDL may write such a union
// that way, when its variants could not be told apart by their members.

// factored returns the object schema equivalent to the union of the
// official object schemas vs, and whether there is one.
func (c *comparer) factored(vs []map[string]any) (map[string]any, bool) {
	if len(vs) < 2 {
		return nil, false
	}
	var objs []map[string]any
	for _, v := range vs {
		o := c.merged(c.off, c.resolve(c.off, v, ""))
		if typeOf(o) != "object" {
			return nil, false
		}
		objs = append(objs, o)
	}
	base := objs[0]
	bp, _ := base["properties"].(map[string]any)
	member := ""
	for _, o := range objs[1:] {
		if !sameExcept(base, o, "properties") {
			return nil, false
		}
		op, _ := o["properties"].(map[string]any)
		if !slices.Equal(slices.Sorted(maps.Keys(bp)), slices.Sorted(maps.Keys(op))) {
			return nil, false
		}
		for name := range bp {
			if jsonOf(bp[name]) == jsonOf(op[name]) {
				continue
			}
			if member != "" && member != name {
				return nil, false
			}
			member = name
		}
	}
	if member == "" {
		return base, true
	}
	var alternatives []any
	for _, o := range objs {
		alternatives = append(alternatives, o["properties"].(map[string]any)[member])
	}
	props := maps.Clone(bp)
	props[member] = map[string]any{"anyOf": alternatives}
	out := maps.Clone(base)
	out["properties"] = props
	return out, true
}

// sameExcept reports whether a and b hold the same keywords with the same
// values, but for key; required lists compare as sets.
func sameExcept(a, b map[string]any, key string) bool {
	for _, k := range sortedUnion(a, b) {
		switch k {
		case key:
		case "required":
			if !maps.Equal(requiredOf(a), requiredOf(b)) {
				return false
			}
		default:
			if jsonOf(a[k]) != jsonOf(b[k]) {
				return false
			}
		}
	}
	return true
}

// matchFactored pairs each unused object variant of ours with the official
// variants left over that it stands for together, and returns the official
// variants still left over.
func (c *comparer) matchFactored(path string, left, vb []map[string]any, used []bool) []map[string]any {
	for j, y := range vb {
		if used[j] || len(left) < 2 {
			continue
		}
		ours := c.resolve(c.our, y, "")
		if typeOf(ours) != "object" {
			continue
		}
		var group, rest []map[string]any
		for _, x := range left {
			if o := c.merged(c.off, c.resolve(c.off, x, "")); typeOf(o) == "object" && sameMembers(o, ours) {
				group = append(group, x)
			} else {
				rest = append(rest, x)
			}
		}
		f, ok := c.factored(group)
		if !ok {
			continue
		}
		n := len(c.diffs)
		c.compareValue(path, f, ours)
		same := len(c.diffs) == n
		c.diffs = c.diffs[:n]
		if same {
			used[j] = true
			left = rest
		}
	}
	return left
}

// sameMembers reports whether a and b declare the same member names.
func sameMembers(a, b map[string]any) bool {
	pa, _ := a["properties"].(map[string]any)
	pb, _ := b["properties"].(map[string]any)
	return slices.Equal(slices.Sorted(maps.Keys(pa)), slices.Sorted(maps.Keys(pb)))
}
