package mcpconformance_test

import "syscall"

// deathSignal makes a program started by a test die with the test binary.
func deathSignal() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
