package browser

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Page is one tab in its own browser context (its own cookies, storage and
// renderer process). It holds one of the browser's job slots until Close.
type Page struct {
	ctx     context.Context
	cancel  context.CancelFunc
	release func()
	once    sync.Once
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
	// gets tctx itself; ctx may still cut the opening short.
	unhook := context.AfterFunc(ctx, cancel)
	err := chromedp.Do(tctx)
	unhook()
	if err == nil {
		err = denyDownloads(tctx, chromedp.FromContext(tctx).BrowserContextID)
	}
	if err != nil {
		cancel()
		release()
		return nil, fmt.Errorf("opening a browser tab: %w", err)
	}
	return &Page{ctx: tctx, cancel: cancel, release: release}, nil
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
