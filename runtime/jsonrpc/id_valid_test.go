package jsonrpc

import (
	"encoding/json"
	"testing"
)

// FuzzValidID checks that validID agrees with encoding/json on what is
// JSON text, for every text starting as a string, a number or null.
func FuzzValidID(f *testing.F) {
	for _, s := range []string{"0", "-0", "7", "-12", "00", "-", "01", "1.5", "1e3", "-01", `"a"`, `"\u00"`, "null", "nul", "12a", "1 ", " 1", "18446744073709551616"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := validID(b)
		want := len(b) > 0 && json.Valid(b) && (b[0] == '"' || b[0] == '-' || b[0] >= '0' && b[0] <= '9' || string(b) == "null")
		if got != want {
			t.Fatalf("validID(%q) = %v, want %v", b, got, want)
		}
	})
}

// TestValidIDAllocatesNothing checks that validating an id costs no
// allocation.
func TestValidIDAllocatesNothing(t *testing.T) {
	id := []byte("12345")
	if n := testing.AllocsPerRun(100, func() {
		if !validID(id) || !validID([]byte(`"a\u00e9"`)) {
			t.Fatal("a valid id is refused")
		}
	}); n != 0 {
		t.Errorf("validID allocated %v times", n)
	}
}
