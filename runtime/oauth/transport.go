package oauth

import (
	"context"
	"crypto"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Grant types a Transport can use to obtain a token.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	// GrantJWTBearer presents a JWT authorization grant (RFC 7523
	// section 2.1) that Transport.Assertion obtains, such as an identity
	// assertion an enterprise identity provider issued by token exchange.
	GrantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

// DefaultMaxAuthorizations is how many times a Transport obtains a new
// token for one request when [Transport.MaxAuthorizations] is zero.
const DefaultMaxAuthorizations = 3

// Transport is an [http.RoundTripper] that authorizes the requests it
// sends with OAuth 2.1 as described in the package documentation. Set its
// fields before its first use and do not change them afterwards; it is
// safe for concurrent use, and requests that meet a 401 at the same time
// share one authorization.
type Transport struct {
	// Base sends the requests, those to the authorization server
	// included; nil means [http.DefaultTransport].
	Base http.RoundTripper

	// GrantType is GrantAuthorizationCode (the default, for a user's
	// client), GrantClientCredentials (for a client acting on its own
	// behalf) or GrantJWTBearer; the last two need ClientID, with
	// ClientSecret or PrivateKey.
	GrantType string
	// Assertion returns the JWT to present with GrantJWTBearer to the
	// authorization server issuer for the protected resource resource.
	Assertion func(ctx context.Context, issuer, resource string) (string, error)

	// ClientID is a client id registered beforehand; empty means the
	// Transport uses ClientMetadataURL when the authorization server
	// accepts client ID metadata documents, and dynamic client
	// registration otherwise.
	ClientID string
	// ClientSecret authenticates ClientID at the token endpoint.
	ClientSecret string
	// PrivateKey, when set, authenticates ClientID with a signed JWT
	// (private_key_jwt, ES256 or RS256); see [ParsePrivateKey].
	PrivateKey crypto.Signer
	// ClientMetadataURL is the HTTPS URL of the client's metadata
	// document, used as its client id by servers that advertise
	// client_id_metadata_document_supported.
	ClientMetadataURL string
	// ClientName is the client_name sent with dynamic registration.
	ClientName string
	// RedirectURL is where the authorization server sends the user back
	// with the code; it is registered and sent with each authorization.
	RedirectURL string
	// Authorize shows the user the authorization URL and returns the URL
	// the authorization server redirected back to. Required for the
	// authorization-code grant; see [HeadlessAuthorize].
	Authorize AuthorizeFunc

	// Scopes, when not empty, are requested whenever the server's
	// challenge names none, instead of the resource's scopes_supported.
	Scopes []string
	// MaxAuthorizations bounds how many tokens one request may obtain
	// (a first authorization and step-ups); 0 means
	// DefaultMaxAuthorizations.
	MaxAuthorizations int

	// clock is the time source (tests replace it); nil means time.Now.
	clock func() time.Time

	// flow serialises authorizations.
	flow sync.Mutex
	// mu guards the fields below.
	mu  sync.Mutex
	tok *Token
	// requested is the scope the current token was requested with.
	requested []string
	// last is what was discovered for the current token; refreshing
	// uses it.
	last *discovery
	// clients holds the identity used with each authorization server,
	// by issuer.
	clients map[string]client
}

// AuthorizeFunc sends the user to authURL, an authorization request, and
// returns the redirect URL the authorization server answered with (the
// client's RedirectURL carrying code and state, or error).
type AuthorizeFunc func(ctx context.Context, authURL string) (redirectURL string, err error)

// HeadlessAuthorize returns an AuthorizeFunc for authorization servers
// that approve without user interaction (test servers, pre-approved
// clients): it fetches authURL with c (nil: http.DefaultClient's
// transport) without following the redirect and returns its Location.
func HeadlessAuthorize(c *http.Client) AuthorizeFunc {
	return func(ctx context.Context, authURL string) (string, error) {
		hc := http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		if c != nil {
			hc.Transport, hc.Jar, hc.Timeout = c.Transport, c.Jar, c.Timeout
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return "", fmt.Errorf("authorization request: %w", err)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return "", fmt.Errorf("authorization request: %w", err)
		}
		discard(resp)
		loc, err := resp.Location()
		if err != nil || resp.StatusCode < 300 || resp.StatusCode > 399 {
			return "", fmt.Errorf("authorization endpoint answered %s without a redirect", resp.Status)
		}
		return loc.String(), nil
	}
}

// Token returns the token the Transport holds, or nil.
func (t *Transport) Token() *Token {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok == nil {
		return nil
	}
	tok := *t.tok
	return &tok
}

// SetToken makes the Transport use tok (a token kept from an earlier run,
// say) until the server rejects it.
func (t *Transport) SetToken(tok *Token) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tok == nil {
		t.tok = nil
		return
	}
	c := *tok
	t.tok = &c
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

func (t *Transport) now() time.Time {
	if t.clock != nil {
		return t.clock()
	}
	return time.Now()
}
