package trialrun

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/gpusla/gpusla/probe/wire"
)

// Progress tells the renter where the trial is: a line when it starts
// (the planned wall time and when it should end), one as each step starts
// and ends, and on a terminal a bar over the planned seconds that moves
// every second, through the 30-minute soak too. A nil Progress says
// nothing.
type Progress struct {
	w       io.Writer
	live    bool
	mu      sync.Mutex
	bar     *progressbar.ProgressBar
	stop    chan struct{}
	begun   time.Time
	planned time.Duration
	steps   int
}

// NewProgress writes to w; the bar only when w is a terminal and live.
func NewProgress(w io.Writer, live bool) *Progress {
	if f, ok := w.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		live = false
	}
	return &Progress{w: w, live: live}
}

// Start announces the run: its steps and planned wall time.
func (p *Progress) Start(steps int, planned time.Duration, now time.Time) {
	if p == nil {
		return
	}
	p.begun, p.planned, p.steps = now, planned, steps
	fmt.Fprintf(p.w, "gpuprobe trial: %d steps, planned wall time %s; done about %s\n", steps, planned.Round(time.Second),
		now.Add(planned).UTC().Format("15:04 MST"))
	if !p.live {
		return
	}
	p.bar = progressbar.NewOptions64(int64(planned.Seconds())+1, progressbar.OptionSetWriter(p.w), progressbar.OptionSetWidth(30),
		progressbar.OptionShowElapsedTimeOnFinish(), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
	p.stop = make(chan struct{})
	go p.tick()
}

func (p *Progress) tick() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			_ = p.bar.Set64(min(int64(time.Since(p.begun).Seconds()), p.bar.GetMax64()-1))
			p.mu.Unlock()
		}
	}
}

// Step announces step i (0-based) and how long it should take.
func (p *Progress) Step(i int, name string, planned time.Duration, now time.Time) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("[%d/%d] %s", i+1, p.steps, name))
		return
	}
	fmt.Fprintf(p.w, "[%d/%d] %s: planned %s (%s of %s so far)\n", i+1, p.steps, name, planned.Round(time.Second),
		now.Sub(p.begun).Round(time.Second), p.planned.Round(time.Second))
}

// StepDone says how step i went.
func (p *Progress) StepDone(i int, name string, cs []wire.Check, now time.Time) {
	if p == nil {
		return
	}
	n := map[string]int{}
	for _, c := range cs {
		n[c.Verdict]++
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Clear()
	}
	fmt.Fprintf(p.w, "[%d/%d] %s done at %s: %d checks, %d pass, %d warn, %d fail, %d skipped\n", i+1, p.steps, name,
		now.Sub(p.begun).Round(time.Second), len(cs), n[wire.Pass], n[wire.Warn], n[wire.Fail], n[wire.Skipped])
}

// Done ends the display with the verdict and the wall time.
func (p *Progress) Done(verdict string, now time.Time) {
	if p == nil {
		return
	}
	if p.bar != nil {
		close(p.stop)
		p.mu.Lock()
		_ = p.bar.Finish()
		p.mu.Unlock()
	}
	fmt.Fprintf(p.w, "gpuprobe trial: %s in %s (planned %s)\n", verdict, now.Sub(p.begun).Round(time.Second), p.planned.Round(time.Second))
}
