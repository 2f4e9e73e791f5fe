package idl

import "testing"

// TestRawField checks that raw: true marks the field, and only it, and
// leaves its type map<string, any> for the generators that describe it.
func TestRawField(t *testing.T) {
	p, err := Load("testdata/valid/raw_field.yaml")
	if err != nil {
		t.Fatal(err)
	}
	call := mustType(t, p, "Call")
	for name, want := range map[string]bool{"name": false, "arguments": true, "options": true, "plain": false} {
		if got := mustField(t, call, name).Raw; got != want {
			t.Errorf("field %s: Raw = %v, want %v", name, got, want)
		}
	}
	if got := mustField(t, call, "arguments").Type.String(); got != "map<string, any>" {
		t.Errorf("arguments has type %s, want map<string, any>", got)
	}
}
