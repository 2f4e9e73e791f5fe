package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// Scalars Hermes writes plain or quoted in YAML (serde-saphyr 0.0.10,
// src/ser_quoting.rs and src/ser.rs: numbers, YAML 1.1 booleans, null and
// indicator characters are double-quoted; ".", "#" and "-" single-quoted).
func TestYAMLScalars(t *testing.T) {
	for in, want := range map[string]string{
		"ADT": "ADT", "2.5.1": "2.5.1", `^~\&`: `^~\&`, "1 MAIN ST": "1 MAIN ST", "8867-4": "8867-4",
		"a:b": "a:b", "F": "F", "|": `"|"`, "72": `"72"`, "-5": `"-5"`, "1_000": `"1_000"`,
		"0x1F": `"0x1F"`, "0o17": `"0o17"`, "0089": `"0089"`, "1e5": `"1e5"`, ".5": `".5"`,
		"inf": `"inf"`, ".NaN": `".NaN"`, "N": `"N"`, "yes": `"yes"`, "Off": `"Off"`, "~": `"~"`,
		"NULL": `"NULL"`, "a: b": `"a: b"`, "a,b": `"a,b"`, "x#y": `"x#y"`, "*x": `"*x"`,
		"-": `'-'`, ".": `'.'`, "#": `'#'`, " x": `" x"`, "tab\there": `"tab\there"`,
		`say "hi"`: `say "hi"`, "\"q\\": `"\"q\\"`, "0x1p3": "0x1p3",
	} {
		if got := yamlScalar(in); got != want {
			t.Errorf("yamlScalar(%q) = %s, want %s", in, got, want)
		}
	}
}

// The string styles Hermes picks in TOML (toml_write 0.1.2,
// TomlStringBuilder::as_default).
func TestTOMLStrings(t *testing.T) {
	for in, want := range map[string]string{
		"ADT":        `"ADT"`,
		`^~\&`:       `'^~\&'`,
		`say "hi"`:   `'say "hi"'`,
		`it's "x"`:   `"""it's "x""""`,
		`it's \`:     `'''it's \'''`,
		"tab\tthere": "\"tab\\tthere\"",
		"a\x01b":     `"a\u0001b"`,
		`'"\`:        `''''"\'''`,
	} {
		if got := tomlString(in); got != want {
			t.Errorf("tomlString(%q) = %s, want %s", in, got, want)
		}
	}
}

// Each structured format reads back the message it wrote.
func TestStructuredRoundTrip(t *testing.T) {
	for _, text := range []string{
		sample,
		"MSH|^~\\&|A\rOBX|1|ST|A^B&C&&D||v1~v2~x^y~'\"a\\||||||N\rZZZ",
	} {
		m, err := parseHL7(text)
		if err != nil {
			t.Fatal(err)
		}
		toml, err := m.toTOML()
		if err != nil {
			t.Fatal(err)
		}
		for format, encoded := range map[hermes.MessageFormat]string{"json": m.toJSON(), "yaml": m.toYAML(), "toml": toml} {
			back, err := parseStructured(format, encoded)
			if err != nil {
				t.Errorf("%s: %v\n%s", format, err, encoded)
			} else if back.hl7() != m.hl7() {
				t.Errorf("%s: read back %q, want %q", format, back.hl7(), m.hl7())
			}
		}
	}
}

// An empty repetition is null in the tree, which TOML cannot hold: the
// request fails with InternalError, as in Hermes, and the other formats
// still serve the message.
func TestTOMLWithoutNull(t *testing.T) {
	var buf bytes.Buffer
	e := readyEditor(&buf)
	var err error
	if e.msg, err = parseHL7("MSH|^~\\&|A\rPID|1||a~~b"); err != nil {
		t.Fatal(err)
	}
	_, err = e.EditorGetMessage(context.Background(), &hermes.EditorGetMessageParams{Format: hermes.MessageFormatTOML})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError {
		t.Errorf("toml: %v, want -32603", err)
	}
	r, err := e.EditorGetMessage(context.Background(), &hermes.EditorGetMessageParams{Format: hermes.MessageFormatYAML})
	if err != nil || !strings.Contains(r.Message, "      3:\n        - a\n        - null\n        - b\n") {
		t.Errorf("yaml: %v %+v", err, r)
	}
}

// Text that does not parse in its format is InvalidMessage.
func TestSetMessageRefusesMalformedText(t *testing.T) {
	var buf bytes.Buffer
	e := readyEditor(&buf)
	for format, text := range map[hermes.MessageFormat]string{
		"json": `{"segments":[{"segment":"MSH","fields":{"99999999":"x"}}]}`,
		"yaml": "a: &x [1]\nb: *x\n",
		"toml": "[[segments]]\nsegment = \"MSH\n",
	} {
		_, err := e.EditorSetMessage(context.Background(), &hermes.EditorSetMessageParams{Message: text, Format: format})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != hermes.CodeInvalidMessage {
			t.Errorf("%s: %v, want InvalidMessage", format, err)
		}
	}
}

// FuzzReadTOML: any text either fails or reads into a tree, without
// panicking, and whatever message it gives writes back as TOML the reader
// takes again.
func FuzzReadTOML(f *testing.F) {
	m, _ := parseHL7(sample)
	text, _ := m.toTOML()
	f.Add(text)
	f.Add("a = [\n  'x', \"\"\"y\n\"\"\", { b.c = 1 },\n]\n[[t]]\n[t.u] # c\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := parseStructured(hermes.MessageFormatTOML, text)
		if err != nil {
			return
		}
		again, err := m.toTOML()
		if err != nil {
			return // an empty repetition
		}
		if _, err := readTOML(again); err != nil {
			t.Fatalf("reading back %q: %v", again, err)
		}
	})
}
