package jsonrpc

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// This file implements strict decoding ([Options.DisallowUnknownFields]).
// encoding/json's own strict mode does not reach types with an
// UnmarshalJSON method, such as generated ones, so after a normal decode
// checkUnknown walks the raw JSON alongside the decoded value and reports
// the first member no Go field takes.

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	nullableType   = reflect.TypeFor[interface{ nullable() }]()
)

// checkUnknown reports the first member of b, at any depth, that the Go
// value v has no field for, as a *FieldError with its path.
func checkUnknown(b []byte, v reflect.Value, path string) error {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct && v.Type().Implements(nullableType) {
		v = v.Field(0) // a Nullable: check its Value
	}
	if v.Type() == rawMessageType {
		return nil // any JSON is welcome
	}
	b = trimSpace(b)
	switch v.Kind() {
	case reflect.Struct:
		if len(b) == 0 || b[0] != '{' {
			return nil
		}
		fields := structFields(v.Type())
		if fields.union {
			// A generated union: check the variant that was decoded.
			for _, i := range fields.variants {
				if f := v.Field(i); !f.IsNil() {
					return checkUnknown(b, f, path)
				}
			}
			return nil
		}
		return decodeObject(b, func(key, value []byte) error {
			i, ok := fields.lookup(string(key))
			if !ok && fields.extra != nil {
				// Kept as an additional member: check inside its value.
				elem := keptMember(v.FieldByIndex(fields.extra), string(key))
				if !elem.IsValid() {
					return nil
				}
				return checkUnknown(value, elem, joinPath(path, string(key)))
			}
			if !ok {
				return &FieldError{Field: joinPath(path, string(key)), Reason: "unknown field"}
			}
			return checkUnknown(value, v.FieldByIndex(i), joinPath(path, string(key)))
		})
	case reflect.Slice, reflect.Array:
		if len(b) == 0 || b[0] != '[' {
			return nil
		}
		for i, elem := range splitArray(b) {
			if i >= v.Len() {
				break
			}
			if err := checkUnknown(elem, v.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case reflect.Map:
		if len(b) == 0 || b[0] != '{' || v.Type().Key().Kind() != reflect.String {
			return nil
		}
		return decodeObject(b, func(key, value []byte) error {
			elem := v.MapIndex(reflect.ValueOf(string(key)).Convert(v.Type().Key()))
			if !elem.IsValid() {
				return nil
			}
			return checkUnknown(value, elem, joinPath(path, string(key)))
		})
	}
	return nil
}

// fieldSet is what strict decoding needs to know of a struct type.
type fieldSet struct {
	byName   map[string][]int // JSON member name to field index
	extra    []int            // the field tagged rpcgen:"extra" keeping other members (a map or Members), if any
	union    bool             // a generated union: untagged pointer fields only
	variants []int            // for a union, its fields
}

// lookup finds the field for a member name, exactly or, as encoding/json
// does, ignoring case.
func (s *fieldSet) lookup(name string) ([]int, bool) {
	if i, ok := s.byName[name]; ok {
		return i, true
	}
	for n, i := range s.byName {
		if strings.EqualFold(n, name) {
			return i, true
		}
	}
	return nil, false
}

var fieldSets sync.Map // reflect.Type -> *fieldSet

// structFields returns the field set of struct type t, computed once.
func structFields(t reflect.Type) *fieldSet {
	if s, ok := fieldSets.Load(t); ok {
		return s.(*fieldSet)
	}
	s := &fieldSet{byName: map[string][]int{}}
	tagged := false
	collectFields(t, nil, s, &tagged)
	_, unmarshaler := reflect.PointerTo(t).MethodByName("UnmarshalJSON")
	if !tagged && unmarshaler && t.NumField() > 0 {
		s.union = true
		for i := range t.NumField() {
			if t.Field(i).IsExported() && t.Field(i).Type.Kind() == reflect.Pointer {
				s.variants = append(s.variants, i)
			}
		}
	}
	fieldSets.Store(t, s)
	return s
}

// collectFields records the JSON members of t's fields, flattening
// embedded structs as encoding/json does.
func collectFields(t reflect.Type, index []int, s *fieldSet, tagged *bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		idx := append(append([]int(nil), index...), i)
		tag, hasTag := f.Tag.Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		if hasTag {
			*tagged = true
		}
		if f.Tag.Get("rpcgen") == "extra" && (f.Type.Kind() == reflect.Map && f.Type.Key().Kind() == reflect.String || f.Type.Kind() == reflect.Slice) {
			s.extra = idx
			continue
		}
		if name == "-" && !strings.Contains(tag, ",") {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			collectFields(f.Type, idx, s, tagged)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := s.byName[name]; !dup {
			s.byName[name] = idx
		}
	}
}

// keptMember returns the value of the member named key in extra, a map
// by name or a [Members] list (its last member of that name), or the zero
// Value when there is none.
func keptMember(extra reflect.Value, key string) reflect.Value {
	if extra.Kind() == reflect.Map {
		return extra.MapIndex(reflect.ValueOf(key))
	}
	for i := extra.Len() - 1; i >= 0; i-- {
		if m := extra.Index(i); m.Field(0).String() == key {
			return m.Field(1)
		}
	}
	return reflect.Value{}
}
