package llm

import (
	_ "embed"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed pricing.yaml
var pricingYAML []byte

// Price is a model's price in US dollars per 1M tokens.
type Price struct {
	// Input is the price of uncached prompt tokens.
	Input float64 `yaml:"input" json:"input" jsonschema:"minimum=0" jsonschema_description:"USD per 1M uncached input tokens."`
	// Output is the price of completion tokens.
	Output float64 `yaml:"output" json:"output" jsonschema:"minimum=0" jsonschema_description:"USD per 1M output tokens."`
	// CachedInput is the price of prompt-cache reads; 0 means Input.
	CachedInput float64 `yaml:"cached_input,omitempty" json:"cached_input,omitempty" jsonschema:"minimum=0" jsonschema_description:"USD per 1M input tokens read from the prompt cache; defaults to input."`
	// CacheWrite is the price of prompt-cache writes; 0 means Input.
	CacheWrite float64 `yaml:"cache_write,omitempty" json:"cache_write,omitempty" jsonschema:"minimum=0" jsonschema_description:"USD per 1M input tokens written to the prompt cache; defaults to input."`
}

// Cost returns the price of u in US dollars.
func (p Price) Cost(u Usage) float64 {
	cached, write := p.CachedInput, p.CacheWrite
	if cached == 0 {
		cached = p.Input
	}
	if write == 0 {
		write = p.Input
	}
	plain := max(u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens, 0)
	perM := float64(plain)*p.Input + float64(u.CachedInputTokens)*cached +
		float64(u.CacheWriteTokens)*write + float64(u.OutputTokens)*p.Output
	return perM / 1e6
}

// PriceTable maps model names to prices.
type PriceTable map[string]Price

var defaultPricing = sync.OnceValues(func() (PriceTable, error) {
	var file struct {
		Models PriceTable `yaml:"models"`
	}
	if err := yaml.Unmarshal(pricingYAML, &file); err != nil {
		return nil, fmt.Errorf("llm: built-in pricing table: %w", err)
	}
	return file.Models, nil
})

// DefaultPricing returns a copy of the built-in pricing table.
func DefaultPricing() PriceTable {
	t, err := defaultPricing()
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return maps.Clone(t)
}

var dateSuffix = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2})$`)

// Lookup finds the price of model: exact name first, then the name after
// the last "/", then either without a date suffix.
func (t PriceTable) Lookup(model string) (Price, bool) {
	base := model[strings.LastIndex(model, "/")+1:]
	for _, name := range []string{model, base, dateSuffix.ReplaceAllString(model, ""), dateSuffix.ReplaceAllString(base, "")} {
		if p, ok := t[name]; ok {
			return p, true
		}
	}
	return Price{}, false
}

// withOverrides returns t extended and overridden by extra.
func (t PriceTable) withOverrides(extra map[string]Price) PriceTable {
	out := maps.Clone(t)
	if out == nil {
		out = PriceTable{}
	}
	maps.Copy(out, extra)
	return out
}
