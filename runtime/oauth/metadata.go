package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// resourceMetadata is an OAuth 2.0 protected resource metadata document
// (RFC 9728), the fields a client uses.
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	ScopesSupported      []string `json:"scopes_supported,omitempty"`
}

// serverMetadata is an OAuth 2.0 authorization server metadata document
// (RFC 8414; OpenID Connect Discovery documents carry the same fields), the
// fields a client uses.
type serverMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported            []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported               []string `json:"grant_types_supported,omitempty"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported,omitempty"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported,omitempty"`
}

// maxDocument bounds the metadata, registration and token documents read
// from a server.
const maxDocument = 1 << 20

// discovery is what a client learned about a protected resource.
type discovery struct {
	// resource is the protected resource's metadata; nil when the
	// server publishes none (the 2025-03-26 revision).
	resource *resourceMetadata
	// issuer is the authorization server's URL.
	issuer string
	// server is the authorization server's metadata; when it publishes
	// none, endpoints at the conventional paths of its origin.
	server serverMetadata
	// published reports whether server came from a metadata document.
	published bool
}

// discover finds the protected resource metadata for target (from
// challenge's resource_metadata when present, otherwise at the well-known
// locations of RFC 9728, path-aware first) and the metadata of its
// authorization server.
func (t *Transport) discover(ctx context.Context, target *url.URL, ch Challenge) (*discovery, error) {
	d := &discovery{}
	var candidates []string
	if u := ch.Params[paramResourceMetadata]; u != "" {
		candidates = []string{u}
	} else {
		candidates = resourceMetadataURLs(target)
	}
	for _, u := range candidates {
		var rm resourceMetadata
		found, err := t.getJSON(ctx, u, &rm)
		if err != nil {
			return nil, fmt.Errorf("protected resource metadata: %w", err)
		}
		if found {
			if err := checkResource(rm.Resource, target); err != nil {
				return nil, err
			}
			d.resource = &rm
			break
		}
	}
	if d.resource != nil && len(d.resource.AuthorizationServers) > 0 {
		d.issuer = d.resource.AuthorizationServers[0]
	} else {
		// 2025-03-26: the authorization base URL is the server's origin.
		d.issuer = (&url.URL{Scheme: target.Scheme, Host: target.Host}).String()
	}
	issuer, err := url.Parse(d.issuer)
	if err != nil || (issuer.Scheme != "https" && issuer.Scheme != "http") || issuer.Host == "" {
		return nil, fmt.Errorf("authorization server %q is not an absolute http(s) URL", jsonrpc.Truncate(d.issuer))
	}
	for _, u := range serverMetadataURLs(issuer) {
		found, err := t.getJSON(ctx, u, &d.server)
		if err != nil {
			return nil, fmt.Errorf("authorization server metadata: %w", err)
		}
		if found {
			// RFC 8414 section 3.3: the document must be the issuer's
			// own. Without resource metadata (2025-03-26) the server's
			// origin stands in for an issuer it never named: no check.
			if d.resource != nil && strings.TrimSuffix(d.server.Issuer, "/") != strings.TrimSuffix(d.issuer, "/") {
				return nil, fmt.Errorf("authorization server metadata at %s is for issuer %q, not %q",
					jsonrpc.Truncate(u), jsonrpc.Truncate(d.server.Issuer), jsonrpc.Truncate(d.issuer))
			}
			d.published = true
			break
		}
	}
	if !d.published {
		// 2025-03-26: no metadata, default endpoints at the origin.
		origin := &url.URL{Scheme: issuer.Scheme, Host: issuer.Host}
		d.server = serverMetadata{
			Issuer:                d.issuer,
			AuthorizationEndpoint: origin.JoinPath("authorize").String(),
			TokenEndpoint:         origin.JoinPath("token").String(),
			RegistrationEndpoint:  origin.JoinPath("register").String(),
		}
	}
	if d.server.TokenEndpoint == "" {
		return nil, errors.New("authorization server metadata has no token_endpoint")
	}
	return d, nil
}

// resourceMetadataURLs lists where RFC 9728 puts the metadata of target:
// the well-known prefix inserted before target's path, then at the root.
func resourceMetadataURLs(target *url.URL) []string {
	const wk = "/.well-known/oauth-protected-resource"
	base := url.URL{Scheme: target.Scheme, Host: target.Host}
	root := base
	root.Path = wk
	p := strings.TrimSuffix(target.EscapedPath(), "/")
	if p == "" {
		return []string{root.String()}
	}
	withPath := base
	withPath.Path = wk + target.Path
	withPath.RawPath = ""
	return []string{strings.TrimSuffix(withPath.String(), "/"), root.String()}
}

// serverMetadataURLs lists where an authorization server's metadata may be:
// RFC 8414's path insertion, then OpenID Connect Discovery with the path
// inserted and appended. An issuer without a path has the two root
// locations only.
func serverMetadataURLs(issuer *url.URL) []string {
	base := url.URL{Scheme: issuer.Scheme, Host: issuer.Host}
	p := strings.TrimSuffix(issuer.Path, "/")
	at := func(path string) string {
		u := base
		u.Path = path
		return u.String()
	}
	if p == "" {
		return []string{
			at("/.well-known/oauth-authorization-server"),
			at("/.well-known/openid-configuration"),
		}
	}
	return []string{
		at("/.well-known/oauth-authorization-server" + p),
		at("/.well-known/openid-configuration" + p),
		at(p + "/.well-known/openid-configuration"),
	}
}

// checkResource verifies that the resource a metadata document names is
// target or a parent of it on the same origin (RFC 9728 section 3.3).
func checkResource(resource string, target *url.URL) error {
	r, err := url.Parse(resource)
	if err != nil || resource == "" {
		return fmt.Errorf("protected resource metadata names resource %q, not a URL", jsonrpc.Truncate(resource))
	}
	if !strings.EqualFold(r.Scheme, target.Scheme) || !strings.EqualFold(r.Host, target.Host) ||
		!pathWithin(r.Path, target.Path) {
		return fmt.Errorf("protected resource metadata is for %q, not %s", jsonrpc.Truncate(resource), target.Redacted())
	}
	return nil
}

// pathWithin reports whether path parent is child or one of its ancestors.
func pathWithin(parent, child string) bool {
	parent = strings.TrimSuffix(parent, "/")
	child = strings.TrimSuffix(child, "/")
	return parent == "" || child == parent || strings.HasPrefix(child, parent+"/")
}

// getJSON fetches u and decodes its JSON body into v. A 4xx answer means
// "not here" (false, nil); any other failure is an error.
func (t *Transport) getJSON(ctx context.Context, u string, v any) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, fmt.Errorf("GET %q: %w", jsonrpc.Truncate(u), err)
	}
	req.Header.Set("Accept", "application/json")
	// Metadata may be redirected; the client follows (at most 10).
	resp, err := (&http.Client{Transport: t.base()}).Do(req)
	if err != nil {
		return false, fmt.Errorf("GET %s: %w", jsonrpc.Truncate(req.URL.Redacted()), err)
	}
	defer discard(resp)
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return false, nil
	default:
		return false, fmt.Errorf("GET %s: status %s", jsonrpc.Truncate(req.URL.Redacted()), resp.Status)
	}
	if err := decodeBody(resp.Body, v); err != nil {
		return false, fmt.Errorf("GET %s: %w", jsonrpc.Truncate(req.URL.Redacted()), err)
	}
	return true, nil
}

// decodeBody decodes one JSON document of at most maxDocument bytes.
func decodeBody(r io.Reader, v any) error {
	data, err := io.ReadAll(io.LimitReader(r, maxDocument+1))
	if err != nil {
		return fmt.Errorf("reading body: %w", err)
	}
	if len(data) > maxDocument {
		return fmt.Errorf("body exceeds %d bytes", maxDocument)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decoding body: %w", err)
	}
	return nil
}

// discard drains (a bounded amount of) a response body and closes it, so
// that the connection can be reused.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDocument))
	_ = resp.Body.Close()
}

// supports reports whether list, a metadata "…_supported" member, includes
// v; an absent list supports only the RFC 8414 default def.
func supports(list []string, v, def string) bool {
	if len(list) == 0 {
		return v == def
	}
	return slices.Contains(list, v)
}
