package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rpcgen/rpcgen/generated/reginald"
)

// manifestFile is the name of the manifest in a plugin's directory.
const manifestFile = "reginald-plugin.json"

// pluginCommand returns the command line that starts the plugin at path and
// the name the plugin must report in the handshake ("" when unknown).
//
// path is either a plugin directory holding reginald-plugin.json, resolved
// as the manifest says, or a plugin executable, run as is.
func pluginCommand(path string) (argv []string, name string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, "", fmt.Errorf("plugin: %w", err)
	}
	if !fi.IsDir() {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, "", fmt.Errorf("plugin: %w", err)
		}
		return []string{abs}, "", nil
	}
	data, err := os.ReadFile(filepath.Join(path, manifestFile))
	if err != nil {
		return nil, "", fmt.Errorf("plugin manifest: %w", err)
	}
	var m reginald.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, "", fmt.Errorf("plugin manifest %s: %w", filepath.Join(path, manifestFile), err)
	}
	if m.Name == "" {
		return nil, "", fmt.Errorf("plugin manifest %s: empty name", filepath.Join(path, manifestFile))
	}
	dir, err := filepath.Abs(path)
	if err != nil {
		return nil, "", fmt.Errorf("plugin: %w", err)
	}
	argv, err = entrypoint(dir, &m)
	return argv, m.Name, err
}

// entrypoint applies the manifest's entrypoint rules: none runs ./<name>, a
// string is the command, and an object may name a runtime (looked up in
// PATH) and a command where "$0" is the plugin file and "$1" the runtime.
func entrypoint(dir string, m *reginald.Manifest) ([]string, error) {
	file := filepath.Join(dir, m.Name)
	ep := reginald.Entrypoint{}
	given, _ := m.Entrypoint.Get()
	switch {
	case given.String != nil:
		return []string{inDir(dir, *given.String)}, nil
	case given.Entrypoint != nil:
		ep = *given.Entrypoint
	}
	runtime := ""
	isRuntime := ep.Type != nil && *ep.Type == reginald.EntrypointTypeRuntime
	command := ep.Command
	if isRuntime {
		if ep.Runtime == nil || *ep.Runtime == "" {
			return nil, fmt.Errorf("plugin %s: a runtime entrypoint needs a runtime", m.Name)
		}
		p, err := exec.LookPath(*ep.Runtime)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: runtime: %w", m.Name, err)
		}
		runtime = p
		if len(command) == 0 {
			command = []string{"$1", "$0"}
		}
	} else if len(command) == 0 {
		command = []string{"$0"}
	}
	argv := make([]string, len(command))
	for i, a := range command {
		switch a {
		case "$0":
			argv[i] = file
		case "$1":
			if runtime == "" {
				return nil, fmt.Errorf("plugin %s: $1 used without a runtime", m.Name)
			}
			argv[i] = runtime
		default:
			argv[i] = a
		}
	}
	argv[0] = inDir(dir, argv[0])
	return argv, nil
}

// inDir resolves a command against the plugin directory: a relative path
// is taken in the directory, and so is a bare name of a file there; other
// bare names are left for PATH.
func inDir(dir, cmd string) string {
	switch {
	case filepath.IsAbs(cmd):
		return cmd
	case strings.ContainsRune(cmd, filepath.Separator):
		return filepath.Join(dir, cmd)
	}
	if _, err := os.Stat(filepath.Join(dir, cmd)); err == nil {
		return filepath.Join(dir, cmd)
	}
	return cmd
}
