package main

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// fieldKey names one entry of the schema: a field of a segment, or one
// component of it (component 0 is the whole field).
type fieldKey struct {
	segment   string
	field     uint32
	component uint32
}

func (k fieldKey) String() string {
	s := k.segment + "." + strconv.FormatUint(uint64(k.field), 10)
	if k.component != 0 {
		s += "." + strconv.FormatUint(uint64(k.component), 10)
	}
	return s
}

// fieldDef is the definition of one entry; a nil property is unset.
type fieldDef struct {
	name, group, note, pattern, placeholder, template *string
	minlength, maxlength                              *uint32
	required                                          *bool
	datatype                                          *hermes.FieldDatatype
	values                                            map[string]string
}

// baseSchema is the host's built-in schema: a few PID entries, enough for
// an extension's overrides to inherit, remove and replace properties.
func baseSchema() map[fieldKey]*fieldDef {
	return map[fieldKey]*fieldDef{
		{"PID", 3, 0}: {name: ptr.To("Patient identifier list"), required: ptr.To(true)},
		{"PID", 5, 0}: {name: ptr.To("Patient name"), required: ptr.To(true)},
		{"PID", 5, 1}: {name: ptr.To("Surname"), maxlength: ptr.To[uint32](194)},
		{"PID", 7, 0}: {name: ptr.To("Date of birth"), datatype: ptr.To(hermes.FieldDatatypeDateTime)},
		{"PID", 8, 0}: {name: ptr.To("Administrative sex"), note: ptr.To("HL7 table 0001"), values: map[string]string{"F": "Female", "M": "Male", "U": "Unknown"}},
	}
}

// merge applies one property override: absent inherits, null removes, a
// value replaces.
func merge[T any](p **T, o jsonrpc.Nullable[T]) {
	switch o.State {
	case jsonrpc.Null:
		*p = nil
	case jsonrpc.Present:
		v := o.Value
		*p = &v
	}
}

// applyOverrides merges an extension's overrides into schema and returns
// the keys of the entries they changed, in order. An override matches the
// entry with its field and component, failing that the entry of the whole
// field, failing that it defines a new entry. An unknown data type is
// logged and the entry keeps the one it had.
func applyOverrides(log *slog.Logger, schema map[fieldKey]*fieldDef, o *hermes.SchemaOverride) []fieldKey {
	var changed []fieldKey
	for _, seg := range slices.Sorted(maps.Keys(o.Segments)) {
		for _, f := range o.Segments[seg].Fields {
			key := fieldKey{segment: seg, field: f.Field}
			if f.Component != nil {
				key.component = *f.Component
			}
			def := schema[key]
			if def == nil && key.component != 0 {
				if whole := schema[fieldKey{seg, key.field, 0}]; whole != nil {
					key.component, def = 0, whole
				}
			}
			if def == nil {
				def = &fieldDef{}
				schema[key] = def
			}
			merge(&def.name, f.Name)
			merge(&def.group, f.Group)
			merge(&def.note, f.Note)
			merge(&def.pattern, f.Pattern)
			merge(&def.placeholder, f.Placeholder)
			merge(&def.template, f.Template)
			merge(&def.minlength, f.Minlength)
			merge(&def.maxlength, f.Maxlength)
			merge(&def.required, f.Required)
			if v, ok := f.Datatype.Get(); ok && !v.Valid() {
				log.Warn("unknown data type: keeping the base definition's", "path", jsonrpc.Truncate(key.String()), "datatype", jsonrpc.Truncate(string(v)))
			} else {
				merge(&def.datatype, f.Datatype)
			}
			switch f.Values.State {
			case jsonrpc.Null:
				def.values = nil
			case jsonrpc.Present:
				def.values = f.Values.Value
			}
			if !slices.Contains(changed, key) {
				changed = append(changed, key)
			}
		}
	}
	return changed
}

// attrs lists the properties def sets, in a fixed order, for the log.
func (def *fieldDef) attrs() []any {
	var a []any
	add := func(k string, v any) { // v may come from the extension
		if s, ok := v.(string); ok {
			v = jsonrpc.Truncate(s)
		}
		a = append(a, k, v)
	}
	for _, p := range []struct {
		k string
		v *string
	}{{"name", def.name}, {"group", def.group}, {"note", def.note}, {"pattern", def.pattern}, {"placeholder", def.placeholder}, {"template", def.template}} {
		if p.v != nil {
			add(p.k, *p.v)
		}
	}
	if def.minlength != nil {
		add("minlength", *def.minlength)
	}
	if def.maxlength != nil {
		add("maxlength", *def.maxlength)
	}
	if def.required != nil {
		add("required", *def.required)
	}
	if def.datatype != nil {
		add("datatype", string(*def.datatype))
	}
	if def.values != nil {
		add("values", fmt.Sprint(def.values))
	}
	return a
}
