package plot

import (
	"html/template"
	"math"
)

// Axis says how one axis of a scatter or a line chart is scaled and
// labelled.
type Axis struct {
	Label string
	// Fixed pins the range to [Min, Max]; otherwise it covers the data,
	// and 0 too when Zero.
	Fixed    bool
	Min, Max float64
	Zero     bool
	// Format prints a tick value; nil prints it with the ticks' decimals.
	Format func(float64) string
}

// scale is the axis's ticks and pixel map over data values vs.
func (a Axis) scale(vs []float64, from, to float64, n int) (span, []tick) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	switch {
	case a.Fixed:
		lo, hi = a.Min, a.Max
	case math.IsInf(lo, 1):
		lo, hi = 0, 1
	}
	if a.Zero && !a.Fixed {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	s, ts, format := axis(lo, hi, n, a.Format)
	if a.Fixed {
		s.lo, s.hi = a.Min, a.Max
	}
	s.from, s.to = from, to
	var out []tick
	for _, t := range ts {
		if t < s.lo-1e-12 || t > s.hi+1e-12 {
			continue
		}
		out = append(out, tick{Pos: f(s.at(t)), Text: format(t)})
	}
	return s, out
}

// Chart geometry of scatters and line charts, in pixels.
const (
	xyWidth  = 640
	xyHeight = 280
	xyLeft   = 64
	xyRight  = 150 // room for point labels and the legend
	xyTop    = 24
	xyBottom = 44
)

// frame is the plot area and its axes, shared by both charts.
type frame struct {
	Title             string
	Width, Height     int
	L, R, T, B        string
	XLabel, YLabel    string
	XLabelX, XLabelY  string
	YLabelX, YLabelY  string
	XTicks, YTicks    []tick
	XTickY, YTickX    string
	XTickMark         string
	LegendX           string
	xs, ys            span
	plotLeft, plotTop float64
}

func newFrame(title string, x, y Axis, xv, yv []float64) frame {
	l, r := float64(xyLeft), float64(xyWidth-xyRight)
	t, b := float64(xyTop), float64(xyHeight-xyBottom)
	xs, xt := x.scale(xv, l, r, 6)
	ys, yt := y.scale(yv, b, t, 5)
	return frame{
		Title: title, Width: xyWidth, Height: xyHeight,
		L: f(l), R: f(r), T: f(t), B: f(b),
		XLabel: x.Label, YLabel: y.Label,
		XLabelX: f((l + r) / 2), XLabelY: f(b + 36),
		YLabelX: f(14), YLabelY: f((t + b) / 2),
		XTicks: xt, YTicks: yt, XTickY: f(b + 16), YTickX: f(l - 6), XTickMark: f(b + 4),
		LegendX: f(r + 12),
		xs:      xs, ys: ys,
	}
}

// Point is one labelled point of a scatter.
type Point struct {
	Label  string
	X, Y   float64
	Series int
	// Title is the point's tooltip; its label and coordinates when empty.
	Title string
}

// Scatter is a chart of labelled points.
type Scatter struct {
	Title  string
	X, Y   Axis
	Points []Point
}

type scatterView struct {
	frame
	Points []pointView
}

type pointView struct {
	CX, CY, LX, LY string
	Anchor         string
	Label, Title   string
	Color          string
}

// labelBox is where a point's label is drawn, to keep labels apart.
type labelBox struct{ x0, x1, y0, y1 float64 }

func (a labelBox) overlaps(b labelBox) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// charWidth is about how wide a 12 px character is, to place labels.
const charWidth = 7.0

// placeLabel puts a label beside the point at (cx, cy): right of it, or
// left when it would leave the chart, and lower until it overlaps none of
// the labels placed before it.
func placeLabel(label string, cx, cy float64, placed []labelBox) (x, y float64, anchor string, box labelBox) {
	w := charWidth * float64(len([]rune(label)))
	x, anchor = cx+8, "start"
	box = labelBox{x0: x, x1: x + w}
	if box.x1 > xyWidth-2 {
		x, anchor = cx-8, "end"
		box = labelBox{x0: x - w, x1: x}
	}
	y = cy + 4
	for range 12 {
		box.y0, box.y1 = y-11, y+3
		clear := true
		for _, p := range placed {
			if box.overlaps(p) {
				clear = false
				break
			}
		}
		if clear {
			break
		}
		y += 14
	}
	return x, y, anchor, box
}

// SVG draws the scatter.
func (s Scatter) SVG() template.HTML {
	var xv, yv []float64
	for _, p := range s.Points {
		xv, yv = append(xv, p.X), append(yv, p.Y)
	}
	v := scatterView{frame: newFrame(s.Title, s.X, s.Y, xv, yv)}
	var placed []labelBox
	for _, p := range s.Points {
		cx, cy := v.xs.at(p.X), v.ys.at(p.Y)
		title := p.Title
		if title == "" {
			title = p.Label
		}
		lx, ly, anchor, box := placeLabel(p.Label, cx, cy, placed)
		placed = append(placed, box)
		v.Points = append(v.Points, pointView{CX: f(cx), CY: f(cy), LX: f(lx), LY: f(ly), Anchor: anchor,
			Label: p.Label, Title: title, Color: Color(p.Series)})
	}
	return render("scatter", v)
}

// XY is one sample of a series.
type XY struct{ X, Y float64 }

// Series is one line of a line chart: its samples in order, drawn solid
// or dashed, in the colour of Series.
type Series struct {
	Label  string
	Points []XY
	Dashed bool
	Series int
}

// Mark is a vertical line at X with a label (where an assertion read the
// state).
type Mark struct {
	X     float64
	Label string
}

// Lines is a chart of series over a shared x axis.
type Lines struct {
	Title  string
	X, Y   Axis
	Series []Series
	Marks  []Mark
	// MarkLabel names the marks in the legend.
	MarkLabel string
}

type linesView struct {
	frame
	Series     []seriesView
	Marks      []markView
	MarkLegend *legendMark
}

type seriesView struct {
	Label, Points, Color, Dash string
	Dots                       []dotView
	LegendY, LegendLineY       string
	LegendX1, LegendX2, TextX  string
}

type dotView struct{ CX, CY, Title, Color string }

type markView struct{ X, Label string }

// legendMark is the legend's entry for the marks.
type legendMark struct{ X1, Y1, Y2, TextX, TextY, Label string }

// maxDots is how many samples a series may have and still get a dot each.
const maxDots = 80

// SVG draws the line chart.
func (c Lines) SVG() template.HTML {
	var xv, yv []float64
	for _, s := range c.Series {
		for _, p := range s.Points {
			xv, yv = append(xv, p.X), append(yv, p.Y)
		}
	}
	for _, m := range c.Marks {
		xv = append(xv, m.X)
	}
	v := linesView{frame: newFrame(c.Title, c.X, c.Y, xv, yv)}
	xf, yf := c.X.Format, c.Y.Format
	if xf == nil {
		xf = shortNumber
	}
	if yf == nil {
		yf = shortNumber
	}
	r := float64(xyWidth - xyRight)
	for i, s := range c.Series {
		sv := seriesView{Label: s.Label, Color: Color(s.Series)}
		if s.Dashed {
			sv.Dash = "6 4"
		}
		var pts []byte
		for j, p := range s.Points {
			if j > 0 {
				pts = append(pts, ' ')
			}
			x, y := v.xs.at(p.X), v.ys.at(p.Y)
			pts = append(pts, f(x)+","+f(y)...)
			if len(s.Points) <= maxDots {
				sv.Dots = append(sv.Dots, dotView{CX: f(x), CY: f(y), Title: s.Label + ": " + yf(p.Y) + " at " + c.X.Label + " " + xf(p.X), Color: sv.Color})
			}
		}
		sv.Points = string(pts)
		ly := float64(xyTop + 8 + 18*i)
		sv.LegendY, sv.LegendLineY = f(ly+4), f(ly)
		sv.LegendX1, sv.LegendX2, sv.TextX = f(r+12), f(r+34), f(r+40)
		v.Series = append(v.Series, sv)
	}
	for _, m := range c.Marks {
		v.Marks = append(v.Marks, markView{X: f(v.xs.at(m.X)), Label: m.Label})
	}
	if len(c.Marks) > 0 && c.MarkLabel != "" {
		ly := float64(xyTop + 8 + 18*len(c.Series))
		v.MarkLegend = &legendMark{X1: f(r + 23), Y1: f(ly - 6), Y2: f(ly + 6), TextX: f(r + 40), TextY: f(ly + 4), Label: c.MarkLabel}
	}
	return render("lines", v)
}

// shortNumber prints a value with up to 6 significant digits.
func shortNumber(v float64) string {
	return trimFloat(v, 6)
}
