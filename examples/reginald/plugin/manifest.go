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
		Description: "Log only what is wrong.",
	}}
	statusConfigs = []reginald.ConfigEntry{
		{
			Key: "paths", Value: raw([]string{}), Type: reginald.ValueTypePathList,
			Description: "The paths to check.",
		},
		{
			Key: "verbose", Value: raw(false), Type: reginald.ValueTypeBool,
			Description: "Also log the paths that are present.",
		},
	}
	symlinkConfigs = []reginald.ConfigValue{
		{Key: "src", Value: raw(""), Type: reginald.ValueTypePath, Description: "The file the link points to."},
		{Key: "dst", Value: raw(""), Type: reginald.ValueTypePath, Description: "The link to make."},
		{Key: "force", Value: raw(false), Type: reginald.ValueTypeBool, Description: "Replace whatever is at dst."},
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
		Version:     version,
		Domain:      domain,
		Description: "Links dotfiles and checks that they are in place.",
		Executable:  executable,
		Config:      pluginConfigs,
		Commands: []reginald.Command{{
			Name: "status", Usage: "status [--verbose]",
			Description: "Report whether the configured paths exist.",
			Config:      statusConfigs,
		}},
		Tasks: []reginald.Task{{
			TaskType: taskSymlink, Description: "Make dst a symbolic link to src.",
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
