package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// server is a running server child. It runs as a process of its own so
// that its memory is measured alone, without the load generator's.
type server struct {
	cmd       *exec.Cmd
	stdin     io.Closer
	addr      string // JSON-RPC, host:port
	statsAddr string // /stats and /debug/pprof/heap
}

// startServer runs this binary as the server child with implementation
// impl (memProfileRate > 0 sets the child's runtime.MemProfileRate; a
// memLimit other than "" is the child's GOMEMLIMIT).
func startServer(impl string, memProfileRate int, memLimit string) (*server, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this executable: %w", err)
	}
	cmd := exec.Command(self, "-impl", impl, "-memprofilerate", strconv.Itoa(memProfileRate))
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	if memLimit != "" {
		cmd.Env = append(cmd.Env, "GOMEMLIMIT="+memLimit)
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("server stdin: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("server stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the %s server: %w", impl, err)
	}
	s := &server{cmd: cmd, stdin: stdin}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 3 || f[0] != "listening" {
		s.stop()
		return nil, fmt.Errorf("the %s server did not start: %q: %v", impl, line, err)
	}
	s.addr, s.statsAddr = f[1], f[2]
	return s, nil
}

// stop ends the child and waits for it.
func (s *server) stop() {
	s.stdin.Close()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }() // it was told to stop
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill() // best effort
		<-done
	}
}

// stats fetches the child's runtime statistics, after a GC when gc is set.
func (s *server) stats(gc bool) (stats, error) {
	url := "http://" + s.statsAddr + "/stats"
	if !gc {
		url += "?gc=0"
	}
	var st stats
	resp, err := http.Get(url)
	if err != nil {
		return st, fmt.Errorf("server stats: %w", err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return st, fmt.Errorf("server stats: %w", err)
	}
	return st, nil
}

// profile fetches one of the child's profiles ("heap" after a GC, or
// "goroutine") in its text form.
func (s *server) profile(name string) ([]byte, error) {
	resp, err := http.Get("http://" + s.statsAddr + "/debug/pprof/" + name + "?debug=1&gc=1")
	if err != nil {
		return nil, fmt.Errorf("%s profile: %w", name, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s profile: %w", name, err)
	}
	return b, nil
}

// rss returns the child's resident set size in bytes, read from /proc.
func (s *server) rss() (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("server RSS: %w", err)
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("server RSS %q: %w", v, err)
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("server RSS: no VmRSS in /proc/%d/status", s.cmd.Process.Pid)
}

// waitConns polls the child until it counts n established connections,
// or fails after timeout.
func (s *server) waitConns(n int64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		st, err := s.stats(false)
		if err != nil {
			return err
		}
		if st.Conns == n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server counts %d connections, want %d", st.Conns, n)
		}
		time.Sleep(10 * time.Millisecond) // polling another process: no event to wait on
	}
}

// fetch gets path from the child's stats server.
func (s *server) fetch(path string) ([]byte, error) {
	resp, err := http.Get("http://" + s.statsAddr + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("status %s", resp.Status)
	}
	return b, err
}

// cpuProfile records the child's CPU profile for d and returns it
// (gzipped protocol buffer, for go tool pprof).
func (s *server) cpuProfile(d time.Duration) ([]byte, error) {
	url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", s.statsAddr, max(int(d.Seconds()), 1))
	resp, err := http.Get(url)
	if err != nil {
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("CPU profile: status %s: %w", resp.Status, err)
	}
	return b, nil
}
