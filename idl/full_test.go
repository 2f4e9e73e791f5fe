package idl

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// loadFull loads testdata/full.yaml, which uses every IDL feature.
func loadFull(t *testing.T) *Protocol {
	t.Helper()
	p, err := Load("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func mustType(t *testing.T, p *Protocol, name string) *TypeDef {
	t.Helper()
	def := p.Type(name)
	if def == nil {
		t.Fatalf("no type %s", name)
	}
	return def
}

func mustField(t *testing.T, def *TypeDef, name string) *Field {
	t.Helper()
	f := def.Type.Field(name)
	if f == nil {
		t.Fatalf("type %s has no field %s", def.Name, name)
	}
	return f
}

func TestFullProtocol(t *testing.T) {
	p := loadFull(t)
	eq(t, "Name", p.Name, "full")
	eq(t, "GoPackage", p.GoPackage, "full")
	eq(t, "Version", p.Version, "1.2.3")
	eq(t, "Doc", p.Doc, "Every IDL feature at once.")
	eq(t, "Lifecycle", p.Lifecycle, "The editor starts the agent, calls initialize, then anything.")
	eq(t, "Roles[0]", [3]string{p.Roles[0].Name, p.Roles[0].GoName, p.Roles[0].Doc}, [3]string{"editor", "Editor", "The program that starts the agent."})
	eq(t, "Roles[1]", [3]string{p.Roles[1].Name, p.Roles[1].GoName, p.Roles[1].Doc}, [3]string{"agent", "Agent", "The spawned process."})
	eq(t, "Framing", p.Framing, FramingContentLength)
	eq(t, "IDStyle", p.IDStyle, IDString)
	eq(t, "Cancellation", p.Cancellation, CancelLSP)
	eq(t, "Cancellation.Method", p.Cancellation.Method(), "$/cancelRequest")
	eq(t, "Timeout", p.Timeout, 30*time.Second)
	if !p.NoBatches {
		t.Error("NoBatches = false, want true from batches: false")
	}
	if p.Handshake == nil || p.Handshake.Name != "full.initialize" || p.Handshake.Kind != Request {
		t.Errorf("Handshake = %+v, want the request full.initialize", p.Handshake)
	}
	eq(t, "OnTimeout", [3]any{p.OnTimeout.Cancel, p.OnTimeout.Action, p.OnTimeout.Doc}, [3]any{true, ActionError, "Cancel and report."})
	eq(t, "Files", p.Files, []string{"testdata/full.yaml", "testdata/shared.yaml"})

	if len(p.Transports) != 4 {
		t.Fatalf("%d transports, want 4", len(p.Transports))
	}
	eq(t, "stdio", p.Transports[0].Kind, TransportStdio)
	sub := p.Transports[1]
	eq(t, "subprocess", [2]any{sub.Kind, sub.Command}, [2]any{TransportSubprocess, "full-agent"})
	eq(t, "subprocess args", sub.Args, []string{"--stdio", "-v"})
	tcp := p.Transports[2]
	eq(t, "tcp", [3]any{tcp.Kind, tcp.Host, tcp.Port}, [3]any{TransportTCP, "localhost", 7000})
	eq(t, "unix", [2]any{p.Transports[3].Kind, p.Transports[3].Path}, [2]any{TransportUnix, "/tmp/full.sock"})
	eq(t, "Pos", p.Pos, Pos{"testdata/full.yaml", lineOf(t, "testdata/full.yaml", "protocol:") + 1, 3})
}

func TestFullTypeOrder(t *testing.T) {
	p := loadFull(t)
	var names []string
	for _, def := range p.Types {
		names = append(names, def.Name)
	}
	eq(t, "type order", names, []string{
		"Timestamp", "Position", // included first
		"State", "Meta", "Severity", "Color", "Fruit", "Id", "MaybeName", "Names", "Scores", "Base",
		"Item", "ItemSettings", "ItemSettingsTheme", "Dimensions", "ItemHistoryItem", "ItemEither",
		"TextBlock", "Block", "BlockImage",
		"Priority", "TextContents", "BlobContents", "Contents",
		"Ratio", "Line", "Offset", "ActionKind", "Level", "Mark", "Amount", "Upload",
		"MarkupContent", "MarkedString", "MarkedCode", "HoverContents",
		"HoverOptions",
		"Location", "DefinitionLink", "Definition", "DefinitionResult", "SymbolInformation", "WorkspaceSymbol", "WorkspaceSymbols",
		"HoverRegistrationOptions", "HoverProvider",
		"TextDocumentFilter", "TextDocumentFilterLanguage", "TextDocumentFilterScheme", "TextDocumentFilterPattern",
		"ProgressBegin", "ProgressEnd", "ProgressValue", "TokenOrProgress",
		"TextField", "NumberField", "NumberFieldType", "FlagField", "FormField",
		"DocumentUri", "Result", "_Edits", "Range", "Span", "Move",
		"BusyData", // error data, in error order
		"InitializeParams", "InitializeParamsClientInfo", "InitializeResult",
		"FetchItemParams", "BlocksShowParams", "HoverShowParams", "MarksSetParams", "MarksSetResult", "CancelRequestParams",
		"StatusReportParams", "StatusReportResult", "JobStatusResult", "JobStatusNotificationParams", "ItemsListParams", "SelectParams",
	})
	eq(t, "inline", mustType(t, p, "ItemSettings").Inline, true)
	eq(t, "named", mustType(t, p, "Item").Inline, false)
}

func TestFullEnums(t *testing.T) {
	p := loadFull(t)
	state := mustType(t, p, "State").Type
	eq(t, "State kind", state.Kind, KindEnum)
	eq(t, "State base", state.EnumBase, KindString)
	var got [][2]any
	for _, v := range state.Values {
		got = append(got, [2]any{v.Value, v.GoName})
	}
	eq(t, "State values", got, [][2]any{{"idle", "Idle"}, {"processing", "Processing"}, {"waiting_permission", "WaitingPermission"}})
	eq(t, "State.String", state.String(), "'idle' | 'processing' | 'waiting_permission'")

	sev := mustType(t, p, "Severity")
	eq(t, "Severity doc", sev.Doc, "How bad a diagnostic is.")
	eq(t, "Severity base", sev.Type.EnumBase, KindInteger)
	eq(t, "Severity[0]", [4]any{sev.Type.Values[0].Value, sev.Type.Values[0].Name, sev.Type.Values[0].GoName, sev.Type.Values[0].Doc}, [4]any{int64(1), "Error", "Error", "A real problem."})

	color := mustType(t, p, "Color").Type
	eq(t, "Color[1]", [3]any{color.Values[1].Value, color.Values[1].GoName, color.Values[1].Doc}, [3]any{"dark-green", "Forest", "A darker green."})
	eq(t, "Color[2] deprecated", color.Values[2].Deprecated, "Use red.")
	eq(t, "Fruit", mustType(t, p, "Fruit").Type.String(), "'apple' | 'banana'")
}

func TestFullScalarsAndUnions(t *testing.T) {
	p := loadFull(t)
	id := mustType(t, p, "Id")
	eq(t, "Id GoName", id.GoName, "ID")
	eq(t, "Id", [3]any{id.Type.Kind, id.Type.Discriminator, id.Type.String()}, [3]any{KindUnion, "", "integer | string"})
	eq(t, "MaybeName", [2]any{mustType(t, p, "MaybeName").Type.Kind, mustType(t, p, "MaybeName").Type.Nullable}, [2]any{KindString, true})
	eq(t, "Names", mustType(t, p, "Names").Type.String(), "[]string")
	eq(t, "Scores", mustType(t, p, "Scores").Type.String(), "map<string, number>")
	ts := mustType(t, p, "Timestamp")
	eq(t, "Timestamp", [3]any{ts.Type.Format, ts.Doc, string(ts.Example.JSON)}, [3]any{FormatDateTime, "An RFC 3339 time.", `"2025-01-02T03:04:05Z"`})
	eq(t, "Timestamp pos", ts.Pos, Pos{"testdata/shared.yaml", lineOf(t, "testdata/shared.yaml", "  Timestamp:"), 3})

	block := mustType(t, p, "Block")
	eq(t, "Block", [3]any{block.Type.Kind, block.Type.Discriminator, block.Doc}, [3]any{KindUnion, "type", "A content block."})
	var tags [][2]string
	for _, v := range block.Type.Variants {
		tags = append(tags, [2]string{v.Tag, v.Type.Ref.Name})
	}
	eq(t, "Block variants", tags, [][2]string{{"text", "TextBlock"}, {"image", "BlockImage"}})
	img := mustType(t, p, "BlockImage")
	eq(t, "BlockImage.type const", string(mustField(t, img, "type").Type.Const.JSON), `"image"`)
	eq(t, "BlockImage.data format", mustField(t, img, "data").Type.Format, FormatBase64)
}

func TestFullObject(t *testing.T) {
	p := loadFull(t)
	item := mustType(t, p, "Item")
	eq(t, "Item doc", [2]string{item.Doc, item.Deprecated}, [2]string{"A thing in the store.", "Use Thing."})
	eq(t, "Item example", string(item.Example.JSON), `{"id":7,"name":"pen","count":2,"note":null,"alias":null,"kind":"item","schema":2}`)
	eq(t, "Item extends", item.Type.Extends[0].Name, "Base")

	id := mustField(t, item, "id")
	eq(t, "id inherited", [3]any{id.DeclaredIn.Name, id.Optional, id.Type.Ref.Name}, [3]any{"Base", false, "Id"})
	eq(t, "first fields", [3]string{item.Type.Fields[0].Name, item.Type.Fields[1].Name, item.Type.Fields[2].Name}, [3]string{"id", "createdAt", "name"})

	name := mustField(t, item, "name")
	eq(t, "name", [4]any{name.Doc, string(name.Example.JSON), name.Optional, name.DeclaredIn.Name}, [4]any{"Display name.", `"pen"`, false, "Item"})
	count := mustField(t, item, "count")
	eq(t, "count", [3]any{count.Type.Kind, count.Optional, string(count.Default.JSON)}, [3]any{KindInteger, true, "1"})
	eq(t, "price", [2]any{mustField(t, item, "price").Type.Kind, string(mustField(t, item, "price").Default.JSON)}, [2]any{KindNumber, "0.5"})
	active := mustField(t, item, "active")
	eq(t, "active", [3]any{active.Type.Kind, active.Optional, string(active.Default.JSON)}, [3]any{KindBoolean, true, "true"})
	eq(t, "tags", mustField(t, item, "tags").Type.String(), "[]string")
	eq(t, "attributes", mustField(t, item, "attributes").Type.String(), "map<string, any>")
	eq(t, "note", [3]any{mustField(t, item, "note").Type.Kind, mustField(t, item, "note").Type.Nullable, mustField(t, item, "note").Optional}, [3]any{KindString, true, false})
	eq(t, "alias nullable", mustField(t, item, "alias").Type.Nullable, true)
	eq(t, "url", mustField(t, item, "url").Type.Format, FormatURI)
	eq(t, "kind const", mustField(t, item, "kind").Type.String(), "'item'")
	eq(t, "schema const", [2]any{mustField(t, item, "schema").Type.Kind, string(mustField(t, item, "schema").Type.Const.JSON)}, [2]any{KindInteger, "2"})
	eq(t, "pos", mustField(t, item, "pos").Type.Ref, mustType(t, p, "Position"))
	eq(t, "user_id go_name", mustField(t, item, "user_id").GoName, "Owner")
	eq(t, "matrix", mustField(t, item, "matrix").Type.String(), "[][]number")
	eq(t, "grouped", mustField(t, item, "grouped").Type.String(), "map<string, []Position>")
	either := mustField(t, item, "either").Type
	eq(t, "either", [3]any{either.Ref.Name, either.Nullable, either.Ref.Type.String()}, [3]any{"ItemEither", true, "string | integer"})
	eq(t, "raw", mustField(t, item, "raw").Type.Kind, KindAny)

	settings := mustField(t, item, "settings")
	eq(t, "settings", [2]string{settings.Type.Ref.Name, settings.Type.Ref.Doc}, [2]string{"ItemSettings", "Nested inline object."})
	theme := mustField(t, settings.Type.Ref, "theme")
	eq(t, "theme", [2]string{theme.Type.Ref.Name, theme.Type.Ref.Type.String()}, [2]string{"ItemSettingsTheme", "'light' | 'dark'"})
	eq(t, "size", mustField(t, settings.Type.Ref, "size").Type.Ref.Name, "Dimensions")
	hist := mustField(t, item, "history").Type
	eq(t, "history", [2]any{hist.Kind, hist.Elem.Ref.Name}, [2]any{KindArray, "ItemHistoryItem"})
	eq(t, "history item state", mustField(t, hist.Elem.Ref, "state").Type.Ref.Name, "State")
	eq(t, "field pos", name.Pos, Pos{"testdata/full.yaml", lineOf(t, "testdata/full.yaml", "      name: {type: string, doc: Display name., example: pen}"), 7})
}

func TestFullErrors(t *testing.T) {
	p := loadFull(t)
	var got [][3]any
	for _, e := range p.Errors {
		got = append(got, [3]any{e.Name, e.Code, e.Standard})
	}
	eq(t, "errors", got, [][3]any{
		{"ParseError", int64(-32700), true},
		{"InvalidRequest", int64(-32600), true},
		{"MethodNotFound", int64(-32601), true},
		{"InvalidParams", int64(-32602), true},
		{"InternalError", int64(-32603), true},
		{"Busy", int64(-32003), false},
		{"NotReady", int64(-32001), false},
		{"Overloaded", int64(-32500), false},
		{"Conflict", int64(409), false},
	})
	eq(t, "InvalidParams doc", p.Error("InvalidParams").Doc, "A parameter is missing or of the wrong type.")
	eq(t, "Overloaded", p.Error("Overloaded").AllowReserved, true)
	eq(t, "Busy data", p.Error("Busy").Data.Ref.Name, "BusyData")
	eq(t, "Conflict data", p.Error("Conflict").Data.Ref.Name, "Item")
	eq(t, "ErrorByCode", p.ErrorByCode(-32001).Name, "NotReady")
	eq(t, "Busy message", [2]string{p.Error("Busy").Message, p.Error("Busy").GoName}, [2]string{"Busy", "Busy"})
}

func TestFullMethods(t *testing.T) {
	p := loadFull(t)
	var got [][4]any
	for _, m := range p.Methods {
		got = append(got, [4]any{m.Name, m.GoName, m.From, m.Kind})
	}
	eq(t, "methods", got, [][4]any{
		{"version", "Version", FromBoth, Request}, // from the included file, first
		{"full.initialize", "Initialize", "editor", Request},
		{"shutdown", "Shutdown", "editor", Request},
		{"items/get", "FetchItem", "agent", Request},
		{"blocks/show", "BlocksShow", FromBoth, Notification},
		{"hover/show", "HoverShow", "agent", Notification},
		{"ping", "Ping", FromBoth, Request},
		{"marks/set", "MarksSet", "editor", Request},
		{"$/cancelRequest", "CancelRequest", FromBoth, Notification},
		{"status/report", "StatusReport", "agent", Request},
		{"job/status", "JobStatus", "editor", Request},
		{"items/list", "ItemsList", "editor", Request},
		{"sum", "Sum", "editor", Request},
		{"upload", "Upload", "editor", Request},
		{"select", "Select", "editor", Request},
		{"log/raw", "LogRaw", "agent", Notification},
	})
	eq(t, "ignored notifications", p.IgnoreUnknownNotifications, []string{"$/"})
	eq(t, "version pos", p.Method("version").Pos.File, "testdata/shared.yaml")
	type form struct {
		also, optional, null, nullable bool
		params                         string
	}
	formOf := func(name string) form {
		m := p.Method(name)
		f := form{also: m.AlsoNotification, optional: m.ParamsOptional, null: m.NullResult}
		if m.Params != nil {
			f.params, f.nullable = m.Params.String(), m.Params.Nullable || m.Params.Ref != nil && m.Params.Ref.Type.Nullable
		}
		return f
	}
	eq(t, "shutdown form", formOf("shutdown"), form{null: true})
	eq(t, "status/report form", formOf("status/report"), form{also: true, params: "StatusReportParams"})
	eq(t, "items/list form", formOf("items/list"), form{optional: true, params: "ItemsListParams"})
	eq(t, "sum form", formOf("sum"), form{params: "[]integer"})
	eq(t, "upload form", formOf("upload"), form{params: "Upload"})
	eq(t, "select form", formOf("select"), form{params: formOf("select").params, nullable: true})
	eq(t, "log/raw form", formOf("log/raw"), form{optional: true, params: "any"})
	job := p.Method("job/status")
	jf := job.NotificationForm
	eq(t, "job/status notification form", [6]any{jf.Name, jf.GoName, jf.From, jf.Kind, jf.Params.String(), jf.Since}, [6]any{"job/status", "JobStatusNotification", "agent", Notification, "JobStatusNotificationParams", "1.2.0"})
	eq(t, "job/status forms linked", [3]bool{jf.RequestForm == job, job.RequestForm == nil, p.Method("sum").NotificationForm == nil}, [3]bool{true, true, true})
	eq(t, "job/status notification example", string(jf.Examples[0].Params.JSON), `{"state":"processing","done":false}`)
	eq(t, "status/report examples", [2]bool{p.Method("status/report").Examples[0].Result != nil, p.Method("status/report").Examples[1].Result == nil}, [2]bool{true, true})
	init := p.Method("full.initialize")
	eq(t, "init doc", init.Doc, "Starts the session.")
	eq(t, "init timeout", init.Timeout, 10*time.Second)
	eq(t, "init on_timeout", [3]any{init.OnTimeout.Cancel, init.OnTimeout.Action, init.OnTimeout.Doc}, [3]any{false, ActionClose, "The agent is marked failed."})
	eq(t, "init params", init.Params.Ref.Name, "InitializeParams")
	eq(t, "init result", init.Result.Ref.Name, "InitializeResult")
	eq(t, "init errors", []string{init.Errors[0].Name, init.Errors[1].Name}, []string{"NotReady", "Busy"})
	eq(t, "init sent by editor", [2]bool{init.SentBy("editor"), init.SentBy("agent")}, [2]bool{true, false})
	if len(init.Examples) != 3 {
		t.Fatalf("%d examples, want 3", len(init.Examples))
	}
	x := init.Examples[0]
	eq(t, "example 0", [3]string{x.Doc, string(x.Params.JSON), string(x.Result.JSON)}, [3]string{"A first start.", `{"version":"1.0","clientInfo":{"name":"editor"}}`, `{"state":"idle","capabilities":{"blocks":true}}`})
	eq(t, "example 1", [2]any{init.Examples[1].Error.Error.Name, init.Examples[1].Error.Message}, [2]any{"NotReady", "Not ready"})
	x2 := init.Examples[2].Error
	eq(t, "example 2", [3]any{x2.Error.Name, x2.Message, string(x2.Data.JSON)}, [3]any{"Busy", "Try later", `{"retryAfterMs":500}`})

	eq(t, "shutdown on_timeout", p.Method("shutdown").OnTimeout.Action, ActionKill)
	eq(t, "shutdown result", [2]bool{p.Method("shutdown").Result == nil, p.Method("shutdown").NullResult}, [2]bool{true, true})
	get := p.Method("items/get")
	eq(t, "get", [3]any{get.Timeout, get.Deprecated, get.Result.Ref.Name}, [3]any{time.Duration(0), "Use items/find.", "Item"})
	eq(t, "get params", get.Params.Ref.Name, "FetchItemParams")
	eq(t, "idempotent", [3]bool{get.Idempotent, p.Method("full.initialize").Idempotent, p.Method("shutdown").Idempotent}, [3]bool{true, false, false})
	ping := p.Method("ping")
	eq(t, "ping", [4]any{ping.Timeout, ping.OnTimeout.Cancel, ping.Params == nil, ping.Result == nil}, [4]any{30 * time.Second, true, true, true})
	show := p.Method("blocks/show")
	eq(t, "show", [3]any{show.Timeout, show.Result == nil, len(show.Examples)}, [3]any{time.Duration(0), true, 1})
	eq(t, "show severity", mustField(t, show.Params.Ref, "severity").Type.Ref.Name, "Severity")
	eq(t, "method pos", init.Pos, Pos{"testdata/full.yaml", lineOf(t, "testdata/full.yaml", "  full.initialize:"), 3})
}

// lineOf returns the 1-based number of the first line of file that is
// exactly line.
func lineOf(t *testing.T, file, line string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if l == line {
			return i + 1
		}
	}
	t.Fatalf("%s has no line %q", file, line)
	return 0
}
