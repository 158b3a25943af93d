package cli

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// selfCLIEnv makes the test binary run as the worldprobe command (see
// TestMain). The tests that need the command in a process of its own
// (signals, kill -9, several workers) start this binary again instead of
// building cmd/worldprobe, which cost a link of the whole program (over
// 100 MB) for each of them.
const selfCLIEnv = "WORLDPROBE_TEST_RUN_AS_CLI"

// TestMain runs the tests, or, with selfCLIEnv set, is the worldprobe
// command exactly as cmd/worldprobe's main is.
func TestMain(m *testing.M) {
	if os.Getenv(selfCLIEnv) == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// worldprobeCommand is 'worldprobe ARGS...' as a process of its own: this
// test binary, running as the command.
func worldprobeCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), selfCLIEnv+"=1")
	return cmd
}
