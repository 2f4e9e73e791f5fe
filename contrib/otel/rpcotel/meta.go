package rpcotel

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"go.opentelemetry.io/otel/propagation"
)

// Bounds on what the server reads of the incoming metadata member: a
// larger member, or a larger value under one of the propagator's keys,
// is not read, and the trace is not continued from it. W3C Baggage, the
// longest of the W3C headers, allows 8192 bytes.
const (
	maxMetaBytes  = 64 << 10
	maxFieldBytes = 8192
)

// extract returns ctx with the trace context that params, the raw params
// of an incoming message, carry in their member named member, read with
// prop; ctx itself when they carry none that prop reads. Only that member
// is read, and only its string values under prop's keys are decoded.
func extract(ctx context.Context, prop propagation.TextMapPropagator, params json.RawMessage, member string) context.Context {
	meta, ok := memberValue(params, member)
	if !ok || len(meta) > maxMetaBytes || meta[0] != '{' {
		return ctx
	}
	fields := prop.Fields()
	var carrier propagation.MapCarrier
	eachMember(meta, func(m span) bool {
		for _, f := range fields {
			if !nameIs(meta[m.name:m.nameEnd], f) {
				continue
			}
			if v, ok := stringValue(meta[m.value:m.end]); ok {
				if carrier == nil {
					carrier = propagation.MapCarrier{}
				}
				carrier[f] = v
			}
			break
		}
		return true
	})
	if carrier == nil {
		return ctx
	}
	return prop.Extract(ctx, carrier)
}

// memberValue returns the value of the member named name of the JSON
// object obj, and false when obj is not an object or has no such member.
func memberValue(obj []byte, name string) ([]byte, bool) {
	var value []byte
	eachMember(obj, func(m span) bool {
		if nameIs(obj[m.name:m.nameEnd], name) {
			value = obj[m.value:m.end]
			return false
		}
		return true
	})
	return value, value != nil
}

// stringValue decodes v when it is a JSON string of at most maxFieldBytes.
func stringValue(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' || len(v) > maxFieldBytes {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// inject returns params to send in place of params: a value that encodes
// as params do, with the trace context of ctx, as prop writes it, merged
// into the member named member. It returns params unchanged when prop
// writes nothing (no span, or a propagator that propagates nothing) or
// when there are no params (nil, or a nil pointer, map or slice): a
// message without params gains none.
func inject(ctx context.Context, prop propagation.TextMapPropagator, params any, member string) any {
	if absent(params) {
		return params
	}
	carrier := propagation.MapCarrier{}
	prop.Inject(ctx, carrier)
	if len(carrier) == 0 {
		return params
	}
	keys := carrier.Keys()
	slices.Sort(keys)
	var fields []byte
	for i, k := range keys {
		if i > 0 {
			fields = append(fields, ',')
		}
		fields = appendJSONString(fields, k)
		fields = append(fields, ':')
		fields = appendJSONString(fields, carrier[k])
	}
	return &withMeta{params: params, member: member, keys: keys, fields: fields}
}

// absent reports whether params send no params member.
func absent(params any) bool {
	if params == nil {
		return true
	}
	if raw, ok := params.(json.RawMessage); ok {
		return len(raw) == 0
	}
	switch v := reflect.ValueOf(params); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// withMeta encodes params with trace context merged into one member.
type withMeta struct {
	params any
	member string   // the member that carries metadata
	keys   []string // the propagator's keys written, sorted
	fields []byte   // the members to add, encoded: "k":"v","k2":"v2"
}

// MarshalJSON encodes the params and merges the trace context into their
// metadata member: into the existing object, whose other members are kept
// in order and whose members under the same keys are replaced, or into a
// new member at the end. Params that are not an object, or whose member is
// not an object, are encoded unchanged.
func (p *withMeta) MarshalJSON() ([]byte, error) {
	obj, err := encode(p.params)
	if err != nil {
		return nil, err
	}
	var value span
	found, members := false, 0
	closing := eachMember(obj, func(m span) bool {
		members++
		if !found && nameIs(obj[m.name:m.nameEnd], p.member) {
			value, found = m, true
		}
		return true
	})
	if closing < 0 {
		return obj, nil // not an object
	}
	out := make([]byte, 0, len(obj)+len(p.member)+len(p.fields)+8)
	if !found {
		out = append(out, obj[:closing]...)
		if members > 0 {
			out = append(out, ',')
		}
		out = appendJSONString(out, p.member)
		out = append(out, ":{"...)
		out = append(out, p.fields...)
		out = append(out, '}')
		return append(out, obj[closing:]...), nil
	}
	meta := obj[value.value:value.end]
	if meta[0] != '{' {
		return obj, nil
	}
	out = append(out, obj[:value.value]...)
	out = append(out, '{')
	kept := 0
	eachMember(meta, func(m span) bool {
		for _, k := range p.keys {
			if nameIs(meta[m.name:m.nameEnd], k) {
				return true // replaced below
			}
		}
		if kept > 0 {
			out = append(out, ',')
		}
		out = append(out, meta[m.name:m.end]...)
		kept++
		return true
	})
	if kept > 0 {
		out = append(out, ',')
	}
	out = append(out, p.fields...)
	out = append(out, '}')
	return append(out, obj[value.end:]...), nil
}

// encode encodes params as the runtime would: a json.RawMessage as it is,
// a generated type through its AppendJSON method, anything else with
// encoding/json.
func encode(params any) ([]byte, error) {
	switch v := params.(type) {
	case json.RawMessage:
		if !json.Valid(v) {
			return nil, fmt.Errorf("rpcotel: params: json.RawMessage is not valid JSON")
		}
		return v, nil
	case interface{ AppendJSON([]byte) ([]byte, error) }:
		b, err := v.AppendJSON(nil)
		if err != nil {
			return nil, fmt.Errorf("rpcotel: encoding params: %w", err)
		}
		return b, nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("rpcotel: encoding params: %w", err)
	}
	return b, nil
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}
