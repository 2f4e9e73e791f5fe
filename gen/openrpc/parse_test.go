package openrpc

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// parseCases are JSON texts, valid and not, that parse and parseRef must
// read alike.
var parseCases = []string{
	`{}`, `[]`, ` { "a" : [ 1 , -2.5e+3 , true , false , null , "x" ] } `,
	`{"a":{"b":{"c":[[],{}]}},"a":2}`, `"esc\"aped \\ \u00e9 \ud83d\ude00 \n"`, "\"bad \xff utf-8\"",
	`0`, `-0.0E-1`, `01`, `-`, `1.`, `.5`, `1x`, `truex`, `nul`, `[1 2]`, `[1,]`, `{"a":1,}`,
	`{"a" 1}`, `{1:2}`, `"open`, "\"ctl \x01\"", `[`, `{`, ``, ` `, `1 2`, `{} `, `[true]x`,
}

// TestParseSameAsDecoder checks that parse reads every JSON Schema and
// OpenRPC document generated for the shipped protocols, and the cases
// above, as encoding/json's tokenizer did (parseRef): the same values, and
// an error for the same inputs.
func TestParseSameAsDecoder(t *testing.T) {
	var inputs [][]byte
	for _, s := range parseCases {
		inputs = append(inputs, []byte(s))
	}
	for _, pattern := range []string{"*/openrpc.json", "*/schema/*.json", "*/schema/*/*.json"} {
		paths, err := filepath.Glob(filepath.Join("..", "..", "generated", pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, data)
		}
	}
	if len(inputs) < len(parseCases)+100 {
		t.Fatalf("only %d generated files found", len(inputs)-len(parseCases))
	}
	for _, in := range inputs {
		checkParse(t, in)
	}
}

// checkParse fails t unless parse and parseRef read data alike.
func checkParse(t *testing.T, data []byte) {
	t.Helper()
	got, err := parse(data)
	want, wantErr := parseRef(data)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("parse(%.200q): error %v, want %v", data, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("parse(%.200q) = %#v, want %#v", data, got, want)
	}
}

// FuzzParse checks parse against encoding/json's tokenizer on any input.
func FuzzParse(f *testing.F) {
	for _, s := range parseCases {
		f.Add([]byte(s))
	}
	f.Fuzz(checkParse)
}
