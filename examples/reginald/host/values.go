package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/generated/reginald"
)

func jsonValue(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// entryValues returns the values of entries: a -set value converted to
// the entry's type, or the default; path values resolved against the
// base directory. It marks the keys it used as known.
func entryValues(entries []reginald.ConfigEntry, o options, known map[string]bool) ([]reginald.KeyValue, error) {
	kvs := make([]reginald.KeyValue, 0, len(entries))
	for _, e := range entries {
		kv := reginald.KeyValue{Key: e.Key, Value: e.Value, Type: e.Type}
		if s, ok := o.sets[e.Key]; ok {
			known[e.Key] = true
			v, err := parseSet(s, e.Type)
			if err != nil {
				return nil, fmt.Errorf("config %s: %w", e.Key, err)
			}
			kv.Value = jsonValue(v)
		}
		resolved, err := resolvePaths(kv, o.dir)
		if err != nil {
			return nil, err
		}
		kvs = append(kvs, resolved)
	}
	return kvs, nil
}

// parseSet converts the text of a -set value to typ.
func parseSet(s string, typ reginald.ValueType) (any, error) {
	switch typ {
	case reginald.ValueTypeBool:
		return strconv.ParseBool(s)
	case reginald.ValueTypeInt:
		return strconv.ParseInt(s, 10, 64)
	case reginald.ValueTypeStringList, reginald.ValueTypePathList:
		if s == "" {
			return []string{}, nil
		}
		return strings.Split(s, ","), nil
	case reginald.ValueTypeString, reginald.ValueTypePath:
		return s, nil
	}
	return nil, fmt.Errorf("cannot set a value of type %s", typ)
}

// taskValues returns a task's config: each plain value the task type
// declares, given in the tasks file or its default. A key the task type
// does not declare as a plain value is an error.
func taskValues(decl []reginald.TaskConfig, given map[string]any, dir string) ([]reginald.KeyValue, error) {
	kvs := []reginald.KeyValue{}
	used := 0
	for _, d := range decl {
		if d.ConfigValue == nil {
			continue
		}
		kv := reginald.KeyValue{Key: d.ConfigValue.Key, Value: d.ConfigValue.Value, Type: d.ConfigValue.Type}
		if v, ok := given[kv.Key]; ok {
			used++
			kv.Value = jsonValue(v)
		}
		resolved, err := resolvePaths(kv, dir)
		if err != nil {
			return nil, err
		}
		kvs = append(kvs, resolved)
	}
	if used < len(given) {
		keys := make([]string, 0, len(given))
		for k := range given {
			if !slices.ContainsFunc(kvs, func(kv reginald.KeyValue) bool { return kv.Key == k }) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		return nil, fmt.Errorf("unknown config keys %q", keys)
	}
	return kvs, nil
}

// resolvePaths resolves a path value, or each path of a path list,
// against dir, with a leading ~/ taken from the home directory.
func resolvePaths(kv reginald.KeyValue, dir string) (reginald.KeyValue, error) {
	switch kv.Type {
	case reginald.ValueTypePath:
		var p string
		if err := json.Unmarshal(kv.Value, &p); err != nil {
			return kv, fmt.Errorf("config %s: %w", kv.Key, err)
		}
		if p != "" {
			kv.Value = jsonValue(resolvePath(p, dir))
		}
	case reginald.ValueTypePathList:
		var ps []string
		if err := json.Unmarshal(kv.Value, &ps); err != nil {
			return kv, fmt.Errorf("config %s: %w", kv.Key, err)
		}
		for i := range ps {
			ps[i] = resolvePath(ps[i], dir)
		}
		if ps == nil {
			ps = []string{}
		}
		kv.Value = jsonValue(ps)
	}
	return kv, nil
}

func resolvePath(p, dir string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if abs, err := filepath.Abs(filepath.Join(dir, p)); err == nil {
		return abs
	}
	return filepath.Join(dir, p)
}
