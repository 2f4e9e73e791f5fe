package idl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A union without a discriminator decides which variant a value is in one
// step over its choices: its variants, with each variant that is itself a
// union replaced by that union's choices (recursively). The JSON kind of
// the value picks a choice; when several object choices may take an
// object, the object's members decide (see [ChooseObject]). A catch-all
// choice, any as the last variant, takes every value no other choice
// takes.

// Choice is one alternative in the decision of a union without a
// discriminator.
type Choice struct {
	// Variant is the index, in the union's Variants, of the variant that
	// holds the choice: the choice itself, or a union it comes from.
	Variant int
	// Type is the choice's type: never a union.
	Type *Type
	// Object is the object type of a choice that is a non-nullable
	// reference to an object type; nil for other choices.
	Object *Type
	// CatchAll is true for the last choice when its type is any.
	CatchAll bool
}

// Choices returns the choices of the union t without a discriminator, in
// declaration order. The variants of a tagged union nested in t are
// object choices whose tag member is a required constant.
func Choices(t *Type) []Choice {
	var out []Choice
	seen := map[*TypeDef]bool{}
	var add func(t *Type, variant int)
	add = func(t *Type, variant int) {
		if def := unionDef(t); def != nil && !nullableChain(t) {
			if seen[def] {
				return // a cycle, reported by the checks
			}
			seen[def] = true
			for _, v := range def.Type.Variants {
				add(v.Type, variant)
			}
			seen[def] = false
			return
		}
		c := Choice{Variant: variant, Type: t, Object: objectVariant(t)}
		if u := underlying(t); u != nil && u.Kind == KindAny && !t.Nullable {
			c.CatchAll = true
		}
		out = append(out, c)
	}
	for i, v := range t.Variants {
		add(v.Type, i)
	}
	for i := range out[:max(len(out)-1, 0)] {
		out[i].CatchAll = false // only the last choice catches all
	}
	return out
}

// ByMembers reports whether the union t without a discriminator looks at
// the members of a JSON object to pick its variant: when its object
// choices, and its catch-all if it has object choices, come from two or
// more of its variants. Otherwise an object goes to the one variant that
// takes objects, which decodes and checks it alone.
func ByMembers(t *Type) bool {
	from := -1
	objects := false
	for _, c := range Choices(t) {
		if c.Object == nil && !(c.CatchAll && objects) {
			continue
		}
		if objects && c.Variant != from {
			return true
		}
		objects, from = true, c.Variant
	}
	return false
}

// Required returns the names of the required members of the object
// choice c, in field order.
func (c Choice) Required() []string {
	var out []string
	if c.Object != nil {
		for _, f := range c.Object.Fields {
			if !f.Optional {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

// Label names the choice in messages: the name of its type.
func (c Choice) Label() string {
	if c.Type != nil && c.Type.Kind == KindRef && c.Type.Ref != nil {
		return c.Type.Ref.Name
	}
	return describeType(c.Type)
}

// FieldConst returns the constant the field f must hold, following named
// types, or nil when f may hold other values.
func FieldConst(f *Field) *Value {
	if f.Type == nil {
		return nil
	}
	if f.Type.Const != nil {
		return f.Type.Const
	}
	if u := underlying(f.Type); u != nil {
		return u.Const
	}
	return nil
}

// FieldLiterals returns the JSON of every value the field f may hold when
// its type, following named types, is a constant or a closed enum (null
// included when it is nullable), or nil when f may hold other values. An
// object whose member holds a value outside this set does not match the
// object variant that declares f.
func FieldLiterals(f *Field) [][]byte {
	if c := FieldConst(f); c != nil {
		return withNull([][]byte{c.JSON}, f.Type)
	}
	u := underlying(f.Type)
	if u == nil || u.Kind != KindEnum || u.Open || len(u.Values) == 0 {
		return nil
	}
	out := make([][]byte, 0, len(u.Values)+1)
	for _, v := range u.Values {
		b, err := json.Marshal(v.Value)
		if err != nil {
			return nil
		}
		out = append(out, b)
	}
	return withNull(out, f.Type)
}

// withNull appends null to the literals of a nullable type t.
func withNull(lits [][]byte, t *Type) [][]byte {
	if nullableChain(t) {
		return append(lits, []byte("null"))
	}
	return lits
}

// holdsLiteral reports whether the JSON value v is one of lits.
func holdsLiteral(lits [][]byte, v []byte) bool {
	for _, l := range lits {
		if SameJSON(v, l) {
			return true
		}
	}
	return false
}

// ChooseObject applies the decision rule for objects to a JSON object
// whose member names are members, in order (a name written twice counts
// once); value returns the JSON of the i-th member. It returns the index
// in choices of the chosen object choice, or -1 when none matches.
//
// An object matches an object choice when it holds every required member
// of the choice, and each member it holds that the choice declares with a
// constant or a closed enum holds that constant or one of those values
// (see [FieldLiterals]). Among the matching choices, the one whose
// declared fields (inherited ones included) leave the fewest of the
// object's members unexplained wins; of those, the first declared.
func ChooseObject(choices []Choice, members []string, value func(i int) []byte) int {
	return chooseObject(choices, members, value, FieldLiterals)
}

// chooseObject is [ChooseObject], with the literals of a field given by
// literals (as [FieldLiterals] gives them), so that a caller choosing
// many times can remember them.
func chooseObject(choices []Choice, members []string, value func(i int) []byte, literals func(*Field) [][]byte) int {
	held := map[string][]int{} // member name -> its indexes in members
	for i, m := range members {
		held[m] = append(held[m], i)
	}
	best, bestDeclared := -1, -1
	for i, c := range choices {
		if c.Object == nil {
			continue
		}
		declared, ok := matchObject(c.Object, held, value, literals)
		if ok && declared > bestDeclared {
			best, bestDeclared = i, declared
		}
	}
	return best
}

// matchObject reports whether an object holding the members held matches
// the object type t, and how many of its members t declares.
func matchObject(t *Type, held map[string][]int, value func(i int) []byte, literals func(*Field) [][]byte) (declared int, ok bool) {
	for _, f := range t.Fields {
		at := held[f.Name]
		if len(at) == 0 {
			if !f.Optional {
				return 0, false
			}
			continue
		}
		declared++
		if lits := literals(f); lits != nil {
			for _, i := range at {
				if !holdsLiteral(lits, value(i)) {
					return 0, false
				}
			}
		}
	}
	return declared, true
}

// SameJSON reports whether the JSON values a and b are equal: the same
// bytes once compact, or the same value once decoded (so "\u0061" is
// "a", and 1.0 is 1).
func SameJSON(a, b []byte) bool {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if bytes.Equal(a, b) {
		return true
	}
	if len(a) == 0 || len(b) == 0 || jsonKind(a[0]) != jsonKind(b[0]) {
		return false // not JSON, or values of two kinds
	}
	switch jsonKind(a[0]) {
	case 't', 'n':
		return false // a literal has one spelling
	case '"':
		if plainString(a) && plainString(b) {
			return false // each decodes to its bytes, which differ
		}
	case '0':
		if json.Valid(a) && json.Valid(b) {
			x, errX := strconv.ParseFloat(string(a), 64)
			y, errY := strconv.ParseFloat(string(b), 64)
			if errX == nil && errY == nil {
				return x == y
			}
		}
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// jsonKind classes the JSON value starting with c: '"' a string, 't' a
// boolean, 'n' null, '0' a number, '{' an object, '[' an array; c itself
// when it starts none.
func jsonKind(c byte) byte {
	switch {
	case c == 'f':
		return 't'
	case c == '-' || '0' <= c && c <= '9':
		return '0'
	}
	return c
}

// plainString reports whether s is a JSON string without escapes, in
// valid UTF-8: one that decodes to the bytes between its quotes.
func plainString(s []byte) bool {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' || !utf8.Valid(s) {
		return false
	}
	for _, c := range s[1 : len(s)-1] {
		if c == '"' || c == '\\' || c < 0x20 {
			return false
		}
	}
	return true
}

// ObjectRequirements describes, for messages, what an object needs to
// match each object choice of the union t: the name of each choice's
// type, then its required members, quoted, with their constants, as in
// `Text ("text") or Image ("type": "image", "data")`. A choice without
// requirements reads `Any (no member)`.
func ObjectRequirements(t *Type) string {
	var parts []string
	for _, c := range Choices(t) {
		if c.Object == nil {
			continue
		}
		var reqs []string
		for _, f := range c.Object.Fields {
			if f.Optional {
				continue
			}
			s := fmt.Sprintf("%q", f.Name)
			if lits := FieldLiterals(f); lits != nil {
				s += ": " + literalList(lits)
			}
			reqs = append(reqs, s)
		}
		if len(reqs) == 0 {
			reqs = []string{"no member"}
		}
		parts = append(parts, c.Label()+" ("+strings.Join(reqs, ", ")+")")
	}
	if len(parts) > maxListed {
		return fmt.Sprintf("%s or %d more", strings.Join(parts[:maxListed], ", "), len(parts)-maxListed)
	}
	return orList(parts)
}

// literalList writes literals for messages: `"a"`, or `"a" or "b"`.
func literalList(lits [][]byte) string {
	parts := make([]string, len(lits))
	for i, l := range lits {
		parts[i] = string(l)
	}
	return orList(parts)
}

// Exclusive reports whether no JSON value can match two variants of the
// union t without a discriminator: it has no catch-all, and every two
// object choices of different variants are told apart by a member one
// requires with constants (a constant or a closed enum) that the other
// declares with none of them.
// Other choices of different variants differ by JSON kind; a union with
// several array variants is never exclusive.
func Exclusive(t *Type) bool {
	if ByItems(t) {
		return false // an empty array matches every array variant
	}
	choices := Choices(t)
	for i, a := range choices {
		if a.CatchAll {
			return false
		}
		if a.Object == nil {
			continue
		}
		for _, b := range choices[i+1:] {
			if b.Object != nil && b.Variant != a.Variant && !constsApart(a.Object, b.Object) && !constsApart(b.Object, a.Object) {
				return false
			}
		}
	}
	return true
}

// constsApart reports whether a requires a member with constants (see
// [FieldLiterals]) that b declares with none of them.
func constsApart(a, b *Type) bool {
	bf := fieldMap(b)
	for _, f := range a.Fields {
		la := FieldLiterals(f)
		if f.Optional || la == nil || bf[f.Name] == nil {
			continue
		}
		lb := FieldLiterals(bf[f.Name])
		if lb != nil && !slices.ContainsFunc(lb, func(v []byte) bool { return holdsLiteral(la, v) }) {
			return true
		}
	}
	return false
}
