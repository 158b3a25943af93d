package session

import (
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/runtime"
)

// Limits on how much of a chatty page is kept.
const (
	maxConsole = 500
	maxErrors  = 200
	maxURLs    = 2000
)

// MaxErrors is how many uncaught exceptions a session keeps; past it
// they are not recorded.
const MaxErrors = maxErrors

// ConsoleMessage is one call of the console API.
type ConsoleMessage struct {
	Level string `json:"level"`
	Text  string `json:"text"`
	Frame int    `json:"frame"`
}

// PageError is an uncaught exception or unhandled rejection.
type PageError struct {
	Message string `json:"message"`
	URL     string `json:"url,omitempty"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Frame   int    `json:"frame"`
}

// Dialog is a dialog the page opened; worldprobe dismissed it.
type Dialog struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Substitution records a library request served from another version or file.
type Substitution struct {
	URL      string `json:"url"`
	ServedAs string `json:"served_as"`
}

// Blocked records a request or action that worldprobe refused.
type Blocked struct {
	URL    string `json:"url"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// Requests summarises the page's network activity.
type Requests struct {
	Served      []string       `json:"served"`
	Substituted []Substitution `json:"substituted"`
	Blocked     []Blocked      `json:"blocked"`
}

// Log is everything a session recorded about a page.
type Log struct {
	Console        []ConsoleMessage `json:"console"`
	ConsoleDropped int              `json:"console_dropped,omitempty"`
	Errors         []PageError      `json:"errors"`
	Dialogs        []Dialog         `json:"dialogs"`
	Requests       Requests         `json:"requests"`
	ThreeRequested []string         `json:"-"`
	NavigatedAway  string           `json:"-"`
	Crashed        bool             `json:"-"`
	MainDocStatus  int64            `json:"-"`
	MainDocFailure string           `json:"-"`
}

// recorder collects events from CDP callbacks and request handlers.
type recorder struct {
	mu    sync.Mutex
	log   Log
	frame func() int
	// libs are the current document's library loads (the log keeps every
	// document's).
	libs []LibraryLoad
}

// newDocument forgets the library loads of the document before.
func (r *recorder) newDocument() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.libs = nil
}

func (r *recorder) libraryLoad(l LibraryLoad) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.libs) < maxURLs {
		r.libs = append(r.libs, l)
	}
}

func (r *recorder) libraryLoads() []LibraryLoad {
	r.mu.Lock()
	defer r.mu.Unlock()
	return clone(r.libs)
}

func newRecorder(frame func() int) *recorder {
	return &recorder{frame: frame, log: Log{
		Console: []ConsoleMessage{}, Errors: []PageError{}, Dialogs: []Dialog{},
		Requests: Requests{Served: []string{}, Substituted: []Substitution{}, Blocked: []Blocked{}},
	}}
}

func (r *recorder) snapshot() Log {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.log
	l.Console = clone(l.Console)
	l.Errors = clone(l.Errors)
	l.Dialogs = clone(l.Dialogs)
	l.Requests.Served = clone(l.Requests.Served)
	l.Requests.Substituted = clone(l.Requests.Substituted)
	l.Requests.Blocked = clone(l.Requests.Blocked)
	l.ThreeRequested = clone(l.ThreeRequested)
	return l
}

// clone copies a slice; never nil, so JSON shows [] rather than null.
func clone[T any](s []T) []T { return append(make([]T, 0, len(s)), s...) }

func (r *recorder) with(f func(l *Log)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.log)
}

func (r *recorder) console(ev *runtime.EventConsoleAPICalled) {
	parts := make([]string, 0, len(ev.Args))
	for _, a := range ev.Args {
		parts = append(parts, remoteText(a))
	}
	msg := ConsoleMessage{Level: string(ev.Type), Text: truncate(strings.Join(parts, " "), 2000), Frame: r.frame()}
	r.with(func(l *Log) {
		if len(l.Console) >= maxConsole {
			l.ConsoleDropped++
			return
		}
		l.Console = append(l.Console, msg)
	})
}

func (r *recorder) exception(d *runtime.ExceptionDetails) {
	if d == nil {
		return
	}
	msg := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		desc := d.Exception.Description
		if i := strings.IndexByte(desc, '\n'); i > 0 {
			desc = desc[:i]
		}
		if strings.HasPrefix(msg, "Uncaught") && !strings.Contains(msg, desc) {
			msg = msg + " " + desc
		} else if msg == "" {
			msg = desc
		}
	} else if d.Exception != nil && len(d.Exception.Value) > 0 {
		msg = strings.TrimSpace(msg + " " + string(d.Exception.Value))
	}
	line, col, url := d.LineNumber, d.ColumnNumber, d.URL
	if d.StackTrace != nil && len(d.StackTrace.CallFrames) > 0 {
		top := d.StackTrace.CallFrames[0]
		line, col, url = top.LineNumber, top.ColumnNumber, top.URL
	}
	e := PageError{Message: truncate(msg, 2000), URL: url, Line: int(line) + 1, Column: int(col) + 1, Frame: r.frame()}
	r.with(func(l *Log) {
		if len(l.Errors) < maxErrors {
			l.Errors = append(l.Errors, e)
		}
	})
}

func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if o.Type == runtime.RemoteObjectTypeString && len(o.Value) > 0 {
		var s string
		if err := unmarshalJSON(o.Value, &s); err == nil {
			return s
		}
	}
	if len(o.Value) > 0 {
		return string(o.Value)
	}
	if o.UnserializableValue != "" {
		return string(o.UnserializableValue)
	}
	if o.Description != "" {
		return o.Description
	}
	return fmt.Sprintf("[%s]", o.Type)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
