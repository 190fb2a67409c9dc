package webhooksapi

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/feria/feria/ports/webhooksport"
)

// Collector exports the notifications' counts by topic, read from the
// database at scrape time: every process (API or worker) shows the same
// totals, which a sandbox reset sets back to zero (a counter reset).
type Collector struct {
	svc  webhooksport.Service
	desc *prometheus.Desc
}

// NewCollector returns the collector of svc's counts.
func NewCollector(svc webhooksport.Service) *Collector {
	return &Collector{svc: svc, desc: prometheus.NewDesc("feria_webhook_notifications_total",
		"Notifications to applications by topic: created, delivered, retried (attempts after the first) and missed.",
		[]string{"topic", "event"}, nil)}
}

func (c *Collector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect reports nothing when the database does not answer in time: a
// scrape must not hang on it.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	counts, err := c.svc.Counts(ctx)
	if err != nil {
		return
	}
	for _, n := range counts {
		for event, v := range map[string]int{"created": n.Created, "delivered": n.Delivered, "retried": n.Retried, "missed": n.Missed} {
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(v), n.Topic, event)
		}
	}
}
