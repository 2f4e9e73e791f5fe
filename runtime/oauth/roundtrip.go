package oauth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// RoundTrip sends req with the Transport's access token. On a 401, or on a
// 403 whose challenge is insufficient_scope, it obtains a new token
// (refreshing, authorizing, or stepping up to the scopes the challenge
// names) and sends req again, at most MaxAuthorizations times. When it
// gives up it returns the server's last answer; an error means the
// authorization itself failed.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	body, getBody, err := replayable(req)
	if err != nil {
		return nil, err
	}
	tok := t.current(ctx)
	limit := t.MaxAuthorizations
	if limit <= 0 {
		limit = DefaultMaxAuthorizations
	}
	for attempt := 0; ; attempt++ {
		r := req.Clone(ctx)
		r.Body = body
		if attempt > 0 && getBody != nil {
			if r.Body, err = getBody(); err != nil {
				return nil, fmt.Errorf("oauth: replaying request body: %w", err)
			}
		}
		if tok != nil {
			r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		}
		resp, err := t.base().RoundTrip(r)
		if err != nil {
			return nil, err
		}
		ch, bearer := bearerChallenge(resp.Header)
		switch {
		case !bearer && len(resp.Header.Values("WWW-Authenticate")) > 0:
			return resp, nil // another scheme than OAuth's
		case resp.StatusCode == http.StatusUnauthorized:
		case resp.StatusCode == http.StatusForbidden && ch.Params[paramError] == errInsufficientScope:
		default:
			return resp, nil
		}
		if attempt >= limit {
			return resp, nil
		}
		next, err := t.reauthorize(ctx, req.URL, resp.StatusCode, ch, tok)
		if err != nil {
			discard(resp)
			return nil, err
		}
		if next == nil {
			return resp, nil
		}
		discard(resp)
		tok = next
	}
}

// replayable arranges for req's body to be sent more than once, without
// changing req: it returns the body for the first attempt and a function
// making it again, req.GetBody or, for a body without one, a copy read
// into memory.
func replayable(req *http.Request) (io.ReadCloser, func() (io.ReadCloser, error), error) {
	if req.Body == nil || req.Body == http.NoBody || req.GetBody != nil {
		return req.Body, req.GetBody, nil
	}
	data, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("oauth: reading request body: %w", err)
	}
	again := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	first, _ := again()
	return first, again, nil
}

// current returns the token to send, refreshing it first when it is known
// to have expired; nil when there is none.
func (t *Transport) current(ctx context.Context) *Token {
	t.mu.Lock()
	tok := t.tok
	t.mu.Unlock()
	if tok == nil || !tok.expired(t.now()) {
		return tok
	}
	t.flow.Lock()
	defer t.flow.Unlock()
	t.mu.Lock()
	cur := t.tok
	t.mu.Unlock()
	if cur != tok {
		return cur // another request refreshed it meanwhile
	}
	if next, err := t.refresh(ctx, tok); err == nil {
		return next
	}
	// Send it anyway: the server's 401 starts a new authorization.
	return tok
}

// reauthorize obtains the token to send after the server answered status
// with challenge ch to a request that carried used. It returns nil, nil
// when there is nothing left to try.
func (t *Transport) reauthorize(ctx context.Context, target *url.URL, status int, ch Challenge, used *Token) (*Token, error) {
	t.flow.Lock()
	defer t.flow.Unlock()
	t.mu.Lock()
	cur, requested := t.tok, t.requested
	t.mu.Unlock()
	if cur != nil && cur != used {
		return cur, nil // another request obtained a new token meanwhile
	}
	named := strings.Fields(ch.Params[paramScope])
	var scope []string
	if status == http.StatusForbidden {
		// Step up: ask for what the token had and what is missing,
		// unless that was asked for already and refused.
		if len(named) == 0 || containsAll(requested, named) {
			return nil, nil
		}
		scope = union(requested, named)
	} else {
		if used != nil && used.RefreshToken != "" {
			if next, err := t.refresh(ctx, used); err == nil {
				return next, nil
			}
		}
		scope = named
	}
	d, err := t.discover(ctx, target, ch)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	if len(scope) == 0 {
		switch {
		case len(t.Scopes) > 0:
			scope = t.Scopes
		case d.resource != nil:
			scope = d.resource.ScopesSupported
		}
	}
	tok, err := t.obtain(ctx, d, scope)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	t.mu.Lock()
	t.tok, t.requested, t.last = tok, slices.Clone(scope), d
	t.mu.Unlock()
	return tok, nil
}

// refresh exchanges used's refresh token for a new token at the server
// that issued it and keeps the result.
func (t *Transport) refresh(ctx context.Context, used *Token) (*Token, error) {
	t.mu.Lock()
	d := t.last
	t.mu.Unlock()
	if d == nil || used.RefreshToken == "" {
		return nil, errors.New("no refresh token")
	}
	c, err := t.identity(ctx, d)
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {used.RefreshToken}}
	if d.resource != nil {
		form.Set("resource", d.resource.Resource)
	}
	tok, err := t.tokenRequest(ctx, d, c, form)
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = used.RefreshToken
	}
	t.mu.Lock()
	t.tok = tok
	t.mu.Unlock()
	return tok, nil
}

// obtain runs the Transport's grant against the server d describes and
// returns the token it issues for scope.
func (t *Transport) obtain(ctx context.Context, d *discovery, scope []string) (*Token, error) {
	c, err := t.identity(ctx, d)
	if err != nil {
		return nil, err
	}
	form := url.Values{}
	if len(scope) > 0 {
		form.Set("scope", strings.Join(scope, " "))
	}
	if d.resource != nil {
		form.Set("resource", d.resource.Resource)
	}
	switch t.GrantType {
	case GrantClientCredentials:
		form.Set("grant_type", GrantClientCredentials)
		return t.tokenRequest(ctx, d, c, form)
	case GrantJWTBearer:
		if t.Assertion == nil {
			return nil, errors.New("the JWT bearer grant needs Transport.Assertion")
		}
		issuer := d.server.Issuer
		if issuer == "" {
			issuer = d.issuer
		}
		assertion, err := t.Assertion(ctx, issuer, form.Get("resource"))
		if err != nil {
			return nil, fmt.Errorf("obtaining the authorization grant: %w", err)
		}
		form.Set("grant_type", GrantJWTBearer)
		form.Set("assertion", assertion)
		return t.tokenRequest(ctx, d, c, form)
	case "", GrantAuthorizationCode:
	default:
		return nil, fmt.Errorf("unsupported grant type %q", t.GrantType)
	}
	if len(scope) > 0 && slices.Contains(d.server.ScopesSupported, scopeOfflineAccess) && !slices.Contains(scope, scopeOfflineAccess) {
		// The server issues refresh tokens for it: ask, so that the
		// session outlives the access token.
		form.Set("scope", form.Get("scope")+" "+scopeOfflineAccess)
	}
	code, verifier, err := t.authorizationCode(ctx, d, c, form)
	if err != nil {
		return nil, err
	}
	tf := url.Values{
		"grant_type":    {GrantAuthorizationCode},
		"code":          {code},
		"redirect_uri":  {t.RedirectURL},
		"code_verifier": {verifier},
	}
	if r := form.Get("resource"); r != "" {
		tf.Set("resource", r)
	}
	return t.tokenRequest(ctx, d, c, tf)
}

// authorizationCode sends the user through d's authorization endpoint
// with a PKCE challenge and returns the code and its verifier. params
// carries the scope and resource to request.
func (t *Transport) authorizationCode(ctx context.Context, d *discovery, c client, params url.Values) (code, verifier string, err error) {
	if t.Authorize == nil {
		return "", "", errors.New("the authorization-code grant needs Transport.Authorize")
	}
	if d.published && !slices.Contains(d.server.CodeChallengeMethodsSupported, "S256") {
		return "", "", errors.New("authorization server does not advertise PKCE with S256 (code_challenge_methods_supported)")
	}
	if d.server.AuthorizationEndpoint == "" {
		return "", "", errors.New("authorization server metadata has no authorization_endpoint")
	}
	u, err := url.Parse(d.server.AuthorizationEndpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return "", "", fmt.Errorf("authorization endpoint %q is not an http(s) URL", jsonrpc.Truncate(d.server.AuthorizationEndpoint))
	}
	if verifier, err = randomString(32); err != nil {
		return "", "", err
	}
	state, err := randomString(16)
	if err != nil {
		return "", "", err
	}
	sum := sha256.Sum256([]byte(verifier))
	q := u.Query()
	q.Set("response_type", "code")
	q.Set("client_id", c.id)
	q.Set("redirect_uri", t.RedirectURL)
	q.Set("code_challenge", base64URL.EncodeToString(sum[:]))
	q.Set("code_challenge_method", "S256")
	q.Set("state", state)
	for k, v := range params {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	back, err := t.Authorize(ctx, u.String())
	if err != nil {
		return "", "", fmt.Errorf("authorizing: %w", err)
	}
	ru, err := url.Parse(back)
	if err != nil {
		return "", "", fmt.Errorf("authorization redirect %q: %w", jsonrpc.Truncate(back), err)
	}
	rq := ru.Query()
	if rq.Get("state") != state {
		return "", "", errors.New("authorization redirect carries the wrong state")
	}
	if e := rq.Get("error"); e != "" {
		return "", "", &Error{Code: e, Description: rq.Get("error_description")}
	}
	if code = rq.Get("code"); code == "" {
		return "", "", errors.New("authorization redirect carries no code")
	}
	return code, verifier, nil
}

// identity returns the client identity to present to d's server: the
// configured client id, the client metadata document URL where the server
// accepts one, or a registration (made once per server).
func (t *Transport) identity(ctx context.Context, d *discovery) (client, error) {
	if t.ClientID != "" {
		return client{id: t.ClientID, secret: t.ClientSecret,
			method: chooseMethod(d, t.ClientSecret != "", t.PrivateKey != nil)}, nil
	}
	if t.GrantType == GrantClientCredentials || t.GrantType == GrantJWTBearer {
		return client{}, fmt.Errorf("the %s grant needs Transport.ClientID", t.GrantType)
	}
	if t.ClientMetadataURL != "" && d.server.ClientIDMetadataDocumentSupported {
		return client{id: t.ClientMetadataURL, method: authNone}, nil
	}
	t.mu.Lock()
	c, ok := t.clients[d.issuer]
	t.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := t.register(ctx, d)
	if err != nil {
		return client{}, err
	}
	t.mu.Lock()
	if t.clients == nil {
		t.clients = map[string]client{}
	}
	t.clients[d.issuer] = c
	t.mu.Unlock()
	return c, nil
}

// scopeOfflineAccess asks for a refresh token (OpenID Connect Core section
// 11); a Transport adds it where the authorization server lists it.
const scopeOfflineAccess = "offline_access"

// randomString returns n random bytes, base64url-encoded.
func randomString(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random bytes: %w", err)
	}
	return base64URL.EncodeToString(b), nil
}

// containsAll reports whether have includes every element of want.
func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// union returns a followed by the elements of b it lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
