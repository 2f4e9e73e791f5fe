package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rpcgen/rpcgen/generated/reginald"
)

// manifestFile is the name of the manifest in a plugin's directory.
const manifestFile = "manifest.json"

// readManifest reads the manifest of the plugin directory dir and returns
// it with its executable resolved in dir and its domain defaulted to its
// name, as Reginald does. A manifest without a name or an executable, or
// whose executable is not a file, is an error.
func readManifest(dir string) (*reginald.Manifest, error) {
	path := filepath.Join(dir, manifestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plugin manifest: %w", err)
	}
	var m reginald.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("plugin manifest %s: %w", path, err)
	}
	switch {
	case m.Name == "":
		return nil, fmt.Errorf("plugin manifest %s: no name", path)
	case m.Executable == "":
		return nil, fmt.Errorf("plugin manifest %s: no executable", path)
	}
	if m.Domain == "" {
		m.Domain = m.Name
	}
	exe := m.Executable
	if !filepath.IsAbs(exe) {
		abs, err := filepath.Abs(filepath.Join(dir, exe))
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %w", m.Name, err)
		}
		exe = abs
	}
	if fi, err := os.Stat(exe); err != nil || fi.IsDir() {
		return nil, fmt.Errorf("plugin %s: executable %s is not a file", m.Name, exe)
	}
	m.Executable = exe
	return &m, nil
}

// findCommand returns the command of m that path (parent.child) names.
func findCommand(m *reginald.Manifest, names []string) *reginald.Command {
	cmds := m.Commands
	var found *reginald.Command
	for _, name := range names {
		found = nil
		for i := range cmds {
			if cmds[i].Name == name || contains(cmds[i].Aliases, name) {
				found = &cmds[i]
				break
			}
		}
		if found == nil {
			return nil
		}
		cmds = found.Commands
	}
	return found
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
