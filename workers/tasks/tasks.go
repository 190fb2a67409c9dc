// Package tasks names feria's job queues. Task type names and payloads live
// once, in the port of the module whose use cases write them to the outbox
// (compatport.TaskCopy, fiscalport.TaskDocumentUploaded); the module map
// (app/modules.go) says which queue each type goes to.
package tasks

import (
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Queues and their weights: copies are slow and must not starve the
// notifications buyers wait for.
var Queues = map[string]int{
	QueueDefault: 6,
	QueueBulk:    3,
}

const (
	QueueDefault = "default"
	QueueBulk    = "bulk"
)

// Lane is a queue served by a job server of its own: its own workers, so
// that its jobs never take the other queues' (a slow callback never delays
// a buyer's e-mail), and its own polling, so that a retry due in a second
// runs within one (asynq's default polling is 1 s for new jobs and 5 s for
// due retries).
type Lane struct {
	Queue       string
	Concurrency int
	// Poll is how often the lane looks for jobs when idle and moves due
	// retries back to its queue.
	Poll time.Duration
}

// QueueWebhooks carries the notifications to integrators' applications.
const QueueWebhooks = "webhooks"

// Lanes are the queues with a server of their own. The webhooks lane runs
// attempts that mostly wait on callbacks (at most twice the attempts in
// flight for one application, webhooks.MaxInFlightPerApp): 32 at once per
// worker process, polled every 200 ms.
var Lanes = []Lane{{Queue: QueueWebhooks, Concurrency: 32, Poll: 200 * time.Millisecond}}

// Names lists every queue, lanes and the worlds' lanes included, sorted.
func Names() []string {
	var names []string
	for q := range Queues {
		names = append(names, q)
		names = append(names, worldLanes(q)...)
	}
	for _, l := range Lanes {
		names = append(names, l.Queue)
		names = append(names, worldLanes(l.Queue)...)
	}
	slices.Sort(names)
	return names
}

// WorldLanes is how many queues the worlds' jobs of each queue are spread
// over, by a hash of the world's name. The queues are FIFO: with one queue
// for every world, a world's burst (2,000 copies) ran before another
// world's one job. With lanes of equal weight, a job waits behind the jobs
// of its lane only, which it shares with one world in WorldLanes; a lane
// per world would be a queue per world, polled by every worker, one round
// trip each.
const WorldLanes = 8

// WorldQueue is the queue of world's jobs of queue: queue itself in the
// default world, else the world's lane of it ("bulk:w3").
func WorldQueue(world, queue string) string {
	if world == "" {
		return queue
	}
	h := fnv.New32a()
	h.Write([]byte(world))
	return laneName(queue, int(h.Sum32()%WorldLanes))
}

func laneName(queue string, n int) string { return queue + ":w" + strconv.Itoa(n) }

// worldLanes are the worlds' lanes of queue.
func worldLanes(queue string) []string {
	names := make([]string, WorldLanes)
	for i := range names {
		names[i] = laneName(queue, i)
	}
	return names
}

// WorldWeights are the worlds' lanes of every queue of weights, each with
// its queue's weight.
func WorldWeights(weights map[string]int) map[string]int {
	out := make(map[string]int, len(weights)*WorldLanes)
	for q, w := range weights {
		for _, lane := range worldLanes(q) {
			out[lane] = w
		}
	}
	return out
}

// worldTag leads the task id of a world's job: "world:ci-42:<id>". The
// default world's jobs have ids without it (outbox ids, asynq's own), so a
// job says its world by its id alone, and a world's queued jobs are found
// and removed by it, whatever their type, queue or payload.
const worldTag = "world:"

// WorldTaskID is the task id of the job id of world (id itself in the
// default world, "").
func WorldTaskID(world, id string) string {
	if world == "" {
		return id
	}
	return worldTag + world + ":" + id
}

// WorldOf is the world a task id belongs to; "" for the default world.
func WorldOf(taskID string) string {
	rest, ok := strings.CutPrefix(taskID, worldTag)
	if !ok {
		return ""
	}
	world, _, ok := strings.Cut(rest, ":")
	if !ok {
		return ""
	}
	return world
}
