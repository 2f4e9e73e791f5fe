package streamhttp

// Protocol describes how a JSON-RPC protocol uses Streamable HTTP: the
// request that opens a session and the headers that carry the session and
// the negotiated revision. Generated packages whose IDL declares an http
// transport export one as HTTP.
type Protocol struct {
	// Path is the endpoint's conventional path, such as "/mcp".
	Path string
	// Handshake is the request method that opens a session, such as
	// "initialize"; the server issues a session id in its answer to it.
	Handshake string
	// SessionHeader carries the session id, such as "Mcp-Session-Id".
	// Empty: the protocol has no sessions and every POST stands alone.
	SessionHeader string
	// VersionHeader carries the negotiated revision on every request
	// after the handshake, such as "MCP-Protocol-Version". Empty: none.
	VersionHeader string
	// VersionField is the member of the handshake's result that holds the
	// negotiated revision, such as "protocolVersion".
	VersionField string
	// DefaultVersion is the revision a server assumes when a request
	// carries no VersionHeader, such as "2025-03-26".
	DefaultVersion string
}
