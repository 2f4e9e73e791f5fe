package mcpts_test

import "syscall"

// deathSignal makes the proxied server die with the proxy.
func deathSignal() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
