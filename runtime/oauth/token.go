package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// Token is an access token and what came with it.
type Token struct {
	// AccessToken is sent as "Authorization: Bearer AccessToken".
	AccessToken string
	// RefreshToken, when not empty, obtains a new access token.
	RefreshToken string
	// Expiry is when AccessToken expires; zero: unknown.
	Expiry time.Time
	// Scope is the space-separated scope granted, as the server reported
	// it (empty: the server did not say).
	Scope string
}

// expired reports whether the token is known to have expired at now,
// counting a short margin for the time the request takes.
func (tok *Token) expired(now time.Time) bool {
	return !tok.Expiry.IsZero() && !now.Before(tok.Expiry.Add(-expiryMargin))
}

// expiryMargin is how long before its expiry a token counts as expired.
const expiryMargin = 10 * time.Second

// Error is an error answer of an authorization server (RFC 6749 section
// 5.2) or of its authorization endpoint (section 4.1.2.1).
type Error struct {
	// Status is the HTTP status of a token or registration endpoint
	// answer; 0 for an error returned through the redirect.
	Status int
	// Code is the "error" member, such as "invalid_grant".
	Code string
	// Description is the "error_description" member.
	Description string
}

// Error implements error.
func (e *Error) Error() string {
	s := jsonrpc.Truncate(e.Code)
	if e.Description != "" {
		s += ": " + jsonrpc.Truncate(e.Description)
	}
	if e.Status != 0 {
		s += fmt.Sprintf(" (status %d)", e.Status)
	}
	return s
}

// Token endpoint client authentication methods (RFC 7591 section 2,
// RFC 7523 for private_key_jwt).
const (
	authNone              = "none"
	authClientSecretBasic = "client_secret_basic"
	authClientSecretPost  = "client_secret_post"
	authPrivateKeyJWT     = "private_key_jwt"
)

// clientAssertionType is the client_assertion_type of private_key_jwt.
const clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// client is the identity a Transport presents to one authorization server.
type client struct {
	id     string
	secret string
	// method is the token endpoint authentication method.
	method string
}

// tokenRequest posts form to the token endpoint of d, authenticating as
// c, and returns the token it issues.
func (t *Transport) tokenRequest(ctx context.Context, d *discovery, c client, form url.Values) (*Token, error) {
	endpoint := d.server.TokenEndpoint
	var basicUser, basicPass string
	switch c.method {
	case authClientSecretBasic:
		basicUser, basicPass = url.QueryEscape(c.id), url.QueryEscape(c.secret)
	case authClientSecretPost:
		form.Set("client_id", c.id)
		form.Set("client_secret", c.secret)
	case authPrivateKeyJWT:
		aud := d.server.Issuer
		if aud == "" {
			aud = d.issuer
		}
		assertion, err := t.clientAssertion(c.id, aud)
		if err != nil {
			return nil, err
		}
		form.Set("client_id", c.id)
		form.Set("client_assertion_type", clientAssertionType)
		form.Set("client_assertion", assertion)
	default:
		form.Set("client_id", c.id)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("token endpoint %q: %w", jsonrpc.Truncate(endpoint), err)
	}
	if basicUser != "" {
		req.SetBasicAuth(basicUser, basicPass)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := t.base().RoundTrip(req)
	if err != nil {
		return nil, fmt.Errorf("token request to %s: %w", jsonrpc.Truncate(req.URL.Redacted()), err)
	}
	defer discard(resp)
	var tr struct {
		AccessToken      string      `json:"access_token"`
		TokenType        string      `json:"token_type"`
		ExpiresIn        json.Number `json:"expires_in"`
		RefreshToken     string      `json:"refresh_token"`
		Scope            string      `json:"scope"`
		Error            string      `json:"error"`
		ErrorDescription string      `json:"error_description"`
	}
	decodeErr := decodeBody(resp.Body, &tr)
	if resp.StatusCode != http.StatusOK || tr.Error != "" {
		if tr.Error == "" {
			tr.Error = "token request failed"
		}
		return nil, &Error{Status: resp.StatusCode, Code: tr.Error, Description: tr.ErrorDescription}
	}
	if decodeErr != nil {
		return nil, fmt.Errorf("token response from %s: %w", jsonrpc.Truncate(req.URL.Redacted()), decodeErr)
	}
	if tr.AccessToken == "" {
		return nil, fmt.Errorf("token response from %s has no access_token", jsonrpc.Truncate(req.URL.Redacted()))
	}
	if !strings.EqualFold(tr.TokenType, "bearer") {
		return nil, fmt.Errorf("token response from %s has token_type %q, not Bearer", jsonrpc.Truncate(req.URL.Redacted()), jsonrpc.Truncate(tr.TokenType))
	}
	tok := &Token{AccessToken: tr.AccessToken, RefreshToken: tr.RefreshToken, Scope: tr.Scope}
	if tr.ExpiresIn != "" {
		secs, err := tr.ExpiresIn.Int64()
		if err != nil || secs < 0 {
			return nil, fmt.Errorf("token response from %s has expires_in %q", jsonrpc.Truncate(req.URL.Redacted()), jsonrpc.Truncate(tr.ExpiresIn.String()))
		}
		if secs > 0 {
			tok.Expiry = t.now().Add(time.Duration(min(secs, int64(100*365*24*3600))) * time.Second)
		}
	}
	return tok, nil
}

// register obtains a client identity by dynamic client registration
// (RFC 7591) at d's registration endpoint.
func (t *Transport) register(ctx context.Context, d *discovery) (client, error) {
	endpoint := d.server.RegistrationEndpoint
	if endpoint == "" {
		return client{}, errors.New("no client id configured and the authorization server offers neither dynamic client registration nor client ID metadata documents")
	}
	method := ""
	for _, m := range []string{authNone, authClientSecretBasic, authClientSecretPost} {
		if supports(d.server.TokenEndpointAuthMethodsSupported, m, authClientSecretBasic) {
			method = m
			break
		}
	}
	name := t.ClientName
	if name == "" {
		name = "rpcgen oauth client"
	}
	meta := map[string]any{
		"client_name":    name,
		"redirect_uris":  []string{t.RedirectURL},
		"grant_types":    []string{"authorization_code", "refresh_token"},
		"response_types": []string{"code"},
	}
	if method != "" {
		meta["token_endpoint_auth_method"] = method
	}
	data, err := json.Marshal(meta)
	if err != nil {
		return client{}, fmt.Errorf("encoding client metadata: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(string(data)))
	if err != nil {
		return client{}, fmt.Errorf("registration endpoint %q: %w", jsonrpc.Truncate(endpoint), err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := t.base().RoundTrip(req)
	if err != nil {
		return client{}, fmt.Errorf("registering at %s: %w", jsonrpc.Truncate(req.URL.Redacted()), err)
	}
	defer discard(resp)
	var rr struct {
		ClientID                string `json:"client_id"`
		ClientSecret            string `json:"client_secret"`
		TokenEndpointAuthMethod string `json:"token_endpoint_auth_method"`
		Error                   string `json:"error"`
		ErrorDescription        string `json:"error_description"`
	}
	decodeErr := decodeBody(resp.Body, &rr)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		if rr.Error == "" {
			rr.Error = "registration failed"
		}
		return client{}, &Error{Status: resp.StatusCode, Code: rr.Error, Description: rr.ErrorDescription}
	}
	if decodeErr != nil {
		return client{}, fmt.Errorf("registration response from %s: %w", jsonrpc.Truncate(req.URL.Redacted()), decodeErr)
	}
	if rr.ClientID == "" {
		return client{}, fmt.Errorf("registration response from %s has no client_id", jsonrpc.Truncate(req.URL.Redacted()))
	}
	c := client{id: rr.ClientID, secret: rr.ClientSecret, method: rr.TokenEndpointAuthMethod}
	if c.method == "" {
		c.method = chooseMethod(d, c.secret != "", false)
	}
	return c, nil
}

// chooseMethod picks how a client authenticates at d's token endpoint:
// with a private key when it has one, with its secret as d supports
// (Basic preferred), otherwise as a public client.
func chooseMethod(d *discovery, hasSecret, hasKey bool) string {
	list := d.server.TokenEndpointAuthMethodsSupported
	switch {
	case hasKey:
		return authPrivateKeyJWT
	case hasSecret && supports(list, authClientSecretBasic, authClientSecretBasic):
		return authClientSecretBasic
	case hasSecret && supports(list, authClientSecretPost, authClientSecretBasic):
		return authClientSecretPost
	case hasSecret:
		return authClientSecretBasic
	}
	return authNone
}

// base64URL encodes without padding, as PKCE and JWTs do.
var base64URL = base64.RawURLEncoding
