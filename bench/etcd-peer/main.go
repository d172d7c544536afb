// A load from etcd's own Go client (clientv3), beside txbench's YCSB on etcd
// (bench/etcd-ycsb.sh): -clients goroutines over -conns connections, as etcd's
// benchmark tool spreads them, each reading (Range, linearizable unless
// -serializable) or writing (Put, a record of ten 100-byte fields encoded as
// txbench encodes it; -op a mixes them as
// go-ycsb's etcd binding runs YCSB A) one uniformly random key
// of YCSB's records in txbench's key layout (usertable: and the key, offset
// by 2^63, in 20 digits) until -duration ends; prints operations, ops/s and
// the p50 and p99 of their latencies. etcd's benchmark tool is not packaged
// by Debian; this is built from Debian's etcd client sources
// (golang-etcd-server-dev) with Debian's Go.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/clientv3"
)

func key(k int64) string { return fmt.Sprintf("usertable:%020d", uint64(k)^(1<<63)) }

func main() {
	endpoints := flag.String("endpoints", "127.0.0.1:2379", "comma-separated")
	clients := flag.Int("clients", 8, "concurrent clients")
	conns := flag.Int("conns", 8, "connections")
	op := flag.String("op", "get", "get, put, or a: YCSB A as go-ycsb's etcd binding runs it (half gets, half updates that get the record, then put it)")
	keys := flag.Int64("keys", 20000, "key space")
	duration := flag.Duration("duration", 10*time.Second, "run time")
	serializable := flag.Bool("serializable", false, "serializable reads")
	flag.Parse()
	var cs []*clientv3.Client
	for i := 0; i < *conns; i++ {
		c, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(*endpoints, ","), DialTimeout: 5 * time.Second})
		if err != nil {
			panic(err)
		}
		cs = append(cs, c)
	}
	// A record as txbench stores it: a JSON array of the key and ten fields
	// of 100 characters, so that the records stay readable to txbench.
	fields := strings.Repeat(`,"`+strings.Repeat("v", 100)+`"`, 10)
	row := func(k int64) string { return fmt.Sprintf(`["%d"%s]`, k, fields) }
	ctx := context.Background()
	// One operation on key k: a read, a write, or YCSB A's half of each.
	do := func(c *clientv3.Client, r *rand.Rand, id int64) error {
		k := key(id)
		get := func() error {
			var options []clientv3.OpOption
			if *serializable {
				options = append(options, clientv3.WithSerializable())
			}
			_, err := c.Get(ctx, k, options...)
			return err
		}
		put := func() error {
			_, err := c.Put(ctx, k, row(id))
			return err
		}
		switch *op {
		case "put":
			return put()
		case "a":
			if r.Intn(2) == 0 {
				if err := get(); err != nil {
					return err
				}
				return put()
			}
		}
		return get()
	}
	deadline := time.Now().Add(*duration)
	lat := make([][]time.Duration, *clients)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < *clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := cs[i%len(cs)]
			r := rand.New(rand.NewSource(int64(i)))
			for time.Now().Before(deadline) {
				id := r.Int63n(*keys)
				st := time.Now()
				err := do(c, r, id)
				if err != nil {
					panic(err)
				}
				lat[i] = append(lat[i], time.Since(st))
			}
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
	n := len(all)
	fmt.Printf("ops %d ops/s %.0f p50 %.3f ms p99 %.3f ms\n", n, float64(n)/elapsed.Seconds(),
		float64(all[n/2].Microseconds())/1000, float64(all[n*99/100].Microseconds())/1000)
}
