package contract

import "context"

type probeKey struct{}

// ProbeOf names the probe an Opener is opening a page for (InterfaceProbe
// for the interface probe), from the context Run passes it; "" outside Run.
// A trial names each probe's video by it.
func ProbeOf(ctx context.Context) string {
	name, _ := ctx.Value(probeKey{}).(string)
	return name
}

// withProbe tells the Opener which probe the page is for.
func withProbe(ctx context.Context, probe string) context.Context {
	return context.WithValue(ctx, probeKey{}, probe)
}
