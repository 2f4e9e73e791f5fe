package idl

import (
	"strconv"
)

// mapKeys checks the key types of maps: JSON object keys are strings, so
// a key type is string or integer (written in decimal), or a string or
// integer alias or enum, never nullable or constant.
func (r *resolver) mapKeys() {
	for _, t := range r.keyed {
		k := t.Key
		if k == nil || k.Kind == KindInvalid {
			continue
		}
		u := underlying(k)
		if u == nil {
			continue
		}
		switch {
		case !keyKind(u):
			r.errs.add(k.Pos, "map key %s is %s; map keys are JSON object keys: use string, integer, or a string or integer type (an alias or an enum)", k, describeType(k))
		case nullableChain(k):
			r.errs.add(k.Pos, "map key %s is nullable, but a JSON object key is never null; use a type that is not nullable", k)
		case u.Const != nil:
			r.errs.add(k.Pos, "map key %s is the constant %s, so the map could hold one member only; use an object with that field, or a key type without const", k, u.Const.JSON)
		default:
			continue
		}
		t.Key = &Type{Kind: KindInvalid, Pos: k.Pos}
	}
}

// keyKinds are the scalar kinds a map key may have, each with whether its
// keys are integers (written in decimal on the wire).
var keyKinds = map[Kind]bool{KindString: false, KindInteger: true}

// keyKind reports whether values of u, which is not a reference, can be
// map keys.
func keyKind(u *Type) bool {
	k := u.Kind
	if k == KindEnum {
		k = u.EnumBase
	}
	_, ok := keyKinds[k]
	return ok
}

// IntegerKey reports whether t, the key type of a map, holds integers,
// which are written in decimal on the wire: "12", "-3".
func (t *Type) IntegerKey() bool {
	u := underlying(t)
	if u == nil {
		return false
	}
	k := u.Kind
	if k == KindEnum {
		k = u.EnumBase
	}
	return keyKinds[k]
}

// checkKey checks the key of a map written in a value against the map's
// key type: an integer key is an int64 in decimal, as generated decoders
// read it, and is then checked as that integer; any other key is checked
// as a string.
func (r *resolver) checkKey(k *node, key *Type, path string, depth int) {
	n := &node{kind: nString, pos: k.pos, str: keyName(k), raw: keyName(k)}
	if key.IntegerKey() {
		i, err := strconv.ParseInt(n.str, 10, 64)
		if err != nil || strconv.FormatInt(i, 10) != n.str {
			r.errs.add(k.pos, "%s: key %q is not an integer written in decimal, such as \"12\"; the keys of this map are of type %s", path, n.str, key)
			return
		}
		n = &node{kind: nInt, pos: k.pos, str: n.str, raw: n.str, i: i, intOK: true}
	}
	r.checkDepth(n, key, path+"."+n.str, depth+1)
}
