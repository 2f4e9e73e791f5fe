package idl

import (
	"bytes"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"unicode/utf8"
)

// utf8BOM is the UTF-8 encoding of the byte-order mark U+FEFF, which some
// editors write at the start of a file.
const utf8BOM = "\uFEFF"

// checkEncoding reports a file that is not UTF-8 text at its first
// invalid byte, and returns whether the file is UTF-8.
func (c *converter) checkEncoding(src []byte) bool {
	if bytes.HasPrefix(src, []byte{0xFF, 0xFE}) || bytes.HasPrefix(src, []byte{0xFE, 0xFF}) {
		c.errs.add(c.pos(1, 1), "the file is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8")
		return false
	}
	if utf8.Valid(src) {
		return true
	}
	line, col, bad := 1, 1, 0
	var at Pos
	var first byte
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size == 1 {
			if bad == 0 {
				at, first = c.pos(line, col), src[i]
			}
			bad++
		}
		if col++; r == '\n' {
			line, col = line+1, 1
		}
		i += size
	}
	more := ""
	switch {
	case bad == 2:
		more = " (and 1 more invalid byte after it)"
	case bad > 2:
		more = fmt.Sprintf(" (and %d more invalid bytes after it)", bad-1)
	}
	c.errs.add(at, "invalid UTF-8: byte 0x%02X cannot start or continue a character here%s; save the file as UTF-8", first, more)
	return false
}

// bigIntRE matches the integers of YAML, of any size.
var bigIntRE = regexp.MustCompile(`^[-+]?(0x[0-9a-fA-F_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*)$`)

// bigInt returns the node of an integer written text that does not fit in
// an int64, kept as the JSON number it is (intOK false) so that it is
// reported as out of range, or nil when text is not an integer.
func bigInt(text string, pos Pos) *node {
	v, ok := new(big.Int).SetString(strings.ReplaceAll(text, "_", ""), 0)
	if !ok || v.IsInt64() {
		return nil
	}
	return &node{kind: nInt, pos: pos, str: v.String(), raw: text}
}
