package golang

import (
	"path/filepath"
	"testing"

	"github.com/rpcgen/rpcgen/idl"
)

// TestOptionalExceptions checks that every row of the exception table
// names an optional member of a shipped protocol, declared by the object
// it names, and that the row changes what the rule alone chooses.
func TestOptionalExceptions(t *testing.T) {
	protocols := map[string]*idl.Protocol{}
	used := map[member]bool{}
	for m := range exceptions {
		p, ok := protocols[m.protocol]
		if !ok {
			var err error
			p, err = idl.Load(filepath.Join("..", "..", "protocols", m.protocol+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			protocols[m.protocol] = p
		}
		g := &generator{p: p, decodes: map[*idl.TypeDef]bool{}}
		for _, def := range p.Types {
			if def.Name != m.object || def.Type.Kind != idl.KindObject {
				continue
			}
			for _, fl := range def.Type.Fields {
				if fl.Name != m.name || fl.DeclaredIn != def {
					continue
				}
				used[m] = true
				if !fl.Optional {
					t.Errorf("%v: the member is required", m)
				}
				if g.plain(fl) == plainByRule(fl) {
					t.Errorf("%v: the row changes nothing; remove it", m)
				}
				if g.plain(fl) == !exceptions[m] {
					continue
				}
				t.Errorf("%v: plain is %v, want %v", m, g.plain(fl), !exceptions[m])
			}
		}
		if !used[m] {
			t.Errorf("%v names no member of %s", m, m.protocol)
		}
	}
}

// TestPlainByRule checks the rule on members of the shipped protocols,
// one of each case it tells apart.
func TestPlainByRule(t *testing.T) {
	want := map[member]bool{
		{"mcp", "ToolAnnotations", "title"}:                true,  // a string
		{"mcp", "ToolAnnotations", "readOnlyHint"}:         true,  // a boolean, default false
		{"mcp", "ToolAnnotations", "destructiveHint"}:      false, // a boolean, default true
		{"mcp", "Resource", "size"}:                        false, // a number: 0 is a size
		{"mcp", "ServerCapabilities", "tools"}:             false, // an object: {} says something
		{"mcp", "ToolChoice", "mode"}:                      true,  // an enum without ""
		{"mcp", "ElicitRequestFormParams", "mode"}:         true,  // a constant that is not ""
		{"lsp", "Diagnostic", "severity"}:                  true,  // an integer enum without 0
		{"lsp", "FileSystemWatcher", "kind"}:               false, // an open integer enum: 0 is a value
		{"lsp", "ServerCapabilities", "hoverProvider"}:     true,  // a union
		{"supex", "BatchScreenshotArguments", "base_name"}: false, // a string, default not ""
		{"hermes", "UIOpenWindowParams", "modal"}:          true,  // a boolean, default false
	}
	for m, plain := range want {
		p, err := idl.Load(filepath.Join("..", "..", "protocols", m.protocol+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, def := range p.Types {
			if def.Name != m.object || def.Type.Kind != idl.KindObject {
				continue
			}
			for _, fl := range def.Type.Fields {
				if fl.Name == m.name {
					found = true
					if got := plainByRule(fl); got != plain {
						t.Errorf("%v: plain is %v, want %v", m, got, plain)
					}
				}
			}
		}
		if !found {
			t.Errorf("%v names no member", m)
		}
	}
}
