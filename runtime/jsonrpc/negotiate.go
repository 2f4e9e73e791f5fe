package jsonrpc

import (
	"encoding/json"
	"slices"
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
	var members map[string]json.RawMessage
	var v string
	if json.Unmarshal(result, &members) != nil || json.Unmarshal(members[c.opts.VersionField], &v) != nil {
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
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(response, &r) == nil {
		c.learnVersion(r.Result)
	}
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
