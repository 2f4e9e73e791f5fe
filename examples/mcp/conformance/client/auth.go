package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/oauth"
)

// cimdURL is the client ID metadata document URL the suite's
// authorization servers accept as a client id (the document need not
// resolve).
const cimdURL = "https://conformance-test.local/client-metadata.json"

// redirectURL is where the authorization servers send the code back; the
// program reads it from their redirect without anything listening there.
const redirectURL = "http://localhost:3000/callback"

// scenarioContext is the scenario data in MCP_CONFORMANCE_CONTEXT: the
// credentials of a pre-registered client and, for cross-app access, what
// the enterprise identity provider issued.
type scenarioContext struct {
	Name             string `json:"name"`
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	IDPClientID      string `json:"idp_client_id"`
	IDPIDToken       string `json:"idp_id_token"`
	IDPTokenEndpoint string `json:"idp_token_endpoint"`
}

// authorizer returns the RoundTripper for scenario name: base itself for
// scenarios without authorization, an oauth.Transport on base otherwise,
// configured from the scenario's context.
func authorizer(name, rawContext string, base *http.Transport) (http.RoundTripper, error) {
	if !strings.HasPrefix(name, "auth/") {
		return base, nil
	}
	tr := &oauth.Transport{
		Base:              base,
		ClientName:        "rpcgen-conformance-client",
		RedirectURL:       redirectURL,
		ClientMetadataURL: cimdURL,
		Authorize:         oauth.HeadlessAuthorize(&http.Client{Transport: base}),
	}
	var sc scenarioContext
	if rawContext != "" {
		if err := json.Unmarshal([]byte(rawContext), &sc); err != nil {
			return nil, fmt.Errorf("%s is not a JSON object: %w", envContext, err)
		}
		if sc.Name != name {
			return nil, fmt.Errorf("%s is for scenario %q, not %q", envContext, jsonrpc.Truncate(sc.Name), name)
		}
	}
	tr.ClientID, tr.ClientSecret = sc.ClientID, sc.ClientSecret
	switch name {
	case "auth/client-credentials-basic":
		tr.GrantType = oauth.GrantClientCredentials
	case "auth/client-credentials-jwt":
		tr.GrantType = oauth.GrantClientCredentials
		key, err := oauth.ParsePrivateKey([]byte(sc.PrivateKeyPEM))
		if err != nil {
			return nil, err
		}
		tr.PrivateKey = key
	case "auth/cross-app-access-complete-flow":
		tr.GrantType = oauth.GrantJWTBearer
		tr.Assertion = func(ctx context.Context, issuer, resource string) (string, error) {
			return exchangeIDToken(ctx, base, sc, issuer, resource)
		}
	}
	if tr.GrantType != "" && tr.ClientID == "" {
		return nil, fmt.Errorf("scenario %s needs client credentials in %s", name, envContext)
	}
	return tr, nil
}

// Token exchange (RFC 8693) values for an identity assertion
// authorization grant (SEP-990).
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
)

// exchangeIDToken trades the user's ID token at the enterprise identity
// provider for an identity assertion grant to the authorization server
// issuer for resource.
func exchangeIDToken(ctx context.Context, base http.RoundTripper, sc scenarioContext, issuer, resource string) (string, error) {
	if sc.IDPTokenEndpoint == "" || sc.IDPIDToken == "" {
		return "", errors.New("no identity provider token endpoint or ID token in the scenario context")
	}
	form := url.Values{
		"grant_type":           {grantTokenExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"audience":             {issuer},
		"resource":             {resource},
		"subject_token":        {sc.IDPIDToken},
		"subject_token_type":   {tokenTypeIDToken},
		"client_id":            {sc.IDPClientID},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sc.IDPTokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", fmt.Errorf("token exchange: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := base.RoundTrip(req)
	if err != nil {
		return "", fmt.Errorf("token exchange: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
		Error           string `json:"error"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&out); err != nil {
		return "", fmt.Errorf("token exchange: HTTP %d: decoding the answer: %w", resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK || out.AccessToken == "" {
		return "", fmt.Errorf("token exchange: HTTP %d: %s", resp.StatusCode, jsonrpc.Truncate(out.Error))
	}
	if out.IssuedTokenType != tokenTypeIDJAG {
		return "", fmt.Errorf("token exchange issued a %q, not an identity assertion grant", jsonrpc.Truncate(out.IssuedTokenType))
	}
	return out.AccessToken, nil
}
