package lsp

import (
	"os"
	"testing"
)

// FuzzImport feeds arbitrary meta models to the importer: it returns an
// IDL or an error, never panics, and is deterministic.
func FuzzImport(f *testing.F) {
	for _, path := range []string{"testdata/fixture.json"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		`{"structures":[{"name":"S","properties":[{"name":"p","type":null}]}]}`,
		`{"structures":[{"name":"S","extends":[null],"properties":[]}]}`,
		`{"typeAliases":[{"name":"T","type":{"kind":"or","items":[null,{"kind":"base","name":"null"}]}}]}`,
		`{"typeAliases":[{"name":"T","type":{"kind":"and","items":[null]}}]}`,
		`{"typeAliases":[{"name":"T","type":{"kind":"map","key":{"kind":"reference","name":"T"},"value":{"kind":"tuple","items":[null]}}}]}`,
		`{"requests":[{"method":"m","messageDirection":"both","params":[null],"result":null,"errorData":null}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Import(data)
		if err != nil {
			return
		}
		again, err := Import(data)
		if err != nil || string(again) != string(out) {
			t.Fatalf("a second import differs (error %v)", err)
		}
	})
}
