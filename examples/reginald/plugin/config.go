package main

import (
	"encoding/json"
	"fmt"

	"github.com/rpcgen/rpcgen/generated/reginald"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// defaults maps each key to its default and type.
type defaults map[string]reginald.KeyValue

func entryDefaults(entries []reginald.ConfigEntry) defaults {
	d := make(defaults, len(entries))
	for _, e := range entries {
		d[e.Key] = reginald.KeyValue{Key: e.Key, Value: e.Value, Type: e.Type}
	}
	return d
}

func valueDefaults(values []reginald.ConfigValue) defaults {
	d := make(defaults, len(values))
	for _, v := range values {
		d[v.Key] = reginald.KeyValue{Key: v.Key, Value: v.Value, Type: v.Type}
	}
	return d
}

// configValues decodes the values given over the defaults. A key the
// defaults declare must come with their type and a value of it; other keys
// are skipped, since Reginald also sends every command's config, as a
// "configs" value named after the command, with the plugin-wide values.
// A null list (which Reginald's types allow) is no values. The result
// holds a bool, a string or a []string per key.
func configValues(given []reginald.KeyValue, d defaults) (map[string]any, error) {
	values := make(map[string]any, len(d))
	for key, kv := range d {
		v, err := decodeValue(kv)
		if err != nil {
			return nil, fmt.Errorf("default of %q: %w", key, err)
		}
		values[key] = v
	}
	for _, kv := range given {
		def, ok := d[kv.Key]
		if !ok {
			continue
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
	case reginald.ValueTypeString, reginald.ValueTypePath:
		var s string
		if err = json.Unmarshal(kv.Value, &s); err == nil {
			return s, nil
		}
	case reginald.ValueTypePathList, reginald.ValueTypeStringList:
		var s []string
		if err = json.Unmarshal(kv.Value, &s); err == nil {
			return s, nil
		}
	default:
		return nil, fmt.Errorf("unsupported value type %q", jsonrpc.Truncate(string(kv.Type)))
	}
	return nil, fmt.Errorf("value %s is not a %s: %w", jsonrpc.Truncate(string(kv.Value)), kv.Type, err)
}
