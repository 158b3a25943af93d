package browser

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// EnvBrowserUser names the environment variable that overrides the system
// user Chromium runs as when worldprobe itself runs as root.
const EnvBrowserUser = "WORLDPROBE_BROWSER_USER"

// DefaultBrowserUser is the unprivileged system user 'make setup' creates
// for the browser when it runs as root.
const DefaultBrowserUser = "worldprobe-browser"

// Sandbox says how the browser's processes are confined.
type Sandbox struct {
	// On is true when Chromium runs with its own sandbox: renderers, GPU and
	// utility processes in their own namespaces behind seccomp-bpf.
	On bool `json:"on"`
	// User is the account every Chromium process runs as.
	User string `json:"user"`
	// UID and GID are that account's ids.
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// switchUser is true when worldprobe starts Chromium as another user (as
// root, the browser user).
func (s Sandbox) switchUser() bool { return s.UID != os.Geteuid() }

// String describes the sandbox in one line, for reports.
func (s Sandbox) String() string {
	if !s.On {
		return fmt.Sprintf("OFF (--unsafe-no-sandbox): candidate pages ran without Chromium's sandbox, as %s (uid %d)", s.User, s.UID)
	}
	return fmt.Sprintf("Chromium's sandbox (namespaces, seccomp-bpf), as %s (uid %d)", s.User, s.UID)
}

// ErrNoBrowserUser is returned when worldprobe runs as root and the
// unprivileged user for the browser does not exist.
var ErrNoBrowserUser = errors.New("no unprivileged user for the browser")

// planSandbox decides whom Chromium runs as. As root, Chromium's sandbox
// cannot start, so the browser runs as an unprivileged system user
// (DefaultBrowserUser, or $WORLDPROBE_BROWSER_USER); as anyone else it runs
// as worldprobe's own user. With unsafe set, the sandbox is off, and the
// browser still drops root when the browser user exists.
func planSandbox(name string, unsafe bool) (Sandbox, error) {
	if name == "" {
		name = os.Getenv(EnvBrowserUser)
	}
	if name == "" {
		name = DefaultBrowserUser
	}
	if os.Geteuid() != 0 {
		s := Sandbox{On: !unsafe, UID: os.Geteuid(), GID: os.Getegid()}
		s.User = strconv.Itoa(s.UID)
		if u, err := user.LookupId(s.User); err == nil {
			s.User = u.Username
		}
		return s, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		if unsafe {
			return Sandbox{User: "root"}, nil // uid 0: no switch
		}
		return Sandbox{}, fmt.Errorf("%w: worldprobe runs as root and Chromium's sandbox cannot run as root, "+
			"so the browser runs as the system user %q, which does not exist (%v); "+
			"create it with 'make setup' (useradd --system %s), set $%s to another unprivileged user, "+
			"run worldprobe as a normal user, or pass --unsafe-no-sandbox (candidate pages then run unconfined, as root)",
			ErrNoBrowserUser, name, err, name, EnvBrowserUser)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return Sandbox{}, fmt.Errorf("browser user %q: ids %q/%q are not numbers", name, u.Uid, u.Gid)
	}
	if uid == 0 || gid == 0 {
		return Sandbox{}, fmt.Errorf("browser user %q is root (uid %d, gid %d): it must be an unprivileged user", name, uid, gid)
	}
	return Sandbox{On: !unsafe, User: u.Username, UID: uid, GID: gid}, nil
}

// profileBase is the folder the browser's profile is made in: the system's
// temporary folder, unless the browser runs as another user who could not
// reach it (a $TMPDIR under root's home), then /tmp.
func (s Sandbox) profileBase() string {
	base := os.TempDir()
	if !s.switchUser() || othersCanReach(base) {
		return base
	}
	return "/tmp"
}

// othersCanReach reports whether every folder from / down to dir lets
// other users through (its x bit for others is set).
func othersCanReach(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for d := abs; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

// handOver makes dir and everything in it belong to the browser's user, so
// a browser that runs as another user can write its profile there; other
// users (the browser included) have no access to anything else worldprobe
// writes.
func (s Sandbox) handOver(dir string) error {
	if !s.switchUser() {
		return nil
	}
	return filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(path, s.UID, s.GID); err != nil {
			return fmt.Errorf("handing %s to the browser user: %w", path, err)
		}
		return nil
	})
}

// explainStartFailure adds what to do when Chromium did not start because
// of its sandbox (chromedp's error carries the browser's own output).
func explainStartFailure(err error, s Sandbox) error {
	if !s.On {
		return err
	}
	low := strings.ToLower(err.Error())
	if !strings.Contains(low, "sandbox") && !strings.Contains(low, "namespace") {
		return err
	}
	return fmt.Errorf("%w\nChromium could not start its sandbox (as %s): it needs unprivileged user namespaces "+
		"(sysctl kernel.unprivileged_userns_clone=1 / user.max_user_namespaces > 0, or an AppArmor profile that allows them). "+
		"Fix the machine, or pass --unsafe-no-sandbox to run without it (candidate pages then run unconfined; every report says so)",
		err, s.User)
}
