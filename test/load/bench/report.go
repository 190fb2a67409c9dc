package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// relSize is a table's size on disk with its indexes and TOAST.
type relSize struct {
	table string
	rows  int
	bytes int64
}

// relationSizes measures the tables whose growth sizes a deployment.
func relationSizes(ctx context.Context, db *bun.DB) []relSize {
	var out []relSize
	for _, t := range []string{"products", "product_attributes", "items", "compatibilities", "orders", "fiscal_documents", "outbox"} {
		var s relSize
		s.table = t
		if err := db.NewRaw("SELECT count(*), pg_total_relation_size(?::regclass) FROM "+t, t).Scan(ctx, &s.rows, &s.bytes); err != nil {
			continue // a table renamed since: the others still count
		}
		out = append(out, s)
	}
	return out
}

func mb(v float64) string { return fmt.Sprintf("%.1f MB", v) }

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

func rate(v float64) string {
	switch {
	case v >= 10_000:
		return fmt.Sprintf("%.1fk", v/1000)
	case v >= 1000:
		return fmt.Sprintf("%.2fk", v/1000)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

func mark(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// ratio is the path's rate in configuration c over its anchor's.
func (rw *row) ratio(c int) float64 {
	if rw.anc.m.rate() == 0 || rw.sides[c] == nil {
		return 0
	}
	return rw.sides[c].m.rate() / rw.anc.m.rate()
}

// halfText is the p99 at half load against its goal; a run that measured
// nothing (the world ran out of what the path consumes) is no answer and
// no pass.
func halfText(s *side) string {
	if len(s.half.lats) == 0 {
		return "not measured (**no**)"
	}
	if !s.halfValid() {
		return fmt.Sprintf("%s (client-bound: **not valid**)", ms(s.half.p99))
	}
	return fmt.Sprintf("%s (%s)%s", ms(s.half.p99), mark(s.half.p99 <= 20*time.Millisecond), s.halfStolenNote())
}

// halfOf is the series whose tail at half load a row's line shows: the
// path's, or for a floor row its floor's.
func (rw *row) halfOf(c int) *side {
	if rw.of != nil {
		return &rw.anc
	}
	return rw.sides[c]
}

// line is one configuration of a row, as the tables show it.
type line struct {
	rw     *row
	c      int
	config string
}

// lines is every measured configuration of every row.
func (r *report) lines() []line {
	var out []line
	for _, rw := range r.rows {
		for c, sd := range rw.sides {
			if sd == nil {
				continue
			}
			out = append(out, line{rw, c, configNames[c]})
		}
	}
	return out
}

// validText is the validity mark of a line: both clients, the path's and
// the anchor's, spent less CPU per request than what they measured.
func (l line) validText() string {
	return mark(l.rw.sides[l.c].valid() && l.rw.anc.valid())
}

// clientText is the clients' CPU per request, the path's then the
// anchor's, each beside its server's.
func (l line) clientText() string {
	sd, an := l.rw.sides[l.c], &l.rw.anc
	return fmt.Sprintf("%.0f of %.0f / %.0f of %.0f", sd.perOp(cpuClient), sd.perOp(sd.server), an.perOp(cpuClient), an.perOp(an.server))
}

// print writes the table as plain text.
func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "\nferia bench (%s): %s, commit %s, %s; load average %s at the start, %s at the end\n",
		map[bool]string{true: "quick", false: "full"}[r.o.quick], r.start.Format(time.RFC3339), r.commit, r.machine, r.loadBefore, r.loadEnd)
	fmt.Fprintf(w, "%d interleaved rounds of %s per path and anchor; wrk -t1 -c%d on core %s (fiscal: -c%d); half load: vegeta, open loop for %s\n\n",
		r.o.rounds, r.o.duration, r.o.conc, clientCPU(), fiscalConc, r.o.half)
	fmt.Fprintf(w, "%-44s %-16s %9s %9s %6s %5s %4s %9s %9s %12s %6s  %-27s %5s  %s\n", "path", "configuration", "feria", "anchor", "ratio", "goal", "met",
		"p50", "p99", "p99 @ half", "spread", "client µs/req of server's", "valid", "anchor is")
	for _, l := range r.lines() {
		rw, sd := l.rw, l.rw.sides[l.c]
		p50, p99 := sd.m.quantiles()
		fmt.Fprintf(w, "%-44s %-16s %9s %9s %6.3f %5s %4s %9s %9s %12s %5.0f%%  %-27s %5s  %s (%s)\n", strings.ReplaceAll(rw.name, "`", ""), l.config,
			rate(sd.m.rate()*rw.perOp), rate(rw.anc.m.rate()*rw.perOp), rw.ratio(l.c), rw.goalText(l.c, "%.2f"), strings.Trim(rw.met(l.c), "*"),
			ms(p50), ms(p99), strings.ReplaceAll(halfText(rw.halfOf(l.c)), "*", ""), 100*max(sd.m.spread(), rw.anc.m.spread()),
			l.clientText(), strings.Trim(l.validText(), "*"), rw.anchorName, rw.unit)
	}
	r.printWorlds(w)
	fmt.Fprintln(w, "\nCPU per request (µs), every process, summed over the rounds:")
	fmt.Fprintf(w, "%-44s %-16s", "path", "side")
	for _, n := range cpuNames {
		fmt.Fprintf(w, " %12.12s", n)
	}
	fmt.Fprintln(w)
	r.eachCPU(true, func(name, what string, sd *side) {
		fmt.Fprintf(w, "%-44s %-16s", name, what)
		for _, n := range cpuNames {
			fmt.Fprintf(w, " %12.0f", sd.perOp(n))
		}
		fmt.Fprintln(w)
	})
	fmt.Fprintf(w, "\nferia serve RSS: idle %s (after the world %s), peak under load %s, with the sandbox %s (goals: idle <= 40 MB, load <= 150 MB)\n",
		mb(r.idle), mb(r.idleSeeded), mb(r.peak), mb(r.sandboxPeak))
	if r.o.embedded {
		if r.embErr != nil {
			fmt.Fprintf(w, "embedded mode: %v\n", r.embErr)
		} else {
			fmt.Fprintf(w, "embedded mode (feria all) RSS: idle %s, peak under the same load %s (goal <= 200 MB)\n", mb(r.embIdle), mb(r.embPeak))
		}
	}
	wk := r.worker
	for _, d := range wk.phases {
		fmt.Fprintf(w, "feria worker, %s: %d jobs %v in %s = %.0f jobs/s\n", d.what, d.jobs, d.byQueue, d.took.Round(time.Millisecond), d.perSec())
	}
	fmt.Fprintf(w, "feria worker RSS: peak %s, idle after %s\n", mb(wk.peak), mb(wk.idle))
	fmt.Fprintln(w, "PostgreSQL storage (pg_total_relation_size, indexes included):")
	for _, s := range r.relSizes {
		per := 0.0
		if s.rows > 0 {
			per = float64(s.bytes) / float64(s.rows)
		}
		fmt.Fprintf(w, "  %-20s %9d rows %10.1f MB %8.0f B/row\n", s.table, s.rows, float64(s.bytes)/(1<<20), per)
	}
}

// markdown writes the table for docs/performance.md.
func (r *report) markdown(w io.Writer) {
	mode := "full (`make bench`)"
	if r.o.quick {
		mode = "quick (`make bench-quick`)"
	}
	fmt.Fprintf(w, "Run: %s, %s, commit %s. Machine: %s; load average %s at the start, %s at the end.\n",
		mode, r.start.Format("2006-01-02 15:04 MST"), r.commit, r.machine, r.loadBefore, r.loadEnd)
	fmt.Fprintf(w, "Load: %d interleaved rounds, each path (in every configuration) and its anchor for %s each, every other round backwards (the anchor first), from wrk (one thread, %d keep-alive connections, %d for the fiscal paths, pinned to core %s); "+
		"the anchors with no HTTP called from the harness by as many goroutines. p50 is the rounds' median, p99 their worst; then each path for %s at half its saturated rate from vegeta (an open loop on its warm-up's connections; a floor row's is its floor's, sent at its path's half rate; a tail whose client spent more CPU a request than its server is client-bound, not valid; beside a tail, the CPU time the host took from the machine meanwhile, when any: the steal of /proc/stat). "+
		"Client CPU per request is wrk's (or the harness's) beside the server's (feria, the anchor service, or Redis or MinIO for the anchors with no HTTP), the path's then the anchor's; a line is valid when neither client spent more than its server. "+
		"World: %d vehicle products and %d family heads, the read item and %d more with 200 compatibilities each, %d days of contact events for %d items, %d packs, %d listings more.\n\n",
		r.o.rounds, r.o.duration, r.o.conc, fiscalConc, clientCPU(), r.o.half, r.o.products, r.o.products/perParent, compatItems, r.o.days, contactItems, packsOf(r.o), pick(r.o.quick, 300, 3000))
	fmt.Fprintln(w, "| path | configuration | feria | the same stack doing the minimum | ratio | goal | p50 / p99 | p99 at half load (goal ≤ 20 ms) | client µs/req of server's: path; anchor | valid | spread |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, l := range r.lines() {
		rw, sd := l.rw, l.rw.sides[l.c]
		if rw.of != nil && l.c != rw.firstSide() || l.c == inWorld {
			continue // a floor once: the text table has both; the worlds' paragraph has the paths in a world
		}
		p50, p99 := sd.m.quantiles()
		fmt.Fprintf(w, "| %s | %s | %s %s | %s: %s | %.3f | %s | %s / %s | %s | %s | %s | %.0f%% |\n", rw.name, l.config,
			rate(sd.m.rate()*rw.perOp), rw.unit, rw.anchorName, rate(rw.anc.m.rate()*rw.perOp), rw.ratio(l.c),
			rw.goalText(l.c, "≥ %.2f ("+strings.Trim(rw.met(l.c), "*")+")"), ms(p50), ms(p99), halfText(rw.halfOf(l.c)),
			strings.ReplaceAll(l.clientText(), " / ", "; "), l.validText(), 100*max(sd.m.spread(), rw.anc.m.spread()))
	}
	fmt.Fprintln(w)
	r.markdownWorlds(w)
	fmt.Fprintln(w, "CPU per request (µs) of every process, over the rounds, for each path and its anchor (the floors' in the printed table; PostgreSQL's own processes and MinIO are shared with the machine's other users):")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| path | side |")
	for _, n := range cpuNames {
		fmt.Fprintf(w, " %s |", n)
	}
	fmt.Fprintf(w, "\n|---|---|%s\n", strings.Repeat("---|", len(cpuNames)))
	r.eachCPU(false, func(name, what string, sd *side) {
		fmt.Fprintf(w, "| %s | %s |", name, what)
		for _, n := range cpuNames {
			fmt.Fprintf(w, " %s |", cpuText(sd.perOp(n)))
		}
		fmt.Fprintln(w)
	})
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| memory (VmRSS) | measured | goal | met |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| `feria serve`, idle after start-up | %s | ≤ 40 MB | %s |\n", mb(r.idle), mark(r.idle <= 40))
	fmt.Fprintf(w, "| `feria serve`, idle with the world loaded | %s | | |\n", mb(r.idleSeeded))
	fmt.Fprintf(w, "| `feria serve`, peak under the load above | %s | ≤ 150 MB | %s |\n", mb(r.peak), mark(r.peak <= 150))
	fmt.Fprintf(w, "| `feria serve` with the sandbox (the world's loading, the ingest), peak | %s | ≤ 150 MB | %s |\n", mb(r.sandboxPeak), mark(r.sandboxPeak <= 150))
	if r.o.embedded && r.embErr == nil {
		// The idle goal is for real backends; the embedded mode's
		// is under load only.
		fmt.Fprintf(w, "| `feria all` embedded (SQLite, in-process Redis), idle | %s | | |\n", mb(r.embIdle))
		fmt.Fprintf(w, "| `feria all` embedded, peak under the same load | %s | ≤ 200 MB | %s |\n", mb(r.embPeak), mark(r.embPeak <= 200))
	}
	wk := r.worker
	fmt.Fprintf(w, "| `feria worker`, peak while draining | %s | | |\n", mb(wk.peak))
	fmt.Fprintf(w, "| `feria worker`, idle after | %s | | |\n\n", mb(wk.idle))
	fmt.Fprintf(w, "Worker: one `feria worker` (concurrency %s), started once the load ended (the API still up, idle):\n\n", wk.concurrency)
	fmt.Fprintln(w, "| jobs | waiting or asked for | jobs run (by queue) | time | jobs/s |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, d := range wk.phases {
		queues := make([]string, 0, len(d.byQueue))
		for q, n := range d.byQueue {
			queues = append(queues, fmt.Sprintf("%s %d", q, n))
		}
		sort.Strings(queues)
		fmt.Fprintf(w, "| %s | %d | %d (%s) | %s | **%.0f** |\n", d.what, d.messages, d.jobs, strings.Join(queues, ", "), d.took.Round(time.Millisecond), d.perSec())
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The notices: the outbox messages the fiscal uploads of the run wrote, relayed by the worker, each job the buyer's e-mail (logged: no SMTP_URL) and the notification; "+
		"timed from the worker's start. The copies: each a bulk job copying the 200 compatibilities of the read item onto a fresh item, asked for through the API at once; timed from the first request.")
	fmt.Fprintln(w)
}

// The markers around the generated table in docs/performance.md.
const (
	beginMarker = "<!-- make bench: begin (generated by test/load/bench -doc) -->"
	endMarker   = "<!-- make bench: end -->"
)

// intoDoc replaces what lies between the markers of path with the table.
func (r *report) intoDoc(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	i, j := bytes.Index(b, []byte(beginMarker)), bytes.Index(b, []byte(endMarker))
	if i < 0 || j < i {
		return fmt.Errorf("%s: the markers %q and %q are missing", path, beginMarker, endMarker)
	}
	var out bytes.Buffer
	out.Write(b[:i+len(beginMarker)])
	out.WriteString("\n")
	r.markdown(&out)
	out.Write(b[j:])
	return os.WriteFile(path, out.Bytes(), 0o644)
}

// goalText is the goal in configuration c in format, or a dash for a row
// without one.
func (rw *row) goalText(c int, format string) string {
	if rw.goalOf(c) == 0 {
		return "—"
	}
	return fmt.Sprintf(format, rw.goalOf(c))
}

// met marks whether the ratio meets the goal; empty without a goal.
func (rw *row) met(c int) string {
	if rw.goalOf(c) == 0 {
		return ""
	}
	return mark(rw.ratio(c) >= rw.goalOf(c))
}

// eachCPU calls f with every series whose CPU the tables show: each path
// in each configuration, then each anchor once (the floors' too, with
// floors).
func (r *report) eachCPU(floors bool, f func(name, what string, sd *side)) {
	for _, rw := range r.rows {
		if rw.of != nil {
			continue
		}
		for c, sd := range rw.sides {
			if sd != nil {
				f(strings.ReplaceAll(rw.name, "`", ""), configNames[c], sd)
			}
		}
	}
	seen := map[string]bool{}
	for _, rw := range r.rows {
		if !seen[rw.anchorKey] && (floors || rw.of == nil) {
			seen[rw.anchorKey] = true
			f(rw.anchorName, "anchor", &rw.anc)
		}
	}
}

// cpuText is a CPU per request in µs, blank when nothing was spent.
func cpuText(us float64) string {
	if us < 0.5 {
		return ""
	}
	return fmt.Sprintf("%.0f", us)
}
