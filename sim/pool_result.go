package sim

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/hedgesim/hedgesim/textfit"
)

// PoolResult is what a provider's replica pool did over a run.
type PoolResult struct {
	// Provider names the pool's provider; Balancer is its balancer's name.
	Provider string `json:"provider"`
	Balancer string `json:"balancer"`
	// Replicas is what each replica did, in index order.
	Replicas []ReplicaResult `json:"replicas"`
	// Imbalance is the largest utilisation of a replica ÷ the mean over
	// the replicas (1 = perfectly even); for replicas without a
	// concurrency limit, of the mean number in service. For an
	// autoscaled pool both are over the time the replicas were up or
	// starting (upImbalance): replicas never started do not count. Null
	// when nothing was served.
	Imbalance *float64 `json:"imbalance"`
	// ColdStarts counts the cold starts begun, those given up before
	// their end included: at a pool without autoscaling the sum of its
	// replicas'; at an autoscaled pool with a cold-start model its
	// scaler's starts (AutoscaleResult.Starts).
	ColdStarts int64 `json:"cold_starts"`
	// ColdStartsGivenUp counts those of ColdStarts given up before their
	// end (ColdStart.GiveUp, coldstart.go; an autoscaled pool's scaler's,
	// AutoscaleResult.GivenUp); absent when none was.
	ColdStartsGivenUp int64 `json:"cold_starts_given_up,omitempty"`
	// Shared counts the copies and retried calls that went to a replica
	// holding another attempt of their request, because every replica
	// held one (or because the pool lets them: AnyReplica, then 0).
	Shared int64 `json:"shared_replica"`
	// MeanBatch and DecodeSpeed, for a batching pool (Pool.Batching)
	// only, are its replicas' together: see ReplicaResult's (the pool's
	// speed is its replicas' tokens ÷ their seconds decoding).
	MeanBatch   *float64 `json:"mean_batch,omitempty"`
	DecodeSpeed *float64 `json:"decode_tokens_per_second,omitempty"`
	// Restarts lists the replicas' restarts in the order they began
	// (restart.go); absent without any.
	Restarts []RestartResult `json:"restarts,omitempty"`
	end      time.Duration   // the run's end
	// Autoscale is what the pool's scaler did; absent without one.
	Autoscale *AutoscaleResult `json:"autoscale,omitempty"`
}

// ReplicaResult is what one replica of a pool did.
type ReplicaResult struct {
	Replica int `json:"replica"`
	// Slowdown is the replica's service slowdown (1: as fast as the model).
	Slowdown float64 `json:"slowdown"`
	// Sent is the number of attempts the balancer sent to it, Rejected
	// those its full queue turned away, Served those whose work began
	// (the others left its queue on a cancel, or left during the cold
	// start they waited for).
	Sent     int64 `json:"sent"`
	Rejected int64 `json:"rejected"`
	Served   int64 `json:"served"`
	// ColdStarts is how many cold starts it went through: begun, those
	// given up included, at a pool without autoscaling; at an autoscaled
	// pool those that brought it up (a start given up is the pool's,
	// PoolResult.ColdStarts, not a replica's).
	ColdStarts int64 `json:"cold_starts"`
	// MeanQueueWait and P95QueueWait are the mean and the nearest-rank
	// p95 of the waits in seconds, in its queue, of the attempts served;
	// the p95 is null when none was. At an autoscaled pool an attempt's
	// wait at the activator for a replica to come up (a cold start) is
	// part of its wait; at a pool without autoscaling an attempt waiting
	// for its replica's cold start holds a slot, in service, and its wait
	// is only that for a slot.
	MeanQueueWait float64  `json:"mean_queue_wait_s"`
	P95QueueWait  *float64 `json:"p95_queue_wait_s"`
	// MeanInService is the time-average number of attempts in service,
	// losers included until their cancel lands. At a pool without
	// autoscaling the attempts waiting for a cold start are in service,
	// and a cold start counts as one attempt in service from its start to
	// its end or its give-up, also after every attempt waiting for it has
	// left (bookUntended); at an autoscaled pool a starting replica has
	// nothing in service (its attempts wait at the activator).
	MeanInService float64 `json:"mean_in_service"`
	// Utilisation is MeanInService ÷ the replica's concurrency limit; null
	// without one. At an autoscaled pool it is over the replica's own time
	// up or starting, as the provider row's is over the pool's: its
	// seconds in service ÷ (the limit × its seconds up or starting), 0 for
	// a replica never started.
	Utilisation *float64 `json:"utilisation"`
	// UtilisationCI95 is Utilisation's batched 95 % interval when the
	// requests interact, CIMethod how it was made (loadsections.go);
	// both absent otherwise.
	UtilisationCI95 *[2]*float64 `json:"utilisation_ci95,omitempty"`
	CIMethod        string       `json:"ci95_method,omitempty"`
	// MeanBatch, for a batching pool only, is the time-average number of
	// sequences in its batch while it held any; null when the batch was
	// never used. DecodeSpeed is the speed its sequences decoded at, in
	// tokens/s per sequence: the output tokens they decoded in the batch
	// ÷ the seconds they spent decoding there (from the first token, or
	// the whole service of a model with one latency distribution, to
	// their end or the cancel that took them out). A sequence decodes at
	// its model's own speed drawn for it (output tokens ÷ its decode time
	// at batch size 1) × Batching's speed(n) ÷ speed(1) ÷ the replica's
	// slowdown: the table or formula gives the slowdown with the batch,
	// not the speed. Null when no sequence spent time decoding.
	MeanBatch   *float64 `json:"mean_batch,omitempty"`
	DecodeSpeed *float64 `json:"decode_tokens_per_second,omitempty"`
	// started counts the attempts that took a slot, leftCold those of
	// them that left during the cold start they waited for.
	started, leftCold int64
	// offered is the estimated offered load (OfferedLoad), and growing
	// whether the queue grew with it (Unstable).
	offered float64
	growing bool
}

// poolResults returns what each pool did, in provider order; span is the
// run's length.
func (e *engine) poolResults() []PoolResult {
	var out []PoolResult
	span := e.lastEvent.Seconds()
	for i := range e.provs {
		pl := e.provs[i].pool
		if pl == nil {
			continue
		}
		pr := PoolResult{Provider: e.provs[i].name, Balancer: pl.cfg.Balancer.String(), Shared: pl.shared}
		var load []float64
		var busy, seqTime, tokens, decoding float64 // of batching replicas
		var inService float64                       // replica-seconds with an attempt in service
		var ups []float64                           // an autoscaled pool's seconds up or starting, per replica
		if pl.sc != nil && span > 0 {
			ups = pl.sc.upTimes(span, len(pl.reps))
		}
		for j := range pl.reps {
			rp := &pl.reps[j]
			inService += rp.busySum.seconds()
			if cs := pl.cfg.ColdStart; cs != nil && pl.sc == nil {
				pr.ColdStartsGivenUp += rp.givenUpAll(cs)
			}
			rr := rp.stats
			rr.Served = rr.started - rr.leftCold
			if rr.started > 0 {
				rr.MeanQueueWait = rp.waitSum.seconds() / float64(rr.started)
				// The waits of 0, not held, are the least: the rank
				// falls among them or is taken among those held.
				p, k := 0.0, NearestRank(int(rr.started), 0.95)
				if zeros := int(rr.started) - rp.waits.len(); k >= zeros {
					p = seconds64(selectRanks(rp.waits.all(), []int{k - zeros})[0])
				}
				rr.P95QueueWait = &p
			}
			if span > 0 {
				rr.MeanInService = rp.busySum.seconds() / span
			}
			x := rr.MeanInService
			if c := pl.cfg.Concurrency; c > 0 {
				x = rr.MeanInService / float64(c)
				u := x
				if ups != nil {
					// Over the replica's own time up or starting, as the
					// provider row's is over the pool's.
					u = 0
					if ups[j] > 0 {
						u = rp.busySum.seconds() / (float64(c) * ups[j])
					}
				}
				rr.Utilisation = &u
				rr.offered, rr.growing = pl.replicaLoad(rp, u)
			}
			if bt := rp.batch; bt != nil && bt.busy > 0 {
				busy += bt.busy
				seqTime += bt.seqTime
				tokens += bt.tokens
				decoding += bt.decoding
				rr.MeanBatch, rr.DecodeSpeed = finite(bt.seqTime/bt.busy), finite(bt.tokens/bt.decoding)
			}
			load = append(load, x)
			pr.ColdStarts += rr.ColdStarts
			pr.Replicas = append(pr.Replicas, rr)
		}
		if ups != nil {
			// Each replica's load while it was up, against the mean load
			// of the replicas up.
			pr.Imbalance = upImbalance(load, ups, span)
		} else {
			pr.Imbalance = imbalance(load)
		}
		if busy > 0 {
			pr.MeanBatch, pr.DecodeSpeed = finite(seqTime/busy), finite(tokens/decoding)
		}
		pr.Restarts, pr.end = pl.restartResults(e.lastEvent), e.lastEvent
		if pl.sc != nil {
			pr.Autoscale = pl.sc.result(span, inService, e.provs[i].stats.Sent)
			if pl.cfg.ColdStart != nil {
				// Every start begun is a cold start, as at a fixed pool:
				// the replicas' count only those that brought one up.
				pr.ColdStarts, pr.ColdStartsGivenUp = pr.Autoscale.Starts, pr.Autoscale.GivenUp
			}
		}
		out = append(out, pr)
	}
	return out
}

// imbalance returns max(xs) ÷ mean(xs), or nil when the mean is 0.
func imbalance(xs []float64) *float64 {
	hi, sum := 0.0, 0.0
	for _, x := range xs {
		hi = math.Max(hi, x)
		sum += x
	}
	if !(sum > 0) {
		return nil
	}
	v := hi / (sum / float64(len(xs)))
	return &v
}

// upImbalance is imbalance over the time replicas were up: xs are the
// replicas' loads averaged over the run's span seconds, ups the seconds
// each was up or starting (scaler.upTimes). The largest load while up,
// xs[j]·span/ups[j] over the replicas ever up, is divided by the mean
// load per replica up, sum(xs)·span/sum(ups); nil when either is 0.
func upImbalance(xs, ups []float64, span float64) *float64 {
	hi, sum, area := 0.0, 0.0, 0.0
	for j, x := range xs {
		sum += x
		area += ups[j]
		if ups[j] > 0 {
			hi = math.Max(hi, x*span/ups[j])
		}
	}
	if !(sum > 0) || !(area > 0) || !(hi > 0) {
		return nil
	}
	v := hi / (sum * span / area)
	return &v
}

// maxReplicaRows is how many replicas of a pool the text report lists
// before it lists only the notable ones.
const maxReplicaRows = 16

// writePools writes a table per replica pool: each replica's load, queue
// waits and cold starts — for a large pool only the replicas with the
// highest and lowest load and those that differ from the rest — and the
// pool's imbalance.
func writePools(w io.Writer, pools []PoolResult) {
	for _, p := range pools {
		imb := "-"
		if p.Imbalance != nil {
			imb = fmt.Sprintf("%.2f", *p.Imbalance)
		}
		fmt.Fprintf(w, "pool %s: %s, balancer %s, imbalance (max/mean load) %s, %s", p.Provider, plural(len(p.Replicas), "replica", "replicas"), p.Balancer, imb, plural(int(p.ColdStarts), "cold start", "cold starts"))
		if p.ColdStartsGivenUp > 0 {
			fmt.Fprintf(w, " (%d of them given up)", p.ColdStartsGivenUp)
		}
		if p.Shared > 0 {
			if p.Shared == 1 {
				fmt.Fprint(w, ", 1 copy or retry shared a replica with its request's other attempts")
			} else {
				fmt.Fprintf(w, ", %d copies or retries shared a replica with their request's other attempts", p.Shared)
			}
		}
		if p.MeanBatch != nil {
			fmt.Fprintf(w, ", mean batch %.2f", *p.MeanBatch)
			if p.DecodeSpeed != nil {
				fmt.Fprintf(w, " at %.4g tokens/s per sequence", *p.DecodeSpeed)
			}
		}
		fmt.Fprintln(w)
		if p.Autoscale != nil {
			writeAutoscale(w, p.Autoscale)
		}
		rows := notableReplicas(p.Replicas)
		tw := textfit.NewTable(w, tabwriter.AlignRight)
		head := "replica\tslowdown\tsent\tserved\trejected\tcold starts\tmean queue wait\tp95 queue wait\tin service\tutilisation\t"
		if p.MeanBatch != nil {
			head += "mean batch\ttokens/s per sequence\t"
		}
		fmt.Fprintln(tw, head)
		for _, i := range rows {
			r := p.Replicas[i]
			p95, util := "-", "-"
			if r.P95QueueWait != nil {
				p95 = fsec(*r.P95QueueWait)
			}
			if r.Utilisation != nil {
				util = pct(*r.Utilisation)
			}
			fmt.Fprintf(tw, "%d\t%gx\t%d\t%d\t%d\t%d\t%s\t%s\t%.2f\t%s\t", r.Replica, r.Slowdown, r.Sent, r.Served, r.Rejected, r.ColdStarts,
				fsec(r.MeanQueueWait), p95, r.MeanInService, util)
			if p.MeanBatch != nil {
				batch, speed := "-", "-"
				if r.MeanBatch != nil {
					batch = fmt.Sprintf("%.2f", *r.MeanBatch)
				}
				if r.DecodeSpeed != nil {
					speed = fmt.Sprintf("%.4g", *r.DecodeSpeed)
				}
				fmt.Fprintf(tw, "%s\t%s\t", batch, speed)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		if len(rows) < len(p.Replicas) {
			fmt.Fprintf(w, "(%d of %d replicas shown: the most and least loaded and those that differ; every one is in the JSON report)\n", len(rows), len(p.Replicas))
		}
		writeRestarts(w, p)
		fmt.Fprintln(w)
	}
}

// notableReplicas returns the indices of the replicas to list, ascending:
// all of them in a small pool; else the three most and three least loaded
// and every one whose slowdown is not 1.
func notableReplicas(rs []ReplicaResult) []int {
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	if len(rs) <= maxReplicaRows {
		return idx
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmpFloat(rs[a].MeanInService, rs[b].MeanInService)
	})
	keep := map[int]bool{}
	for _, i := range append(idx[:3:3], idx[len(idx)-3:]...) {
		keep[i] = true
	}
	for i, r := range rs {
		if r.Slowdown != 1 {
			keep[i] = true
		}
	}
	var out []int
	for i := range rs {
		if keep[i] {
			out = append(out, i)
		}
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
