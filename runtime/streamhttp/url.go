package streamhttp

import (
	"net"
	"net/url"
	"strconv"
)

// LocalURL returns the http URL at which a client on this machine reaches
// path on a listener bound to addr. A listener bound to every address
// (":8080", "0.0.0.0:8080", "[::]:8080") is reached through loopback,
// since the unspecified address is not one a client can dial.
func LocalURL(addr net.Addr, path string) string {
	host := addr.String()
	if tcp, ok := addr.(*net.TCPAddr); ok {
		ip := tcp.IP
		if ip == nil || ip.IsUnspecified() {
			ip = net.IPv4(127, 0, 0, 1)
			if tcp.IP != nil && tcp.IP.To4() == nil {
				ip = net.IPv6loopback
			}
		}
		host = net.JoinHostPort(ip.String(), strconv.Itoa(tcp.Port))
	}
	return (&url.URL{Scheme: "http", Host: host, Path: path}).String()
}
