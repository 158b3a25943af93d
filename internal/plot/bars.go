package plot

import (
	"html/template"
	"strconv"
)

// Bar is one horizontal bar: Value on a 0–1 scale (clamped), its label
// before it and Text (the value as words) after it. Series picks its
// colour, so that one model has one colour in every group.
type Bar struct {
	Label  string
	Value  float64
	Text   string
	Series int
}

// BarGroup is a heading with its bars (a category and one bar per model).
type BarGroup struct {
	Label string
	Bars  []Bar
}

// Bar chart geometry, in pixels.
const (
	barsWidth   = 640
	barsLabelW  = 170 // the bar labels' column
	barsTextW   = 100 // the value text after a full bar
	barsRow     = 18  // one bar
	barsHeading = 22  // a group's heading
	barsAxis    = 22  // the axis labels at the bottom
)

type barsView struct {
	Title         string
	Width, Height int
	X0, X1, AxisY string
	Ticks         []tick
	Groups        []barGroupView
}

type barGroupView struct {
	Label, Y string
	Bars     []barView
}

type barView struct {
	Label, Text, Title string
	Y, TextY, W, TextX string
	Color              string
}

// Bars draws groups of horizontal bars on a 0–100% scale, titled title.
func Bars(title string, groups []BarGroup) template.HTML {
	x := span{lo: 0, hi: 1, from: barsLabelW, to: barsWidth - barsTextW}
	v := barsView{Title: title, Width: barsWidth, X0: f(x.from), X1: f(x.to)}
	y := 4
	for _, g := range groups {
		gv := barGroupView{Label: g.Label, Y: f(float64(y + 15))}
		y += barsHeading
		for _, b := range g.Bars {
			val := min(1, max(0, b.Value))
			gv.Bars = append(gv.Bars, barView{
				Label: b.Label, Text: b.Text, Title: g.Label + ", " + b.Label + ": " + b.Text,
				Y: f(float64(y + 3)), TextY: f(float64(y + 13)), W: f(x.at(val) - x.from), TextX: f(x.at(val) + 5),
				Color: Color(b.Series),
			})
			y += barsRow
		}
		v.Groups = append(v.Groups, gv)
	}
	v.AxisY = f(float64(y + 14))
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		v.Ticks = append(v.Ticks, tick{Pos: f(x.at(t)), Text: percent(t)})
	}
	v.Height = y + barsAxis
	return render("bars", v)
}

// percent prints a 0–1 tick as a whole percentage.
func percent(t float64) string { return strconv.FormatFloat(100*t, 'f', 0, 64) + "%" }
