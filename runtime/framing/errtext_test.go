package framing

import (
	"errors"
	"strings"
	"testing"
)

// TestTooLargeErrorText: a message too large reads as the framing's error
// once, without ErrTooLarge's own prefix, and still wraps ErrTooLarge.
func TestTooLargeErrorText(t *testing.T) {
	r := NDJSON.NewReader(strings.NewReader(strings.Repeat("x", 64)+"\n{}\n"), Limits{MaxMessageSize: 16})
	_, err := r.Read()
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Read = %v, want ErrTooLarge", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "ndjson framing: ") || !strings.HasSuffix(msg, ": message too large") || strings.Count(msg, "framing: ") != 1 {
		t.Errorf("error text %q, want \"ndjson framing: ...: message too large\"", msg)
	}
	if ErrTooLarge.Error() != "framing: message too large" {
		t.Errorf("ErrTooLarge = %q", ErrTooLarge)
	}
}
