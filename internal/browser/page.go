package browser

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Page is one tab in its own browser context (its own cookies, storage and
// renderer process). It holds one of the browser's job slots until Close.
type Page struct {
	ctx     context.Context
	cancel  context.CancelFunc
	release func()
	once    sync.Once
	browser *Browser
	opened  time.Time

	mu          sync.Mutex // guards the crash report and onDownload
	crashStatus string     // Target.targetCrashed status: "killed", "crashed", …
	crashCode   int
	crashSeen   chan struct{}
	onDownload  func(frame cdp.FrameID, url, name string)
}

// OnDownload sets fn to be told of every download a frame tried (all are
// denied). Downloads are reported for the whole browser, so fn gets those
// of other pages' frames too: it must keep only its page's frames.
func (p *Page) OnDownload(fn func(frame cdp.FrameID, url, name string)) {
	p.mu.Lock()
	p.onDownload = fn
	p.mu.Unlock()
}

// NewPage waits for a free job slot, then opens a tab in a fresh browser
// context. listener receives every CDP event of the tab from its very first
// one; it must return quickly and must not call CDP itself.
func (b *Browser) NewPage(ctx context.Context, listener func(ev any)) (*Page, error) {
	select {
	case b.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for a free browser slot: %w", ctx.Err())
	}
	release := func() { <-b.slots }
	opts := []chromedp.ContextOption{chromedp.WithNewBrowserContext()}
	if listener != nil {
		opts = append(opts, chromedp.WithListener(listener))
	}
	tctx, cancel := chromedp.NewContext(b.ctx, opts...)
	// The tab lives as long as the context of its first run, so that run
	// gets tctx itself; ctx may still cut the opening short, and so may
	// the browser's not answering (a stuck browser would otherwise keep
	// the trial waiting for ever).
	limit := cmp.Or(b.opts.TabOpenTimeout, DefaultTabOpenTimeout)
	openCtx, stopOpen := context.WithTimeoutCause(ctx, limit, fmt.Errorf("%w within %s", ErrBrowserStuck, limit))
	defer stopOpen()
	unhook := context.AfterFunc(openCtx, cancel)
	err := chromedp.Do(tctx)
	if err == nil {
		err = denyDownloads(tctx, chromedp.FromContext(tctx).BrowserContextID)
	}
	if !unhook() && err == nil {
		err = context.Cause(openCtx) // cut short just as it opened
	}
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(openCtx), ErrBrowserStuck) {
		err = fmt.Errorf("%w (%v)", context.Cause(openCtx), err)
	}
	if err != nil {
		cancel()
		release()
		return nil, fmt.Errorf("opening a browser tab: %w", err)
	}
	p := &Page{ctx: tctx, cancel: cancel, release: release, browser: b, opened: time.Now(), crashSeen: make(chan struct{})}
	id := chromedp.FromContext(tctx).Target.TargetID
	var seen sync.Once
	chromedp.ListenBrowser(tctx, func(ev any) {
		if d, ok := ev.(*cdpbrowser.EventDownloadWillBegin); ok {
			p.mu.Lock()
			fn := p.onDownload
			p.mu.Unlock()
			if fn != nil {
				fn(d.FrameID, d.URL, d.SuggestedFilename)
			}
			return
		}
		if c, ok := ev.(*target.EventTargetCrashed); ok && c.TargetID == id {
			p.mu.Lock()
			p.crashStatus, p.crashCode = c.Status, int(c.ErrorCode)
			p.mu.Unlock()
			seen.Do(func() { close(p.crashSeen) })
		}
	})
	return p, nil
}

// CrashCause says why the page's renderer ended, once the page has
// crashed: kill is set when the memory watchdog ended it (the page used
// more than its share), else status is Chromium's termination status
// ("crashed" with a signal: a V8 out-of-memory abort or a bug;
// "killed": ended from outside). It waits up to wait for Chromium's
// report.
func (p *Page) CrashCause(wait time.Duration) (kill *MemoryKill, status string) {
	select {
	case <-p.crashSeen:
	case <-time.After(wait):
	}
	p.mu.Lock()
	status = p.crashStatus
	if p.crashCode != 0 {
		status = fmt.Sprintf("%s (code %d)", p.crashStatus, p.crashCode)
	}
	killed := p.crashStatus == "killed"
	p.mu.Unlock()
	if killed {
		if k, ok := p.browser.memory.killedSince(p.opened); ok {
			return &k, status
		}
	}
	return nil, status
}

// BlobBudget is how many bytes of live Blobs the page may hold (0: no
// budget); see Browser.BlobBudget.
func (p *Page) BlobBudget() int64 {
	if p.browser == nil {
		return 0
	}
	return p.browser.BlobBudget()
}

// Context returns the chromedp context of the tab. Derive per-call deadlines
// from it with context.WithTimeout; do not cancel it directly.
func (p *Page) Context() context.Context { return p.ctx }

// Interrupt stops whatever JavaScript the page is running now (an endless
// loop included). It is safe to call while another call waits on the page.
func (p *Page) Interrupt() error {
	ctx, cancel := context.WithTimeout(p.ctx, 2*time.Second)
	defer cancel()
	_, err := chromedp.Call(ctx, runtime.TerminateExecution, cdp.Empty{})
	return err
}

// Close closes the tab and disposes its browser context, which ends its
// renderer process, even when the page is hung. It frees the job slot.
func (p *Page) Close() {
	p.once.Do(func() {
		p.cancel()
		p.release()
	})
}
