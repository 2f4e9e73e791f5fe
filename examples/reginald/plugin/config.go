package main

import (
	"encoding/json"
	"fmt"

	"github.com/rpcgen/rpcgen/generated/reginald"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func entriesToKV(entries []reginald.ConfigEntry) []reginald.KeyValue {
	kvs := make([]reginald.KeyValue, len(entries))
	for i, e := range entries {
		kvs[i] = reginald.KeyValue{Key: e.Key, Value: e.Value, Type: e.Type}
	}
	return kvs
}

func kvToMap(kvs []reginald.KeyValue) map[string]reginald.KeyValue {
	m := make(map[string]reginald.KeyValue, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv
	}
	return m
}

// configValues decodes the values given over the defaults: every key must
// be one of defaults' keys with the same type, and its value of that type.
// The result holds a bool, an int64 or a string per key.
func configValues(given []reginald.KeyValue, defaults map[string]reginald.KeyValue) (map[string]any, error) {
	values := make(map[string]any, len(defaults))
	for key, kv := range defaults {
		v, err := decodeValue(kv)
		if err != nil {
			return nil, fmt.Errorf("default of %q: %w", key, err)
		}
		values[key] = v
	}
	for _, kv := range given {
		def, ok := defaults[kv.Key]
		if !ok {
			return nil, fmt.Errorf("unknown config key %q", jsonrpc.Truncate(kv.Key))
		}
		if kv.Type != def.Type {
			return nil, fmt.Errorf("config %q: want type %s, got %s", kv.Key, def.Type, jsonrpc.Truncate(string(kv.Type)))
		}
		v, err := decodeValue(kv)
		if err != nil {
			return nil, fmt.Errorf("config %q: %w", kv.Key, err)
		}
		values[kv.Key] = v
	}
	return values, nil
}

// decodeValue decodes kv's value as its declared type.
func decodeValue(kv reginald.KeyValue) (any, error) {
	var err error
	switch kv.Type {
	case reginald.ValueTypeBool:
		var b bool
		if err = json.Unmarshal(kv.Value, &b); err == nil {
			return b, nil
		}
	case reginald.ValueTypeInt:
		var n int64
		if err = json.Unmarshal(kv.Value, &n); err == nil {
			return n, nil
		}
	case reginald.ValueTypeString:
		var s string
		if err = json.Unmarshal(kv.Value, &s); err == nil {
			return s, nil
		}
	default:
		return nil, fmt.Errorf("unknown value type %q", jsonrpc.Truncate(string(kv.Type)))
	}
	return nil, fmt.Errorf("value %s is not a %s: %w", jsonrpc.Truncate(string(kv.Value)), kv.Type, err)
}
