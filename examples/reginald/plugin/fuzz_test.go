package main

import (
	"encoding/json"
	"testing"

	"github.com/rpcgen/rpcgen/generated/reginald"
)

// FuzzRunParams decodes runCommand and runTask params as the generated
// code does and reads their config as the plugin does: whatever the host
// sends, the plugin answers with values or an error, never a panic.
func FuzzRunParams(f *testing.F) {
	f.Add([]byte(`{"cmd":"status","config":[{"key":"paths","value":["/a"],"type":"pathList"},{"key":"verbose","value":true,"type":"bool"}],"pluginConfig":[{"key":"status","value":[],"type":"configs"},{"key":"quiet","value":false,"type":"bool"}]}`))
	f.Add([]byte(`{"cmd":"status","config":null,"pluginConfig":null}`))
	f.Add([]byte(`{"taskType":"symlink","config":[{"key":"src","value":"/a","type":"path"},{"key":"dst","value":"/b","type":"path"},{"key":"force","value":false,"type":"bool"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var cmd reginald.RunCommandParams
		if json.Unmarshal(data, &cmd) == nil {
			if v, err := configValues(cmd.Config, entryDefaults(statusConfigs)); err == nil {
				_ = v["paths"].([]string)
				_ = v["verbose"].(bool)
			}
			if v, err := configValues(cmd.PluginConfig, entryDefaults(pluginConfigs)); err == nil {
				_ = v["quiet"].(bool)
			}
		}
		var task reginald.RunTaskParams
		if json.Unmarshal(data, &task) == nil {
			if v, err := configValues(task.Config, valueDefaults(symlinkConfigs)); err == nil {
				_, _, _ = v["src"].(string), v["dst"].(string), v["force"].(bool)
			}
		}
	})
}
