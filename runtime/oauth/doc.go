// Package oauth authorizes an HTTP client against a server protected by
// OAuth 2.1 the way the Model Context Protocol's authorization rules
// (revision 2025-11-25) describe it, as an [http.RoundTripper].
//
// A [Transport] sends each request with the access token it holds. When
// the server answers 401, it reads the WWW-Authenticate challenge,
// discovers the protected resource's metadata (RFC 9728) and its
// authorization server's metadata (RFC 8414 or OpenID Connect Discovery,
// with the 2025-03-26 fallbacks for servers that publish neither),
// obtains a client identity (a pre-registered id, a client ID metadata
// document URL, or dynamic client registration, RFC 7591), runs the
// authorization-code flow with PKCE (S256) through a pluggable
// [AuthorizeFunc] (asking for offline_access where the server offers it),
// or the client-credentials grant (a secret or a private_key_jwt
// assertion), or a JWT bearer grant, and sends the request again with the
// new token. It refreshes an expired token, steps up to
// the scopes a 403 insufficient_scope names, and limits how often it
// tries, so that a server that never accepts a token cannot keep it
// looping.
//
// The package uses only the standard library.
package oauth
