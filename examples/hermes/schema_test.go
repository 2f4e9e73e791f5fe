package hermes_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/hermes"
)

// fieldDefinitions returns what the host logged of each schema entry the
// extension's overrides changed: the attributes after the message, in
// order.
func fieldDefinitions(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if _, attrs, ok := strings.Cut(line, ` msg="field definition" `); ok {
			out = append(out, attrs)
		}
	}
	return out
}

// The three states of an override cross the wire from the example
// extension to the example host: an absent property inherits the base
// definition's, null removes it and a value replaces it.
func TestHostMergesSchemaOverrides(t *testing.T) {
	_, stderr := runHost(t, nil, "-idle", "200ms", "--", bin.extension)
	want := []string{
		// name and maxlength replaced, placeholder added.
		`path=PID.5.1 name="Family name" placeholder=SURNAME maxlength=50`,
		// name inherited, datatype replaced.
		`path=PID.7 name="Date of birth" placeholder=YYYYMMDD datatype=date`,
		// name inherited, note removed by null, values replaced.
		`path=PID.8 name="Administrative sex" values="map[F:Female M:Male O:Other U:Unknown]"`,
	}
	if got := fieldDefinitions(stderr); !slices.Equal(got, want) {
		t.Errorf("field definitions:\n%s\nwant\n%s\nhost log:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), stderr)
	}
}

// A data type Hermes does not know does not fail initialize: the host
// logs it and keeps the base definition's, and merges the rest of the
// override, as Hermes does (hamaluik/hermes 13b447d: FieldOverride's
// datatype is any string in src-tauri/src/extensions/types.rs, and
// merge_datatype in src-tauri/src/schema/merge.rs warns and keeps the
// base value).
func TestHostKeepsUnknownDatatype(t *testing.T) {
	_, stderr := runHost(t, []string{childEnv + "=unknown-datatype"}, "-idle", "200ms", "--", os.Args[0])
	for _, line := range []string{
		`level=WARN msg="unknown data type: keeping the base definition's" path=PID.7 datatype=time`,
		`msg="extension ready" name=misbehaving`,
		`msg="extension stopped"`,
	} {
		if !strings.Contains(stderr, line) {
			t.Errorf("host log lacks %s", line)
		}
	}
	want := []string{`path=PID.7 name="Date of birth" placeholder=HHMM datatype=datetime`}
	if got := fieldDefinitions(stderr); !slices.Equal(got, want) {
		t.Errorf("field definitions %q, want %q", got, want)
	}
	if t.Failed() {
		t.Logf("host log:\n%s", stderr)
	}
}

// Numbers take upstream's types: u32 field numbers, lengths and window
// sizes, usize counts and indexes. Values outside them do not decode.
func TestUpstreamNumberRanges(t *testing.T) {
	for _, c := range []struct {
		json string
		into any
		want string
	}{
		{`{"name":"a","version":"1","capabilities":{},"schema":{"segments":{"PID":{"fields":[{"field":-1}]}}}}`, &hermes.InitializeResult{}, "schema.segments.PID.fields[0].field: -1 is below the minimum 0"},
		{`{"name":"a","version":"1","capabilities":{},"schema":{"segments":{"PID":{"fields":[{"field":3,"maxlength":4294967296}]}}}}`, &hermes.InitializeResult{}, "schema.segments.PID.fields[0].maxlength: 4294967296 is above the maximum 4294967295"},
		{`{"success":true,"patchesApplied":-2}`, &hermes.EditorPatchMessageResult{}, "patchesApplied: -2 is below the minimum 0"},
		{`{"url":"http://x","title":"t","width":5000000000}`, &hermes.UIOpenWindowParams{}, "width: 5000000000 is above the maximum 4294967295"},
	} {
		if err := json.Unmarshal([]byte(c.json), c.into); err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s", c.json, err, c.want)
		}
	}
}
