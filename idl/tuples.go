package idl

import "fmt"

// positional checks the tuples, whose items hold no constants, and the
// objects sent as arrays: their optional fields
// come last, so that leaving them out from the end is unambiguous, and
// they hold no additional members or constants, which an array cannot
// carry.
func (r *resolver) positional() {
	for _, def := range r.p.Types {
		t := def.Type
		if t != nil && t.Kind == KindTuple {
			for i, it := range t.Items {
				if it != nil && it.Const != nil {
					r.errs.add(it.Pos, "item %d of tuple %s is a constant; a position holds a value of a type: write the type, as in string", i, def.Name)
				}
			}
		}
		if t == nil || t.Kind != KindObject || !t.Positional {
			continue
		}
		if t.Additional != nil {
			r.errs.add(def.Pos, "positional object %s has additional members, which an array cannot carry; remove additional: or positional:", def.Name)
		}
		var optional *Field
		for _, f := range t.Fields {
			switch {
			case f.Type != nil && f.Type.Const != nil:
				r.errs.add(f.Pos, "field %q of positional object %s is a constant; a position cannot be told by its value: make it an ordinary field, or the object not positional", f.Name, def.Name)
			case f.Optional && optional == nil:
				optional = f
			case !f.Optional && optional != nil:
				r.errs.add(f.Pos, "required field %q of positional object %s comes after optional field %q; optional fields of a positional object come last: move it up, or make it optional", f.Name, def.Name, optional.Name)
			}
		}
	}
}

// checkTuple checks a written list against a tuple's positions.
func (r *resolver) checkTuple(n *node, t *Type, path string, depth int) {
	if !r.expect(n, nSeq, path, fmt.Sprintf("a list of %d items", len(t.Items))) {
		return
	}
	if len(n.items) != len(t.Items) {
		r.errs.add(n.pos, "%s must be a list of exactly %d items (%s), not %d", path, len(t.Items), t, len(n.items))
		return
	}
	for i, it := range n.items {
		r.checkDepth(it, t.Items[i], fmt.Sprintf("%s[%d]", path, i), depth+1)
	}
}

// checkPositional checks a written list against a positional object: a
// value for each required field, in order, then optional ones; null in
// the place of an optional field leaves it out.
func (r *resolver) checkPositional(n *node, t *Type, path string, depth int) {
	required := 0
	for _, f := range t.Fields {
		if !f.Optional {
			required++
		}
	}
	if !r.expect(n, nSeq, path, "a list of the fields in order") {
		return
	}
	if len(n.items) < required || len(n.items) > len(t.Fields) {
		r.errs.add(n.pos, "%s must be a list of %s items (the fields %s in order), not %d", path, countRange(required, len(t.Fields)), fieldNames(t), len(n.items))
		return
	}
	for i, it := range n.items {
		f := t.Fields[i]
		if f.Optional && it.kind == nNull {
			continue
		}
		r.checkDepth(it, f.Type, fmt.Sprintf("%s[%d]", path, i), depth+1)
	}
}

// countRange writes "2" or "2 to 4".
func countRange(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// fieldNames lists the names of an object's fields.
func fieldNames(t *Type) string {
	var names []string
	for _, f := range t.Fields {
		names = append(names, f.Name)
	}
	return commaSome(names)
}
