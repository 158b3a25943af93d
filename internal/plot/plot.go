// Package plot draws the report's charts as inline SVG: groups of
// horizontal bars, a labelled scatter, and line series over time. Each
// chart has a <title>, text labels on its axes, and a text label on every
// bar and point, so it reads without colour; nothing is fetched and no
// script runs. Every chart is rendered through html/template, so labels
// (model names, state paths) are escaped wherever they come from.
package plot

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"strconv"
)

//go:embed plot.svg.tmpl
var svgTemplate string

var tmpl = template.Must(template.New("plot").Parse(svgTemplate))

// Palette is the colour of series i (cycled): distinguishable on white
// and in greyscale by their order only, which is why every bar and point
// also carries its label.
var Palette = []string{"#3f6fd1", "#d9822b", "#2e9e6a", "#b6406d", "#7a5cc7", "#8f7a1e", "#2b9bb3", "#5f6675"}

// Color is the palette colour of series i.
func Color(i int) string {
	if i < 0 {
		i = -i
	}
	return Palette[i%len(Palette)]
}

func render(name string, data any) template.HTML {
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, name, data); err != nil {
		// The templates are fixed and their data are plain values: an
		// error here is a bug in this package.
		panic(fmt.Sprintf("plot: rendering %s: %v", name, err))
	}
	return template.HTML(b.String()) //nolint:gosec // rendered by html/template
}

// f formats a coordinate: one decimal, enough for a screen.
func f(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// Ticks returns about n round values (1, 2 or 5 times a power of ten
// apart) covering [lo, hi], with the number of decimals that prints them
// exactly. A flat range is widened around its value.
func Ticks(lo, hi float64, n int) (ticks []float64, decimals int) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return []float64{0, 1}, 0
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi-lo < 1e-12 {
		pad := math.Max(math.Abs(lo)*0.1, 0.5)
		lo, hi = lo-pad, hi+pad
	}
	if n < 2 {
		n = 2
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	// The round step nearest the raw one, by ratio.
	step := mag
	for _, m := range []float64{2, 5, 10} {
		if math.Abs(math.Log(m*mag/raw)) < math.Abs(math.Log(step/raw)) {
			step = m * mag
		}
	}
	decimals = max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	start := math.Floor(lo/step+1e-9) * step
	for i := 0; ; i++ {
		v := start + float64(i)*step
		// Round away the float error of i*step so labels print exactly.
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'f', decimals, 64), 64)
		ticks = append(ticks, v)
		if v >= hi-1e-9*step {
			break
		}
	}
	return ticks, decimals
}

// span is a linear map from data values onto pixels.
type span struct {
	lo, hi   float64 // data
	from, to float64 // pixels
}

func (s span) at(v float64) float64 {
	if s.hi == s.lo {
		return (s.from + s.to) / 2
	}
	return s.from + (v-s.lo)/(s.hi-s.lo)*(s.to-s.from)
}

// tick is an axis label at a pixel position.
type tick struct {
	Pos, Text string
}

// axis is the ticks of [lo, hi] with their labels, fmt formatting a
// value (nil: the ticks' own decimals).
func axis(lo, hi float64, n int, format func(float64) string) (span, []float64, func(float64) string) {
	ts, dec := Ticks(lo, hi, n)
	if format == nil {
		format = func(v float64) string { return strconv.FormatFloat(v, 'f', dec, 64) }
	}
	return span{lo: ts[0], hi: ts[len(ts)-1]}, ts, format
}

// trimFloat prints v with up to digits significant digits, no exponent
// for everyday magnitudes.
func trimFloat(v float64, digits int) string {
	if v != 0 && (math.Abs(v) >= 1e9 || math.Abs(v) < 1e-4) {
		return strconv.FormatFloat(v, 'g', digits, 64)
	}
	s := strconv.FormatFloat(v, 'f', max(0, digits-1-int(math.Floor(math.Log10(math.Max(math.Abs(v), 1e-300))))), 64)
	if v == 0 {
		return "0"
	}
	if bytes.ContainsRune([]byte(s), '.') {
		s = string(bytes.TrimRight([]byte(s), "0"))
		s = string(bytes.TrimSuffix([]byte(s), []byte(".")))
	}
	return s
}
