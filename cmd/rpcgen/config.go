package main

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	ytoken "github.com/goccy/go-yaml/token"

	"github.com/rpcgen/rpcgen/idl"
)

// configName is the project file rpcgen generate reads when given no
// protocol file.
const configName = "rpcgen.yaml"

// A project file lists the protocols to generate:
//
//	defaults:                      # optional; each protocol may override them
//	  out: generated/{name}        # output directory; {name}: the IDL file's name without .yaml
//	  outputs: [go, schema, docs, openrpc]  # what to write (default: all)
//	  package: ""                  # Go package name (default: from the protocol name)
//	protocols:
//	  - idl: protocols/*.yaml      # an IDL file or a glob
//	  - idl: bench/bench.yaml
//	    out: bench/benchproto
//
// Paths are relative to the project file's directory. The default out is
// "{name}".

// settings are the keys a protocol entry and defaults share.
type settings struct {
	out, pkg string
	outs     outputs
}

// configReader reads one project file, collecting errors with positions.
type configReader struct {
	file string
	errs idl.Errors
}

// loadConfig reads the project file at path and returns its jobs, or an
// [idl.Errors] with every problem as file:line:col.
func loadConfig(path string) ([]job, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the project file: %w", err)
	}
	r := &configReader{file: path}
	jobs := r.read(src, filepath.Dir(path))
	if len(r.errs) > 0 {
		return nil, r.errs
	}
	return jobs, nil
}

func (r *configReader) errorf(tk *ytoken.Token, format string, args ...any) {
	pos := idl.Pos{File: r.file, Line: 1, Col: 1}
	if tk != nil && tk.Position != nil {
		pos.Line, pos.Col = tk.Position.Line, tk.Position.Column
	}
	r.errs = append(r.errs, idl.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// parse parses src, recording a syntax error.
func (r *configReader) parse(src []byte) (body ast.Node) {
	defer func() {
		if recover() != nil {
			r.errorf(nil, "YAML syntax error")
			body = nil
		}
	}()
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		var ye yaml.Error
		if e, ok := err.(yaml.Error); ok {
			ye = e
			r.errorf(ye.GetToken(), "YAML syntax error: %s", ye.GetMessage())
		} else {
			r.errorf(nil, "YAML syntax error: %v", err)
		}
		return nil
	}
	for _, d := range f.Docs {
		if d != nil && d.Body != nil {
			return d.Body
		}
	}
	r.errorf(nil, "the project file is empty; it is a mapping with a protocols: list")
	return nil
}

func (r *configReader) read(src []byte, dir string) []job {
	body := r.parse(src)
	if body == nil {
		return nil
	}
	top, ok := r.mapping(body, "the project file")
	if !ok {
		return nil
	}
	defaults := settings{out: "{name}", outs: allOutputs}
	var list ast.Node
	for _, kv := range top {
		switch key := kv.Key.String(); key {
		case "defaults":
			if m, ok := r.mapping(kv.Value, "defaults"); ok {
				r.settings(m, &defaults, "defaults")
			}
		case "protocols":
			list = kv.Value
		default:
			r.errorf(kv.Key.GetToken(), "unknown key %q; a project file has defaults: and protocols:", key)
		}
	}
	if list == nil {
		r.errorf(body.GetToken(), "no protocols: list; add one, as in protocols: [{idl: protocol.yaml}]")
		return nil
	}
	seq, ok := list.(*ast.SequenceNode)
	if !ok || len(seq.Values) == 0 {
		r.errorf(list.GetToken(), "protocols: wants a list of entries such as {idl: protocol.yaml}")
		return nil
	}
	var jobs []job
	outAt := map[string]*ytoken.Token{}
	for _, item := range seq.Values {
		m, ok := r.mapping(item, "a protocols entry")
		if !ok {
			continue
		}
		s := defaults
		var pattern string
		var at *ytoken.Token
		rest := m[:0:0]
		for _, kv := range m {
			if kv.Key.String() == "idl" {
				pattern, at = r.str(kv.Value, "idl"), kv.Value.GetToken()
				continue
			}
			rest = append(rest, kv)
		}
		r.settings(rest, &s, "a protocols entry")
		if at == nil {
			tk := item.GetToken()
			if len(m) > 0 {
				tk = m[0].Key.GetToken()
			}
			r.errorf(tk, "entry has no idl: key naming its IDL file")
			continue
		}
		if pattern == "" {
			continue
		}
		matches, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pattern)))
		if err != nil || len(matches) == 0 {
			r.errorf(at, "idl %q matches no file", pattern)
			continue
		}
		for _, file := range matches {
			name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
			out := filepath.Join(dir, filepath.FromSlash(strings.ReplaceAll(s.out, "{name}", name)))
			if prev, dup := outAt[out]; dup {
				r.errorf(at, "%s would be written to %s, as the entry at line %d writes there; put {name} in out", file, out, prev.Position.Line)
				continue
			}
			outAt[out] = at
			source := file
			if rel, err := filepath.Rel(dir, file); err == nil {
				source = filepath.ToSlash(rel)
			}
			jobs = append(jobs, job{idl: file, source: source, out: out, pkg: s.pkg, outs: s.outs})
		}
	}
	return jobs
}

// mapping returns n's entries, or records that what must be a mapping
// is not.
func (r *configReader) mapping(n ast.Node, what string) ([]*ast.MappingValueNode, bool) {
	switch m := n.(type) {
	case *ast.MappingNode:
		return m.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{m}, true
	}
	r.errorf(n.GetToken(), "%s must be a mapping", what)
	return nil, false
}

// str returns the string scalar n, or records that it is not one.
func (r *configReader) str(n ast.Node, key string) string {
	if s, ok := n.(*ast.StringNode); ok && s.Value != "" {
		return s.Value
	}
	r.errorf(n.GetToken(), "%s: wants a non-empty string", key)
	return ""
}

// settings applies the out, package and outputs keys of m to s.
func (r *configReader) settings(m []*ast.MappingValueNode, s *settings, where string) {
	for _, kv := range m {
		switch key := kv.Key.String(); key {
		case "out":
			if v := r.str(kv.Value, key); v != "" {
				s.out = v
			}
		case "package":
			if v := r.str(kv.Value, key); v != "" {
				if !token.IsIdentifier(v) || v == "_" {
					r.errorf(kv.Value.GetToken(), "package %q is not a Go package name", v)
				}
				s.pkg = v
			}
		case "outputs":
			r.outputs(kv.Value, s)
		default:
			known := "out, package, outputs"
			if where != "defaults" {
				known = "idl, " + known
			}
			r.errorf(kv.Key.GetToken(), "unknown key %q in %s; known: %s", key, where, known)
		}
	}
}

// outputs reads an outputs: list such as [go, schema, docs] into s.
func (r *configReader) outputs(n ast.Node, s *settings) {
	seq, ok := n.(*ast.SequenceNode)
	if !ok || len(seq.Values) == 0 {
		r.errorf(n.GetToken(), "outputs: wants a list of go, schema, docs and openrpc")
		return
	}
	s.outs = outputs{}
	for _, v := range seq.Values {
		switch name := v.String(); name {
		case "go":
			s.outs.goCode = true
		case "schema":
			s.outs.schema = true
		case "docs":
			s.outs.docs = true
		case "openrpc":
			s.outs.openRPC = true
		default:
			r.errorf(v.GetToken(), "unknown output %q; known: go, schema, docs, openrpc", name)
		}
	}
}
