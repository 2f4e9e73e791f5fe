package streamhttp

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// checkOrigin protects servers on loopback addresses from DNS rebinding:
// on such an address the Host must be a loopback name (or listed in
// AllowedHosts) and an Origin a loopback origin (or listed in
// AllowedOrigins). Elsewhere an Origin must be listed when AllowedOrigins
// is not empty. It returns 403 and why, or 0.
func (h *Handler) checkOrigin(r *http.Request) (int, string) {
	var local bool
	switch addr := r.Context().Value(http.LocalAddrContextKey).(type) {
	case *net.TCPAddr:
		local = addr.IP.IsLoopback() // as isLoopback(addr.String()), without formatting it
	case net.Addr:
		local = isLoopback(addr.String())
	}
	if local && !isLoopback(r.Host) && !slices.Contains(h.opts.AllowedHosts, r.Host) {
		return http.StatusForbidden, "Host " + jsonrpc.Truncate(r.Host) + " is not allowed"
	}
	origin := r.Header.Get("Origin")
	if origin == "" || slices.Contains(h.opts.AllowedOrigins, origin) {
		return 0, ""
	}
	if local {
		if u, err := url.Parse(origin); err == nil && (u.Scheme == "http" || u.Scheme == "https") && isLoopback(u.Host) {
			return 0, ""
		}
	} else if len(h.opts.AllowedOrigins) == 0 {
		return 0, ""
	}
	return http.StatusForbidden, "Origin " + jsonrpc.Truncate(origin) + " is not allowed"
}

// isLoopback reports whether hostport (a host with or without a port)
// names this machine: localhost or a loopback IP address.
func isLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
