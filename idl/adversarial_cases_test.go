package idl

import (
	"fmt"
	"strings"
)

// advCase is one adversarial YAML input given to the loader.
type advCase struct {
	name  string // also the file name of its seed in testdata/fuzz/FuzzParse
	input string // what the input is, for the reliability table
	src   []byte
}

const validHead = "protocol:\n  name: x\n  roles: {a: , b: }\n  framing: ndjson\n"

func laughs(levels, fan int) []byte {
	var b strings.Builder
	b.WriteString("l0: &l0 [lol]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := 0; j < fan; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	return []byte(b.String())
}

func adversarial() []advCase {
	deepMap := strings.Repeat("{a: ", 1000) + "x" + strings.Repeat("}", 1000)
	deepBlock := new(strings.Builder)
	for i := range 300 {
		deepBlock.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	longKey := strings.Repeat("k", 1<<14)
	return []advCase{
		{"adv_deep_flow_seq", "1,000 nested flow sequences `[[[...]]]`", []byte("a: " + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + "\n")},
		{"adv_unclosed_flow", "2,000 unclosed flow sequences `[[[...` and no end", []byte("a: " + strings.Repeat("[", 2000))},
		{"adv_deep_flow_map", "1,000 nested flow mappings `{a: {a: ...}}`", []byte("types:\n  T: " + deepMap + "\n")},
		{"adv_deep_block", "300 nested block mappings, one per line", []byte(deepBlock.String())},
		{"adv_deep_type", "a compact type nested 2,000 levels `[][]...[]string`", []byte(validHead + "types:\n  T: \"" + strings.Repeat("[]", 2000) + "string\"\n")},
		{"adv_deep_parens", "a compact type with 2,000 nested parentheses", []byte(validHead + "types:\n  T: \"" + strings.Repeat("(", 2000) + "string" + strings.Repeat(")", 2000) + "\"\n")},
		{"adv_billion_laughs", "billion laughs: 10 anchors of 10 aliases each (10^10 nodes if expanded)", laughs(10, 10)},
		{"adv_laughs_in_types", "billion laughs under `types:` of a valid protocol", append([]byte(validHead+"x-"), laughs(9, 10)...)},
		{"adv_alias_self", "an alias to the anchor being defined `a: &a [*a]`", []byte("a: &a [*a]\n")},
		{"adv_undefined_alias", "an alias to an undefined anchor", []byte(validHead + "types:\n  T: *nope\n")},
		{"adv_merge_key", "a merge key `<<: *base`", []byte("base: &base {a: 1}\nprotocol:\n  <<: *base\n")},
		{"adv_long_key", "a 16 KiB mapping key", []byte(validHead + "types:\n  " + longKey + ": string\n")},
		{"adv_long_value", "a 16 KiB doc string", []byte(validHead + "  doc: " + strings.Repeat("lol ", 1<<12) + "\n")},
		{"adv_repeated_variants", "a union of the same object type 500 times `A | A | ... | A`", []byte(validHead + "types:\n  A: {fields: {a: string}}\n  T: \"" + strings.Repeat("A | ", 499) + "A\"\n")},
		{"adv_many_keys", "500 named types in one mapping", func() []byte {
			var b strings.Builder
			b.WriteString(validHead + "types:\n")
			for i := range 500 {
				fmt.Fprintf(&b, "  T%d: string\n", i)
			}
			return []byte(b.String())
		}()},
		{"adv_nul_bytes", "NUL bytes inside a key and a value", []byte(validHead + "types:\n  T\x00: \"str\x00ing\"\n")},
		{"adv_nul_only", "a file of 1,000 NUL bytes", make([]byte, 1000)},
		{"adv_invalid_utf8", "invalid UTF-8 bytes in a key and a doc", []byte(validHead + "  doc: \"\xff\xfe\"\ntypes:\n  T\xc3\x28: string\n")},
		{"adv_bom", "a UTF-8 byte-order mark before the document", []byte("\xef\xbb\xbf" + validHead)},
		{"adv_utf16", "a UTF-16 encoded file", []byte("\xff\xfep\x00r\x00o\x00:\x00\n\x00")},
		{"adv_tabs_indent", "tabs used for indentation", []byte("protocol:\n\tname: x\n\tframing: ndjson\n")},
		{"adv_tabs_in_value", "tabs inside a compact type `string\\t|\\tinteger`", []byte(validHead + "types:\n  T: \"string\t|\tinteger\"\n")},
		{"adv_duplicate_keys", "the same key twice in a mapping", []byte(validHead + "types:\n  T: string\n  T: integer\n")},
		{"adv_duplicate_protocol", "`protocol:` twice at the top level", []byte(validHead + validHead)},
		{"adv_duplicate_fields", "a field declared twice, once as `a` and once as `a?`", []byte(validHead + "types:\n  T: {fields: {a: string, a?: integer}}\n")},
		{"adv_custom_tag", "a custom tag `!!binary` and a local tag `!foo`", []byte(validHead + "types:\n  T: !!binary aGVsbG8=\n  U: !foo string\n")},
		{"adv_multi_doc", "1,000 YAML documents", []byte(strings.Repeat("---\na: 1\n", 1000))},
		{"adv_huge_int", "integers beyond int64 in a port, a code and a const", []byte("protocol:\n  name: x\n  roles: {a: , b: }\n  framing: ndjson\n  transports: [{kind: tcp, port: 99999999999999999999999}]\nerrors:\n  E: {code: -99999999999999999999, message: m}\ntypes:\n  C: {type: integer, const: 1e400}\n")},
		{"adv_cr_only", "CR-only line ends", []byte("protocol:\r  name: x\r  framing: ndjson\r")},
		{"adv_scalar_root", "a top-level scalar, list and null", []byte("- 1\n- 2\n")},
		{"adv_complex_key", "a complex mapping key `? [a, b]`", []byte("? [a, b]\n: c\n")},
		{"adv_unterminated", "an unterminated quoted string and flow mapping", []byte(validHead + "types:\n  T: \"string\n  U: {a: [b\n")},
		{"adv_bom_position", "a UTF-8 byte-order mark before an error on line 1", []byte("\xef\xbb\xbfprotocol: 1\n")},
		{"adv_indistinct_variants", "a union of 2,000 object types that all have the same single member", indistinct(2000)},
		{"adv_alias_cycle", "2,000 types each defined as the next, the last as the first", aliasCycle(2000)},
		{"adv_extends_chain", "1,000 object types, each extending the one before", extendsChain(1000)},
		{"adv_deep_dashes", "2,000 nested block sequences on one line `- - - ... x`, under a key", []byte("a: " + strings.Repeat("- ", 2000) + "x\n")},
		{"adv_header_injection", "an http transport whose session header and path hold CR LF and a second header or line", []byte(validHead + "  handshake: open\n  transports:\n    - {kind: http, path: \"/rpc\\n// x\", session_header: \"Rpc-Session\\r\\nSet-Cookie: a=b\"}\nmethods:\n  open: {from: a, kind: request}\n")},
		{"adv_version_control", "a default version and a batch version holding CR LF", []byte(validHead + "  handshake: {method: open, version_field: v}\n  batches: {versions: [\"1\\r\\nX: y\"]}\n  transports:\n    - {kind: http, path: /, version_header: V, default_version: \"1\\r\\nX: y\"}\nmethods:\n  open: {from: a, kind: request, result: {fields: {v: string}}}\n")},
		{"adv_batch_versions_repeated", "batches: {versions: [...]} listing one version 10,000 times", []byte(validHead + "  handshake: {method: open, version_field: v}\n  batches: {versions: [" + strings.Repeat("\"1\", ", 9999) + "\"1\"]}\nmethods:\n  open: {from: a, kind: request, result: {fields: {v: string}}}\n")},
	}
}

// extendsChain returns a protocol of n object types, each extending the
// one before.
func extendsChain(n int) []byte {
	var b strings.Builder
	b.WriteString(validHead + "types:\n  T0: {fields: {f0: string}}\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "  T%d: {extends: T%d, fields: {f%d: string}}\n", i, i-1, i)
	}
	return []byte(b.String())
}

// indistinct returns a protocol with a union of n equal object types, all
// but the first of which can never be chosen.
func indistinct(n int) []byte {
	var b strings.Builder
	b.WriteString(validHead + "types:\n")
	var names []string
	for i := range n {
		fmt.Fprintf(&b, "  O%d: {fields: {a: string}}\n", i)
		names = append(names, fmt.Sprintf("O%d", i))
	}
	fmt.Fprintf(&b, "  U: %s\n", strings.Join(names, " | "))
	return []byte(b.String())
}

// aliasCycle returns a protocol whose n types are defined each as the
// next, the last as the first.
func aliasCycle(n int) []byte {
	var b strings.Builder
	b.WriteString(validHead + "types:\n")
	for i := range n {
		fmt.Fprintf(&b, "  T%d: T%d\n", i, (i+1)%n)
	}
	return []byte(b.String())
}
