package main

import (
	"strings"
)

// segments splits an HL7 message into its segments, accepting \r, \n and
// \r\n as separators and dropping empty lines.
func segments(message string) []string {
	lines := strings.FieldsFunc(message, func(r rune) bool { return r == '\r' || r == '\n' })
	out := lines[:0]
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// findSegment returns the first segment named name, or nil.
func findSegment(segs []string, name string) *string {
	for i := range segs {
		if segs[i] == name || strings.HasPrefix(segs[i], name+"|") {
			return &segs[i]
		}
	}
	return nil
}

// field returns field n (1-based) of seg, "" when absent. In MSH the field
// separator itself is field 1.
func field(seg *string, n int) string {
	if seg == nil {
		return ""
	}
	return fieldOf(*seg, n)
}

func fieldOf(seg string, n int) string {
	parts := strings.Split(seg, "|")
	if strings.HasPrefix(seg, "MSH|") {
		if n == 1 {
			return "|"
		}
		n--
	}
	if n < 1 || n >= len(parts) {
		return ""
	}
	return parts[n]
}

// component returns component i (1-based) of the first repetition of f.
func component(f string, i int) string {
	rep, _, _ := strings.Cut(f, "~")
	parts := strings.Split(rep, "^")
	if i < 1 || i > len(parts) {
		return ""
	}
	return parts[i-1]
}

// fileName names an exported message after its control ID (MSH-10).
func fileName(message string) string {
	segs := segments(message)
	id := ""
	if len(segs) > 0 {
		id = fieldOf(segs[0], 10)
	}
	id = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' {
			return r
		}
		return -1
	}, id)
	if id == "" {
		id = "message"
	}
	return id + ".hl7"
}
