package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

var update = flag.Bool("update", false, "rewrite RELIABILITY.md from the message case table")

// msgCase is one row of the message reliability table. A case with run
// is proved by TestMessageReliability/<name>; a case without it names the
// existing test (and, for the specification examples, the entry of
// specCases) that proves it.
type msgCase struct {
	name    string
	input   string // what the peer sends, or the scenario
	outcome string // the defined outcome, as documented
	run     func(t *testing.T)
	test    string // the existing test proving a case without run
	sub     string // the specCases entry, for TestSpecificationExamples
}

// specRef is a case proved by an entry of specCases; every entry is sent
// over both framings and followed by a request that must be answered.
func specRef(sub, input, outcome string) msgCase {
	return msgCase{name: sub, input: input, outcome: outcome, test: "TestSpecificationExamples", sub: sub}
}

// spec7 is specRef for the examples of section 7 of the specification.
func spec7(sub, input, outcome string) msgCase {
	c := specRef(sub, input, outcome)
	c.name = "spec §7: " + sub
	return c
}

// msgCases lists every message case; RELIABILITY.md is rendered from it.
var msgCases = []msgCase{
	// The examples of section 7 of the JSON-RPC 2.0 specification.
	spec7("positional params", `{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}`, `result 19, id 1`),
	spec7("positional params reversed", `{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}`, `result -19, id 2`),
	spec7("named params", `{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}`, `result 19, id 3`),
	spec7("named params reordered", `{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}`, `result 19, id 4`),
	spec7("notification", `{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}`, `handled; no reply`),
	spec7("notification of unknown method", `{"jsonrpc": "2.0", "method": "foobar"}`, `no reply`),
	spec7("unknown method", `{"jsonrpc": "2.0", "method": "foobar", "id": "1"}`, `-32601 Method not found, data {"method":"foobar"}, id "1"`),
	spec7("invalid JSON", `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`, `-32700 Parse error, id null; connection continues`),
	spec7("invalid request object", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`, `-32600 Invalid Request, data "\"method\" must be a string", id null`),
	spec7("batch with invalid JSON", `[{"jsonrpc": "2.0", "method": "sum", ...},{"jsonrpc": "2.0", "method"]`, `one -32700 Parse error (not an array), id null`),
	spec7("empty batch", `[]`, `one -32600 Invalid Request (not an array), id null`),
	spec7("batch of one invalid element", `[1]`, `an array of one -32600 Invalid Request, data "a message must be a JSON object", id null`),
	spec7("batch of invalid elements", `[1,2,3]`, `an array of three -32600 Invalid Request, id null`),
	spec7("mixed batch", `a batch of 2 requests, a notification, {"foo": "boo"}, an unknown method and get_data`, `an array of 5 responses: 2 results, -32600 for {"foo": "boo"}, -32601, the get_data result; none for the notification`),
	spec7("batch of notifications", `[{"jsonrpc": "2.0", "method": "notify_sum", ...},{... "notify_hello" ...}]`, `handled; no reply`),

	// Ids.
	specRef("object id", `"id":{"a":1}`, `-32600 Invalid Request, data "id must be a string, a number or null", id null`),
	specRef("boolean id", `"id":true`, `-32600 Invalid Request, same data, id null`),
	{name: "array id", input: `{"jsonrpc":"2.0","method":"sum","params":[3],"id":[1]}`,
		outcome: `-32600 Invalid Request, data "id must be a string, a number or null", id null; connection continues`,
		run: exchangeCase(Options{}, `{"jsonrpc":"2.0","method":"sum","params":[3],"id":[1]}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"id must be a string, a number or null"}}`)},
	{name: "fractional id", input: `"id":0.25`, outcome: `handled; id echoed byte for byte (0.25)`, run: func(t *testing.T) {
		_, p := newRaw(t, Options{Handler: relHandler})
		p.send(`{"jsonrpc":"2.0","method":"sum","params":[4],"id":0.25}`)
		if got, want := p.recv(), `{"jsonrpc":"2.0","id":0.25,"result":4}`; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}},
	{name: "id above 2^53, exponent, -0", input: `"id":9007199254740993, 1.5e3, -0, a 30-digit integer`, outcome: `handled; id echoed byte for byte`, test: "TestIDAbove2To53IsEchoedExactly"},
	specRef("null id", `"id":null`, `handled as a request; result with id null`),
	{name: "64 KiB string id", input: `"id":"xxxx…" (65,536 characters)`, outcome: `handled; id echoed byte for byte`, run: func(t *testing.T) {
		_, p := newRaw(t, Options{Handler: relHandler})
		id := `"` + strings.Repeat("x", 64<<10) + `"`
		p.send(`{"jsonrpc":"2.0","method":"sum","params":[1],"id":` + id + `}`)
		if got, want := p.recv(), `{"jsonrpc":"2.0","id":`+id+`,"result":1}`; got != want {
			t.Errorf("reply of %d bytes is not the echo of the id", len(got))
		}
	}},

	// Envelope.
	specRef("missing jsonrpc", `{"method":"sum","params":[3],"id":8}`, `-32600 Invalid Request, data "\"jsonrpc\" must be exactly \"2.0\"", id 8`),
	specRef("jsonrpc 1.0", `{"jsonrpc":"1.0","method":"sum","params":[3],"id":8}`, `-32600 Invalid Request, same data, id 8`),
	{name: "method not a string, with an id", input: `{"jsonrpc":"2.0","id":3,"method":{"name":"sum"}}`,
		outcome: `-32600 Invalid Request, data "\"method\" must be a string", id 3; connection continues`,
		run: exchangeCase(Options{}, `{"jsonrpc":"2.0","id":3,"method":{"name":"sum"}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request","data":"\"method\" must be a string"}}`)},
	specRef("scalar params", `{"jsonrpc":"2.0","method":"sum","params":3,"id":9}`, `-32600 Invalid Request, data "\"params\" must be an object or an array", id 9`),
	{name: "null params, positional method", input: `{"jsonrpc":"2.0","id":4,"method":"sum","params":null}`, outcome: `handled as no params: DecodeParams into a slice sees []; result 0, id 4`,
		run: exchangeCase(Options{}, `{"jsonrpc":"2.0","id":4,"method":"sum","params":null}`, `{"jsonrpc":"2.0","id":4,"result":0}`)},
	{name: "absent params, positional method", input: `{"jsonrpc":"2.0","id":4,"method":"sum"}`, outcome: `handled as []; result 0, id 4`,
		run: exchangeCase(Options{}, `{"jsonrpc":"2.0","id":4,"method":"sum"}`, `{"jsonrpc":"2.0","id":4,"result":0}`)},
	{name: "absent params, method taking an object", input: `{"jsonrpc":"2.0","id":4,"method":"pick"}` + ` — (kind is required)`, outcome: `decoded as {}: -32602 Invalid params, data {"field":"kind","reason":"required field is missing"}`,
		run: pickCase(``, "kind", "required field is missing")},
	{name: "unknown envelope members", input: `{"jsonrpc":"2.0","id":5,"method":"sum","params":[2],"extra":{"x":1}}`, outcome: `ignored (also in strict mode); result 2, id 5`,
		run: exchangeCase(Options{DisallowUnknownFields: true}, `{"jsonrpc":"2.0","id":5,"method":"sum","params":[2],"extra":{"x":1}}`, `{"jsonrpc":"2.0","id":5,"result":2}`)},
	{name: "duplicate members", input: `{"jsonrpc":"2.0","id":1,"id":2,"method":"nope","method":"sum","params":[3]}`,
		outcome: `the last member wins, as in encoding/json: result 3, id 2`,
		run:     exchangeCase(Options{}, `{"jsonrpc":"2.0","id":1,"id":2,"method":"nope","method":"sum","params":[3]}`, `{"jsonrpc":"2.0","id":2,"result":3}`)},
	specRef("request with result", `{"jsonrpc":"2.0","method":"sum","result":1,"id":10}`, `-32600 Invalid Request, data "a request cannot carry result or error", id 10`),

	// Responses.
	specRef("no method, no result", `a response with neither result nor error: {"jsonrpc":"2.0","id":11}`, `-32600 Invalid Request, data "a message needs \"method\" (request) or \"result\"/\"error\" (response)", id 11`),
	{name: "response with both result and error", input: `{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}}` + ` — answering our pending call 1`,
		outcome: `not answered (a reply would carry an id of our own requests, which the peer would take for the answer to its request 1); logged; call 1 fails at once with ErrInvalidResponse "a response cannot carry both result and error"; connection continues`,
		run:     invalidResponseCase(`{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}}`, "a response cannot carry both result and error")},
	{name: "response with a malformed error object", input: `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}` + ` — answering our pending call 1`,
		outcome: `not answered; logged; call 1 fails at once with ErrInvalidResponse naming the integer "code" and string "message"; connection continues`,
		run:     invalidResponseCase(`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`, `"error" must be an object with an integer "code" and a string "message"`)},
	{name: "response without jsonrpc", input: `{"id":1,"result":"ok"}` + ` — answering our pending call 1`,
		outcome: `not answered; logged; call 1 fails at once with ErrInvalidResponse "\"jsonrpc\" must be exactly \"2.0\""; connection continues`,
		run:     invalidResponseCase(`{"id":1,"result":"ok"}`, `"jsonrpc" must be exactly "2.0"`)},
	{name: "response without id", input: `{"jsonrpc":"2.0","result":1}`,
		outcome: `not answered; logged "invalid response; not answered"; no call is affected; connection continues`,
		run:     invalidResponseCase(`{"jsonrpc":"2.0","result":1}`, "")},
	{name: "response with an object id", input: `{"jsonrpc":"2.0","id":{"n":1},"error":{"code":1,"message":"x"}}`,
		outcome: `not answered; logged "invalid response; not answered"; no call is affected; connection continues`,
		run:     invalidResponseCase(`{"jsonrpc":"2.0","id":{"n":1},"error":{"code":1,"message":"x"}}`, "")},
	{name: "response naming our numeric id as a string", input: `{"jsonrpc":"2.0","id":"1","result":"ok"}` + ` — our pending call has id 1`,
		outcome: `not matched (ids compare by their JSON text, "1" is not 1); ignored and logged; call 1 still takes {"id":1} afterwards`,
		run:     runStringifiedID},
	{name: "response to an unknown id", input: `{"jsonrpc":"2.0","id":99,"result":1}`, outcome: `ignored; no reply; connection continues`, test: "TestUnknownResponseIgnored"},
	{name: "response to an id already answered", input: `a second {"jsonrpc":"2.0","id":1,"result":"second"} after call 1 was answered`,
		outcome: `ignored, no reply; logged "response to an unknown or already answered id"; the call keeps the first result`,
		run:     runAlreadyAnswered},
	{name: "error response with id null", input: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		outcome: `no reply; handed to Options.OnPeerError and logged "the peer reported an error"; connection continues`,
		run:     runNullIDError},
	{name: "error response with id null, then the peer exits", input: `{"jsonrpc":"2.0","error":{"code":-32011,...,"data":{"kind":"authentication_required","stage":"startup",...}},"id":null} then end of input, as the Autohand CLI starting signed out`,
		outcome: `a pending call fails wrapping ErrClosed, ErrPeerClosed and a *PeerError holding the -32011 error; Err wraps it too`,
		test:    "TestPeerErrorReachesPendingCall"},
	{name: "batch to a protocol without batches", input: `[{"jsonrpc":"2.0","id":1,"method":"sum","params":[1]},...] with Options.RejectBatches (IDL batches: false)`,
		outcome: `one -32600 Invalid Request, id null, data "this protocol does not accept batches; ..."; no element handled; Batch fails with ErrBatchesRejected; connection continues`,
		test:    "TestRejectBatches"},
	{name: "batch before the handshake negotiated a version", input: `[{"jsonrpc":"2.0","id":1,"method":"initialize",...}] with Options.BatchVersions ["2025-03-26"] (MCP), before initialize was answered`,
		outcome: `one -32600 Invalid Request, id null, data "batches are not accepted before the handshake has negotiated a protocol version; ..."; no element handled (the handshake is never part of a batch); Batch fails with ErrBatchesRejected`,
		test:    "TestBatchVersionsServer"},
	{name: "batch under a negotiated version without batches", input: `[{"jsonrpc":"2.0","id":1,"method":"sum","params":[1]},...] after initialize was answered with protocolVersion 2025-11-25, Options.BatchVersions ["2025-03-26"]`,
		outcome: `one -32600 Invalid Request, id null, data "protocol version 2025-11-25 does not accept batches; ..."; no element handled; Batch fails with ErrBatchesRejected; connection continues (TestBatchVersionsServer). Under 2025-03-26 the batch is handled and sent`,
		test:    "TestBatchVersionsClient"},
	{name: "peer exits after writing its reason, before reading our request", input: `the same error response with id null, readable only after our write has failed with EPIPE`,
		outcome: `the Conn reads what is left (for at most DrainTimeout) before it ends; the call and Err carry the *PeerError, not only "broken pipe"`,
		test:    "TestPeerErrorReadAfterWriteFails"},

	// Duplicate ids.
	{name: "duplicate id while the first is in flight", input: `{"jsonrpc":"2.0","id":5,"method":"slow"} — twice`, outcome: `the second gets -32600 Invalid Request, id 5; the first keeps running`, test: "TestDuplicateIDInFlight"},
	{name: "duplicate id inside one batch", input: `[{"jsonrpc":"2.0","id":7,"method":"sum","params":[1]},{"jsonrpc":"2.0","id":7,"method":"sum","params":[2]}]`,
		outcome: `one array: result 1 for the first, -32600 "a request with this id is already in flight" for the second, both id 7`,
		run:     runDuplicateInBatch},
	{name: "id reused after its answer", input: `{"jsonrpc":"2.0","id":6,"method":"sum","params":[1]} — answered, then the same id again`,
		outcome: `handled again; result with id 6`, run: runIDReused},

	// Peers that close the connection, as a Redialer meets them.
	{name: "server closes after each answer", input: "a server that answers hello and keeps reading, but closes after answering any other request; calls made right after the previous answer, and after its close arrived",
		outcome: "each call on a new connection, hello first (Redialer.OnConnect); a connection whose peer has finished is not used; an idempotent call sent into a close not yet seen is sent again; every call answered once", test: "TestRedialerPeerClosesAfterEachAnswer"},
	{name: "server closes before reading a call", input: "the server closes after hello, before our call: seen before sending, or while the call waited to be written",
		outcome: "the call goes to a new connection; one that failed before any byte of it was written wraps ErrNotSent and ErrClosed and is sent again, idempotent or not", test: "TestRedialerPeerClosesBeforeReadingACall"},
	{name: "server closes after reading a call", input: "the server reads our call and closes without answering",
		outcome: "a call not marked idempotent (Options.Idempotent) fails with ErrClosed and is not sent again; an idempotent one is sent again on a new connection (Redialer.Retries, 1 by default)", test: "TestRedialerPeerClosesAfterReadingACall"},
	{name: "server finished sending, our handler still running", input: "the server sends us a request and closes; our handler for it has not returned",
		outcome: "the connection is taken as ended: the next call dials again instead of failing on it, even with retries off", test: "TestRedialerSkipsAConnectionWhosePeerFinished"},
	{name: "peer finishes sending while its requests run", input: "3 requests and a notification whose handlers are running, then end of input; the peer still reads (a half-closed pipe)",
		outcome: "the handlers are not cancelled (DrainTimeout does not bound them): once they return, the 3 results are written and the connection ends with ErrPeerClosed", test: "TestRequestsRunningAtEOFAreAnswered"},
	{name: "handler still running at FinishTimeout after end of input", input: "a request whose handler never returns on its own and one answered soon, then end of input; Options.FinishTimeout 20 ms (30 s by default)",
		outcome: "the quick answer is written; at FinishTimeout the other handler's context is cancelled, its answer dropped and a warning logged; the connection ends with ErrPeerClosed (negative FinishTimeout: cancelled at end of input, TestNegativeFinishTimeoutCancelsAtEOF)", test: "TestHandlersPastFinishTimeoutAreCancelled"},
	{name: "peer finishes sending and reads no more, a request running", input: "the peer closes both directions while two handlers run; one then returns",
		outcome: "writing its answer fails; the connection ends at once with the write error and the other handler is cancelled, without waiting for FinishTimeout", test: "TestFailedWriteAfterEOFEndsTheWait"},
	{name: "stream ended as a whole, a request running", input: "end of input from a stream whose Ended() channel is closed (a streamhttp session ended by DELETE, eviction or Handler.Close) while a handler runs",
		outcome: "nothing written can reach the peer: the handler is cancelled at once, without waiting for FinishTimeout; the connection ends with ErrPeerClosed (streamhttp: TestServerDeleteCancelsRunningHandlers)", test: "TestEndedStreamCancelsAtEOF"},
	{name: "handshake refused on a new connection", input: "Redialer.OnConnect fails (the server refuses hello)",
		outcome: "the connection is closed; the call fails with OnConnect's error; nothing else is sent", test: "TestRedialerOnConnectFails"},

	// Size and depth.
	{name: "9,999 nested arrays in params", input: `"params":[[[…]]] nested 9,999 deep (JSON depth 10,000)`,
		outcome: `accepted; the handler receives the params intact`, run: runNested(9999)},
	{name: "10,000 nested arrays in params", input: `"params":[[[…]]] nested 10,000 deep (JSON depth 10,001)`,
		outcome: `-32700 Parse error, id null (encoding/json refuses depth above 10,000); connection continues`, run: runNested(10000)},
	{name: "10,000 nested arrays as the whole message", input: `[[[…]]] nested 10,000 deep`,
		outcome: `read as a batch of one element that is not an object: [-32600 Invalid Request, data "a message must be a JSON object", id null]`,
		run:     runNestedFrame},
	{name: "very long string", input: `params holding one 4 MiB string (limit 32 MiB)`, outcome: `accepted; echoed intact`, run: runLongString},
	{name: "request over the size limit", input: "a request larger than Limits.MaxMessageSize: id among the members before the first cut-off one, id as the last member, id elsewhere, a batch", outcome: "skipped unread but for its first and last 256 bytes; -32600 Invalid Request with the request's id when those show it (its sender's call ends), else id null; next message read", test: "TestOversizedFrameIsRefusedAndConnectionContinues"},
	{name: "response over the size limit", input: "the response to our call, larger than Limits.MaxMessageSize, id first or last", outcome: "skipped unread; the call fails at once with an error wrapping framing.ErrTooLarge; not answered; next message read", test: "TestOversizedResponseFailsItsCall"},
	{name: "batch of 10,000 elements, default cap", input: `a batch of 10,000 requests, MaxBatchSize unset (1000)`,
		outcome: `one -32600 Invalid Request, data "a batch of 10000 elements exceeds the limit of 1000", id null; no handler runs; connection continues`,
		run:     runBigBatch(0)},
	{name: "batch of 10,000 elements, cap raised", input: `the same batch with MaxBatchSize 10000`,
		outcome: `one array of 10,000 results, one per id`, run: runBigBatch(10000)},

	// Params decoding.
	{name: "integer above int64 for an int field", input: `"params":{"count":9223372036854775808}`,
		outcome: `-32602 Invalid params, data {"field":"count","reason":"expected integer, got JSON number 9223372036854775808"}`,
		run:     paramsCase(`{"count":9223372036854775808}`, "count")},
	{name: "integer out of range for a uint8 field", input: `"params":{"small":300}`, outcome: `-32602 Invalid params, data.field "small"`,
		run: paramsCase(`{"small":300}`, "small")},
	{name: "negative integer for a uint8 field", input: `"params":{"small":-1}`, outcome: `-32602 Invalid params, data.field "small"`,
		run: paramsCase(`{"small":-1}`, "small")},
	{name: "fraction for an int field", input: `"params":{"count":1.5}`, outcome: `-32602 Invalid params, data.field "count"`,
		run: paramsCase(`{"count":1.5}`, "count")},
	{name: "string for an int field, deep", input: `"params":{"context":{"selection":{"start":"x"}}}`, outcome: `-32602 Invalid params, data.field "context.selection.start"`, test: "TestInvalidParamsNameTheField"},
	{name: "missing required field (generated-style type)", input: `"params":{"count":1}` + ` — for a type whose "kind" is required`,
		outcome: `-32602 Invalid params, data {"field":"kind","reason":"required field is missing"}`,
		run:     pickCase(`{"count":1}`, "kind", "required field is missing")},
	{name: "wrong enum value (generated-style type)", input: `"params":{"kind":"purple"}`,
		outcome: `-32602 Invalid params, data {"field":"kind","reason":"unknown value \"purple\"; want \"red\" or \"green\""}`,
		run:     pickCase(`{"kind":"purple"}`, "kind", `unknown value "purple"; want "red" or "green"`)},
	{name: "out-of-range int in a generated-style type", input: `"params":{"kind":"red","count":1e30}`,
		outcome: `-32602 Invalid params, data.field "count"`,
		run:     pickCase(`{"kind":"red","count":1e30}`, "count", "expected integer, got JSON number 1e30")},
	{name: "array params for a method taking an object", input: `"params":[1]` + ` — to a hand-written struct`,
		outcome: `-32602 Invalid params, data {"reason":"params must be an object, got JSON array"}: no Go type name`,
		run:     paramsReasonCase(`[1]`, "", "params must be an object, got JSON array")},
	{name: "string for a nested struct field", input: `"params":{"nest":"x"}`,
		outcome: `-32602 Invalid params, data {"field":"nest","reason":"expected object, got JSON string"}: no Go type name`,
		run:     paramsReasonCase(`{"nest":"x"}`, "nest", "expected object, got JSON string")},
	{name: "number for a named string type", input: `"params":{"mode":1}` + ` — (a field of type relMode string)`,
		outcome: `-32602 Invalid params, data {"field":"mode","reason":"expected string, got JSON number"}: no Go type name`,
		run:     paramsReasonCase(`{"mode":1}`, "mode", "expected string, got JSON number")},
	{name: "null after whitespace for an optional member", input: `" null"` + ` — a null with space before it, as a generated decoder's optional member (rpcimpl.DecodeOptional) receives it when called directly`,
		outcome: `nil, as encoding/json decodes it; every decoder generated code calls reads any value padded with JSON whitespace as the bare value`, test: "rpcimpl.TestDecodersSeeThroughWhitespace"},
	{name: "unknown params fields, default", input: `"params":{"extra":1}`, outcome: `accepted`, test: "TestInvalidParamsNameTheField"},
	{name: "unknown params fields, strict mode", input: `"params":{"inner":{"name":"x","nope":1}} — with DisallowUnknownFields`, outcome: `-32602 Invalid params, data {"field":"inner.nope","reason":"unknown field"}`, test: "TestStrictDecodingFindsUnknownMembersAtAnyDepth"},

	// What errors reveal.
	{name: "handler panic naming a path", input: `a handler that panics with "open /home/alice/secret/config.go: boom"`,
		outcome: `-32603 Internal error with no data; the wire holds neither the path nor a stack ("goroutine", ".go:"); the panic and stack are logged; connection continues`,
		run:     leakCase("panic")},
	{name: "handler error naming a path", input: `a handler returning errors.New("open /home/alice/secret/config.go: permission denied")`,
		outcome: `-32603 Internal error with no data; the wire holds neither the path nor "goroutine"; the error is logged`,
		run:     leakCase("plain")},
	{name: "result that cannot be encoded", input: `a handler returning a Go channel as its result`,
		outcome: `-32603 Internal error with no data; the wire names no Go type; the encoding error is logged; connection continues`,
		run:     leakCase("unencodable")},
	{name: "panic in a notification handler", input: `{"jsonrpc":"2.0","method":"panic"}` + ` — the handler panics`,
		outcome: `no reply; panic and stack logged; later notifications and requests handled`,
		run:     runNotificationPanic},
	{name: "handler errors exposed on request", input: `a plain error with Options.ExposeErrors (off by default)`, outcome: `-32603 with the error's text as message (opt-in)`, test: "TestExposeErrors"},
	{name: "limits on by default", input: `Options{} and framing.Limits{}`,
		outcome: `message 32 MiB, header section 8 KiB, 64 handlers at once, 1024 queued requests, 1024 queued notifications, batch 1000, 256 queued writes, drain 1 s, 1024 calls awaiting an answer, 64 MiB queued, answers 32 MiB; each listed in runtime/README.md`,
		run:     runDefaultLimits},

	// Hostile peers: amplification, memory, echoes and noise.
	{name: "notifications whose handler calls the peer, which never answers", input: `100,000 notifications, each making the handler start a call to the peer`,
		outcome: `1024 calls (MaxOutgoingCalls) stay pending; every other call fails at once with ErrTooManyCalls naming the method; the connection keeps answering`, test: "TestOutgoingCallsBounded"},
	{name: "calls past the bound, waiting for slots", input: `a third call with MaxOutgoingCalls 2 and WaitForCallSlots`,
		outcome: `it waits for a slot or its context; a call from a handler of the same connection fails at once (waiting there could stop reading the answers that free slots)`, test: "TestWaitForCallSlots"},
	{name: "outgoing batch past the bound", input: `a batch of 3 requests with MaxOutgoingCalls 2`, outcome: `the batch fails whole with ErrTooManyCalls; nothing left pending`, test: "TestBatchCountsAgainstMaxOutgoingCalls"},
	{name: "large requests behind busy handlers", input: `40 requests of 256 KiB behind one busy handler, MaxQueuedBytes 1 MiB`,
		outcome: `reading pauses once the queued bytes would pass the bound; the rest stay with the peer; all 40 answered once the handler is free`, test: "TestQueuedBytesPauseReading"},
	{name: "result over the answer limit", input: `a result encoding past MaxResponseBytes`,
		outcome: `-32603 "Internal error: the result is too large", data {"size":…,"limit":…}, same id; connection continues`, test: "TestResponseTooLarge"},
	{name: "batch whose answer would pass the limit", input: `a batch of 5 requests whose results together pass MaxResponseBytes`,
		outcome: `answers that would pass it become the -32603 too-large error, or are left out when even that does not fit; the batch's answer never passes the limit`, test: "TestBatchAnswerBounded"},
	{name: "invalid UTF-8 in an id, a method or a raw result", input: "`\"id\":\"\\xff\\xfe\"`, `\"method\":\"n\\xc3\"`, a handler returning raw bytes with \\xff",
		outcome: `each invalid byte becomes U+FFFD, as encoding/json does: every message written is valid UTF-8 and valid JSON (FuzzConnWritesValidText checks it for any input)`, test: "TestInvalidUTF8IsNotEchoed"},
	{name: "1 MiB method or member name", input: `a request, a notification and a response naming 1 MiB of text, and a 1 MiB unknown member in strict mode, a 1 MiB number for an int field`,
		outcome: `-32601 data, -32602 field and value cut to 256 bytes with the full length noted; each log line stays short`, test: "TestEchoedValuesTruncated"},
	{name: "100,000 unknown notifications", input: `{"jsonrpc":"2.0","method":"unknown/notification"} — 100,000 times`,
		outcome: `10 warnings logged, then at most one a second carrying the count suppressed since; the total logged when the connection ends`, test: "TestPeerWarningsAreRateLimited"},
}

// relHandler serves the requests of the message cases.
var relHandler = mux{
	"sum": specHandler["sum"],
	"echo": func(ctx context.Context, req *Request) (any, error) {
		return req.Params, nil
	},
	"count": func(ctx context.Context, req *Request) (any, error) {
		var p struct {
			Count int   `json:"count"`
			Small uint8 `json:"small"`
			Nest  struct {
				A int `json:"a"`
			} `json:"nest"`
			Mode relMode `json:"mode"`
		}
		return nil, req.DecodeParams(&p)
	},
	"pick": func(ctx context.Context, req *Request) (any, error) {
		var p relPick
		return nil, req.DecodeParams(&p)
	},
	"panic": func(ctx context.Context, req *Request) (any, error) {
		panic("open " + secretPath + ": boom")
	},
	"plain": func(ctx context.Context, req *Request) (any, error) {
		return nil, errors.New("open " + secretPath + ": permission denied")
	},
	"unencodable": func(ctx context.Context, req *Request) (any, error) {
		return make(chan int), nil
	},
}

// relMode is a named string type, as a generated enum is.
type relMode string

const secretPath = "/home/alice/secret/config.go"

// relPick is shaped like a generated type: an UnmarshalJSON decoding
// member by member, a required member and an enum.
type relPick struct {
	Kind  string
	Count int
}

func (p *relPick) UnmarshalJSON(b []byte) error {
	var hasKind bool
	err := decodeObject(b, func(key, value []byte) error {
		switch string(key) {
		case "kind":
			hasKind = true
			var s string
			if err := json.Unmarshal(value, &s); err != nil {
				return atField("kind", err)
			}
			if s != "red" && s != "green" {
				return atField("kind", fmt.Errorf(`unknown value %q; want "red" or "green"`, s))
			}
			p.Kind = s
		case "count":
			return atField("count", json.Unmarshal(value, &p.Count))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !hasKind {
		return &FieldError{Field: "kind", Reason: "required field is missing"}
	}
	return nil
}

// exchangeCase sends one frame, expects reply (structurally), then proves
// the connection carries on with a fresh request.
func exchangeCase(opts Options, send, reply string) func(t *testing.T) {
	return func(t *testing.T) {
		if opts.Handler == nil {
			opts.Handler = relHandler
		}
		_, p := newRaw(t, opts)
		p.send(send)
		assertSameJSON(t, "reply", p.recv(), reply)
		assertContinues(t, p)
	}
}

// assertContinues proves the connection still answers.
func assertContinues(t *testing.T, p *rawPeer) {
	t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"next","method":"sum","params":[40,2]}`)
	assertSameJSON(t, "next request", p.recv(), `{"jsonrpc":"2.0","id":"next","result":42}`)
}

// logBuffer collects a connection's log, safe for concurrent writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// callPending starts a call of "m" from c and returns its outcome channel
// once the raw peer has read the request (which gets id 1).
func callPending(t *testing.T, c *Conn, p *rawPeer) (<-chan error, *string) {
	t.Helper()
	errc := make(chan error, 1)
	var result string
	go func() { errc <- c.Call(ctxLimit(t), "m", nil, &result) }()
	assertSameJSON(t, "our request", p.recv(), `{"jsonrpc":"2.0","id":1,"method":"m"}`)
	return errc, &result
}

// invalidResponseCase sends an invalid response while our call 1 is
// pending. With a reason, the response names call 1, which must fail with
// ErrInvalidResponse and that reason; without, the call must be unaffected
// and still take a valid response. Either way nothing is answered: the
// next frame the peer reads is the answer to its next request.
func invalidResponseCase(response, reason string) func(t *testing.T) {
	return func(t *testing.T) {
		var log logBuffer
		c, p := newRaw(t, Options{Handler: relHandler, Logger: log.logger()})
		errc, result := callPending(t, c, p)
		p.send(response)
		assertContinues(t, p)
		if !strings.Contains(log.String(), "invalid response; not answered") {
			t.Errorf("not logged: %s", log.String())
		}
		if reason != "" {
			err := <-errc
			if !errors.Is(err, ErrInvalidResponse) || !strings.Contains(err.Error(), reason) {
				t.Errorf("call: %v; want ErrInvalidResponse: %s", err, reason)
			}
			return
		}
		select {
		case err := <-errc:
			t.Fatalf("the call completed on a response that is not its own: %v", err)
		default:
		}
		p.send(`{"jsonrpc":"2.0","id":1,"result":"ok"}`)
		if err := <-errc; err != nil || *result != "ok" {
			t.Errorf("call: %q, %v; want ok", *result, err)
		}
	}
}

func runStringifiedID(t *testing.T) {
	var log logBuffer
	c, p := newRaw(t, Options{Handler: relHandler, Logger: log.logger()})
	errc, result := callPending(t, c, p)
	p.send(`{"jsonrpc":"2.0","id":"1","result":"wrong"}`)
	assertContinues(t, p)
	select {
	case err := <-errc:
		t.Fatalf("the call took a response to id \"1\": %q, %v", *result, err)
	default:
	}
	if !strings.Contains(log.String(), "response to an unknown or already answered id") {
		t.Errorf("not logged: %s", log.String())
	}
	p.send(`{"jsonrpc":"2.0","id":1,"result":"ok"}`)
	if err := <-errc; err != nil || *result != "ok" {
		t.Errorf("call: %q, %v; want ok", *result, err)
	}
}

func runAlreadyAnswered(t *testing.T) {
	var log logBuffer
	c, p := newRaw(t, Options{Handler: relHandler, Logger: log.logger()})
	errc, result := callPending(t, c, p)
	p.send(`{"jsonrpc":"2.0","id":1,"result":"first"}`)
	if err := <-errc; err != nil || *result != "first" {
		t.Fatalf("call: %q, %v", *result, err)
	}
	p.send(`{"jsonrpc":"2.0","id":1,"result":"second"}`)
	assertContinues(t, p) // the first frame read after the duplicate: no reply came before it
	if *result != "first" {
		t.Errorf("result overwritten: %q", *result)
	}
	if !strings.Contains(log.String(), "response to an unknown or already answered id") {
		t.Errorf("not logged: %s", log.String())
	}
}

func runNullIDError(t *testing.T) {
	var log logBuffer
	got := make(chan *Error, 1)
	_, p := newRaw(t, Options{Handler: relHandler, Logger: log.logger(), OnPeerError: func(e *Error) { got <- e }})
	p.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	assertContinues(t, p)
	select {
	case e := <-got:
		if e.Code != CodeParseError {
			t.Errorf("OnPeerError got %v", e)
		}
	default:
		t.Error("OnPeerError not called")
	}
	if !strings.Contains(log.String(), "the peer reported an error") {
		t.Errorf("not logged: %s", log.String())
	}
}

func runDuplicateInBatch(t *testing.T) {
	_, p := newRaw(t, Options{Handler: relHandler})
	p.send(`[{"jsonrpc":"2.0","id":7,"method":"sum","params":[1]},{"jsonrpc":"2.0","id":7,"method":"sum","params":[2]}]`)
	assertSameJSON(t, "batch reply", p.recv(), `[{"jsonrpc":"2.0","id":7,"result":1},{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request","data":"a request with this id is already in flight"}}]`)
	// The same, with the first request given time to be answered before
	// the second is read: the repeat is refused all the same.
	var batch strings.Builder
	batch.WriteString(`[{"jsonrpc":"2.0","id":8,"method":"sum","params":[1]}`)
	for range 900 {
		batch.WriteString(`,{"jsonrpc":"2.0","method":"unknown/notification"}`)
	}
	batch.WriteString(`,{"jsonrpc":"2.0","id":8,"method":"sum","params":[2]}]`)
	p.send(batch.String())
	assertSameJSON(t, "batch reply", p.recv(), `[{"jsonrpc":"2.0","id":8,"result":1},{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"Invalid Request","data":"a request with this id is already in flight"}}]`)
	assertContinues(t, p)
}

func runIDReused(t *testing.T) {
	_, p := newRaw(t, Options{Handler: relHandler})
	for _, n := range []int{1, 2} {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":6,"method":"sum","params":[%d]}`, n))
		assertSameJSON(t, "reply", p.recv(), fmt.Sprintf(`{"jsonrpc":"2.0","id":6,"result":%d}`, n))
	}
}

func nestedArrays(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func runNested(depth int) func(t *testing.T) {
	return func(t *testing.T) {
		_, p := newRaw(t, Options{Handler: relHandler})
		params := nestedArrays(depth)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":` + params + `}`)
		got := p.recv()
		if depth < 10000 {
			if want := `{"jsonrpc":"2.0","id":1,"result":` + params + `}`; got != want {
				t.Errorf("got %.200s…, want the params echoed", got)
			}
		} else {
			assertSameJSON(t, "reply", got, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid JSON"}}`)
		}
		assertContinues(t, p)
	}
}

func runNestedFrame(t *testing.T) {
	_, p := newRaw(t, Options{Handler: relHandler})
	p.send(nestedArrays(10000))
	assertSameJSON(t, "reply", p.recv(), `[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"a message must be a JSON object"}}]`)
	assertContinues(t, p)
}

func runLongString(t *testing.T) {
	_, p := newRaw(t, Options{Handler: relHandler})
	params := `["` + strings.Repeat("é", 2<<20) + `"]` // 4 MiB of UTF-8
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":` + params + `}`)
	if got, want := p.recv(), `{"jsonrpc":"2.0","id":1,"result":`+params+`}`; got != want {
		t.Errorf("reply of %d bytes is not the echo of %d bytes", len(got), len(want))
	}
	assertContinues(t, p)
}

func runBigBatch(limit int) func(t *testing.T) {
	return func(t *testing.T) {
		const n = 10000
		calls := 0
		var mu sync.Mutex
		handler := mux{"sum": func(ctx context.Context, req *Request) (any, error) {
			mu.Lock()
			calls++
			mu.Unlock()
			return specHandler["sum"](ctx, req)
		}}
		_, p := newRaw(t, Options{Handler: handler, MaxBatchSize: limit})
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"sum","params":[%d]}`, i, i)
		}
		b.WriteByte(']')
		p.send(b.String())
		got := p.recvJSON()
		if limit == 0 {
			assertSameJSON(t, "reply", mustMarshal(t, got), `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"a batch of 10000 elements exceeds the limit of 1000"}}`)
			mu.Lock()
			ran := calls
			mu.Unlock()
			if ran != 0 {
				t.Errorf("%d handlers ran for a refused batch", ran)
			}
			assertContinues(t, p)
			return
		}
		arr, ok := got.([]any)
		if !ok || len(arr) != n {
			t.Fatalf("want an array of %d responses, got %T of %d", n, got, len(arr))
		}
		seen := make(map[float64]bool, n)
		for _, r := range arr {
			m := r.(map[string]any)
			id := m["id"].(float64)
			if m["result"] != id || seen[id] {
				t.Fatalf("bad or repeated response %v", m)
			}
			seen[id] = true
		}
		assertContinues(t, p)
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// invalidParamsField sends params to method and returns the -32602 data.
func invalidParamsData(t *testing.T, method, params string) (field, reason string) {
	t.Helper()
	_, p := newRaw(t, Options{Handler: relHandler})
	members := ""
	if params != "" {
		members = `,"params":` + params
	}
	got := p.exchange(`{"jsonrpc":"2.0","id":1,"method":"` + method + `"` + members + `}`)
	e, _ := got.(map[string]any)["error"].(map[string]any)
	if e == nil || e["code"] != float64(CodeInvalidParams) || e["message"] != "Invalid params" {
		t.Fatalf("got %v, want -32602 Invalid params", got)
	}
	data, _ := e["data"].(map[string]any)
	field, _ = data["field"].(string)
	reason, _ = data["reason"].(string)
	assertContinues(t, p)
	return field, reason
}

func paramsCase(params, field string) func(t *testing.T) {
	return func(t *testing.T) {
		got, reason := invalidParamsData(t, "count", params)
		if got != field || reason == "" {
			t.Errorf("data: field %q reason %q, want field %q with a reason", got, reason, field)
		}
	}
}

func paramsReasonCase(params, field, reason string) func(t *testing.T) {
	return func(t *testing.T) {
		gotField, gotReason := invalidParamsData(t, "count", params)
		if gotField != field || gotReason != reason {
			t.Errorf("data: field %q reason %q, want %q %q", gotField, gotReason, field, reason)
		}
	}
}

func pickCase(params, field, reason string) func(t *testing.T) {
	return func(t *testing.T) {
		gotField, gotReason := invalidParamsData(t, "pick", params)
		if gotField != field || gotReason != reason {
			t.Errorf("data: field %q reason %q, want %q %q", gotField, gotReason, field, reason)
		}
	}
}

// leakCase proves an answer to a failing handler reveals nothing of the
// host: the exact bytes on the wire are checked.
func leakCase(method string) func(t *testing.T) {
	return func(t *testing.T) {
		var log logBuffer
		_, p := newRaw(t, Options{Handler: relHandler, Logger: log.logger()})
		p.send(`{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`)
		wire := p.recv()
		if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`; wire != want {
			t.Errorf("wire: %s, want %s", wire, want)
		}
		for _, secret := range []string{secretPath, "/home", "goroutine", ".go:", "panic"} {
			if strings.Contains(wire, secret) {
				t.Errorf("wire reveals %q: %s", secret, wire)
			}
		}
		assertContinues(t, p)
		for _, secret := range []string{"chan", "json:"} {
			if strings.Contains(wire, secret) {
				t.Errorf("wire reveals %q: %s", secret, wire)
			}
		}
		logged := log.String()
		want := secretPath
		if method == "unencodable" {
			want = "cannot encode result"
		}
		if !strings.Contains(logged, want) || method == "panic" && !strings.Contains(logged, "goroutine") {
			t.Errorf("the failure is not logged for the host: %s", logged)
		}
	}
}

func runNotificationPanic(t *testing.T) {
	var log logBuffer
	_, p := newRaw(t, Options{Handler: relHandler, Logger: log.logger()})
	p.send(`{"jsonrpc":"2.0","method":"panic"}`)
	p.send(`{"jsonrpc":"2.0","method":"panic"}`)
	assertContinues(t, p)
	// Notifications run in order, one at a time: wait until both are logged.
	for range 1000 {
		if strings.Count(log.String(), "handler panicked") == 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := log.String(); strings.Count(got, "handler panicked") != 2 || !strings.Contains(got, "goroutine") {
		t.Errorf("panics not logged with their stack: %s", got)
	}
}

func runDefaultLimits(t *testing.T) {
	o := Options{}.withDefaults()
	l := framing.Limits{}
	if l.MaxMessageSize != 0 || framing.DefaultMaxMessageSize != 32<<20 || framing.DefaultMaxHeaderSize != 8<<10 {
		t.Errorf("framing defaults: %d, %d", framing.DefaultMaxMessageSize, framing.DefaultMaxHeaderSize)
	}
	got := []int{o.MaxConcurrentRequests, o.MaxQueuedRequests, o.MaxQueuedNotifications, o.MaxBatchSize, o.MaxQueuedWrites, o.MaxOutgoingCalls, o.MaxQueuedBytes, o.MaxResponseBytes}
	want := []int{64, 1024, 1024, 1000, 256, 1024, 64 << 20, 32 << 20}
	if fmt.Sprint(got) != fmt.Sprint(want) || o.DrainTimeout.Seconds() != 1 || o.FinishTimeout.Seconds() != 30 {
		t.Errorf("defaults %v, drain %v, finish %v; want %v, 1s, 30s", got, o.DrainTimeout, o.FinishTimeout, want)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{
		"| message size | 32 MiB | `framing.Limits.MaxMessageSize`",
		"| Content-Length header section | 8 KiB | `framing.Limits.MaxHeaderSize`",
		"| handlers running at once | 64 | `jsonrpc.Options.MaxConcurrentRequests`",
		"| requests waiting for a handler | 1024 | `Options.MaxQueuedRequests`",
		"| notifications waiting | 1024 | `Options.MaxQueuedNotifications`",
		"| batch elements | 1000 | `Options.MaxBatchSize`",
		"| outgoing messages waiting | 256 | `Options.MaxQueuedWrites`",
		"| drain on Close | 1 s | `Options.DrainTimeout`",
		"| handlers still running when the peer finishes sending (end of input) | 30 s | `Options.FinishTimeout`",
		"| our calls awaiting an answer | 1024 | `Options.MaxOutgoingCalls`",
		"| bytes of incoming messages waiting for a handler | 64 MiB | `Options.MaxQueuedBytes`",
		"| one answer, and a batch's whole answer | 32 MiB | `Options.MaxResponseBytes`",
	} {
		if !strings.Contains(string(readme), row) {
			t.Errorf("runtime/README.md does not document %q", row)
		}
	}
}

// TestMessageReliability runs every message case with a live Conn and
// checks RELIABILITY.md against the table (-update rewrites it).
func TestMessageReliability(t *testing.T) {
	tests := existingTests(t)
	names := map[string]bool{}
	for _, tc := range msgCases {
		if names[tc.name] {
			t.Errorf("case %q listed twice", tc.name)
		}
		names[tc.name] = true
		if tc.run != nil {
			t.Run(tc.name, tc.run)
			continue
		}
		if !tests[tc.test] {
			t.Errorf("case %q: proving test %s does not exist", tc.name, tc.test)
		}
		if tc.sub != "" && !hasSpecCase(tc.sub) {
			t.Errorf("case %q: specCases has no entry %q", tc.name, tc.sub)
		}
	}
	const golden = "RELIABILITY.md"
	table := renderMessageTable()
	if *update {
		if err := os.WriteFile(golden, table, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := os.ReadFile(golden)
	if err != nil || !bytes.Equal(committed, table) {
		t.Errorf("%s is not the rendering of msgCases (%v); run go test -run TestMessageReliability -update", golden, err)
	}
}

func hasSpecCase(name string) bool {
	for _, c := range specCases {
		if c.name == name {
			return true
		}
	}
	return false
}

// existingTests returns the names of the test functions of this package.
func existingTests(t *testing.T) map[string]bool {
	t.Helper()
	re := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	found := map[string]bool{}
	// The decoders generated code calls are tested in package rpcimpl:
	// their tests are named "rpcimpl.TestX".
	for dir, prefix := range map[string]string{".": "", "../rpcimpl": "rpcimpl."} {
		files, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !strings.HasSuffix(f.Name(), "_test.go") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range re.FindAllSubmatch(b, -1) {
				found[prefix+string(m[1])] = true
			}
		}
	}
	return found
}

func (tc msgCase) provedBy() string {
	switch {
	case tc.run != nil:
		return "`TestMessageReliability/" + strings.ReplaceAll(tc.name, " ", "_") + "`"
	case tc.sub != "":
		return "`" + tc.test + "`, `specCases` entry \"" + tc.sub + "\""
	}
	return "`" + tc.test + "`"
}

func renderMessageTable() []byte {
	var b bytes.Buffer
	b.WriteString("# runtime/jsonrpc: message reliability\n\n")
	b.WriteString("Generated from `msgCases` in `reliability_test.go` by\n")
	b.WriteString("`go test -run TestMessageReliability -update`; the test fails when this\n")
	b.WriteString("file differs from the table. Every case runs against a live `Conn`.\n")
	b.WriteString("The `specCases` entries run over both framings, each followed by a\n")
	b.WriteString("request that must be answered, so each proves the connection continues;\n")
	b.WriteString("the cases of `TestMessageReliability` use NDJSON and, where the outcome\n")
	b.WriteString("says so, send a fresh request that must be answered.\n\n")
	b.WriteString("| case | input | outcome | proved by |\n|---|---|---|---|\n")
	for _, tc := range msgCases {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(tc.name), code(tc.input), cell(tc.outcome), tc.provedBy())
	}
	return b.Bytes()
}

// cell escapes text for a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// code renders an input: JSON in backticks, a description (after " — ")
// as text.
func code(s string) string {
	if !strings.HasPrefix(s, "{") && !strings.HasPrefix(s, "[") && !strings.HasPrefix(s, `"`) {
		return cell(s)
	}
	json, note, _ := strings.Cut(s, " — ")
	out := "`" + cell(json) + "`"
	if note != "" {
		out += " " + cell(note)
	}
	return out
}
