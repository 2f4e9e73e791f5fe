package streamhttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// readBody reads a POST body within MaxBodyBytes, answering 413 past it.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	limit := h.opts.MaxBodyBytes
	if r.ContentLength > limit {
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", limit))
		return nil, false
	}
	size := r.ContentLength
	if size < 0 || size > 64<<10 {
		size = 64 << 10 // grow with what actually arrives
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+1))
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", limit))
		return nil, false
	case err != nil:
		httpError(w, http.StatusBadRequest, "reading the body failed")
		return nil, false
	}
	return buf.Bytes(), true
}

// post handles a POST: one message (or a batch) from the client.
func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
		return
	}
	jsonOK, streamOK := accepts(r.Header.Values("Accept"))
	if !jsonOK && !streamOK {
		httpError(w, http.StatusNotAcceptable, "Accept must list application/json and text/event-stream")
		return
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	if !json.Valid(body) {
		rpcError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: invalid JSON")
		return
	}
	var line bytes.Buffer
	line.Grow(len(body) + 1)
	_ = json.Compact(&line, body)
	line.WriteByte('\n')
	ids, handshake, ok := h.classify(w, line.Bytes())
	if !ok {
		return
	}
	batch := line.Bytes()[0] == '['

	var s *Session
	created := false
	switch {
	case h.stateless():
		if !handshake && !h.versionOK(w, r) {
			return
		}
		if s = h.create(true); s == nil {
			httpError(w, http.StatusServiceUnavailable, "server closed")
			return
		}
		defer s.End()
	case r.Header.Get(h.proto.SessionHeader) == "" && handshake:
		if s = h.create(false); s == nil {
			w.Header().Set("Retry-After", "1")
			httpError(w, http.StatusServiceUnavailable, "too many sessions")
			return
		}
		created = true
	default:
		if s = h.lookup(w, r); s == nil {
			return
		}
	}
	if s.id != "" {
		w.Header().Set(h.proto.SessionHeader, s.id)
	}
	if !s.begin() {
		httpError(w, http.StatusTooManyRequests, "too many requests open in this session")
		return
	}
	defer s.finish()

	if len(ids) == 0 {
		if !s.deliver(line.Bytes(), r.Context().Done()) {
			httpError(w, http.StatusNotFound, "session ended")
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	useJSON := !streamOK || (h.opts.JSONResponse && jsonOK)
	st, status, why := s.open(ids, useJSON, batch, handshake && created)
	if st == nil {
		if status == http.StatusBadRequest {
			rpcError(w, status, jsonrpc.CodeInvalidRequest, why)
		} else {
			httpError(w, status, why)
		}
		return
	}
	defer s.detach(st, 1) // open made this response its first owner
	if useJSON {
		h.answerJSON(w, r, s, st, line.Bytes())
	} else {
		h.serveStream(w, r, s, st, 1, 0, line.Bytes())
	}
	if created && s.handshakeFailed() {
		s.End()
	}
}

// classify reads the ids of the requests in a POSTed line, and whether
// it is the protocol's handshake. It reads members the way a
// jsonrpc.Conn does (exact names, the last of duplicates), so that it
// expects an answer exactly when the connection gives one. A message that
// is neither a request, a notification nor a response gets 400 with
// -32600, as does a single request whose id is not a string, a number or
// null.
func (h *Handler) classify(w http.ResponseWriter, line []byte) (ids []string, handshake, ok bool) {
	var msgs []json.RawMessage
	if line[0] == '[' {
		_ = json.Unmarshal(line, &msgs)
		if len(msgs) == 0 {
			rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: empty batch")
			return nil, false, false
		}
	} else {
		msgs = []json.RawMessage{line}
	}
	single := len(msgs) == 1 && line[0] != '['
	for _, raw := range msgs {
		var m map[string]json.RawMessage
		if raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
			if single {
				rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: a message must be a JSON object")
				return nil, false, false
			}
			continue // the connection answers it within the batch
		}
		method, hasMethod := m["method"]
		rawID, hasID := m["id"]
		_, hasResult := m["result"]
		_, hasError := m["error"]
		switch {
		case hasMethod && hasID:
			var id jsonrpc.ID
			if err := id.UnmarshalJSON(rawID); err != nil {
				if single {
					rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: id must be a string, a number or null")
					return nil, false, false
				}
				continue
			}
			if !slices.Contains(ids, id.String()) { // the connection refuses a repeated one within its batch
				ids = append(ids, id.String())
			}
			var name string
			if single && json.Unmarshal(method, &name) == nil && name == h.proto.Handshake && name != "" {
				handshake = true
			}
		case !hasMethod && !hasResult && !hasError && single:
			rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: neither a request, a notification nor a response")
			return nil, false, false
		}
	}
	if h.proto.Handshake == "" {
		handshake = true // no handshake: any message opens a session
	}
	return ids, handshake, true
}
