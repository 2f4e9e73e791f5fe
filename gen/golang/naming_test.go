package golang

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/idl"
)

// header starts the test protocols below.
const header = `protocol:
  name: demo
  roles: {client: , server: }
  framing: ndjson
`

// TestClashes checks that IDLs whose Go names collide with the names the
// generator adds are refused, at the position of the name at fault.
func TestClashes(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // "line:col: message prefix"
	}{
		{"method constant", header + `types:
  MethodPing: {fields: {a: string}}
methods:
  ping: {from: client, kind: request}
`, []string{`6:3: type MethodPing and the name constant of method "ping" (at demo.yaml:8:3) would both be named MethodPing`}},
		{"field named like the extra members", header + `types:
  T:
    additional: any
    fields:
      extra: string
`, []string{`9:7: field "extra" of T has the Go name Extra, which holds the object's additional members`}},
		{"role helpers", header + `types:
  UnimplementedServer: string
  NewClientRemote: string
  Options: integer
methods:
  ping: {from: client, kind: request}
  tick: {from: server, kind: notification}
`, []string{
			`6:3: type UnimplementedServer and role server (its Unimplemented struct) (at demo.yaml:3:21)`,
			`7:3: type NewClientRemote and role client (its remote constructor) (at demo.yaml:3:11)`,
			`8:3: type Options and the generated function Options`,
		}},
		{"role and type", header + `types:
  Server: {fields: {}}
`, []string{`6:3: type Server and role server (its interface)`}},
		{"enum value", header + `types:
  State: [idle, busy]
  StateBusy: string
`, []string{`7:3: type StateBusy and value busy of enum State (at demo.yaml:6:17)`}},
		{"error helpers", header + `errors:
  Busy: {code: -32001, message: Busy}
types:
  ErrBusy: string
  NewBusyError: string
`, []string{
			`8:3: type ErrBusy and error Busy (its sentinel) (at demo.yaml:6:3)`,
			`9:3: type NewBusyError and error Busy (its constructor)`,
		}},
		{"union constructor", header + `types:
  A: {fields: {t: "'a'"}}
  B: {fields: {t: "'b'"}}
  U: {type: union, discriminator: t, variants: [A, B]}
  NewU: string
`, []string{`9:3: type NewU and the constructor of union U`}},
		{"variant named like Value", header + `types:
  Value: {fields: {a: string}}
  U: "Value | string"
`, []string{`7:7: variant 1 of union U would be the Go field Value, which is taken`}},
		{"field named like a method", header + `types:
  T:
    fields:
      x: {type: string, go_name: UnmarshalJSON}
`, []string{`8:7: field "x" of T has the Go name UnmarshalJSON`}},
		{"field named like a raw field's method", header + `types:
  T:
    fields:
      args?: {type: "map<string, any>", raw: true}
      setArgs: string
      decode_args: integer
`, []string{
			`9:7: field "setArgs" of T has the Go name SetArgs, the name of a method generated for its raw: true field`,
			`10:7: field "decode_args" of T has the Go name DecodeArgs, the name of a method generated for its raw: true field`,
		}},
		{"field name not a tag", header + `types:
  T:
    fields:
      "a\"b": {type: string, go_name: AB}
`, []string{`8:7: field name "a\"b" cannot be written in a Go struct tag`}},
		{"notify stub", header + `methods:
  status: {from: client, kind: [request, notification]}
  notify/status: {from: client, kind: request}
`, []string{`7:3: method "notify/status" has the Go name NotifyStatus, the name of the stub sending "status" as a notification`}},
		{"notification form named like a notify stub", header + `methods:
  status: {from: client, kind: [request, notification]}
  report: {from: client, kind: request, notification: {from: server, go_name: NotifyStatus}}
`, []string{`7:41: the notification form of "report" has the Go name NotifyStatus, the name of the stub sending "status" as a notification`}},
		{"remote interface", header + `types:
  ServerRemote: string
methods:
  status: {from: client, kind: [request, notification]}
`, []string{`6:3: type ServerRemote and role server (the interface of its remote)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := idl.Parse("demo.yaml", []byte(tt.src))
			if err != nil {
				t.Fatalf("the IDL does not load: %v", err)
			}
			_, err = Generate(p, Options{})
			var errs idl.Errors
			if !errors.As(err, &errs) {
				t.Fatalf("Generate: %v; want idl.Errors", err)
			}
			if len(errs) != len(tt.want) {
				t.Errorf("got %d errors, want %d:\n%v", len(errs), len(tt.want), err)
			}
			for i, want := range tt.want {
				if i < len(errs) && !strings.HasPrefix(errs[i].Error(), "demo.yaml:"+want) {
					t.Errorf("error %d:\n got %s\nwant demo.yaml:%s...", i, errs[i], want)
				}
			}
		})
	}
}

// TestPackageOption checks Options.Package and its validation.
func TestPackageOption(t *testing.T) {
	p, err := idl.Parse("demo.yaml", []byte(header))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(p, Options{Package: "other"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.Contains(string(f.Content), "\npackage other\n") {
			t.Errorf("%s is not in package other", f.Path)
		}
	}
	if _, err := Generate(p, Options{Package: "not-a-name"}); err == nil {
		t.Error("an invalid package name was accepted")
	}
}

func TestWrap(t *testing.T) {
	text := "A first line\nthat goes on.\n\n- an item that is long enough to need a second line of its own here\n- another\n\n    code()\nafter"
	got := strings.Join(wrap(text, 40), "|")
	want := "A first line that goes on.||  - an item that is long enough to need|    a second line of its own here|  - another||      code()|after"
	if got != want {
		t.Errorf("wrap:\n got %q\nwant %q", got, want)
	}
}

// TestWrapCountsRunes checks that line widths count characters, not bytes.
func TestWrapCountsRunes(t *testing.T) {
	got := strings.Join(wrap("ééé ééé ééé\n- ü ü ü ü", 7), "|")
	want := "ééé ééé|ééé|  - ü ü|    ü ü"
	if got != want {
		t.Errorf("wrap:\n got %q\nwant %q", got, want)
	}
}

func TestLead(t *testing.T) {
	tests := []struct {
		doc  string
		enum bool
		want string
	}{
		{"", false, "Item is an object."},
		{"A thing in the store.", false, "Item is a thing in the store."},
		{"The JSON form.", false, "Item is the JSON form."},
		{"Item holds things.", false, "Item holds things."},
		{"Holds the things.", false, "Item holds the things."},
		{"An HL7 message.", false, "Item is an HL7 message."},
		{"A JSON form.", false, "Item is a JSON form."},
		{"One message of a chat.", false, "Item is one message of a chat."},
		{"What a tool returned.", false, "Item says what a tool returned."},
		{"Whether it worked.", false, "Item says whether it worked."},
		{"Names a session.", false, "Item names a session."},
		{"Parts of a message.", false, "Item holds the parts of a message."},
		{"All state of the workspace.", false, "Item holds all state of the workspace."},
		{"Put in _meta to tie a message.", false, "Item is put in _meta to tie a message."},
		{"https://example.com/spec#item", false, "Item is described at https://example.com/spec#item"},
		{"How a file is touched.", true, "Item says how a file is touched."},
		{"Severities, least first.", true, "Item is an object.\n\nSeverities, least first."},
	}
	for _, tt := range tests {
		if got := lead("Item", "Item is an object.", tt.doc, tt.enum); got != tt.want {
			t.Errorf("lead(%q, %v) = %q, want %q", tt.doc, tt.enum, got, tt.want)
		}
	}
}

func TestLowerFirst(t *testing.T) {
	for in, want := range map[string]string{
		"Computes, and reports.": "computes, and reports.",
		"HL7 editor":             "HL7 editor",
		"JSON text":              "JSON text",
		"A thing":                "a thing",
		"the rest":               "the rest",
		"Ümlaut first":           "ümlaut first",
	} {
		if got := lowerFirst(in); got != want {
			t.Errorf("lowerFirst(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Counts words":                       "Counts words.",
		"Counts words.":                      "Counts words.",
		"  Why?  ":                           "Why?",
		"":                                   "",
		"https://example.com/spec#hover":     "https://example.com/spec#hover",
		"See http://example.com/spec":        "See http://example.com/spec",
		"The https:// scheme is required":    "The https:// scheme is required.",
		"Links to https://example.com/a too": "Links to https://example.com/a too.",
	} {
		if got := sentence(in); got != want {
			t.Errorf("sentence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Minute:                "1m",
		90 * time.Second:           "1m30s",
		2 * time.Hour:              "2h",
		1500 * time.Millisecond:    "1.5s",
		time.Hour + 30*time.Minute: "1h30m",
		100 * time.Millisecond:     "100ms",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestRoleFiles(t *testing.T) {
	got := roleFiles([2]idl.Role{{GoName: "Types"}, {GoName: "Host_test"}})
	if got != [2]string{"types_role.go", "hosttest.go"} {
		t.Errorf("role files %v", got)
	}
	if got := roleFiles([2]idl.Role{{GoName: "Peer"}, {GoName: "PEER"}}); got != [2]string{"peer.go", "peer_role.go"} {
		t.Errorf("role files %v", got)
	}
}
