package streamhttp

import (
	"bytes"
	"encoding/json"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// envelope holds the raw values of the members of a message that routing
// needs (nil when absent), read as a jsonrpc.Conn reads them: by exact
// name, the last of duplicates.
type envelope struct {
	id, method, result []byte
}

// appendEnvelopes appends to out the envelope of msg, or of each element
// of a batch; elements that are not JSON objects are left out. With room
// for one in out, a message that is not a batch costs no allocation.
func appendEnvelopes(out []envelope, msg []byte) []envelope {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 {
		return out
	}
	objs := [][]byte{msg}
	if msg[0] == '[' {
		var elems []json.RawMessage
		if json.Unmarshal(msg, &elems) != nil {
			return nil
		}
		objs = objs[:0]
		for _, e := range elems {
			objs = append(objs, e)
		}
	}
	for _, obj := range objs {
		var e envelope
		err := jsonscan.DecodeObject(obj, func(key, value []byte) error {
			switch string(key) {
			case "id":
				e.id = value
			case "method":
				e.method = value
			case "result":
				e.result = value
			}
			return nil
		})
		if err == nil {
			out = append(out, e)
		}
	}
	return out
}

// outgoing describes a message (or batch) about to be POSTed.
type outgoing struct {
	requests     []json.RawMessage // ids of the requests in it
	handshake    json.RawMessage   // id of the handshake request in it
	notification bool              // it holds a notification
	onlyAnswers  bool              // it holds answers and nothing else
}

// inspectOutgoing reads what post needs from msg, appending the ids of
// its requests to requests (room for one saves an allocation). A message
// it cannot decode is sent as it is and treated as a notification: the
// server will answer it as it sees fit.
func inspectOutgoing(msg []byte, handshake string, requests []json.RawMessage) outgoing {
	var one [1]envelope
	elems := appendEnvelopes(one[:0], msg)
	o := outgoing{requests: requests[:0], onlyAnswers: len(elems) > 0}
	for _, e := range elems {
		if e.method != nil {
			o.onlyAnswers = false
		}
		switch {
		case e.method == nil:
		case e.id == nil:
			o.notification = true
		default:
			id := compactID(e.id)
			o.requests = append(o.requests, id)
			if handshake != "" && isMethod(e.method, handshake) {
				o.handshake = id
			}
		}
	}
	return o
}

// isMethod reports whether the JSON value raw is the string name, read
// in place when it has no escapes.
func isMethod(raw []byte, name string) bool {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1:n-1]) == name
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s == name
}

// compactID returns id without insignificant whitespace, the form ids are
// matched in.
func compactID(id json.RawMessage) json.RawMessage {
	if !bytes.ContainsAny(id, " \t\r\n") {
		return id // nothing to remove
	}
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return id
	}
	return b.Bytes()
}

// appendResponseIDs appends to ids the ids of the responses in msg (a
// message or a batch).
func appendResponseIDs(ids []json.RawMessage, msg []byte) []json.RawMessage {
	var one [1]envelope
	for _, e := range appendEnvelopes(one[:0], msg) {
		if e.method == nil && e.id != nil {
			ids = append(ids, compactID(e.id))
		}
	}
	return ids
}
