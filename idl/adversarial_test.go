package idl

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// advOutcome is the defined outcome of one adversarial input: accepted (no
// want), or refused with errors holding every string in want.
type advOutcome struct {
	outcome string
	want    []string
}

var advOutcomes = map[string]advOutcome{
	"adv_deep_flow_seq":           {"refused: `YAML nested more than 100 levels deep` at the 101st level; nothing deeper is converted", []string{"1:104: YAML nested more than 100 levels deep"}},
	"adv_unclosed_flow":           {"refused before parsing, at the 101st `[`: nesting deeper than 100 levels (a linear pre-scan: the YAML parser's own time grows faster than the square of the depth)", []string{"1:104: YAML nested more than 100 levels deep; flatten it with named types"}},
	"adv_deep_flow_map":           {"refused: `YAML nested more than 100 levels deep`, plus the unknown keys above it", []string{"YAML nested more than 100 levels deep"}},
	"adv_deep_block":              {"refused: `YAML nested more than 100 levels deep` at line 101", []string{"101:101: YAML nested more than 100 levels deep"}},
	"adv_deep_type":               {"accepted: an array nested 2,000 times (the type parser is not YAML-nested)", nil},
	"adv_deep_parens":             {"accepted: parentheses are only grouping", nil},
	"adv_billion_laughs":          {"refused without expansion: `YAML anchors (&name) are not supported` and `YAML aliases (*name) are not supported`; parse takes under a millisecond", []string{"1:5: YAML anchors (&name) are not supported", "YAML aliases (*name) are not supported"}},
	"adv_laughs_in_types":         {"refused without expansion: anchors and aliases reported, plus the unknown top-level keys", []string{"YAML anchors (&name) are not supported", "YAML aliases (*name) are not supported"}},
	"adv_alias_self":              {"refused: `YAML anchors (&name) are not supported`; no cycle followed", []string{"1:4: YAML anchors (&name) are not supported"}},
	"adv_undefined_alias":         {"refused: `YAML aliases (*name) are not supported` at the alias", []string{"6:6: YAML aliases (*name) are not supported"}},
	"adv_merge_key":               {"refused: `YAML merge keys (<<) are not supported; use extends:`", []string{"3:3: YAML merge keys (<<) are not supported"}},
	"adv_long_key":                {"accepted: a 16 KiB type name is a valid name (no length limit)", nil},
	"adv_long_value":              {"accepted: the doc is kept as written", nil},
	"adv_repeated_variants":       {"refused once: `variant A is listed 500 times in union T (first at 7:7); list it once`, at the second A", []string{"7:11: variant A is listed 500 times in union T (first at 7:7); list it once"}},
	"adv_many_keys":               {"accepted; the time grows linearly with the count: long runs of keys are given to the YAML parser 128 at a time, as its own time grows with the square of a mapping's length (`BenchmarkParseTypes` measures 1,000 to 100,000 types)", nil},
	"adv_nul_bytes":               {"refused: `type name \"T\\x00\" must start with a letter`, `unexpected character '\\x00' in type`", []string{`6:3: type name "T\x00" must start with a letter`, `6:11: unexpected character '\x00' in type`}},
	"adv_nul_only":                {"refused: `the file must be a mapping of key: value lines, not a string`", []string{"1:1: the file must be a mapping of key: value lines, not a string"}},
	"adv_invalid_utf8":            {"refused at the first invalid byte, in the doc: `invalid UTF-8: byte 0xFF cannot start or continue a character here (and 2 more invalid bytes after it); save the file as UTF-8`; nothing else is read", []string{"5:9: invalid UTF-8: byte 0xFF cannot start or continue a character here (and 2 more invalid bytes after it); save the file as UTF-8"}},
	"adv_bom":                     {"accepted: the mark is skipped, and columns count from after it", nil},
	"adv_utf16":                   {"refused: `the file is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8`", []string{"1:1: the file is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8"}},
	"adv_tabs_indent":             {"refused: `YAML syntax error: found character '\\t' that cannot start any token` at line 2", []string{"2:1: YAML syntax error: found character '\t' that cannot start any token"}},
	"adv_tabs_in_value":           {"accepted: tabs are blanks inside a compact type", nil},
	"adv_duplicate_keys":          {"refused: `duplicate key \"T\" in types (first at line 6)`", []string{`7:3: duplicate key "T" in types (first at line 6)`}},
	"adv_duplicate_protocol":      {"refused: `duplicate key \"protocol\" in the file (first at line 1)`", []string{`5:1: duplicate key "protocol" in the file (first at line 1)`}},
	"adv_duplicate_fields":        {"refused: `fields \"a\" and \"a\" of T both become the Go field A`", []string{`fields "a" and "a" of T both become the Go field A`}},
	"adv_custom_tag":              {"refused: `YAML tag !!binary is not supported` and `YAML tag !foo is not supported`", []string{"6:6: YAML tag !!binary is not supported", "7:6: YAML tag !foo is not supported"}},
	"adv_multi_doc":               {"refused: `an IDL file holds one YAML document`, once per extra document (999)", []string{"4:2: an IDL file holds one YAML document"}},
	"adv_huge_int":                {"refused: `port 99999999999999999999999 is out of range for a 64-bit integer (-9223372036854775808 to 9223372036854775807)`, the same for the error code, and `const must be an integer, and 1e400 is out of range for a 64-bit floating-point number`", []string{`5:34: port 99999999999999999999999 is out of range for a 64-bit integer`, `7:13: error code -99999999999999999999 is out of range for a 64-bit integer`, `9:29: const must be an integer, and 1e400 is out of range for a 64-bit floating-point number`}},
	"adv_cr_only":                 {"refused: CR alone ends a line; `missing roles` at 1:3", []string{"1:3: missing roles"}},
	"adv_scalar_root":             {"refused: `the file must be a mapping of key: value lines, not a list`", []string{"1:1: the file must be a mapping of key: value lines, not a list"}},
	"adv_complex_key":             {"refused: `YAML syntax error: found an invalid key for this map`", []string{"2:1: YAML syntax error: found an invalid key for this map"}},
	"adv_bom_position":            {"refused at 1:11, the column counted from after the mark: `protocol must be a mapping of key: value lines, not a integer`", []string{"1:11: protocol must be a mapping"}},
	"adv_indistinct_variants":     {"refused once, at the second variant, with a bounded list: `object variant O1 of union U can never be chosen: O0, listed before it, matches every object O1 matches and declares every member O1 declares; ... (O2, O3, ... and 1990 more, listed later, can never be chosen either)`; each variant is compared with the earlier ones whose first required member it declares, until one takes all its objects, here the first, so the time grows linearly with the count", []string{"2006:11: object variant O1 of union U can never be chosen: O0, listed before it, matches every object O1 matches and declares every member O1 declares; give O1 a required member that O0 does not declare, or remove O1 (O2, O3, O4, O5, O6, O7, O8, O9 and 1990 more, listed later, can never be chosen either)"}},
	"adv_alias_cycle":             {"refused once, at the first type: `type T0 is defined only in terms of itself (T0 -> T1 -> T2 -> T3 -> T4 -> T5 -> ... 1994 more ... -> T0)`; the time grows linearly with the length of the cycle", []string{"6:3: type T0 is defined only in terms of itself (T0 -> T1 -> T2 -> T3 -> T4 -> T5 -> ... 1994 more ... -> T0)"}},
	"adv_extends_chain":           {"refused once, at the 34th type: `type T33 extends T32, which already has 32 levels of extends above it; at most 32 levels are allowed`; the types below it inherit nothing, so the model stays linear in the input (every type holds the fields it inherits: an unbounded chain would make it grow with the square of its length)", []string{"39:3: type T33 extends T32, which already has 32 levels of extends above it; at most 32 levels are allowed"}},
	"adv_deep_dashes":             {"refused before parsing, at the 100th `-` (the key is the first level): `YAML nested more than 100 levels deep`; a linear pre-scan, as the YAML parser's time grows with the square of the depth", []string{"1:202: YAML nested more than 100 levels deep; flatten it with named types"}},
	"adv_header_injection":        {"refused: `path \"/rpc\\n// x\" of transport http holds white space, a control character, ? or #` and `session_header \"Rpc-Session\\r\\nSet-Cookie: a=b\" is not an HTTP header name`; neither reaches generated code or a request", []string{`7:26: path "/rpc\n// x" of transport http holds white space, a control character, ? or #`, `7:56: session_header "Rpc-Session\r\nSet-Cookie: a=b" is not an HTTP header name`}},
	"adv_version_control":         {"refused: `batch version \"1\\r\\nX: y\" is not a version` and the same for default_version", []string{`6:24: batch version "1\r\nX: y" is not a version`, `8:65: default_version "1\r\nX: y" is not a version`}},
	"adv_batch_versions_repeated": {"refused once: `version \"1\" is listed 10000 times in batches (first at 6:24); list it once`, at the second", []string{`6:29: version "1" is listed 10000 times in batches (first at 6:24); list it once`}},
	"adv_unterminated":            {"refused: `YAML syntax error: could not find end character of double-quoted text`", []string{"6:6: YAML syntax error: could not find end character of double-quoted text"}},
}

// TestAdversarial parses every adversarial input, checks its defined outcome
// and that every error points inside the input, checks that each input is a
// seed of FuzzParse in testdata/fuzz/FuzzParse, and renders RELIABILITY.md
// (rewritten with -update).
func TestAdversarial(t *testing.T) {
	cases := adversarial()
	var rows []string
	for _, c := range cases {
		o, ok := advOutcomes[c.name]
		if !ok {
			t.Errorf("%s: no defined outcome", c.name)
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("adv.yaml", c.src)
			if o.want == nil {
				if err != nil {
					t.Fatalf("want accepted, got:\n%.2000v", err)
				}
			} else {
				if err == nil {
					t.Fatal("accepted; want refused")
				}
				checkPositions(t, c.src, err)
				for _, w := range o.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("errors lack %q:\n%.2000v", w, err)
					}
				}
			}
			seed := filepath.Join("testdata", "fuzz", "FuzzParse", c.name)
			want := []byte("go test fuzz v1\n[]byte(" + strconv.Quote(string(c.src)) + ")\n")
			if *update {
				if err := os.WriteFile(seed, want, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if got, err := os.ReadFile(seed); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s is missing or stale (err %v); run go test -run TestAdversarial -update", seed, err)
			}
		})
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | `TestAdversarial/%s`, `FuzzParse` seed |", c.name, cell(c.input), cell(o.outcome), c.name))
	}
	for name := range advOutcomes {
		found := false
		for _, c := range cases {
			found = found || c.name == name
		}
		if !found {
			t.Errorf("outcome for unknown case %s", name)
		}
	}
	rows = append(rows, propertyRows()...)
	rows = append(rows, overlapRows()...)
	renderReliability(t, rows)
}

// cell escapes a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// checkPositions checks what FuzzParse checks: err is a non-empty Errors
// whose positions all point inside src.
func checkPositions(t *testing.T, src []byte, err error) {
	t.Helper()
	var errs Errors
	if !errors.As(err, &errs) || len(errs) == 0 {
		t.Fatalf("Parse returned %T (%v); want a non-empty Errors", err, err)
	}
	lines := strings.Split(string(src), "\n")
	for _, e := range errs {
		if e.Pos.Line < 1 || e.Pos.Line > len(lines) {
			t.Fatalf("%.200v: line outside the input", e)
		}
		line := strings.TrimSuffix(lines[e.Pos.Line-1], "\r")
		if n := len([]rune(line)); e.Pos.Col < 1 || e.Pos.Col > n+1 {
			t.Fatalf("%.200v: column outside the line", e)
		}
	}
}

// renderReliability writes or checks RELIABILITY.md.
func renderReliability(t *testing.T, rows []string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("<!-- Generated by go test ./idl -run TestAdversarial -update; do not edit. -->\n\n")
	b.WriteString("# IDL loader: reliability\n\n")
	b.WriteString("Every adversarial YAML input given to `idl.Parse`, its defined outcome, and the test that proves it. " +
		"Each input is also a seed of `FuzzParse` (`testdata/fuzz/FuzzParse/<case>`), run as a regression test by `go test`; " +
		"FuzzParse checks that no input panics and that every error points inside the input. " +
		"Refused means `idl.Parse` returns `idl.Errors` holding the quoted message at a position inside the input. " +
		"The cases live in `adversarial_cases_test.go` and `adversarial_test.go`.\n\n")
	b.WriteString("| case | input | outcome | proved by |\n|---|---|---|---|\n")
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	got := []byte(b.String())
	if *update {
		if err := os.WriteFile("RELIABILITY.md", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want, err := os.ReadFile("RELIABILITY.md"); err != nil || !bytes.Equal(got, want) {
		t.Errorf("RELIABILITY.md is missing or stale (err %v); run go test ./idl -run TestAdversarial -update", err)
	}
}
