package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// pathPolicy decides which files the file tools may touch: paths that,
// with symbolic links resolved, lie under one of the allowed roots.
type pathPolicy struct {
	allowAll   bool     // SUPEX_ALLOWED_ROOTS=*
	configured bool     // SUPEX_ALLOWED_ROOTS names roots: they bound every path
	roots      []string // resolved, absolute
}

// newPathPolicy builds the policy from SUPEX_ALLOWED_ROOTS (colon
// separated, "*" for no check) and the runtime's own directories.
func newPathPolicy(env string, extra ...string) pathPolicy {
	var p pathPolicy
	for _, r := range strings.Split(env, ":") {
		switch {
		case r == "*":
			p.allowAll = true
		case r != "":
			p.configured = true
			p.roots = append(p.roots, resolve(r))
		}
	}
	for _, r := range extra {
		p.roots = append(p.roots, resolve(r))
	}
	return p
}

// withWorkspace returns the policy of a client whose hello names the
// workspace ws, and whether ws may be used at all. Without configured
// roots the workspace becomes one more root. With SUPEX_ALLOWED_ROOTS set
// those roots bound every path, the workspace's included: a workspace
// under them adds nothing, and one outside them is refused.
func (p pathPolicy) withWorkspace(ws string) (pathPolicy, bool) {
	switch {
	case p.allowAll:
		return p, true
	case p.configured:
		return p, p.check("workspace", ws) == nil
	}
	q := p
	q.roots = append(append([]string(nil), p.roots...), resolve(ws))
	return q, true
}

// check returns nil when path may be used by operation, and the
// PathAccessDenied error otherwise.
func (p pathPolicy) check(operation, path string) error {
	if p.allowAll {
		return nil
	}
	resolved := resolve(path)
	for _, root := range p.roots {
		if resolved == root || strings.HasPrefix(resolved, root+string(filepath.Separator)) {
			return nil
		}
	}
	return pathDenied(operation, path)
}

// resolve makes path absolute and resolves symbolic links in its longest
// existing prefix, so neither a link nor ".." inside a root escapes it.
func resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for dir := abs; ; {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return abs
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// ensureDir creates the directory holding path.
func ensureDir(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating output directory: %w", err)
	}
	return nil
}
