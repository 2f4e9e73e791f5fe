//go:build !linux

package mcpts_test

import "syscall"

// deathSignal is nil where there is no Pdeathsig: a server that ignores
// stdin EOF may then outlive the proxy.
func deathSignal() *syscall.SysProcAttr { return nil }
