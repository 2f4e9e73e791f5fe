package transport

import (
	"context"
	"fmt"
	"net"
	"time"
)

// Dial defaults.
const (
	// dialTimeout bounds connecting when ctx has no earlier deadline.
	dialTimeout = 30 * time.Second
	// keepAlive is the TCP keep-alive idle time and probe interval.
	keepAlive = 15 * time.Second
)

// Dial connects to address on network, which must be "tcp", "tcp4",
// "tcp6" or "unix". TCP connections use keep-alive probes (every 15s
// after 15s of silence), so a peer that vanished without closing is
// noticed; connecting gives up after 30s or when ctx ends, whichever
// comes first. Errors name the network and address.
func Dial(ctx context.Context, network, address string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6", "unix":
	default:
		return nil, fmt.Errorf("transport: dial %s %s: unsupported network (want tcp, tcp4, tcp6 or unix)", network, address)
	}
	d := net.Dialer{
		Timeout: dialTimeout,
		KeepAliveConfig: net.KeepAliveConfig{
			Enable:   true,
			Idle:     keepAlive,
			Interval: keepAlive,
			Count:    4,
		},
	}
	c, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, wrapf(err, "dial %s %s", network, address)
	}
	return c, nil
}
