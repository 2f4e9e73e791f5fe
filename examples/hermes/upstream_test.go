package hermes_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The tests below run the example host against replays of Hermes's own
// test extensions (testdata/upstream/*.replay, see replay_test.go).

// upstreamMessage is the message the replays read and edit: it has field
// repetitions, components, subcomponents and values YAML must quote.
const upstreamMessage = "MSH|^~\\&|LAB|GENHOSP|||20240301120000||ORU^R01|MSG7|P|2.5.1\r" +
	"PID|1||12345678^^^GENHOSP&1.2.3&ISO^MR~87654321^^^CITY^PI||DOE^JANE||19800101|F|||1 MAIN ST^^TOWN^ON^N0N 0N0\r" +
	"OBX|1|NM|8867-4^Heart rate^LN||72|/min|60-100|N|||F"

// replayHost runs the example host on upstreamMessage against the replay
// script name, with args before "--", and returns its log.
func replayHost(t *testing.T, name string, args ...string) string {
	t.Helper()
	in := testdata(t, t.TempDir(), "in.hl7", upstreamMessage)
	args = append(append([]string{"-in", in}, args...), "--", os.Args[0])
	_, stderr := runHost(t, []string{childEnv + "=" + replayMode(filepath.Join("testdata", "upstream", name))}, args...)
	return stderr
}

// editor-ops.py asks for the message in each of the four formats; the
// host answers each as Hermes does. testdata/upstream/message.* hold the
// text Hermes (hamaluik/hermes 13b447d, src-tauri/src/commands/editor/
// export.rs) makes of upstreamMessage: its tree written by serde_json's
// to_string_pretty, serde-saphyr 0.0.10's to_string and toml 0.8.23's
// to_string_pretty, the versions its Cargo.lock pins. The initialize
// request carries the API version Hermes sends, "1.0"
// (src-tauri/src/extensions/host.rs, API_VERSION).
func TestRealExtensionGetsEveryFormat(t *testing.T) {
	// A command is over once the extension has been quiet for -idle; the
	// replay asks at once, so 1s is ample and keeps four commands well
	// within the host's time.
	log := replayHost(t, "editor-ops.replay", "-idle", "1s", "-run", "editor-test/get-hl7,editor-test/get-json,editor-test/get-yaml,editor-test/get-toml")
	var init struct{ Params hermes.InitializeParams }
	if err := json.Unmarshal([]byte(findReceived(t, log, `"method":"initialize"`)), &init); err != nil {
		t.Fatal(err)
	}
	if init.Params.APIVersion != "1.0" {
		t.Errorf("initialize apiVersion = %q, want 1.0", init.Params.APIVersion)
	}
	for id, format := range []string{"hl7", "json", "yaml", "toml"} {
		var resp struct {
			ID     int64                          `json:"id"`
			Result *hermes.EditorGetMessageResult `json:"result"`
			Error  *jsonrpc.Error                 `json:"error"`
		}
		body := findReceived(t, log, `"id":`+string(rune('1'+id))+`,"result"`)
		if err := json.Unmarshal([]byte(body), &resp); err != nil || resp.Result == nil {
			t.Errorf("%s: answer %s (%v)", format, body, err)
			continue
		}
		want := upstreamMessage
		if format != "hl7" {
			b, err := os.ReadFile(filepath.Join("testdata", "upstream", "message."+format))
			if err != nil {
				t.Fatal(err)
			}
			want = string(b)
		}
		if resp.Result.Message != want {
			t.Errorf("%s: message\n%s\nwant\n%s", format, resp.Result.Message, want)
		}
	}
	if !strings.Contains(log, `msg="extension stopped"`) {
		t.Errorf("the session did not end cleanly; host log:\n%s", log)
	}
}

// events.py subscribes to message/changed with the content in hl7; the
// peer then edits the message as editor-ops.py does (PID.5.1 := TEST), and
// receives the edited message in message/changed, as Hermes sends an edit
// to every subscriber, the editing extension included.
func TestRealExtensionSeesItsEdit(t *testing.T) {
	log := replayHost(t, "events-edit.replay", "-idle", "1s", "-run", "events-test/status")
	var changed struct{ Params hermes.MessageChangedParams }
	if err := json.Unmarshal([]byte(findReceived(t, log, `"method":"message/changed"`)), &changed); err != nil {
		t.Fatal(err)
	}
	p := changed.Params
	want := strings.Replace(upstreamMessage, "DOE^JANE", "TEST^JANE", 1)
	if p.Message == "" || p.Message != want || p.Format == "" || p.Format != hermes.MessageFormatHL7 || !p.HasFile || p.FilePath == "" {
		t.Errorf("message/changed params = %+v, want the edited message in hl7 and its file", p)
	}
	if got := findReceived(t, log, `"id":5,`); !strings.Contains(got, `"result":{"success":true,"patchesApplied":1}`) {
		t.Errorf("answer to the patch: %s", got)
	}
	findReceived(t, log, `"method":"message/opened"`)
	if !strings.Contains(log, `msg="extension stopped"`) {
		t.Errorf("the session did not end cleanly; host log:\n%s", log)
	}
}

// An initialize result without capabilities registers an extension with
// none: Hermes defaults them to empty (src-tauri/src/extensions/types.rs,
// InitializeResult).
func TestInitializeWithoutCapabilities(t *testing.T) {
	var r hermes.InitializeResult
	if err := json.Unmarshal([]byte(`{"name":"x","version":"1"}`), &r); err != nil || r.Capabilities != nil {
		t.Fatalf("decoding: %v, capabilities %+v", err, r.Capabilities)
	}
	log := replayHost(t, "no-capabilities.replay", "-idle", "1s")
	for _, line := range []string{`msg="extension ready" name=x version=1 commands=[] buttons=0`, `msg="extension stopped"`} {
		if !strings.Contains(log, line) {
			t.Errorf("host log lacks %s", line)
		}
	}
	if t.Failed() {
		t.Logf("host log:\n%s", log)
	}
}

// schema-override.py's overrides, some naming components, are merged over
// the host's base schema.
func TestRealSchemaOverrides(t *testing.T) {
	log := replayHost(t, "schema-override.replay", "-idle", "1s")
	got := strings.Join(fieldDefinitions(log), "\n")
	for _, want := range []string{
		// A component the base schema lacks gets an entry of its own.
		`path=OBX.3.1 note="Observation identifier code (test override)" placeholder=LOINC-12345`,
		// The base name is inherited, the note and values replaced.
		`path=PID.8 name="Administrative sex" note="Administrative sex (test override with custom values)" values="map[F:Female (test) M:Male (test) N:Not stated (test) O:Other (test) U:Unknown (test)]"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("field definitions lack %s", want)
		}
	}
	if t.Failed() || !strings.Contains(log, `msg="extension stopped"`) {
		t.Fatalf("host log:\n%s", log)
	}
}

// window/closed always carries its reason in Hermes
// (src-tauri/src/extensions/types.rs, WindowClosedParams): a message
// without one does not decode.
func TestWindowClosedReasonRequired(t *testing.T) {
	var p hermes.WindowClosedParams
	if err := json.Unmarshal([]byte(`{"windowId":"ext-window-1","reason":"user"}`), &p); err != nil || p.Reason != hermes.WindowCloseReasonUser {
		t.Errorf("decoding what Hermes sends: %v, %+v", err, p)
	}
	if err := json.Unmarshal([]byte(`{"windowId":"ext-window-1"}`), &p); err == nil || err.Error() != "reason: required field is missing" {
		t.Errorf("decoding without reason: %v, want reason: required field is missing", err)
	}
}
