package idl

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestByteOrderMark checks that a UTF-8 byte-order mark is skipped: the
// file loads as it does without the mark, and errors on its first line
// have the same columns.
func TestByteOrderMark(t *testing.T) {
	for _, src := range []string{
		validHead + "types:\n  T: {fields: {a: string}}\n",
		"protocol: {name: x, roles: {a: , b: }, framing: nd}\n",
	} {
		want, wantErr := Parse("t.yaml", []byte(src))
		got, err := Parse("t.yaml", []byte(utf8BOM+src))
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("with the mark: %v\nwithout: %v", err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: the protocol differs with the mark", src)
		}
	}
}

// TestInvalidUTF8 checks where invalid UTF-8 is reported: at the first
// invalid byte, its column counted in characters.
func TestInvalidUTF8(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{"\xff", "t.yaml:1:1: invalid UTF-8: byte 0xFF"},
		{validHead + "  doc: \"é\xc3\"\n", "t.yaml:5:10: invalid UTF-8: byte 0xC3"},
		{validHead + "types:\n  T\xc3\x28: string\n", "t.yaml:6:4: invalid UTF-8: byte 0xC3"},
		{validHead + "  doc: \xed\xa0\x80\n", "t.yaml:5:8: invalid UTF-8: byte 0xED cannot start or continue a character here (and 2 more invalid bytes after it)"},
		{utf8BOM + "a: \xfe\n", "t.yaml:1:4: invalid UTF-8: byte 0xFE"},
		{"\xfe\xffp\x00", "t.yaml:1:1: the file is UTF-16 text"},
	}
	for _, tt := range tests {
		_, err := Parse("t.yaml", []byte(tt.src))
		var errs Errors
		if !errors.As(err, &errs) || len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tt.want) {
			t.Errorf("%q: got %v, want one error starting %q", tt.src, err, tt.want)
		}
	}
}
