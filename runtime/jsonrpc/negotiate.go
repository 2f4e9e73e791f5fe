package jsonrpc

import (
	"encoding/json"
	"slices"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// ProtocolVersion returns the protocol version the handshake negotiated:
// the [Options.VersionField] member of the first result of
// [Options.Handshake] this side sent or received, as it was written (a
// peer's value: pass it through [Truncate] before logging it). It is ""
// before that, when the result held no such string, and without
// VersionField.
func (c *Conn) ProtocolVersion() string {
	if v := c.version.Load(); v != nil {
		return *v
	}
	return ""
}

// learnVersion records the negotiated version from result, the result of
// the handshake, unless one is already known.
func (c *Conn) learnVersion(result json.RawMessage) {
	if c.opts.VersionField == "" || c.version.Load() != nil {
		return
	}
	v, ok := versionIn(result, c.opts.VersionField)
	if !ok {
		c.log.Debug("jsonrpc: the handshake's result names no protocol version", "member", c.opts.VersionField)
		return
	}
	c.version.CompareAndSwap(nil, &v)
}

// learnVersionFrom records the negotiated version from response, this
// side's answer to the handshake, unless one is already known.
func (c *Conn) learnVersionFrom(response []byte) {
	if c.opts.VersionField == "" || c.version.Load() != nil {
		return
	}
	result, _ := memberOf(response, "result")
	c.learnVersion(result)
}

// versionIn returns the string that the member field of the JSON object
// result holds, as decoding result into a map and that member into a
// string would: the last of duplicate members counts, and null gives "".
// It reports false when result is not an object, lacks the member, or the
// member is neither a string nor null.
func versionIn(result []byte, field string) (string, bool) {
	raw, ok := memberOf(result, field)
	switch {
	case !ok:
		return "", false
	case string(raw) == "null":
		return "", true
	case len(raw) == 0 || raw[0] != '"':
		return "", false
	}
	return jsonscan.UnquoteString(raw)
}

// memberOf returns the raw value of the last member named name of the
// JSON object b (keys compared exactly, after unescaping), scanning
// instead of decoding: b is a handshake's whole result or response.
func memberOf(b []byte, name string) ([]byte, bool) {
	var found []byte
	err := jsonscan.DecodeObject(b, func(key, value []byte) error {
		if string(key) == name {
			found = value
		}
		return nil
	})
	return found, err == nil && found != nil
}

// batchRefusal says why this connection refuses batches now, or returns ""
// when it accepts them (see [Options.RejectBatches] and
// [Options.BatchVersions]).
func (c *Conn) batchRefusal() string {
	switch {
	case c.opts.RejectBatches:
		return "this protocol does not accept batches"
	case c.opts.BatchVersions == nil:
		return ""
	}
	v := c.version.Load()
	switch {
	case v == nil:
		return "batches are not accepted before the handshake has negotiated a protocol version"
	case !slices.Contains(c.opts.BatchVersions, *v):
		return "protocol version " + Truncate(*v) + " does not accept batches"
	}
	return ""
}
