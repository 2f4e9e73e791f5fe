package idl

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// toJSON converts a written value to compact JSON, keeping the order of
// mapping keys. Values JSON cannot hold (infinities, NaN) are reported.
func (r *resolver) toJSON(n *node) json.RawMessage {
	var b bytes.Buffer
	r.writeJSON(&b, n)
	return json.RawMessage(b.Bytes())
}

func (r *resolver) writeJSON(b *bytes.Buffer, n *node) {
	switch n.kind {
	case nNull:
		b.WriteString("null")
	case nBool, nInt:
		b.WriteString(n.str)
	case nFloat:
		if n.bad {
			r.errs.add(n.pos, "%s cannot be written in JSON; use a finite number", n.str)
			b.WriteString("null")
			return
		}
		b.WriteString(n.str)
	case nString:
		writeJSONString(b, n.str)
	case nSeq:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			r.writeJSON(b, it)
		}
		b.WriteByte(']')
	case nMap:
		b.WriteByte('{')
		for i, e := range r.dec.entries(n, "value") {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, keyName(e.key))
			b.WriteByte(':')
			r.writeJSON(b, e.val)
		}
		b.WriteByte('}')
	}
}

// writeJSONString writes s as a JSON string without HTML escaping.
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // the newline Encode adds
}

// example resolves one example of method m.
func (r *resolver) example(m *Method, xs *exampleSpec) *Example {
	x := &Example{Doc: xs.doc, Params: r.value(xs.params), Result: r.value(xs.result), Pos: xs.pos}
	switch {
	case m.Params != nil && xs.params == nil && !m.ParamsOptional:
		r.errs.add(xs.pos, "example of %q has no params; add params: with a value of the params type", m.Name)
	case m.Params == nil && xs.params != nil:
		r.errs.add(xs.params.pos, "example of %q has params, but the method takes none; remove them", m.Name)
	case xs.params != nil:
		r.check(xs.params, m.Params, "params")
	}
	if m.Kind == Notification {
		if xs.result != nil || xs.hasError {
			r.errs.add(xs.pos, "example of notification %q has a result or error, but notifications get no response; keep only params", m.Name)
		}
		return x
	}
	switch {
	case xs.result != nil && xs.hasError:
		r.errs.add(xs.pos, "example of %q has both result and error; a response holds one of them", m.Name)
	case xs.result == nil && !xs.hasError:
		if m.Kind == Request && !m.AlsoNotification {
			r.errs.add(xs.pos, "example of request %q has no response; add result: or error:", m.Name)
		}
	case xs.result != nil && m.NullResult:
		if xs.result.kind != nNull {
			r.errs.add(xs.result.pos, "example of %q has a result other than null, but the method declares result: \"null\"; write result: null", m.Name)
		}
	case xs.result != nil && m.Result == nil:
		if xs.result.kind != nNull {
			r.errs.add(xs.result.pos, "example of %q has a result, but the method declares none; add result: to the method or write result: null", m.Name)
		}
	case xs.result != nil:
		r.check(xs.result, m.Result, "result")
	case xs.hasError:
		x.Error = r.exampleError(m, xs)
	}
	return x
}

// exampleError resolves the error of an example: an error name, or a
// mapping with code, message and data.
func (r *resolver) exampleError(m *Method, xs *exampleSpec) *ExampleError {
	ref := xs.errName
	var o keyed
	if xs.errNode != nil {
		var ok bool
		if o, ok = r.dec.keys(xs.errNode, "example error", "code", "message", "data"); !ok {
			return nil
		}
		code, ok := r.dec.integer(o.get("code"), "error code")
		if !ok {
			if !o.has("code") {
				r.errs.add(xs.errNode.pos, "example error has no code; add code:, or write error: followed by the error's name")
			}
			return nil
		}
		for _, e := range r.p.Errors {
			if e.Code == code {
				ref = nameRef{e.Name, o.get("code").pos}
			}
		}
		if ref.name == "" {
			r.errs.add(o.get("code").pos, "example error code %d is not in the error catalogue; declare it under errors:", code)
			return nil
		}
	}
	def := r.lookupError(ref)
	if def == nil {
		return nil
	}
	if !def.Standard && !containsError(m.Errors, def) {
		r.errs.add(ref.pos, "example of %q returns error %s, which the method does not list; add it to the method's errors:", m.Name, def.Name)
	}
	xe := &ExampleError{Error: def, Message: def.Message}
	if o.n != nil {
		if v := o.get("message"); v != nil {
			xe.Message, _ = r.dec.str(v, "message")
		}
		if v := o.get("data"); v != nil {
			xe.Data = r.value(v)
			if def.Data == nil {
				r.errs.add(v.pos, "error %s declares no data type; remove data, or add data: to the error", def.Name)
			} else {
				r.check(v, def.Data, "error data")
			}
		}
	}
	return xe
}

func containsError(list []*ErrorDef, e *ErrorDef) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

// check reports where the value n does not match type t. path names the
// value in messages.
func (r *resolver) check(n *node, t *Type, path string) {
	r.checkDepth(n, t, path, 0)
}

// maxCheckDepth bounds the nesting of check, which unions that contain
// themselves could otherwise make endless.
const maxCheckDepth = 500

// checkDepth is check at nesting depth.
func (r *resolver) checkDepth(n *node, t *Type, path string, depth int) {
	if depth > maxCheckDepth {
		return
	}
	hops := 0
	name := "" // of the named type t stands for
	for t != nil && t.Kind == KindRef {
		if n.kind == nNull && t.Nullable {
			return
		}
		if t.Ref == nil || hops > 64 {
			return
		}
		name, t, hops = t.Ref.Name, t.Ref.Type, hops+1
	}
	if t == nil || t.Kind == KindInvalid || t.Kind == KindAny {
		return
	}
	if n.kind == nNull {
		if !t.Nullable {
			r.errs.add(n.pos, "%s: null is not allowed here; give a %s, or make the type nullable", path, t.Kind)
		}
		return
	}
	if t.Const != nil {
		if got := r.toJSON(n); !bytes.Equal(got, t.Const.JSON) {
			r.errs.add(n.pos, "%s must be the constant %s, not %s", path, t.Const.JSON, got)
		}
		return
	}
	switch t.Kind {
	case KindString:
		if r.expect(n, nString, path, "a string") {
			r.checkFormat(n, t.Format, path)
		}
	case KindInteger:
		switch {
		case n.kind == nInt && !n.intOK:
			r.errs.add(n.pos, "%s: %s", path, outOfRange(n))
		case n.kind != nInt && !(n.kind == nFloat && n.f == float64(int64(n.f))):
			r.mismatch(n, path, "an integer")
		default:
			r.checkNumber(n, t, path)
		}
	case KindNumber:
		if n.kind != nInt && (n.kind != nFloat || n.bad) {
			r.mismatch(n, path, "a number")
		} else {
			r.checkNumber(n, t, path)
		}
	case KindBoolean:
		r.expect(n, nBool, path, "true or false")
	case KindArray:
		if r.expect(n, nSeq, path, "a list") {
			for i, it := range n.items {
				r.checkDepth(it, t.Elem, fmt.Sprintf("%s[%d]", path, i), depth+1)
			}
		}
	case KindMap:
		if r.expect(n, nMap, path, "a mapping") {
			for _, e := range n.ents {
				if t.Key != nil {
					r.checkKey(e.key, t.Key, path, depth)
				}
				r.checkDepth(e.val, t.Elem, path+"."+keyName(e.key), depth+1)
			}
		}
	case KindObject:
		if t.Positional {
			r.checkPositional(n, t, path, depth)
		} else {
			r.checkObject(n, t, path, depth)
		}
	case KindTuple:
		r.checkTuple(n, t, path, depth)
	case KindEnum:
		r.checkEnum(n, t, path)
	case KindUnion:
		r.checkUnion(n, t, name, path, depth)
	}
}

// expect reports a value that is not of kind k.
func (r *resolver) expect(n *node, k nodeKind, path, want string) bool {
	if n.kind != k {
		r.mismatch(n, path, want)
		return false
	}
	return true
}

func (r *resolver) mismatch(n *node, path, want string) {
	hint := ""
	if want == "a string" && (n.kind == nInt || n.kind == nFloat || n.kind == nBool) {
		hint = "; quote it"
	}
	if (want == "a number" || want == "an integer") && floatOutOfRange(n) {
		r.errs.add(n.pos, "%s must be %s, and %s is out of range for a 64-bit floating-point number", path, want, n.str)
		return
	}
	r.errs.add(n.pos, "%s must be %s, not %s%s", path, want, describeNode(n), hint)
}

// floatOutOfRange reports whether n is a number written without quotes
// that a float64 cannot hold, such as 1e400, which the YAML parser leaves
// as a string.
func floatOutOfRange(n *node) bool {
	if n.kind != nString || n.style != stylePlain {
		return false
	}
	_, err := strconv.ParseFloat(n.str, 64)
	return errors.Is(err, strconv.ErrRange)
}

// checkObject checks a mapping against an object's fields.
func (r *resolver) checkObject(n *node, t *Type, path string, depth int) {
	if !r.expect(n, nMap, path, "a mapping with fields") {
		return
	}
	byName := map[string]*Field{}
	var names []string
	for _, f := range t.Fields {
		byName[f.Name] = f
		names = append(names, f.Name)
	}
	present := map[string]bool{}
	for _, e := range n.ents {
		k := keyName(e.key)
		present[k] = true
		f := byName[k]
		if f == nil && t.Additional != nil {
			r.checkDepth(e.val, t.Additional, path+"."+k, depth+1)
			continue
		}
		if f == nil {
			r.errs.add(e.key.pos, "%s has no field %q%s", path, k, suggest(k, names, "; fields: "+commaSome(names)))
			continue
		}
		r.checkDepth(e.val, f.Type, path+"."+k, depth+1)
	}
	var missing []string
	for _, f := range t.Fields {
		if !f.Optional && !present[f.Name] {
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		r.errs.add(n.pos, "%s is missing required field %s", path, commaSome(missing))
	}
}

// checkEnum checks a value against an enum's values.
func (r *resolver) checkEnum(n *node, t *Type, path string) {
	if t.Open {
		// Any value of the base type is accepted.
		base := &Type{Kind: t.EnumBase, Width: t.Width}
		r.checkDepth(n, base, path, 0)
		return
	}
	var vals []string
	for _, v := range t.Values {
		s := fmt.Sprint(v.Value)
		vals = append(vals, s)
		if t.EnumBase == KindString && n.kind == nString && n.str == s || t.EnumBase == KindInteger && n.kind == nInt && n.intOK && n.i == v.Value {
			return
		}
	}
	hint := ""
	if t.EnumBase == KindString {
		hint = suggest(n.str, vals, "")
	}
	r.errs.add(n.pos, "%s: %s is not one of %s%s", path, describeNode(n), commaSome(vals), hint)
}

// checkUnion checks a value against the variant its tag, its members or
// its JSON kind selects; name is the union's.
func (r *resolver) checkUnion(n *node, t *Type, name, path string, depth int) {
	if t.Discriminator == "" {
		choices := Choices(t)
		if n.kind == nSeq && ByItems(t) {
			r.checkArrayUnion(n, t, name, path, depth)
			return
		}
		if n.kind == nMap && ByMembers(t) {
			var members []string
			for _, e := range n.ents {
				members = append(members, keyName(e.key))
			}
			if i := ChooseObject(choices, members, func(i int) []byte { return r.toJSON(n.ents[i].val) }); i >= 0 {
				r.checkDepth(n, choices[i].Type, path, depth+1)
			} else if !choices[len(choices)-1].CatchAll {
				r.errs.add(n.pos, "%s matches no variant of union %s; an object needs every required member of one variant: %s", path, name, ObjectRequirements(t))
			}
			return
		}
		for _, c := range choices {
			if c.CatchAll {
				return
			}
			if r.jsonKinds(c.Type)[jsonKindOf(n)] {
				// The variant holding c decides, should it be a union.
				r.checkDepth(n, t.Variants[c.Variant].Type, path, depth+1)
				return
			}
		}
		r.errs.add(n.pos, "%s: %s matches no variant of the union", path, describeNode(n))
		return
	}
	if !r.expect(n, nMap, path, "a mapping") {
		return
	}
	var tags []string
	for _, v := range t.Variants {
		tags = append(tags, v.Tag)
	}
	for _, e := range n.ents {
		if keyName(e.key) != t.Discriminator {
			continue
		}
		for _, v := range t.Variants {
			if e.val.kind == nString && e.val.str == v.Tag {
				r.checkDepth(n, v.Type, path, depth+1)
				return
			}
		}
		r.errs.add(e.val.pos, "%s.%s: %s is not a tag of the union; use %s", path, t.Discriminator, describeNode(e.val), orList(tags))
		return
	}
	r.errs.add(n.pos, "%s has no %q field to tell the union's variants apart; add %s: with %s", path, t.Discriminator, t.Discriminator, orList(tags))
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// checkFormat checks the formats that can be checked cheaply.
func (r *resolver) checkFormat(n *node, f Format, path string) {
	ok := true
	switch f {
	case FormatDateTime:
		_, err := time.Parse(time.RFC3339, n.str)
		ok = err == nil
	case FormatDate:
		_, err := time.Parse(time.DateOnly, n.str)
		ok = err == nil
	case FormatURI:
		u, err := url.Parse(n.str)
		ok = err == nil && u.IsAbs()
	case FormatUUID:
		ok = uuidRE.MatchString(n.str)
	case FormatBase64:
		_, err := base64.StdEncoding.DecodeString(n.str)
		ok = err == nil
	case FormatEmail:
		ok = strings.Contains(n.str, "@")
	}
	if !ok {
		r.errs.add(n.pos, "%s: %q is not a valid %s", path, n.str, f)
	}
}
