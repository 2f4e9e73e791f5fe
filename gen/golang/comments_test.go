package golang

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/idl"
)

// shippedPackages returns each shipped protocol with the files of its
// committed Go package, parsed with their comments.
func shippedPackages(t *testing.T) map[*idl.Protocol][]*ast.File {
	t.Helper()
	ymls, err := filepath.Glob(filepath.Join("..", "..", "protocols", "*.yaml"))
	if err != nil || len(ymls) < 6 {
		t.Fatalf("found %d protocols (%v)", len(ymls), err)
	}
	out := map[*idl.Protocol][]*ast.File{}
	for _, y := range ymls {
		p, err := idl.Load(y)
		if err != nil {
			t.Fatal(err)
		}
		gos, _ := filepath.Glob(filepath.Join("..", "..", "generated", strings.TrimSuffix(filepath.Base(y), ".yaml"), "*.go"))
		if len(gos) == 0 {
			t.Fatalf("%s: no generated Go files", y)
		}
		fset := token.NewFileSet()
		for _, g := range gos {
			f, err := parser.ParseFile(fset, g, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = append(out[p], f)
		}
	}
	return out
}

var backticked = regexp.MustCompile("`([^`\\s]+)`")

// TestCommentsUseDocLinks checks that no generated comment writes as
// Markdown code a name the package declares (a type, function, variable
// or constant), an IDL type name or the wire name of a method: those are
// Go doc links.
func TestCommentsUseDocLinks(t *testing.T) {
	for p, files := range shippedPackages(t) {
		declared := map[string]bool{}
		for _, f := range files {
			for name := range f.Scope.Objects {
				declared[name] = true
			}
		}
		for _, def := range p.Types {
			declared[def.Name] = true
		}
		for _, m := range p.Methods {
			if m.From != idl.FromBoth {
				declared[m.Name] = true
			}
		}
		for _, f := range files {
			for _, cg := range f.Comments {
				for _, c := range cg.List {
					for _, m := range backticked.FindAllStringSubmatch(c.Text, -1) {
						if declared[m[1]] {
							t.Errorf("%s: comment writes %s as code, not as a doc link: %s", p.Name, m[0], c.Text)
						}
					}
				}
			}
		}
	}
}

var filler = regexp.MustCompile(`^\w+ is (an object with|an empty object|an object whose members)`)

// TestTypeDocsLead checks that a type whose IDL has a doc starts its Go
// doc comment with that doc, after its name, and never with a sentence
// listing its members.
func TestTypeDocsLead(t *testing.T) {
	for p, files := range shippedPackages(t) {
		byGo := map[string]*idl.TypeDef{}
		for _, def := range p.Types {
			byGo[def.GoName] = def
		}
		n := 0
		for _, f := range files {
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.TYPE || gd.Doc == nil {
					continue
				}
				name := gd.Specs[0].(*ast.TypeSpec).Name.Name
				def := byGo[name]
				if def == nil || strings.TrimSpace(def.Doc) == "" {
					continue
				}
				n++
				text := gd.Doc.Text()
				first, _, _ := strings.Cut(text, "\n\n")
				first = strings.Join(strings.Fields(first), " ")
				if !strings.HasPrefix(first, name+" ") {
					t.Errorf("%s: doc of %s does not start with its name: %.80q", p.Name, name, first)
				}
				words := strings.Fields(def.Doc)
				want := strings.ToLower(strings.Join(words[:min(3, len(words))], " "))
				where := strings.ToLower(first)
				if def.Type.Kind == idl.KindEnum {
					where = strings.ToLower(strings.Join(strings.Fields(text), " "))
				}
				if filler.MatchString(first) && !strings.Contains(where, want) {
					t.Errorf("%s: doc of %s leads with %.80q though the IDL has a doc", p.Name, name, first)
				} else if !strings.Contains(where, want) {
					t.Errorf("%s: doc of %s does not lead with the IDL's %q: %.100q", p.Name, name, want, first)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no documented type found", p.Name)
		}
	}
}

func TestLinkComments(t *testing.T) {
	links := map[string]string{"shutdown": "[Plugin.Shutdown]", "exit": "[Plugin.Exit]"}
	src := "// Calls `shutdown`, then `exit`; `other` stays.\n//\n//   `exit` in code\nvar s = \"`shutdown`\"\n"
	want := "// Calls [Plugin.Shutdown], then [Plugin.Exit]; `other` stays.\n//\n//   `exit` in code\nvar s = \"`shutdown`\"\n"
	if got := string(linkComments([]byte(src), linkSet{spans: links})); got != want {
		t.Errorf("linkComments:\n got %q\nwant %q", got, want)
	}
	// A paragraph that grows is filled again to the comment width.
	long := strings.Repeat("word ", 14) + "`shutdown` and"
	src = "\t// " + long + "\n\t// more.\n\tX int\n"
	got := string(linkComments([]byte(src), linkSet{spans: links}))
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "\t// ") && len(l) > len("\t// ")+commentWidth {
			t.Errorf("line longer than the comment width: %q", l)
		}
	}
	if !strings.Contains(strings.ReplaceAll(got, "\n\t// ", " "), "[Plugin.Shutdown] and more.") || !strings.HasSuffix(got, "\tX int\n") {
		t.Errorf("linkComments refilled to %q", got)
	}
}

// TestOnTimeoutDocOnce checks that the protocol's on_timeout doc is
// written once, in the package doc, and not again for each method that
// shares it.
func TestOnTimeoutDocOnce(t *testing.T) {
	checked := 0
	for p, files := range shippedPackages(t) {
		words := strings.Fields(p.OnTimeout.Doc)
		if p.Timeout == 0 || len(words) < 6 {
			continue
		}
		checked++
		phrase := strings.Join(words[:6], " ")
		n := 0
		for _, f := range files {
			for _, cg := range f.Comments {
				n += strings.Count(strings.Join(strings.Fields(cg.Text()), " "), phrase)
			}
		}
		if n != 1 {
			t.Errorf("%s: the on_timeout doc %q is written %d times, want once", p.Name, phrase, n)
		}
	}
	if checked < 3 {
		t.Fatalf("only %d protocols have a default timeout with a doc", checked)
	}
}

// TestOriginLinksHolder checks that an inline type's doc names the type
// holding it as a doc link.
func TestOriginLinksHolder(t *testing.T) {
	p, err := idl.Load(filepath.Join("..", "..", "protocols", "mcp.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == "types.go" {
			if !strings.Contains(string(f.Content), "// It is the sampling member of [ClientCapabilities].\ntype SamplingCapability struct") {
				t.Error("SamplingCapability's doc does not link ClientCapabilities")
			}
			return
		}
	}
	t.Fatal("no types.go")
}
