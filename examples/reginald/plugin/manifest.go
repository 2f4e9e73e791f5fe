package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/rpcgen/rpcgen/generated/reginald"
)

const (
	defaultName = "reginald-dotfiles"
	version     = "1.0.0"
	// domain prefixes the plugin's commands and task types in Reginald.
	// Reginald's built-in plugins take "core" and "link".
	domain = "dotfiles"
	// taskSymlink is the plugin's task type, "dotfiles/symlink" in a
	// config file. The built-in "link/create" makes links too; the name
	// says which one a config means.
	taskSymlink = "symlink"
)

func ptr[T any](v T) *T { return &v }

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Config entries and their defaults, as the manifest declares them.
var (
	pluginConfigs = []reginald.ConfigEntry{{
		Key: "quiet", Value: raw(false), Type: reginald.ValueTypeBool,
		Description: ptr("Log only what is wrong."),
	}}
	statusConfigs = []reginald.ConfigEntry{
		{
			Key: "paths", Value: raw([]string{}), Type: reginald.ValueTypePathList,
			Description: ptr("The paths to check."),
		},
		{
			Key: "verbose", Value: raw(false), Type: reginald.ValueTypeBool,
			Description: ptr("Also log the paths that are present."),
		},
	}
	symlinkConfigs = []reginald.ConfigValue{
		{Key: "src", Value: raw(""), Type: reginald.ValueTypePath, Description: ptr("The file the link points to.")},
		{Key: "dst", Value: raw(""), Type: reginald.ValueTypePath, Description: ptr("The link to make.")},
		{Key: "force", Value: raw(false), Type: reginald.ValueTypeBool, Description: ptr("Replace whatever is at dst.")},
	}
)

// manifest returns the plugin's manifest.
func manifest(name, executable string) *reginald.Manifest {
	tasks := make([]reginald.TaskConfig, len(symlinkConfigs))
	for i, c := range symlinkConfigs {
		tasks[i] = reginald.NewTaskConfig(c)
	}
	return &reginald.Manifest{
		Name:        name,
		Version:     ptr(version),
		Domain:      ptr(domain),
		Description: ptr("Links dotfiles and checks that they are in place."),
		Executable:  executable,
		Config:      pluginConfigs,
		Commands: []reginald.Command{{
			Name: "status", Usage: ptr("status [--verbose]"),
			Description: ptr("Report whether the configured paths exist."),
			Config:      statusConfigs,
		}},
		Tasks: []reginald.Task{{
			TaskType: taskSymlink, Description: ptr("Make dst a symbolic link to src."),
			Config: tasks,
		}},
	}
}

// writeManifest writes the manifest as indented JSON.
func writeManifest(w io.Writer, name, executable string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(manifest(name, executable)); err != nil {
		return fmt.Errorf("writing the manifest: %w", err)
	}
	return nil
}
