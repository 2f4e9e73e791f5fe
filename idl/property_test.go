package idl_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/gen/golang"
	"github.com/rpcgen/rpcgen/idl"
)

var seed = flag.Int64("seed", idl.PropDefaultSeed, "seed of TestPropertyRandomIDLs")

// TestPropertyRandomIDLs generates random valid IDLs, checks that idl.Parse
// accepts them, that their generated Go vets and builds, and that random
// valid JSON values of each named type unmarshal into the generated type and
// marshal back to semantically equal JSON.
func TestPropertyRandomIDLs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated packages with the go command")
	}
	defer func() {
		if t.Failed() {
			t.Logf("seed %d; rerun with go test ./idl -run TestPropertyRandomIDLs -seed %d", *seed, *seed)
		}
	}()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod := "module proptest\n\ngo 1.25\n\nrequire github.com/rpcgen/rpcgen v0.0.0\n\nreplace github.com/rpcgen/rpcgen => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	var imports, cases strings.Builder
	for i := range idl.PropIDLs {
		src, samples := idl.PropIDL(*seed, i)
		name := fmt.Sprintf("prop%d.yaml", i)
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := idl.Parse(name, src)
		if err != nil {
			t.Errorf("random IDL %s rejected:\n%v\n%s", name, err, src)
			continue
		}
		files, err := golang.Generate(p, golang.Options{})
		if err != nil {
			t.Errorf("%s: generate: %v", name, err)
			continue
		}
		pkg := fmt.Sprintf("prop%d", i)
		if err := gen.Write(filepath.Join(dir, pkg), files); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&imports, "\t%q\n", "proptest/"+pkg)
		for _, s := range samples {
			star := ""
			if s.Nullable {
				star = "*"
			}
			for _, v := range s.Values {
				fmt.Fprintf(&cases, "\t{%q, func() any { return new(%s%s.%s) }, %s},\n", pkg+"/"+s.Type, star, pkg, s.Type, strconv.Quote(v))
			}
		}
	}
	if t.Failed() {
		return
	}
	check := `package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"

` + imports.String() + `)

var cases = []struct {
	name string
	new  func() any
	in   string
}{
` + cases.String() + `}

func main() {
	bad := 0
	for _, c := range cases {
		v := c.new()
		if err := json.Unmarshal([]byte(c.in), v); err != nil {
			fmt.Printf("%s: unmarshal %s: %v\n", c.name, c.in, err)
			bad++
			continue
		}
		out, err := json.Marshal(v)
		if err != nil {
			fmt.Printf("%s: marshal after %s: %v\n", c.name, c.in, err)
			bad++
			continue
		}
		var a, b any
		_ = json.Unmarshal([]byte(c.in), &a)
		if err := json.Unmarshal(out, &b); err != nil || !reflect.DeepEqual(a, b) {
			fmt.Printf("%s: %s came back as %s\n", c.name, c.in, out)
			bad++
		}
	}
	fmt.Printf("%d values checked, %d failed\n", len(cases), bad)
	if bad > 0 {
		os.Exit(1)
	}
}
`
	if err := os.MkdirAll(filepath.Join(dir, "check"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "check", "main.go"), []byte(check), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"vet", "./..."}, {"run", "./check"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
			return
		}
		t.Logf("go %s: %s", strings.Join(args, " "), out)
	}
}
